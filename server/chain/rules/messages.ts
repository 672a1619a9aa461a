/**
 * Rules of NEW_MESSAGE (reference node-api.md §8; core `_connectNewMessage`), in core's order.
 *
 * A message goes from the sender's group to the recipient's group; both must exist (the base
 * group always does). The access public keys a message names are not checked against those
 * groups: they only tell readers which keys encrypted it. TimestampNanos is chosen by the
 * client and keys the message: a DM under the thread's ordered pair, a group-chat message
 * under the recipient group.
 *
 * As in core, an update replaces whatever message sits at that key: either side of a DM thread,
 * and any sender whose groups exist in a group chat, may replace its text.
 * @module
 */
import { isValidCompressedPoint } from '../../keys/index.js';
import { accessGroupExists, getAccessGroupMember, groupId, type GroupId } from '../state/accessGroups.js';
import {
  getDmMessage,
  getGroupChatMessage,
  MAX_NEW_MESSAGE_LENGTH_BYTES,
  putDmMessage,
  putGroupChatMessage,
  type NewMessageRecord,
} from '../state/messages.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { TxnDecodeError } from '../txn/errors.js';
import { decodeMetadata, NewMessageOperation, NewMessageType, TxnType, type NewMessageMetadata } from '../txn/metadata.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';
import { toHex } from '../../hex.js';

const hex = toHex;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/** Core's NewMessageMetadata decoder refuses keys that are not curve points. */
function decodeNewMessage(bytes: Uint8Array): NewMessageMetadata {
  const m = decodeMetadata(TxnType.NEW_MESSAGE, bytes) as NewMessageMetadata;
  const keys: Array<[string, Uint8Array]> = [
    ['senderAccessGroupOwnerPublicKey', m.senderAccessGroupOwnerPublicKey],
    ['senderAccessGroupPublicKey', m.senderAccessGroupPublicKey],
    ['recipientAccessGroupOwnerPublicKey', m.recipientAccessGroupOwnerPublicKey],
    ['recipientAccessGroupPublicKey', m.recipientAccessGroupPublicKey],
  ];
  for (const [field, pk] of keys) if (!isValidCompressedPoint(pk)) throw new TxnDecodeError(`NEW_MESSAGE.${field}: not a secp256k1 point`);
  return m;
}

async function requireGroup(view: StateView, g: GroupId, side: string): Promise<void> {
  // Core wraps a plain error here; the member rules name the same condition this way.
  if (!(await accessGroupExists(view, g))) throw new RuleError('RuleErrorAccessGroupDoesntExist', `${side} access group ${hex(g.owner)}/${hex(g.keyName)} does not exist`);
}

export async function connectNewMessage(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeNewMessage(txn.metadata);
  if (m.encryptedText.length > MAX_NEW_MESSAGE_LENGTH_BYTES) {
    throw new RuleError('RuleErrorNewMessageEncryptedTextLengthExceedsMax', `EncryptedText has ${m.encryptedText.length} bytes, the maximum is ${MAX_NEW_MESSAGE_LENGTH_BYTES}`);
  }
  if (!sameBytes(m.senderAccessGroupOwnerPublicKey, txn.publicKey)) {
    throw new RuleError('RuleErrorNewMessageMessageSenderDoesNotMatchTxnPublicKey', `sender ${hex(m.senderAccessGroupOwnerPublicKey)} is not the transactor ${hex(txn.publicKey)}`);
  }
  const sender = groupId(m.senderAccessGroupOwnerPublicKey, m.senderAccessGroupKeyName);
  const recipient = groupId(m.recipientAccessGroupOwnerPublicKey, m.recipientAccessGroupKeyName);
  await requireGroup(view, sender, 'sender');
  await requireGroup(view, recipient, 'recipient');

  if (m.newMessageOperation !== NewMessageOperation.CREATE && m.newMessageOperation !== NewMessageOperation.UPDATE) {
    throw new RuleError('RuleErrorNewMessageUnknownOperationType', `operation ${m.newMessageOperation}`);
  }
  if (m.timestampNanos === 0n) throw new RuleError('RuleErrorNewMessageTimestampNanosCannotBeZero', 'TimestampNanos is 0');
  const record: NewMessageRecord = {
    senderAccessGroupOwnerPublicKey: sender.owner,
    senderAccessGroupKeyName: sender.keyName,
    senderAccessGroupPublicKey: m.senderAccessGroupPublicKey,
    recipientAccessGroupOwnerPublicKey: recipient.owner,
    recipientAccessGroupKeyName: recipient.keyName,
    recipientAccessGroupPublicKey: m.recipientAccessGroupPublicKey,
    encryptedText: m.encryptedText,
    timestampNanos: m.timestampNanos,
    extraData: txn.extraData,
  };
  const create = m.newMessageOperation === NewMessageOperation.CREATE;
  switch (m.newMessageType) {
    case NewMessageType.DM:
      return connectDm(view, record, create);
    case NewMessageType.GROUP_CHAT:
      return connectGroupChat(view, record, create);
    default:
      throw new RuleError('RuleErrorNewMessageUnknownMessageType', `message type ${m.newMessageType}`);
  }
}

async function connectDm(view: StateView, m: NewMessageRecord, create: boolean): Promise<void> {
  const sender = groupId(m.senderAccessGroupOwnerPublicKey, m.senderAccessGroupKeyName);
  const recipient = groupId(m.recipientAccessGroupOwnerPublicKey, m.recipientAccessGroupKeyName);
  if (sameBytes(sender.owner, recipient.owner)) {
    throw new RuleError('RuleErrorNewMessageDmSenderAndRecipientCannotBeTheSame', `sender and recipient are both ${hex(sender.owner)}`);
  }
  const existing = await getDmMessage(view, sender, recipient, m.timestampNanos);
  if (create && existing !== undefined) {
    throw new RuleError('RuleErrorNewMessageDmMessageAlreadyExists', `the thread already has a message at TimestampNanos ${m.timestampNanos}`);
  }
  if (!create && existing === undefined) {
    throw new RuleError('RuleErrorNewMessageDmMessageDoesNotExist', `the thread has no message at TimestampNanos ${m.timestampNanos}`);
  }
  putDmMessage(view, m);
}

async function connectGroupChat(view: StateView, m: NewMessageRecord, create: boolean): Promise<void> {
  const group = groupId(m.recipientAccessGroupOwnerPublicKey, m.recipientAccessGroupKeyName);
  const existing = await getGroupChatMessage(view, group, m.timestampNanos);
  if (create) {
    if (existing !== undefined) throw new RuleError('RuleErrorNewMessageGroupChatMessageAlreadyExists', `the group chat already has a message at TimestampNanos ${m.timestampNanos}`);
    // The owner may post from any of its groups; anyone else must be a member.
    if (!sameBytes(m.senderAccessGroupOwnerPublicKey, group.owner) && (await getAccessGroupMember(view, m.senderAccessGroupOwnerPublicKey, group)) === undefined) {
      throw new RuleError('RuleErrorNewMessageGroupChatMemberEntryDoesntExist', `${hex(m.senderAccessGroupOwnerPublicKey)} is not a member of the group chat`);
    }
  } else if (existing === undefined) {
    throw new RuleError('RuleErrorNewMessageGroupChatMessageDoesNotExist', `the group chat has no message at TimestampNanos ${m.timestampNanos}`);
  }
  putGroupChatMessage(view, m);
}

export const messageHandlers: readonly HandlerEntry[] = [[TxnType.NEW_MESSAGE, (view, txn) => connectNewMessage(view, txn)]];
