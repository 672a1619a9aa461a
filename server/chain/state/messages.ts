/**
 * NEW_MESSAGE state (reference node-api.md §8): direct messages and group-chat messages, stored
 * for the reads of §2.2 without scans:
 *
 * | key                                | holds                                               |
 * |------------------------------------|-----------------------------------------------------|
 * | `d:<minor>:<major>:<ts>`           | StoredDm                                            |
 * | index `d-ts:<minor>:<major>`       | `<ts>` of every message of the DM thread            |
 * | index `d-rows:<user owner>`        | `<user name>,<party>`: the user's DM thread rows    |
 * | `g:<group>:<ts>`                   | StoredGroupChatMessage                              |
 * | index `g-ts:<group>`               | `<ts>` of every message of the group chat           |
 *
 * `<minor>`/`<major>`/`<party>`/`<group>` are group ids as `groupIdText` (key text of owner and
 * unpadded name), `<user owner>` a key's text, `<user name>` `groupNameText`. A DM thread is
 * stored once under its ordered pair (minor = the smaller id text), and listed for both sides
 * through one thread row each. `<ts>` is the u64 TimestampNanos as `uintText`, so index order
 * is time order and a page of older messages is one `indexRange({ lt, reverse, limit })`.
 * Records leave out what their key says (the groups, the timestamp) and an access group key
 * that is its owner's key (every base group's).
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
  groupNameText,
  groupsWithMember,
  padGroupKeyName,
  parseGroupIdText,
  registeredGroupKeyNames,
  trimGroupKeyName,
  type GroupId,
  type StateIndexReader,
} from './accessGroups.js';
import { bytesText, textBytes, textUint, uintText } from './keyText.js';
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

/** u64 nanoseconds as `uintText`: string order = numeric order. */
export function timestampText(nanos: bigint): string {
  return uintText(nanos);
}

/** The DM thread's two groups in storage order: by `groupIdText`. */
function orderedPair(a: GroupId, b: GroupId): [GroupId, GroupId] {
  return groupIdText(a) <= groupIdText(b) ? [a, b] : [b, a];
}

/** The DM thread's storage pair: the two group ids ordered (`orderedPair`). */
export function dmPair(a: GroupId, b: GroupId): string {
  const [x, y] = orderedPair(a, b);
  return `${groupIdText(x)}:${groupIdText(y)}`;
}

export const messageKeys = {
  dm: (a: GroupId, b: GroupId, ts: bigint): string => `d:${dmPair(a, b)}:${timestampText(ts)}`,
  dmIndex: (a: GroupId, b: GroupId): string => `d-ts:${dmPair(a, b)}`,
  dmThreads: (userOwner: Uint8Array): string => `d-rows:${bytesText(userOwner)}`,
  groupChat: (g: GroupId, ts: bigint): string => `g:${groupIdText(g)}:${timestampText(ts)}`,
  groupChatIndex: (g: GroupId): string => `g-ts:${groupIdText(g)}`,
};

type ExtraData = Array<[Uint8Array, Uint8Array]>;

/** Which group of the ordered pair sent a DM: 0 the minor, 1 the major. */
type Side = 0 | 1;

/** A DM as stored; access group keys equal to their owner's key are null. */
type StoredDm = [senderSide: Side, senderAccessGroupKey: Uint8Array | null, recipientAccessGroupKey: Uint8Array | null, encryptedText: Uint8Array, extraData: ExtraData];

/** A group-chat message as stored (its key names the recipient group and the timestamp). */
type StoredGroupChatMessage = [
  senderOwner: Uint8Array,
  senderKeyName: Uint8Array,
  senderAccessGroupKey: Uint8Array | null,
  recipientAccessGroupKey: Uint8Array | null,
  encryptedText: Uint8Array,
  extraData: ExtraData,
];

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;
/** An access group key as stored: null when it is the owner's own key. */
const packAccessKey = (key: Uint8Array, owner: Uint8Array): Uint8Array | null => (sameBytes(key, owner) ? null : key);

function messageRecord(sender: GroupId, recipient: GroupId, ts: bigint, senderKey: Uint8Array | null, recipientKey: Uint8Array | null, encryptedText: Uint8Array, extraData: ExtraData): NewMessageRecord {
  return {
    senderAccessGroupOwnerPublicKey: sender.owner,
    senderAccessGroupKeyName: padGroupKeyName(sender.keyName),
    senderAccessGroupPublicKey: senderKey ?? sender.owner,
    recipientAccessGroupOwnerPublicKey: recipient.owner,
    recipientAccessGroupKeyName: padGroupKeyName(recipient.keyName),
    recipientAccessGroupPublicKey: recipientKey ?? recipient.owner,
    encryptedText,
    timestampNanos: ts,
    extraData,
  };
}

function dmRecord(a: GroupId, b: GroupId, ts: bigint, s: StoredDm): NewMessageRecord {
  const pair = orderedPair(a, b);
  const [side, senderKey, recipientKey, text, extraData] = s;
  return messageRecord(pair[side], pair[1 - side]!, ts, senderKey, recipientKey, text, extraData);
}

function groupChatRecord(g: GroupId, ts: bigint, s: StoredGroupChatMessage): NewMessageRecord {
  const [owner, keyName, senderKey, recipientKey, text, extraData] = s;
  return messageRecord({ owner, keyName }, g, ts, senderKey, recipientKey, text, extraData);
}

export function senderGroup(m: NewMessageRecord): GroupId {
  return { owner: m.senderAccessGroupOwnerPublicKey, keyName: padGroupKeyName(m.senderAccessGroupKeyName) };
}

export function recipientGroup(m: NewMessageRecord): GroupId {
  return { owner: m.recipientAccessGroupOwnerPublicKey, keyName: padGroupKeyName(m.recipientAccessGroupKeyName) };
}

// --- DMs --------------------------------------------------------------------------------------

export async function getDmMessage(state: StateReader, a: GroupId, b: GroupId, ts: bigint): Promise<NewMessageRecord | undefined> {
  const stored = await state.get<StoredDm>(messageKeys.dm(a, b, ts));
  return stored === undefined ? undefined : dmRecord(a, b, ts, stored);
}

/**
 * Stores a DM (new, or replacing the one with the same pair and timestamp) and, for a new one,
 * the thread row of each side.
 */
export function putDmMessage(view: StateView, m: NewMessageRecord): void {
  const sender = senderGroup(m);
  const recipient = recipientGroup(m);
  const side: Side = orderedPair(sender, recipient)[0] === sender ? 0 : 1;
  const stored: StoredDm = [side, packAccessKey(m.senderAccessGroupPublicKey, sender.owner), packAccessKey(m.recipientAccessGroupPublicKey, recipient.owner), m.encryptedText, m.extraData];
  view.set(messageKeys.dm(sender, recipient, m.timestampNanos), stored);
  view.indexAdd(messageKeys.dmIndex(sender, recipient), [timestampText(m.timestampNanos)]);
  view.indexAdd(messageKeys.dmThreads(sender.owner), [threadRow(sender, recipient)]);
  view.indexAdd(messageKeys.dmThreads(recipient.owner), [threadRow(recipient, sender)]);
}

/** `<user name>,<party>`: ',' sorts below every key text character, so rows sort by name first. */
function threadRow(user: GroupId, party: GroupId): string {
  return `${groupNameText(user.keyName)},${groupIdText(party)}`;
}

/** Every DM thread `userOwner` is a side of (any of its groups), as (user group, party group). */
export async function userDmThreads(state: StateIndexReader, userOwner: Uint8Array): Promise<DmThread[]> {
  const rows = await state.indexRange(messageKeys.dmThreads(userOwner));
  return rows.map((row) => {
    const at = row.indexOf(',');
    return {
      user: { owner: userOwner, keyName: padGroupKeyName(textBytes(row.slice(0, at))) },
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
  return (await state.indexRange(indexKey, range)).map(textUint);
}

const present = (records: Array<NewMessageRecord | undefined>): NewMessageRecord[] => records.filter((r): r is NewMessageRecord => r !== undefined);

/** A page of a DM thread (either order of the two groups), newest first. */
export async function dmMessagesPage(state: StateIndexReader, a: GroupId, b: GroupId, page: MessagePage): Promise<NewMessageRecord[]> {
  const stamps = await timestampsPage(state, messageKeys.dmIndex(a, b), page);
  return present(await Promise.all(stamps.map((ts) => getDmMessage(state, a, b, ts))));
}

// --- group chats ------------------------------------------------------------------------------

export async function getGroupChatMessage(state: StateReader, g: GroupId, ts: bigint): Promise<NewMessageRecord | undefined> {
  const stored = await state.get<StoredGroupChatMessage>(messageKeys.groupChat(g, ts));
  return stored === undefined ? undefined : groupChatRecord(g, ts, stored);
}

/** Stores a group-chat message under its recipient group (new, or replacing the same timestamp). */
export function putGroupChatMessage(view: StateView, m: NewMessageRecord): void {
  const g = recipientGroup(m);
  const sender = senderGroup(m);
  const stored: StoredGroupChatMessage = [
    sender.owner,
    trimGroupKeyName(padGroupKeyName(sender.keyName)),
    packAccessKey(m.senderAccessGroupPublicKey, sender.owner),
    packAccessKey(m.recipientAccessGroupPublicKey, g.owner),
    m.encryptedText,
    m.extraData,
  ];
  view.set(messageKeys.groupChat(g, m.timestampNanos), stored);
  view.indexAdd(messageKeys.groupChatIndex(g), [timestampText(m.timestampNanos)]);
}

/** A page of the group chat of `g`, newest first. */
export async function groupChatMessagesPage(state: StateIndexReader, g: GroupId, page: MessagePage): Promise<NewMessageRecord[]> {
  const stamps = await timestampsPage(state, messageKeys.groupChatIndex(g), page);
  return present(await Promise.all(stamps.map((ts) => getGroupChatMessage(state, g, ts))));
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
