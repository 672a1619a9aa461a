/**
 * Posts in chain state (SUBMIT_POST), laid out for the read routes: the record by post hash,
 * a poster's posts and comments by timestamp, a post's (or profile's) comments by timestamp,
 * top-level posts by timestamp (the global feed), and who reposted what. Index members are
 * `<timestamp nanos, 20 digits>:<post hash hex>`, so byte order is time order.
 * @module
 */
import { toHex } from '../../hex.js';
import { assertJsonDepth } from '../../jsonDepth.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

export const postKeys = {
  /** PostRecord by post hash. */
  byHash: (hash32: Uint8Array): string => `chain:post:${toHex(hash32)}`,
  /** Index of every post and comment of a poster. */
  byPoster: (pk33: Uint8Array): string => `chain:posts:poster:${toHex(pk33)}`,
  /** Index of the comments on a parent (a post hash or a profile public key). */
  comments: (parentStakeId: Uint8Array): string => `chain:posts:comments:${toHex(parentStakeId)}`,
  /** Index of top-level posts (no parent), as core's timestamp index. */
  topLevel: 'chain:posts:top',
  /** Hash (hex) of the vanilla repost `reposter` made of `repostedHash`. */
  repost: (reposter33: Uint8Array, repostedHash32: Uint8Array): string => `chain:repost:${toHex(reposter33)}:${toHex(repostedHash32)}`,
};

export interface PostRecord {
  postHash: Uint8Array;
  posterPublicKey: Uint8Array;
  /** Empty, a parent post hash (32 bytes) or a profile public key (33 bytes). */
  parentStakeId: Uint8Array;
  /** JSON text `{"Body":…,"ImageURLs":[…],"VideoURLs":[…]}` as the transaction carries it. */
  body: Uint8Array;
  repostedPostHash: Uint8Array | null;
  isQuotedRepost: boolean;
  creatorBasisPoints: bigint;
  stakeMultipleBasisPoints: bigint;
  timestampNanos: bigint;
  isHidden: boolean;
  /** Frozen posts can no longer be modified. */
  isFrozen: boolean;
  /** Height of the block that created the post (the next block's height while in the mempool). */
  confirmationBlockHeight: bigint;
  /** The transaction's ExtraData without the consensus keys, merged over edits. */
  postExtraData: Array<[Uint8Array, Uint8Array]>;
  commentCount: bigint;
  repostCount: bigint;
  quoteRepostCount: bigint;
  /** Counted by LIKE and diamond transactions. */
  likeCount: bigint;
  diamondCount: bigint;
}

/** A post body's JSON fields; missing ones are empty. */
export interface PostBody {
  Body: string;
  ImageURLs: string[];
  VideoURLs: string[];
}

export async function getPost(state: StateReader, hash32: Uint8Array): Promise<PostRecord | undefined> {
  return state.get<PostRecord>(postKeys.byHash(hash32));
}

/** The body JSON of a post; a body that is not that JSON reads as its raw text. */
export function parsePostBody(post: Pick<PostRecord, 'body'>): PostBody {
  const text = Buffer.from(post.body).toString('utf8');
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  try {
    // Bodies come from transactions: a deeply nested one would cost every read that renders it.
    assertJsonDepth(text);
    const o = JSON.parse(text) as unknown;
    if (typeof o === 'object' && o !== null && !Array.isArray(o)) {
      const r = o as Record<string, unknown>;
      return { Body: typeof r['Body'] === 'string' ? r['Body'] : '', ImageURLs: strings(r['ImageURLs']), VideoURLs: strings(r['VideoURLs']) };
    }
  } catch {
    // Not JSON: shown as plain text below.
  }
  return { Body: text, ImageURLs: [], VideoURLs: [] };
}

/** Core: a repost without a quote (no body of its own). */
export function isVanillaRepost(post: Pick<PostRecord, 'repostedPostHash' | 'isQuotedRepost'>): boolean {
  return post.repostedPostHash !== null && !post.isQuotedRepost;
}

export function timeMember(post: Pick<PostRecord, 'timestampNanos' | 'postHash'>): string {
  return `${post.timestampNanos.toString().padStart(20, '0')}:${toHex(post.postHash)}`;
}

/** Post hashes from index members, newest first when the range was reversed. */
export function hashesOfMembers(members: readonly string[]): Uint8Array[] {
  return members.map((m) => new Uint8Array(Buffer.from(m.slice(m.indexOf(':') + 1), 'hex')));
}

/** Writes a new post and adds it to its indexes. */
export function insertPost(view: StateView, post: PostRecord): void {
  view.set(postKeys.byHash(post.postHash), post);
  const member = timeMember(post);
  view.indexAdd(postKeys.byPoster(post.posterPublicKey), [member]);
  if (post.parentStakeId.length === 0) view.indexAdd(postKeys.topLevel, [member]);
  else view.indexAdd(postKeys.comments(post.parentStakeId), [member]);
  if (isVanillaRepost(post)) view.set(postKeys.repost(post.posterPublicKey, post.repostedPostHash!), toHex(post.postHash));
}

/** Replaces a post's record (an edit or a counter change); its index entries do not move. */
export function updatePost(view: StateView, post: PostRecord): void {
  view.set(postKeys.byHash(post.postHash), post);
}
