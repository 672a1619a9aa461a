/**
 * The message reads of spec §4.3 (reference node-api.md §2.2) as plain functions over a state
 * reader: NewMessageEntryResponse shaping (spec §2.3), thread lists (the latest message of each
 * conversation), and pages of one DM thread or group chat, newest first.
 *
 * Paging: a page holds the messages with TimestampNanos strictly below the start point, newest
 * first (the reference does the same for DMs and group chats), so sending the last message's
 * `TimestampNanosString` as the next start walks a thread without repeats or gaps. A start of 0
 * gives an empty page (reference). Thread lists only show messages stamped before now.
 *
 * `MaxMessagesToFetch` above MAX_MESSAGES_PER_PAGE gets that many (spec §8 allows fewer).
 * @module
 */
import { groupId, padGroupKeyName, trimGroupKeyName, type GroupId } from '../chain/state/accessGroups.js';
import {
  dmMessagesPage,
  groupChatMessagesPage,
  userDmThreads,
  userGroupChatThreads,
  type NewMessageRecord,
} from '../chain/state/messages.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { extraDataOrNull, keyNameText } from './accessGroups.js';

export const MAX_MESSAGES_PER_PAGE = 10_000;
/** The conventional default messaging group; DM pages between two of them also read the base groups (reference). */
export const DEFAULT_KEY_NAME = 'default-key';

const U64_MAX = (1n << 64n) - 1n;

export type ChatType = 'DM' | 'GroupChat';

export interface AccessGroupInfo {
  OwnerPublicKeyBase58Check: string;
  AccessGroupPublicKeyBase58Check: string;
  AccessGroupKeyName: string;
}

export interface NewMessageEntryResponse {
  ChatType: ChatType;
  SenderInfo: AccessGroupInfo;
  RecipientInfo: AccessGroupInfo;
  MessageInfo: {
    EncryptedText: string;
    /** uint64: the router writes bigint as a JSON number, as Go does. */
    TimestampNanos: bigint;
    TimestampNanosString: string;
    ExtraData: Record<string, string> | null;
  };
}

/** Wall-clock nanoseconds (the clock the send routes stamp new messages with). */
export function nowNanos(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
}

export function newMessageEntryResponse(m: NewMessageRecord, chatType: ChatType, network: Network): NewMessageEntryResponse {
  return {
    ChatType: chatType,
    SenderInfo: {
      OwnerPublicKeyBase58Check: encodePublicKey(m.senderAccessGroupOwnerPublicKey, network),
      AccessGroupPublicKeyBase58Check: encodePublicKey(m.senderAccessGroupPublicKey, network),
      AccessGroupKeyName: keyNameText(m.senderAccessGroupKeyName),
    },
    RecipientInfo: {
      OwnerPublicKeyBase58Check: encodePublicKey(m.recipientAccessGroupOwnerPublicKey, network),
      AccessGroupPublicKeyBase58Check: encodePublicKey(m.recipientAccessGroupPublicKey, network),
      AccessGroupKeyName: keyNameText(m.recipientAccessGroupKeyName),
    },
    MessageInfo: {
      EncryptedText: Buffer.from(m.encryptedText).toString('hex'),
      TimestampNanos: m.timestampNanos,
      TimestampNanosString: m.timestampNanos.toString(),
      ExtraData: extraDataOrNull(m.extraData, network),
    },
  };
}

export interface TypedMessage {
  chatType: ChatType;
  message: NewMessageRecord;
}

/** Owner keys of every sender and recipient, each once (the keys of the profile map). */
export function partyOwners(messages: readonly NewMessageRecord[]): Uint8Array[] {
  const byHex = new Map<string, Uint8Array>();
  for (const m of messages) {
    for (const k of [m.senderAccessGroupOwnerPublicKey, m.recipientAccessGroupOwnerPublicKey]) byHex.set(Buffer.from(k).toString('hex'), k);
  }
  return [...byHex.values()];
}

/** Newest first; equal timestamps keep their order. */
function newestFirst(rows: TypedMessage[]): TypedMessage[] {
  return rows.sort((a, b) => (a.message.timestampNanos === b.message.timestampNanos ? 0 : a.message.timestampNanos > b.message.timestampNanos ? -1 : 1));
}

/** The latest message (before `now`) of every DM thread `user` is a side of. */
export async function dmThreadHeads(state: StateIndexReader, user: Uint8Array, now: bigint): Promise<TypedMessage[]> {
  const threads = await userDmThreads(state, user);
  const heads = await Promise.all(threads.map((t) => dmMessagesPage(state, t.user, t.party, { before: now, limit: 1 })));
  return heads.flatMap(([m]) => (m === undefined ? [] : [{ chatType: 'DM' as const, message: m }]));
}

/** The latest message (before `now`) of every group chat `user` owns (base group included) or belongs to. */
export async function groupChatThreadHeads(state: StateIndexReader, user: Uint8Array, now: bigint): Promise<TypedMessage[]> {
  const groups = await userGroupChatThreads(state, user);
  const heads = await Promise.all(groups.map((g) => groupChatMessagesPage(state, g, { before: now, limit: 1 })));
  return heads.flatMap(([m]) => (m === undefined ? [] : [{ chatType: 'GroupChat' as const, message: m }]));
}

/** Thread heads of the chosen kinds, newest first. */
export async function threadHeads(state: StateIndexReader, user: Uint8Array, kinds: { dms: boolean; groupChats: boolean }, now = nowNanos()): Promise<TypedMessage[]> {
  const [dms, chats] = await Promise.all([
    kinds.dms ? dmThreadHeads(state, user, now) : [],
    kinds.groupChats ? groupChatThreadHeads(state, user, now) : [],
  ]);
  return newestFirst([...dms, ...chats]);
}

export interface PageRequest {
  /** Only messages strictly older than this (0 ⇒ none). */
  before: bigint;
  /** At least 1; capped at MAX_MESSAGES_PER_PAGE. */
  limit: number;
}

function capped(page: PageRequest): PageRequest {
  return { before: page.before, limit: Math.min(page.limit, MAX_MESSAGES_PER_PAGE) };
}

const isDefaultKey = (g: GroupId): boolean => Buffer.from(trimGroupKeyName(g.keyName)).toString('utf8') === DEFAULT_KEY_NAME;

/**
 * A page of the DM thread between `user` and `party` (either order names the same thread).
 * When both name `default-key`, the threads between their base groups and between a base and a
 * default group are read too and merged (reference: older clients wrote those).
 */
export async function dmThreadPage(state: StateIndexReader, user: GroupId, party: GroupId, page: PageRequest): Promise<NewMessageRecord[]> {
  const p = capped(page);
  if (!(isDefaultKey(user) && isDefaultKey(party))) return dmMessagesPage(state, user, party, p);
  const base = (g: GroupId): GroupId => groupId(g.owner, new Uint8Array(0));
  const pairs: Array<[GroupId, GroupId]> = [
    [user, party],
    [base(user), base(party)],
    [base(user), party],
    [user, base(party)],
  ];
  const pages = await Promise.all(pairs.map(([a, b]) => dmMessagesPage(state, a, b, p)));
  const merged = newestFirst(pages.flat().map((message) => ({ chatType: 'DM' as const, message })));
  return merged.slice(0, p.limit).map((r) => r.message);
}

/** A page of the group chat of `g`; no membership check (reference: reads are public). */
export async function groupChatPage(state: StateIndexReader, g: GroupId, page: PageRequest): Promise<NewMessageRecord[]> {
  return groupChatMessagesPage(state, { owner: g.owner, keyName: padGroupKeyName(g.keyName) }, capped(page));
}

/**
 * The start point of a page: `StartTimestampString` when non-empty (decimal u64), else
 * `StartTimestamp`. Returns an error text (Go strconv wording) for a bad string.
 */
export function parseStartTimestamp(startString: string, startNumber: bigint): bigint | string {
  if (startString === '') return startNumber;
  if (!/^\d+$/.test(startString)) return `strconv.ParseUint: parsing ${JSON.stringify(startString)}: invalid syntax`;
  const n = BigInt(startString);
  if (n > U64_MAX) return `strconv.ParseUint: parsing ${JSON.stringify(startString)}: value out of range`;
  return n;
}
