// MESSAGING_GROUP rules (core _connectMessagingGroup, lib/block_view_message.go) on a state view
// over the memory store: registering a messaging key, adding members, unencrypted groups, each
// RuleError core names in core's order, and that legacy messaging keys and access groups do not
// see each other (core keeps them under separate prefixes).
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connectAccessGroup } from '../../server/chain/rules/accessGroups.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { TYPE_HANDLERS } from '../../server/chain/rules/handlers.js';
import { BASE_POINT_COMPRESSED, connectMessagingGroup, unencryptedGroupMessagingKey } from '../../server/chain/rules/messagingGroups.js';
import { getAccessGroup, groupId } from '../../server/chain/state/accessGroups.js';
import { getMessagingGroup, messagingGroupsWithMember, ownedMessagingGroups } from '../../server/chain/state/messagingGroups.js';
import { StateView } from '../../server/chain/state/view.js';
import type { TxnEnvelope } from '../../server/chain/txn/envelope.js';
import { AccessGroupOperation, TxnType, type MessagingGroupMember } from '../../server/chain/txn/metadata.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { txnOf } from '../helpers/envelopes.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const key = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const NOT_A_POINT = new Uint8Array(33).fill(7);
const SEALED = new Uint8Array(32).fill(9);

const member = (pk: Uint8Array, keyName = '', encryptedKey = SEALED): MessagingGroupMember => ({ groupMemberPublicKey: pk, groupMemberKeyName: utf8(keyName), encryptedKey });

const registerTxn = (owner: Uint8Array, name: string | Uint8Array, messagingKey: Uint8Array, members: MessagingGroupMember[] = [], extraData: Array<[Uint8Array, Uint8Array]> = []): TxnEnvelope =>
  txnOf(
    owner,
    { type: 'MESSAGING_GROUP', messagingPublicKey: messagingKey, messagingGroupKeyName: typeof name === 'string' ? utf8(name) : name, groupOwnerSignature: new Uint8Array(0), members },
    extraData,
  );

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RuleError, `a RuleError, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

let view: StateView;
beforeEach(() => {
  view = StateView.over(new MemoryStore());
});

describe('MESSAGING_GROUP', () => {
  it('is connected by the handler table (type 23)', () => {
    assert.equal(TxnType.MESSAGING_GROUP, 23);
    assert.ok(TYPE_HANDLERS.has(TxnType.MESSAGING_GROUP));
  });

  it('registers a messaging key under (transactor, name); the base key exists for everyone', async () => {
    const alice = key();
    const mk = key();
    await connectMessagingGroup(view, registerTxn(alice, 'default-key', mk, [], [[utf8('k'), utf8('v')]]));
    const g = await getMessagingGroup(view, groupId(alice, utf8('default-key')));
    assert.ok(g);
    assert.equal(hex(g.messagingPublicKey), hex(mk));
    assert.deepEqual(g.members, []);
    assert.deepEqual(g.extraData, [[utf8('k'), utf8('v')]]);
    assert.deepEqual((await ownedMessagingGroups(view, alice)).map((r) => Buffer.from(r.keyName).toString('utf8').replace(/\0+$/, '')), ['default-key']);
    const base = await getMessagingGroup(view, groupId(alice, new Uint8Array(0)));
    assert.equal(hex(base!.messagingPublicKey), hex(alice), 'the base key is the owner key');
  });

  it('sending the same key again adds members (existing kept first, ExtraData merged); the key can never change', async () => {
    const [owner, mk, bob, carol] = [key(), key(), key(), key()];
    await connectMessagingGroup(view, registerTxn(carol, 'default-key', key()));
    await connectMessagingGroup(view, registerTxn(owner, 'chat', mk, [member(bob)], [[utf8('a'), utf8('1')]]));
    await connectMessagingGroup(view, registerTxn(owner, 'chat', mk, [member(carol, 'default-key')], [[utf8('b'), utf8('2')]]));
    const g = (await getMessagingGroup(view, groupId(owner, utf8('chat'))))!;
    assert.deepEqual(g.members.map((m) => hex(m.memberPublicKey)), [hex(bob), hex(carol)]);
    assert.equal(Buffer.from(g.members[1]!.memberKeyName).toString('utf8').replace(/\0+$/, ''), 'default-key');
    assert.deepEqual(g.extraData, [[utf8('a'), utf8('1')], [utf8('b'), utf8('2')]]);
    assert.deepEqual((await messagingGroupsWithMember(view, carol)).map((id) => hex(id.owner)), [hex(owner)]);

    await rejects(connectMessagingGroup(view, registerTxn(owner, 'chat', key(), [member(key())])), 'RuleErrorMessagingPublicKeyCannotBeDifferent');
    await rejects(connectMessagingGroup(view, registerTxn(owner, 'chat', mk, [])), 'RuleErrorMessagingKeyDoesntAddMembers');
    await rejects(connectMessagingGroup(view, registerTxn(owner, 'chat', mk, [member(bob)])), 'RuleErrorMessagingMemberAlreadyExists');
  });

  it('refuses in core order: zero name, bad key, name length, owner key as messaging key', async () => {
    const alice = key();
    await rejects(connectMessagingGroup(view, registerTxn(alice, '', NOT_A_POINT)), 'RuleErrorMessagingKeyNameCannotBeZeros');
    await rejects(connectMessagingGroup(view, registerTxn(alice, new Uint8Array(3), key())), 'RuleErrorMessagingKeyNameCannotBeZeros');
    await rejects(connectMessagingGroup(view, registerTxn(alice, 'x', new Uint8Array(32).fill(2))), 'RuleErrorPubKeyLen');
    await rejects(connectMessagingGroup(view, registerTxn(alice, 'x', NOT_A_POINT)), 'RuleErrorParsePublicKey');
    await rejects(connectMessagingGroup(view, registerTxn(alice, 'x'.repeat(33), key())), 'RuleErrorMessagingKeyNameTooLong');
    await rejects(connectMessagingGroup(view, registerTxn(alice, 'x', alice)), 'RuleErrorMessagingPublicKeyCannotBeOwnerKey');
  });

  it('refuses members: short encrypted key, bad key, unregistered member key, the group key itself, duplicates', async () => {
    const [owner, mk, bob] = [key(), key(), key()];
    await rejects(connectMessagingGroup(view, registerTxn(owner, 'g', mk, [member(bob, '', new Uint8Array(31))])), 'RuleErrorMessagingMemberEncryptedKeyTooShort');
    await rejects(connectMessagingGroup(view, registerTxn(owner, 'g', mk, [member(NOT_A_POINT)])), 'RuleErrorParsePublicKey');
    await rejects(connectMessagingGroup(view, registerTxn(owner, 'g', mk, [member(bob, 'default-key')])), 'RuleErrorMessagingMemberKeyDoesntExist');
    await rejects(connectMessagingGroup(view, registerTxn(owner, 'g', mk, [member(mk)])), 'RuleErrorMessagingMemberAlreadyExists');
    await rejects(connectMessagingGroup(view, registerTxn(owner, 'g', mk, [member(bob), member(bob)])), 'RuleErrorMessagingMemberAlreadyExists');
    assert.equal(await getMessagingGroup(view, groupId(owner, utf8('g'))), undefined, 'nothing was written by the refused ones');
  });

  it('the base point G as messaging key registers an unencrypted group owned by G, keyed by sha256d(name)', async () => {
    const [alice, bob] = [key(), key()];
    await connectMessagingGroup(view, registerTxn(alice, 'open-chat', BASE_POINT_COMPRESSED, [member(alice, '', new Uint8Array(32))]));
    const g = (await getMessagingGroup(view, groupId(BASE_POINT_COMPRESSED, utf8('open-chat'))))!;
    assert.equal(hex(g.messagingPublicKey), hex(getPublicKey(sha256d(utf8('open-chat')))));
    assert.equal(hex(unencryptedGroupMessagingKey(utf8('open-chat'))), hex(g.messagingPublicKey));
    assert.equal(await getMessagingGroup(view, groupId(alice, utf8('open-chat'))), undefined, 'not under the transactor');
    // Anyone may add themselves with the same (base point) key.
    await connectMessagingGroup(view, registerTxn(bob, 'open-chat', BASE_POINT_COMPRESSED, [member(bob, '', new Uint8Array(32))]));
    assert.equal((await getMessagingGroup(view, groupId(BASE_POINT_COMPRESSED, utf8('open-chat'))))!.members.length, 2);
  });

  it('legacy messaging keys and access groups are separate state, as in core', async () => {
    const [alice, mk, bob] = [key(), key(), key()];
    await connectMessagingGroup(view, registerTxn(alice, 'default-key', mk));
    assert.equal(await getAccessGroup(view, groupId(alice, utf8('default-key'))), undefined, 'a messaging key is no access group');
    await connectAccessGroup(view, txnOf(bob, { type: 'ACCESS_GROUP', ownerPublicKey: bob, accessGroupPublicKey: key(), keyName: utf8('default-key'), operationType: AccessGroupOperation.CREATE }));
    assert.equal(await getMessagingGroup(view, groupId(bob, utf8('default-key'))), undefined, 'an access group is no messaging key');
    // So a member must name a registered messaging key, not an access group.
    await rejects(connectMessagingGroup(view, registerTxn(alice, 'chat', key(), [member(bob, 'default-key')])), 'RuleErrorMessagingMemberKeyDoesntExist');
  });
});
