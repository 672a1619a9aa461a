/**
 * The hot feed's admin routes (reference routes/hot_feed.go; POST, at the reference's levels),
 * thin handlers over server/social/hotFeedSettings.ts and routes/hotFeed.ts. The next refresh
 * of the rankings (social/hotFeedJob.ts, every 30 s) scores with what they set.
 *
 * - `admin/get-unfiltered-hot-feed` (admin): the hot feed page without moderation filters, with
 *   each post's `PostMultiplier` (routes/hotFeed.ts).
 *
 * The rest are super admin:
 * - `admin/get-hot-feed-algorithm`, `admin/update-hot-feed-algorithm`: InteractionCap(Tag),
 *   TimeDecayBlocks(Tag) (0 leaves a value as it is) and TxnTypeMultiplierMap (basis points by
 *   transaction type number; a non-empty map replaces the map). Both answer the algorithm in
 *   force: unlike the reference, which reads 0s until its routine first stores the defaults,
 *   unset values read as the defaults.
 * - `admin/get-hot-feed-user-multiplier`, `admin/update-hot-feed-user-multiplier`: a user's
 *   InteractionMultiplier and PostsMultiplier (1 until set), the user named by `Username` (a
 *   public key is taken too). A negative or omitted multiplier leaves it as it is (the reference
 *   reads an omitted one as 0 and sets only the first of two given ones); the update answers the
 *   user's multipliers.
 * - `admin/update-hot-feed-post-multiplier`: a post's multiplier, of a post that exists (404
 *   otherwise; the reference does not check).
 *
 * Multipliers are at most MAX_MULTIPLIER (1000×) and type weights MAX_TXN_TYPE_MULTIPLIER_BASIS_POINTS.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getPost } from '../chain/state/posts.js';
import { TxnType } from '../chain/txn/metadata.js';
import { badRequest, notFound } from '../http/errors.js';
import { json, type Route } from '../http/route.js';
import { adminRoute } from './adminAuth.js';
import { out, v } from '../schema.js';
import { parsePostHashHex } from '../social/feed.js';
import {
  getHotFeedAlgorithm,
  getUserMultiplier,
  MAX_MULTIPLIER,
  MAX_TXN_TYPE_MULTIPLIER_BASIS_POINTS,
  setPostMultiplier,
  updateHotFeedAlgorithm,
  updateUserMultiplier,
} from '../social/hotFeedSettings.js';
import { resolvePublicKeyOrUsername } from '../social/keyOrUsername.js';
import { hotFeedPageAnswer, hotFeedPageBody, hotFeedPageResponse } from './hotFeed.js';

const SAFE = Number.MAX_SAFE_INTEGER;
const TXN_TYPES = new Set<number>(Object.values(TxnType));

export const adminUpdateHotFeedAlgorithmBody = v.object({
  InteractionCap: v.optional(v.int(0, SAFE), 0),
  InteractionCapTag: v.optional(v.int(0, SAFE), 0),
  TimeDecayBlocks: v.optional(v.int(0, SAFE), 0),
  TimeDecayBlocksTag: v.optional(v.int(0, SAFE), 0),
  TxnTypeMultiplierMap: v.optional(v.record(v.int(0, MAX_TXN_TYPE_MULTIPLIER_BASIS_POINTS), 256), {}),
});

export const adminHotFeedUserBody = v.object({
  Username: v.optional(v.string({ maxLength: 200 }), ''),
});

export const adminUpdateHotFeedUserMultiplierBody = v.object({
  Username: v.optional(v.string({ maxLength: 200 }), ''),
  /** Negative or absent: unchanged. */
  InteractionMultiplier: v.optional(v.number(-1, MAX_MULTIPLIER), -1),
  PostsMultiplier: v.optional(v.number(-1, MAX_MULTIPLIER), -1),
});

export const adminUpdateHotFeedPostMultiplierBody = v.object({
  PostHashHex: v.optional(v.string({ maxLength: 200 }), ''),
  Multiplier: v.number(0, MAX_MULTIPLIER),
});

const algorithmResponse = out.object({
  InteractionCap: out.int('Most one key adds to a post’s global score before decay, nanos'),
  InteractionCapTag: out.int('The same for the tag rankings'),
  TimeDecayBlocks: out.int('Blocks per halving of the global scores'),
  TimeDecayBlocksTag: out.int('The same for the tag rankings'),
  TxnTypeMultiplierMap: out.record(out.int(), 'Basis points by transaction type number (10000 = 1×, the weight of a type not listed)'),
});

const userMultiplierResponse = out.object({
  InteractionMultiplier: out.number('Weighs what the user’s interactions add to others’ posts'),
  PostsMultiplier: out.number('Weighs the scores of the user’s posts'),
});

/** The key the request's Username names (a username, or a public key). */
async function namedUser(deps: AppDeps, username: string, prefix: string): Promise<Uint8Array> {
  if (username === '') throw badRequest(`${prefix}: Must provide a valid username`);
  return resolvePublicKeyOrUsername(await deps.chain.pendingView(), username, deps.config.network, 'Username', `${prefix}: `);
}

export function adminHotFeedRoutes(deps: AppDeps): Route[] {
  return [
    adminRoute(deps, {
      path: '/admin/get-unfiltered-hot-feed',
      summary: 'The hot feed without moderation filters (blacklisted and graylisted authors included), with each post’s PostMultiplier',
      level: 'admin',
      body: hotFeedPageBody,
      response: hotFeedPageResponse,
      handle: async ({ body }) => json(await hotFeedPageAnswer(deps, body, false)),
    }),
    adminRoute(deps, {
      path: '/admin/get-hot-feed-algorithm',
      summary: 'The hot feed’s algorithm parameters in force (the defaults until set)',
      level: 'superAdmin',
      body: v.object({}),
      response: algorithmResponse,
      handle: async () => json(await getHotFeedAlgorithm(deps.store)),
    }),
    adminRoute(deps, {
      path: '/admin/update-hot-feed-algorithm',
      summary: 'Sets the hot feed’s interaction caps and time decays (0: unchanged) and its transaction type weights (a non-empty map replaces them); answers the algorithm in force',
      level: 'superAdmin',
      body: adminUpdateHotFeedAlgorithmBody,
      response: algorithmResponse,
      async handle({ body }) {
        const unknown = Object.keys(body.TxnTypeMultiplierMap).find((k) => !/^[0-9]{1,3}$/.test(k) || !TXN_TYPES.has(Number(k)));
        if (unknown !== undefined) throw badRequest(`AdminUpdateHotFeedAlgorithm: TxnTypeMultiplierMap: ${JSON.stringify(unknown.slice(0, 20))} is not a transaction type number`);
        return json(await updateHotFeedAlgorithm(deps.store, body));
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-hot-feed-user-multiplier',
      summary: 'A user’s hot feed multipliers (1 until set)',
      level: 'superAdmin',
      body: adminHotFeedUserBody,
      response: userMultiplierResponse,
      handle: async ({ body }) => json(await getUserMultiplier(deps.store, await namedUser(deps, body.Username, 'AdminGetHotFeedUserMultiplier'))),
    }),
    adminRoute(deps, {
      path: '/admin/update-hot-feed-user-multiplier',
      summary: 'Sets a user’s hot feed InteractionMultiplier and PostsMultiplier (a negative or omitted one is unchanged); answers both',
      level: 'superAdmin',
      body: adminUpdateHotFeedUserMultiplierBody,
      response: userMultiplierResponse,
      async handle({ body }) {
        const pk = await namedUser(deps, body.Username, 'AdminUpdateHotFeedUserMultiplier');
        return json(await updateUserMultiplier(deps.store, pk, { InteractionMultiplier: body.InteractionMultiplier, PostsMultiplier: body.PostsMultiplier }));
      },
    }),
    adminRoute(deps, {
      path: '/admin/update-hot-feed-post-multiplier',
      summary: 'Sets the multiplier of what interactions add to a post’s hot feed score',
      level: 'superAdmin',
      body: adminUpdateHotFeedPostMultiplierBody,
      response: out.object({}),
      errors: { 404: 'No post with that hash' },
      async handle({ body }) {
        const P = 'AdminUpdateHotFeedPostMultiplier';
        if (body.PostHashHex === '') throw badRequest(`${P}: Request missing PostHashHex`);
        const hash = parsePostHashHex(body.PostHashHex);
        if (hash === null) throw badRequest(`${P}: Error parsing post hash: PostHashHex must be 64 hex characters`);
        if ((await getPost(await deps.chain.pendingView(), hash)) === undefined) throw notFound(`${P}: no post with this PostHashHex`);
        await setPostMultiplier(deps.store, body.PostHashHex.toLowerCase(), body.Multiplier);
        return json({});
      },
    }),
  ];
}
