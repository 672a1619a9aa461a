/**
 * How hot a post is (reference routes/hot_feed.go PopulateHotnessInfoMap and
 * GetHotnessScoreInfoForTxn), as pure functions of what chain state says about the post: its
 * poster's balance, who interacted with it and how, and its age in blocks.
 *
 * A post's score is
 * - its creation score: the poster's native balance, at most the interaction cap, times the
 *   poster's PostsMultiplier;
 * - plus, for each key that liked, diamonded, commented on, reposted or quote-reposted it, once
 *   per key: that key's balance plus the coin locked in its creator coin, times the weight of
 *   its heaviest kind of interaction (TxnTypeMultiplierMap in basis points: LIKE, BASIC_TRANSFER
 *   for diamonds, SUBMIT_POST for comments and reposts; 10,000 = 1× when unset), at most the
 *   interaction cap, times the post's multiplier, the poster's PostsMultiplier and the key's
 *   InteractionMultiplier;
 * - every term halved for each TimeDecayBlocks blocks of the post's age (the reference decays an
 *   interaction by the age of the post, not of the interaction), the tip block being age 1.
 *
 * The tag feeds score the same way with InteractionCapTag and TimeDecayBlocksTag.
 *
 * Where this differs from the reference: an unlike takes the like back (the reference keeps
 * counting the LIKE transaction), comments and reposts count when they are made (the
 * reference's loop only reaches them when they are edited), and a key's heaviest interaction is
 * capped once (the reference caps each increase over its previous one separately).
 * @module
 */
import { TxnType } from '../chain/txn/metadata.js';
import { BASIS_POINTS_ONE, type HotFeedAlgorithm, type HotFeedMultipliers } from './hotFeedSettings.js';

/** The kinds of interaction with a post, each weighed as the transaction type that makes it. */
export const INTERACTION_TXN_TYPE = {
  like: TxnType.LIKE,
  diamond: TxnType.BASIC_TRANSFER,
  comment: TxnType.SUBMIT_POST,
  repost: TxnType.SUBMIT_POST,
  quoteRepost: TxnType.SUBMIT_POST,
} as const;
export type InteractionKind = keyof typeof INTERACTION_TXN_TYPE;

/** What the scorer needs of one post. */
export interface PostToScore {
  postHashHex: string;
  posterHex: string;
  /** Blocks from the tip: 1 for a post in the tip block. */
  ageBlocks: number;
  /** Kinds of interaction by interacting key (hex). */
  interactions: ReadonlyMap<string, ReadonlySet<InteractionKind>>;
}

/** Native nanos by key (hex): a poster's balance, an interacting key's balance plus its locked coin. */
export interface Wealth {
  balance: (pkHex: string) => bigint;
  balancePlusLocked: (pkHex: string) => bigint;
}

/** One parameter set: the global feed's or the tag feeds'. */
export interface ScoreParams {
  interactionCap: number;
  timeDecayBlocks: number;
  txnTypeBasisPoints: (txnType: number) => number;
}

export function globalParams(a: HotFeedAlgorithm): ScoreParams {
  return { interactionCap: a.InteractionCap, timeDecayBlocks: a.TimeDecayBlocks, txnTypeBasisPoints: basisPointsOf(a) };
}

export function tagParams(a: HotFeedAlgorithm): ScoreParams {
  return { interactionCap: a.InteractionCapTag, timeDecayBlocks: a.TimeDecayBlocksTag, txnTypeBasisPoints: basisPointsOf(a) };
}

function basisPointsOf(a: HotFeedAlgorithm): (txnType: number) => number {
  return (t) => a.TxnTypeMultiplierMap[String(t)] ?? BASIS_POINTS_ONE;
}

/** 0.5^(age / blocks per halving). */
export function decayFactor(ageBlocks: number, timeDecayBlocks: number): number {
  return Math.pow(0.5, ageBlocks / timeDecayBlocks);
}

/** `nanos` (≥ 0) at most `cap`, as a number (the cap is a safe integer). */
const capped = (nanos: bigint, cap: number): number => (nanos > BigInt(cap) ? cap : Number(nanos));

/** The score of one post; an integer, at most Number.MAX_SAFE_INTEGER. */
export function hotnessScore(post: PostToScore, wealth: Wealth, params: ScoreParams, multipliers: HotFeedMultipliers): number {
  const decay = decayFactor(post.ageBlocks, params.timeDecayBlocks);
  const postsMultiplier = multipliers.users.get(post.posterHex)?.PostsMultiplier ?? 1;
  const postMultiplier = multipliers.posts.get(post.postHashHex) ?? 1;
  let score = Math.floor(capped(wealth.balance(post.posterHex), params.interactionCap) * postsMultiplier * decay);
  for (const [key, kinds] of post.interactions) {
    let basisPoints = 0;
    for (const kind of kinds) basisPoints = Math.max(basisPoints, params.txnTypeBasisPoints(INTERACTION_TXN_TYPE[kind]));
    const weighed = capped((wealth.balancePlusLocked(key) * BigInt(basisPoints)) / BigInt(BASIS_POINTS_ONE), params.interactionCap);
    const interactionMultiplier = multipliers.users.get(key)?.InteractionMultiplier ?? 1;
    score += Math.floor(weighed * decay * postMultiplier * postsMultiplier * interactionMultiplier);
  }
  return Math.min(score, Number.MAX_SAFE_INTEGER);
}

/** Words of a tag: at least two characters, so a lone `#` is none. */
const TAG = /^[#@$].+$/u;
/** Tags one post is listed under (the first ones of its body): the bound of one post's index writes. */
export const MAX_TAGS_PER_POST = 20;
/** Longest tag kept, in UTF-8 bytes (a tag names store keys); a longer word is not a tag anyone types. */
export const MAX_TAG_BYTES = 100;

/**
 * The reference's ParseTagsFromPost: the words of the body (split on white space) that start
 * with `#`, `@` or `$` and have at least two characters, lower-cased, symbol included; each
 * once, at most MAX_TAGS_PER_POST of MAX_TAG_BYTES bytes or fewer.
 */
export function parseTags(body: string): string[] {
  const tags = new Set<string>();
  for (const word of body.split(/\s+/u)) {
    if (tags.size >= MAX_TAGS_PER_POST) break;
    if (!TAG.test(word)) continue;
    const tag = word.toLowerCase();
    if (Buffer.byteLength(tag) <= MAX_TAG_BYTES) tags.add(tag);
  }
  return [...tags];
}
