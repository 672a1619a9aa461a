/**
 * Notifications in chain state (reference social-graph.md §6): for each public key, which
 * transactions notify it, one index per notification category, so a page of notifications (with
 * any categories filtered out) costs the page, never the key's history.
 *
 * | index                 | members                                                      |
 * |-----------------------|--------------------------------------------------------------|
 * | `N<c>:<pk>`           | `positionMember` of each transaction of category c notifying pk |
 *
 * `<c>` is one letter per category (CATEGORY_LETTER), `<pk>` the key text of the 33-byte key.
 * A member is the transaction's place in the chain: its block height and its index in that
 * block, as ordered integers (keyText.ts), ~7–10 characters where a hash would take 43; the
 * transaction itself is read through the block at that height (or, above the tip, the pending
 * state's mempool list). Members sort as the transactions were connected, so "newest first" is
 * a reversed range.
 *
 * Only notifications are indexed (the reference indexes every transaction touching a key and
 * filters when reading): a key's own transactions, unfollows, unlikes, sells, an output of a
 * non-transfer are never members, so no read skips them. What can change after the fact (a
 * post hidden later, a transactor blocked or blacklisted later) is checked when reading.
 *
 * Mempool transactions are written at (next height, place in the pending replay) by the same
 * connect path as mined ones: the pending view shows them, and the block that mines them in that
 * order applies the same writes (blocks.ts connectedPrefix). A pending transaction's place may
 * change when a block mines around it, as the reference's provisional mempool indices do.
 * @module
 */
import { bytesText, joinBytes, orderedUint, readOrderedUint, textBytes } from './keyText.js';
import type { TxnLocation } from './keys.js';
import type { StateIndexReader } from './reader.js';
import type { StateView } from './view.js';

/**
 * The reference's notification categories (FilteredOutNotificationCategories names) of the
 * transaction types this chain connects. NFT and association categories have no transactions here.
 */
export const NOTIFICATION_CATEGORIES = ['follow', 'like', 'post', 'diamond', 'transfer', 'dao coin'] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

const CATEGORY_LETTER: Readonly<Record<NotificationCategory, string>> = {
  follow: 'f',
  like: 'l',
  post: 'p',
  diamond: 'd',
  transfer: 't',
  'dao coin': 'c',
};

export const notificationKeys = {
  /** Index of the transactions of `category` that notify `pk`. */
  index: (category: NotificationCategory, pk33: Uint8Array): string => `N${CATEGORY_LETTER[category]}:${bytesText(pk33)}`,
};

/**
 * Places per height in a notification `Index` (height × POSITIONS_PER_HEIGHT + index in block):
 * 2^24, far above the transactions one block or the mempool can hold (a 16 MB block of
 * ~100-byte transactions has 160,000), and heights up to 2^29 keep the Index below 2^53.
 */
export const POSITIONS_PER_HEIGHT = 2 ** 24;

/** The largest Index a client can send back (as JSON numbers stay exact). */
export const MAX_NOTIFICATION_INDEX = Number.MAX_SAFE_INTEGER;

/** Index member of the transaction at `index` in the block at `height`. */
export function positionMember(height: number | bigint, index: number): string {
  return bytesText(joinBytes(orderedUint(BigInt(height)), orderedUint(BigInt(index))));
}

/** The place a `positionMember` names. */
export function memberPosition(member: string): TxnLocation {
  const bytes = textBytes(member);
  const height = readOrderedUint(bytes, 0);
  const index = readOrderedUint(bytes, height.end);
  return [Number(height.value), Number(index.value)];
}

/** The notification `Index` clients see for a place. */
export function notificationIndex([height, index]: TxnLocation): number {
  return height * POSITIONS_PER_HEIGHT + index;
}

/** The place an `Index` stands for (any non-negative safe integer is some place). */
export function indexPosition(i: number): TxnLocation {
  return [Math.floor(i / POSITIONS_PER_HEIGHT), i % POSITIONS_PER_HEIGHT];
}

/** Records that the transaction at (`height`, `index`) notifies each of `keys` under `category`. */
export function addNotifications(view: StateView, height: bigint, index: number, category: NotificationCategory, keys: readonly Uint8Array[]): void {
  if (index < 0 || index >= POSITIONS_PER_HEIGHT) throw new RangeError(`notification place ${index} is outside 0..${POSITIONS_PER_HEIGHT - 1}`);
  const member = positionMember(height, index);
  for (const pk of keys) view.indexAdd(notificationKeys.index(category, pk), [member]);
}

export interface NotificationRange {
  /** Newest first (true) or oldest first. */
  newestFirst: boolean;
  /** Newest first: places up to this Index (inclusive); oldest first: from it. Absent: no bound. */
  from?: number;
  /** Strictly past this member (a previous read's last), in the direction of reading; replaces `from`. */
  after?: string;
  limit: number;
}

/**
 * Members notifying `pk` in `categories`, merged in chain order (newest or oldest first): one
 * range read of at most `limit` members per category, whatever each index holds.
 */
export async function notificationMembers(state: StateIndexReader, pk33: Uint8Array, categories: readonly NotificationCategory[], range: NotificationRange): Promise<string[]> {
  if (range.limit <= 0 || categories.length === 0) return [];
  const bound = range.from === undefined ? undefined : positionMember(...indexPosition(range.from));
  // A read that goes on after a member is already past `from`: one bound says it all.
  const bounds =
    range.after !== undefined ? (range.newestFirst ? { lt: range.after } : { gt: range.after }) : bound === undefined ? {} : range.newestFirst ? { lte: bound } : { gte: bound };
  const lists = await Promise.all(
    categories.map((c) => state.indexRange(notificationKeys.index(c, pk33), { ...bounds, reverse: range.newestFirst, limit: range.limit })),
  );
  // Members are base64 text in one alphabet (every character one byte): string order is byte order.
  const merged = [...new Set(lists.flat())].sort();
  if (range.newestFirst) merged.reverse();
  return merged.slice(0, range.limit);
}
