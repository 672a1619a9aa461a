/**
 * The read indexes of posts (issue 21): each list a post route shows is one ordered index, kept
 * by the SUBMIT_POST rules as posts are created, edited, hidden and commented on, so a page
 * costs the page, not the chain or the post's whole history.
 *
 * - `Pa:<poster>` — the poster's listed top-level posts (not hidden; vanilla reposts included),
 *   by time: get-posts-for-public-key and the follow feed. `Pam:<poster>`: those with media.
 * - `Pf` — every listed top-level post that is not a vanilla repost, by time: the plain
 *   recent feed of get-posts-stateless. `Pfm`: those with media.
 * - `Pc:<parent>` — the comments on a post (or a profile) as get-single-post shows them: those
 *   not hidden, and hidden ones that still have comments of their own (core keeps those as
 *   placeholders of their thread). The parent's author's own comments first, oldest first,
 *   then everyone else's, newest first.
 * - `Pr:<post>` / `Pq:<post>` — the post's vanilla reposts / quote reposts that are not
 *   hidden, by time: get-reposts-for-post, get-quote-reposts-for-post.
 *
 * Members are compact text (keyText.ts) of order-preserving bytes: `orderedUint(timestamp) ‖
 * post hash ‖ poster public key` (a comment's starts with its tier byte, and the others' tier
 * complements the timestamp, so the newest sorts first). The poster in the member lets a
 * page drop blocked or restricted authors without loading their posts.
 *
 * Which indexes hold a post is a function of the post record alone (and, for a comment, of the
 * parent's poster): `reindexPost` compares that set before and after a change and moves only
 * the difference, so every rule that changes a post calls it with both records.
 * @module
 */
import { bytesText, joinBytes, orderedUint, orderedUintDescending, readOrderedUint, textBytes } from './keyText.js';
import { getPost, isVanillaRepost, parsePostBody, type PostRecord } from './posts.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';
import { HASH_BYTES, PUBLIC_KEY_BYTES } from '../txn/sizes.js';

export const postIndexKeys = {
  byPoster: (pk33: Uint8Array): string => `Pa:${bytesText(pk33)}`,
  byPosterWithMedia: (pk33: Uint8Array): string => `Pam:${bytesText(pk33)}`,
  recent: 'Pf',
  recentWithMedia: 'Pfm',
  /** `parent` is a post hash (32 bytes) or a profile public key (33 bytes). */
  comments: (parent: Uint8Array): string => `Pc:${bytesText(parent)}`,
  reposts: (reposted32: Uint8Array): string => `Pr:${bytesText(reposted32)}`,
  quoteReposts: (reposted32: Uint8Array): string => `Pq:${bytesText(reposted32)}`,
} as const;

/** Comment tiers, in display order. */
export const COMMENT_TIER = { byParentAuthor: 0, others: 1 } as const;

/** One index member, decoded. */
export interface PostMember {
  timestampNanos: bigint;
  postHash: Uint8Array;
  poster: Uint8Array;
}

/** The member of a post in the time-ordered indexes. */
export function postMember(p: Pick<PostRecord, 'timestampNanos' | 'postHash' | 'posterPublicKey'>): string {
  return bytesText(joinBytes(orderedUint(p.timestampNanos), p.postHash, p.posterPublicKey));
}

export function readPostMember(member: string): PostMember {
  const bytes = textBytes(member);
  const { value, end } = readOrderedUint(bytes, 0);
  return { timestampNanos: value, postHash: bytes.slice(end, end + HASH_BYTES), poster: bytes.slice(end + HASH_BYTES, end + HASH_BYTES + PUBLIC_KEY_BYTES) };
}

/** The member of a comment in its parent's index: the parent's author's own first, oldest first; the rest newest first. */
export function commentMember(p: Pick<PostRecord, 'timestampNanos' | 'postHash' | 'posterPublicKey'>, byParentAuthor: boolean): string {
  const time = byParentAuthor ? orderedUint(p.timestampNanos) : orderedUintDescending(p.timestampNanos);
  return bytesText(joinBytes(Uint8Array.of(byParentAuthor ? COMMENT_TIER.byParentAuthor : COMMENT_TIER.others), time, p.postHash, p.posterPublicKey));
}

export function readCommentMember(member: string): PostMember {
  const bytes = textBytes(member);
  const { value, end } = readOrderedUint(bytes, 1, bytes[0] === COMMENT_TIER.others);
  return { timestampNanos: value, postHash: bytes.slice(end, end + HASH_BYTES), poster: bytes.slice(end + HASH_BYTES, end + HASH_BYTES + PUBLIC_KEY_BYTES) };
}

/** Core's PostEntry.HasMedia: images or videos in the body, or an `EmbedVideoURL` in PostExtraData. */
export function postHasMedia(post: Pick<PostRecord, 'body' | 'postExtraData'>): boolean {
  const body = parsePostBody(post);
  if (body.ImageURLs.length > 0 || body.VideoURLs.length > 0) return true;
  return post.postExtraData.some(([k, v]) => v.length > 0 && Buffer.from(k).toString('utf8') === 'EmbedVideoURL');
}

/**
 * The (index key, member) pairs that hold `post`. `parentPoster` is the poster of the post a
 * comment is on (the profile's key for a comment on a profile); unused for top-level posts.
 */
export function postIndexEntries(post: PostRecord, parentPoster: Uint8Array | null): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const member = postMember(post);
  if (post.parentStakeId.length === 0) {
    if (!post.isHidden) {
      const media = postHasMedia(post);
      out.push([postIndexKeys.byPoster(post.posterPublicKey), member]);
      if (media) out.push([postIndexKeys.byPosterWithMedia(post.posterPublicKey), member]);
      if (!isVanillaRepost(post)) {
        out.push([postIndexKeys.recent, member]);
        if (media) out.push([postIndexKeys.recentWithMedia, member]);
      }
    }
  } else if (!post.isHidden || post.commentCount > 0n) {
    const byParentAuthor = parentPoster !== null && Buffer.compare(parentPoster, post.posterPublicKey) === 0;
    out.push([postIndexKeys.comments(post.parentStakeId), commentMember(post, byParentAuthor)]);
  }
  if (post.repostedPostHash !== null && !post.isHidden) {
    out.push([isVanillaRepost(post) ? postIndexKeys.reposts(post.repostedPostHash) : postIndexKeys.quoteReposts(post.repostedPostHash), member]);
  }
  return out;
}

/** The poster of the post (or the owner of the profile) a comment is on; null for a top-level post. */
async function parentPosterOf(state: StateReader, post: PostRecord): Promise<Uint8Array | null> {
  const parent = post.parentStakeId;
  if (parent.length === PUBLIC_KEY_BYTES) return parent;
  if (parent.length !== HASH_BYTES) return null;
  return (await getPost(state, parent))?.posterPublicKey ?? null;
}

/**
 * Moves `after` (a new post when `before` is undefined) into the indexes its record now
 * belongs to and out of those it left. Every change of a post's hidden flag, body, ExtraData
 * or comment count goes through here.
 */
export async function reindexPost(view: StateView, before: PostRecord | undefined, after: PostRecord): Promise<void> {
  const parentPoster = await parentPosterOf(view, after);
  const pair = ([k, m]: [string, string]): string => `${k}\u0000${m}`;
  const was = new Map((before === undefined ? [] : postIndexEntries(before, parentPoster)).map((e) => [pair(e), e] as const));
  const now = new Map(postIndexEntries(after, parentPoster).map((e) => [pair(e), e] as const));
  for (const [id, [key, member]] of was) if (!now.has(id)) view.indexRemove(key, [member]);
  for (const [id, [key, member]] of now) if (!was.has(id)) view.indexAdd(key, [member]);
}
