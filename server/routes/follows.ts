/**
 * Routes of this area (reference social-graph.md §2): `create-follow-txn-stateless` constructs
 * a FOLLOW (follow or unfollow; the rules check it at submission, as the reference, which
 * checks no state here); `get-follows-stateless` and `is-following-public-key` read the follow
 * indexes through server/social/follows.ts.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import { cachedRoute } from '../http/readCache.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { profileEntryMapSchema } from './responses.js';
import { followsStateless, isFollowingPublicKey, MAX_FOLLOWS_TO_FETCH } from '../social/follows.js';
import { BASIC_CONSTRUCTED, constructedResponse, constructFields, constructForRequest } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';

export const createFollowBody = v.object({
  FollowerPublicKeyBase58Check: v.string({ maxLength: 200 }),
  FollowedPublicKeyBase58Check: v.string({ maxLength: 200 }),
  IsUnfollow: v.optional(v.boolean(), false),
  ...constructFields,
});

export const getFollowsBody = v.object({
  /** Whose follows; wins over Username. */
  PublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  Username: v.optional(v.string({ maxLength: 200 }), ''),
  /** true: the user's followers; false: the keys the user follows. */
  GetEntriesFollowingUsername: v.optional(v.boolean(), false),
  /** The last key of the previous page; the page starts after it. */
  LastPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  /** Keys per page, at most MAX_FOLLOWS_TO_FETCH; 0 answers only NumFollowers. */
  NumToFetch: v.optional(v.uint64(), 0n),
});

export const isFollowingBody = v.object({
  /** The follower. */
  PublicKeyBase58Check: v.string({ maxLength: 200 }),
  IsFollowingPublicKeyBase58Check: v.string({ maxLength: 200 }),
});

export const createFollowResponse = constructedResponse('CreateFollowTxnResponse', BASIC_CONSTRUCTED);
export const getFollowsResponse = out.object({
  PublicKeyToProfileEntry: profileEntryMapSchema,
  NumFollowers: out.int('How many keys the whole list holds (followers or followed, as asked)'),
});
export const isFollowingResponse = out.object({ IsFollowing: out.boolean() });

export function followRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/create-follow-txn-stateless',
      summary: 'Construct a FOLLOW transaction: follow, or unfollow with IsUnfollow (reference CreateFollowTxnStateless); sign and submit it',
      body: createFollowBody,
      response: createFollowResponse,
      async handle({ body }) {
        const p = 'CreateFollowTxnStateless';
        const follower = decodeKeyOr400(body.FollowerPublicKeyBase58Check, network, 'FollowerPublicKeyBase58Check', `${p}: Problem decoding sender base58 public key`);
        const followed = decodeKeyOr400(body.FollowedPublicKeyBase58Check, network, 'FollowedPublicKeyBase58Check', `${p}: Problem decoding recipient base58 public key`);
        const { fields } = await constructForRequest(deps, {
          publicKey: follower,
          metadata: { type: 'FOLLOW', followedPublicKey: followed, isUnfollow: body.IsUnfollow },
          fields: body,
        });
        return json({
          TotalInputNanos: fields.TotalInputNanos,
          ChangeAmountNanos: fields.ChangeAmountNanos,
          FeeNanos: fields.FeeNanos,
          Transaction: fields.Transaction,
          TransactionHex: fields.TransactionHex,
        });
      },
    }),
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-follows-stateless',
      summary: "A page of a user's followers (GetEntriesFollowingUsername) or followed keys, in key order after LastPublicKeyBase58Check, with each profile and the list's total (NumFollowers)",
      body: getFollowsBody,
      response: getFollowsResponse,
      errors: { 404: 'No profile has that username' },
      async handle({ body }, chainState) {
        const p = 'GetFollowsStateless';
        if (body.NumToFetch > BigInt(MAX_FOLLOWS_TO_FETCH)) throw badRequest(`${p}: NumToFetch is ${body.NumToFetch}; this node answers at most ${MAX_FOLLOWS_TO_FETCH} a page`);
        const publicKey = body.PublicKeyBase58Check === '' ? null : decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', `${p}: Problem decoding user public key`);
        const after = body.LastPublicKeyBase58Check === '' ? null : decodeKeyOr400(body.LastPublicKeyBase58Check, network, 'LastPublicKeyBase58Check', `${p}: Problem decoding last public key seen`);
        const state = await chainState.pending();
        return json(
          await followsStateless(deps, state, { publicKey, username: body.Username, followers: body.GetEntriesFollowingUsername, after, numToFetch: Number(body.NumToFetch) }),
        );
      },
    }),
    route({
      method: 'POST',
      path: '/is-following-public-key',
      summary: 'Whether PublicKeyBase58Check follows IsFollowingPublicKeyBase58Check (tip plus mempool)',
      body: isFollowingBody,
      response: isFollowingResponse,
      async handle({ body }) {
        const p = 'IsFollowingPublicKey';
        const follower = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', `${p}: Problem decoding user public key`);
        const followed = decodeKeyOr400(body.IsFollowingPublicKeyBase58Check, network, 'IsFollowingPublicKeyBase58Check', `${p}: Problem decoding public key to check`);
        return json(await isFollowingPublicKey(await deps.chain.pendingView(), follower, followed));
      },
    }),
  ];
}
