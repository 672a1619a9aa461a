/**
 * Admin routes of the global feed (spec §4.10; reference node-api.md §3, backend
 * routes/admin_feed.go): put a post on the feed or take it off, pin or unpin a post, and
 * clear feed entries whose post is gone. What they write is server/social/feed.ts's indexes;
 * get-posts-stateless (routes/feed.ts) serves them.
 *
 * The post must exist in the pending chain state (tip + mempool), as the reference's
 * augmented view. Unlike the reference, an unknown post is 404 and the request's hash is not
 * echoed in errors. The reference also writes a hot-feed op (approval with multiplier 1); this
 * node does not: its hot feed serves every ranked post whether approved or not, as the
 * reference's does, and a multiplier of 1 changes no score (social/hotFeed.ts).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getPost, type PostRecord } from '../chain/state/posts.js';
import { adminRoute } from './adminAuth.js';
import { badRequest, notFound } from '../http/errors.js';
import { json, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { parsePostHashHex, removeNilPosts, setInGlobalFeed, setPinned } from '../social/feed.js';

export const adminUpdateGlobalFeedBody = v.object({
  PostHashHex: v.optional(v.string({ maxLength: 200 }), ''),
  RemoveFromGlobalFeed: v.optional(v.boolean(), false),
});

export const adminPinPostBody = v.object({
  PostHashHex: v.optional(v.string({ maxLength: 200 }), ''),
  UnpinPost: v.optional(v.boolean(), false),
});

/** The reference's default; also the most one request may search. */
export const DEFAULT_NIL_POSTS_TO_SEARCH = 1000;
export const MAX_NIL_POSTS_TO_SEARCH = 100_000;

export const adminRemoveNilPostsBody = v.object({
  /** Newest global-feed entries to look at; 0 = 1000. */
  NumPostsToSearch: v.optional(v.int(0, MAX_NIL_POSTS_TO_SEARCH), 0),
});

/** The post a request names, from the pending state; 400 without a hash, 404 for no post. */
async function requestedPost(deps: AppDeps, postHashHex: string, prefix: string): Promise<PostRecord> {
  if (postHashHex === '') throw badRequest(`${prefix}: Request missing PostHashHex`);
  const hash = parsePostHashHex(postHashHex);
  if (hash === null) throw badRequest(`${prefix}: Error parsing post hash: PostHashHex must be 64 hex characters`);
  const post = await getPost(await deps.chain.pendingView(), hash);
  if (post === undefined) throw notFound(`${prefix}: Problem getting postEntry for post hash: no post with this PostHashHex`);
  return post;
}

export function adminFeedRoutes(deps: AppDeps): Route[] {
  return [
    adminRoute(deps, {
      path: '/admin/update-global-feed',
      summary: 'Puts a post on the global feed, or takes it off (RemoveFromGlobalFeed)',
      level: 'admin',
      body: adminUpdateGlobalFeedBody,
      response: out.object({}),
      errors: { 404: 'No post with that hash' },
      async handle({ body }) {
        const post = await requestedPost(deps, body.PostHashHex, 'AdminUpdateGlobalFeed');
        await setInGlobalFeed(deps.store, post, body.RemoveFromGlobalFeed);
        return json({});
      },
    }),
    adminRoute(deps, {
      path: '/admin/pin-post',
      summary: 'Pins a post to the top of the global feed, or unpins it (UnpinPost)',
      level: 'admin',
      body: adminPinPostBody,
      response: out.object({}),
      errors: { 404: 'No post with that hash' },
      async handle({ body }) {
        const post = await requestedPost(deps, body.PostHashHex, 'AdminPinPost');
        await setPinned(deps.store, post, body.UnpinPost);
        return json({});
      },
    }),
    adminRoute(deps, {
      path: '/admin/remove-nil-posts',
      summary: 'Takes global-feed entries whose post is gone (absent or hidden) off the feed, newest first',
      level: 'superAdmin',
      body: adminRemoveNilPostsBody,
      response: out.object({}),
      async handle({ body, log }) {
        const numToSearch = body.NumPostsToSearch === 0 ? DEFAULT_NIL_POSTS_TO_SEARCH : body.NumPostsToSearch;
        const removed = await removeNilPosts(deps.store, await deps.chain.pendingView(), numToSearch);
        if (removed.length > 0) log.info({ removed: removed.length }, 'remove-nil-posts took entries off the global feed');
        return json({});
      },
    }),
  ];
}
