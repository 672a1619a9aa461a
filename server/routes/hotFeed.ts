/**
 * Hot feed pages (reference routes/hot_feed.go HandleHotFeedPageRequest): `get-hot-feed`
 * (public; `admin/get-unfiltered-hot-feed` in routes/adminHotFeed.ts), a thin handler over
 * server/social/hotFeed.ts, which serves the rankings its periodic refresh keeps.
 *
 * Request (HotFeedPageRequest): `ReaderPublicKeyBase58Check` (adds PostEntryReaderState),
 * `SeenPosts` (post hashes left out; the page goes further down the ranking, and without any
 * the pinned posts come first), `ResponseLimit`, `Tag` (a tag's ranking: `#word`, `@name` or
 * `$name`, any case) and `SortByNew` (with a tag: newest first). Answer: `HotFeedPage`, posts
 * with their poster's profile and `HotnessScore`; the unfiltered page adds `PostMultiplier`.
 *
 * Unlike the reference: ResponseLimit 0 means 50 (the reference: no limit) and a page holds at
 * most ResponseLimit ranked posts (the reference one more); the public page leaves out
 * blacklisted and graylisted authors and those the reader blocked, the unfiltered one does not
 * (the reference serves both alike, the unfiltered one with multipliers); SeenPosts holds at
 * most MAX_SEEN_POSTS hashes.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { json, route, type Route } from '../http/route.js';
import { out, v, type Infer } from '../schema.js';
import { hotFeedPage, postMultipliers } from '../social/hotFeed.js';
import { PostReads } from '../social/postReads.js';
import { toHex } from '../hex.js';
import { decodeKeyOr400 } from './requestKeys.js';
import { postEntrySchema } from './responses.js';

export const DEFAULT_HOT_FEED_LIMIT = 50;
export const MAX_HOT_FEED_LIMIT = 200;
/** Hashes one request may list as seen: a long session's worth of pages. */
export const MAX_SEEN_POSTS = 5_000;

export const hotFeedPageBody = v.object({
  ReaderPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  /** Post hashes (hex) already shown to the reader. */
  SeenPosts: v.optional(v.array(v.string({ maxLength: 200 }), MAX_SEEN_POSTS), []),
  /** 0 = 50. */
  ResponseLimit: v.optional(v.int(0, MAX_HOT_FEED_LIMIT), 0),
  Tag: v.optional(v.string({ maxLength: 200 }), ''),
  SortByNew: v.optional(v.boolean(), false),
});

export const hotFeedPageResponse = out.object({
  HotFeedPage: out.array(postEntrySchema, 'Pinned posts first (without SeenPosts), then the ranking from the top; each with its poster’s profile and HotnessScore'),
});

const P = 'HandleHotFeedPageRequest: ';

type Body = Infer<typeof hotFeedPageBody>;

/** One page: filtered (get-hot-feed) or the unfiltered admin page (routes/adminHotFeed.ts). */
export async function hotFeedPageAnswer(deps: AppDeps, body: Body, filtered: boolean): Promise<Record<string, unknown>> {
  const network = deps.config.network;
  const reader = body.ReaderPublicKeyBase58Check === '' ? null : decodeKeyOr400(body.ReaderPublicKeyBase58Check, network, 'ReaderPublicKeyBase58Check', `${P}Problem decoding reader public key`);
  const [state, tip] = await Promise.all([deps.chain.pendingView(), deps.chain.tip()]);
  const reads = new PostReads({ deps, state, tipHeight: tip.height, mined: deps.store, reader, addGlobalFeedBool: false });
  const entries = await hotFeedPage(deps.store, reads, {
    seen: new Set(body.SeenPosts.map((h) => h.toLowerCase())),
    limit: body.ResponseLimit === 0 ? DEFAULT_HOT_FEED_LIMIT : body.ResponseLimit,
    tag: body.Tag.toLowerCase(),
    sortByNew: body.SortByNew,
    filtered,
  });
  const multipliers = filtered ? null : await postMultipliers(deps.store, entries.map((e) => toHex(e.post.postHash)));
  const posts = await Promise.all(
    entries.map(async (e, i) => {
      const r = await reads.entry(e.post, { profile: 'poster', readerState: reader !== null });
      r['IsPinned'] = e.pinned;
      r['HotnessScore'] = e.score;
      if (multipliers !== null) r['PostMultiplier'] = multipliers[i];
      return r;
    }),
  );
  return { HotFeedPage: posts };
}

export function hotFeedRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/get-hot-feed',
      summary: 'The hot feed: recent top-level posts ranked by how much (and how wealthy) interaction they drew, decayed with age; or a tag’s ranking (Tag, SortByNew)',
      body: hotFeedPageBody,
      response: hotFeedPageResponse,
      handle: async ({ body }) => json(await hotFeedPageAnswer(deps, body, true)),
    }),
  ];
}
