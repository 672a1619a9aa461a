// ACCESS_GROUP and ACCESS_GROUP_MEMBERS rules (node-api.md §8, core _connectAccessGroup /
// _connectAccessGroupMembers) on a state view over the memory store: each rule's success and
// every RuleError core names, plus the storage the read routes page through.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connectAccessGroup, connectAccessGroupMembers } from '../../server/chain/rules/accessGroups.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { TYPE_HANDLERS } from '../../server/chain/rules/handlers.js';
import {
  accessGroupMembersPage,
  getAccessGroup,
  getAccessGroupMember,
  groupId,
  groupsWithMember,
  memberAccessGroups,
  ownedAccessGroups,
  registeredGroupKeyNames,
  trimGroupKeyName,
} from '../../server/chain/state/accessGroups.js';
import { StateView } from '../../server/chain/state/view.js';
import type { TxnEnvelope } from '../../server/chain/txn/envelope.js';
import { TxnDecodeError } from '../../server/chain/txn/errors.js';
import {
  AccessGroupMemberOperation,
  AccessGroupOperation,
  TxnType,
  type AccessGroupMember,
} from '../../server/chain/txn/metadata.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { txnOf } from '../helpers/envelopes.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const key = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
/** 33 bytes that are not a compressed point (first byte 07). */
const NOT_A_POINT = new Uint8Array(33).fill(7);
const BASE = new Uint8Array(0);

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RuleError, `a RuleError, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

const groupTxn = (owner: Uint8Array, name: string | Uint8Array, accessKey: Uint8Array, operationType: number = AccessGroupOperation.CREATE, signer = owner): TxnEnvelope =>
  txnOf(signer, { type: 'ACCESS_GROUP', ownerPublicKey: owner, accessGroupPublicKey: accessKey, keyName: typeof name === 'string' ? utf8(name) : name, operationType });

const member = (pk: Uint8Array, keyName: string | Uint8Array = Uint8Array.of(0), encryptedKey = utf8('sealed'), extraData: Array<[Uint8Array, Uint8Array]> = []): AccessGroupMember => ({
  memberPublicKey: pk,
  memberKeyName: typeof keyName === 'string' ? utf8(keyName) : keyName,
  encryptedKey,
  extraData,
});

const membersTxn = (owner: Uint8Array, name: string | Uint8Array, members: AccessGroupMember[], operationType: number, signer = owner): TxnEnvelope =>
  txnOf(signer, { type: 'ACCESS_GROUP_MEMBERS', ownerPublicKey: owner, keyName: typeof name === 'string' ? utf8(name) : name, members, operationType });

const { ADD, REMOVE, UPDATE } = AccessGroupMemberOperation;

let store: MemoryStore;
let view: StateView;
let owner: Uint8Array;
let groupKey: Uint8Array;
beforeEach(() => {
  store = new MemoryStore();
  view = StateView.over(store);
  owner = key();
  groupKey = key();
});
afterEach(async () => {
  await store.close();
});

describe('transaction type table', () => {
  it('connects ACCESS_GROUP, ACCESS_GROUP_MEMBERS and NEW_MESSAGE', () => {
    for (const t of [TxnType.ACCESS_GROUP, TxnType.ACCESS_GROUP_MEMBERS, TxnType.NEW_MESSAGE]) assert.ok(TYPE_HANDLERS.has(t), `a handler for type ${t}`);
  });
});

describe('ACCESS_GROUP create', () => {
  it('registers (owner, padded name) with its access key and the transaction ExtraData', async () => {
    const extra: Array<[Uint8Array, Uint8Array]> = [[utf8('app'), utf8('chat')]];
    await connectAccessGroup(view, txnOf(owner, { type: 'ACCESS_GROUP', ownerPublicKey: owner, accessGroupPublicKey: groupKey, keyName: utf8('friends'), operationType: AccessGroupOperation.CREATE }, extra));
    const g = await getAccessGroup(view, groupId(owner, utf8('friends')));
    assert.ok(g, 'the group is stored');
    assert.equal(hex(g.accessGroupPublicKey), hex(groupKey));
    assert.equal(g.keyName.length, 32, 'the name is stored padded to 32 bytes');
    assert.equal(Buffer.from(trimGroupKeyName(g.keyName)).toString(), 'friends');
    assert.deepEqual(g.extraData, extra);
    assert.deepEqual((await registeredGroupKeyNames(view, owner)).map((n) => Buffer.from(trimGroupKeyName(n)).toString()), ['friends']);
  });

  it('lists the groups an owner registered in name byte order', async () => {
    for (const name of ['zeta', 'alpha', 'mid']) await connectAccessGroup(view, groupTxn(owner, name, key()));
    await store.commit(view.ops());
    assert.deepEqual((await registeredGroupKeyNames(store, owner)).map((n) => Buffer.from(trimGroupKeyName(n)).toString()), ['alpha', 'mid', 'zeta']);
  });

  it('knows the base group of every key without storing it: access key = owner key', async () => {
    const g = await getAccessGroup(view, groupId(owner, BASE));
    assert.ok(g, 'the base group exists');
    assert.equal(hex(g.accessGroupPublicKey), hex(owner));
    assert.deepEqual(await registeredGroupKeyNames(view, owner), [], 'the base group is not a registered group');
  });

  it('refuses an owner other than the transactor: RuleErrorAccessGroupOwnerPublicKeyCannotBeDifferent', async () => {
    await rejects(connectAccessGroup(view, groupTxn(owner, 'g', groupKey, AccessGroupOperation.CREATE, key())), 'RuleErrorAccessGroupOwnerPublicKeyCannotBeDifferent');
  });

  it('refuses an access key that is not a curve point: RuleErrorParsePublicKey', async () => {
    await rejects(connectAccessGroup(view, groupTxn(owner, 'g', NOT_A_POINT)), 'RuleErrorParsePublicKey');
  });

  it('refuses an empty name: RuleErrorAccessGroupKeyNameTooShort', async () => {
    await rejects(connectAccessGroup(view, groupTxn(owner, BASE, groupKey)), 'RuleErrorAccessGroupKeyNameTooShort');
  });

  it('refuses the owner key as access key: RuleErrorAccessPublicKeyCannotBeOwnerKey', async () => {
    await rejects(connectAccessGroup(view, groupTxn(owner, 'g', owner)), 'RuleErrorAccessPublicKeyCannotBeOwnerKey');
  });

  it('refuses the base group name (all zeros): RuleErrorAccessGroupsNameCannotBeZeros', async () => {
    await rejects(connectAccessGroup(view, groupTxn(owner, Uint8Array.of(0), groupKey)), 'RuleErrorAccessGroupsNameCannotBeZeros');
    await rejects(connectAccessGroup(view, groupTxn(owner, new Uint8Array(32), groupKey)), 'RuleErrorAccessGroupsNameCannotBeZeros');
  });

  it('refuses a group that exists (also under a zero-padded spelling): RuleErrorAccessGroupAlreadyExists', async () => {
    await connectAccessGroup(view, groupTxn(owner, 'g', groupKey));
    await rejects(connectAccessGroup(view, groupTxn(owner, 'g', key())), 'RuleErrorAccessGroupAlreadyExists');
    await rejects(connectAccessGroup(view, groupTxn(owner, Uint8Array.of(0x67, 0, 0), key())), 'RuleErrorAccessGroupAlreadyExists');
  });

  it('refuses operation types other than create and update: RuleErrorAccessGroupOperationTypeNotSupported', async () => {
    for (const op of [AccessGroupOperation.UNKNOWN, AccessGroupOperation.ANY, 4, 200]) {
      await rejects(connectAccessGroup(view, groupTxn(owner, 'g', groupKey, op)), 'RuleErrorAccessGroupOperationTypeNotSupported');
    }
  });

  it('leaves malformed metadata to the decoder (TxnDecodeError ⇒ RuleErrorTxnMetadataMalformed in connect)', async () => {
    const txn = groupTxn(owner, 'g', groupKey);
    await assert.rejects(connectAccessGroup(view, { ...txn, metadata: txn.metadata.subarray(0, 10) }), TxnDecodeError);
  });
});

describe('ACCESS_GROUP update', () => {
  it('replaces the access key and ExtraData of an existing group', async () => {
    await connectAccessGroup(view, txnOf(owner, { type: 'ACCESS_GROUP', ownerPublicKey: owner, accessGroupPublicKey: groupKey, keyName: utf8('g'), operationType: AccessGroupOperation.CREATE }, [[utf8('a'), utf8('1')]]));
    const next = key();
    await connectAccessGroup(view, groupTxn(owner, 'g', next, AccessGroupOperation.UPDATE));
    const g = await getAccessGroup(view, groupId(owner, utf8('g')));
    assert.equal(hex(g!.accessGroupPublicKey), hex(next));
    assert.deepEqual(g!.extraData, [], 'ExtraData is the update transaction’s');
  });

  it('refuses a group that does not exist: RuleErrorAccessGroupDoesNotExist', async () => {
    await rejects(connectAccessGroup(view, groupTxn(owner, 'g', groupKey, AccessGroupOperation.UPDATE)), 'RuleErrorAccessGroupDoesNotExist');
  });
});

describe('ACCESS_GROUP_MEMBERS add', () => {
  let bob: Uint8Array;
  let carol: Uint8Array;
  beforeEach(async () => {
    bob = key();
    carol = key();
    await connectAccessGroup(view, groupTxn(owner, 'g', groupKey));
  });

  it('adds members through their groups: record, members-of-group and groups-of-member indexes', async () => {
    await connectAccessGroup(view, groupTxn(carol, 'default-key', key()));
    const extra: Array<[Uint8Array, Uint8Array]> = [[utf8('role'), utf8('admin')]];
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob, Uint8Array.of(0), utf8('enc-bob')), member(carol, 'default-key', utf8('enc-carol'), extra)], ADD));
    const g = groupId(owner, utf8('g'));
    const b = await getAccessGroupMember(view, bob, g);
    assert.ok(b, 'bob is a member');
    assert.equal(Buffer.from(b.encryptedKey).toString(), 'enc-bob');
    assert.equal(hex(b.memberKeyName), '00'.repeat(32), 'through his base group');
    const c = await getAccessGroupMember(view, carol, g);
    assert.equal(Buffer.from(trimGroupKeyName(c!.memberKeyName)).toString(), 'default-key');
    assert.deepEqual(c!.extraData, extra);
    await store.commit(view.ops());
    const members = (await accessGroupMembersPage(store, g, { limit: 10 })).map(hex);
    assert.deepEqual(members, [hex(bob), hex(carol)].sort(), 'members by public key bytes');
    assert.deepEqual((await groupsWithMember(store, bob)).map((x) => [hex(x.owner), Buffer.from(trimGroupKeyName(x.keyName)).toString()]), [[hex(owner), 'g']]);
  });

  it('lets the owner be a member through another of its groups', async () => {
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(owner, Uint8Array.of(0))], ADD));
    assert.ok(await getAccessGroupMember(view, owner, groupId(owner, utf8('g'))), 'the owner is a member via its base group');
  });

  it('pages members by public key, start key exclusive', async () => {
    const keys = Array.from({ length: 25 }, key);
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', keys.map((k) => member(k)), ADD));
    await store.commit(view.ops());
    const g = groupId(owner, utf8('g'));
    const seen: string[] = [];
    let after: Uint8Array | undefined;
    for (;;) {
      const page = await accessGroupMembersPage(store, g, { limit: 10, ...(after ? { after } : {}) });
      if (page.length === 0) break;
      assert.ok(page.length <= 10, 'at most the page size');
      seen.push(...page.map(hex));
      after = page[page.length - 1];
    }
    assert.deepEqual(seen, keys.map(hex).sort(), 'every member once, ascending');
  });

  it('refuses a transactor other than the owner: RuleErrorAccessGroupMemberPublicKeyCannotBeDifferent', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob)], ADD, bob)), 'RuleErrorAccessGroupMemberPublicKeyCannotBeDifferent');
  });

  it('refuses members for the base group: RuleErrorAccessGroupsNameCannotBeZeros', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, BASE, [member(bob)], ADD)), 'RuleErrorAccessGroupsNameCannotBeZeros');
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, Uint8Array.of(0), [member(bob)], ADD)), 'RuleErrorAccessGroupsNameCannotBeZeros');
  });

  it('refuses an empty member list: RuleErrorAccessGroupMembersListCannotBeEmpty', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [], ADD)), 'RuleErrorAccessGroupMembersListCannotBeEmpty');
  });

  it('refuses a group that was never registered: RuleErrorAccessGroupDoesntExist', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'other', [member(bob)], ADD)), 'RuleErrorAccessGroupDoesntExist');
  });

  it('refuses the owner through the same group: RuleErrorAccessGroupMemberCantAddOwnerBySameGroup', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(owner, 'g')], ADD)), 'RuleErrorAccessGroupMemberCantAddOwnerBySameGroup');
  });

  it('refuses a member key that is not a curve point: RuleErrorParsePublicKey', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(NOT_A_POINT)], ADD)), 'RuleErrorParsePublicKey');
  });

  it('refuses an empty member key name: RuleErrorAccessGroupKeyNameTooShort', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob, BASE)], ADD)), 'RuleErrorAccessGroupKeyNameTooShort');
  });

  it('refuses a member listed twice: RuleErrorAccessGroupMemberListDuplicateMember', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob), member(bob, Uint8Array.of(0), utf8('again'))], ADD)), 'RuleErrorAccessGroupMemberListDuplicateMember');
  });

  it('refuses a member group that does not exist: RuleErrorAccessGroupDoesntExist', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob, 'not-registered')], ADD)), 'RuleErrorAccessGroupDoesntExist');
  });

  it('refuses a key that is already a member: RuleErrorAccessMemberAlreadyExists', async () => {
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob)], ADD));
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob)], ADD)), 'RuleErrorAccessMemberAlreadyExists');
  });

  it('refuses unknown operation types: RuleErrorAccessGroupMemberOperationTypeNotSupported', async () => {
    for (const op of [0, 1, 5]) await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob)], op)), 'RuleErrorAccessGroupMemberOperationTypeNotSupported');
  });
});

describe('owned and member group listings (read-route accessors)', () => {
  it('lists the base group first, then registered groups; memberships with their group and record', async () => {
    const bob = key();
    for (const name of ['b-group', 'a-group']) await connectAccessGroup(view, groupTxn(owner, name, key()));
    await connectAccessGroupMembers(view, membersTxn(owner, 'b-group', [member(bob, Uint8Array.of(0), utf8('sealed-b'))], ADD));
    await store.commit(view.ops());
    const owned = await ownedAccessGroups(store, owner);
    assert.deepEqual(owned.map((g) => Buffer.from(trimGroupKeyName(g.keyName)).toString()), ['', 'a-group', 'b-group']);
    assert.equal(hex(owned[0]!.accessGroupPublicKey), hex(owner), 'the base group’s access key is the owner key');
    const memberOf = await memberAccessGroups(store, bob);
    assert.equal(memberOf.length, 1);
    assert.equal(Buffer.from(trimGroupKeyName(memberOf[0]!.group.keyName)).toString(), 'b-group');
    assert.equal(Buffer.from(memberOf[0]!.membership.encryptedKey).toString(), 'sealed-b');
    assert.deepEqual(await memberAccessGroups(store, owner), [], 'owning is not membership');
  });
});

describe('ACCESS_GROUP_MEMBERS remove', () => {
  let bob: Uint8Array;
  beforeEach(async () => {
    bob = key();
    await connectAccessGroup(view, groupTxn(owner, 'g', groupKey));
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob)], ADD));
  });

  it('deletes the membership and both index entries', async () => {
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob, Uint8Array.of(0), new Uint8Array(0))], REMOVE));
    const g = groupId(owner, utf8('g'));
    assert.equal(await getAccessGroupMember(view, bob, g), undefined, 'no membership left');
    await store.commit(view.ops());
    assert.deepEqual(await accessGroupMembersPage(store, g, { limit: 10 }), []);
    assert.deepEqual(await groupsWithMember(store, bob), []);
  });

  it('refuses an EncryptedKey: RuleErrorAccessGroupMemberRemoveEncryptedKeyNotEmpty', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob)], REMOVE)), 'RuleErrorAccessGroupMemberRemoveEncryptedKeyNotEmpty');
  });

  it('refuses ExtraData: RuleErrorAccessGroupMemberRemoveExtraDataNotEmpty', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob, Uint8Array.of(0), new Uint8Array(0), [[utf8('k'), utf8('v')]])], REMOVE)), 'RuleErrorAccessGroupMemberRemoveExtraDataNotEmpty');
  });

  it('refuses a key that is not a member: RuleErrorAccessGroupMemberDoesntExistOrIsDeleted', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(key(), Uint8Array.of(0), new Uint8Array(0))], REMOVE)), 'RuleErrorAccessGroupMemberDoesntExistOrIsDeleted');
  });
});

describe('ACCESS_GROUP_MEMBERS update', () => {
  let bob: Uint8Array;
  beforeEach(async () => {
    bob = key();
    await connectAccessGroup(view, groupTxn(owner, 'g', groupKey));
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob, Uint8Array.of(0), utf8('old'), [[utf8('k'), utf8('v')]])], ADD));
  });

  it('replaces EncryptedKey and ExtraData (no merge)', async () => {
    await connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(bob, Uint8Array.of(0), utf8('new'))], UPDATE));
    const m = await getAccessGroupMember(view, bob, groupId(owner, utf8('g')));
    assert.equal(Buffer.from(m!.encryptedKey).toString(), 'new');
    assert.deepEqual(m!.extraData, []);
  });

  it('refuses a key that is not a member: RuleErrorAccessGroupMemberDoesntExistOrIsDeleted', async () => {
    await rejects(connectAccessGroupMembers(view, membersTxn(owner, 'g', [member(key())], UPDATE)), 'RuleErrorAccessGroupMemberDoesntExistOrIsDeleted');
  });
});
