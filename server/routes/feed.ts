/**
 * Feed reads: `get-posts-stateless` (reference backend routes/post.go GetPostsStateless; facts
 * in social-graph.md §5.4), paged by `PostHashHex` (start after that post) and `NumToFetch`:
 * - no feed flag: all recent posts, newest first (social/postReads.ts recentPostsPage);
 * - `GetPostsForGlobalWhitelist`: the posts admins put on the global feed (admin/update-global-feed)
 *   newest first, pinned posts (admin/pin-post) on top of the first page (social/feed.ts
 *   globalFeedPage);
 * - `GetPostsForFollowFeed`: posts of the accounts the reader follows (postReads.ts
 *   followFeedPage), served once the node is given the follow state's reader (`followedBy`);
 *   without one it is refused with 400, as posts by coin value (`GetPostsByDESO`) are.
 *
 * Each post is a PostEntryResponse with the poster's ProfileEntryResponse (null without a
 * profile), the reposted post's (two levels, each with profile and reader state),
 * `PostEntryReaderState` when a reader is given, `IsPinned`, and — with `AddGlobalFeedBool` —
 * `InGlobalFeed`. `Comments` stay null (the reference returns none here either).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getPost, type PostRecord } from '../chain/state/posts.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { postEntrySchema } from './responses.js';
import { globalFeedPage, parsePostHashHex, type FeedPost } from '../social/feed.js';
import { followFeedPage, PostReads, recentPostsPage, type FollowedBy } from '../social/postReads.js';
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
  /** Only NFTs: there are none on this chain. */
  OnlyNFTs: v.optional(v.boolean(), false),
  OnlyPosts: v.optional(v.boolean(), false),
});

export const getPostsStatelessResponse = out.object({
  PostsFound: out.array(postEntrySchema, 'Each with the poster’s profile (null without one), IsPinned, and with a reader its PostEntryReaderState'),
});

const P = 'GetPostsStateless: ';
const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
const newestFirst = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
  const x = a['TimestampNanos'] as bigint;
  const y = b['TimestampNanos'] as bigint;
  return x === y ? 0 : x > y ? -1 : 1;
};

/** `followedBy`: the follow state's reader; absent, the follow feed is refused. */
export function feedRoutes(deps: AppDeps, followedBy?: FollowedBy): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/get-posts-stateless',
      summary: 'Recent posts newest first, the global feed (GetPostsForGlobalWhitelist: pinned posts, then the posts admins put on it) or the follow feed (GetPostsForFollowFeed)',
      body: getPostsStatelessBody,
      response: getPostsStatelessResponse,
      async handle({ body }) {
        if (body.OnlyNFTs && body.OnlyPosts) throw badRequest(`${P}OnlyNFTs and OnlyPosts can not be enabled both`);
        if (body.GetPostsForFollowFeed && followedBy === undefined) {
          throw badRequest(`${P}the follow feed (GetPostsForFollowFeed) is not supported by this node; use GetPostsForGlobalWhitelist`);
        }
        if (!body.GetPostsForFollowFeed && !body.GetPostsForGlobalWhitelist && (body.GetPostsByDESO || body.GetPostsByClout)) {
          throw badRequest(`${P}posts by coin value (GetPostsByDESO) is not supported by this node`);
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

        const reads = new PostReads({ deps, state, tipHeight: tip.height, mined: deps.store, reader, addGlobalFeedBool: body.AddGlobalFeedBool });
        const pageReq = { start, numToFetch, mediaRequired: body.MediaRequired };
        let page: FeedPost[];
        // No post on this chain is an NFT.
        if (body.OnlyNFTs) page = [];
        else if (body.GetPostsForFollowFeed) {
          const followed = reader === null ? [] : await followedBy!(state, reader);
          page = (await followFeedPage(reads, followed, pageReq)).map((post) => ({ post, pinned: false }));
        } else if (body.GetPostsForGlobalWhitelist) {
          page = await globalFeedPage(deps.store, state, { ...pageReq, reader, nowNanos: nowNanos() });
        } else page = (await recentPostsPage(reads, pageReq)).map((post) => ({ post, pinned: false }));

        let posts = await Promise.all(
          page.map(async (fp) => {
            const r = await reads.entry(fp.post, { profile: 'poster', readerState: reader !== null });
            r['IsPinned'] = fp.pinned;
            return r;
          }),
        );
        if (body.PostContent !== '') {
          const needle = body.PostContent.toLowerCase();
          posts = posts.filter((r) => String(r['Body']).toLowerCase().includes(needle));
        }
        // "last_comment" sorts by the newest comment; this route returns no comments, so it keeps the order.
        if (body.OrderBy === 'newest') posts.sort(newestFirst);
        else if (body.OrderBy === 'oldest') posts.sort((a, b) => newestFirst(b, a));
        return json({ PostsFound: posts });
      },
    }),
  ];
}
