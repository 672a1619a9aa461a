/**
 * Message read routes (spec §4.3, reference node-api.md §2.2) end to end, once on a memory-store
 * node and once on a Redis-backed node. Every message is written through the real write path
 * (send-dm-message / send-group-chat-message → signed → submit-transaction → mined); the reads
 * go over HTTP. One table of cases per route, plus paging walks: a 1,000-message DM thread and
 * a group chat read page by page return every message exactly once, newest first.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { decodeMetadata } from '../../server/chain/txn/metadata.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair, TEST_STORES } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const DM_COUNT = Number(process.env["DM_COUNT"] ?? 1000);
const GROUP_CHAT_COUNT = 60;
/** A start point after every message (year 2033), exact as a JSON number. */
const FAR_FUTURE = 2e18;
const textHex = (s: string): string => Buffer.from(s, 'utf8').toString('hex');

const alice = keyPair();
const bob = keyPair();
const carol = keyPair();
/** No transactions at all. */
const stranger = keyPair();
const friendsKey = keyPair();
const defaultKeys = { alice: keyPair(), bob: keyPair() };

/** What the tests know about a message they sent. */
interface Sent {
  text: string;
  ts: bigint;
}

interface Ctx {
  n: ChainNode;
  /** The base↔base DM thread of alice and bob (both directions), in send order. */
  dms: Sent[];
  /** alice's "friends" group chat, in send order. */
  chat: Sent[];
  carolDm: Sent;
  defaultDm: Sent;
  baseChat: Sent;
}

const dmBody = (from: KeyPair, to: KeyPair, text: string, names: [string, string] = ['', '']): J => ({
  SenderAccessGroupOwnerPublicKeyBase58Check: from.pk,
  SenderAccessGroupPublicKeyBase58Check: from.pk,
  SenderAccessGroupKeyName: names[0],
  RecipientAccessGroupOwnerPublicKeyBase58Check: to.pk,
  RecipientAccessGroupPublicKeyBase58Check: to.pk,
  RecipientAccessGroupKeyName: names[1],
  EncryptedMessageText: textHex(text),
  ...FEE,
});
const chatBody = (from: KeyPair, text: string, owner: KeyPair = alice, name = 'friends', accessPk = friendsKey.pk): J => ({
  SenderAccessGroupOwnerPublicKeyBase58Check: from.pk,
  SenderAccessGroupPublicKeyBase58Check: from.pk,
  SenderAccessGroupKeyName: '',
  RecipientAccessGroupOwnerPublicKeyBase58Check: owner.pk,
  RecipientAccessGroupPublicKeyBase58Check: accessPk,
  RecipientAccessGroupKeyName: name,
  EncryptedMessageText: textHex(text),
  ...FEE,
});

/** The exact TimestampNanos a constructed NEW_MESSAGE carries (the JSON number would round). */
function stampOf(txnHex: string): bigint {
  const t = decodeTxn(new Uint8Array(Buffer.from(txnHex, 'hex')));
  const m = decodeMetadata(t.txnType, t.metadata);
  return m.type === 'NEW_MESSAGE' ? m.timestampNanos : 0n;
}

/** Construct + sign + submit without waiting for the block; answers the hash and the stamp. */
async function submitOnly(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<{ hash: string; ts: bigint }> {
  const c = await n.ok(path, body);
  const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, signer, 'sdk') });
  return { hash: s['TxnHashHex'] as string, ts: stampOf(c['TransactionHex'] as string) };
}

/** Construct + sign + submit + wait until mined. */
async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<bigint> {
  const r = await submitOnly(n, path, { ...FEE, ...body }, signer);
  await n.waitMined(r.hash);
  return r.ts;
}

/**
 * Many messages from one sender, each submitted as soon as it is constructed (the mempool
 * chains them; the miner takes them block by block), waiting only for the last.
 */
async function sendMany(n: ChainNode, count: number, make: (i: number) => { path: string; body: J; text: string; signer: KeyPair }): Promise<Sent[]> {
  const out: Sent[] = [];
  let last = '';
  for (let i = 0; i < count; i++) {
    const m = make(i);
    const r = await submitOnly(n, m.path, m.body, m.signer);
    out.push({ text: m.text, ts: r.ts });
    last = r.hash;
  }
  if (last !== '') await n.waitMined(last);
  return out;
}

async function setup(n: ChainNode): Promise<Ctx> {
  for (const k of [alice, bob, carol]) await n.fund(k.pk, 200_000_000);
  await mined(n, 'update-profile', { UpdaterPublicKeyBase58Check: alice.pk, NewUsername: `alice${Date.now() % 100000}`, NewDescription: 'reads', NewStakeMultipleBasisPoints: 12_500, NewCreatorBasisPoints: 1000 }, alice);
  const group = (owner: KeyPair, name: string, accessPk: string): J => ({ AccessGroupOwnerPublicKeyBase58Check: owner.pk, AccessGroupPublicKeyBase58Check: accessPk, AccessGroupKeyName: name });
  await mined(n, 'create-access-group', group(alice, 'friends', friendsKey.pk), alice);
  await mined(n, 'create-access-group', group(alice, 'default-key', defaultKeys.alice.pk), alice);
  await mined(n, 'create-access-group', group(bob, 'default-key', defaultKeys.bob.pk), bob);
  await mined(
    n,
    'add-access-group-members',
    { AccessGroupOwnerPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'friends', AccessGroupMemberList: [{ AccessGroupMemberPublicKeyBase58Check: bob.pk, AccessGroupMemberKeyName: '', EncryptedKey: 'ab01' }] },
    alice,
  );

  // The big DM thread: alice and bob write at the same time, each in a chain of its own.
  const half = DM_COUNT / 2;
  const [fromAlice, fromBob] = await Promise.all([
    sendMany(n, half, (i) => ({ path: 'send-dm-message', body: dmBody(alice, bob, `a→b ${i}`), text: `a→b ${i}`, signer: alice })),
    sendMany(n, half, (i) => ({ path: 'send-dm-message', body: dmBody(bob, alice, `b→a ${i}`), text: `b→a ${i}`, signer: bob })),
  ]);
  const dms = [...fromAlice, ...fromBob].sort((x, y) => (x.ts < y.ts ? -1 : 1));

  const [chatA, chatB] = await Promise.all([
    sendMany(n, GROUP_CHAT_COUNT / 2, (i) => ({ path: 'send-group-chat-message', body: chatBody(alice, `owner ${i}`), text: `owner ${i}`, signer: alice })),
    sendMany(n, GROUP_CHAT_COUNT / 2, (i) => ({ path: 'send-group-chat-message', body: chatBody(bob, `member ${i}`), text: `member ${i}`, signer: bob })),
  ]);
  const chat = [...chatA, ...chatB].sort((x, y) => (x.ts < y.ts ? -1 : 1));

  const carolDm = { text: 'hi carol', ts: await mined(n, 'send-dm-message', dmBody(alice, carol, 'hi carol'), alice) };
  // bob's own base group as a group chat (the owner may post to any of its groups).
  const baseChat = { text: 'note to self', ts: await mined(n, 'send-group-chat-message', chatBody(bob, 'note to self', bob, '', bob.pk), bob) };
  const defaultDm = { text: 'default to default', ts: await mined(n, 'send-dm-message', dmBody(alice, bob, 'default to default', ['default-key', 'default-key']), alice) };
  return { n, dms, chat, carolDm, defaultDm, baseChat };
}

// --- table machinery ------------------------------------------------------------------------------

type Case = RouteCase<Ctx>;

const table = routeTable<Ctx>();

const decoded = (m: J): string => Buffer.from(m['MessageInfo']['EncryptedText'] as string, 'hex').toString('utf8');
const stampsOf = (list: J[]): bigint[] => list.map((m) => BigInt(m['MessageInfo']['TimestampNanosString'] as string));
const assertNewestFirst = (list: J[], what: string): void => {
  const s = stampsOf(list);
  for (let i = 1; i < s.length; i++) assert.ok(s[i - 1]! > s[i]!, `${what}: newest first at ${i}`);
};
/** NewMessageEntryResponse exactly as spec §2.3. */
function assertMessageShape(m: J, chatType: 'DM' | 'GroupChat'): void {
  assert.deepEqual(Object.keys(m).sort(), ['ChatType', 'MessageInfo', 'RecipientInfo', 'SenderInfo']);
  assert.equal(m['ChatType'], chatType);
  for (const side of ['SenderInfo', 'RecipientInfo']) {
    assert.deepEqual(Object.keys(m[side]).sort(), ['AccessGroupKeyName', 'AccessGroupPublicKeyBase58Check', 'OwnerPublicKeyBase58Check'], `${side} fields`);
  }
  assert.deepEqual(Object.keys(m['MessageInfo']).sort(), ['EncryptedText', 'ExtraData', 'TimestampNanos', 'TimestampNanosString']);
  assert.match(m['MessageInfo']['EncryptedText'] as string, /^[0-9a-f]*$/, 'EncryptedText is hex');
  assert.equal(typeof m['MessageInfo']['TimestampNanos'], 'number', 'TimestampNanos is a JSON number');
  assert.match(m['MessageInfo']['TimestampNanosString'] as string, /^\d+$/, 'TimestampNanosString is decimal');
  assert.ok(Math.abs(Number(m['MessageInfo']['TimestampNanosString']) - (m['MessageInfo']['TimestampNanos'] as number)) < 1e4, 'both name the same instant');
}
const profiles = (r: J): J => r['PublicKeyToProfileEntryResponse'] as J;

// --- the suite, once per store ----------------------------------------------------------------------

function suite(store: 'memory' | 'redis'): void {
  describe(`message reads (${store} store)`, () => {
    let c: Ctx | undefined;
    let n: ChainNode | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };

    before(async () => {
      n = await startChainNode({ store });
      c = await setup(n);
    });
    after(async () => {
      await n?.close();
    });

    table(ctx, 'get-user-dm-threads-ordered-by-timestamp', [
      {
        name: 'alice: one entry per DM thread (carol, the default-key thread, the base thread), newest first, profiles of both sides',
        body: () => ({ UserPublicKeyBase58Check: alice.pk }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['MessageThreads', 'PublicKeyToProfileEntryResponse']);
          const threads = r['MessageThreads'] as J[];
          assert.deepEqual(threads.map(decoded), [c.defaultDm.text, c.carolDm.text, c.dms.at(-1)!.text]);
          threads.forEach((m) => assertMessageShape(m, 'DM'));
          assert.deepEqual(threads[0]!['SenderInfo'], { OwnerPublicKeyBase58Check: alice.pk, AccessGroupPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'default-key' });
          assert.equal(threads[1]!['MessageInfo']['TimestampNanosString'], c.carolDm.ts.toString());
          assert.deepEqual(Object.keys(profiles(r)).sort(), [alice.pk, bob.pk, carol.pk].sort());
          assert.equal(profiles(r)[alice.pk]['PublicKeyBase58Check'], alice.pk, "alice's profile is filled");
          assert.equal(profiles(r)[bob.pk], null, 'bob has no profile');
        },
      },
      {
        name: 'carol sees her one thread, sent by alice',
        body: () => ({ UserPublicKeyBase58Check: carol.pk }),
        check: (r) => {
          const [t, ...rest] = r['MessageThreads'] as J[];
          assert.equal(rest.length, 0, 'one thread');
          assert.equal(t!['SenderInfo']['OwnerPublicKeyBase58Check'], alice.pk);
          assert.equal(t!['RecipientInfo']['OwnerPublicKeyBase58Check'], carol.pk);
        },
      },
      { name: 'a key without messages: no threads, empty map', body: () => ({ UserPublicKeyBase58Check: stranger.pk }), check: (r) => assert.deepEqual(r, { MessageThreads: [], PublicKeyToProfileEntryResponse: {} }) },
      { name: 'a bad public key is refused', body: () => ({ UserPublicKeyBase58Check: 'not-a-key' }), error: { re: /^GetUserDmThreadsOrderedByTimestamp: Problem decoding owner base58 public key: UserPublicKeyBase58Check: / } },
      { name: 'a missing public key is refused', body: () => ({}), error: { re: /^GetUserDmThreadsOrderedByTimestamp: Problem decoding owner base58 public key: / } },
    ]);

    table(ctx, 'get-user-group-chat-threads-ordered-by-timestamp', [
      {
        name: 'bob: his base-group chat and "friends" (as a member), newest first',
        body: () => ({ UserPublicKeyBase58Check: bob.pk }),
        check: (r, c) => {
          const threads = r['MessageThreads'] as J[];
          assert.deepEqual(threads.map(decoded), [c.baseChat.text, c.chat.at(-1)!.text]);
          threads.forEach((m) => assertMessageShape(m, 'GroupChat'));
          assert.deepEqual(threads[1]!['RecipientInfo'], { OwnerPublicKeyBase58Check: alice.pk, AccessGroupPublicKeyBase58Check: friendsKey.pk, AccessGroupKeyName: 'friends' });
          assert.deepEqual(threads[0]!['RecipientInfo'], { OwnerPublicKeyBase58Check: bob.pk, AccessGroupPublicKeyBase58Check: bob.pk, AccessGroupKeyName: '' });
          assert.deepEqual(Object.keys(profiles(r)).sort(), [alice.pk, bob.pk].sort());
        },
      },
      {
        name: 'alice (owner): only "friends"',
        body: () => ({ UserPublicKeyBase58Check: alice.pk }),
        check: (r, c) => assert.deepEqual((r['MessageThreads'] as J[]).map(decoded), [c.chat.at(-1)!.text]),
      },
      { name: 'carol takes part in no group chat', body: () => ({ UserPublicKeyBase58Check: carol.pk }), check: (r) => assert.deepEqual(r['MessageThreads'], []) },
      { name: 'a key of another network is refused', body: () => ({ UserPublicKeyBase58Check: encodePublicKey(bob.pk33, 'mainnet') }), error: { re: /^GetUserGroupChatThreadsOrderedByTimestamp: Problem decoding owner base58 public key: / } },
    ]);

    table(ctx, 'get-all-user-message-threads', [
      {
        name: 'alice: DM threads and group chats merged, newest first',
        body: () => ({ UserPublicKeyBase58Check: alice.pk }),
        check: (r, c) => {
          const threads = r['MessageThreads'] as J[];
          assert.deepEqual(threads.map(decoded), [c.defaultDm.text, c.carolDm.text, c.chat.at(-1)!.text, c.dms.at(-1)!.text]);
          assert.deepEqual(threads.map((t) => t['ChatType']), ['DM', 'DM', 'GroupChat', 'DM']);
          assertNewestFirst(threads, 'all threads');
          assert.deepEqual(Object.keys(profiles(r)).sort(), [alice.pk, bob.pk, carol.pk].sort());
        },
      },
      {
        name: 'bob: both kinds',
        body: () => ({ UserPublicKeyBase58Check: bob.pk }),
        check: (r, c) => assert.deepEqual((r['MessageThreads'] as J[]).map(decoded), [c.defaultDm.text, c.baseChat.text, c.chat.at(-1)!.text, c.dms.at(-1)!.text]),
      },
      { name: 'a bad public key is refused', body: () => ({ UserPublicKeyBase58Check: alice.pk.slice(0, -1) }), error: { re: /^GetAllUserMessageThreads: Problem decoding owner base58 public key: / } },
    ]);

    const dmPage = (over: J = {}): J => ({
      UserGroupOwnerPublicKeyBase58Check: alice.pk,
      UserGroupKeyName: '',
      PartyGroupOwnerPublicKeyBase58Check: bob.pk,
      PartyGroupKeyName: '',
      StartTimestampString: String(FAR_FUTURE),
      MaxMessagesToFetch: 5,
      ...over,
    });
    table(ctx, 'get-paginated-messages-for-dm-thread', [
      {
        name: 'the newest messages, newest first, with the profiles of both parties',
        body: () => dmPage(),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['PublicKeyToProfileEntryResponse', 'ThreadMessages']);
          const page = r['ThreadMessages'] as J[];
          assert.deepEqual(page.map(decoded), c.dms.slice(-5).reverse().map((m) => m.text));
          page.forEach((m) => assertMessageShape(m, 'DM'));
          assert.deepEqual(Object.keys(profiles(r)).sort(), [alice.pk, bob.pk].sort());
        },
      },
      {
        name: 'the thread reads the same from the other side',
        body: () => dmPage({ UserGroupOwnerPublicKeyBase58Check: bob.pk, PartyGroupOwnerPublicKeyBase58Check: alice.pk, MaxMessagesToFetch: 2 }),
        check: (r, c) => assert.deepEqual((r['ThreadMessages'] as J[]).map(decoded), c.dms.slice(-2).reverse().map((m) => m.text)),
      },
      {
        name: 'messages at or after the start point are excluded',
        body: (c) => dmPage({ StartTimestampString: c.dms[500]!.ts.toString(), MaxMessagesToFetch: 3 }),
        check: (r, c) => assert.deepEqual((r['ThreadMessages'] as J[]).map(decoded), [c.dms[499]!.text, c.dms[498]!.text, c.dms[497]!.text]),
      },
      {
        name: 'StartTimestampString wins over StartTimestamp',
        body: (c) => dmPage({ StartTimestampString: c.dms[10]!.ts.toString(), StartTimestamp: FAR_FUTURE, MaxMessagesToFetch: 1 }),
        check: (r, c) => assert.deepEqual((r['ThreadMessages'] as J[]).map(decoded), [c.dms[9]!.text]),
      },
      {
        name: 'StartTimestamp (a JSON number) when no string is sent',
        body: () => dmPage({ StartTimestampString: '', StartTimestamp: FAR_FUTURE, MaxMessagesToFetch: 1 }),
        check: (r, c) => assert.deepEqual((r['ThreadMessages'] as J[]).map(decoded), [c.dms.at(-1)!.text]),
      },
      { name: 'a start of 0 gives an empty page', body: () => dmPage({ StartTimestampString: '' }), check: (r) => assert.deepEqual(r['ThreadMessages'], []) },
      {
        name: 'before the first message: an empty page',
        body: (c) => dmPage({ StartTimestampString: c.dms[0]!.ts.toString() }),
        check: (r) => assert.deepEqual(r['ThreadMessages'], []),
      },
      {
        name: 'two default-key groups also read their base-group thread (merged, newest first)',
        body: () => dmPage({ UserGroupKeyName: 'default-key', PartyGroupKeyName: 'default-key', MaxMessagesToFetch: 3 }),
        check: (r, c) => assert.deepEqual((r['ThreadMessages'] as J[]).map(decoded), [c.defaultDm.text, c.dms.at(-1)!.text, c.dms.at(-2)!.text]),
      },
      {
        name: 'a group pair without messages: an empty page',
        body: () => dmPage({ UserGroupKeyName: 'friends' }),
        check: (r) => assert.deepEqual(r['ThreadMessages'], []),
      },
      { name: 'MaxMessagesToFetch 0 is refused', body: () => dmPage({ MaxMessagesToFetch: 0 }), error: { re: /^GetPaginatedMessagesForDmThread: MaxMessagesToFetch cannot be less than 1: 0$/ } },
      { name: 'a missing MaxMessagesToFetch is refused', body: () => ({ ...dmPage(), MaxMessagesToFetch: undefined }), error: { re: /^GetPaginatedMessagesForDmThread: MaxMessagesToFetch cannot be less than 1: 0$/ } },
      {
        name: 'the same owner on both sides is refused',
        body: () => dmPage({ PartyGroupOwnerPublicKeyBase58Check: alice.pk, PartyGroupKeyName: 'friends' }),
        error: { re: /^GetPaginatedMessagesForDmThread: Dm sender and recipient cannot be the same / },
      },
      { name: 'a bad StartTimestampString is refused', body: () => dmPage({ StartTimestampString: 'yesterday' }), error: { re: /^GetPaginatedMessagesForDmThread: Error parsing StartTimestampString: strconv.ParseUint: parsing "yesterday": invalid syntax$/ } },
      { name: 'a StartTimestampString above u64 is refused', body: () => dmPage({ StartTimestampString: '18446744073709551616' }), error: { re: /value out of range$/ } },
      { name: 'a bad party key is refused', body: () => dmPage({ PartyGroupOwnerPublicKeyBase58Check: 'x' }), error: { re: /^GetPaginatedMessagesForDmThread: Problem validating party group owner public key and access group name: / } },
      { name: 'a key name over 32 bytes is refused', body: () => dmPage({ UserGroupKeyName: 'n'.repeat(33) }), error: { re: /^GetPaginatedMessagesForDmThread: Problem validating user group owner .*RuleErrorAccessGroupKeyNameTooLong$/ } },
    ]);

    const chatPage = (over: J = {}): J => ({ UserPublicKeyBase58Check: alice.pk, AccessGroupKeyName: 'friends', StartTimestampString: String(FAR_FUTURE), MaxMessagesToFetch: 4, ...over });
    table(ctx, 'get-paginated-messages-for-group-chat-thread', [
      {
        name: 'the newest messages of "friends", newest first, with the profiles of the senders and the owner',
        body: () => chatPage(),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['GroupChatMessages', 'PublicKeyToProfileEntryResponse']);
          const page = r['GroupChatMessages'] as J[];
          assert.deepEqual(page.map(decoded), c.chat.slice(-4).reverse().map((m) => m.text));
          page.forEach((m) => assertMessageShape(m, 'GroupChat'));
          // The two senders posted concurrently, so the newest page may hold one sender or both.
          const senders = page.map((m) => (m['SenderInfo'] as J)['OwnerPublicKeyBase58Check'] as string);
          assert.deepEqual(Object.keys(profiles(r)).sort(), [...new Set([...senders, alice.pk])].sort(), 'the profiles of the page senders and the owner');
        },
      },
      {
        name: 'messages at or after the start point are excluded',
        body: (c) => chatPage({ StartTimestampString: c.chat[20]!.ts.toString(), MaxMessagesToFetch: 2 }),
        check: (r, c) => assert.deepEqual((r['GroupChatMessages'] as J[]).map(decoded), [c.chat[19]!.text, c.chat[18]!.text]),
      },
      {
        name: 'the base group ("") of bob',
        body: () => chatPage({ UserPublicKeyBase58Check: bob.pk, AccessGroupKeyName: '' }),
        check: (r, c) => assert.deepEqual((r['GroupChatMessages'] as J[]).map(decoded), [c.baseChat.text]),
      },
      { name: 'a group without messages: empty page and map', body: () => chatPage({ AccessGroupKeyName: 'default-key' }), check: (r) => assert.deepEqual(r, { GroupChatMessages: [], PublicKeyToProfileEntryResponse: {} }) },
      { name: 'MaxMessagesToFetch -1 is refused', body: () => chatPage({ MaxMessagesToFetch: -1 }), error: { re: /^GetPaginatedMessagesForGroupChatThread: MaxMessagesToFetch cannot be less than 1: -1$/ } },
      { name: 'a bad owner key is refused', body: () => chatPage({ UserPublicKeyBase58Check: '' }), error: { re: /^GetPaginatedMessagesForGroupChatThread: Problem validating user group owner public key and access group name: / } },
      { name: 'a bad StartTimestampString is refused', body: () => chatPage({ StartTimestampString: '-5' }), error: { re: /^GetPaginatedMessagesForGroupChatThread: Error parsing StartTimestampString: / } },
      { name: 'a key name over 32 bytes is refused', body: () => chatPage({ AccessGroupKeyName: 'g'.repeat(40) }), error: { re: /RuleErrorAccessGroupKeyNameTooLong$/ } },
    ]);

    describe('paging walks', () => {
      /** Pages through a thread from the newest message, as a client does; answers every message seen. */
      async function walk(path: string, key: string, base: J, pageSize: number): Promise<J[]> {
        const seen: J[] = [];
        let start = String(FAR_FUTURE);
        for (let pages = 0; pages < 10_000; pages++) {
          const page = (await ctx().n.ok(path, { ...base, StartTimestampString: start, MaxMessagesToFetch: pageSize }))[key] as J[];
          assert.ok(page.length <= pageSize, `at most ${pageSize} per page`);
          if (page.length === 0) return seen;
          seen.push(...page);
          start = page.at(-1)!['MessageInfo']['TimestampNanosString'] as string;
        }
        assert.fail('the walk did not end');
      }

      it(`walks the ${DM_COUNT}-message DM thread 37 at a time: each message once, newest first`, async () => {
        const seen = await walk('get-paginated-messages-for-dm-thread', 'ThreadMessages', dmPage(), 37);
        const c = ctx();
        assert.equal(seen.length, DM_COUNT);
        assert.deepEqual(seen.map(decoded), [...c.dms].reverse().map((m) => m.text), 'every message once, newest first');
        assert.deepEqual(stampsOf(seen), [...c.dms].reverse().map((m) => m.ts), 'with the stamps they were sent with');
        assertNewestFirst(seen, 'DM walk');
      });

      it(`walks the ${GROUP_CHAT_COUNT}-message group chat 7 at a time: each message once, newest first`, async () => {
        const seen = await walk('get-paginated-messages-for-group-chat-thread', 'GroupChatMessages', chatPage(), 7);
        assert.deepEqual(seen.map(decoded), [...ctx().chat].reverse().map((m) => m.text));
        assertNewestFirst(seen, 'group chat walk');
      });
    });
  });
}

for (const store of TEST_STORES) suite(store);
