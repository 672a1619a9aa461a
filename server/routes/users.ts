/**
 * Users and profiles, spec §4.4 (reference node-api.md §2.3, backend routes/user.go): thin
 * handlers over server/social/. Messages keep the reference's prefixes; inputs that fail to
 * decode as public keys are never echoed (they could be pasted private keys).
 *
 * JWT-protected routes verify through `deps.jwt` and keep its status: 401 when the token does
 * not prove the key (including a token another owner key signed), 403 when it is authentic but
 * signed by a derived key the owner has not authorized (e.g. another owner's derived key).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { ApiError, badRequest, notFound } from '../http/errors.js';
import { empty, json, raw, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { balanceEntrySchema, profileEntrySchema, userDerivedKeySchema } from './responses.js';
import { decodePublicKey, encodePublicKey, isKeyError, type Network } from '../keys/index.js';
import { getProfile, getProfileByUsername } from '../chain/state/profiles.js';
import { profileRecordResponse } from '../social/profileEntry.js';
import {
  blockedKeysHex,
  confirmEmailVerification,
  moderationFlags,
  getMessageReadState,
  getUserMetadata,
  mailerFor,
  MAX_READ_STATE_CONTACTS,
  mergeReadState,
  newEmailVerification,
  renewEmailVerification,
  setBlocked,
  updateMessageReadState,
  updateUserMetadata,
} from '../social/userMetadata.js';
import {
  decodeProfilePicture,
  DEFAULT_PROFILES_TO_FETCH,
  getProfiles,
  keySetJson,
  MAX_PROFILES_TO_FETCH,
  MODERATION_TYPES,
  PROFILE_ORDERS,
  userDerivedKeys,
  userMetadataResponse,
  usersStateless,
  type ProfileOrder,
} from '../social/users.js';
import { decodeKeyOr400 } from './requestKeys.js';
import { requireUserJwt } from './adminAuth.js';
import { recordReferralSignup, type ReferralSignupRefusal } from '../social/referrals.js';
import { cachedRoute } from '../http/readCache.js';
import type { CallerProof } from '../http/authenticatedCaller.js';

const key = (maxLength = 200): ReturnType<typeof v.string> => v.string({ maxLength });

export const getUsersStatelessBody = v.object({
  PublicKeysBase58Check: v.array(key(), 1000),
  /** Spec spelling `SkipForLeaderBoard`; field names match case-insensitively. */
  SkipForLeaderboard: v.optional(v.boolean(), false),
  IncludeBalance: v.optional(v.boolean(), false),
  /** Accepted; on this balance-model chain the balance is the same either way. */
  GetUnminedBalance: v.optional(v.boolean(), false),
  /** Extension (not in the reference): leave out what this reader blocked. */
  ReaderPublicKeyBase58Check: v.optional(key(), ''),
});

export const getProfilesBody = v.object({
  PublicKeyBase58Check: v.optional(key(), ''),
  Username: v.optional(v.string({ maxLength: 100 }), ''),
  UsernamePrefix: v.optional(v.string({ maxLength: 100 }), ''),
  /** Deprecated and ignored (the spec spells it `Descripton`; both are accepted). */
  Description: v.optional(v.string({ maxLength: 20_000 }), ''),
  Descripton: v.optional(v.string({ maxLength: 20_000 }), ''),
  OrderBy: v.optional(v.string({ maxLength: 100 }), ''),
  NumToFetch: v.optional(v.int(0, 2 ** 32 - 1), 0),
  ReaderPublicKeyBase58Check: v.optional(key(), ''),
  ModerationType: v.optional(v.string({ maxLength: 100 }), ''),
  FetchUsersThatHODL: v.optional(v.boolean(), false),
  AddGlobalFeedBool: v.optional(v.boolean(), false),
});

export const getSingleProfileBody = v.object({
  PublicKeyBase58Check: v.optional(key(), ''),
  Username: v.optional(v.string({ maxLength: 100 }), ''),
  NoErrorOnMissing: v.optional(v.boolean(), false),
});

export const userGlobalMetadataBody = v.object({
  UserPublicKeyBase58Check: v.optional(key(), ''),
  JWT: v.optional(v.string({ maxLength: 4096 }), ''),
});

export const updateUserGlobalMetadataBody = v.object({
  UserPublicKeyBase58Check: v.optional(key(), ''),
  JWT: v.optional(v.string({ maxLength: 4096 }), ''),
  Email: v.optional(v.string({ maxLength: 254 }), ''),
  MessageReadStateUpdatesByContact: v.optional(v.record(v.int(-(2 ** 53 - 1), 2 ** 53 - 1), 1000)),
  /** The referral code the user signed up with (spec §4.6): counted once per user. */
  ReferralHashBase58: v.optional(v.string({ maxLength: 64 }), ''),
});

/** Go's set of keys, `{"<Base58Check key>": {}}`. */
const keySet = (description: string) => out.record(out.object({}), description);
const blockedKeys = keySet('The keys this user blocked on this node');

/** One user of get-users-stateless (social/users.ts emptyUser and fillUser). */
export const userResponse = out.named(
  'User',
  out.object({
    PublicKeyBase58Check: out.string('As sent ("" when the sent text was not a public key of this network)'),
    ProfileEntryResponse: out.nullable(profileEntrySchema),
    Utxos: out.null('Always null: this chain keeps balances'),
    BalanceNanos: out.uint64(),
    UnminedBalanceNanos: out.uint64('Always 0: BalanceNanos includes the mempool'),
    PublicKeysBase58CheckFollowedByUser: out.nullable(out.array(out.publicKey(), 'Every key the user follows, sorted; null with SkipForLeaderboard')),
    UsersYouHODL: out.nullable(out.array(balanceEntrySchema)),
    UsersWhoHODLYouCount: out.int(),
    HasPhoneNumber: out.boolean(),
    CanCreateProfile: out.boolean(),
    BlockedPubKeys: out.nullable(blockedKeys),
    HasEmail: out.boolean(),
    EmailVerified: out.boolean(),
    JumioStartTime: out.int(),
    JumioFinishedTime: out.int(),
    JumioVerified: out.boolean(),
    JumioReturned: out.boolean(),
    IsAdmin: out.boolean(),
    IsSuperAdmin: out.boolean(),
    IsBlacklisted: out.boolean(),
    IsGraylisted: out.boolean(),
    TutorialStatus: out.string(),
    CreatorPurchasedInTutorialUsername: out.optional(out.string('Present while the tutorial is open and its creator-coin purchase was recorded')),
    CreatorCoinsPurchasedInTutorial: out.uint64(),
    MustCompleteTutorial: out.boolean(),
  }),
);

export const getUsersStatelessResponse = out.named(
  'GetUsersStatelessResponse',
  out.object({
    UserList: out.array(userResponse),
    DefaultFeeRateNanosPerKB: out.uint64(),
    ParamUpdaters: out.record(out.boolean(), 'The param updaters of this chain, by Base58Check key'),
  }),
);

export const getProfilesResponse = out.named(
  'GetProfilesResponse',
  out.object({
    ProfilesFound: out.array(profileEntrySchema),
    NextPublicKey: out.nullable(out.publicKey('Send as PublicKeyBase58Check for the next page; null on the last page')),
  }),
);

export const getSingleProfileResponse = out.named(
  'GetSingleProfileResponse',
  out.object({ Profile: out.nullable(out.describe(profileEntrySchema, 'null only with NoErrorOnMissing')), IsBlacklisted: out.boolean(), IsGraylisted: out.boolean() }),
);

export const getUserMetadataResponse = out.named(
  'GetUserMetadataResponse',
  out.object({
    HasPhoneNumber: out.boolean(),
    CanCreateProfile: out.boolean(),
    BlockedPubKeys: blockedKeys,
    HasEmail: out.boolean(),
    EmailVerified: out.boolean(),
    JumioFinishedTime: out.int(),
    JumioVerified: out.boolean(),
    JumioReturned: out.boolean(),
  }),
);

export const getUserDerivedKeysResponse = out.object({ DerivedKeys: out.record(userDerivedKeySchema, 'By derived public key') });
export const getUserGlobalMetadataResponse = out.object({ Email: out.string(), PhoneNumber: out.string() });
export const blockPublicKeyResponse = out.object({ BlockedPublicKeys: blockedKeys });

/** Why a sign-up with a referral code was refused (social/referrals.ts recordReferralSignup). */
const REFERRAL_REFUSALS: Readonly<Record<ReferralSignupRefusal, (hash: string) => string>> = {
  UNKNOWN_REFERRAL_HASH: (h) => `referral code ${h} does not exist`,
  REFERRAL_INACTIVE: (h) => `referral code ${h} is not active`,
  MAX_REFERRALS_REACHED: (h) => `referral code ${h} has reached its MaxReferrals`,
  ALREADY_REFERRED: () => 'this user already signed up with a referral code',
  SELF_REFERRAL: () => 'a user cannot sign up with their own referral code',
};

export const deletePiiBody = v.object({
  PublicKeyBase58Check: v.optional(key(), ''),
  JWT: v.optional(v.string({ maxLength: 4096 }), ''),
});

export const resendVerifyEmailBody = v.object({
  PublicKey: v.optional(key(), ''),
  JWT: v.optional(v.string({ maxLength: 4096 }), ''),
});

export const verifyEmailBody = v.object({
  PublicKey: v.optional(key(), ''),
  /** The code of the verification mail (the reference's name: its link carries a hash). */
  EmailHash: v.optional(v.string({ maxLength: 200 }), ''),
});

export const blockPublicKeyBody = v.object({
  PublicKeyBase58Check: v.optional(key(), ''),
  BlockPublicKeyBase58Check: v.optional(key(), ''),
  Unblock: v.optional(v.boolean(), false),
  JWT: v.optional(v.string({ maxLength: 4096 }), ''),
});

export const getUserDerivedKeysBody = v.object({
  PublicKeyBase58Check: key(),
});

/** A basic address shape: the mailer should not be pointed at arbitrary strings. */
const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/**
 * Verifies `jwt` for `pkBase58` as every JWT-protected route does (http/adminAuth.ts
 * requireUserJwt: 401 for a token that proves nothing, 403 for one valid for another key), with
 * `prefix` on the message; a malformed key is a 400 with the same prefix, decided first.
 */
async function verifyJwt(deps: AppDeps, caller: CallerProof, pkBase58: string, jwt: string, field: string, prefix: string): Promise<void> {
  decodePublicKey(pkBase58, deps.config.network, field, prefix);
  await requireUserJwt(deps, caller, pkBase58, jwt, prefix, field);
}

/**
 * The read-state updates keyed by canonical Base58Check: contact keys are public keys, so a key
 * is at most ~55 characters and the per-user cap bounds the record. A key that is not one is a
 * 400 that does not echo it (it could be a pasted private key).
 */
function readStateUpdates(updates: Record<string, number>, network: Network, prefix: string): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const [k, n] of Object.entries(updates)) out[encodePublicKey(decodeKeyOr400(k, network, 'MessageReadStateUpdatesByContact key', prefix), network)] = n;
  return out;
}

/** Control characters, whitespace (Unicode too) and backslashes: browsers drop or rewrite them in URLs. */
const UNSAFE_IN_URL = /[\u0000-\u0020\u007f-\u00a0\\\s]/u;

/**
 * A redirect target for `?fallback=`: an absolute http(s) URL or a path on this host. The
 * reference redirects to anything; this node keeps those two forms only. A path must stay a
 * path in every reading: `/\evil`, `/<tab>/evil` and their percent-encoded forms become
 * `//evil` (another host) in browsers or proxies, so the checks run on the text decoded until
 * it no longer changes, and refuse any backslash, control character or whitespace.
 */
function fallbackLocation(s: string): string | null {
  if (s.length > 2048 || UNSAFE_IN_URL.test(s) || !/^[\x21-\x7e]+$/.test(s)) return null;
  if (s.startsWith('/')) {
    let decoded = s;
    for (let i = 0; i < 4; i++) {
      let next: string;
      try {
        next = decodeURIComponent(decoded);
      } catch {
        return null; // a malformed escape: no reading is certain
      }
      if (UNSAFE_IN_URL.test(next) || next.startsWith('//')) return null;
      if (next === decoded) return s;
      decoded = next;
    }
    return null; // still changing after four decodings: encoded on purpose
  }
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * Sent with every answer of the picture route: the stored picture is user data, so the
 * browser must take the declared raster type as is and may run nothing from it.
 */
const PICTURE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
};

export function userRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const tryDecode = (s: string): Uint8Array | null => {
    try {
      return decodePublicKey(s, network, 'PublicKeysBase58Check');
    } catch (e) {
      if (isKeyError(e)) return null;
      throw e;
    }
  };

  return [
    route({
      method: 'POST',
      path: '/get-users-stateless',
      summary: 'Users with profile, balance, holdings and node-local metadata (reference UserList)',
      body: getUsersStatelessBody,
      response: getUsersStatelessResponse,
      async handle({ body }) {
        const reader = body.ReaderPublicKeyBase58Check === '' ? null : decodeKeyOr400(body.ReaderPublicKeyBase58Check, network, 'ReaderPublicKeyBase58Check', 'GetUsersStateless: Problem decoding reader public key');
        // A key that does not decode stays in the list (reference), but is not echoed back.
        const keys = body.PublicKeysBase58Check.map((k) => (k === '' || tryDecode(k) !== null ? k : ''));
        const state = await deps.chain.pendingView();
        return json(await usersStateless(deps, state, { publicKeys: keys, skipForLeaderboard: body.SkipForLeaderboard, includeBalance: body.IncludeBalance, reader }, tryDecode));
      },
    }),
    route({
      method: 'POST',
      path: '/get-profiles',
      summary: 'Profiles by coin value (or username prefix), paged by public key or username',
      body: getProfilesBody,
      response: getProfilesResponse,
      async handle({ body }) {
        const numToFetch = body.NumToFetch === 0 ? DEFAULT_PROFILES_TO_FETCH : body.NumToFetch;
        if (numToFetch >= MAX_PROFILES_TO_FETCH) throw badRequest('GetProfiles: Max value for NumToFetch exceeded');
        if (!(PROFILE_ORDERS as readonly string[]).includes(body.OrderBy)) throw badRequest(`GetProfiles: OrderBy must be one of newest_last_post, newest_last_comment, influencer_coin_price or empty`);
        if (!(MODERATION_TYPES as readonly string[]).includes(body.ModerationType)) throw badRequest('GetProfiles: ModerationType must be empty, unrestricted or leaderboard');
        const reader = body.ReaderPublicKeyBase58Check === '' ? null : decodeKeyOr400(body.ReaderPublicKeyBase58Check, network, 'ReaderPublicKeyBase58Check', 'GetProfiles: Problem decoding user public key');
        // Listings walk the store's indexes: mined state (see server/social/users.ts).
        const state = deps.store;
        let start: Uint8Array | null = null;
        if (body.UsernamePrefix === '') {
          if (body.PublicKeyBase58Check !== '') start = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'GetProfiles: Problem decoding user public key');
          else if (body.Username !== '') {
            const p = await getProfileByUsername(state, body.Username);
            if (p === undefined) throw badRequest(`GetProfiles: Problem getting profile for username: <nil> : ${body.Username}`);
            start = p.publicKey;
          }
        }
        return json(
          await getProfiles(deps, state, {
            start,
            usernamePrefix: body.UsernamePrefix,
            orderBy: body.OrderBy as ProfileOrder,
            numToFetch,
            reader,
            fetchUsersThatHodl: body.FetchUsersThatHODL,
            addGlobalFeedBool: body.AddGlobalFeedBool,
          }),
        );
      },
    }),
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-single-profile',
      summary: 'One profile by public key or username (404 unless NoErrorOnMissing)',
      body: getSingleProfileBody,
      response: getSingleProfileResponse,
      errors: { 404: 'No profile has that key or username (unless NoErrorOnMissing)' },
      async handle({ body }, chainState) {
        if (body.PublicKeyBase58Check === '' && body.Username === '') throw badRequest('GetSingleProfile: PublicKeyBase58Check or Username is required');
        const state = await chainState.pending();
        const profile =
          body.PublicKeyBase58Check !== ''
            ? await getProfile(state, decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'GetSingleProfile: Problem decoding user public key'))
            : await getProfileByUsername(state, body.Username);
        if (profile === undefined) {
          if (body.NoErrorOnMissing) return json({ Profile: null, IsBlacklisted: false, IsGraylisted: false });
          throw notFound(`GetSingleProfile: could not find profile for username or public key: ${body.Username}, ${body.PublicKeyBase58Check}`);
        }
        const [entry, flags] = await Promise.all([profileRecordResponse(deps, state, profile), moderationFlags(deps.store, profile.publicKey)]);
        return json({ Profile: entry, IsBlacklisted: flags.isBlacklisted, IsGraylisted: flags.isGraylisted });
      },
    }),
    route({
      method: 'GET',
      path: '/get-single-profile-picture/:PublicKeyBase58Check',
      summary: 'The profile picture as an image (302 to ?fallback= when there is none)',
      responses: {
        200: { description: 'The picture as stored (png, jpeg, webp or gif)', contentType: 'image/*', schema: { type: 'string', contentMediaType: 'image/*' } },
        302: {
          description: 'No picture, and the request gave ?fallback=: a redirect there',
          contentType: '',
          headers: { Location: { description: 'The fallback URL (an absolute http(s) URL or a path on this host)', required: true } },
        },
        404: { description: 'No profile or no picture, and no ?fallback=', schema: { $ref: '#/components/schemas/Error' } },
      },
      async handle({ params, query }) {
        const pk = decodeKeyOr400(params['PublicKeyBase58Check'] ?? '', network, 'PublicKeyBase58Check', 'GetSingleProfilePicture: Problem decoding user public key');
        const fallback = query.get('fallback') ?? '';
        const location = fallback === '' ? null : fallbackLocation(fallback);
        if (fallback !== '' && location === null) throw badRequest('GetSingleProfilePicture: fallback must be an http(s) URL or a path on this host');
        const profile = await getProfile(await deps.chain.pendingView(), pk);
        const pic = profile === undefined ? { problem: '_getProfilePictureForPublicKey: Profile not found' } : decodeProfilePicture(profile.profilePic);
        if ('problem' in pic) {
          if (location !== null) return raw('', 'text/plain; charset=utf-8', 302, { ...PICTURE_HEADERS, Location: location });
          throw new ApiError(404, `GetSingleProfilePicture: Profile Picture not found: ${pic.problem}`, PICTURE_HEADERS);
        }
        return raw(pic.bytes, pic.contentType, 200, PICTURE_HEADERS);
      },
    }),
    route({
      method: 'GET',
      path: '/get-user-metadata/:PublicKeyBase58Check',
      summary: 'Node-local flags of a user: phone/email present and verified, blocked keys, can create a profile',
      response: getUserMetadataResponse,
      async handle({ params }) {
        const pk = decodeKeyOr400(params['PublicKeyBase58Check'] ?? '', network, 'PublicKeyBase58Check', 'GetUserMetadata: error decoding public key');
        return json(await userMetadataResponse(deps, await deps.chain.pendingView(), pk));
      },
    }),
    route({
      method: 'POST',
      path: '/get-user-derived-keys',
      summary: "The owner's derived keys with expiration, validity, spending limit and memo",
      body: getUserDerivedKeysBody,
      response: getUserDerivedKeysResponse,
      async handle({ body }) {
        const owner = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'GetUserDerivedKeys: Problem decoding user public key');
        const [state, tip] = await Promise.all([deps.chain.pendingView(), deps.chain.tip()]);
        return json(await userDerivedKeys(deps, state, owner, tip.height));
      },
    }),
    route({
      method: 'POST',
      path: '/get-user-global-metadata',
      auth: 'user-jwt',
      summary: "The user's email and phone number (JWT of that user)",
      body: userGlobalMetadataBody,
      response: getUserGlobalMetadataResponse,
      async handle({ body, caller }) {
        if (body.UserPublicKeyBase58Check === '') throw badRequest('GetUserGlobalMetadataRequest: Must provide a valid public key.');
        // The reference reports this route's token failures under the update route's prefix.
        await verifyJwt(deps, caller, body.UserPublicKeyBase58Check, body.JWT, 'UserPublicKeyBase58Check', 'UpdateUserGlobalMetadataRequest: Invalid token: ');
        const pk = decodePublicKey(body.UserPublicKeyBase58Check, network, 'UserPublicKeyBase58Check');
        const meta = await getUserMetadata(deps.store, pk);
        return json({ Email: meta.email, PhoneNumber: meta.phoneNumber });
      },
    }),
    route({
      method: 'POST',
      path: '/update-user-global-metadata',
      auth: 'user-jwt',
      summary: 'Set the email (sends a verification mail), message read state and the referral code signed up with (JWT of that user)',
      body: updateUserGlobalMetadataBody,
      response: out.object({}),
      async handle({ body, caller }) {
        const P = 'UpdateUserGlobalMetadataRequest';
        if (body.UserPublicKeyBase58Check === '') throw badRequest(`${P}: Must provide a valid public key.`);
        const readState = body.MessageReadStateUpdatesByContact;
        if (body.Email === '' && readState === undefined && body.ReferralHashBase58 === '') throw badRequest(`${P}: Must provide something to update.`);
        await verifyJwt(deps, caller, body.UserPublicKeyBase58Check, body.JWT, 'UserPublicKeyBase58Check', `${P}: Invalid token: `);
        const pk = decodePublicKey(body.UserPublicKeyBase58Check, network, 'UserPublicKeyBase58Check');
        if (body.Email !== '' && !EMAIL.test(body.Email)) throw badRequest(`${P}: Email is not a valid email address`);
        const contacts = readState === undefined ? undefined : readStateUpdates(readState, network, P);
        // Checked before the referral is recorded, so a refused update leaves everything undone.
        const tooManyContacts = `${P}: MessageReadStateUpdatesByContact: a user's read state holds at most ${MAX_READ_STATE_CONTACTS} contacts`;
        if (contacts !== undefined && mergeReadState(await getMessageReadState(deps.store, pk), contacts) === null) throw badRequest(tooManyContacts);
        if (body.ReferralHashBase58 !== '') {
          // First, so a refused code leaves the rest of the request undone.
          const signup = await recordReferralSignup(deps.store, body.ReferralHashBase58, pk);
          if (!signup.ok) throw badRequest(`${P}: ${REFERRAL_REFUSALS[signup.reason](body.ReferralHashBase58)}`);
        }
        if (contacts !== undefined && !(await updateMessageReadState(deps.store, pk, contacts))) throw badRequest(tooManyContacts);

        const verification = body.Email === '' ? null : newEmailVerification(body.Email, Date.now());
        let emailChanged = false;
        if (verification !== null) {
          await updateUserMetadata(deps.store, pk, (m) => {
            emailChanged = m.email !== body.Email;
            return emailChanged ? { ...m, email: body.Email, emailVerified: false, emailVerification: verification.entry } : m;
          });
        }
        if (emailChanged) {
          try {
            await mailerFor(deps, deps.log).sendVerificationEmail({ to: body.Email, publicKeyBase58Check: encodePublicKey(pk, network), code: verification!.code });
          } catch (e) {
            // As the reference: a mail that cannot be sent is logged, the update stands.
            deps.log.error({ err: e }, 'update-user-global-metadata: sending the verification mail failed');
          }
        }
        return json({});
      },
    }),
    route({
      method: 'POST',
      path: '/delete-pii',
      auth: 'user-jwt',
      summary: "Remove the user's email and phone number from this node (JWT of that user)",
      body: deletePiiBody,
      response: out.empty(),
      async handle({ body, caller }) {
        if (body.PublicKeyBase58Check === '') throw badRequest('DeletePII: PublicKeyBase58Check required');
        await verifyJwt(deps, caller, body.PublicKeyBase58Check, body.JWT, 'PublicKeyBase58Check', 'DeletePII: error validating JWT: ');
        const pk = decodePublicKey(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check');
        await updateUserMetadata(deps.store, pk, (m) => ({ ...m, email: '', emailVerified: false, emailVerification: null, phoneNumber: '', phoneNumberCountryCode: '' }));
        return empty();
      },
    }),
    route({
      method: 'POST',
      path: '/resend-verify-email',
      auth: 'user-jwt',
      summary: "Mail a new verification code for the user's unverified email address (JWT of that user); the previous code stops working",
      body: resendVerifyEmailBody,
      response: out.empty(),
      async handle({ body, caller }) {
        const P = 'ResendVerifyEmail';
        const pk = decodeKeyOr400(body.PublicKey, network, 'PublicKey', `${P}: Invalid public key`);
        await verifyJwt(deps, caller, body.PublicKey, body.JWT, 'PublicKey', `${P}: Invalid token: `);
        const renewed = await renewEmailVerification(deps.store, pk);
        if (!renewed.ok) throw badRequest(renewed.reason === 'noEmail' ? `${P}: Email missing` : `${P}: Email is already verified`);
        // Unlike update-user-global-metadata, sending is the whole request: a failure is its answer.
        await mailerFor(deps, deps.log).sendVerificationEmail({ to: renewed.email, publicKeyBase58Check: encodePublicKey(pk, network), code: renewed.code });
        return empty();
      },
    }),
    route({
      method: 'POST',
      path: '/verify-email',
      summary: "Marks the user's email verified with the code of the verification mail (EmailHash); a code works once, for the current address, within 24 hours",
      body: verifyEmailBody,
      response: out.empty(),
      async handle({ body }) {
        const P = 'VerifyEmail';
        const pk = decodeKeyOr400(body.PublicKey, network, 'PublicKey', `${P}: Invalid public key`);
        // The code is never echoed (the reference echoes its hash).
        if (body.EmailHash === '' || !(await confirmEmailVerification(deps.store, pk, body.EmailHash))) throw badRequest(`${P}: Invalid hash`);
        return empty();
      },
    }),
    route({
      method: 'POST',
      path: '/block-public-key',
      auth: 'user-jwt',
      summary: 'Block or unblock a user on this node (JWT of the blocker); answers the full blocked set',
      body: blockPublicKeyBody,
      response: blockPublicKeyResponse,
      async handle({ body, caller }) {
        const P = 'BlockPublicKey';
        const blocker = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', `${P}: Problem decoding user public key`);
        await verifyJwt(deps, caller, body.PublicKeyBase58Check, body.JWT, 'PublicKeyBase58Check', `${P}: Invalid token: `);
        const blocked = decodeKeyOr400(body.BlockPublicKeyBase58Check, network, 'BlockPublicKeyBase58Check', `${P}: Problem decoding public key to block`);
        await setBlocked(deps.store, blocker, blocked, body.Unblock);
        return json({ BlockedPublicKeys: keySetJson(await blockedKeysHex(deps.store, blocker), network) });
      },
    }),
    route({
      method: 'POST',
      path: '/delete-identities',
      summary: 'Temporary reference route that expires legacy seed-info cookies; this node never sets them',
      response: out.object({}),
      handle: () => json({}),
    }),
  ];
}
