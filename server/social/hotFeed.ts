/**
 * The hot feed (reference routes/hot_feed.go): the top-level posts of the lookback window
 * (the last LOOKBACK_WINDOW_BLOCKS blocks) ranked by hotnessScore (hotFeedScore.ts), recomputed
 * by a periodic refresh (hotFeedJob.ts), not per request, and kept in the store as ordered
 * indexes, so a page reads the top of one index and costs the page (plus the posts the
 * reader has seen and the ones it skips).
 *
 * Node state (not chain state), written by the refresh:
 * - `social:hot:window` — the posts of the window, members `<height, 12 digits>:<post hash hex>`,
 *   found by reading each new block's SUBMIT_POST transactions once; `social:hot:scanned`
 *   names the last block read (a reorganisation that drops it starts the window over);
 * - `social:hot:rank` — the global ranking, members `<score desc>.<hash desc>|<hash>|<score>`
 *   (ties by post hash descending, as the reference sorts them);
 * - `social:hot:tag:<tag>` / `social:hot:tagnew:<tag>` — per tag (hotFeedScore.ts parseTags), by
 *   the tag score, and newest block first; `social:hot:tags` lists the tags written, so the next
 *   refresh replaces them. Every ranking is replaced in one commit;
 * - `social:hot:fingerprint` — what the rankings were made from (tip, settings): a refresh
 *   with nothing new writes nothing.
 *
 * The ranking holds the posts of the window that are top level, not vanilla reposts and not
 * hidden when it is made; a page checks each post again (it may have been hidden since). The
 * filtered page (get-hot-feed) also leaves out posts of blacklisted and graylisted authors
 * (admin update-user-global-metadata) and of keys the reader blocked; the unfiltered one
 * (admin/get-unfiltered-hot-feed) shows the whole ranking with each post's multiplier. Pinned
 * posts (admin/pin-post) come first on a page without SeenPosts and are not repeated below, as
 * in the reference.
 *
 * Bounds of one refresh (the reference has none; these keep a refresh's cost in proportion to a
 * busy window): MAX_WINDOW_POSTS newest posts, MAX_INTERACTIONS_READ keys per kind of interaction
 * per post, MAX_BLOCKS_READ blocks read per refresh (a node catching up on a long window reads
 * it over several refreshes). Mempool posts join once mined.
 * @module
 */
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { unpackBlockBody } from '../chain/block/body.js';
import { getBalance } from '../chain/state/balances.js';
import { postDiamonds } from '../chain/state/diamonds.js';
import { chainKeys, type BlockRecord, type TipRecord } from '../chain/state/keys.js';
import { likersRange } from '../chain/state/likes.js';
import { postIndexKeys, readCommentMember, readPostMember } from '../chain/state/postIndexes.js';
import { getPost, hashesOfMembers, isVanillaRepost, parsePostBody, type PostRecord } from '../chain/state/posts.js';
import { getProfile } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { decodeTxn, txnHash, txnTypeOf } from '../chain/txn/envelope.js';
import { decodeMetadata, TxnType, type SubmitPostMetadata } from '../chain/txn/metadata.js';
import { fromHex, toHex } from '../hex.js';
import type { Store, WriteOp } from '../store/types.js';
import { feedKeys, MAX_PINNED_POSTS } from './feed.js';
import { globalParams, hotnessScore, MAX_TAG_BYTES, parseTags, tagParams, type InteractionKind, type PostToScore } from './hotFeedScore.js';
import { dropPostMultipliers, getHotFeedAlgorithm, hotFeedSettingKeys, loadMultipliers, type HotFeedAlgorithm, type HotFeedMultipliers } from './hotFeedSettings.js';
import type { PostReads } from './postReads.js';

/** The reference's LookbackWindowBlocks: a week of one-second blocks. */
export const LOOKBACK_WINDOW_BLOCKS = 7 * 24 * 60 * 60;
/** Posts one refresh scores, the newest of the window. */
export const MAX_WINDOW_POSTS = 10_000;
/** Keys read per kind of interaction (likes, diamonds, comments, reposts, quote reposts) of one post. */
export const MAX_INTERACTIONS_READ = 2_000;
/** Blocks one refresh reads (a few thousand small blocks: well under a second). */
export const MAX_BLOCKS_READ = 5_000;
/**
 * Blocks read per store round trip: few enough that one answer (blocks of ~100 transactions
 * under a stream of writes, ~20 KB each) is parsed without holding requests up.
 */
const BLOCK_BATCH = 20;
/** Ranking entries one page may look at, the seen and skipped ones included. */
export const MAX_ENTRIES_SCANNED = 20_000;

export const hotFeedKeys = {
  window: 'social:hot:window',
  scanned: 'social:hot:scanned',
  rank: 'social:hot:rank',
  tag: (tag: string): string => `social:hot:tag:${tag}`,
  tagNew: (tag: string): string => `social:hot:tagnew:${tag}`,
  tags: 'social:hot:tags',
  fingerprint: 'social:hot:fingerprint',
};

interface ScannedRecord {
  height: number;
  hashHex: string;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const HEIGHT_DIGITS = 12;
const windowMember = (height: number, hashHex: string): string => `${pad(height, HEIGHT_DIGITS)}:${hashHex}`;
/** Each hex digit complemented: ascending order of the result is descending order of the hash. */
const invertHex = (hex: string): string => hex.replace(/[0-9a-f]/g, (c) => (15 - parseInt(c, 16)).toString(16));
/** `n` (0 ≤ n < 10^width, an integer) as fixed-width text whose ascending order is descending order of `n`. */
const descending = (n: number, width: number): string => (10n ** BigInt(width) - 1n - BigInt(n)).toString().padStart(width, '0');

/** A ranking member: sorts by `sortKey`, then names the post and its score. */
const rankMember = (sortKey: string, hashHex: string, score: number): string => `${sortKey}|${hashHex}|${score}`;
export const scoreMember = (hashHex: string, score: number): string => rankMember(`${descending(score, 16)}.${invertHex(hashHex)}`, hashHex, score);
const newestMember = (height: number, hashHex: string, score: number): string => rankMember(descending(height, HEIGHT_DIGITS), hashHex, score);

export interface RankedPost {
  postHashHex: string;
  score: number;
}

export function readRankMember(member: string): RankedPost {
  const [, postHashHex, score] = member.split('|');
  return { postHashHex: postHashHex!, score: Number(score) };
}

// --- the refresh --------------------------------------------------------------------------------

/** The new top-level posts a block's transactions create (their hashes, hex). */
async function postsCreatedIn(block: BlockRecord): Promise<string[]> {
  const hashes: string[] = [];
  for (const bytes of await unpackBlockBody(block.body)) {
    // Most of a block is other types: their type is read without decoding them.
    if (txnTypeOf(bytes) !== TxnType.SUBMIT_POST) continue;
    const txn = decodeTxn(bytes);
    const m = decodeMetadata(txn.txnType, txn.metadata) as SubmitPostMetadata;
    if (m.postHashToModify.length === 0 && m.parentStakeId.length === 0) hashes.push(toHex(txnHash(bytes)));
  }
  return hashes;
}

/**
 * Brings `social:hot:window` up to the tip: reads the blocks after the last one read (at most
 * MAX_BLOCKS_READ), drops the posts of blocks that left the window. Answers the window's first
 * height.
 */
async function advanceWindow(store: Store, tip: TipRecord): Promise<number> {
  const tipHeight = Number(tip.height);
  const start = Math.max(1, tipHeight - LOOKBACK_WINDOW_BLOCKS + 1);
  const scanned = await store.get<ScannedRecord>(hotFeedKeys.scanned);
  let from = start;
  const ops: WriteOp[] = [];
  if (scanned !== undefined && (await store.get<string>(chainKeys.hashAtHeight(BigInt(scanned.height)))) === scanned.hashHex) {
    from = Math.max(start, scanned.height + 1);
  } else {
    // First refresh, or the block last read left the main chain: read the window again.
    ops.push({ op: 'del', key: hotFeedKeys.window });
  }
  const to = Math.min(tipHeight, from + MAX_BLOCKS_READ - 1);
  let last: ScannedRecord | undefined = scanned;
  const added: string[] = [];
  for (let h = from; h <= to; h += BLOCK_BATCH) {
    const heights = Array.from({ length: Math.min(BLOCK_BATCH, to - h + 1) }, (_, i) => h + i);
    const hashes = await store.getMany<string>(heights.map((x) => chainKeys.hashAtHeight(BigInt(x))));
    const known = heights.flatMap((height, i) => (hashes[i] === undefined ? [] : [{ height, hashHex: hashes[i]! }]));
    const blocks = await store.getMany<BlockRecord>(known.map((b) => chainKeys.block(b.hashHex)));
    for (const [i, b] of known.entries()) {
      const block = blocks[i];
      if (block === undefined) continue;
      for (const hashHex of await postsCreatedIn(block)) added.push(windowMember(b.height, hashHex));
      last = b;
      // A block at a time: a refresh reads every block of the last 30 s (tens of thousands of
      // transactions under a stream of writes), which in one go would hold requests up for tens
      // of milliseconds.
      await nextTurn();
    }
  }
  if (added.length > 0) ops.push({ op: 'indexAdd', key: hotFeedKeys.window, members: added });
  if (last !== undefined && last !== scanned) ops.push({ op: 'set', key: hotFeedKeys.scanned, value: last });
  if (ops.length > 0) await store.commit(ops);
  const left = await store.indexRange(hotFeedKeys.window, { lt: pad(start, HEIGHT_DIGITS) });
  if (left.length > 0) await store.indexRemove(hotFeedKeys.window, left);
  return start;
}

/** Who interacted with a post and how: read from the likes, diamonds and post indexes. */
async function interactionsOf(state: StateIndexReader, post: PostRecord): Promise<Map<string, Set<InteractionKind>>> {
  const [likers, diamonds, comments, reposts, quotes] = await Promise.all([
    likersRange(state, post.postHash, { limit: MAX_INTERACTIONS_READ }),
    postDiamonds(state, post.postHash, MAX_INTERACTIONS_READ),
    state.indexRange(postIndexKeys.comments(post.postHash), { limit: MAX_INTERACTIONS_READ }),
    state.indexRange(postIndexKeys.reposts(post.postHash), { limit: MAX_INTERACTIONS_READ }),
    state.indexRange(postIndexKeys.quoteReposts(post.postHash), { limit: MAX_INTERACTIONS_READ }),
  ]);
  const out = new Map<string, Set<InteractionKind>>();
  const add = (pk: Uint8Array, kind: InteractionKind): void => {
    const k = toHex(pk);
    let kinds = out.get(k);
    if (kinds === undefined) out.set(k, (kinds = new Set()));
    kinds.add(kind);
  };
  for (const pk of likers) add(pk, 'like');
  for (const d of diamonds) add(d.sender, 'diamond');
  for (const m of comments) add(readCommentMember(m).poster, 'comment');
  for (const m of reposts) add(readPostMember(m).poster, 'repost');
  for (const m of quotes) add(readPostMember(m).poster, 'quoteRepost');
  return out;
}

/** A post of the window and its scores, as one refresh computed them. */
export interface ScoredPost {
  post: PostRecord;
  score: number;
  tagScore: number;
  tags: string[];
}

/**
 * Scores `posts` (those the ranking may hold: top level, not vanilla reposts, not hidden) at
 * `tipHeight` from `state`, with the given algorithm and multipliers.
 */
export async function scorePosts(
  state: StateIndexReader,
  posts: readonly PostRecord[],
  tipHeight: bigint,
  algorithm: HotFeedAlgorithm,
  multipliers: HotFeedMultipliers,
): Promise<ScoredPost[]> {
  const interactions = await Promise.all(posts.map((p) => interactionsOf(state, p)));
  const keys = new Set<string>();
  posts.forEach((p, i) => {
    keys.add(toHex(p.posterPublicKey));
    for (const k of interactions[i]!.keys()) keys.add(k);
  });
  const balances = new Map<string, bigint>();
  const locked = new Map<string, bigint>();
  await Promise.all(
    [...keys].map(async (k) => {
      const pk = fromHex(k);
      const [balance, profile] = await Promise.all([getBalance(state, pk), getProfile(state, pk)]);
      balances.set(k, balance);
      locked.set(k, profile?.creatorCoin.nanosLocked ?? 0n);
    }),
  );
  const wealth = { balance: (k: string) => balances.get(k) ?? 0n, balancePlusLocked: (k: string) => (balances.get(k) ?? 0n) + (locked.get(k) ?? 0n) };
  const global = globalParams(algorithm);
  const tag = tagParams(algorithm);
  return posts.map((post, i) => {
    const toScore: PostToScore = {
      postHashHex: toHex(post.postHash),
      posterHex: toHex(post.posterPublicKey),
      ageBlocks: Math.max(1, Number(tipHeight - post.confirmationBlockHeight) + 1),
      interactions: interactions[i]!,
    };
    return { post, score: hotnessScore(toScore, wealth, global, multipliers), tagScore: hotnessScore(toScore, wealth, tag, multipliers), tags: parseTags(parsePostBody(post).Body) };
  });
}

/** Whether the ranking may hold the post. */
const rankable = (p: PostRecord | undefined): p is PostRecord => p !== undefined && p.parentStakeId.length === 0 && !isVanillaRepost(p) && !p.isHidden;

/**
 * One refresh: advances the window to the tip, scores its posts from the mined state, and
 * replaces the rankings. Drops the multipliers of posts that left the window. Answers how many
 * posts the global ranking holds.
 */
export async function refreshHotFeed(store: Store): Promise<number> {
  const [tip, algorithm, multipliers, last] = await Promise.all([
    store.get<TipRecord>(chainKeys.tip),
    getHotFeedAlgorithm(store),
    loadMultipliers(store),
    store.get<Fingerprint>(hotFeedKeys.fingerprint),
  ]);
  if (tip === undefined) return 0;
  // Scores are a function of the mined state (which moves with the tip) and the settings: with
  // neither changed, the rankings stand and an idle node writes nothing.
  const inputs = fingerprintOf(tip, algorithm, multipliers);
  if (last !== undefined && last.inputs === inputs) return last.ranked;
  const windowStart = await advanceWindow(store, tip);
  const members = await store.indexRange(hotFeedKeys.window, { reverse: true, limit: MAX_WINDOW_POSTS });
  const hashes = members.map((m) => m.slice(HEIGHT_DIGITS + 1));
  const [posts, previousTags] = await Promise.all([Promise.all(hashes.map((h) => getPost(store, fromHex(h)))), store.get<string[]>(hotFeedKeys.tags)]);
  const scored = await scorePosts(store, posts.filter(rankable), tip.height, algorithm, multipliers);

  const byTag = new Map<string, ScoredPost[]>();
  for (const s of scored) {
    for (const t of s.tags) {
      const list = byTag.get(t);
      if (list === undefined) byTag.set(t, [s]);
      else list.push(s);
    }
  }
  const ops: WriteOp[] = [{ op: 'del', key: hotFeedKeys.rank }, ...(previousTags ?? []).flatMap((t): WriteOp[] => [{ op: 'del', key: hotFeedKeys.tag(t) }, { op: 'del', key: hotFeedKeys.tagNew(t) }])];
  if (scored.length > 0) ops.push({ op: 'indexAdd', key: hotFeedKeys.rank, members: scored.map((s) => scoreMember(toHex(s.post.postHash), s.score)) });
  for (const [t, list] of byTag) {
    ops.push({ op: 'indexAdd', key: hotFeedKeys.tag(t), members: list.map((s) => scoreMember(toHex(s.post.postHash), s.tagScore)) });
    ops.push({ op: 'indexAdd', key: hotFeedKeys.tagNew(t), members: list.map((s) => newestMember(Number(s.post.confirmationBlockHeight), toHex(s.post.postHash), s.tagScore)) });
  }
  ops.push({ op: 'set', key: hotFeedKeys.tags, value: [...byTag.keys()] });
  await store.commit(ops);

  // Multipliers of posts mined before the window began are of no use (those of posts still in
  // the mempool wait for their block).
  const inWindow = new Set(hashes);
  const outside = [...multipliers.posts.keys()].filter((h) => !inWindow.has(h));
  const outsidePosts = await Promise.all(outside.map((h) => getPost(store, fromHex(h))));
  await dropPostMultipliers(
    store,
    outside.filter((_, i) => {
      const p = outsidePosts[i];
      return p !== undefined && p.confirmationBlockHeight < BigInt(windowStart);
    }),
  );
  // Last, so a refresh that failed half way is done again. A window read over several refreshes
  // (MAX_BLOCKS_READ) is not finished: the next refresh goes on whatever the fingerprint.
  const caughtUp = ((await store.get<ScannedRecord>(hotFeedKeys.scanned))?.height ?? 0) >= Number(tip.height);
  await store.set(hotFeedKeys.fingerprint, { inputs: caughtUp ? inputs : '', ranked: scored.length } satisfies Fingerprint);
  return scored.length;
}

/** What the rankings were last made from, and how many posts the global one holds. */
interface Fingerprint {
  inputs: string;
  ranked: number;
}

function fingerprintOf(tip: TipRecord, algorithm: HotFeedAlgorithm, multipliers: HotFeedMultipliers): string {
  const sorted = <T>(m: Map<string, T>): Array<[string, T]> => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = JSON.stringify([tip.hashHex, algorithm, sorted(multipliers.users), sorted(multipliers.posts)]);
  return createHash('sha256').update(text).digest('hex');
}

// --- pages ----------------------------------------------------------------------------------------

export interface HotFeedPageRequest {
  /** Post hashes (hex, lower case) the reader has seen: left out, and the page goes further down. */
  seen: ReadonlySet<string>;
  limit: number;
  /** A tag's ranking instead of the global one (lower case, symbol included); "" for none. */
  tag: string;
  /** With a tag: newest first instead of hottest first. */
  sortByNew: boolean;
  /** get-hot-feed leaves out moderated authors; the unfiltered admin page does not. */
  filtered: boolean;
}

export interface HotFeedEntry {
  post: PostRecord;
  score: number;
  pinned: boolean;
}

/**
 * One page: pinned posts first when nothing was seen, then the ranking from the top, skipping
 * seen, pinned, hidden and (filtered) moderated posts. Reads `limit` + seen + skipped entries,
 * at most MAX_ENTRIES_SCANNED.
 */
export async function hotFeedPage(store: Store, reads: PostReads, req: HotFeedPageRequest): Promise<HotFeedEntry[]> {
  const state = reads.ctx.state;
  const pinnedMembers = await store.indexRange(feedKeys.pinned, { reverse: true, limit: MAX_PINNED_POSTS });
  const pinnedHashes = hashesOfMembers(pinnedMembers);
  const pinnedHex = new Set(pinnedHashes.map(toHex));
  const reader = reads.ctx.reader;
  const blocked = req.filtered && reader !== null ? await reads.blocksOf(reader) : new Set<string>();
  const shown = async (p: PostRecord | undefined): Promise<boolean> => {
    if (p === undefined || p.isHidden || p.parentStakeId.length !== 0) return false;
    if (!req.filtered) return true;
    return !blocked.has(toHex(p.posterPublicKey)) && !(await reads.isRestricted(p.posterPublicKey));
  };

  const out: HotFeedEntry[] = [];
  if (req.seen.size === 0) {
    const pinned = await Promise.all(pinnedHashes.map((h) => getPost(state, h)));
    for (const p of pinned) if (await shown(p)) out.push({ post: p!, score: 0, pinned: true });
  }
  const key = req.tag === '' ? hotFeedKeys.rank : req.sortByNew ? hotFeedKeys.tagNew(req.tag) : hotFeedKeys.tag(req.tag);
  const ranked: HotFeedEntry[] = [];
  let cursor: string | undefined;
  // No post is listed under a longer tag (parseTags): nothing to read.
  let scanned = Buffer.byteLength(req.tag) > MAX_TAG_BYTES ? MAX_ENTRIES_SCANNED : 0;
  while (ranked.length < req.limit && scanned < MAX_ENTRIES_SCANNED) {
    const limit = Math.min(req.limit - ranked.length + req.seen.size, MAX_ENTRIES_SCANNED - scanned);
    const members = await store.indexRange(key, { limit, ...(cursor === undefined ? {} : { gt: cursor }) });
    if (members.length === 0) break;
    scanned += members.length;
    cursor = members[members.length - 1];
    const entries = members.map(readRankMember).filter((e) => !req.seen.has(e.postHashHex) && !pinnedHex.has(e.postHashHex));
    const posts = await Promise.all(entries.map((e) => getPost(state, fromHex(e.postHashHex))));
    for (let i = 0; i < entries.length && ranked.length < req.limit; i++) {
      const p = posts[i];
      if (await shown(p)) ranked.push({ post: p!, score: entries[i]!.score, pinned: false });
    }
  }
  return [...out, ...ranked];
}

/** The multiplier of each post (1 when none is set), for the unfiltered page. */
export async function postMultipliers(store: Store, hashHexes: readonly string[]): Promise<number[]> {
  const values = await store.getMany<number>(hashHexes.map(hotFeedSettingKeys.post));
  return values.map((m) => m ?? 1);
}
