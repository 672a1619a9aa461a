/**
 * Routes of this area (reference social-graph.md §3): `create-like-stateless` constructs a LIKE
 * (like or unlike; the rules check it at submission, as the reference, which checks no state
 * here); `get-likes-for-post` reads a post's likers through server/social/likes.ts.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import { cachedRoute } from '../http/readCache.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { profileEntrySchema } from './responses.js';
import { likesForPost, MAX_LIKES_TO_FETCH } from '../social/likes.js';
import { BASIC_CONSTRUCTED, constructedResponse, constructFields, constructForRequest } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';

const U32_MAX = 2 ** 32 - 1;
const POST_HASH_HEX = /^[0-9a-fA-F]{64}$/;

export const createLikeBody = v.object({
  ReaderPublicKeyBase58Check: v.string({ maxLength: 200 }),
  LikedPostHashHex: v.string({ maxLength: 200 }),
  IsUnlike: v.optional(v.boolean(), false),
  ...constructFields,
});

export const getLikesForPostBody = v.object({
  PostHashHex: v.optional(v.string({ maxLength: 200 }), ''),
  /** Shown likers to skip. */
  Offset: v.optional(v.int(0, U32_MAX), 0),
  /** Likers per page, at most MAX_LIKES_TO_FETCH; 0 answers an empty page, as the reference. */
  Limit: v.optional(v.int(0, U32_MAX), 0),
  /** Never left out by the moderation filter. */
  ReaderPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
});

export const createLikeResponse = constructedResponse('CreateLikeResponse', BASIC_CONSTRUCTED);
export const getLikesForPostResponse = out.object({ Likers: out.array(profileEntrySchema) });

/**
 * A post hash the request names, or a 400 `<prefix>: …`. The text is not echoed: a 64-hex field
 * is where a pasted seed would land, and error bodies end up in logs.
 */
function postHashOr400(s: string, prefix: string): Uint8Array {
  if (s === '') throw badRequest(`${prefix}: Must provide a PostHashHex to fetch.`);
  if (!POST_HASH_HEX.test(s)) throw badRequest(`${prefix}: Error parsing post hash: expected 64 hex characters, got ${s.length} characters`);
  return new Uint8Array(Buffer.from(s, 'hex'));
}

export function likeRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/create-like-stateless',
      summary: 'Construct a LIKE transaction: like a post, or unlike it with IsUnlike (reference CreateLikeStateless); sign and submit it',
      body: createLikeBody,
      response: createLikeResponse,
      async handle({ body }) {
        // The reference checks the hash first, with its read route's name in the message.
        if (!POST_HASH_HEX.test(body.LikedPostHashHex)) throw badRequest(`GetLikesStateless: Error parsing post hash: expected 64 hex characters, got ${body.LikedPostHashHex.length} characters`);
        const reader = decodeKeyOr400(body.ReaderPublicKeyBase58Check, network, 'ReaderPublicKeyBase58Check', 'CreateLikeStateless: Problem decoding sender base58 public key');
        const { fields } = await constructForRequest(deps, {
          publicKey: reader,
          metadata: { type: 'LIKE', likedPostHash: new Uint8Array(Buffer.from(body.LikedPostHashHex, 'hex')), isUnlike: body.IsUnlike },
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
      path: '/get-likes-for-post',
      summary: "A page (Offset, Limit) of the profiles that like a post, Base58Check descending; likers without a profile and moderated ones (but the reader) left out",
      body: getLikesForPostBody,
      response: getLikesForPostResponse,
      async handle({ body }, chainState) {
        const p = 'GetLikesForPost';
        const postHash = postHashOr400(body.PostHashHex, p);
        const reader = body.ReaderPublicKeyBase58Check === '' ? null : decodeKeyOr400(body.ReaderPublicKeyBase58Check, network, 'ReaderPublicKeyBase58Check', `${p}: Problem decoding user public key`);
        if (body.Limit > MAX_LIKES_TO_FETCH) throw badRequest(`${p}: Limit is ${body.Limit}; this node answers at most ${MAX_LIKES_TO_FETCH} a page`);
        const state = await chainState.pending();
        return json(await likesForPost(deps, state, { postHash, reader, offset: body.Offset, limit: body.Limit }));
      },
    }),
  ];
}
