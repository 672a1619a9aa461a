/**
 * Feed reads: `get-posts-stateless` in its global-feed form (reference backend routes/post.go
 * GetPostsStateless with `GetPostsForGlobalWhitelist: true`): the posts admins put on the
 * global feed (admin/update-global-feed) newest first, pinned posts (admin/pin-post) on top
 * of the first page, paged by `PostHashHex` (start after that post) and `NumToFetch`.
 * Which posts a page holds is server/social/feed.ts's globalFeedPage.
 *
 * The other forms of the reference route (follow feed, posts by coin value, all posts by
 * time) are refused with 400: this node does not serve them.
 *
 * Each post is the PostEntryResponse of routes/posts.ts with the poster's
 * ProfileEntryResponse (null without a profile), the reposted post's too, `IsPinned`, and —
 * with `AddGlobalFeedBool` — `InGlobalFeed`; `PostEntryReaderState` for the reader, when one
 * is named. `Comments` stays null (the reference returns no comments in this form either).
 * @module
 */
import type { AppDeps } from '../app.js';
import { getPost, type PostRecord } from '../chain/state/posts.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { toHex } from '../hex.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { v } from '../http/schema.js';
import { globalFeedPage, isInGlobalFeed, parsePostHashHex } from '../social/feed.js';
import { profileEntryResponse } from '../social/profileEntry.js';
import { postEntryResponse } from '../social/postEntry.js';
import { decodeKeyOr400 } from './requestKeys.js';

/** The reference's default page size. */
export const DEFAULT_POSTS_TO_FETCH = 50;
/** Largest page this node serves (the reference has no limit). */
export const MAX_POSTS_TO_FETCH = 200;
export const POST_ORDERS = ['', 'newest', 'oldest', 'last_comment'] as const;

export const getPostsStatelessBody = v.object({
  /** Start after this post; "" for the top of the feed. */
  PostHashHex: v.optional(v.string({ maxLength: 200 }), ''),
  ReaderPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  /** "newest" / "oldest" re-sort the whole page (pinned posts included), as the reference. */
  OrderBy: v.optional(v.string({ maxLength: 100 }), ''),
  /** Case-insensitive text the post body must contain. */
  PostContent: v.optional(v.string({ maxLength: 10_000 }), ''),
  /** 0 = 50. */
  NumToFetch: v.optional(v.int(0, MAX_POSTS_TO_FETCH), 0),
  GetPostsForFollowFeed: v.optional(v.boolean(), false),
  GetPostsForGlobalWhitelist: v.optional(v.boolean(), false),
  GetPostsByDESO: v.optional(v.boolean(), false),
  /** Deprecated spelling of GetPostsByDESO. */
  GetPostsByClout: v.optional(v.boolean(), false),
  /** Only posts with an image or a video. */
  MediaRequired: v.optional(v.boolean(), false),
  AddGlobalFeedBool: v.optional(v.boolean(), false),
});

const P = 'GetPostsStateless: ';
const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
const newestFirst = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
  const x = a['TimestampNanos'] as bigint;
  const y = b['TimestampNanos'] as bigint;
  return x === y ? 0 : x > y ? -1 : 1;
};

export function feedRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/get-posts-stateless',
      summary: 'The global feed: pinned posts, then the posts admins put on the feed, newest first (GetPostsForGlobalWhitelist form only)',
      body: getPostsStatelessBody,
      async handle({ body }) {
        if (body.GetPostsForFollowFeed) throw badRequest(`${P}the follow feed (GetPostsForFollowFeed) is not supported by this node; use GetPostsForGlobalWhitelist`);
        if (!body.GetPostsForGlobalWhitelist) {
          const form = body.GetPostsByDESO || body.GetPostsByClout ? 'posts by coin value (GetPostsByDESO)' : 'all posts by time (no feed flag)';
          throw badRequest(`${P}${form} is not supported by this node; only the global feed (GetPostsForGlobalWhitelist: true) is`);
        }
        if (!(POST_ORDERS as readonly string[]).includes(body.OrderBy)) throw badRequest(`${P}OrderBy must be one of newest, oldest, last_comment or empty`);
        const reader = body.ReaderPublicKeyBase58Check === '' ? null : decodeKeyOr400(body.ReaderPublicKeyBase58Check, network, 'ReaderPublicKeyBase58Check', `${P}Problem decoding user public key`);
        const numToFetch = body.NumToFetch === 0 ? DEFAULT_POSTS_TO_FETCH : body.NumToFetch;

        const [state, tip] = await Promise.all([deps.chain.pendingView(), deps.chain.tip()]);
        let start: PostRecord | null = null;
        if (body.PostHashHex !== '') {
          const hash = parsePostHashHex(body.PostHashHex);
          if (hash === null) throw badRequest(`${P}PostHashHex must be a post hash: 64 hex characters`);
          start = (await getPost(state, hash)) ?? null;
          if (start === null) throw badRequest(`${P}PostHashHex names no post on this chain`);
        } else if (numToFetch === 1) {
          throw badRequest(`${P}Must provide PostHashHex when NumToFetch is 1`);
        }

        const page = await globalFeedPage(deps.store, state, { start, reader, numToFetch, mediaRequired: body.MediaRequired, nowNanos: nowNanos() });
        const profiles = new Map<string, Promise<Record<string, unknown> | null>>();
        const profileOf = (pk33: Uint8Array): Promise<Record<string, unknown> | null> => {
          const k = toHex(pk33);
          let p = profiles.get(k);
          if (p === undefined) profiles.set(k, (p = profileEntryResponse(deps, state, pk33)));
          return p;
        };
        const shape = (post: PostRecord, pinned: boolean): Promise<Record<string, unknown>> => entryResponse(deps, state, tip.height, post, pinned, body.AddGlobalFeedBool, profileOf, reader);

        let posts = await Promise.all(page.map((fp) => shape(fp.post, fp.pinned)));
        if (body.PostContent !== '') {
          const needle = body.PostContent.toLowerCase();
          posts = posts.filter((r) => String(r['Body']).toLowerCase().includes(needle));
        }
        // "last_comment" sorts by the newest comment; this form returns no comments, so it keeps the order.
        if (body.OrderBy === 'newest') posts.sort(newestFirst);
        else if (body.OrderBy === 'oldest') posts.sort((a, b) => newestFirst(b, a));
        return json({ PostsFound: posts });
      },
    }),
  ];
}

async function entryResponse(
  deps: AppDeps,
  state: StateIndexReader,
  tipHeight: bigint,
  post: PostRecord,
  pinned: boolean,
  addGlobalFeedBool: boolean,
  profileOf: (pk33: Uint8Array) => Promise<Record<string, unknown> | null>,
  reader: Uint8Array | null,
): Promise<Record<string, unknown>> {
  // As the reference: a post connected above the tip is still in the mempool.
  const r = await postEntryResponse(state, post, deps.config.network, { inMempool: post.confirmationBlockHeight > tipHeight, ...(reader === null ? {} : { reader }) });
  r['ProfileEntryResponse'] = await profileOf(post.posterPublicKey);
  r['IsPinned'] = pinned;
  const reposted = r['RepostedPostEntryResponse'] as Record<string, unknown> | null;
  if (reposted !== null && post.repostedPostHash !== null) {
    const original = await getPost(state, post.repostedPostHash);
    if (original !== undefined) {
      reposted['ProfileEntryResponse'] = await profileOf(original.posterPublicKey);
      reposted['InMempool'] = original.confirmationBlockHeight > tipHeight;
    }
  }
  if (addGlobalFeedBool) r['InGlobalFeed'] = await isInGlobalFeed(deps.store, post);
  return r;
}
