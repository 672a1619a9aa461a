/**
 * Routes of this area: submit-post (reference backend `SubmitPost`), and the PostEntryResponse
 * that submit-transaction answers for a submitted post.
 *
 * The body goes on chain as the JSON Go's encoding/json writes for `{Body, ImageURLs,
 * VideoURLs}` (empty fields omitted). A repost is ExtraData `RecloutedPostHash` (+
 * `IsQuotedReclout`, 1 when the repost has a body or images of its own), as core reads it.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { POST_EXTRA_KEYS, POST_LIMITS } from '../chain/rules/posts.js';
import { getPost, isVanillaRepost } from '../chain/state/posts.js';
import { badRequest } from '../http/errors.js';
import { hexOr400 } from './requestHex.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { PUBLIC_KEY_STRING_START } from '../keys/index.js';
import { BASIC_CONSTRUCTED, constructedResponse, constructFields, constructForRequest, encodeExtraData } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';

export const submitPostBody = v.object({
  UpdaterPublicKeyBase58Check: v.string({ maxLength: 200 }),
  PostHashHexToModify: v.optional(v.string({ maxLength: 200 }), ''),
  /** A post hash (64 hex) for a comment, or a profile public key. */
  ParentStakeID: v.optional(v.string({ maxLength: 200 }), ''),
  BodyObj: v.optional(
    v.object({
      Body: v.optional(v.string({ maxLength: 1_000_000 }), ''),
      ImageURLs: v.optional(v.array(v.string({ maxLength: 10_000 }), 1_000), []),
      VideoURLs: v.optional(v.array(v.string({ maxLength: 10_000 }), 1_000), []),
    }),
  ),
  RepostedPostHashHex: v.optional(v.string({ maxLength: 200 }), ''),
  /** Post attributes, typed keys encoded as the common ExtraData (reference preprocessExtraData). */
  PostExtraData: v.optional(v.record(v.string({ maxLength: 100_000 }), 100), {}),
  IsHidden: v.optional(v.boolean(), false),
  /** Freezes the post: no later edit is accepted (ExtraData `IsFrozen`). */
  IsFrozen: v.optional(v.boolean(), false),
  ...constructFields,
});

export const submitPostResponse = constructedResponse('SubmitPostResponse', BASIC_CONSTRUCTED, {
  TstampNanos: out.uint64('The post’s timestamp'),
  PostHashHex: out.hex('The hash of the unsigned transaction (as the reference); a new post’s hash is the final one submit-transaction answers'),
});

/** Core's CreateSubmitPostTxn values (the SDK builds the same). */
const NEW_POST_CREATOR_BASIS_POINTS = 1_000n;
const NEW_POST_STAKE_MULTIPLE_BASIS_POINTS = 12_500n;

interface BodyObj {
  Body: string;
  ImageURLs: string[];
  VideoURLs: string[];
}

/** JSON.stringify with Go's encoding/json HTML escaping, so the bytes match the reference. */
function goJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The backend's cleanBody: the body JSON, refused (400, `context` before the backend's text)
 * when empty (unless a repost) or too long.
 */
function cleanBody(b: BodyObj, isRepost: boolean, context: string): Uint8Array {
  if (b.Body === '' && b.ImageURLs.length === 0 && b.VideoURLs.length === 0 && !isRepost) {
    throw badRequest(`${context}SubmitPost: Body or Image or Video is required if not reposting.`);
  }
  // DeSoBodySchema's fields are all `omitempty`.
  const o: Partial<BodyObj> = {};
  if (b.Body !== '') o.Body = b.Body;
  if (b.ImageURLs.length > 0) o.ImageURLs = b.ImageURLs;
  if (b.VideoURLs.length > 0) o.VideoURLs = b.VideoURLs;
  const bytes = new TextEncoder().encode(goJson(o));
  if (bytes.length > POST_LIMITS.maxBodyBytes) {
    throw badRequest(`${context}SubmitPost: Body is too long. Length is ${bytes.length} but must be no more than ${POST_LIMITS.maxBodyBytes}`);
  }
  return bytes;
}

const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

export function postRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const prefix = PUBLIC_KEY_STRING_START[network];
  return [
    route({
      method: 'POST',
      path: '/submit-post',
      summary: 'Construct a SUBMIT_POST transaction: post, comment, repost or edit (reference backend SubmitPost); sign and submit it',
      body: submitPostBody,
      response: submitPostResponse,
      async handle({ body }) {
        const updater = decodeKeyOr400(body.UpdaterPublicKeyBase58Check, network, 'UpdaterPublicKeyBase58Check', 'SubmitPost: Problem decoding public key');

        let parentStakeId: Uint8Array = new Uint8Array(0);
        const parent = body.ParentStakeID;
        if (parent.length === 64) parentStakeId = hexOr400(parent, `SubmitPost: Problem decoding parent stake ID ${parent}: not hex`);
        else if (parent.startsWith(prefix)) parentStakeId = decodeKeyOr400(parent, network, 'ParentStakeID', 'SubmitPost: Problem decoding parent stake ID as public key');
        else if (parent !== '') throw badRequest(`SubmitPost: Unrecognized parent stake ID: ${parent}`);

        let postHashToModify: Uint8Array = new Uint8Array(0);
        if (body.PostHashHexToModify !== '') {
          postHashToModify = hexOr400(body.PostHashHexToModify, `SubmitPost: Problem decoding PostHashHexToModify ${body.PostHashHexToModify}: not hex`);
          if (postHashToModify.length !== 32) throw badRequest(`SubmitPost: Invalid length for PostHashHexToModify ${body.PostHashHexToModify}`);
        }

        const bodyObj: BodyObj | undefined = body.BodyObj;
        let repostedHash: Uint8Array | null = null;
        if (body.RepostedPostHashHex !== '') repostedHash = hexOr400(body.RepostedPostHashHex, 'SubmitPost: Could not decode Repost Post Hash Hex');
        let bodyBytes: Uint8Array = new Uint8Array(0);
        let isQuotedRepost = false;
        if (postHashToModify.length === 0) {
          if (bodyObj === undefined) throw badRequest('SubmitPost: BodyObj is required');
          if (repostedHash !== null) {
            // The backend's test: a repost with neither text nor images is a plain repost.
            if (bodyObj.Body === '' && bodyObj.ImageURLs.length === 0) {
              const reposted = await getPost(await deps.chain.pendingView(), repostedHash);
              if (reposted !== undefined && isVanillaRepost(reposted)) throw badRequest('SubmitPost: Cannot repost a post that is a repost without a quote');
            } else isQuotedRepost = true;
          }
          bodyBytes = cleanBody(bodyObj, repostedHash !== null, 'SubmitPost: Error validating body bytes: ');
        } else {
          if (repostedHash !== null && bodyObj !== undefined && (bodyObj.Body !== '' || bodyObj.ImageURLs.length > 0)) isQuotedRepost = true;
          if (bodyObj !== undefined) bodyBytes = cleanBody(bodyObj, repostedHash !== null, '');
        }

        // Consensus keys first (they win over PostExtraData and ExtraData of the same name).
        const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
        const consensus: Array<[Uint8Array, Uint8Array]> = [];
        if (repostedHash !== null) {
          consensus.push([enc(POST_EXTRA_KEYS.repostedPostHash), repostedHash], [enc(POST_EXTRA_KEYS.isQuotedRepost), Uint8Array.of(isQuotedRepost ? 1 : 0)]);
        }
        if (body.IsFrozen) consensus.push([enc(POST_EXTRA_KEYS.isFrozen), Uint8Array.of(1)]);
        const postExtra = encodeExtraData(body.PostExtraData, deps).filter(([k]) => !consensus.some(([c]) => Buffer.compare(c, k) === 0));

        const tstamp = nowNanos();
        const { fields } = await constructForRequest(deps, {
          publicKey: updater,
          metadata: {
            type: 'SUBMIT_POST',
            postHashToModify,
            parentStakeId,
            body: bodyBytes,
            creatorBasisPoints: NEW_POST_CREATOR_BASIS_POINTS,
            stakeMultipleBasisPoints: NEW_POST_STAKE_MULTIPLE_BASIS_POINTS,
            timestampNanos: tstamp,
            isHidden: body.IsHidden,
          },
          extraData: [...consensus, ...postExtra],
          fields: body,
        });
        return json({
          TstampNanos: tstamp,
          // As the reference: the hash of the unsigned transaction. A new post's hash is the
          // final (signed) transaction hash, which submit-transaction's PostEntryResponse gives.
          PostHashHex: fields.TxnHashHex,
          TotalInputNanos: fields.TotalInputNanos,
          ChangeAmountNanos: fields.ChangeAmountNanos,
          FeeNanos: fields.FeeNanos,
          Transaction: fields.Transaction,
          TransactionHex: fields.TransactionHex,
        });
      },
    }),
  ];
}
