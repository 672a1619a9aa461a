/**
 * The legacy messaging keys (backend RegisterMessagingGroupKey, GetAllMessagingGroupKeys) end to
 * end, once on a memory-store node and once on a Redis-backed node. Keys are registered through
 * register-messaging-group-key → signed → submit-transaction → mined; a group with members (the
 * reference has no route that builds one) is a MESSAGING_GROUP built by the node's constructor
 * and submitted the same way. An access group of the same name stays invisible to these routes,
 * as in core. One table of cases per route.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { decodeMetadata, type MessagingGroupMember } from '../../server/chain/txn/metadata.js';
import { constructForRequest } from '../../server/services/construct.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { routeTable } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const hexOf = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const alice = keyPair();
const bob = keyPair();
const carol = keyPair();
const stranger = keyPair();
const aliceDefault = keyPair();
const bobDefault = keyPair();
const chatKey = keyPair();
const friendsKey = keyPair();
const BOB_SEALED = new Uint8Array(40).fill(0xb0);
const CAROL_SEALED = new Uint8Array(33).fill(0xca);

interface Ctx {
  n: ChainNode;
}

const registerBody = (owner: KeyPair, name: string, messaging: KeyPair, extra: J = {}): J => ({
  OwnerPublicKeyBase58Check: owner.pk,
  MessagingPublicKeyBase58Check: messaging.pk,
  MessagingGroupKeyName: name,
  ...FEE,
  ...extra,
});

async function register(n: ChainNode, owner: KeyPair, name: string, messaging: KeyPair, extra: J = {}): Promise<void> {
  const c = await n.ok('register-messaging-group-key', registerBody(owner, name, messaging, extra));
  await n.submit(c['TransactionHex'] as string, owner, 'sdk');
}

/** A MESSAGING_GROUP with members, built by the node's constructor (no reference route builds one). */
async function withMembers(n: ChainNode, owner: KeyPair, name: string, messaging: KeyPair, members: MessagingGroupMember[]): Promise<string> {
  const fields = { MinFeeRateNanosPerKB: 1000n, TransactionFees: [], ExtraData: {} };
  const r = await constructForRequest(n.deps, {
    publicKey: owner.pk33,
    metadata: { type: 'MESSAGING_GROUP', messagingPublicKey: messaging.pk33, messagingGroupKeyName: utf8(name), groupOwnerSignature: new Uint8Array(0), members },
    fields,
  });
  return r.fields.TransactionHex;
}

const baseEntry = (k: KeyPair): J => ({ GroupOwnerPublicKeyBase58Check: k.pk, MessagingPublicKeyBase58Check: k.pk, MessagingGroupKeyName: '', MessagingGroupMembers: null, EncryptedKey: '', ExtraData: null });
const chatMember = (k: KeyPair, keyName: string, sealed: Uint8Array): J => ({ GroupMemberPublicKeyBase58Check: k.pk, GroupMemberKeyName: keyName, EncryptedKey: hexOf(sealed) });

function suite(store: 'memory' | 'redis'): void {
  describe(`legacy messaging keys (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the node started');
      return c;
    };
    const table = routeTable<Ctx>((message) => assert.ok(!message.includes(stranger.pk.slice(5)), 'no key echoed'));

    before(async () => {
      const n = await startChainNode({ store });
      c = { n };
      for (const k of [alice, bob, carol]) await n.fund(k.pk, 100_000_000);
      await register(n, alice, 'default-key', aliceDefault, { ExtraData: { app: 'legacy' } });
      await register(n, bob, 'default-key', bobDefault);
      await n.submit(await withMembers(n, alice, 'chat', chatKey, [
        { groupMemberPublicKey: bob.pk33, groupMemberKeyName: utf8('default-key'), encryptedKey: BOB_SEALED },
        { groupMemberPublicKey: carol.pk33, groupMemberKeyName: new Uint8Array(0), encryptedKey: CAROL_SEALED },
      ]), alice, 'sdk');
      // An access group named like a messaging key: another state, in core as here.
      const ag = await n.ok('create-access-group', { ...FEE, AccessGroupOwnerPublicKeyBase58Check: carol.pk, AccessGroupPublicKeyBase58Check: friendsKey.pk, AccessGroupKeyName: 'default-key' });
      await n.submit(ag['TransactionHex'] as string, carol, 'sdk');
    });
    after(async () => {
      await c?.n.close();
    });

    table(ctx, 'get-all-messaging-group-keys', [
      {
        name: 'alice: the base key, then her groups by name, each with every member',
        body: () => ({ OwnerPublicKeyBase58Check: alice.pk }),
        check: (r) =>
          assert.deepEqual(r['MessagingGroupEntries'], [
            baseEntry(alice),
            {
              GroupOwnerPublicKeyBase58Check: alice.pk,
              MessagingPublicKeyBase58Check: chatKey.pk,
              MessagingGroupKeyName: 'chat',
              MessagingGroupMembers: [chatMember(bob, 'default-key', BOB_SEALED), chatMember(carol, '', CAROL_SEALED)],
              EncryptedKey: '',
              ExtraData: null,
            },
            { GroupOwnerPublicKeyBase58Check: alice.pk, MessagingPublicKeyBase58Check: aliceDefault.pk, MessagingGroupKeyName: 'default-key', MessagingGroupMembers: null, EncryptedKey: '', ExtraData: { app: 'legacy' } },
          ]),
      },
      {
        name: "bob: his own key, then alice's chat with his membership only and his encrypted key",
        body: () => ({ OwnerPublicKeyBase58Check: bob.pk }),
        check: (r) =>
          assert.deepEqual(r['MessagingGroupEntries'], [
            baseEntry(bob),
            { GroupOwnerPublicKeyBase58Check: bob.pk, MessagingPublicKeyBase58Check: bobDefault.pk, MessagingGroupKeyName: 'default-key', MessagingGroupMembers: null, EncryptedKey: '', ExtraData: null },
            {
              GroupOwnerPublicKeyBase58Check: alice.pk,
              MessagingPublicKeyBase58Check: chatKey.pk,
              MessagingGroupKeyName: 'chat',
              MessagingGroupMembers: [chatMember(bob, 'default-key', BOB_SEALED)],
              EncryptedKey: hexOf(BOB_SEALED),
              ExtraData: null,
            },
          ]),
      },
      {
        name: "carol: her access group named default-key is not a messaging key; alice's chat through her base key",
        body: () => ({ OwnerPublicKeyBase58Check: carol.pk }),
        check: (r) => {
          const entries = r['MessagingGroupEntries'] as J[];
          assert.deepEqual(entries.map((e) => [e['GroupOwnerPublicKeyBase58Check'], e['MessagingGroupKeyName']]), [
            [carol.pk, ''],
            [alice.pk, 'chat'],
          ]);
          assert.equal(entries[1]!['EncryptedKey'], hexOf(CAROL_SEALED));
        },
      },
      { name: 'a key with no transactions: the base key alone', body: () => ({ OwnerPublicKeyBase58Check: stranger.pk }), check: (r) => assert.deepEqual(r, { MessagingGroupEntries: [baseEntry(stranger)] }) },
      { name: 'a bad public key is refused', body: () => ({ OwnerPublicKeyBase58Check: stranger.pk.slice(0, -2) }), error: { re: /^GetAllMessagingGroupKeys: Problem decoding sender base58 public key/ } },
      { name: 'no public key is refused', body: () => ({}), error: { re: /^GetAllMessagingGroupKeys: Problem decoding sender base58 public key/ } },
    ]);

    table(ctx, 'register-messaging-group-key', [
      {
        name: 'an unsigned MESSAGING_GROUP (type 23) with the key, the name, the signature and no members',
        body: () => registerBody(carol, 'phone', stranger, { MessagingKeySignatureHex: '3006020101020101' }),
        check: (r) => {
          assert.deepEqual(Object.keys(r), ['TotalInputNanos', 'ChangeAmountNanos', 'FeeNanos', 'Transaction', 'TransactionHex', 'TxnHashHex']);
          const txn = decodeTxn(new Uint8Array(Buffer.from(r['TransactionHex'] as string, 'hex')));
          assert.equal(txn.txnType, 23);
          assert.equal(hexOf(txn.publicKey), hexOf(carol.pk33));
          assert.deepEqual(decodeMetadata(txn.txnType, txn.metadata), {
            type: 'MESSAGING_GROUP',
            messagingPublicKey: stranger.pk33,
            messagingGroupKeyName: utf8('phone'),
            groupOwnerSignature: new Uint8Array(Buffer.from('3006020101020101', 'hex')),
            members: [],
          });
          assert.ok((r['FeeNanos'] as number) > 0);
        },
      },
      { name: 'a bad owner key is refused', body: () => registerBody(carol, 'x', stranger, { OwnerPublicKeyBase58Check: 'tBCKnot-a-key' }), error: { re: /^RegisterMessagingGroupKey: Problem decoding sender base58 public key/ } },
      { name: 'a bad messaging key is refused', body: () => registerBody(carol, 'x', stranger, { MessagingPublicKeyBase58Check: '' }), error: { re: /^RegisterMessagingGroupKey: Problem decoding messaging base58 public key/ } },
      { name: 'an empty key name is refused', body: () => registerBody(carol, '', stranger), error: { re: /^RegisterMessagingGroupKey: Problem validating messaging public key and name .*RuleErrorMessagingKeyNameTooShort$/ } },
      { name: 'a key name over 32 bytes is refused', body: () => registerBody(carol, 'é'.repeat(17), stranger), error: { re: /provided = 34: RuleErrorMessagingKeyNameTooLong$/ } },
      { name: 'a signature that is not hex is refused', body: () => registerBody(carol, 'x', stranger, { MessagingKeySignatureHex: 'zz' }), error: { re: /^RegisterMessagingGroupKey: Problem decoding messaging public key signature/ } },
    ]);

    table(ctx, 'submit-transaction', [
      {
        name: 'a registered key cannot change its messaging key (RuleErrorMessagingPublicKeyCannotBeDifferent)',
        body: async (c) => {
          const r = await c.n.ok('register-messaging-group-key', registerBody(alice, 'default-key', stranger));
          return { TransactionHex: await c.n.sign(r['TransactionHex'] as string, alice, 'sdk') };
        },
        error: { re: /RuleErrorMessagingPublicKeyCannotBeDifferent/ },
      },
      {
        name: 'the owner key as messaging key is refused (RuleErrorMessagingPublicKeyCannotBeOwnerKey)',
        body: async (c) => {
          const r = await c.n.ok('register-messaging-group-key', registerBody(carol, 'self', carol));
          return { TransactionHex: await c.n.sign(r['TransactionHex'] as string, carol, 'sdk') };
        },
        error: { re: /RuleErrorMessagingPublicKeyCannotBeOwnerKey/ },
      },
      {
        name: "a member through a messaging key it never registered is refused (carol's access group does not count)",
        body: async (c) => ({
          TransactionHex: await c.n.sign(await withMembers(c.n, bob, 'club', keyPair(), [{ groupMemberPublicKey: carol.pk33, groupMemberKeyName: utf8('default-key'), encryptedKey: CAROL_SEALED }]), bob, 'sdk'),
        }),
        error: { re: /RuleErrorMessagingMemberKeyDoesntExist/ },
      },
    ]);
  });
}

for (const store of TEST_STORES) suite(store);
