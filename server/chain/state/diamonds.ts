/**
 * Diamonds in chain state (a BASIC_TRANSFER carrying ExtraData `DiamondLevel` and
 * `DiamondPostHash`; reference social-graph.md §4.2): one entry per (sender, post) holding the
 * highest level the sender gave that post, laid out so each read costs its answer:
 *
 * | key                                  | holds                                                        |
 * |--------------------------------------|--------------------------------------------------------------|
 * | `D:<post><sender>`                   | the level (a number, 1..8)                                   |
 * | index `Dpost:<post>`                 | `<level desc><sender>` of every sender of the post           |
 * | `Dsum:<receiver><sender>`            | StoredSummary: how many posts got each level (see below)     |
 * | index `Drecv:<receiver>`             | `<sender>` of every key that diamonded the receiver's posts  |
 * | index `Dgave:<sender>`               | `<receiver>` of every key whose posts the sender diamonded   |
 * | index `Dpair:<receiver><sender>`     | `<level desc><timestamp desc><post>` of each diamonded post  |
 *
 * The receiver is always the post's author (posts never change hands). Keys and hashes are key
 * text (keyText.ts, fixed width: 44 characters a key, 43 a hash); members that sort by several
 * fields are one byte string of ordered fields turned into text once, so `Dpost` lists a post's
 * senders highest level first and `Dpair` lists the posts a sender diamonded for a receiver as
 * get-diamonded-posts shows them (level, then newest).
 *
 * Core keys diamonds by PKID; this chain keys them by public key, as it keys everything else
 * (SWAP_IDENTITY does not move them; see rules/swapIdentity.ts).
 * @module
 */
import type { IndexRange } from '../../store/types.js';
import { bytesText, joinBytes, orderedUintDescending, readOrderedUint, textBytes, textLength } from './keyText.js';
import type { StateIndexReader, StateReader } from './reader.js';
import type { StateView } from './view.js';
import { HASH_BYTES, PUBLIC_KEY_BYTES } from '../txn/sizes.js';

const KEY_TEXT = textLength(PUBLIC_KEY_BYTES);

export const diamondKeys = {
  /** The level `sender` gave `post` (absent: none). */
  entry: (post32: Uint8Array, sender33: Uint8Array): string => `D:${bytesText(post32)}${bytesText(sender33)}`,
  /** Senders of a post, highest level first. */
  byPost: (post32: Uint8Array): string => `Dpost:${bytesText(post32)}`,
  /** What `sender` gave `receiver`, per level (StoredSummary). */
  summary: (receiver33: Uint8Array, sender33: Uint8Array): string => `Dsum:${bytesText(receiver33)}${bytesText(sender33)}`,
  /** Keys that diamonded the receiver. */
  received: (receiver33: Uint8Array): string => `Drecv:${bytesText(receiver33)}`,
  /** Keys the sender diamonded. */
  given: (sender33: Uint8Array): string => `Dgave:${bytesText(sender33)}`,
  /** Posts of `receiver` that `sender` diamonded, highest level first, then newest. */
  pair: (receiver33: Uint8Array, sender33: Uint8Array): string => `Dpair:${bytesText(receiver33)}${bytesText(sender33)}`,
};

/**
 * Posts per level, `[level 1, level 2, …]`, without trailing zeros: what get-diamonds-for-public-key
 * answers for one counterparty, kept as diamonds are given so that read costs one record per
 * counterparty instead of one per diamond.
 */
type StoredSummary = number[];

/** What one sender gave one receiver. */
export interface DiamondSummary {
  /** Level → number of posts whose diamond from the sender is at that level (levels with none left out). */
  postsByLevel: Map<number, number>;
  /** Σ levels over the posts (core's TotalDiamonds). */
  totalDiamonds: number;
  highestLevel: number;
}

/** A sender of a post and the level it gave. */
export interface PostDiamond {
  sender: Uint8Array;
  level: number;
}

/** A post a sender diamonded, and the level (as the `Dpair` index orders them). */
export interface DiamondedPost {
  postHash: Uint8Array;
  level: number;
  timestampNanos: bigint;
}

/** The level `sender` gave `post`; 0 when none. */
export async function getDiamondLevel(state: StateReader, post32: Uint8Array, sender33: Uint8Array): Promise<number> {
  return (await state.get<number>(diamondKeys.entry(post32, sender33))) ?? 0;
}

const postMember = (level: number, sender33: Uint8Array): string => bytesText(joinBytes(orderedUintDescending(BigInt(level)), sender33));

export function pairMember(d: DiamondedPost): string {
  return bytesText(joinBytes(orderedUintDescending(BigInt(d.level)), orderedUintDescending(d.timestampNanos), d.postHash));
}

function readPairMember(member: string): DiamondedPost {
  const bytes = textBytes(member);
  const level = readOrderedUint(bytes, 0, true);
  const ts = readOrderedUint(bytes, level.end, true);
  return { level: Number(level.value), timestampNanos: ts.value, postHash: bytes.slice(ts.end, ts.end + HASH_BYTES) };
}

function summaryOf(stored: StoredSummary | undefined): DiamondSummary {
  const postsByLevel = new Map<number, number>();
  let totalDiamonds = 0;
  let highestLevel = 0;
  (stored ?? []).forEach((count, i) => {
    if (count <= 0) return;
    const level = i + 1;
    postsByLevel.set(level, count);
    totalDiamonds += level * count;
    highestLevel = level;
  });
  return { postsByLevel, totalDiamonds, highestLevel };
}

export interface DiamondChange {
  sender: Uint8Array;
  /** The post's author. */
  receiver: Uint8Array;
  postHash: Uint8Array;
  /** The post's timestamp (its place in `Dpair`). */
  postTimestampNanos: bigint;
  /** The level given before (0: none) and the new, higher one. */
  previousLevel: number;
  level: number;
}

/** Records a new diamond level of (sender, post) and moves it in every index. */
export async function putDiamond(view: StateView, c: DiamondChange): Promise<void> {
  view.set(diamondKeys.entry(c.postHash, c.sender), c.level);
  const byPost = diamondKeys.byPost(c.postHash);
  const pair = diamondKeys.pair(c.receiver, c.sender);
  const at = (level: number): DiamondedPost => ({ postHash: c.postHash, level, timestampNanos: c.postTimestampNanos });
  if (c.previousLevel > 0) {
    view.indexRemove(byPost, [postMember(c.previousLevel, c.sender)]);
    view.indexRemove(pair, [pairMember(at(c.previousLevel))]);
  }
  view.indexAdd(byPost, [postMember(c.level, c.sender)]);
  view.indexAdd(pair, [pairMember(at(c.level))]);

  const summaryKey = diamondKeys.summary(c.receiver, c.sender);
  const counts = [...((await view.get<StoredSummary>(summaryKey)) ?? [])];
  while (counts.length < c.level) counts.push(0);
  if (c.previousLevel > 0) counts[c.previousLevel - 1] = Math.max(0, counts[c.previousLevel - 1]! - 1);
  counts[c.level - 1]! += 1;
  while (counts.length > 0 && counts[counts.length - 1] === 0) counts.pop();
  view.set(summaryKey, counts);
  if (c.previousLevel === 0) {
    view.indexAdd(diamondKeys.received(c.receiver), [bytesText(c.sender)]);
    view.indexAdd(diamondKeys.given(c.sender), [bytesText(c.receiver)]);
  }
}

/**
 * The senders of a post and their levels, highest level first (then by sender key bytes), at
 * most `limit` of them.
 */
export async function postDiamonds(state: StateIndexReader, post32: Uint8Array, limit: number): Promise<PostDiamond[]> {
  if (limit < 1) return [];
  const members = await state.indexRange(diamondKeys.byPost(post32), { limit });
  return members.map((m) => {
    const bytes = textBytes(m);
    const level = readOrderedUint(bytes, 0, true);
    return { level: Number(level.value), sender: bytes.slice(level.end, level.end + PUBLIC_KEY_BYTES) };
  });
}

/**
 * The counterparties of `pk` (by key bytes): the keys that diamonded its posts, or (`given`) the
 * keys whose posts it diamonded. At most `limit`.
 */
export async function diamondCounterparties(state: StateIndexReader, pk33: Uint8Array, given: boolean, limit: number): Promise<Uint8Array[]> {
  if (limit < 1) return [];
  const key = given ? diamondKeys.given(pk33) : diamondKeys.received(pk33);
  return (await state.indexRange(key, { limit })).map((m) => textBytes(m.slice(0, KEY_TEXT)));
}

/** What `sender` gave `receiver`: posts per level, their sum and the highest level. */
export async function diamondSummary(state: StateReader, receiver33: Uint8Array, sender33: Uint8Array): Promise<DiamondSummary> {
  return summaryOf(await state.get<StoredSummary>(diamondKeys.summary(receiver33, sender33)));
}

/**
 * The receiver's posts the sender diamonded, highest level first, then newest, after `after`
 * (exclusive; null: from the top), at most `limit`.
 */
export async function diamondedPostsPage(state: StateIndexReader, receiver33: Uint8Array, sender33: Uint8Array, after: DiamondedPost | null, limit: number): Promise<DiamondedPost[]> {
  if (limit < 1) return [];
  const range: IndexRange = { limit };
  if (after !== null) range.gt = pairMember(after);
  return (await state.indexRange(diamondKeys.pair(receiver33, sender33), range)).map(readPairMember);
}
