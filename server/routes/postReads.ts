/**
 * Post reads (issue 21; reference social-graph.md §5, backend routes/post.go): get-single-post,
 * get-posts-for-public-key, get-reposts-for-post, get-quote-reposts-for-post and
 * get-posts-hashhexlist, thin handlers
 * over server/social/postReads.ts. Every read sees the pending view (tip plus mempool), as the
 * reference's augmented view. get-single-post and get-posts-for-public-key are cached
 * (http/readCache.ts): they read chain state through their `ChainReads` only, and every
 * node-local write they show (blocks, moderation, the global feed) bumps the flags counter.
 * Messages keep the reference's prefixes; inputs that fail to decode are not echoed (a key
 * field or a 64-hex hash field could hold a pasted private key).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getProfileByUsername } from '../chain/state/profiles.js';
import { badRequest, notFound } from '../http/errors.js';
import { cachedRoute, unrecordedChainReads, type ChainReads } from '../http/readCache.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { postEntrySchema, profileEntrySchema } from './responses.js';
import { parsePostHashHex } from '../social/feed.js';
import {
  MAX_COMMENT_LIMIT,
  MAX_OFFSET,
  MAX_POSTS_BY_HASH,
  MAX_THREAD_LEVEL_LIMIT,
  PostReads,
  postsByHash,
  postsForPublicKey,
  quoteRepostsPage,
  repostersPage,
  singlePost,
} from '../social/postReads.js';
import { decodeKeyOr400 } from './requestKeys.js';

/** Largest page of posts or reposters one request gets (the reference has no bound). */
export const MAX_POST_PAGE = 200;
const U32_MAX = 2 ** 32 - 1;
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;
const USERNAME = /^[a-zA-Z0-9_]{1,25}$/;

const key = (): ReturnType<typeof v.string> => v.string({ maxLength: 200 });
const postHashHex = (): ReturnType<typeof v.string> => v.string({ maxLength: 200 });

export const getSinglePostBody = v.object({
  PostHashHex: postHashHex(),
  /** Adds `ParentPosts`: the thread from its root down to the post's parent. */
  FetchParents: v.optional(v.boolean(), false),
  CommentOffset: v.optional(v.int(0, MAX_OFFSET), 0),
  /** 0 = no comments (`Comments: null`); above 30 counts as 30. */
  CommentLimit: v.optional(v.int(0, U32_MAX), 0),
  ReaderPublicKeyBase58Check: v.optional(key(), ''),
  /** Reply levels loaded below the top-level comments; above 4 counts as 4. */
  ThreadLevelLimit: v.optional(v.int(0, U32_MAX), 0),
  /** Replies kept per comment below the top level: 0 none, -1 all. */
  ThreadLeafLimit: v.optional(v.int(I32_MIN, I32_MAX), 0),
  /** Follows the post author's own reply thread past ThreadLevelLimit. */
  LoadAuthorThread: v.optional(v.boolean(), false),
  AddGlobalFeedBool: v.optional(v.boolean(), false),
});

export const getPostsForPublicKeyBody = v.object({
  /** Whose posts; or `Username`. The key wins when both are given. */
  PublicKeyBase58Check: v.optional(key(), ''),
  Username: v.optional(v.string({ maxLength: 100 }), ''),
  ReaderPublicKeyBase58Check: v.optional(key(), ''),
  /** The last post of the previous page; "" for the newest. */
  LastPostHashHex: v.optional(postHashHex(), ''),
  /** 0 = no posts. */
  NumToFetch: v.optional(v.int(0, MAX_POST_PAGE), 0),
  /** Only posts with an image, a video or an embedded video. */
  MediaRequired: v.optional(v.boolean(), false),
  /** Only NFTs: there are none on this chain. */
  OnlyNFTs: v.optional(v.boolean(), false),
  OnlyPosts: v.optional(v.boolean(), false),
});

export const repostsForPostBody = v.object({
  PostHashHex: postHashHex(),
  Offset: v.optional(v.int(0, MAX_OFFSET), 0),
  /** 0 = none. */
  Limit: v.optional(v.int(0, MAX_POST_PAGE), 0),
  ReaderPublicKeyBase58Check: v.optional(key(), ''),
});

export const getSinglePostResponse = out.object({
  PostFound: out.describe(postEntrySchema, 'The post with its poster’s profile, reader state, Comments (nested to ThreadLevelLimit) and ParentPosts (root first)'),
});
export const getPostsForPublicKeyResponse = out.object({
  Posts: out.nullable(out.array(postEntrySchema, 'Newest first; null when the page is empty')),
  LastPostHashHex: out.hex('Send as LastPostHashHex for the next page; "" when the page is empty'),
});
const reposters = out.array(profileEntrySchema);
export const repostsForPostResponse = out.object({ Reposters: reposters, Reclouters: out.describe(reposters, 'Same as Reposters (older name)') });
const quoteReposts = out.array(postEntrySchema);
export const postsHashHexListResponse = out.object({
  PostsFound: out.array(postEntrySchema, 'Each with its poster’s profile and, with a reader, its PostEntryReaderState'),
  PostsSkipped: out.array(out.object({ PostHashHex: out.string(), Error: out.string('Why it is left out') })),
});
export const quoteRepostsForPostResponse = out.object({ QuoteReposts: quoteReposts, QuoteReclouts: out.describe(quoteReposts, 'Same as QuoteReposts (older name)') });
export const getPostsHashHexListBody = v.object({
  /** 1 to 50 post hashes (64 hex characters each). */
  PostsHashHexList: v.array(postHashHex(), MAX_POSTS_BY_HASH),
  ReaderPublicKeyBase58Check: v.optional(key(), ''),
  /** '' keeps the list's order; 'newest' or 'oldest' sorts by timestamp. */
  OrderBy: v.optional(v.string({ maxLength: 20 }), ''),
  /** Only NFTs: there are none on this chain, so every post is skipped. */
  OnlyNFTs: v.optional(v.boolean(), false),
  OnlyPosts: v.optional(v.boolean(), false),
});

/** The reference's GetPostHashFromPostHashHex, without echoing the input. */
function postHashOr400(hex: string, prefix: string): Uint8Array {
  if (hex === '') throw badRequest(`${prefix}: Must provide a PostHashHex to fetch.`);
  const hash = parsePostHashHex(hex);
  if (hash === null) throw badRequest(`${prefix}: Error parsing post hash: expected 64 hex characters`);
  return hash;
}

/** The request's reads: one pending view and the tip it sits on. */
async function postReads(deps: AppDeps, chainState: ChainReads, reader: Uint8Array | null, addGlobalFeedBool: boolean): Promise<PostReads> {
  const { view, height } = await chainState.pendingPlaces();
  return new PostReads({ deps, state: view, tipHeight: height - 1n, mined: chainState.mined(), reader, addGlobalFeedBool });
}

export function postReadRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const readerOf = (s: string, prefix: string, what = 'user'): Uint8Array | null =>
    s === '' ? null : decodeKeyOr400(s, network, 'ReaderPublicKeyBase58Check', `${prefix}: Problem decoding ${what} public key`);
  const live = unrecordedChainReads(deps);
  return [
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-single-post',
      summary: 'A post with its poster’s profile, reader state, parents (FetchParents) and comment threads paged by CommentOffset/CommentLimit (reference GetSinglePost)',
      body: getSinglePostBody,
      response: getSinglePostResponse,
      async handle({ body }, chainState) {
        const P = 'GetSinglePost';
        const postHash = postHashOr400(body.PostHashHex, P);
        const reader = readerOf(body.ReaderPublicKeyBase58Check, P);
        const reads = await postReads(deps, chainState, reader, body.AddGlobalFeedBool);
        const found = await singlePost(reads, {
          postHash,
          fetchParents: body.FetchParents,
          commentOffset: body.CommentOffset,
          commentLimit: Math.min(body.CommentLimit, MAX_COMMENT_LIMIT),
          threadLevelLimit: Math.min(body.ThreadLevelLimit, MAX_THREAD_LEVEL_LIMIT),
          threadLeafLimit: body.ThreadLeafLimit,
          loadAuthorThread: body.LoadAuthorThread,
        });
        return json({ PostFound: found });
      },
    }),
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-posts-for-public-key',
      summary: 'A user’s top-level posts (vanilla reposts included) newest first, paged by LastPostHashHex/NumToFetch (reference GetPostsForPublicKey)',
      body: getPostsForPublicKeyBody,
      response: getPostsForPublicKeyResponse,
      errors: { 404: 'No profile has that username' },
      async handle({ body }, chainState) {
        const P = 'GetPostsForPublicKey';
        if (body.OnlyNFTs && body.OnlyPosts) throw badRequest(`${P}: OnlyNFTs and OnlyPosts can not be enabled both`);
        const reader = readerOf(body.ReaderPublicKeyBase58Check, P, 'reader');
        const lastPostHash = body.LastPostHashHex === '' ? null : postHashOr400(body.LastPostHashHex, P);
        // Posts-for-public-key always carries InGlobalFeed, as the reference.
        const reads = await postReads(deps, chainState, reader, true);
        let poster: Uint8Array;
        if (body.PublicKeyBase58Check !== '') poster = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', `${P}: Problem decoding user public key`);
        else {
          const profile = USERNAME.test(body.Username) ? await getProfileByUsername(reads.ctx.state, body.Username) : undefined;
          if (profile === undefined) throw notFound(`${P}: could not find profile for username${USERNAME.test(body.Username) ? `: ${body.Username}` : ''}`);
          poster = profile.publicKey;
        }
        return json(await postsForPublicKey(reads, { poster, lastPostHash, numToFetch: body.NumToFetch, mediaRequired: body.MediaRequired, onlyNFTs: body.OnlyNFTs }));
      },
    }),
    route({
      method: 'POST',
      path: '/get-reposts-for-post',
      summary: 'Profiles of the accounts that reposted a post (without a quote), paged by Offset/Limit (reference GetRepostsForPost)',
      body: repostsForPostBody,
      response: repostsForPostResponse,
      async handle({ body }) {
        const P = 'GetRepostsForPost';
        const postHash = postHashOr400(body.PostHashHex, P);
        const reader = readerOf(body.ReaderPublicKeyBase58Check, P);
        const page = await repostersPage(await postReads(deps, live, reader, false), { postHash, offset: body.Offset, limit: body.Limit });
        // `Reclouters` is the reference's deprecated copy.
        return json({ Reposters: page, Reclouters: page });
      },
    }),
    route({
      method: 'POST',
      path: '/get-quote-reposts-for-post',
      summary: 'The quote reposts of a post with their authors’ profiles and the reader state, paged by Offset/Limit (reference GetQuoteRepostsForPost)',
      body: repostsForPostBody,
      response: quoteRepostsForPostResponse,
      async handle({ body }) {
        const P = 'GetQuoteRepostsForPost';
        const postHash = postHashOr400(body.PostHashHex, P);
        const reader = readerOf(body.ReaderPublicKeyBase58Check, P);
        const page = await quoteRepostsPage(await postReads(deps, live, reader, false), { postHash, offset: body.Offset, limit: body.Limit });
        return json({ QuoteReposts: page, QuoteReclouts: page });
      },
    }),
    route({
      method: 'POST',
      path: '/get-posts-hashhexlist',
      summary: 'Up to 50 posts by hash with their posters’ profiles, in the list’s order or by OrderBy (newest/oldest); PostsSkipped says why a hash is left out (reference GetPostsHashHexList)',
      body: getPostsHashHexListBody,
      response: postsHashHexListResponse,
      async handle({ body }) {
        const P = 'GetPostsHashHexList';
        // The reference's wording, prefix included (its copy of GetPostsStateless's check).
        if (body.OnlyNFTs && body.OnlyPosts) throw badRequest('GetPostsStateless: OnlyNFTs and OnlyPosts can not be enabled both');
        if (body.PostsHashHexList.length === 0) throw badRequest(`${P}: PostsHashHexList is empty`);
        const orderBy = body.OrderBy;
        if (orderBy !== '' && orderBy !== 'newest' && orderBy !== 'oldest') throw badRequest(`${P}: OrderBy can be only empty, newest or oldest`);
        const postHashes = body.PostsHashHexList.map((hex, i) => {
          const hash = parsePostHashHex(hex);
          if (hash === null) throw badRequest(`${P}: invalid post hash hex provided at PostsHashHexList[${i}]: expected 64 hex characters`);
          return hash;
        });
        const reader = readerOf(body.ReaderPublicKeyBase58Check, P, 'reader');
        const reads = await postReads(deps, live, reader, false);
        return json(await postsByHash(reads, { postHashes, orderBy, onlyNFTs: body.OnlyNFTs }));
      },
    }),
  ];
}
