/**
 * `get-likes-for-post` (reference social-graph.md §3.2; backend GetLikesForPost): the profiles
 * of a post's likers, `Offset`/`Limit` paged, over the post's liker index
 * (chain/state/likes.ts). Likers without a profile are left out, and so are blacklisted or
 * graylisted ones (the reference's "leaderboard" filter), except the reader.
 *
 * The list runs in descending Base58Check order of the likers' keys, the reference's order among
 * likers of equal coin value. The reference sorts the whole list by coin value first, which
 * would cost every like of the post on every page; here a page walks the index from its top to
 * `Offset + Limit` shown likers and costs those (plus the ones left out on the way), whatever
 * the post's like count beyond them.
 * @module
 */
import { likersRange } from '../chain/state/likes.js';
import { getProfile, type ProfileRecord } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { profileRecordResponse, type ProfileDeps } from './profileEntry.js';
import { moderationFlags } from './userMetadata.js';

/** Largest `Limit` this node serves (the reference has no limit; each liker is a profile response). */
export const MAX_LIKES_TO_FETCH = 1000;
/** Index members read per step of the walk: enough for a usual page in one step, few reads wasted past it. */
const WALK_STEP = 100;

export interface LikesRequest {
  postHash: Uint8Array;
  /** Never left out by the moderation filter. */
  reader: Uint8Array | null;
  offset: number;
  /** 0..MAX_LIKES_TO_FETCH; 0 answers an empty page, as the reference. */
  limit: number;
}

/** The liker's profile when the list shows it: it has one, and moderation does not hide it from this reader. */
async function shownProfile(deps: ProfileDeps, state: StateIndexReader, liker: Uint8Array, reader: Uint8Array | null): Promise<ProfileRecord | undefined> {
  const profile = await getProfile(state, liker);
  if (profile === undefined) return undefined;
  if (reader !== null && Buffer.compare(reader, liker) === 0) return profile;
  const flags = await moderationFlags(deps.store, liker);
  return flags.isBlacklisted || flags.isGraylisted ? undefined : profile;
}

export async function likesForPost(deps: ProfileDeps, state: StateIndexReader, req: LikesRequest): Promise<{ Likers: Array<Record<string, unknown>> }> {
  const wanted = req.offset + req.limit;
  /** Shown likers passed so far; only those at `offset` and after are kept. */
  let passed = 0;
  const page: ProfileRecord[] = [];
  let from: Uint8Array | undefined;
  while (req.limit > 0 && passed < wanted) {
    const step = Math.min(wanted - passed, WALK_STEP);
    const likers = await likersRange(state, req.postHash, { reverse: true, limit: step, ...(from !== undefined ? { from } : {}) });
    const profiles = await Promise.all(likers.map((liker) => shownProfile(deps, state, liker, req.reader)));
    for (const p of profiles) {
      if (p === undefined || passed >= wanted) continue;
      if (passed >= req.offset) page.push(p);
      passed++;
    }
    if (likers.length < step) break;
    from = likers.at(-1);
  }
  return { Likers: await Promise.all(page.map((p) => profileRecordResponse(deps, state, p))) };
}
