/**
 * Referral codes, spec §4.6 (reference node-api.md §2.5) and the reference's super-admin routes
 * that manage them (backend routes/admin_referrals.go). Logic and storage in social/referrals.ts.
 *
 * Profiles (`ReferredUsers`) are read from the pending view (tip plus mempool), as the
 * reference reads its mempool-augmented view; the codes themselves are node state.
 *
 * Request fields: the reference's names (`RefereeAmountUSDCents`, `RequiresJumio`) and the
 * spec's (`ReferreeAmountUSDCents`, `RequiresIdVerification`) are both accepted; responses use
 * the spec's (§2.8).
 */
import type { AppDeps } from '../deps.js';
import { publicKeyForUsername } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { adminRoute, requireUserJwt } from './adminAuth.js';
import { badRequest, notFound } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v, type ObjectOf } from '../schema.js';
import { profileEntrySchema } from './responses.js';
import { decodePublicKey, encodePublicKey } from '../keys/index.js';
import { profileEntryResponse } from '../social/profileEntry.js';
import {
  createReferral,
  getReferral,
  MAX_REFERRAL_AMOUNT_USD_CENTS,
  refereesOf,
  referralInfoJson,
  referralsOf,
  simpleReferralInfoJson,
  updateReferralTerms,
  type ReferralRecord,
  type ReferralTerms,
} from '../social/referrals.js';
import { decodeKeyOr400 } from './requestKeys.js';

const KEY = { maxLength: 200 };
const CENTS = v.int(0, Number.MAX_SAFE_INTEGER);

/** Terms fields of the create and update requests, under both spellings. */
const termsFields = {
  ReferrerAmountUSDCents: v.optional(CENTS),
  RefereeAmountUSDCents: v.optional(CENTS),
  ReferreeAmountUSDCents: v.optional(CENTS),
  MaxReferrals: v.optional(v.uint64()),
  RequiresJumio: v.optional(v.boolean()),
  RequiresIdVerification: v.optional(v.boolean()),
};

export const getReferralInfoForUserBody = v.object({
  PublicKeyBase58Check: v.string(KEY),
  // Optional in the schema so that a missing token is a 401 from the verifier, not a 400.
  JWT: v.optional(v.string(), ''),
});

export const getReferralInfoForReferralHashBody = v.object({
  ReferralHash: v.string({ maxLength: 100 }),
});

export const adminCreateReferralHashBody = v.object({
  UserPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  Username: v.optional(v.string(KEY), ''),
  ...termsFields,
});

export const adminUpdateReferralHashBody = v.object({
  ReferralHashBase58: v.string({ maxLength: 100 }),
  ...termsFields,
  IsActive: v.optional(v.boolean()),
});

export const adminGetAllReferralInfoForUserBody = v.object({
  UserPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  Username: v.optional(v.string(KEY), ''),
});

type TermsInput = ObjectOf<typeof termsFields>;

/** The terms a request sets (undefined = not given), amounts checked against the $1000 cap. */
function termsOf(body: TermsInput, prefix: string): Partial<ReferralTerms> {
  const refereeCents = body.ReferreeAmountUSDCents ?? body.RefereeAmountUSDCents;
  for (const cents of [body.ReferrerAmountUSDCents, refereeCents]) {
    if (cents !== undefined && cents > MAX_REFERRAL_AMOUNT_USD_CENTS) {
      throw badRequest(`${prefix}Referrer and referee amounts should not exceed $${MAX_REFERRAL_AMOUNT_USD_CENTS / 100} USD.`);
    }
  }
  return {
    referrerAmountUSDCents: body.ReferrerAmountUSDCents,
    refereeAmountUSDCents: refereeCents,
    maxReferrals: body.MaxReferrals,
    requiresIdVerification: body.RequiresIdVerification ?? body.RequiresJumio,
  };
}

/** Spec §2.8 `Info` (social/referrals.ts referralInfoJson). */
const referralInfo = out.object({
  ReferralHashBase58: out.string(),
  ReferrerPKID: out.array(out.int(), 'The referrer’s 33-byte key as numbers (a Go PKID)'),
  ReferrerAmountUSDCents: out.int(),
  ReferreeAmountUSDCents: out.int(),
  MaxReferrals: out.uint64('0: no limit'),
  RequiresIdVerification: out.boolean(),
  NumIdVerificationAttempts: out.uint64(),
  NumIdVerificationSuccesses: out.uint64(),
  TotalReferrals: out.uint64(),
  TotalRefererrerNativeNanos: out.uint64(),
  TotalRefereeNativeNanos: out.uint64(),
  DateCreatedTStampNanos: out.uint64(),
});

/** Spec §2.8 element: a code, its terms and counters, and who signed up with it. */
export const referralInfoResponseSchema = out.named(
  'ReferralInfoResponse',
  out.object({
    IsActive: out.boolean(),
    Info: referralInfo,
    ReferredUsers: out.array(
      out.anyOf([profileEntrySchema, out.object({ PublicKeyBase58Check: out.publicKey() })], 'A referee’s profile, or its key alone when it has none'),
    ),
  }),
);

export const referralInfoListResponse = out.object({ ReferralInfoResponses: out.array(referralInfoResponseSchema) });
export const oneReferralInfoResponse = out.object({ ReferralInfoResponse: referralInfoResponseSchema });
export const simpleReferralInfoResponse = out.object({
  ReferralInfoResponse: out.object({
    IsActive: out.boolean(),
    Info: out.object({ ReferralHashBase58: out.string(), ReferreeAmountUSDCents: out.int(), MaxReferrals: out.uint64(), TotalReferrals: out.uint64() }),
  }),
});

export function referralRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;

  /** Spec §2.8 element: IsActive, Info, and the profiles of the users who signed up with it. */
  const referralInfoResponse = async (state: StateIndexReader, r: ReferralRecord): Promise<Record<string, unknown>> => {
    const referees = await refereesOf(deps.store, r.hash);
    const ReferredUsers = await Promise.all(
      // A referee without a profile is shown by key alone, as the reference shows anonymous users.
      referees.map(async (pk) => (await profileEntryResponse(deps, state, pk)) ?? { PublicKeyBase58Check: encodePublicKey(pk, network) }),
    );
    return { IsActive: r.isActive, Info: referralInfoJson(r), ReferredUsers };
  };

  /** A user named by public key (preferred) or username, for the admin routes. */
  const userByKeyOrName = async (state: StateIndexReader, body: { UserPublicKeyBase58Check: string; Username: string }, prefix: string): Promise<Uint8Array> => {
    if (body.UserPublicKeyBase58Check !== '') {
      return decodeKeyOr400(body.UserPublicKeyBase58Check, network, 'UserPublicKeyBase58Check', `${prefix}Problem decoding updater public key`);
    }
    if (body.Username === '') throw badRequest(`${prefix}Must provide a valid username or public key.`);
    const pk = await publicKeyForUsername(state, body.Username);
    if (pk === undefined) throw badRequest(`${prefix}Problem getting profile for username: ${body.Username}`);
    return pk;
  };

  return [
    route({
      method: 'POST',
      path: '/get-referral-info-for-user',
      auth: 'user-jwt',
      summary: 'The referral codes a user owns, with their counters and referred users (JWT of the user; spec §4.6)',
      body: getReferralInfoForUserBody,
      response: referralInfoListResponse,
      async handle({ body, caller }) {
        const P = 'GetReferralInfoForUser: ';
        await requireUserJwt(deps, caller, body.PublicKeyBase58Check, body.JWT, `${P}Error validating JWT: `);
        const pk = decodePublicKey(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check');
        const [records, state] = await Promise.all([referralsOf(deps.store, pk), deps.chain.pendingView()]);
        return json({ ReferralInfoResponses: await Promise.all(records.map((r) => referralInfoResponse(state, r))) });
      },
    }),
    route({
      method: 'POST',
      path: '/get-referral-info-for-referral-hash',
      summary: 'Whether a referral code is valid and what a new user would receive (spec §4.6)',
      body: getReferralInfoForReferralHashBody,
      response: simpleReferralInfoResponse,
      errors: { 404: 'No referral code with that hash' },
      async handle({ body }) {
        const r = await getReferral(deps.store, body.ReferralHash);
        if (r === undefined) {
          throw notFound(`GetReferralInfoForReferralHash: Error getting referral info for referral hash: no referral hash ${JSON.stringify(body.ReferralHash)}`);
        }
        return json({ ReferralInfoResponse: simpleReferralInfoJson(r) });
      },
    }),
    adminRoute(deps, {
      path: '/admin/create-referral-hash',
      summary: 'Creates an active referral code for a user',
      level: 'superAdmin',
      body: adminCreateReferralHashBody,
      response: oneReferralInfoResponse,
      async handle({ body }) {
        const P = 'AdminCreateReferralHash: ';
        const terms = termsOf(body, P);
        const state = await deps.chain.pendingView();
        const referrer = await userByKeyOrName(state, body, P);
        const r = await createReferral(deps.store, referrer, {
          referrerAmountUSDCents: terms.referrerAmountUSDCents ?? 0,
          refereeAmountUSDCents: terms.refereeAmountUSDCents ?? 0,
          maxReferrals: terms.maxReferrals ?? 0n,
          requiresIdVerification: terms.requiresIdVerification ?? false,
        });
        return json({ ReferralInfoResponse: await referralInfoResponse(state, r) });
      },
    }),
    adminRoute(deps, {
      path: '/admin/update-referral-hash',
      summary: 'Changes the terms or IsActive of a referral code (omitted fields keep their value)',
      level: 'superAdmin',
      body: adminUpdateReferralHashBody,
      response: oneReferralInfoResponse,
      errors: { 404: 'No referral code with that hash' },
      async handle({ body }) {
        const P = 'AdminUpdateReferralHash: ';
        const terms = termsOf(body, P);
        const r = await updateReferralTerms(deps.store, body.ReferralHashBase58, { ...terms, isActive: body.IsActive });
        if (r === undefined) throw notFound(`${P}no referral hash ${JSON.stringify(body.ReferralHashBase58)}`);
        return json({ ReferralInfoResponse: await referralInfoResponse(await deps.chain.pendingView(), r) });
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-all-referral-info-for-user',
      summary: 'Every referral code of a user, with referred users',
      level: 'superAdmin',
      body: adminGetAllReferralInfoForUserBody,
      response: referralInfoListResponse,
      async handle({ body }) {
        const state = await deps.chain.pendingView();
        const pk = await userByKeyOrName(state, body, 'AdminGetAllReferralInfoForUser: ');
        const records = await referralsOf(deps.store, pk);
        return json({ ReferralInfoResponses: await Promise.all(records.map((r) => referralInfoResponse(state, r))) });
      },
    }),
  ];
}
