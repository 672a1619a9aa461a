/**
 * The hot feed's tuning, node state set by super admins (reference routes/hot_feed.go; the
 * reference keeps the same values in its global state): the algorithm parameters and the
 * multipliers of users and posts. The scoring job (hotFeed.ts) reads them on every refresh, so a
 * change shows in the ranking after the next one.
 *
 * One store key per value, so two admins setting different values never race:
 * - `social:hot:algo:<name>` — InteractionCap, InteractionCapTag, TimeDecayBlocks,
 *   TimeDecayBlocksTag (absent: the reference's defaults) and TxnTypeMultiplierMap (absent: {});
 * - `social:hot:user:<pk hex>:interaction` / `…:posts` — a user's multipliers (absent: 1), and
 *   index `social:hot:users` of the keys that have one;
 * - `social:hot:post:<hash hex>` — a post's multiplier (absent: 1), and index
 *   `social:hot:posts` of the posts that have one. The job drops those of posts that left the
 *   lookback window, as the reference prunes its approved-post map.
 *
 * Users are keyed by public key, as this chain keys likes and diamonds (the reference: PKID).
 * @module
 */
import { toHex } from '../hex.js';
import type { Store, WriteOp } from '../store/types.js';

/** The reference's DefaultHotFeedInteractionCap (and …TagInteractionCap): 4e12 nanos, 4000 coins. */
export const DEFAULT_INTERACTION_CAP = 4_000_000_000_000;
/** The reference's DefaultHotFeedTimeDecayBlocks (and …TagTimeDecayBlocks): blocks per halving. */
export const DEFAULT_TIME_DECAY_BLOCKS = 43_200;
/** A transaction type without an entry in TxnTypeMultiplierMap weighs 1× (basis points). */
export const BASIS_POINTS_ONE = 10_000;
/** Most a multiplier may be: 1000× is a strong boost already; a larger one is a typo. */
export const MAX_MULTIPLIER = 1_000;
/** Most basis points a transaction type may weigh (1000×, as MAX_MULTIPLIER). */
export const MAX_TXN_TYPE_MULTIPLIER_BASIS_POINTS = MAX_MULTIPLIER * BASIS_POINTS_ONE;

export interface HotFeedAlgorithm {
  InteractionCap: number;
  InteractionCapTag: number;
  TimeDecayBlocks: number;
  TimeDecayBlocksTag: number;
  /** Basis points by transaction type number (as a decimal string, the JSON map key). */
  TxnTypeMultiplierMap: Record<string, number>;
}

export interface UserMultiplier {
  InteractionMultiplier: number;
  PostsMultiplier: number;
}

const ALGO_FIELDS = ['InteractionCap', 'InteractionCapTag', 'TimeDecayBlocks', 'TimeDecayBlocksTag', 'TxnTypeMultiplierMap'] as const;

export const hotFeedSettingKeys = {
  algorithm: (field: (typeof ALGO_FIELDS)[number]): string => `social:hot:algo:${field}`,
  userInteraction: (pkHex: string): string => `social:hot:user:${pkHex}:interaction`,
  userPosts: (pkHex: string): string => `social:hot:user:${pkHex}:posts`,
  users: 'social:hot:users',
  post: (hashHex: string): string => `social:hot:post:${hashHex}`,
  posts: 'social:hot:posts',
};

export async function getHotFeedAlgorithm(store: Pick<Store, 'getMany'>): Promise<HotFeedAlgorithm> {
  const [cap, capTag, decay, decayTag, map] = await store.getMany<unknown>(ALGO_FIELDS.map(hotFeedSettingKeys.algorithm));
  return {
    InteractionCap: (cap as number | undefined) ?? DEFAULT_INTERACTION_CAP,
    InteractionCapTag: (capTag as number | undefined) ?? DEFAULT_INTERACTION_CAP,
    TimeDecayBlocks: (decay as number | undefined) ?? DEFAULT_TIME_DECAY_BLOCKS,
    TimeDecayBlocksTag: (decayTag as number | undefined) ?? DEFAULT_TIME_DECAY_BLOCKS,
    TxnTypeMultiplierMap: { ...((map as Record<string, number> | undefined) ?? {}) },
  };
}

/**
 * The reference's AdminUpdateHotFeedAlgorithm: a number field of 0 leaves its value as it is,
 * and an empty TxnTypeMultiplierMap leaves the map (a non-empty one replaces it). Callers
 * validate the ranges. Answers the algorithm after the change.
 */
export async function updateHotFeedAlgorithm(store: Pick<Store, 'commit' | 'getMany'>, update: HotFeedAlgorithm): Promise<HotFeedAlgorithm> {
  const ops: WriteOp[] = [];
  for (const field of ['InteractionCap', 'InteractionCapTag', 'TimeDecayBlocks', 'TimeDecayBlocksTag'] as const) {
    if (update[field] > 0) ops.push({ op: 'set', key: hotFeedSettingKeys.algorithm(field), value: update[field] });
  }
  if (Object.keys(update.TxnTypeMultiplierMap).length > 0) {
    ops.push({ op: 'set', key: hotFeedSettingKeys.algorithm('TxnTypeMultiplierMap'), value: { ...update.TxnTypeMultiplierMap } });
  }
  if (ops.length > 0) await store.commit(ops);
  return getHotFeedAlgorithm(store);
}

export async function getUserMultiplier(store: Pick<Store, 'getMany'>, pk33: Uint8Array): Promise<UserMultiplier> {
  const pkHex = toHex(pk33);
  const [interaction, posts] = await store.getMany<number>([hotFeedSettingKeys.userInteraction(pkHex), hotFeedSettingKeys.userPosts(pkHex)]);
  return { InteractionMultiplier: interaction ?? 1, PostsMultiplier: posts ?? 1 };
}

/**
 * Sets the given multipliers of a user; a negative (or absent) one stays as it is, as the
 * reference ignores negatives. Answers the user's multipliers after the change.
 */
export async function updateUserMultiplier(store: Pick<Store, 'commit' | 'getMany'>, pk33: Uint8Array, update: UserMultiplier): Promise<UserMultiplier> {
  const pkHex = toHex(pk33);
  const ops: WriteOp[] = [];
  if (update.InteractionMultiplier >= 0) ops.push({ op: 'set', key: hotFeedSettingKeys.userInteraction(pkHex), value: update.InteractionMultiplier });
  if (update.PostsMultiplier >= 0) ops.push({ op: 'set', key: hotFeedSettingKeys.userPosts(pkHex), value: update.PostsMultiplier });
  if (ops.length > 0) await store.commit([...ops, { op: 'indexAdd', key: hotFeedSettingKeys.users, members: [pkHex] }]);
  return getUserMultiplier(store, pk33);
}

/** Sets a post's multiplier (callers validate the range). */
export async function setPostMultiplier(store: Pick<Store, 'commit'>, postHashHex: string, multiplier: number): Promise<void> {
  await store.commit([
    { op: 'set', key: hotFeedSettingKeys.post(postHashHex), value: multiplier },
    { op: 'indexAdd', key: hotFeedSettingKeys.posts, members: [postHashHex] },
  ]);
}

/** Every multiplier set, for one refresh of the ranking: as many as admins set, read in two batches. */
export interface HotFeedMultipliers {
  /** By public key hex. */
  users: Map<string, UserMultiplier>;
  /** By post hash hex. */
  posts: Map<string, number>;
}

export async function loadMultipliers(store: Pick<Store, 'indexRange' | 'getMany'>): Promise<HotFeedMultipliers> {
  const [userKeys, postHashes] = await Promise.all([store.indexRange(hotFeedSettingKeys.users), store.indexRange(hotFeedSettingKeys.posts)]);
  const [userValues, postValues] = await Promise.all([
    store.getMany<number>(userKeys.flatMap((pk) => [hotFeedSettingKeys.userInteraction(pk), hotFeedSettingKeys.userPosts(pk)])),
    store.getMany<number>(postHashes.map(hotFeedSettingKeys.post)),
  ]);
  const users = new Map(userKeys.map((pk, i) => [pk, { InteractionMultiplier: userValues[2 * i] ?? 1, PostsMultiplier: userValues[2 * i + 1] ?? 1 }] as const));
  const posts = new Map<string, number>();
  postHashes.forEach((h, i) => {
    const m = postValues[i];
    if (m !== undefined) posts.set(h, m);
  });
  return { users, posts };
}

/** Drops the multipliers of these posts (they left the lookback window). */
export async function dropPostMultipliers(store: Pick<Store, 'commit'>, postHashHexes: readonly string[]): Promise<void> {
  if (postHashHexes.length === 0) return;
  await store.commit([...postHashHexes.map((h): WriteOp => ({ op: 'del', key: hotFeedSettingKeys.post(h) })), { op: 'indexRemove', key: hotFeedSettingKeys.posts, members: [...postHashHexes] }]);
}
