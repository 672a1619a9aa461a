/**
 * Access-group read routes (spec §4.2, reference node-api.md §2.1) end to end, once on a
 * memory-store node and once on a Redis-backed node. Groups and memberships are written through
 * the real write path (create-access-group / add-access-group-members → signed →
 * submit-transaction → mined); the reads go over HTTP. One table of cases per route, plus a
 * paging walk over a 121-member group that returns every member exactly once, in key order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodePublicKey } from '../../server/keys/index.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair, TEST_STORES } from '../helpers/chainNode.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const BIG_RANDOM_MEMBERS = 120;

const alice = keyPair();
const bob = keyPair();
const carol = keyPair();
/** No transactions at all. */
const stranger = keyPair();
const friendsKey = keyPair();
const bigKey = keyPair();
const bobsKey = keyPair();
const inboxKey = keyPair();
const bigMembers = Array.from({ length: BIG_RANDOM_MEMBERS }, () => keyPair());

const hexOf = (k: KeyPair): string => Buffer.from(k.pk33).toString('hex');
/** Keys in byte order of their 33-byte form (the order of member pages). */
const byKeyBytes = (keys: KeyPair[]): string[] => [...keys].sort((x, y) => (hexOf(x) < hexOf(y) ? -1 : 1)).map((k) => k.pk);

async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<void> {
  const c = await n.ok(path, { ...FEE, ...body });
  await n.submit(c['TransactionHex'] as string, signer, 'sdk');
}

const groupBody = (owner: KeyPair, name: string, access: KeyPair, extra?: J): J => ({
  AccessGroupOwnerPublicKeyBase58Check: owner.pk,
  AccessGroupPublicKeyBase58Check: access.pk,
  AccessGroupKeyName: name,
  ...(extra ? { ExtraData: extra } : {}),
});
const member = (k: KeyPair, keyName = '', encryptedKey = 'abcd01', extra?: J): J => ({
  AccessGroupMemberPublicKeyBase58Check: k.pk,
  AccessGroupMemberKeyName: keyName,
  EncryptedKey: encryptedKey,
  ...(extra ? { ExtraData: extra } : {}),
});
const membersBody = (owner: KeyPair, name: string, list: J[]): J => ({ AccessGroupOwnerPublicKeyBase58Check: owner.pk, AccessGroupKeyName: name, AccessGroupMemberList: list });

async function setup(n: ChainNode): Promise<void> {
  for (const k of [alice, bob, carol]) await n.fund(k.pk, 100_000_000);
  await mined(n, 'update-profile', { UpdaterPublicKeyBase58Check: bob.pk, NewUsername: `bob${Date.now() % 100000}`, NewDescription: 'member', NewStakeMultipleBasisPoints: 12_500, NewCreatorBasisPoints: 1000 }, bob);
  await mined(n, 'create-access-group', groupBody(alice, 'friends', friendsKey, { note: 'hello' }), alice);
  await mined(n, 'create-access-group', groupBody(alice, 'big', bigKey), alice);
  await mined(n, 'create-access-group', groupBody(bob, 'bobs', bobsKey), bob);
  await mined(n, 'create-access-group', groupBody(carol, 'inbox', inboxKey), carol);
  // alice joins her own "friends" through her base group; carol through her "inbox" group.
  await mined(n, 'add-access-group-members', membersBody(alice, 'friends', [member(bob), member(carol, 'inbox', 'c0ffee', { role: 'admin' }), member(alice, '', 'a11ce0')]), alice);
  await mined(n, 'add-access-group-members', membersBody(bob, 'bobs', [member(alice)]), bob);
  // 121 members in three transactions, submitted back to back, waiting for the last only.
  const batches = [bigMembers.slice(0, 60), bigMembers.slice(60), [bob]];
  let last = '';
  for (const batch of batches) {
    const c = await n.ok('add-access-group-members', { ...FEE, ...membersBody(alice, 'big', batch.map((k) => member(k))) });
    const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, alice, 'sdk') });
    last = s['TxnHashHex'] as string;
  }
  await n.waitMined(last);
}

// --- table machinery ------------------------------------------------------------------------------

interface Case {
  name: string;
  body: J;
  /** Expected 4xx status and error pattern; absent ⇒ 200. */
  error?: { status?: number; re: RegExp };
  check?: (r: J) => void;
}

function table(node: () => ChainNode, path: string, cases: Case[]): void {
  describe(path, () => {
    for (const tc of cases) {
      it(tc.name, async () => {
        const n = node();
        if (tc.error) {
          await n.fails(path, tc.body, tc.error.re, tc.error.status ?? 400);
          return;
        }
        // `ok` parses the body, so a literal `null` answer arrives as null.
        const r = await n.ok(path, tc.body);
        tc.check?.(r);
      });
    }
  });
}

const ENTRY_FIELDS = ['AccessGroupKeyName', 'AccessGroupMemberEntryResponse', 'AccessGroupOwnerPublicKeyBase58Check', 'AccessGroupPublicKeyBase58Check', 'ExtraData'];
const MEMBER_FIELDS = ['AccessGroupMemberKeyName', 'AccessGroupMemberPublicKeyBase58Check', 'EncryptedKey', 'ExtraData'];
const baseEntry = (k: KeyPair): J => ({ AccessGroupOwnerPublicKeyBase58Check: k.pk, AccessGroupKeyName: '', AccessGroupPublicKeyBase58Check: k.pk, ExtraData: null, AccessGroupMemberEntryResponse: null });
const memberEntry = (k: KeyPair, keyName = '', encryptedKey = 'abcd01', extra: J | null = null): J => ({
  AccessGroupMemberPublicKeyBase58Check: k.pk,
  AccessGroupMemberKeyName: keyName,
  EncryptedKey: encryptedKey,
  ExtraData: extra,
});
const friendsEntry = (membership: J | null = null): J => ({
  AccessGroupOwnerPublicKeyBase58Check: alice.pk,
  AccessGroupKeyName: 'friends',
  AccessGroupPublicKeyBase58Check: friendsKey.pk,
  ExtraData: { note: 'hello' },
  AccessGroupMemberEntryResponse: membership,
});
const groupNames = (list: J[]): string[] => list.map((g) => g['AccessGroupKeyName'] as string);
/** Groups listed for a member: by owner key bytes, then name. */
const byOwnerThenName = (rows: Array<[KeyPair, string]>): string[] => [...rows].sort(([a, x], [b, y]) => (hexOf(a) === hexOf(b) ? (x < y ? -1 : 1) : hexOf(a) < hexOf(b) ? -1 : 1)).map(([, name]) => name);

// --- the suite, once per store ----------------------------------------------------------------------

function suite(store: 'memory' | 'redis'): void {
  describe(`access-group reads (${store} store)`, () => {
    let n: ChainNode | undefined;
    const node = (): ChainNode => {
      assert.ok(n, 'the node started');
      return n;
    };

    before(async () => {
      n = await startChainNode({ store });
      await setup(n);
    });
    after(async () => {
      await n?.close();
    });

    table(node, 'get-all-user-access-groups', [
      {
        name: 'alice: owned (base group first, then by name; her own membership filled) and member-of',
        body: { PublicKeyBase58Check: alice.pk },
        check: (r) => {
          assert.deepEqual(Object.keys(r).sort(), ['AccessGroupsMember', 'AccessGroupsOwned']);
          const owned = r['AccessGroupsOwned'] as J[];
          assert.deepEqual(groupNames(owned), ['', 'big', 'friends']);
          owned.forEach((g) => assert.deepEqual(Object.keys(g).sort(), ENTRY_FIELDS));
          assert.deepEqual(owned[0], baseEntry(alice), 'the base group: access key = owner key');
          assert.deepEqual(owned[2], friendsEntry(memberEntry(alice, '', 'a11ce0')));
          assert.equal(owned[1]!['ExtraData'], null, 'no ExtraData ⇒ null');
          const memberOf = r['AccessGroupsMember'] as J[];
          assert.deepEqual(groupNames(memberOf), byOwnerThenName([[bob, 'bobs'], [alice, 'friends']]));
          const bobs = memberOf.find((g) => g['AccessGroupKeyName'] === 'bobs')!;
          assert.deepEqual(bobs, { AccessGroupOwnerPublicKeyBase58Check: bob.pk, AccessGroupKeyName: 'bobs', AccessGroupPublicKeyBase58Check: bobsKey.pk, ExtraData: null, AccessGroupMemberEntryResponse: memberEntry(alice) });
        },
      },
      { name: 'a key without transactions: its base group, no memberships', body: { PublicKeyBase58Check: stranger.pk }, check: (r) => assert.deepEqual(r, { AccessGroupsOwned: [baseEntry(stranger)], AccessGroupsMember: [] }) },
      { name: 'a bad public key is refused', body: { PublicKeyBase58Check: 'tBCKnot-a-key' }, error: { re: /^GetAllUserAccessGroups: Problem decoding ownerbase58 public key: PublicKeyBase58Check: / } },
      { name: 'a missing public key is refused', body: {}, error: { re: /^GetAllUserAccessGroups: Problem decoding ownerbase58 public key: / } },
    ]);

    table(node, 'get-all-user-access-groups-owned', [
      {
        name: 'bob: base group and "bobs", and no member list',
        body: { PublicKeyBase58Check: bob.pk },
        check: (r) => {
          assert.deepEqual(Object.keys(r), ['AccessGroupsOwned']);
          assert.deepEqual(groupNames(r['AccessGroupsOwned'] as J[]), ['', 'bobs']);
          assert.deepEqual((r['AccessGroupsOwned'] as J[])[1]!['AccessGroupPublicKeyBase58Check'], bobsKey.pk);
        },
      },
      { name: 'a key without transactions: only the base group', body: { PublicKeyBase58Check: stranger.pk }, check: (r) => assert.deepEqual(r, { AccessGroupsOwned: [baseEntry(stranger)] }) },
      { name: 'a mainnet key on this testnet node is refused', body: { PublicKeyBase58Check: encodePublicKey(bob.pk33, 'mainnet') }, error: { re: /^GetAllUserAccessGroupsOwned: Problem decoding ownerbase58 public key: / } },
    ]);

    table(node, 'get-all-user-access-groups-member-only', [
      {
        name: 'bob: "big" and "friends" of alice, each with his membership',
        body: { PublicKeyBase58Check: bob.pk },
        check: (r) => {
          assert.deepEqual(Object.keys(r), ['AccessGroupsMember']);
          const list = r['AccessGroupsMember'] as J[];
          assert.deepEqual(groupNames(list), ['big', 'friends']);
          assert.deepEqual(list[1], friendsEntry(memberEntry(bob)));
          assert.deepEqual(list[0]!['AccessGroupMemberEntryResponse'], memberEntry(bob));
        },
      },
      {
        name: 'carol: through her "inbox" group, with the membership ExtraData',
        body: { PublicKeyBase58Check: carol.pk },
        check: (r) => assert.deepEqual(r, { AccessGroupsMember: [friendsEntry(memberEntry(carol, 'inbox', 'c0ffee', { role: 'admin' }))] }),
      },
      { name: 'a key without memberships: an empty list', body: { PublicKeyBase58Check: stranger.pk }, check: (r) => assert.deepEqual(r, { AccessGroupsMember: [] }) },
      { name: 'a bad public key is refused', body: { PublicKeyBase58Check: 42 }, error: { re: /PublicKeyBase58Check: expected a string, got number 42$/ } },
    ]);

    const party = (s: KeyPair, sName: string, rk: KeyPair, rName: string): J => ({ SenderPublicKeyBase58Check: s.pk, SenderAccessGroupKeyName: sName, RecipientPublicKeyBase58Check: rk.pk, RecipientAccessGroupKeyName: rName });
    table(node, 'check-party-access-groups', [
      {
        name: 'both groups exist: their access keys',
        body: party(alice, 'friends', carol, 'inbox'),
        check: (r) =>
          assert.deepEqual(r, {
            SenderPublicKeyBase58Check: alice.pk,
            SenderAccessGroupPublicKeyBase58Check: friendsKey.pk,
            SenderAccessGroupKeyName: 'friends',
            IsSenderAccessGroupKey: true,
            RecipientPublicKeyBase58Check: carol.pk,
            RecipientAccessGroupPublicKeyBase58Check: inboxKey.pk,
            RecipientAccessGroupKeyName: 'inbox',
            IsRecipientAccessGroupKey: true,
          }),
      },
      {
        name: 'a missing group falls back to the base key; the base group always exists',
        body: party(bob, 'default-key', stranger, ''),
        check: (r) =>
          assert.deepEqual(r, {
            SenderPublicKeyBase58Check: bob.pk,
            SenderAccessGroupPublicKeyBase58Check: bob.pk,
            SenderAccessGroupKeyName: '',
            IsSenderAccessGroupKey: false,
            RecipientPublicKeyBase58Check: stranger.pk,
            RecipientAccessGroupPublicKeyBase58Check: stranger.pk,
            RecipientAccessGroupKeyName: '',
            IsRecipientAccessGroupKey: true,
          }),
      },
      {
        name: 'names longer than 32 bytes are cut to 32, as core pads names',
        body: party(alice, `friends${'\u0000'.repeat(25)}-ignored`, carol, 'inbox'),
        check: (r) => assert.equal(r['SenderAccessGroupPublicKeyBase58Check'], friendsKey.pk),
      },
      { name: 'a bad sender key is refused', body: { ...party(alice, '', bob, ''), SenderPublicKeyBase58Check: 'x' }, error: { re: /^CheckPartyAccessGroups: Problem decoding sender public key: / } },
      { name: 'a bad recipient key is refused', body: { ...party(alice, '', bob, ''), RecipientPublicKeyBase58Check: '' }, error: { re: /^CheckPartyAccessGroups: Problem decoding recipient public key: / } },
    ]);

    table(node, 'get-access-group-info', [
      { name: 'a registered group with its ExtraData, member field null', body: { AccessGroupOwnerPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'friends' }, check: (r) => assert.deepEqual(r, friendsEntry()) },
      { name: 'the empty name: the owner’s base group, access key = owner key', body: { AccessGroupOwnerPublicKeyBase58Check: stranger.pk, AccessGroupKeyName: '' }, check: (r) => assert.deepEqual(r, baseEntry(stranger)) },
      {
        name: 'a group that does not exist: 404',
        body: { AccessGroupOwnerPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'nope' },
        error: { status: 404, re: new RegExp(`^GetAccessGroupInfo: Access group not found for public key ${alice.pk} and access group key name nope$`) },
      },
      { name: 'a name over 32 bytes is refused', body: { AccessGroupOwnerPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'x'.repeat(33) }, error: { re: /^GetAccessGroupInfo: Problem validating access group owner public key and access group key name x+: .*RuleErrorAccessGroupKeyNameTooLong$/ } },
      { name: 'a bad owner key is refused', body: { AccessGroupOwnerPublicKeyBase58Check: alice.pk.slice(1), AccessGroupKeyName: 'friends' }, error: { re: /^GetAccessGroupInfo: Problem decoding owner base58 public key: / } },
    ]);

    const memberInfo = (owner: KeyPair, name: string, m: KeyPair): J => ({ AccessGroupOwnerPublicKeyBase58Check: owner.pk, AccessGroupKeyName: name, AccessGroupMemberPublicKeyBase58Check: m.pk });
    table(node, 'get-access-group-member-info', [
      {
        name: 'bob in "friends": the EncryptedKey hex string as sent',
        body: memberInfo(alice, 'friends', bob),
        check: (r) => {
          assert.deepEqual(Object.keys(r).sort(), MEMBER_FIELDS);
          assert.deepEqual(r, memberEntry(bob));
        },
      },
      { name: 'carol in "friends": her member key name and ExtraData', body: memberInfo(alice, 'friends', carol), check: (r) => assert.deepEqual(r, memberEntry(carol, 'inbox', 'c0ffee', { role: 'admin' })) },
      { name: 'a key that is no member: null', body: memberInfo(alice, 'friends', stranger), check: (r) => assert.equal(r, null) },
      { name: 'the base group has no members: null', body: memberInfo(alice, '', bob), check: (r) => assert.equal(r, null) },
      { name: 'a bad member key is refused', body: { ...memberInfo(alice, 'friends', bob), AccessGroupMemberPublicKeyBase58Check: 'nope' }, error: { re: /^GetAccessGroupMemberInfo: Problem validating access group member public key: / } },
      { name: 'a name over 32 bytes is refused', body: memberInfo(alice, 'f'.repeat(50), bob), error: { re: /^GetAccessGroupMemberInfo: .*RuleErrorAccessGroupKeyNameTooLong$/ } },
    ]);

    const page = (over: J = {}): J => ({ AccessGroupOwnerPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'friends', MaxMembersToFetch: 10, ...over });
    table(node, 'get-paginated-access-group-members', [
      {
        name: 'all of "friends" in key order, with profiles (null without one)',
        body: page(),
        check: (r) => {
          assert.deepEqual(Object.keys(r).sort(), ['AccessGroupMembersBase58Check', 'PublicKeyToProfileEntryResponse']);
          assert.deepEqual(r['AccessGroupMembersBase58Check'], byKeyBytes([alice, bob, carol]));
          const profiles = r['PublicKeyToProfileEntryResponse'] as J;
          assert.deepEqual(Object.keys(profiles).sort(), [alice.pk, bob.pk, carol.pk].sort());
          assert.equal(profiles[bob.pk]['PublicKeyBase58Check'], bob.pk, "bob's profile is filled");
          assert.equal(profiles[carol.pk], null, 'carol has no profile');
        },
      },
      {
        name: 'at most MaxMembersToFetch',
        body: page({ MaxMembersToFetch: 2 }),
        check: (r) => assert.deepEqual(r['AccessGroupMembersBase58Check'], byKeyBytes([alice, bob, carol]).slice(0, 2)),
      },
      {
        name: 'the start key is exclusive and need not be a member',
        body: page({ StartingAccessGroupMemberPublicKeyBase58Check: stranger.pk }),
        check: (r) => assert.deepEqual(r['AccessGroupMembersBase58Check'], byKeyBytes([alice, bob, carol]).filter((pk) => byKeyBytes([alice, bob, carol, stranger]).indexOf(pk) > byKeyBytes([alice, bob, carol, stranger]).indexOf(stranger.pk))),
      },
      { name: 'the base group has no members', body: page({ AccessGroupKeyName: '' }), check: (r) => assert.deepEqual(r, { AccessGroupMembersBase58Check: [], PublicKeyToProfileEntryResponse: {} }) },
      { name: 'a group that does not exist has no members', body: page({ AccessGroupKeyName: 'nope' }), check: (r) => assert.deepEqual(r['AccessGroupMembersBase58Check'], []) },
      { name: 'MaxMembersToFetch 0 is refused', body: page({ MaxMembersToFetch: 0 }), error: { re: /^GetPaginatedAccessGroupMembers: MaxMembersToFetch cannot be less than 1: 0$/ } },
      { name: 'a missing MaxMembersToFetch is refused', body: { AccessGroupOwnerPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'friends' }, error: { re: /^GetPaginatedAccessGroupMembers: MaxMembersToFetch cannot be less than 1: 0$/ } },
      { name: 'a bad start key is refused', body: page({ StartingAccessGroupMemberPublicKeyBase58Check: 'zz' }), error: { re: /^GetPaginatedAccessGroupMembers: Problem decoding pagination starting point base58 public key: / } },
      { name: 'a name over 32 bytes is refused', body: page({ AccessGroupKeyName: 'm'.repeat(33) }), error: { re: /RuleErrorAccessGroupKeyNameTooLong$/ } },
    ]);

    const pair = (k: KeyPair, name: string): J => ({ GroupOwnerPublicKeyBase58Check: k.pk, GroupKeyName: name });
    table(node, 'get-bulk-access-group-entries', [
      {
        name: 'found entries in request order; the missing pairs as sent',
        body: { GroupOwnerAndGroupKeyNamePairs: [pair(alice, 'friends'), pair(carol, 'nope'), pair(stranger, ''), pair(bob, 'bobs'), pair(alice, 'inbox')] },
        check: (r) => {
          assert.deepEqual(Object.keys(r).sort(), ['AccessGroupEntries', 'PairsNotFound']);
          const entries = r['AccessGroupEntries'] as J[];
          assert.deepEqual(entries.map((e) => [e['AccessGroupOwnerPublicKeyBase58Check'], e['AccessGroupKeyName']]), [[alice.pk, 'friends'], [stranger.pk, ''], [bob.pk, 'bobs']]);
          assert.deepEqual(entries[0], friendsEntry());
          assert.deepEqual(entries[1], baseEntry(stranger));
          assert.deepEqual(r['PairsNotFound'], [pair(carol, 'nope'), pair(alice, 'inbox')]);
        },
      },
      { name: 'every pair found: PairsNotFound is null', body: { GroupOwnerAndGroupKeyNamePairs: [pair(carol, 'inbox')] }, check: (r) => assert.equal(r['PairsNotFound'], null) },
      { name: 'no pairs: nothing found, nothing missing', body: { GroupOwnerAndGroupKeyNamePairs: [] }, check: (r) => assert.deepEqual(r, { AccessGroupEntries: [], PairsNotFound: null }) },
      { name: 'a bad owner key is refused', body: { GroupOwnerAndGroupKeyNamePairs: [pair(alice, 'friends'), { GroupOwnerPublicKeyBase58Check: 'bad', GroupKeyName: 'x' }] }, error: { re: /^GetBulkAccessGroupEntries: Problem decoding group owner public key: GroupOwnerAndGroupKeyNamePairs\[1\]/ } },
      { name: 'pairs that are not objects are refused', body: { GroupOwnerAndGroupKeyNamePairs: ['friends'] }, error: { re: /GroupOwnerAndGroupKeyNamePairs\[0\]: expected a JSON object/ } },
    ]);

    describe('paging walk', () => {
      it(`walks the ${BIG_RANDOM_MEMBERS + 1} members of "big" 7 at a time: each once, in key order, with profiles`, async () => {
        const seen: string[] = [];
        let start = '';
        for (let pages = 0; ; pages++) {
          assert.ok(pages <= BIG_RANDOM_MEMBERS, 'the walk ends');
          const r = await node().ok('get-paginated-access-group-members', page({ AccessGroupKeyName: 'big', StartingAccessGroupMemberPublicKeyBase58Check: start, MaxMembersToFetch: 7 }));
          const keys = r['AccessGroupMembersBase58Check'] as string[];
          assert.ok(keys.length <= 7, 'at most 7 per page');
          assert.deepEqual(Object.keys(r['PublicKeyToProfileEntryResponse'] as J).sort(), [...keys].sort(), 'a profile entry for each member of the page');
          if (keys.length === 0) break;
          seen.push(...keys);
          start = keys.at(-1)!;
        }
        assert.deepEqual(seen, byKeyBytes([...bigMembers, bob]), 'every member once, in key byte order');
      });
    });
  });
}

for (const store of TEST_STORES) suite(store);
