/**
 * Follow reads (reference social-graph.md §2.2–2.3; backend GetFollowsStateless,
 * IsFollowingPublicKey) over the two follow indexes (chain/state/follows.ts), so a page costs
 * its own entries and `NumFollowers` is an index size, whatever the list's length.
 *
 * Pages come in key order, which is the order of the Base58Check keys: the order the
 * reference's JSON object shows (Go writes map keys sorted), and `LastPublicKeyBase58Check`
 * starts the next page after that key. The reference picks the page in another order (profiles
 * by coin value, then keys without a profile) that its JSON answer then loses; frontends
 * re-sort what they get. See the differences below.
 *
 * Differences from the reference, each where the reference evidently meant this:
 * - the page is the next `NumToFetch` keys in key order (the reference sorts the whole list by
 *   coin value to cut its page, which costs the list and is lost in the answer);
 * - `NumToFetch` 0 answers no entries, only `NumFollowers` (the reference answers one arbitrary
 *   key with a null profile);
 * - a cursor key that is no longer in the list (unfollowed meanwhile) continues after its place
 *   (the reference answers an empty page, which ends a client's paging early).
 * @module
 */
import { followCount, followPage, isFollowing } from '../chain/state/follows.js';
import { getProfileByUsername } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { DomainError } from '../errors.js';
import { profileEntryMap, type ProfileDeps } from './profileEntry.js';

/** Largest `NumToFetch` this node serves (the reference has no limit; each entry is a profile response). */
export const MAX_FOLLOWS_TO_FETCH = 1000;

/** A request for a user this chain does not know: the route answers 404 with this message. */
export class FollowsNotFoundError extends DomainError {
  override readonly name = 'FollowsNotFoundError';
  constructor(message: string) {
    super('FOLLOWS_NOT_FOUND', 'notFound', message);
  }
}

export interface FollowsRequest {
  /** Whose follows; when null, the owner of `username`. */
  publicKey: Uint8Array | null;
  username: string;
  /** The reference's `GetEntriesFollowingUsername`: true lists the user's followers, false the keys the user follows. */
  followers: boolean;
  /** `LastPublicKeyBase58Check`: the page starts after this key. */
  after: Uint8Array | null;
  /** 0..MAX_FOLLOWS_TO_FETCH. */
  numToFetch: number;
}

export interface FollowsResponse {
  PublicKeyToProfileEntry: Record<string, Record<string, unknown> | null>;
  /** How many keys the list holds in all (followers or followed, as asked), whatever the page. */
  NumFollowers: number;
}

export async function followsStateless(deps: ProfileDeps, state: StateIndexReader, req: FollowsRequest): Promise<FollowsResponse> {
  let user = req.publicKey;
  if (user === null) {
    const profile = await getProfileByUsername(state, req.username);
    if (profile === undefined) throw new FollowsNotFoundError(`GetFollowsStateless: could not find profile for username: ${req.username}`);
    user = profile.publicKey;
  }
  const direction = req.followers ? 'followers' : 'following';
  const [keys, total] = await Promise.all([
    req.numToFetch === 0 ? Promise.resolve([]) : followPage(state, user, direction, { ...(req.after !== null ? { after: req.after } : {}), limit: req.numToFetch }),
    followCount(state, user, direction),
  ]);
  return { PublicKeyToProfileEntry: await profileEntryMap(deps, state, keys), NumFollowers: total };
}

/** Whether `follower` follows `followed`, tip plus mempool as `state` holds them. */
export async function isFollowingPublicKey(state: StateIndexReader, follower: Uint8Array, followed: Uint8Array): Promise<{ IsFollowing: boolean }> {
  return { IsFollowing: await isFollowing(state, follower, followed) };
}
