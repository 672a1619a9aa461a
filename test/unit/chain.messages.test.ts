// NEW_MESSAGE rules (node-api.md §8, core _connectNewMessage) for DMs and group chats on a
// state view over the memory store: each rule's success and every RuleError core names; then
// the storage the read routes use: thread rows of both sides, group chats a user takes part
// in, and newest-first paging (a 1,000-message thread walked page by page).
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connectAccessGroup, connectAccessGroupMembers } from '../../server/chain/rules/accessGroups.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { connectNewMessage } from '../../server/chain/rules/messages.js';
import { groupId, trimGroupKeyName, type GroupId } from '../../server/chain/state/accessGroups.js';
import {
  dmMessagesPage,
  getDmMessage,
  getGroupChatMessage,
  groupChatMessagesPage,
  MAX_NEW_MESSAGE_LENGTH_BYTES,
  userDmThreads,
  userGroupChatThreads,
  type NewMessageRecord,
} from '../../server/chain/state/messages.js';
import { StateView } from '../../server/chain/state/view.js';
import type { TxnEnvelope } from '../../server/chain/txn/envelope.js';
import { TxnDecodeError } from '../../server/chain/txn/errors.js';
import {
  AccessGroupMemberOperation,
  AccessGroupOperation,
  NewMessageOperation,
  NewMessageType,
  type NewMessageMetadata,
} from '../../server/chain/txn/metadata.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { txnOf } from '../helpers/envelopes.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => Buffer.from(b).toString();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const key = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const BASE = new Uint8Array(0);
const { DM, GROUP_CHAT } = NewMessageType;
const { CREATE, UPDATE } = NewMessageOperation;

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RuleError, `a RuleError, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

interface Msg {
  from: Uint8Array;
  fromName?: string;
  to: Uint8Array;
  toName?: string;
  body?: Uint8Array;
  ts: bigint;
  type?: number;
  op?: number;
  signer?: Uint8Array;
  extraData?: Array<[Uint8Array, Uint8Array]>;
}

function messageTxn(m: Msg): TxnEnvelope {
  const meta: NewMessageMetadata = {
    type: 'NEW_MESSAGE',
    senderAccessGroupOwnerPublicKey: m.from,
    senderAccessGroupKeyName: utf8(m.fromName ?? ''),
    senderAccessGroupPublicKey: m.from,
    recipientAccessGroupOwnerPublicKey: m.to,
    recipientAccessGroupKeyName: utf8(m.toName ?? ''),
    recipientAccessGroupPublicKey: m.to,
    encryptedText: m.body ?? utf8(`message at ${m.ts}`),
    timestampNanos: m.ts,
    newMessageType: m.type ?? DM,
    newMessageOperation: m.op ?? CREATE,
  };
  return txnOf(m.signer ?? m.from, meta, m.extraData ?? []);
}

const send = (view: StateView, m: Msg): Promise<void> => connectNewMessage(view, messageTxn(m));
const base = (owner: Uint8Array): GroupId => groupId(owner, BASE);

let store: MemoryStore;
let view: StateView;
let alice: Uint8Array;
let bob: Uint8Array;
let carol: Uint8Array;
beforeEach(async () => {
  store = new MemoryStore();
  view = StateView.over(store);
  [alice, bob, carol] = [key(), key(), key()];
  // alice owns "friends"; bob is a member through his base group.
  await connectAccessGroup(view, txnOf(alice, { type: 'ACCESS_GROUP', ownerPublicKey: alice, accessGroupPublicKey: key(), keyName: utf8('friends'), operationType: AccessGroupOperation.CREATE }));
  await connectAccessGroupMembers(
    view,
    txnOf(alice, {
      type: 'ACCESS_GROUP_MEMBERS',
      ownerPublicKey: alice,
      keyName: utf8('friends'),
      members: [{ memberPublicKey: bob, memberKeyName: Uint8Array.of(0), encryptedKey: utf8('k'), extraData: [] }],
      operationType: AccessGroupMemberOperation.ADD,
    }),
  );
});
afterEach(async () => {
  await store.close();
});

describe('NEW_MESSAGE common rules', () => {
  it('accepts EncryptedText of exactly MaxNewMessageLengthBytes (10,000)', async () => {
    await send(view, { from: alice, to: bob, ts: 1n, body: new Uint8Array(MAX_NEW_MESSAGE_LENGTH_BYTES) });
    assert.equal((await getDmMessage(view, base(alice), base(bob), 1n))?.encryptedText.length, 10_000);
  });

  it('refuses longer text: RuleErrorNewMessageEncryptedTextLengthExceedsMax', async () => {
    await rejects(send(view, { from: alice, to: bob, ts: 1n, body: new Uint8Array(MAX_NEW_MESSAGE_LENGTH_BYTES + 1) }), 'RuleErrorNewMessageEncryptedTextLengthExceedsMax');
  });

  it('refuses a sender owner other than the transactor: RuleErrorNewMessageMessageSenderDoesNotMatchTxnPublicKey', async () => {
    await rejects(send(view, { from: alice, to: bob, ts: 1n, signer: carol }), 'RuleErrorNewMessageMessageSenderDoesNotMatchTxnPublicKey');
  });

  it('refuses a sender or recipient group that does not exist: RuleErrorAccessGroupDoesntExist', async () => {
    await rejects(send(view, { from: alice, fromName: 'nope', to: bob, ts: 1n }), 'RuleErrorAccessGroupDoesntExist');
    await rejects(send(view, { from: alice, to: bob, toName: 'nope', ts: 1n }), 'RuleErrorAccessGroupDoesntExist');
  });

  it('refuses TimestampNanos 0: RuleErrorNewMessageTimestampNanosCannotBeZero', async () => {
    await rejects(send(view, { from: alice, to: bob, ts: 0n }), 'RuleErrorNewMessageTimestampNanosCannotBeZero');
    await rejects(send(view, { from: alice, to: bob, ts: 0n, op: UPDATE }), 'RuleErrorNewMessageTimestampNanosCannotBeZero');
  });

  it('refuses unknown message types and operations', async () => {
    await rejects(send(view, { from: alice, to: bob, ts: 1n, type: 2 }), 'RuleErrorNewMessageUnknownMessageType');
    await rejects(send(view, { from: alice, to: bob, ts: 1n, op: 2 }), 'RuleErrorNewMessageUnknownOperationType');
  });

  it('refuses keys that are not curve points as malformed metadata (core’s decoder checks them)', async () => {
    const txn = messageTxn({ from: alice, to: bob, ts: 1n });
    const meta = txn.metadata.slice();
    // The sender access key follows bytes(owner 33) ‖ bytes(name 32); spoil its first byte.
    meta[1 + 33 + 1 + 32 + 1] = 7;
    await assert.rejects(connectNewMessage(view, { ...txn, metadata: meta }), TxnDecodeError);
  });
});

describe('NEW_MESSAGE DM create', () => {
  it('stores the message once under the ordered pair, found from either side, with the transaction ExtraData', async () => {
    const extra: Array<[Uint8Array, Uint8Array]> = [[utf8('MessagingPublicKey'), utf8('x')]];
    await send(view, { from: alice, to: bob, ts: 5n, body: utf8('hi bob'), extraData: extra });
    const a = await getDmMessage(view, base(alice), base(bob), 5n);
    const b = await getDmMessage(view, base(bob), base(alice), 5n);
    assert.ok(a && b, 'found from both orders');
    assert.equal(text(a.encryptedText), 'hi bob');
    assert.equal(hex(a.senderAccessGroupOwnerPublicKey), hex(alice));
    assert.deepEqual(a.extraData, extra);
  });

  it('writes a thread row for each side', async () => {
    await send(view, { from: alice, fromName: 'friends', to: bob, ts: 5n });
    await store.commit(view.ops());
    const [fromAlice] = await userDmThreads(store, alice);
    const [fromBob] = await userDmThreads(store, bob);
    assert.ok(fromAlice && fromBob, 'both sides list the thread');
    assert.equal(text(trimGroupKeyName(fromAlice.user.keyName)), 'friends');
    assert.equal(hex(fromAlice.party.owner), hex(bob));
    assert.equal(hex(fromBob.user.owner), hex(bob));
    assert.equal(text(trimGroupKeyName(fromBob.party.keyName)), 'friends');
    assert.deepEqual(await userDmThreads(store, carol), []);
  });

  it('refuses a DM to oneself (any groups): RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame', async () => {
    await rejects(send(view, { from: alice, to: alice, ts: 1n }), 'RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame');
    await rejects(send(view, { from: alice, fromName: 'friends', to: alice, ts: 1n }), 'RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame');
  });

  it('refuses a second message at the same timestamp in the thread, from either side: RuleErrorNewMessageDmMessageAlreadyExists', async () => {
    await send(view, { from: alice, to: bob, ts: 7n });
    await rejects(send(view, { from: alice, to: bob, ts: 7n }), 'RuleErrorNewMessageDmMessageAlreadyExists');
    await rejects(send(view, { from: bob, to: alice, ts: 7n }), 'RuleErrorNewMessageDmMessageAlreadyExists');
  });
});

describe('NEW_MESSAGE DM update', () => {
  it('replaces the message at (pair, timestamp), from either side', async () => {
    await send(view, { from: alice, to: bob, ts: 7n, body: utf8('v1') });
    await send(view, { from: bob, to: alice, ts: 7n, body: utf8('v2'), op: UPDATE });
    const m = await getDmMessage(view, base(alice), base(bob), 7n);
    assert.equal(text(m!.encryptedText), 'v2');
  });

  it('refuses a message that does not exist: RuleErrorNewMessageDmMessageDoesNotExist', async () => {
    await rejects(send(view, { from: alice, to: bob, ts: 7n, op: UPDATE }), 'RuleErrorNewMessageDmMessageDoesNotExist');
  });

  it('refuses oneself as the other side: RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame', async () => {
    await rejects(send(view, { from: alice, to: alice, ts: 7n, op: UPDATE }), 'RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame');
  });
});

describe('NEW_MESSAGE group chat create', () => {
  const friends = (): GroupId => groupId(alice, utf8('friends'));

  it('stores a member’s message under the recipient group', async () => {
    await send(view, { from: bob, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT, body: utf8('hello all') });
    const m = await getGroupChatMessage(view, friends(), 3n);
    assert.equal(text(m!.encryptedText), 'hello all');
    assert.equal(hex(m!.senderAccessGroupOwnerPublicKey), hex(bob));
  });

  it('lets the owner post from any of its groups without being a member', async () => {
    await send(view, { from: alice, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT });
    await send(view, { from: alice, fromName: 'friends', to: alice, toName: 'friends', ts: 4n, type: GROUP_CHAT });
    assert.equal((await groupChatMessagesPage(view, friends(), { before: 10n, limit: 10 })).length, 2);
  });

  it('refuses a sender that is not a member: RuleErrorNewMessageGroupChatMemberEntryDoesntExist', async () => {
    await rejects(send(view, { from: carol, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT }), 'RuleErrorNewMessageGroupChatMemberEntryDoesntExist');
  });

  it('refuses a removed member', async () => {
    await connectAccessGroupMembers(
      view,
      txnOf(alice, {
        type: 'ACCESS_GROUP_MEMBERS',
        ownerPublicKey: alice,
        keyName: utf8('friends'),
        members: [{ memberPublicKey: bob, memberKeyName: Uint8Array.of(0), encryptedKey: new Uint8Array(0), extraData: [] }],
        operationType: AccessGroupMemberOperation.REMOVE,
      }),
    );
    await rejects(send(view, { from: bob, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT }), 'RuleErrorNewMessageGroupChatMemberEntryDoesntExist');
  });

  it('refuses a second message at the same timestamp: RuleErrorNewMessageGroupChatMessageAlreadyExists', async () => {
    await send(view, { from: bob, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT });
    await rejects(send(view, { from: alice, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT }), 'RuleErrorNewMessageGroupChatMessageAlreadyExists');
  });
});

describe('NEW_MESSAGE group chat update', () => {
  it('replaces the message at (group, timestamp)', async () => {
    await send(view, { from: bob, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT, body: utf8('v1') });
    await send(view, { from: bob, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT, body: utf8('v2'), op: UPDATE });
    assert.equal(text((await getGroupChatMessage(view, groupId(alice, utf8('friends')), 3n))!.encryptedText), 'v2');
  });

  it('refuses a message that does not exist: RuleErrorNewMessageGroupChatMessageDoesNotExist', async () => {
    await rejects(send(view, { from: bob, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT, op: UPDATE }), 'RuleErrorNewMessageGroupChatMessageDoesNotExist');
  });
});

describe('group chats a user takes part in', () => {
  it('are the owned (base included) and member groups that have a message', async () => {
    await store.commit(view.ops());
    view = StateView.over(store);
    assert.deepEqual(await userGroupChatThreads(store, bob), [], 'no chat has a message yet');
    await send(view, { from: bob, to: alice, toName: 'friends', ts: 3n, type: GROUP_CHAT });
    await send(view, { from: alice, to: alice, ts: 4n, type: GROUP_CHAT });
    await store.commit(view.ops());
    const names = async (pk: Uint8Array): Promise<string[]> => (await userGroupChatThreads(store, pk)).map((g) => `${hex(g.owner) === hex(alice) ? 'alice' : '?'}/${text(trimGroupKeyName(g.keyName))}`);
    assert.deepEqual(await names(alice), ['alice/', 'alice/friends'], 'alice: her base group chat and the group she owns');
    assert.deepEqual(await names(bob), ['alice/friends'], 'bob: the group he is a member of');
    assert.deepEqual(await userGroupChatThreads(store, carol), []);
  });
});

describe('message paging (newest first, strictly older than the start)', () => {
  async function walk(page: (before: bigint) => Promise<NewMessageRecord[]>, start: bigint): Promise<bigint[]> {
    const seen: bigint[] = [];
    let before = start;
    for (;;) {
      const batch = await page(before);
      if (batch.length === 0) return seen;
      seen.push(...batch.map((m) => m.timestampNanos));
      before = batch[batch.length - 1]!.timestampNanos;
    }
  }

  it('walks a 1,000-message DM thread page by page: every message once, newest first', async () => {
    const stamps: bigint[] = [];
    for (let i = 0; i < 1000; i++) {
      // Both directions, irregular gaps, timestamps across several hex digits.
      const ts = 1_700_000_000_000_000_000n + BigInt(i) * 7_919n + BigInt(i % 13);
      stamps.push(ts);
      const child = view.child();
      await send(child, i % 2 === 0 ? { from: alice, to: bob, ts } : { from: bob, to: alice, ts });
      child.commitTo();
    }
    await store.commit(view.ops());
    const got = await walk((before) => dmMessagesPage(store, base(bob), base(alice), { before, limit: 37 }), 1n << 64n);
    assert.equal(got.length, 1000);
    assert.equal(new Set(got).size, 1000, 'no message twice');
    assert.deepEqual(got, [...stamps].sort((a, b) => (a < b ? 1 : -1)), 'newest first, all of them');
  });

  it('excludes the start timestamp itself and answers nothing for start 0', async () => {
    for (const ts of [10n, 20n, 30n]) await send(view, { from: alice, to: bob, ts });
    const page = async (before: bigint): Promise<bigint[]> => (await dmMessagesPage(view, base(alice), base(bob), { before, limit: 10 })).map((m) => m.timestampNanos);
    assert.deepEqual(await page(30n), [20n, 10n]);
    assert.deepEqual(await page(31n), [30n, 20n, 10n]);
    assert.deepEqual(await page(0n), []);
    assert.deepEqual((await dmMessagesPage(view, base(alice), base(bob), { before: 31n, limit: 2 })).map((m) => m.timestampNanos), [30n, 20n], 'at most the limit');
  });

  it('walks a group chat the same way, pending (uncommitted) messages included', async () => {
    const stamps = Array.from({ length: 120 }, (_, i) => BigInt(1000 + i * 3));
    for (const ts of stamps) await send(view, { from: bob, to: alice, toName: 'friends', ts, type: GROUP_CHAT });
    const got = await walk((before) => groupChatMessagesPage(view, groupId(alice, utf8('friends')), { before, limit: 50 }), 1n << 63n);
    assert.deepEqual(got, [...stamps].reverse());
  });
});
