// Access groups, members and new messages end to end on a real node: construct over HTTP →
// sign through our identity service and through the SDK → submit-transaction → mined by the
// node's miner → read back from chain state with the accessors the read routes use. Message
// texts are encrypted with identity `encrypt` and read back with identity `decrypt`, the group
// secret travelling to members inside their EncryptedKey. Rejections answer the reference's
// route errors, or core's RuleError names at submit time.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  accessGroupMembersPage,
  getAccessGroup,
  getAccessGroupMember,
  groupId,
  trimGroupKeyName,
  type GroupId,
} from '../../server/chain/state/accessGroups.js';
import { dmMessagesPage, groupChatMessagesPage, userDmThreads, userGroupChatThreads, type NewMessageRecord } from '../../server/chain/state/messages.js';
import { decodeTxn, encodeTxn } from '../../server/chain/txn/envelope.js';
import { decodeMetadata, encodeMetadata, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair, type Signer } from '../helpers/chainNode.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const ALL = 1n << 64n;

let n: ChainNode;
const alice = keyPair();
const bob = keyPair();
const carol = keyPair();
/** The access key pair of alice's "friends" group; its seed is the group secret. */
const friendsKey = keyPair();

const friends = (): GroupId => groupId(alice.pk33, utf8('friends'));
const base = (k: KeyPair): GroupId => groupId(k.pk33, new Uint8Array(0));

before(async () => {
  n = await startChainNode();
  for (const k of [alice, bob, carol]) await n.fund(k.pk, 1_000_000_000);
});
after(async () => {
  await n?.close();
});

// --- identity frame calls (level 2 sessions: encrypt and decrypt) --------------------------------

const sessions = new Map<string, J>();
async function identity(method: string, payload: J): Promise<J> {
  const r = await n.ok('identity', { id: `${method}-${Math.random()}`, service: 'identity', method, payload });
  return r['payload'] as J;
}
async function session(seedHex: string): Promise<J> {
  let s = sessions.get(seedHex);
  if (!s) {
    const p = await identity('login', { seedHex });
    s = { encryptedSeedHex: p['encryptedSeedHex'], accessLevel: p['accessLevel'], accessLevelHmac: p['accessLevelHmac'] };
    sessions.set(seedHex, s);
  }
  return s;
}
async function encrypt(from: KeyPair, recipientPk: string, message: string): Promise<string> {
  const p = await identity('encrypt', { ...(await session(from.seedHex)), recipientPublicKey: recipientPk, message });
  assert.match(String(p['encryptedMessage']), /^[0-9a-f]+$/, `encrypt answers hex: ${JSON.stringify(p)}`);
  return p['encryptedMessage'] as string;
}
async function decrypt(readerSeedHex: string, encryptedHex: string, otherPk: string): Promise<string> {
  const p = await identity('decrypt', { ...(await session(readerSeedHex)), encryptedMessages: [{ EncryptedHex: encryptedHex, PublicKey: otherPk, IsSender: false, Legacy: false }] });
  return (p['decryptedHexes'] as Record<string, string>)[encryptedHex]!;
}

// --- write path helpers --------------------------------------------------------------------------

const construct = (path: string, body: J): Promise<J> => n.ok(path, { MinFeeRateNanosPerKB: 1000, ...body });
async function mined(path: string, body: J, signer: KeyPair, by: Signer): Promise<J> {
  const c = await construct(path, body);
  await n.submit(c['TransactionHex'] as string, signer, by);
  return c;
}
/** Signs and submits; the mempool refuses it with `re`. */
async function refusedAtSubmit(txnHex: string, signer: KeyPair, re: RegExp): Promise<void> {
  await n.fails('submit-transaction', { TransactionHex: await n.sign(txnHex, signer, 'identity') }, re);
}
/** The same unsigned transaction with its metadata changed (a client choosing its own fields). */
function withMetadata(txnHex: string, change: (m: TxnMetadata) => TxnMetadata): string {
  const { signatureField: _, ...fields } = decodeTxn(new Uint8Array(Buffer.from(txnHex, 'hex')));
  return hex(encodeTxn({ ...fields, metadata: encodeMetadata(change(decodeMetadata(fields.txnType, fields.metadata))) }));
}

const groupBody = (owner: KeyPair, name: string, accessPk: string): J => ({ AccessGroupOwnerPublicKeyBase58Check: owner.pk, AccessGroupPublicKeyBase58Check: accessPk, AccessGroupKeyName: name });
const membersBody = (name: string, members: J[]): J => ({ AccessGroupOwnerPublicKeyBase58Check: alice.pk, AccessGroupKeyName: name, AccessGroupMemberList: members });
const dmBody = (from: KeyPair, to: KeyPair, encryptedHex: string): J => ({
  SenderAccessGroupOwnerPublicKeyBase58Check: from.pk,
  SenderAccessGroupPublicKeyBase58Check: from.pk,
  SenderAccessGroupKeyName: '',
  RecipientAccessGroupOwnerPublicKeyBase58Check: to.pk,
  RecipientAccessGroupPublicKeyBase58Check: to.pk,
  RecipientAccessGroupKeyName: '',
  EncryptedMessageText: encryptedHex,
});
const groupChatBody = (from: KeyPair, encryptedHex: string, groupName = 'friends'): J => ({
  SenderAccessGroupOwnerPublicKeyBase58Check: from.pk,
  SenderAccessGroupPublicKeyBase58Check: from.pk,
  SenderAccessGroupKeyName: '',
  RecipientAccessGroupOwnerPublicKeyBase58Check: alice.pk,
  RecipientAccessGroupPublicKeyBase58Check: friendsKey.pk,
  RecipientAccessGroupKeyName: groupName,
  EncryptedMessageText: encryptedHex,
});
const newest = async (page: Promise<NewMessageRecord[]>): Promise<NewMessageRecord> => (await page)[0]!;

describe('create-access-group / update-access-group', () => {
  it('creates "friends" (signed through identity): the reference fields, mined, stored', async () => {
    const c = await mined('create-access-group', groupBody(alice, 'friends', friendsKey.pk), alice, 'identity');
    assert.deepEqual(Object.keys(c).sort(), ['ChangeAmountNanos', 'FeeNanos', 'TotalInputNanos', 'Transaction', 'TransactionHex']);
    assert.equal((c['Transaction'] as J)['TxnMeta']['AccessGroupOperationType'], 2);
    const g = await getAccessGroup(n.deps.store, friends());
    assert.ok(g, 'the group is on chain');
    assert.equal(hex(g.accessGroupPublicKey), hex(friendsKey.pk33));
  });

  it('creates and updates "scratch" (create signed by the SDK, update through identity)', async () => {
    await mined('create-access-group', groupBody(alice, 'scratch', keyPair().pk), alice, 'sdk');
    const next = keyPair();
    const c = await mined('update-access-group', { ...groupBody(alice, 'scratch', next.pk), ExtraData: { note: 'rotated' } }, alice, 'identity');
    assert.equal((c['Transaction'] as J)['TxnMeta']['AccessGroupOperationType'], 3);
    const g = await getAccessGroup(n.deps.store, groupId(alice.pk33, utf8('scratch')));
    assert.equal(hex(g!.accessGroupPublicKey), hex(next.pk33));
    assert.deepEqual(g!.extraData.map(([k, v]) => [Buffer.from(k).toString(), Buffer.from(v).toString()]), [['note', 'rotated']]);
  });

  it('refuses the base group name at construction', async () => {
    await n.fails('create-access-group', groupBody(alice, '', keyPair().pk), /^CreateAccessGroup: problem validating access group owner public key and access group key name : .*RuleErrorAccessGroupKeyNameTooShort$/);
    await n.fails('create-access-group', groupBody(alice, '\u0000', keyPair().pk), /^CreateAccessGroup: access group key cannot be same as base key \(all zeros\)/);
  });

  it('refuses a base-name transaction at submit: RuleErrorAccessGroupsNameCannotBeZeros', async () => {
    const c = await construct('create-access-group', groupBody(alice, 'placeholder', keyPair().pk));
    const crafted = withMetadata(c['TransactionHex'] as string, (m) => ({ ...(m as Extract<TxnMetadata, { type: 'ACCESS_GROUP' }>), keyName: Uint8Array.of(0) }));
    await refusedAtSubmit(crafted, alice, /RuleErrorAccessGroupsNameCannotBeZeros/);
  });

  it('refuses a group that exists: at construction, and at submit (RuleErrorAccessGroupAlreadyExists)', async () => {
    await n.fails('create-access-group', groupBody(alice, 'friends', keyPair().pk), /^CreateAccessGroup: cannot create an access group entry that already exists$/);
    const first = await construct('create-access-group', groupBody(alice, 'twice', keyPair().pk));
    const second = await construct('create-access-group', groupBody(alice, 'twice', keyPair().pk));
    await n.submit(first['TransactionHex'] as string, alice, 'identity');
    await refusedAtSubmit(second['TransactionHex'] as string, alice, /RuleErrorAccessGroupAlreadyExists/);
  });

  it('refuses updating a group that does not exist, and the owner key as access key', async () => {
    await n.fails('update-access-group', groupBody(alice, 'missing', keyPair().pk), /^UpdateAccessGroup: cannot update an access group entry that does not exist or has been deleted$/);
    const c = await construct('create-access-group', groupBody(alice, 'self', alice.pk));
    await refusedAtSubmit(c['TransactionHex'] as string, alice, /RuleErrorAccessPublicKeyCannotBeOwnerKey/);
  });
});

describe('add-/update-/remove-access-group-members', () => {
  let bobSealed: string;

  it('adds bob (through identity) with the group secret encrypted to him: EncryptedKey is the string’s bytes', async () => {
    bobSealed = await encrypt(alice, bob.pk, friendsKey.seedHex);
    const c = await mined('add-access-group-members', membersBody('friends', [{ AccessGroupMemberPublicKeyBase58Check: bob.pk, AccessGroupMemberKeyName: '', EncryptedKey: bobSealed }]), alice, 'identity');
    const listed = (c['Transaction'] as J)['TxnMeta']['AccessGroupMembersList'][0] as J;
    assert.equal(Buffer.from(listed['EncryptedKey'] as string, 'base64').toString(), bobSealed, 'raw UTF-8 bytes of the string');
    assert.equal(Buffer.from(listed['AccessGroupMemberKeyName'] as string, 'base64').toString('hex'), '00', 'the base group as one zero byte');
    const m = await getAccessGroupMember(n.deps.store, bob.pk33, friends());
    assert.ok(m, 'bob is a member on chain');
    assert.equal(Buffer.from(m.encryptedKey).toString(), bobSealed);
    assert.equal(await decrypt(bob.seedHex, Buffer.from(m.encryptedKey).toString(), alice.pk), friendsKey.seedHex, 'bob opens the group secret');
  });

  it('adds carol (SDK), updates her (identity), removes her (SDK)', async () => {
    await mined('add-access-group-members', membersBody('friends', [{ AccessGroupMemberPublicKeyBase58Check: carol.pk, AccessGroupMemberKeyName: '', EncryptedKey: 'first' }]), alice, 'sdk');
    assert.deepEqual((await accessGroupMembersPage(n.deps.store, friends(), { limit: 10 })).map(hex), [hex(bob.pk33), hex(carol.pk33)].sort(), 'both members, by key');
    await mined('update-access-group-members', membersBody('friends', [{ AccessGroupMemberPublicKeyBase58Check: carol.pk, AccessGroupMemberKeyName: '', EncryptedKey: 'second' }]), alice, 'identity');
    assert.equal(Buffer.from((await getAccessGroupMember(n.deps.store, carol.pk33, friends()))!.encryptedKey).toString(), 'second');
    await mined('remove-access-group-members', membersBody('friends', [{ AccessGroupMemberPublicKeyBase58Check: carol.pk, AccessGroupMemberKeyName: '' }]), alice, 'sdk');
    assert.equal(await getAccessGroupMember(n.deps.store, carol.pk33, friends()), undefined, 'carol is no member any more');
  });

  it('refuses what the reference refuses at construction', async () => {
    const bobEntry = { AccessGroupMemberPublicKeyBase58Check: bob.pk, AccessGroupMemberKeyName: '', EncryptedKey: 'x' };
    await n.fails('add-access-group-members', membersBody('friends', [bobEntry]), /^AddAccessGroupMembers: access group member entry already exists for publicKey /);
    await n.fails('add-access-group-members', membersBody('', [bobEntry]), /^AddAccessGroupMembers: access group key cannot be same as base key \(all zeros\)/);
    await n.fails('add-access-group-members', membersBody('friends', [{ ...bobEntry, AccessGroupMemberPublicKeyBase58Check: alice.pk, AccessGroupMemberKeyName: 'friends' }]), /^AddAccessGroupMembers: can't include the owner of the group/);
    await n.fails('remove-access-group-members', membersBody('friends', [bobEntry]), /^RemoveAccessGroupMembers: encryptedKey should be empty for remove operations$/);
    await n.fails('update-access-group-members', membersBody('friends', [{ ...bobEntry, AccessGroupMemberPublicKeyBase58Check: carol.pk }]), /^UpdateAccessGroupMembers: access group member entry not found for publicKey /);
  });
});

describe('send-dm-message / update-dm-message', () => {
  const hello = 'hello bob, from alice';

  it('sends a DM encrypted through identity (signed through identity); bob decrypts it from state', async () => {
    const before = BigInt(Date.now()) * 1_000_000n;
    const c = await mined('send-dm-message', dmBody(alice, bob, await encrypt(alice, bob.pk, hello)), alice, 'identity');
    assert.equal(c['TstampNanos'], 0, 'the reference answers TstampNanos 0');
    assert.ok(BigInt((c['Transaction'] as J)['TxnMeta']['TimestampNanos'] as number) >= before - 1_000_000_000n, 'stamped with the server clock (ns)');
    const m = await newest(dmMessagesPage(n.deps.store, base(bob), base(alice), { before: ALL, limit: 10 }));
    assert.equal(await decrypt(bob.seedHex, hex(m.encryptedText), alice.pk), hello);
    assert.deepEqual((await userDmThreads(n.deps.store, bob.pk33)).map((t) => hex(t.party.owner)), [hex(alice.pk33)], 'bob lists the thread');
    assert.deepEqual((await userDmThreads(n.deps.store, alice.pk33)).map((t) => hex(t.party.owner)), [hex(bob.pk33)], 'alice lists the thread');
  });

  it('replies (signed by the SDK) and updates the first message (identity): newest first, text replaced', async () => {
    await mined('send-dm-message', dmBody(bob, alice, await encrypt(bob, alice.pk, 'hi alice')), bob, 'sdk');
    const thread = await dmMessagesPage(n.deps.store, base(alice), base(bob), { before: ALL, limit: 10 });
    assert.equal(thread.length, 2);
    assert.equal(await decrypt(alice.seedHex, hex(thread[0]!.encryptedText), bob.pk), 'hi alice', 'the reply is newest');
    const first = thread[1]!;
    await mined('update-dm-message', { ...dmBody(alice, bob, await encrypt(alice, bob.pk, 'edited')), TimestampNanosString: first.timestampNanos.toString() }, alice, 'identity');
    const after = await dmMessagesPage(n.deps.store, base(alice), base(bob), { before: first.timestampNanos + 1n, limit: 1 });
    assert.equal(after[0]!.timestampNanos, first.timestampNanos);
    assert.equal(await decrypt(bob.seedHex, hex(after[0]!.encryptedText), alice.pk), 'edited');
  });

  it('refuses a DM to oneself: RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame', async () => {
    const c = await construct('send-dm-message', dmBody(alice, alice, 'aa'));
    await refusedAtSubmit(c['TransactionHex'] as string, alice, /RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame/);
  });

  it('refuses a message over 10,000 bytes: RuleErrorNewMessageEncryptedTextLengthExceedsMax', async () => {
    const c = await construct('send-dm-message', dmBody(alice, bob, 'ab'.repeat(10_001)));
    await refusedAtSubmit(c['TransactionHex'] as string, alice, /RuleErrorNewMessageEncryptedTextLengthExceedsMax/);
  });

  it('refuses a second message at a timestamp the thread has: RuleErrorNewMessageDmMessageAlreadyExists', async () => {
    const taken = (await newest(dmMessagesPage(n.deps.store, base(alice), base(bob), { before: ALL, limit: 1 }))).timestampNanos;
    const c = await construct('send-dm-message', dmBody(alice, bob, 'cc'));
    const crafted = withMetadata(c['TransactionHex'] as string, (m) => ({ ...(m as Extract<TxnMetadata, { type: 'NEW_MESSAGE' }>), timestampNanos: taken }));
    await refusedAtSubmit(crafted, alice, /RuleErrorNewMessageDmMessageAlreadyExists/);
  });

  it('refuses malformed requests with the reference texts', async () => {
    await n.fails('send-dm-message', dmBody(alice, bob, 'zz'), /^SendDmMessage: Problem decoding encrypted message text hex: encoding\/hex: invalid byte: U\+007A 'z'$/);
    await n.fails('update-dm-message', { ...dmBody(alice, bob, 'aa'), TimestampNanosString: '0' }, /^UpdateDmMessage: TimestampNanosString cannot be 0$/);
    await n.fails('update-dm-message', { ...dmBody(alice, bob, 'aa'), TimestampNanosString: 'soon' }, /^UpdateDmMessage: Problem converting TimestampNanosString to uint64/);
    await n.fails('send-dm-message', { ...dmBody(alice, bob, 'aa'), SenderAccessGroupKeyName: 'x'.repeat(33) }, /^SendDmMessage: Problem validating sender public key and access group name .*RuleErrorAccessGroupKeyNameTooLong$/);
  });
});

describe('send-group-chat-message / update-group-chat-message', () => {
  it('the owner (identity) and a member (SDK) post to "friends"; bob opens both with the group secret from his EncryptedKey', async () => {
    await mined('send-group-chat-message', groupChatBody(alice, await encrypt(alice, friendsKey.pk, 'welcome, friends')), alice, 'identity');
    await mined('send-group-chat-message', groupChatBody(bob, await encrypt(bob, friendsKey.pk, 'thanks alice')), bob, 'sdk');
    const [latest, first] = await groupChatMessagesPage(n.deps.store, friends(), { before: ALL, limit: 10 });
    assert.ok(latest && first, 'two messages, newest first');
    const sealed = Buffer.from((await getAccessGroupMember(n.deps.store, bob.pk33, friends()))!.encryptedKey).toString();
    const groupSecret = await decrypt(bob.seedHex, sealed, alice.pk);
    assert.equal(await decrypt(groupSecret, hex(first.encryptedText), alice.pk), 'welcome, friends');
    assert.equal(await decrypt(groupSecret, hex(latest.encryptedText), bob.pk), 'thanks alice');
    assert.deepEqual((await userGroupChatThreads(n.deps.store, bob.pk33)).map((g) => Buffer.from(trimGroupKeyName(g.keyName)).toString()), ['friends'], 'bob takes part in "friends"');
  });

  it('updates a group-chat message (identity)', async () => {
    const mine = await newest(groupChatMessagesPage(n.deps.store, friends(), { before: ALL, limit: 1 }));
    await mined('update-group-chat-message', { ...groupChatBody(bob, await encrypt(bob, friendsKey.pk, 'thanks!')), TimestampNanosString: mine.timestampNanos.toString() }, bob, 'identity');
    const now = await newest(groupChatMessagesPage(n.deps.store, friends(), { before: ALL, limit: 1 }));
    assert.equal(now.timestampNanos, mine.timestampNanos);
    assert.equal(await decrypt(friendsKey.seedHex, hex(now.encryptedText), bob.pk), 'thanks!');
  });

  it('refuses a sender that is not a member: RuleErrorNewMessageGroupChatMemberEntryDoesntExist', async () => {
    const c = await construct('send-group-chat-message', groupChatBody(carol, 'aa'));
    await refusedAtSubmit(c['TransactionHex'] as string, carol, /RuleErrorNewMessageGroupChatMemberEntryDoesntExist/);
  });

  it('refuses a group that does not exist: RuleErrorAccessGroupDoesntExist', async () => {
    const c = await construct('send-group-chat-message', groupChatBody(bob, 'aa', 'no-such-group'));
    await refusedAtSubmit(c['TransactionHex'] as string, bob, /RuleErrorAccessGroupDoesntExist/);
  });

  it('refuses a second message at a timestamp the chat has: RuleErrorNewMessageGroupChatMessageAlreadyExists', async () => {
    const taken = (await newest(groupChatMessagesPage(n.deps.store, friends(), { before: ALL, limit: 1 }))).timestampNanos;
    const c = await construct('send-group-chat-message', groupChatBody(alice, 'cc'));
    const crafted = withMetadata(c['TransactionHex'] as string, (m) => ({ ...(m as Extract<TxnMetadata, { type: 'NEW_MESSAGE' }>), timestampNanos: taken }));
    await refusedAtSubmit(crafted, alice, /RuleErrorNewMessageGroupChatMessageAlreadyExists/);
  });
});
