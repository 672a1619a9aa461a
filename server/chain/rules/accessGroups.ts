/**
 * Rules of ACCESS_GROUP and ACCESS_GROUP_MEMBERS (reference node-api.md §8; core
 * `_connectAccessGroup`, `_connectAccessGroupMembers`), checked in core's order so the first
 * broken rule names the same RuleError as core.
 *
 * A group is (owner, 32-byte padded name). The all-zero name is the base group: it exists for
 * every key with the owner key as its access key, and can be neither registered nor given
 * members. Only the owner registers, updates and manages the members of its groups.
 * @module
 */
import { isValidCompressedPoint, PUBLIC_KEY_LENGTH } from '../../keys/index.js';
import {
  accessGroupExists,
  getAccessGroup,
  deleteAccessGroupMember,
  getAccessGroupMember,
  GROUP_KEY_NAME_BYTES,
  groupId,
  isBaseGroupKeyName,
  MIN_GROUP_KEY_NAME_BYTES,
  padGroupKeyName,
  putAccessGroup,
  putAccessGroupMember,
} from '../state/accessGroups.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import {
  AccessGroupMemberOperation,
  AccessGroupOperation,
  decodeMetadata,
  TxnType,
  type AccessGroupMembersMetadata,
  type AccessGroupMetadata,
} from '../txn/metadata.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';
import { toHex } from '../../hex.js';

const hex = toHex;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/** Core IsByteArrayValidPublicKey: 33 bytes that parse as a secp256k1 point. */
export function checkPublicKey(pk: Uint8Array, what: string): void {
  if (pk.length !== PUBLIC_KEY_LENGTH) throw new RuleError('RuleErrorPubKeyLen', `${what} has ${pk.length} bytes, expected ${PUBLIC_KEY_LENGTH}`);
  if (!isValidCompressedPoint(pk)) throw new RuleError('RuleErrorParsePublicKey', `${what} ${hex(pk)} is not a secp256k1 point`);
}

/** Core ValidateAccessGroupPublicKeyAndName's name part: 1..32 raw bytes. */
export function checkKeyNameLength(raw: Uint8Array, what: string): void {
  if (raw.length < MIN_GROUP_KEY_NAME_BYTES) {
    throw new RuleError('RuleErrorAccessGroupKeyNameTooShort', `${what}: too few characters in key name: min = ${MIN_GROUP_KEY_NAME_BYTES}, provided = ${raw.length}`);
  }
  if (raw.length > GROUP_KEY_NAME_BYTES) {
    throw new RuleError('RuleErrorAccessGroupKeyNameTooLong', `${what}: too many characters in key name: max = ${GROUP_KEY_NAME_BYTES}; provided = ${raw.length}`);
  }
}

/** ACCESS_GROUP: register (CREATE) or replace (UPDATE) a group of the transactor. */
export async function connectAccessGroup(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeMetadata(TxnType.ACCESS_GROUP, txn.metadata) as AccessGroupMetadata;
  if (!sameBytes(txn.publicKey, m.ownerPublicKey)) {
    throw new RuleError('RuleErrorAccessGroupOwnerPublicKeyCannotBeDifferent', `owner ${hex(m.ownerPublicKey)} is not the transactor ${hex(txn.publicKey)}`);
  }
  checkPublicKey(m.accessGroupPublicKey, 'access group public key');
  checkKeyNameLength(m.keyName, 'access group key name');
  // The owner key is the base group's access key; a registered group needs its own.
  if (sameBytes(m.accessGroupPublicKey, txn.publicKey)) {
    throw new RuleError('RuleErrorAccessPublicKeyCannotBeOwnerKey', 'the access group public key is the owner key, which only the base group uses');
  }
  if (isBaseGroupKeyName(m.keyName)) throw new RuleError('RuleErrorAccessGroupsNameCannotBeZeros', 'an all-zero key name is the base group, which cannot be registered');

  const g = groupId(m.ownerPublicKey, m.keyName);
  const existing = await getAccessGroup(view, g);
  switch (m.operationType) {
    case AccessGroupOperation.CREATE:
      if (existing !== undefined) throw new RuleError('RuleErrorAccessGroupAlreadyExists', `access group ${hex(g.owner)}/${hex(m.keyName)} already exists`);
      break;
    case AccessGroupOperation.UPDATE:
      if (existing === undefined) throw new RuleError('RuleErrorAccessGroupDoesNotExist', `access group ${hex(g.owner)}/${hex(m.keyName)} does not exist`);
      break;
    default:
      throw new RuleError('RuleErrorAccessGroupOperationTypeNotSupported', `operation type ${m.operationType}`);
  }
  putAccessGroup(view, { ownerPublicKey: g.owner, keyName: g.keyName, accessGroupPublicKey: m.accessGroupPublicKey, extraData: txn.extraData });
}

/** ACCESS_GROUP_MEMBERS: add, remove or update members of a group of the transactor. */
export async function connectAccessGroupMembers(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeMetadata(TxnType.ACCESS_GROUP_MEMBERS, txn.metadata) as AccessGroupMembersMetadata;
  if (!sameBytes(txn.publicKey, m.ownerPublicKey)) {
    throw new RuleError('RuleErrorAccessGroupMemberPublicKeyCannotBeDifferent', `owner ${hex(m.ownerPublicKey)} is not the transactor ${hex(txn.publicKey)}`);
  }
  if (isBaseGroupKeyName(m.keyName)) throw new RuleError('RuleErrorAccessGroupsNameCannotBeZeros', 'the base group has no members');
  if (m.members.length === 0) throw new RuleError('RuleErrorAccessGroupMembersListCannotBeEmpty', 'the member list is empty');
  if (m.keyName.length > GROUP_KEY_NAME_BYTES || !(await accessGroupExists(view, groupId(m.ownerPublicKey, m.keyName)))) {
    throw new RuleError('RuleErrorAccessGroupDoesntExist', `access group ${hex(m.ownerPublicKey)}/${hex(m.keyName)} does not exist`);
  }
  const g = groupId(m.ownerPublicKey, m.keyName);

  const seen = new Set<string>();
  for (const member of m.members) {
    // Owner in its own group through that same group would make membership recursive.
    if (sameBytes(member.memberPublicKey, g.owner) && sameBytes(padGroupKeyName(member.memberKeyName), g.keyName)) {
      throw new RuleError('RuleErrorAccessGroupMemberCantAddOwnerBySameGroup', 'the owner cannot be a member of a group through that same group');
    }
    checkPublicKey(member.memberPublicKey, 'member public key');
    checkKeyNameLength(member.memberKeyName, 'member key name');
    const key = hex(member.memberPublicKey);
    if (seen.has(key)) throw new RuleError('RuleErrorAccessGroupMemberListDuplicateMember', `member ${key} appears more than once`);
    seen.add(key);
  }
  for (const member of m.members) {
    if (!(await accessGroupExists(view, groupId(member.memberPublicKey, member.memberKeyName)))) {
      throw new RuleError('RuleErrorAccessGroupDoesntExist', `member group ${hex(member.memberPublicKey)}/${hex(member.memberKeyName)} does not exist`);
    }
  }

  switch (m.operationType) {
    case AccessGroupMemberOperation.ADD:
      for (const member of m.members) {
        if ((await getAccessGroupMember(view, member.memberPublicKey, g)) !== undefined) {
          throw new RuleError('RuleErrorAccessMemberAlreadyExists', `${hex(member.memberPublicKey)} is already a member`);
        }
        putAccessGroupMember(view, g, { memberPublicKey: member.memberPublicKey, memberKeyName: padGroupKeyName(member.memberKeyName), encryptedKey: member.encryptedKey, extraData: member.extraData });
      }
      return;
    case AccessGroupMemberOperation.REMOVE:
      for (const member of m.members) {
        if (member.encryptedKey.length !== 0) throw new RuleError('RuleErrorAccessGroupMemberRemoveEncryptedKeyNotEmpty', `member ${hex(member.memberPublicKey)} has ${member.encryptedKey.length} bytes of EncryptedKey`);
        if (member.extraData.length !== 0) throw new RuleError('RuleErrorAccessGroupMemberRemoveExtraDataNotEmpty', `member ${hex(member.memberPublicKey)} has ${member.extraData.length} ExtraData entries`);
        if ((await getAccessGroupMember(view, member.memberPublicKey, g)) === undefined) {
          throw new RuleError('RuleErrorAccessGroupMemberDoesntExistOrIsDeleted', `${hex(member.memberPublicKey)} is not a member`);
        }
        deleteAccessGroupMember(view, g, member.memberPublicKey);
      }
      return;
    case AccessGroupMemberOperation.UPDATE:
      for (const member of m.members) {
        if ((await getAccessGroupMember(view, member.memberPublicKey, g)) === undefined) {
          throw new RuleError('RuleErrorAccessGroupMemberDoesntExistOrIsDeleted', `${hex(member.memberPublicKey)} is not a member`);
        }
        // Core replaces the whole entry, ExtraData included (no merge).
        putAccessGroupMember(view, g, { memberPublicKey: member.memberPublicKey, memberKeyName: padGroupKeyName(member.memberKeyName), encryptedKey: member.encryptedKey, extraData: member.extraData });
      }
      return;
    default:
      throw new RuleError('RuleErrorAccessGroupMemberOperationTypeNotSupported', `operation type ${m.operationType}`);
  }
}

export const accessGroupHandlers: readonly HandlerEntry[] = [
  [TxnType.ACCESS_GROUP, (view, txn) => connectAccessGroup(view, txn)],
  [TxnType.ACCESS_GROUP_MEMBERS, (view, txn) => connectAccessGroupMembers(view, txn)],
];
