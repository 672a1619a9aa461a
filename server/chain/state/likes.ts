/**
 * Likes in chain state (LIKE; reference social-graph.md §3): one index per side, so the likers
 * of a post and the posts a key liked each read as a page, and "did K like P" is one bounded
 * range read. A post's like count is its record's `likeCount` (posts.ts), kept by the rules.
 *
 * | index              | members                                      |
 * |--------------------|----------------------------------------------|
 * | `L:<post hash>`    | `<liker>` of every key that likes the post   |
 * | `Lby:<liker>`      | `<post hash>` of every post the key likes    |
 *
 * `<…>` is key text (keyText.ts) of the 32-byte hash or 33-byte public key; likers sort by key
 * bytes, which is their Base58Check order. Likes are keyed by public key, as in core (not by
 * PKID), so SWAP_IDENTITY leaves them where they are.
 * @module
 */
import { indexHas } from '../../store/indexHas.js';
import type { IndexRange } from '../../store/types.js';
import { bytesText, textBytes } from './keyText.js';
import type { StateIndexReader } from './reader.js';
import type { StateView } from './view.js';

export const likeKeys = {
  /** Index of the keys that like a post. */
  likers: (postHash32: Uint8Array): string => `L:${bytesText(postHash32)}`,
  /** Index of the posts a key likes. */
  likedBy: (liker33: Uint8Array): string => `Lby:${bytesText(liker33)}`,
};

export async function isLikedBy(state: StateIndexReader, liker33: Uint8Array, postHash32: Uint8Array): Promise<boolean> {
  return indexHas(state, likeKeys.likers(postHash32), bytesText(liker33));
}

export function addLike(view: StateView, liker33: Uint8Array, postHash32: Uint8Array): void {
  view.indexAdd(likeKeys.likers(postHash32), [bytesText(liker33)]);
  view.indexAdd(likeKeys.likedBy(liker33), [bytesText(postHash32)]);
}

export function removeLike(view: StateView, liker33: Uint8Array, postHash32: Uint8Array): void {
  view.indexRemove(likeKeys.likers(postHash32), [bytesText(liker33)]);
  view.indexRemove(likeKeys.likedBy(liker33), [bytesText(postHash32)]);
}

export interface LikerRange {
  /** Keys strictly before (reverse) or after (forward) this one; from the end of the list when absent. */
  from?: Uint8Array;
  /** Walk from the highest key down (Base58Check descending). */
  reverse?: boolean;
  limit: number;
}

/** Likers of a post, one range of the index: reads that range only, whatever the post's like count. */
export async function likersRange(state: StateIndexReader, postHash32: Uint8Array, r: LikerRange): Promise<Uint8Array[]> {
  const range: IndexRange = { reverse: r.reverse === true, limit: r.limit };
  if (r.from !== undefined) {
    if (r.reverse === true) range.lt = bytesText(r.from);
    else range.gt = bytesText(r.from);
  }
  return (await state.indexRange(likeKeys.likers(postHash32), range)).map(textBytes);
}
