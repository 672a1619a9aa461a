/**
 * get-profiles by `UsernamePrefix`: the profiles whose username starts with a prefix, highest
 * coin value (locked nanos) first, as the reference ranks them (core sorts every match by
 * DeSoLockedNanos; ties are left in no order there, here the higher public key first).
 *
 * Two ways to the same page, chosen by their expected reads:
 * - rank the matches: read every matching username's owner and profile from the ordered
 *   username index and sort them (2 reads per match; at most MAX_PREFIX_MATCHES matches);
 * - walk the coin-value index from the top, keeping profiles that match, until the page is
 *   full: a prefix matching m of n profiles is met about every n / m profiles, so a page of k
 *   costs about (k + 1) · n / m reads, whatever n is, when m grows with n (a short prefix on a
 *   large network).
 * The walk has a budget (a prefix whose matches all sit at the bottom of the value order would
 * otherwise read the whole index); past it, the matches are ranked.
 * @module
 */
import { getProfile, pkOfLockedMember, profileKeys, publicKeyForUsername, type ProfileRecord } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';

/** Prefix searches rank at most this many matching usernames by coin value. */
export const MAX_PREFIX_MATCHES = 1000;
/**
 * Profiles read per step of the walk down the coin-value index: one round trip each. Fixed, not
 * sized by the expected walk: with the match list capped the expectation is too high, and a
 * step sized by it read twice the profiles at 100k profiles as at 10k for the same page.
 */
const WALK_STEP = 128;

/** Coin value first, then the public key, both highest first: the walk's order. */
function byValue(a: ProfileRecord, b: ProfileRecord): number {
  if (a.creatorCoin.nanosLocked !== b.creatorCoin.nanosLocked) return a.creatorCoin.nanosLocked > b.creatorCoin.nanosLocked ? -1 : 1;
  return Buffer.compare(b.publicKey, a.publicKey);
}

/**
 * Up to `numToFetch` profiles whose lower-case username starts with `prefix` (lower case),
 * highest coin value first, leaving out those `hidden` says to.
 */
export async function profilesByUsernamePrefix(state: StateIndexReader, prefix: string, numToFetch: number, hidden: (p: ProfileRecord) => boolean): Promise<ProfileRecord[]> {
  if (numToFetch <= 0) return [];
  const names = await state.indexRange(profileKeys.usernameIndex, { gte: prefix, lt: `${prefix}\uffff`, limit: MAX_PREFIX_MATCHES });
  if (names.length === 0) return [];
  const capped = names.length === MAX_PREFIX_MATCHES;
  const rankReads = 2 * names.length;
  const total = await state.indexSize(profileKeys.lockedIndex);
  // With the list capped, there are more matches than listed: the walk costs less than this.
  const walkReads = ((numToFetch + 1) * total) / names.length;
  if (capped || walkReads < rankReads) {
    const walked = await walkByValue(state, prefix, numToFetch, hidden, capped ? 4 * MAX_PREFIX_MATCHES : 2 * rankReads);
    if (walked !== null) return walked;
  }
  return rankMatches(state, names, numToFetch, hidden);
}

/** The matches listed in `names` (lower-case usernames), ranked; reads go out as two batches. */
async function rankMatches(state: StateIndexReader, names: readonly string[], numToFetch: number, hidden: (p: ProfileRecord) => boolean): Promise<ProfileRecord[]> {
  // Every match's owner, then every owner's profile, each as one batch of concurrent reads (one
  // round trip on Redis, auto-pipelined) rather than two round trips per match in turn.
  const owners = await Promise.all(names.map((name) => publicKeyForUsername(state, name)));
  const found = await Promise.all(owners.map((pk) => (pk === undefined ? undefined : getProfile(state, pk))));
  const profiles = found.filter((p): p is ProfileRecord => p !== undefined && !hidden(p));
  return profiles.sort(byValue).slice(0, numToFetch);
}

/**
 * The page from the top of the coin-value index down, or null when that took more than
 * `budget` profile reads (then ranking the matches is cheaper).
 */
async function walkByValue(state: StateIndexReader, prefix: string, numToFetch: number, hidden: (p: ProfileRecord) => boolean, budget: number): Promise<ProfileRecord[] | null> {
  const step = WALK_STEP;
  const out: ProfileRecord[] = [];
  let upper: string | undefined;
  for (let read = 0; read < budget; ) {
    const batch = await state.indexRange(profileKeys.lockedIndex, { reverse: true, limit: step, ...(upper === undefined ? {} : { lt: upper }) });
    const profiles = await Promise.all(batch.map((member) => getProfile(state, pkOfLockedMember(member))));
    for (const p of profiles) {
      if (p === undefined || !p.username.toLowerCase().startsWith(prefix) || hidden(p)) continue;
      out.push(p);
      if (out.length === numToFetch) return out;
    }
    if (batch.length < step) return out;
    read += batch.length;
    upper = batch[batch.length - 1];
  }
  return null;
}
