/**
 * Rules of MESSAGING_GROUP (core `_connectMessagingGroup`, lib/block_view_message.go), in
 * core's order so the first broken rule names the same RuleError as core, with every fork
 * active (the dev chain's heights). The legacy messaging keys live in their own state
 * (state/messagingGroups.ts), as in core: access groups neither see nor satisfy them.
 *
 * A transaction registers the messaging key `MessagingPublicKey` under (transactor, name), or
 * adds members to a group registered so: the key can never change, members are only added
 * (never removed or updated), and each member names one of its own messaging keys (the base
 * key, all-zero name, always exists) that its encrypted copy of the group key is addressed to.
 * A messaging key equal to the curve's base point G registers an unencrypted group instead:
 * owned by G, its messaging key derived from the name (private key sha256d(name)), so anyone
 * can find and join it.
 *
 * Before core's DeSoUnlimitedDerivedKeys fork, registering `default-key` also needed the owner's
 * signature over sha256d(key ‖ name) (`GroupOwnerSignature`); that fork is active from genesis
 * on this chain, so the field is carried and not checked.
 * @module
 */
import { getPublicKey } from '../../../wasm/secp256k1.js';
import { sha256d } from '../../../wasm/hash.js';
import { toHex } from '../../hex.js';
import { isBaseGroupKeyName, padGroupKeyName, type GroupId } from '../state/accessGroups.js';
import { getMessagingGroup, putMessagingGroup, type MessagingGroupMemberRecord } from '../state/messagingGroups.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { GROUP_KEY_NAME_BYTES } from '../txn/sizes.js';
import { decodeMetadata, TxnType, type MessagingGroupMetadata } from '../txn/metadata.js';
import { checkPublicKey } from './accessGroups.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';
import { mergeExtraData } from './profiles.js';

const hex = toHex;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/** Core MinMessagingKeyNameCharacters / MaxMessagingKeyNameCharacters. */
export const MIN_MESSAGING_KEY_NAME_BYTES = 1;
export const MAX_MESSAGING_KEY_NAME_BYTES = GROUP_KEY_NAME_BYTES;
/** Core btcec.PrivKeyBytesLen: a member's encrypted key is at least a private key long. */
export const MIN_ENCRYPTED_KEY_BYTES = 32;

/** The secp256k1 base point G, compressed (core GetS256BasePointCompressed): the owner of unencrypted groups. */
export const BASE_POINT_COMPRESSED = new Uint8Array(Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex'));
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Core ValidateGroupPublicKeyAndName: a valid public key and a 1..32-byte name. */
export function checkMessagingKeyAndName(messagingPublicKey: Uint8Array, keyName: Uint8Array, what: string): void {
  checkPublicKey(messagingPublicKey, `${what} messaging public key`);
  if (keyName.length < MIN_MESSAGING_KEY_NAME_BYTES) {
    throw new RuleError('RuleErrorMessagingKeyNameTooShort', `${what}: too few characters in key name: min = ${MIN_MESSAGING_KEY_NAME_BYTES}, provided = ${keyName.length}`);
  }
  if (keyName.length > MAX_MESSAGING_KEY_NAME_BYTES) {
    throw new RuleError('RuleErrorMessagingKeyNameTooLong', `${what}: too many characters in key name: max = ${MAX_MESSAGING_KEY_NAME_BYTES}; provided = ${keyName.length}`);
  }
}

/** The messaging key of the unencrypted group `name`: the public key of sha256d(name) (mod n, as btcec reads it). */
export function unencryptedGroupMessagingKey(name: Uint8Array): Uint8Array {
  const k = BigInt(`0x${hex(sha256d(name))}`) % CURVE_ORDER;
  return getPublicKey(new Uint8Array(Buffer.from(k.toString(16).padStart(64, '0'), 'hex')));
}

/** Where a MESSAGING_GROUP transaction's entry lives and which messaging key it holds. */
export function messagingGroupTarget(transactor: Uint8Array, m: MessagingGroupMetadata): { group: GroupId; messagingPublicKey: Uint8Array } {
  const keyName = padGroupKeyName(m.messagingGroupKeyName);
  if (sameBytes(m.messagingPublicKey, BASE_POINT_COMPRESSED)) {
    return { group: { owner: BASE_POINT_COMPRESSED, keyName }, messagingPublicKey: unencryptedGroupMessagingKey(m.messagingGroupKeyName) };
  }
  return { group: { owner: transactor, keyName }, messagingPublicKey: m.messagingPublicKey };
}

export async function connectMessagingGroup(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeMetadata(TxnType.MESSAGING_GROUP, txn.metadata) as MessagingGroupMetadata;
  // Core pads (or cuts) the name to 32 bytes first: an empty or all-zero name is the base key's.
  if (isBaseGroupKeyName(padGroupKeyName(m.messagingGroupKeyName))) {
    throw new RuleError('RuleErrorMessagingKeyNameCannotBeZeros', 'an all-zero key name is the base messaging key, which cannot be registered');
  }
  checkMessagingKeyAndName(m.messagingPublicKey, m.messagingGroupKeyName, 'group');
  try {
    checkPublicKey(txn.publicKey, 'transactor public key');
  } catch (e) {
    throw new RuleError('RuleErrorMessagingOwnerPublicKeyInvalid', e instanceof Error ? e.message : String(e));
  }
  if (sameBytes(m.messagingPublicKey, txn.publicKey)) {
    throw new RuleError('RuleErrorMessagingPublicKeyCannotBeOwnerKey', 'the messaging public key is the owner key, which only the base messaging key uses');
  }

  const { group, messagingPublicKey } = messagingGroupTarget(txn.publicKey, m);
  const existing = await getMessagingGroup(view, group);
  if (existing !== undefined && !sameBytes(existing.messagingPublicKey, messagingPublicKey)) {
    throw new RuleError('RuleErrorMessagingPublicKeyCannotBeDifferent', `group ${hex(group.owner)}/${hex(m.messagingGroupKeyName)} holds messaging key ${hex(existing.messagingPublicKey)}`);
  }

  // The group's own messaging key can never be a member.
  const seen = new Set<string>([hex(messagingPublicKey)]);
  const members: MessagingGroupMemberRecord[] = [];
  if (existing !== undefined) {
    if (m.members.length === 0) throw new RuleError('RuleErrorMessagingKeyDoesntAddMembers', 'a registered messaging key can only be sent again to add members');
    for (const member of existing.members) {
      const key = hex(member.memberPublicKey);
      if (seen.has(key)) throw new RuleError('RuleErrorMessagingMemberAlreadyExists', `member ${key} already exists`);
      seen.add(key);
      members.push(member);
    }
  }
  const added: MessagingGroupMemberRecord[] = [];
  for (const member of m.members) {
    if (member.encryptedKey.length < MIN_ENCRYPTED_KEY_BYTES) {
      throw new RuleError(
        'RuleErrorMessagingMemberEncryptedKeyTooShort',
        `member ${hex(member.groupMemberPublicKey)}: encrypted key has ${member.encryptedKey.length} bytes, at least ${MIN_ENCRYPTED_KEY_BYTES} (${MIN_ENCRYPTED_KEY_BYTES} zeros for an unencrypted group)`,
      );
    }
    // The member's name is checked as core checks it: padded to 32 bytes (always long enough).
    checkMessagingKeyAndName(member.groupMemberPublicKey, padGroupKeyName(member.groupMemberKeyName), 'member');
    if ((await getMessagingGroup(view, { owner: member.groupMemberPublicKey, keyName: padGroupKeyName(member.groupMemberKeyName) })) === undefined) {
      throw new RuleError('RuleErrorMessagingMemberKeyDoesntExist', `member ${hex(member.groupMemberPublicKey)} has no messaging key ${hex(member.groupMemberKeyName)}`);
    }
    const key = hex(member.groupMemberPublicKey);
    if (seen.has(key)) throw new RuleError('RuleErrorMessagingMemberAlreadyExists', `member ${key} already exists`);
    seen.add(key);
    const record = { memberPublicKey: member.groupMemberPublicKey, memberKeyName: padGroupKeyName(member.groupMemberKeyName), encryptedKey: member.encryptedKey };
    members.push(record);
    added.push(record);
  }

  putMessagingGroup(
    view,
    { ownerPublicKey: group.owner, keyName: group.keyName, messagingPublicKey, members, extraData: mergeExtraData(existing?.extraData ?? [], txn.extraData) },
    added,
  );
}

export const messagingGroupHandlers: readonly HandlerEntry[] = [[TxnType.MESSAGING_GROUP, (view, txn) => connectMessagingGroup(view, txn)]];
