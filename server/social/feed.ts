/**
 * The curated global feed (reference node-api.md §3 update-global-feed / pin-post /
 * remove-nil-posts, §9 prefixes 1 and 4; backend routes/post.go GetPostEntriesForGlobalWhitelist):
 * node-local indexes an admin writes, read by get-posts-stateless.
 *
 * Indexes (members `<timestamp nanos, 20 digits>:<post hash hex>`, the posts state's
 * timeMember, so byte order is time order and a page reads newest first with a reverse range):
 * - `social:feed:global` — posts on the global feed;
 * - `social:feed:pinned` — pinned posts (the first page shows the newest MAX_PINNED_POSTS).
 *
 * A page (`globalFeedPage`) is: pinned posts (first page only), then global-feed posts older
 * than the start post, then — when a reader is given — the reader's own top-level posts in
 * the same time window, merged newest first, as the reference serves them. Unlike the
 * reference, posts that are hidden (this chain's deletion), posted by a blacklisted user
 * (admin RemoveEverywhere) or by someone the reader blocked are never served, and a pinned
 * post is served once, at the top.
 *
 * Every write of the indexes bumps the flags counter in the same commit: posts show
 * `InGlobalFeed` in cached answers (http/readCache.ts).
 * @module
 */
import { getPost, hashesOfMembers, parsePostBody, postKeys, timeMember, type PostRecord } from '../chain/state/posts.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { toHex } from '../hex.js';
import type { Store } from '../store/types.js';
import { PROFILE_FLAGS_CHANGED } from './profileEntry.js';
import { blacklistedKeysHex, blockedKeysHex } from './userMetadata.js';
import { indexHas } from '../store/indexHas.js';

export const feedKeys = {
  global: 'social:feed:global',
  pinned: 'social:feed:pinned',
};

/** Pinned posts shown at the top of the first page (the reference reads 10). */
export const MAX_PINNED_POSTS = 10;
/** Feed entries one page may look at, however many it skips (hidden, blocked, filtered). */
export const MAX_FEED_ENTRIES_SCANNED = 5_000;
/** The reader's own posts and comments one page may look at. */
export const MAX_READER_POSTS_SCANNED = 1_000;

const padNanos = (n: bigint): string => n.toString().padStart(20, '0');

/** Adds the post to the global feed, or takes it off (`remove`). Idempotent. */
export async function setInGlobalFeed(store: Store, post: PostRecord, remove: boolean): Promise<void> {
  await store.commit([{ op: remove ? 'indexRemove' : 'indexAdd', key: feedKeys.global, members: [timeMember(post)] }, PROFILE_FLAGS_CHANGED]);
}

/** Pins the post to the top of the global feed, or unpins it. Idempotent. */
export async function setPinned(store: Store, post: PostRecord, unpin: boolean): Promise<void> {
  await store.commit([{ op: unpin ? 'indexRemove' : 'indexAdd', key: feedKeys.pinned, members: [timeMember(post)] }, PROFILE_FLAGS_CHANGED]);
}

export function isInGlobalFeed(store: Store, post: PostRecord): Promise<boolean> {
  return indexHas(store, feedKeys.global, timeMember(post));
}

export function isPinned(store: Store, post: PostRecord): Promise<boolean> {
  return indexHas(store, feedKeys.pinned, timeMember(post));
}

/** Whether a feed entry's post is gone: absent from chain state, or hidden (deleted by its poster). */
const isNil = (post: PostRecord | undefined): boolean => post === undefined || post.isHidden;

/**
 * The reference's AdminRemoveNilPosts: looks at the newest `numToSearch` global-feed entries
 * and takes off those whose post is gone. Returns the post hashes (hex) taken off.
 */
export async function removeNilPosts(store: Store, state: StateIndexReader, numToSearch: number): Promise<string[]> {
  const members = await store.indexRange(feedKeys.global, { reverse: true, limit: numToSearch });
  const hashes = hashesOfMembers(members);
  const posts = await Promise.all(hashes.map((h) => getPost(state, h)));
  const gone = members.filter((_, i) => isNil(posts[i]));
  if (gone.length > 0) await store.commit([{ op: 'indexRemove', key: feedKeys.global, members: gone }, PROFILE_FLAGS_CHANGED]);
  return gone.map((m) => m.slice(m.indexOf(':') + 1));
}

/** Core's PostEntry.HasMedia: the body names an image or a video. */
export function hasMedia(post: PostRecord): boolean {
  const body = parsePostBody(post);
  return body.ImageURLs.length > 0 || body.VideoURLs.length > 0;
}

export interface GlobalFeedRequest {
  /** Start after this post (exclusive); null for the top of the feed (pinned posts first). */
  start: PostRecord | null;
  reader: Uint8Array | null;
  numToFetch: number;
  mediaRequired: boolean;
  /** Upper bound of the reader's own posts on the first page (the reference uses "now"). */
  nowNanos: bigint;
}

export interface FeedPost {
  post: PostRecord;
  pinned: boolean;
}

/**
 * One page of the global feed, pinned posts first, then newest first. May hold more than
 * `numToFetch` posts (pinned posts and the reader's own posts come on top), as the reference's.
 */
export async function globalFeedPage(store: Store, state: StateIndexReader, req: GlobalFeedRequest): Promise<FeedPost[]> {
  const [blacklisted, blocked] = await Promise.all([blacklistedKeysHex(store), req.reader === null ? new Set<string>() : blockedKeysHex(store, req.reader)]);
  const readerHex = req.reader === null ? null : toHex(req.reader);
  const visible = (p: PostRecord | undefined): p is PostRecord => {
    if (p === undefined || p.isHidden) return false;
    const poster = toHex(p.posterPublicKey);
    return !blacklisted.has(poster) && !blocked.has(poster) && (!req.mediaRequired || hasMedia(p));
  };
  const load = (members: string[]): Promise<(PostRecord | undefined)[]> => Promise.all(hashesOfMembers(members).map((h) => getPost(state, h)));

  const pinned: PostRecord[] = [];
  if (req.start === null) {
    const members = await store.indexRange(feedKeys.pinned, { reverse: true, limit: MAX_PINNED_POSTS });
    for (const p of await load(members)) if (visible(p)) pinned.push(p);
  }
  const pinnedHashes = new Set(pinned.map((p) => toHex(p.postHash)));
  const fresh = (p: PostRecord): boolean => !pinnedHashes.has(toHex(p.postHash));

  const collected: PostRecord[] = [];
  let cursor = req.start === null ? undefined : timeMember(req.start);
  let scanned = 0;
  while (collected.length < req.numToFetch && scanned < MAX_FEED_ENTRIES_SCANNED) {
    const limit = Math.min(req.numToFetch - collected.length, MAX_FEED_ENTRIES_SCANNED - scanned);
    const members = await store.indexRange(feedKeys.global, { reverse: true, limit, ...(cursor === undefined ? {} : { lt: cursor }) });
    if (members.length === 0) break;
    scanned += members.length;
    cursor = members[members.length - 1];
    for (const p of await load(members)) {
      // The reader's own posts are added below, over the same time window.
      if (!visible(p) || !fresh(p) || toHex(p.posterPublicKey) === readerHex) continue;
      collected.push(p);
    }
  }

  if (req.reader !== null) {
    const max = req.start === null ? req.nowNanos : req.start.timestampNanos;
    const min = collected.length === 0 ? 0n : collected[collected.length - 1]!.timestampNanos;
    // (min, max]: after the oldest feed post of this page, up to the start post.
    if (max > min) {
      const members = await state.indexRange(postKeys.byPoster(req.reader), { gte: padNanos(min + 1n), lt: padNanos(max + 1n), reverse: true, limit: MAX_READER_POSTS_SCANNED });
      for (const p of await load(members)) {
        if (visible(p) && p.parentStakeId.length === 0 && fresh(p) && (req.start === null || toHex(p.postHash) !== toHex(req.start.postHash))) collected.push(p);
      }
    }
    collected.sort((a, b) => (a.timestampNanos === b.timestampNanos ? 0 : a.timestampNanos > b.timestampNanos ? -1 : 1));
  }
  return [...pinned.map((post) => ({ post, pinned: true })), ...collected.map((post) => ({ post, pinned: false }))];
}

const POST_HASH_HEX = /^[0-9a-fA-F]{64}$/;

/** A post hash from its hex (64 characters), or null when the text is not one. */
export function parsePostHashHex(s: string): Uint8Array | null {
  return POST_HASH_HEX.test(s) ? new Uint8Array(Buffer.from(s, 'hex')) : null;
}
