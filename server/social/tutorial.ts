/**
 * The onboarding tutorial (spec §3 "Tutorial status", §4.7; reference node-api.md §2.5, §9):
 * per-user progress and the two admin-curated lists of featured creators, all node state in
 * the store.
 *
 * Keys:
 * - `node:tutorial:status:<pk hex>` → TutorialRecord (absent = not started);
 * - indexes `node:tutorial:wellknown` and `node:tutorial:upandcoming` → featured creators
 *   (members: public key hex). social/profileEntry.ts reads the same two indexes for the
 *   `IsFeaturedTutorial…Creator` flags of every ProfileEntryResponse.
 *
 * Transitions (spec §3 and the reference): `start-or-skip-tutorial` starts from not started,
 * skipped or complete and skips from any state (the reference lets a user leave the tutorial
 * midway); `update-tutorial-status` sets any of the spec's states directly (an override).
 * @module
 */
import { randomInt } from 'node:crypto';
import type { AppDeps } from '../deps.js';
import { getProfile, type ProfileRecord } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { toHex } from '../hex.js';
import { DomainError } from '../errors.js';
import type { Store } from '../store/types.js';
import { PROFILE_FLAGS_CHANGED, profileRecordResponse } from './profileEntry.js';

/** A tutorial request refused (invalid), or one that kept losing a race (busy: retry). */
export class TutorialError extends DomainError {
  override readonly name = 'TutorialError';
}

/** The states of spec §3, which are also the only values `update-tutorial-status` accepts. */
export const TUTORIAL_STATUSES = [
  'TutorialStarted',
  'TutorialSkipped',
  'InvestInOthersBuyComplete',
  'InvestInOthersSellComplete',
  'TutorialCreateProfileComplete',
  'InvestInYourselfComplete',
  'FollowCreatorsComplete',
  'GiveADiamondComplete',
  'TutorialComplete',
] as const;

export type TutorialStatus = (typeof TUTORIAL_STATUSES)[number];

/** States `start-or-skip-tutorial` may start from ("" = not started). */
const STARTABLE_FROM: ReadonlySet<string> = new Set(['', 'TutorialSkipped', 'TutorialComplete']);

/** Creators whose founder reward is above 10% are never featured (spec §4.7, §8). */
export const MAX_FEATURED_CREATOR_BASIS_POINTS = 1000n;

/**
 * Most creators per category one request may ask for. The reference reads at most 300 keys of
 * each list, so it never answers more than that either; each answer costs a profile build.
 */
export const MAX_TUTORIAL_RESPONSE_LIMIT = 300;

/** Attempts of one compare-and-set; a retry means a concurrent change of the same user's status. */
const MAX_CAS_ATTEMPTS = 20;

export type FeaturedList = 'wellKnown' | 'upAndComing';

export const tutorialKeys = {
  status: (pk33: Uint8Array): string => `node:tutorial:status:${toHex(pk33)}`,
  wellKnown: 'node:tutorial:wellknown',
  upAndComing: 'node:tutorial:upandcoming',
};

const listKey = (list: FeaturedList): string => (list === 'wellKnown' ? tutorialKeys.wellKnown : tutorialKeys.upAndComing);

export interface TutorialRecord {
  /** "" = not started. */
  status: TutorialStatus | '';
  /** The creator whose coin the user bought in the tutorial (reference CreatorPurchasedInTutorialPKID). */
  creatorPurchasedInTutorial: Uint8Array | null;
  creatorCoinsPurchasedInTutorial: bigint;
  /** Set by sign-up flows this node does not have; kept so reads can report it. */
  mustCompleteTutorial: boolean;
}

const NOT_STARTED: Readonly<TutorialRecord> = Object.freeze({
  status: '',
  creatorPurchasedInTutorial: null,
  creatorCoinsPurchasedInTutorial: 0n,
  mustCompleteTutorial: false,
});

export function isTutorialStatus(s: string): s is TutorialStatus {
  return (TUTORIAL_STATUSES as readonly string[]).includes(s);
}

/** A user's tutorial progress (not started when nothing is stored). */
export async function getTutorialState(store: Store, pk33: Uint8Array): Promise<TutorialRecord> {
  return (await store.get<TutorialRecord>(tutorialKeys.status(pk33))) ?? { ...NOT_STARTED };
}

/**
 * Read-modify-write of a user's record with compare-and-set: `change` sees the current record
 * and returns the next (or throws a refusal).
 */
async function updateTutorial(store: Store, pk33: Uint8Array, change: (current: TutorialRecord) => TutorialRecord): Promise<TutorialRecord> {
  const key = tutorialKeys.status(pk33);
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const stored = await store.get<TutorialRecord>(key);
    const next = change(stored ?? { ...NOT_STARTED });
    if (await store.commit([{ op: 'set', key, value: next }], [{ key, equals: stored }])) return next;
  }
  throw new TutorialError('TUTORIAL_BUSY', 'busy', 'tutorial status kept changing concurrently; try again');
}

/**
 * `start-or-skip-tutorial`: skip sets TutorialSkipped (refused for a user who must complete the
 * tutorial, unless an admin); start sets TutorialStarted from not started, skipped or complete.
 * @throws {TutorialError} with the reference's messages
 */
export function startOrSkipTutorial(store: Store, pk33: Uint8Array, isSkip: boolean, opts: { isAdmin?: boolean } = {}): Promise<TutorialRecord> {
  return updateTutorial(store, pk33, (current) => {
    if (isSkip && current.mustCompleteTutorial && !opts.isAdmin) throw new TutorialError('TUTORIAL_SKIP_NOT_PERMITTED', 'invalid', 'StartOrSkipTutorial: You are not permitted to skip the tutorial');
    if (!isSkip && !STARTABLE_FROM.has(current.status)) {
      throw new TutorialError('TUTORIAL_BAD_STATE', 'invalid', 'StartOrSkipTutorial: Can only start tutorial from empty, skipped, or completed state');
    }
    return { ...current, status: isSkip ? 'TutorialSkipped' : 'TutorialStarted' };
  });
}

export interface TutorialStatusUpdate {
  status: TutorialStatus;
  /** The creator bought in the tutorial, when the client reports one. */
  creatorPurchasedInTutorial?: Uint8Array;
  /** Zero the creator-coins-purchased-in-tutorial counter. */
  clearCreatorCoinsPurchasedInTutorial?: boolean;
}

/** `update-tutorial-status`: the override of spec §3 (any listed state, from any state). */
export function updateTutorialStatus(store: Store, pk33: Uint8Array, u: TutorialStatusUpdate): Promise<TutorialRecord> {
  return updateTutorial(store, pk33, (current) => ({
    ...current,
    status: u.status,
    // Completing the tutorial lifts the must-complete restriction (reference).
    mustCompleteTutorial: u.status === 'TutorialComplete' ? false : current.mustCompleteTutorial,
    creatorPurchasedInTutorial: u.creatorPurchasedInTutorial ?? current.creatorPurchasedInTutorial,
    creatorCoinsPurchasedInTutorial: u.clearCreatorCoinsPurchasedInTutorial ? 0n : current.creatorCoinsPurchasedInTutorial,
  }));
}

/**
 * send-diamonds with `InTutorial` (reference SendDiamonds): the tutorial's diamond step, from
 * InvestInYourselfComplete to GiveADiamondComplete; refused from any other state.
 * @throws {TutorialError}
 */
export function completeTutorialDiamond(store: Store, pk33: Uint8Array): Promise<TutorialRecord> {
  return updateTutorial(store, pk33, (current) => {
    if (current.status !== 'InvestInYourselfComplete') {
      throw new TutorialError('TUTORIAL_BAD_STATE', 'invalid', 'SendDiamonds: User should not be sending diamonds at this point in the tutorial');
    }
    return { ...current, status: 'GiveADiamondComplete' };
  });
}

/** admin/reset-tutorial-status: back to not started, counters and restriction cleared. */
export async function resetTutorialStatus(store: Store, pk33: Uint8Array): Promise<void> {
  await store.delete(tutorialKeys.status(pk33));
}

async function inList(store: Store, list: FeaturedList, hex: string): Promise<boolean> {
  return (await store.indexRange(listKey(list), { gte: hex, lte: hex, limit: 1 })).length > 0;
}

/**
 * admin/update-tutorial-creators: adds a creator to one list (refused when already featured in
 * either, as the reference does), or removes it from the named list.
 * @throws {TutorialError} when adding a creator that is already featured
 */
export async function setFeaturedCreator(store: Store, pk33: Uint8Array, list: FeaturedList, removal: boolean): Promise<void> {
  const hex = toHex(pk33);
  if (removal) {
    await store.commit([{ op: 'indexRemove', key: listKey(list), members: [hex] }, PROFILE_FLAGS_CHANGED]);
    return;
  }
  const [wellKnown, upAndComing] = await Promise.all([inList(store, 'wellKnown', hex), inList(store, 'upAndComing', hex)]);
  if (wellKnown || upAndComing) {
    throw new TutorialError('TUTORIAL_CREATOR_EXISTS', 'invalid', `AdminUpdateTutorialCreator: cannot add creator, user already exists in ${wellKnown ? 'well known' : 'up and coming'} index`);
  }
  // The flags show in every ProfileEntryResponse: tell cached responses (PROFILE_FLAGS_VERSION).
  await store.commit([{ op: 'indexAdd', key: listKey(list), members: [hex] }, PROFILE_FLAGS_CHANGED]);
}

/** Every member of a list, as 33-byte keys. */
export async function featuredCreatorKeys(store: Store, list: FeaturedList): Promise<Uint8Array[]> {
  return (await store.indexRange(listKey(list))).map((hex) => new Uint8Array(Buffer.from(hex, 'hex')));
}

/** Fisher–Yates shuffle in place; node:crypto randomInt draws each index without modulo bias. */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * Up to `limit` ProfileEntryResponses drawn at random from a list: members without a profile
 * are skipped, and so are creators with a founder reward above 10% unless `includeAnyReward`
 * (the admin variant). Profiles are read from `state`.
 */
export async function randomFeaturedCreators(
  deps: Pick<AppDeps, 'config' | 'store'>,
  state: StateIndexReader,
  list: FeaturedList,
  limit: number,
  opts: { includeAnyReward?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const candidates = shuffle(await featuredCreatorKeys(deps.store, list));
  const out: Record<string, unknown>[] = [];
  // Read the profiles a batch at a time, just enough to fill what is still missing.
  for (let i = 0; i < candidates.length && out.length < limit; ) {
    const batch = candidates.slice(i, i + (limit - out.length));
    i += batch.length;
    const profiles = await Promise.all(batch.map((pk) => getProfile(state, pk)));
    const eligible = profiles.filter(
      (p): p is ProfileRecord => p !== undefined && (opts.includeAnyReward === true || p.creatorBasisPoints <= MAX_FEATURED_CREATOR_BASIS_POINTS),
    );
    out.push(...(await Promise.all(eligible.map((p) => profileRecordResponse(deps, state, p)))));
  }
  return out;
}
