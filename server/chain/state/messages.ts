/**
 * NEW_MESSAGE state (reference node-api.md §8): direct messages and group-chat messages, stored
 * for the reads of §2.2 without scans:
 *
 * | key                                          | holds                                             |
 * |----------------------------------------------|---------------------------------------------------|
 * | `chain:dm:<minor>:<major>:<ts>`              | NewMessageRecord of a DM                          |
 * | index `chain:dm-msgs:<minor>:<major>`        | `<ts>` of every message of the DM thread          |
 * | index `chain:dm-threads:<user owner>`        | `<user name>:<party>`: the user's DM thread rows  |
 * | `chain:gc:<group>:<ts>`                      | NewMessageRecord of a group-chat message          |
 * | index `chain:gc-msgs:<group>`                | `<ts>` of every message of the group chat         |
 *
 * `<minor>`/`<major>`/`<party>`/`<group>` are group ids as `groupIdText` (fixed-width hex of owner
 * and padded name). A DM thread is stored once under its ordered pair (minor = the smaller of
 * `owner‖name`), and listed for both sides through one thread row each. `<ts>` is the u64
 * TimestampNanos as 16 hex digits, so index order is time order and a page of older messages is
 * one `indexRange({ lt, reverse, limit })`.
 *
 * The group chats a user takes part in follow from the groups they own (base group included)
 * and belong to (accessGroups.ts indexes), narrowed to groups whose chat has a message; deriving
 * them keeps later membership changes right without rewriting per-user rows.
 * @module
 */
import type { IndexRange } from '../../store/types.js';
import {
  GROUP_KEY_NAME_BYTES,
  groupIdText,
  groupsWithMember,
  padGroupKeyName,
  parseGroupIdText,
  registeredGroupKeyNames,
  type GroupId,
  type StateIndexReader,
} from './accessGroups.js';
import { toHex } from '../../hex.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

/** Core MaxNewMessageLengthBytes: the longest EncryptedText a NEW_MESSAGE may carry. */
export const MAX_NEW_MESSAGE_LENGTH_BYTES = 10_000;

const U64_MAX = (1n << 64n) - 1n;

export interface NewMessageRecord {
  senderAccessGroupOwnerPublicKey: Uint8Array;
  /** 32 bytes, zero-padded. */
  senderAccessGroupKeyName: Uint8Array;
  senderAccessGroupPublicKey: Uint8Array;
  recipientAccessGroupOwnerPublicKey: Uint8Array;
  /** 32 bytes, zero-padded. */
  recipientAccessGroupKeyName: Uint8Array;
  recipientAccessGroupPublicKey: Uint8Array;
  encryptedText: Uint8Array;
  timestampNanos: bigint;
  /** The ExtraData of the transaction that sent or last updated the message. */
  extraData: Array<[Uint8Array, Uint8Array]>;
}

/** One DM thread as one side sees it. */
export interface DmThread {
  user: GroupId;
  party: GroupId;
}

/** u64 nanoseconds as 16 hex digits: string order = numeric order. */
export function timestampText(nanos: bigint): string {
  return nanos.toString(16).padStart(16, '0');
}

/** The DM thread's storage pair: the two group ids ordered by `owner‖name` bytes. */
export function dmPair(a: GroupId, b: GroupId): string {
  const [x, y] = [groupIdText(a), groupIdText(b)];
  return x < y ? `${x}:${y}` : `${y}:${x}`;
}

export const messageKeys = {
  dm: (a: GroupId, b: GroupId, ts: bigint): string => `chain:dm:${dmPair(a, b)}:${timestampText(ts)}`,
  dmIndex: (a: GroupId, b: GroupId): string => `chain:dm-msgs:${dmPair(a, b)}`,
  dmThreads: (userOwner: Uint8Array): string => `chain:dm-threads:${toHex(userOwner)}`,
  groupChat: (g: GroupId, ts: bigint): string => `chain:gc:${groupIdText(g)}:${timestampText(ts)}`,
  groupChatIndex: (g: GroupId): string => `chain:gc-msgs:${groupIdText(g)}`,
};

export function senderGroup(m: NewMessageRecord): GroupId {
  return { owner: m.senderAccessGroupOwnerPublicKey, keyName: padGroupKeyName(m.senderAccessGroupKeyName) };
}

export function recipientGroup(m: NewMessageRecord): GroupId {
  return { owner: m.recipientAccessGroupOwnerPublicKey, keyName: padGroupKeyName(m.recipientAccessGroupKeyName) };
}

// --- DMs --------------------------------------------------------------------------------------

export async function getDmMessage(state: StateReader, a: GroupId, b: GroupId, ts: bigint): Promise<NewMessageRecord | undefined> {
  return state.get<NewMessageRecord>(messageKeys.dm(a, b, ts));
}

/**
 * Stores a DM (new, or replacing the one with the same pair and timestamp) and, for a new one,
 * the thread row of each side.
 */
export function putDmMessage(view: StateView, m: NewMessageRecord): void {
  const sender = senderGroup(m);
  const recipient = recipientGroup(m);
  view.set(messageKeys.dm(sender, recipient, m.timestampNanos), m);
  view.indexAdd(messageKeys.dmIndex(sender, recipient), [timestampText(m.timestampNanos)]);
  view.indexAdd(messageKeys.dmThreads(sender.owner), [threadRow(sender, recipient)]);
  view.indexAdd(messageKeys.dmThreads(recipient.owner), [threadRow(recipient, sender)]);
}

function threadRow(user: GroupId, party: GroupId): string {
  return `${toHex(padGroupKeyName(user.keyName))}:${groupIdText(party)}`;
}

/** Every DM thread `userOwner` is a side of (any of its groups), as (user group, party group). */
export async function userDmThreads(state: StateIndexReader, userOwner: Uint8Array): Promise<DmThread[]> {
  const rows = await state.indexRange(messageKeys.dmThreads(userOwner));
  return rows.map((row) => {
    const at = row.indexOf(':');
    return {
      user: { owner: userOwner, keyName: new Uint8Array(Buffer.from(row.slice(0, at), 'hex')) },
      party: parseGroupIdText(row.slice(at + 1)),
    };
  });
}

export interface MessagePage {
  /** Only messages with TimestampNanos strictly below this (0 ⇒ none). */
  before: bigint;
  /** At most this many. */
  limit: number;
}

/** Timestamps of a timestamp index below `page.before`, newest first. */
async function timestampsPage(state: StateIndexReader, indexKey: string, page: MessagePage): Promise<bigint[]> {
  if (page.limit < 1 || page.before <= 0n) return [];
  const range: IndexRange = { reverse: true, limit: page.limit };
  // Above u64 there is no bound to set: every stored timestamp is below it.
  if (page.before <= U64_MAX) range.lt = timestampText(page.before);
  return (await state.indexRange(indexKey, range)).map((t) => BigInt(`0x${t}`));
}

async function recordsAt(state: StateReader, keys: string[]): Promise<NewMessageRecord[]> {
  const records = await Promise.all(keys.map((k) => state.get<NewMessageRecord>(k)));
  return records.filter((r): r is NewMessageRecord => r !== undefined);
}

/** A page of a DM thread (either order of the two groups), newest first. */
export async function dmMessagesPage(state: StateIndexReader, a: GroupId, b: GroupId, page: MessagePage): Promise<NewMessageRecord[]> {
  const stamps = await timestampsPage(state, messageKeys.dmIndex(a, b), page);
  return recordsAt(state, stamps.map((ts) => messageKeys.dm(a, b, ts)));
}

// --- group chats ------------------------------------------------------------------------------

export async function getGroupChatMessage(state: StateReader, g: GroupId, ts: bigint): Promise<NewMessageRecord | undefined> {
  return state.get<NewMessageRecord>(messageKeys.groupChat(g, ts));
}

/** Stores a group-chat message under its recipient group (new, or replacing the same timestamp). */
export function putGroupChatMessage(view: StateView, m: NewMessageRecord): void {
  const g = recipientGroup(m);
  view.set(messageKeys.groupChat(g, m.timestampNanos), m);
  view.indexAdd(messageKeys.groupChatIndex(g), [timestampText(m.timestampNanos)]);
}

/** A page of the group chat of `g`, newest first. */
export async function groupChatMessagesPage(state: StateIndexReader, g: GroupId, page: MessagePage): Promise<NewMessageRecord[]> {
  const stamps = await timestampsPage(state, messageKeys.groupChatIndex(g), page);
  return recordsAt(state, stamps.map((ts) => messageKeys.groupChat(g, ts)));
}

async function hasGroupChat(state: StateIndexReader, g: GroupId): Promise<boolean> {
  return (await state.indexRange(messageKeys.groupChatIndex(g), { limit: 1 })).length > 0;
}

/**
 * The group chats `user` takes part in: groups it owns (the base group included) or belongs
 * to that have at least one message, each once, sorted by (owner, name) bytes.
 */
export async function userGroupChatThreads(state: StateIndexReader, user: Uint8Array): Promise<GroupId[]> {
  const owned = [new Uint8Array(GROUP_KEY_NAME_BYTES), ...(await registeredGroupKeyNames(state, user))].map((keyName) => ({ owner: user, keyName }));
  const byId = new Map<string, GroupId>();
  for (const g of [...owned, ...(await groupsWithMember(state, user))]) byId.set(groupIdText(g), g);
  const ids = [...byId.keys()].sort();
  const withChat = await Promise.all(ids.map((id) => hasGroupChat(state, byId.get(id)!)));
  return ids.filter((_, i) => withChat[i]).map((id) => byId.get(id)!);
}
