/**
 * The post reads a frontend shows (issue 21; reference social-graph.md §5): a single post with
 * its parents and comment threads, a user's posts, the plain recent feed and the follow feed,
 * and the reposts and quote reposts of a post. Each list is one index of
 * chain/state/postIndexes.ts read a page at a time, so a request costs its answer (plus the
 * entries a page skips: blocked and restricted authors, bounded by MAX_ENTRIES_SCANNED).
 *
 * Where this differs from the reference on purpose (README "Posts"):
 * - hidden (deleted) reposts and quote reposts are not listed, as the counters do not count
 *   them; each quote repost is listed once (the reference repeats an author's k quotes k×k);
 * - the follow feed pages through the whole history (the reference looks back 2 days);
 * - lists come in index order instead of the reference's rankings by coin value, which change
 *   with every trade and cannot be kept in an index: comments are the post author's own
 *   (oldest first), then the rest newest first; reposters and quote reposts newest first;
 * - Offset is at most MAX_OFFSET.
 * @module
 */
import { getPost, postKeys, type PostRecord } from '../chain/state/posts.js';
import { postIndexKeys, postMember, readCommentMember, readPostMember, type PostMember } from '../chain/state/postIndexes.js';
import { getProfile } from '../chain/state/profiles.js';
import { chainKeys } from '../chain/state/keys.js';
import type { StateIndexReader, StateReader } from '../chain/state/reader.js';
import { DomainError } from '../errors.js';
import { toHex } from '../hex.js';
import { indexHas } from '../store/indexHas.js';
import { isInGlobalFeed } from './feed.js';
import { postEntryResponse } from './postEntry.js';
import { postEntryReaderState } from './postEntry.js';
import { profileEntryResponse, type ProfileDeps } from './profileEntry.js';
import { blockedKeysHex, userMetadataKeys } from './userMetadata.js';

/** A refused post read: `invalid` answers 400, `notFound` 404. */
export class PostReadError extends DomainError {
  override readonly name = 'PostReadError';
  constructor(message: string, kind: 'invalid' | 'notFound' = 'invalid') {
    super(kind === 'invalid' ? 'POSTS_REQUEST_INVALID' : 'POSTS_NOT_FOUND', kind, message);
  }
}

/** Offset paging (comments, reposts, quote reposts) starts at most this far in. */
export const MAX_OFFSET = 10_000;
/** Index entries one list may look at, skipped ones included: MAX_OFFSET plus a page, plus room for skipped authors. */
export const MAX_ENTRIES_SCANNED = 20_000;
/** get-single-post: comments one answer holds across all thread levels (the reference has no bound). */
export const MAX_THREAD_COMMENTS = 1_000;
/** get-single-post: parents walked up from the post (the reference's bound). */
export const MAX_PARENT_POSTS = 100;
/** The reference's bounds of get-single-post, applied (as it does) by lowering larger values. */
export const MAX_COMMENT_LIMIT = 30;
export const MAX_THREAD_LEVEL_LIMIT = 4;
/** The follow feed reads the posts of at most this many followed accounts (the first ones the follow reader lists). */
export const MAX_FOLLOWED_READ = 5_000;

/** What one read request sees: one pending view (tip plus mempool, as the reference reads) and the reader. */
export interface PostReadContext {
  deps: ProfileDeps;
  state: StateIndexReader;
  /** Posts connected above the tip are still in the mempool: the tip `state` sits on. */
  tipHeight: bigint;
  /**
   * Mined state, where the tip is read when an answer shows a post in the mempool: the block
   * that mines it changes the answer, and a cached answer records the read (http/readCache.ts).
   */
  mined: StateReader;
  reader: Uint8Array | null;
  /** Adds `InGlobalFeed` to every post response, nested ones included. */
  addGlobalFeedBool: boolean;
}

/** A post response's profile: always the poster's, or null for authors restricted from the reader ("leaderboard" moderation), or none. */
type ProfileField = 'poster' | 'unrestricted' | 'none';

interface EntryOptions {
  profile: ProfileField;
  readerState: boolean;
}

const sameKey = (a: Uint8Array, b: Uint8Array | null): boolean => b !== null && Buffer.compare(a, b) === 0;

/** Per-request shaping of posts, with the profile and moderation lookups of its authors cached. */
export class PostReads {
  private readonly profiles = new Map<string, Promise<Record<string, unknown> | null>>();
  private readonly flags = new Map<string, Promise<{ blacklisted: boolean; graylisted: boolean }>>();
  private readonly hasProfiles = new Map<string, Promise<boolean>>();
  private readonly blocks = new Map<string, Promise<Set<string>>>();
  private tipRead: Promise<unknown> | undefined;

  constructor(readonly ctx: PostReadContext) {}

  /**
   * Whether `post` waits in the mempool. When it does, the answer changes with the block that
   * mines it: the tip is read (once per request). A mined post stays mined.
   */
  private async inMempool(post: PostRecord): Promise<boolean> {
    if (post.confirmationBlockHeight <= this.ctx.tipHeight) return false;
    await (this.tipRead ??= this.ctx.mined.get(chainKeys.tip));
    return true;
  }

  profileOf(pk33: Uint8Array): Promise<Record<string, unknown> | null> {
    const k = toHex(pk33);
    let p = this.profiles.get(k);
    if (p === undefined) this.profiles.set(k, (p = profileEntryResponse(this.ctx.deps, this.ctx.state, pk33)));
    return p;
  }

  hasProfile(pk33: Uint8Array): Promise<boolean> {
    const k = toHex(pk33);
    let p = this.hasProfiles.get(k);
    if (p === undefined) this.hasProfiles.set(k, (p = getProfile(this.ctx.state, pk33).then((x) => x !== undefined)));
    return p;
  }

  /** The public keys (hex) `pk33` blocked on this node. */
  blocksOf(pk33: Uint8Array): Promise<Set<string>> {
    const k = toHex(pk33);
    let p = this.blocks.get(k);
    if (p === undefined) this.blocks.set(k, (p = blockedKeysHex(this.ctx.deps.store, pk33)));
    return p;
  }

  /** The author's moderation flags as the reader sees them: the reader is never restricted for themself. */
  moderation(pk33: Uint8Array): Promise<{ blacklisted: boolean; graylisted: boolean }> {
    if (sameKey(pk33, this.ctx.reader)) return Promise.resolve({ blacklisted: false, graylisted: false });
    const k = toHex(pk33);
    let p = this.flags.get(k);
    if (p === undefined) {
      const store = this.ctx.deps.store;
      p = Promise.all([indexHas(store, userMetadataKeys.blacklist, k), indexHas(store, userMetadataKeys.graylist, k)]).then(([blacklisted, graylisted]) => ({ blacklisted, graylisted }));
      this.flags.set(k, p);
    }
    return p;
  }

  /** The reference's "leaderboard" restriction: black- or graylisted. */
  async isRestricted(pk33: Uint8Array): Promise<boolean> {
    const m = await this.moderation(pk33);
    return m.blacklisted || m.graylisted;
  }

  /**
   * The PostEntryResponse of `post`: its own fields, the reposted post (top-level posts only,
   * two levels down, each with its poster's profile and the reader state), and what `o` asks.
   */
  async entry(post: PostRecord, o: EntryOptions, repostLevels = 2): Promise<Record<string, unknown>> {
    const c = this.ctx;
    const r = await postEntryResponse(c.state, post, c.deps.config.network, { inMempool: await this.inMempool(post), withReposted: false });
    if (post.parentStakeId.length === 0 && post.repostedPostHash !== null && repostLevels > 0) {
      const original = await getPost(c.state, post.repostedPostHash);
      if (original !== undefined) r['RepostedPostEntryResponse'] = await this.entry(original, { profile: 'poster', readerState: true }, repostLevels - 1);
    }
    if (o.profile === 'poster') r['ProfileEntryResponse'] = await this.profileOf(post.posterPublicKey);
    else if (o.profile === 'unrestricted') r['ProfileEntryResponse'] = (await this.isRestricted(post.posterPublicKey)) ? null : await this.profileOf(post.posterPublicKey);
    if (o.readerState) r['PostEntryReaderState'] = await postEntryReaderState(c.state, post, c.reader);
    if (c.addGlobalFeedBool) r['InGlobalFeed'] = await isInGlobalFeed(c.deps.store, post);
    return r;
  }

  async loadAll(members: readonly PostMember[]): Promise<PostRecord[]> {
    const posts = await Promise.all(members.map((m) => getPost(this.ctx.state, m.postHash)));
    return posts.filter((p): p is PostRecord => p !== undefined);
  }
}

// --- paging -----------------------------------------------------------------------------------

interface PageRequest {
  key: string;
  /** Kept members to pass over first. */
  offset: number;
  limit: number;
  reverse: boolean;
  /** Start after this member (exclusive). */
  after?: string;
  /** Which members of a batch to keep. */
  keep: (members: string[]) => Promise<boolean[]>;
  maxScanned?: number;
}

/** Kept members `[offset, offset + limit)` of an index, read in batches of what is still wanted. */
async function filteredPage(state: StateIndexReader, req: PageRequest): Promise<string[]> {
  const out: string[] = [];
  const maxScanned = req.maxScanned ?? MAX_ENTRIES_SCANNED;
  let passed = 0;
  let scanned = 0;
  let cursor = req.after;
  while (out.length < req.limit && scanned < maxScanned) {
    const limit = Math.min(req.offset - passed + req.limit - out.length, maxScanned - scanned);
    const bound = cursor === undefined ? {} : req.reverse ? { lt: cursor } : { gt: cursor };
    const members = await state.indexRange(req.key, { reverse: req.reverse, limit, ...bound });
    if (members.length === 0) break;
    scanned += members.length;
    cursor = members[members.length - 1];
    const kept = await req.keep(members);
    for (let i = 0; i < members.length && out.length < req.limit; i++) {
      if (!kept[i]) continue;
      if (passed < req.offset) passed++;
      else out.push(members[i]!);
    }
  }
  return out;
}

// --- get-single-post --------------------------------------------------------------------------

export interface SinglePostRequest {
  postHash: Uint8Array;
  fetchParents: boolean;
  commentOffset: number;
  /** Lowered to MAX_COMMENT_LIMIT. */
  commentLimit: number;
  /** Lowered to MAX_THREAD_LEVEL_LIMIT. */
  threadLevelLimit: number;
  /** Children kept below the top level: 0 none, -1 all. */
  threadLeafLimit: number;
  loadAuthorThread: boolean;
}

interface Thread {
  reads: PostReads;
  req: SinglePostRequest;
  /** Authors hidden in the whole tree: blocked by the reader or by the thread's root author (hex). */
  blocked: ReadonlySet<string>;
  topPoster: Uint8Array;
  /** Comments still allowed in the answer. */
  budget: number;
}

/** The post's parents, root first, up to MAX_PARENT_POSTS; `truncated` when the root was not reached. */
async function parentsOf(state: StateIndexReader, post: PostRecord): Promise<{ parents: PostRecord[]; truncated: boolean }> {
  const parents: PostRecord[] = [];
  let at = post.parentStakeId;
  while (at.length === 32 && parents.length < MAX_PARENT_POSTS) {
    const p = await getPost(state, at);
    if (p === undefined) break;
    parents.unshift(p);
    at = p.parentStakeId;
  }
  return { parents, truncated: at.length === 32 && parents.length >= MAX_PARENT_POSTS };
}

/**
 * The comments on `parent` as get-single-post shows them: at the top level the page
 * `[CommentOffset, +CommentLimit)`, below it the first ThreadLeafLimit; each expanded while
 * within ThreadLevelLimit (or along the post author's own thread with LoadAuthorThread).
 * Commenters blocked by the reader, by the thread's root author or (spec §4.4) by the author
 * of the post they comment on are left out. Null when there are none, as the reference.
 */
async function commentsOf(t: Thread, parent: PostRecord, level: number): Promise<Record<string, unknown>[] | null> {
  const { reads, req } = t;
  const leafLimit = req.threadLeafLimit;
  const limit = Math.min(level === 0 ? req.commentLimit : leafLimit === -1 ? Number.MAX_SAFE_INTEGER : Math.max(leafLimit, 0), t.budget);
  if (limit <= 0) return null;
  const parentBlocks = await reads.blocksOf(parent.posterPublicKey);
  const shown = (m: PostMember): boolean => {
    const h = toHex(m.poster);
    return !t.blocked.has(h) && (!parentBlocks.has(h) || sameKey(m.poster, parent.posterPublicKey));
  };
  const members = await filteredPage(reads.ctx.state, {
    key: postIndexKeys.comments(parent.postHash),
    offset: level === 0 ? req.commentOffset : 0,
    limit,
    reverse: false,
    keep: async (ms) => ms.map((m) => shown(readCommentMember(m))),
  });
  const comments = await reads.loadAll(members.map(readCommentMember));
  if (comments.length === 0) return null;
  t.budget -= comments.length;
  const out = await Promise.all(comments.map((c) => reads.entry(c, { profile: 'unrestricted', readerState: true })));
  for (let i = 0; i < comments.length; i++) {
    const c = comments[i]!;
    const authorThread = req.loadAuthorThread && sameKey(c.posterPublicKey, t.topPoster);
    if ((level < req.threadLevelLimit || authorThread) && t.budget > 0) out[i]!['Comments'] = await commentsOf(t, c, level + 1);
  }
  return out;
}

/** get-single-post's `PostFound`. */
export async function singlePost(reads: PostReads, req: SinglePostRequest): Promise<Record<string, unknown>> {
  const { state, reader } = reads.ctx;
  const post = await getPost(state, req.postHash);
  if (post === undefined) throw new PostReadError('GetSinglePost: Could not find postEntry for PostHashHex');
  if ((await reads.moderation(post.posterPublicKey)).blacklisted) throw new PostReadError('GetSinglePost: The poster public key for this post is restricted.');

  const { parents, truncated } = req.fetchParents ? await parentsOf(state, post) : { parents: [], truncated: false };
  // As the reference: the thread's root is the first parent when parents were fetched, else the post itself.
  const root = truncated ? null : (parents[0] ?? post);
  const [readerBlocks, rootBlocks] = await Promise.all([
    reader === null ? new Set<string>() : reads.blocksOf(reader),
    root === null ? new Set<string>() : reads.blocksOf(root.posterPublicKey),
  ]);
  const blocked = new Set([...readerBlocks, ...rootBlocks]);

  const found = await reads.entry(post, { profile: 'poster', readerState: true });
  const parentPosts: Record<string, unknown>[] = [];
  for (const p of parents) {
    // The reference drops a parent whose author it hides (blocked or restricted) when that
    // author has a profile, and any parent of a blacklisted author.
    const hidden = blocked.has(toHex(p.posterPublicKey)) || (await reads.isRestricted(p.posterPublicKey));
    if (hidden && ((await reads.hasProfile(p.posterPublicKey)) || (await reads.moderation(p.posterPublicKey)).blacklisted)) continue;
    const r = await reads.entry(p, { profile: 'none', readerState: true });
    r['ProfileEntryResponse'] = hidden ? null : await reads.profileOf(p.posterPublicKey);
    parentPosts.push(r);
  }
  found['Comments'] = await commentsOf({ reads, req, blocked, topPoster: post.posterPublicKey, budget: MAX_THREAD_COMMENTS }, post, 0);
  found['ParentPosts'] = parentPosts;
  return found;
}

// --- get-posts-for-public-key -----------------------------------------------------------------

export interface PostsForPublicKeyRequest {
  poster: Uint8Array;
  /** Start after this post; null for the newest. */
  lastPostHash: Uint8Array | null;
  numToFetch: number;
  mediaRequired: boolean;
  /** No post on this chain is an NFT: with it the page is empty. */
  onlyNFTs: boolean;
}

/** get-posts-for-public-key: the poster's top-level posts (vanilla reposts included), newest first. */
export async function postsForPublicKey(reads: PostReads, req: PostsForPublicKeyRequest): Promise<{ Posts: Record<string, unknown>[] | null; LastPostHashHex: string }> {
  const { state, reader } = reads.ctx;
  let after: string | undefined;
  if (req.lastPostHash !== null) {
    const start = await getPost(state, req.lastPostHash);
    if (start === undefined) throw new PostReadError('GetPostsForPublicKey: Problem getting paginated posts: GetPostsPaginatedForPublicKeyOrderedByTimestamp: Invalid start post hash');
    after = postMember(start);
  }
  if (req.numToFetch === 0 || req.onlyNFTs) return { Posts: null, LastPostHashHex: '' };
  const key = req.mediaRequired ? postIndexKeys.byPosterWithMedia(req.poster) : postIndexKeys.byPoster(req.poster);
  const members = await state.indexRange(key, { reverse: true, limit: req.numToFetch, ...(after === undefined ? {} : { lt: after }) });
  const posts = await reads.loadAll(members.map(readPostMember));
  if (posts.length === 0) return { Posts: null, LastPostHashHex: '' };
  // As the reference: no profile (the caller knows whose posts these are), reader state only for a reader.
  const out = await Promise.all(posts.map((p) => reads.entry(p, { profile: 'none', readerState: reader !== null })));
  return { Posts: out, LastPostHashHex: toHex(posts[posts.length - 1]!.postHash) };
}

// --- get-posts-stateless: the recent feed and the follow feed -------------------------------

export interface FeedPageRequest {
  /** Start after this post; null for the newest. */
  start: PostRecord | null;
  numToFetch: number;
  mediaRequired: boolean;
}

/**
 * The plain recent feed: top-level posts that are not hidden and not vanilla reposts, newest
 * first, without black- or graylisted authors (the reader's own posts always shown) and
 * without authors the reader blocked.
 */
export async function recentPostsPage(reads: PostReads, req: FeedPageRequest): Promise<PostRecord[]> {
  const { state, reader } = reads.ctx;
  const blocked = reader === null ? new Set<string>() : await reads.blocksOf(reader);
  const members = await filteredPage(state, {
    key: req.mediaRequired ? postIndexKeys.recentWithMedia : postIndexKeys.recent,
    offset: 0,
    limit: req.numToFetch,
    reverse: true,
    ...(req.start === null ? {} : { after: postMember(req.start) }),
    keep: (ms) => Promise.all(ms.map(readPostMember).map(async (m) => !blocked.has(toHex(m.poster)) && !(await reads.isRestricted(m.poster)))),
  });
  return reads.loadAll(members.map(readPostMember));
}

/** The accounts a public key follows (the follow state's reader; FOLLOW transactions are another area). */
export type FollowedBy = (state: StateIndexReader, pk33: Uint8Array) => Promise<Uint8Array[]>;

/**
 * The follow feed: top-level posts (vanilla reposts included) of the accounts the reader
 * follows, newest first, without blacklisted accounts or ones the reader blocked. Reads at most
 * a page from each followed account's index, so a page costs (accounts followed × page).
 */
export async function followFeedPage(reads: PostReads, followed: readonly Uint8Array[], req: FeedPageRequest): Promise<PostRecord[]> {
  const { state, reader } = reads.ctx;
  if (req.numToFetch === 0) return [];
  const blocked = reader === null ? new Set<string>() : await reads.blocksOf(reader);
  const accounts = [...new Map(followed.slice(0, MAX_FOLLOWED_READ).map((pk) => [toHex(pk), pk] as const)).values()];
  const shown = await Promise.all(accounts.map(async (pk) => !blocked.has(toHex(pk)) && !(await reads.moderation(pk)).blacklisted));
  const after = req.start === null ? undefined : postMember(req.start);
  const pages = await Promise.all(
    accounts
      .filter((_, i) => shown[i])
      .map((pk) => {
        const key = req.mediaRequired ? postIndexKeys.byPosterWithMedia(pk) : postIndexKeys.byPoster(pk);
        return state.indexRange(key, { reverse: true, limit: req.numToFetch, ...(after === undefined ? {} : { lt: after }) });
      }),
  );
  // Members sort by time, then hash: the newest of all the pages are the page.
  const newest = pages.flat().sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, req.numToFetch);
  return reads.loadAll(newest.map(readPostMember));
}

// --- reposts and quote reposts ----------------------------------------------------------------

export interface RepostsRequest {
  postHash: Uint8Array;
  offset: number;
  limit: number;
}

/**
 * get-reposts-for-post: the ProfileEntryResponse of each account whose vanilla repost of the
 * post is not hidden, newest repost first; accounts without a profile and restricted ones
 * (black- or graylisted, the reader excepted) left out. Each account once: an account that
 * reposted twice counts by its current repost (core keeps one repost entry per account).
 */
export async function repostersPage(reads: PostReads, req: RepostsRequest): Promise<Record<string, unknown>[]> {
  const { state } = reads.ctx;
  const members = await filteredPage(state, {
    key: postIndexKeys.reposts(req.postHash),
    offset: req.offset,
    limit: req.limit,
    reverse: true,
    keep: (ms) =>
      Promise.all(
        ms.map(readPostMember).map(async (m) => {
          const current = await state.get<string>(postKeys.repost(m.poster, req.postHash));
          return current === toHex(m.postHash) && !(await reads.isRestricted(m.poster)) && (await reads.hasProfile(m.poster));
        }),
      ),
  });
  const profiles = await Promise.all(members.map((m) => reads.profileOf(readPostMember(m).poster)));
  return profiles.filter((p): p is Record<string, unknown> => p !== null);
}

/**
 * get-quote-reposts-for-post: the quote reposts of the post that are not hidden, newest first,
 * each with its author's profile and the reader state; authors without a profile and
 * restricted ones (the reader excepted) left out.
 */
export async function quoteRepostsPage(reads: PostReads, req: RepostsRequest): Promise<Record<string, unknown>[]> {
  const members = await filteredPage(reads.ctx.state, {
    key: postIndexKeys.quoteReposts(req.postHash),
    offset: req.offset,
    limit: req.limit,
    reverse: true,
    keep: (ms) => Promise.all(ms.map(readPostMember).map(async (m) => !(await reads.isRestricted(m.poster)) && (await reads.hasProfile(m.poster)))),
  });
  const posts = await reads.loadAll(members.map(readPostMember));
  return Promise.all(posts.map((p) => reads.entry(p, { profile: 'poster', readerState: true })));
}

// --- get-posts-hashhexlist --------------------------------------------------------------------

/** get-posts-hashhexlist: the most hashes one request names (the reference's bound). */
export const MAX_POSTS_BY_HASH = 50;

export interface PostsByHashRequest {
  /** In the caller's order; duplicates are answered once each time they appear, as the reference. */
  postHashes: readonly Uint8Array[];
  /** '' keeps the request's order. */
  orderBy: '' | 'newest' | 'oldest';
  /** No post on this chain is an NFT: with it every post is skipped. */
  onlyNFTs: boolean;
}

/**
 * get-posts-hashhexlist: each named post with its poster's profile (reader state for a
 * reader), or a skipped entry saying why: not found, not an NFT (OnlyNFTs), or an author the
 * reader blocked or this node blacklisted (the reference skips only the reader's blocks; a
 * blacklisted author is hidden everywhere on this node, as get-single-post refuses them).
 * One post read per hash, so the cost follows the list (at most {@link MAX_POSTS_BY_HASH}).
 */
export async function postsByHash(reads: PostReads, req: PostsByHashRequest): Promise<{ PostsFound: Record<string, unknown>[]; PostsSkipped: Array<{ PostHashHex: string; Error: string }> }> {
  const { state, reader } = reads.ctx;
  const P = 'GetPostsHashHexList: ';
  const blocked = reader === null ? new Set<string>() : await reads.blocksOf(reader);
  const posts = await Promise.all(req.postHashes.map((h) => getPost(state, h)));
  const found: PostRecord[] = [];
  const PostsSkipped: Array<{ PostHashHex: string; Error: string }> = [];
  for (let i = 0; i < posts.length; i++) {
    const post = posts[i];
    const skip = (why: string): void => void PostsSkipped.push({ PostHashHex: toHex(req.postHashes[i]!), Error: `${P}${why}` });
    if (post === undefined) skip('Post not found');
    else if (req.onlyNFTs) skip('OnlyNFTs is enabled, post is not an NFT');
    else if (blocked.has(toHex(post.posterPublicKey)) || (await reads.moderation(post.posterPublicKey)).blacklisted) skip('Creator is blocked on this node');
    else found.push(post);
  }
  if (req.orderBy !== '') {
    const sign = req.orderBy === 'newest' ? -1 : 1;
    // Stable: posts with the same timestamp keep the request's order.
    found.sort((a, b) => sign * (a.timestampNanos < b.timestampNanos ? -1 : a.timestampNanos > b.timestampNanos ? 1 : 0));
  }
  const PostsFound = await Promise.all(found.map((p) => reads.entry(p, { profile: 'poster', readerState: reader !== null })));
  return { PostsFound, PostsSkipped };
}
