/**
 * Follows in chain state (FOLLOW; reference social-graph.md §2): one index per direction, so
 * either list pages by key and either count is the index's cardinality, never a scan:
 *
 * | index               | members                                        |
 * |---------------------|------------------------------------------------|
 * | `F:<follower>`      | `<followed>` of every key the follower follows |
 * | `Fby:<followed>`    | `<follower>` of every key following it         |
 *
 * `<…>` is the key text of a 33-byte public key (keyText.ts). Text order is byte order, which
 * for 33-byte keys is also the order of their Base58Check strings (fixed length on each network),
 * so pages come out in the order the reference's JSON shows its follow maps. There is no record
 * beside the indexes: a follow is its two members, and "does A follow B" is one bounded range
 * read of `F:<A>`.
 *
 * Core keys follows by PKID; this chain keys them by public key, and SWAP_IDENTITY moves them
 * (`swapFollows`), as core's PKID swap does.
 * @module
 */
import { indexHas } from '../../store/indexHas.js';
import { bytesText, textBytes } from './keyText.js';
import type { StateIndexReader } from './reader.js';
import type { StateView } from './view.js';

export const followKeys = {
  /** Index of the keys `follower` follows. */
  following: (follower33: Uint8Array): string => `F:${bytesText(follower33)}`,
  /** Index of the keys following `followed`. */
  followers: (followed33: Uint8Array): string => `Fby:${bytesText(followed33)}`,
};

/** Which list of a key: the keys following it, or the keys it follows. */
export type FollowDirection = 'followers' | 'following';

const indexOf = (pk33: Uint8Array, direction: FollowDirection): string =>
  direction === 'followers' ? followKeys.followers(pk33) : followKeys.following(pk33);

export async function isFollowing(state: StateIndexReader, follower33: Uint8Array, followed33: Uint8Array): Promise<boolean> {
  return indexHas(state, followKeys.following(follower33), bytesText(followed33));
}

export function addFollow(view: StateView, follower33: Uint8Array, followed33: Uint8Array): void {
  view.indexAdd(followKeys.following(follower33), [bytesText(followed33)]);
  view.indexAdd(followKeys.followers(followed33), [bytesText(follower33)]);
}

export function removeFollow(view: StateView, follower33: Uint8Array, followed33: Uint8Array): void {
  view.indexRemove(followKeys.following(follower33), [bytesText(followed33)]);
  view.indexRemove(followKeys.followers(followed33), [bytesText(follower33)]);
}

/** How many keys follow `pk33` (followers) or `pk33` follows (following): the index's size. */
export async function followCount(state: StateIndexReader, pk33: Uint8Array, direction: FollowDirection): Promise<number> {
  return state.indexSize(indexOf(pk33, direction));
}

export interface FollowPageOptions {
  /** Start after this key (exclusive); from the first key when absent. */
  after?: Uint8Array;
  /** At most this many keys; every one when absent. */
  limit?: number;
}

/**
 * Keys of one direction of `pk33`'s follows in byte (= Base58Check) order, after `after`: reads
 * the page only, whatever the list's size.
 */
export async function followPage(state: StateIndexReader, pk33: Uint8Array, direction: FollowDirection, opts: FollowPageOptions = {}): Promise<Uint8Array[]> {
  const members = await state.indexRange(indexOf(pk33, direction), {
    ...(opts.after !== undefined ? { gt: bytesText(opts.after) } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
  });
  return members.map(textBytes);
}

/**
 * SWAP_IDENTITY's part: every follow in which `a` or `b` takes part, in either role, changes
 * hands a ↔ b (a self-follow of `a` becomes one of `b`). Costs the follows of the two keys.
 */
export async function swapFollows(view: StateView, a: Uint8Array, b: Uint8Array): Promise<void> {
  const swap = (pk: Uint8Array): Uint8Array => (Buffer.compare(pk, a) === 0 ? b : Buffer.compare(pk, b) === 0 ? a : pk);
  const edges = new Map<string, [follower: Uint8Array, followed: Uint8Array]>();
  const note = (follower: Uint8Array, followed: Uint8Array): void => {
    edges.set(`${bytesText(follower)}>${bytesText(followed)}`, [follower, followed]);
  };
  for (const pk of [a, b]) {
    for (const followed of await followPage(view, pk, 'following')) note(pk, followed);
    for (const follower of await followPage(view, pk, 'followers')) note(follower, pk);
  }
  for (const [follower, followed] of edges.values()) removeFollow(view, follower, followed);
  for (const [follower, followed] of edges.values()) addFollow(view, swap(follower), swap(followed));
}
