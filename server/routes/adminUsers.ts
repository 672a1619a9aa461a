/**
 * Admin routes over users (spec §4.10; reference node-api.md §3, backend routes/admin_user.go):
 * moderation flags and user global metadata (server/social/userMetadata.ts), and verification
 * badges (server/social/verification.ts).
 *
 * Messages keep the reference's prefixes. Unlike the reference: a request that changes
 * nothing, removing a badge that was never granted, and a malformed username on the audit-log
 * route are 400s; inputs that fail to decode as public keys are never echoed; a user without a
 * profile can be black/gray/whitelisted (the reference needs a profile for its audit log).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getProfile, getProfileByUsername } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { isValidUsername, PROFILE_LIMITS } from '../chain/rules/profiles.js';
import { adminRoute } from './adminAuth.js';
import { badRequest } from '../http/errors.js';
import { empty, json, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { profileEntrySchema } from './responses.js';
import { decodePublicKey, encodePublicKey, isKeyError, type Network } from '../keys/index.js';
import type { Store } from '../store/types.js';
import { profileEntryResponse, tutorialFlags } from '../social/profileEntry.js';
import { referredBy } from '../social/referrals.js';
import { getTutorialState } from '../social/tutorial.js';
import {
  appendFilterAuditLog,
  blockedKeysHex,
  getMessageReadState,
  getUserMetadata,
  updateUserMetadata,
  usersWithMetadata,
  type FilterList,
} from '../social/userMetadata.js';
import { userAdminData } from '../social/userAdminData.js';
import { keySetJson } from '../social/users.js';
import { grantVerification, removeVerification, verificationAuditLogs, verifiedUsernames } from '../social/verification.js';
import { decodeKeyOr400 } from './requestKeys.js';

export const adminUpdateUserGlobalMetadataBody = v.object({
  /** Wins over Username when both are given. */
  UserPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  Username: v.optional(v.string({ maxLength: 100 }), ''),
  IsBlacklistUpdate: v.optional(v.boolean(), false),
  /** Blacklist: the user's content is shown nowhere (only with IsBlacklistUpdate). */
  RemoveEverywhere: v.optional(v.boolean(), false),
  /** Graylist: left off leaderboards (only with IsBlacklistUpdate). */
  RemoveFromLeaderboard: v.optional(v.boolean(), false),
  IsWhitelistUpdate: v.optional(v.boolean(), false),
  WhitelistPosts: v.optional(v.boolean(), false),
  /** Clears the user's phone number (so it can be registered again); nothing else changes. */
  RemovePhoneNumberMetadata: v.optional(v.boolean(), false),
});

/** The most records one listing answers; 0 (or absent) asks for that many. */
export const MAX_USER_METADATA_TO_FETCH = 1000;

export const adminGetAllUserGlobalMetadataBody = v.object({
  NumToFetch: v.optional(v.int(0, MAX_USER_METADATA_TO_FETCH), 0),
});

export const adminGetUserGlobalMetadataBody = v.object({
  UserPublicKeyBase58Check: v.string({ maxLength: 200 }),
});

export const adminGetUserAdminDataBody = v.object({
  UserPublicKeyBase58Check: v.string({ maxLength: 200 }),
});

export const adminGrantVerificationBadgeBody = v.object({
  UsernameToVerify: v.optional(v.string({ maxLength: 100 }), ''),
});

export const adminRemoveVerificationBadgeBody = v.object({
  UsernameForWhomToRemoveVerification: v.optional(v.string({ maxLength: 100 }), ''),
});

export const adminGetVerifiedUsersBody = v.object({});

export const adminGetUsernameVerificationAuditLogsBody = v.object({
  Username: v.string({ maxLength: 100 }),
});

/** The reference's UserMetadata record (userMetadataJson below). */
export const userGlobalMetadataSchema = out.named(
  'UserGlobalMetadata',
  out.object({
    PublicKey: out.base64('The 33-byte public key'),
    RemoveEverywhere: out.boolean('Blacklisted'),
    RemoveFromLeaderboard: out.boolean('Graylisted'),
    Email: out.string(),
    EmailVerified: out.boolean(),
    PhoneNumber: out.string(),
    PhoneNumberCountryCode: out.string(),
    MessageReadStateByContact: out.nullable(out.record(out.int(), 'Read state by contact public key')),
    NotificationLastSeenIndex: out.int(),
    SatoshisBurnedSoFar: out.int(),
    HasBurnedEnoughSatoshisToCreateProfile: out.boolean(),
    BlockedPublicKeys: out.nullable(out.record(out.object({}), 'Blocked keys, {"<key>": {}}')),
    WhitelistPosts: out.boolean(),
    JumioInternalReference: out.string(),
    JumioFinishedTime: out.int(),
    JumioVerified: out.boolean(),
    JumioReturned: out.boolean(),
    JumioTransactionID: out.string(),
    JumioDocumentKey: out.null(),
    RedoJumio: out.boolean(),
    JumioStarterDeSoTxnHashHex: out.string(),
    JumioShouldCompProfileCreation: out.boolean(),
    MustCompleteTutorial: out.boolean(),
    IsFeaturedTutorialWellKnownCreator: out.boolean(),
    IsFeaturedTutorialUpAndComingCreator: out.boolean(),
    TutorialStatus: out.string(),
    CreatorPurchasedInTutorialPKID: out.nullable(out.array(out.int(), '33 bytes as numbers')),
    CreatorCoinsPurchasedInTutorial: out.uint64(),
    ReferralHashBase58Check: out.string(),
    ReferrerDeSoTxnHash: out.string(),
    UnreadNotifications: out.int(),
    LatestUnreadNotificationIndex: out.int(),
  }),
);

export const allUserGlobalMetadataResponse = out.object({
  PubKeyToUserGlobalMetadata: out.record(userGlobalMetadataSchema, 'By Base58Check public key'),
  PubKeyToUsername: out.record(out.string(), 'Usernames of those with a profile'),
});
export const adminUserGlobalMetadataResponse = out.object({ UserMetadata: userGlobalMetadataSchema, UserProfileEntryResponse: out.nullable(profileEntrySchema) });
const messageResponse = out.object({ Message: out.string() });
const lastActor = (what: string) => out.string(`The admin who last ${what} ("" if none; the --dev-open-admin marker for an open node)`);
/** social/userAdminData.ts userAdminData (the reference's AdminGetUserAdminDataResponse). */
export const userAdminDataResponse = out.named(
  'UserAdminData',
  out.object({
    Username: out.string('"" without a profile'),
    IsVerified: out.boolean(),
    LastVerifierPublicKey: lastActor('granted the badge'),
    LastVerifyRemoverPublicKey: lastActor('removed the badge'),
    IsWhitelisted: out.boolean(),
    LastWhitelisterPublicKey: lastActor('whitelisted the user'),
    LastWhitelistRemoverPublicKey: lastActor('removed the whitelisting'),
    IsGraylisted: out.boolean(),
    LastGraylisterPublicKey: lastActor('graylisted the user'),
    LastGraylistRemoverPublicKey: lastActor('removed the graylisting'),
    IsBlacklisted: out.boolean(),
    LastBlacklisterPublicKey: lastActor('blacklisted the user'),
    LastBlacklistRemoverPublicKey: lastActor('removed the blacklisting'),
    PhoneNumber: out.string(),
    Email: out.string(),
    ReferralHashBase58Check: out.string(),
    JumioStarterDeSoTxnHashBase58Check: out.literal(''),
    ReferrerDeSoTxnHashBase58Check: out.literal(''),
  }),
);
export const verifiedUsersResponse = out.object({ VerifiedUsers: out.array(out.string(), 'Lower-cased usernames, removed ones included') });
export const verificationAuditLogsResponse = out.object({
  VerificationAuditLogs: out.array(
    out.object({
      TimestampNanos: out.uint64(),
      VerifierUsername: out.string(),
      VerifierPublicKeyBase58Check: out.string('The admin (or the --dev-open-admin marker)'),
      VerifiedUsername: out.string(),
      VerifiedPublicKeyBase58Check: out.publicKey(),
      IsRemoval: out.boolean(),
    }),
  ),
});

/** Core's username rule: ^[a-zA-Z0-9_]+$, 1 to 25 bytes. */
function isUsername(s: string): boolean {
  const bytes = new TextEncoder().encode(s);
  return bytes.length <= PROFILE_LIMITS.maxUsernameBytes && isValidUsername(bytes);
}

const nowNanos = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

/** The admin's username (the audit value may be the dev-open-admin marker, which has none). */
async function usernameOf(state: StateIndexReader, admin: string, network: Network): Promise<string> {
  let pk: Uint8Array;
  try {
    pk = decodePublicKey(admin, network, 'AdminPublicKey');
  } catch (e) {
    if (isKeyError(e)) return '';
    throw e;
  }
  return (await getProfile(state, pk))?.username ?? '';
}

/**
 * The reference's UserMetadata struct as its JSON (node-api.md §9 field list): `PublicKey`
 * base64, nil maps null, the creator bought in the tutorial as a byte array. Fields for
 * services this node does not run (Jumio, bitcoin burns, notifications) hold their zero
 * values, which is what they are here.
 */
export async function userMetadataJson(store: Store, pk33: Uint8Array, network: Network): Promise<Record<string, unknown>> {
  const [m, readStateMap, blocked, tutorial, featured, referral] = await Promise.all([
    getUserMetadata(store, pk33),
    getMessageReadState(store, pk33),
    blockedKeysHex(store, pk33),
    getTutorialState(store, pk33),
    tutorialFlags(store, pk33),
    referredBy(store, pk33),
  ]);
  const readState = Object.keys(readStateMap).length === 0 ? null : readStateMap;
  return {
    PublicKey: Buffer.from(pk33).toString('base64'),
    RemoveEverywhere: m.removeEverywhere,
    RemoveFromLeaderboard: m.removeFromLeaderboard,
    Email: m.email,
    EmailVerified: m.emailVerified,
    PhoneNumber: m.phoneNumber,
    PhoneNumberCountryCode: m.phoneNumberCountryCode,
    MessageReadStateByContact: readState,
    NotificationLastSeenIndex: 0,
    SatoshisBurnedSoFar: 0,
    HasBurnedEnoughSatoshisToCreateProfile: false,
    BlockedPublicKeys: blocked.size === 0 ? null : keySetJson(blocked, network),
    WhitelistPosts: m.whitelistPosts,
    JumioInternalReference: '',
    JumioFinishedTime: 0,
    JumioVerified: false,
    JumioReturned: false,
    JumioTransactionID: '',
    JumioDocumentKey: null,
    RedoJumio: false,
    JumioStarterDeSoTxnHashHex: '',
    JumioShouldCompProfileCreation: false,
    MustCompleteTutorial: tutorial.mustCompleteTutorial,
    IsFeaturedTutorialWellKnownCreator: featured.wellKnown,
    IsFeaturedTutorialUpAndComingCreator: featured.upAndComing,
    TutorialStatus: tutorial.status,
    CreatorPurchasedInTutorialPKID: tutorial.creatorPurchasedInTutorial === null ? null : [...tutorial.creatorPurchasedInTutorial],
    CreatorCoinsPurchasedInTutorial: tutorial.creatorCoinsPurchasedInTutorial,
    ReferralHashBase58Check: referral?.hash ?? '',
    ReferrerDeSoTxnHash: '',
    UnreadNotifications: 0,
    LatestUnreadNotificationIndex: 0,
  };
}

export function adminUserRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;

  const keyOr400 = (s: string, field: string, message: string): Uint8Array => decodeKeyOr400(s, network, field, message);

  /** The badge routes' username check and its profile (pending state). */
  const profileForBadge = async (username: string, prefix: string, noProfile: string): Promise<{ pk33: Uint8Array; state: StateIndexReader }> => {
    if (!isUsername(username)) throw badRequest(`${prefix}: Must provide a valid username`);
    const state = await deps.chain.pendingView();
    const profile = await getProfileByUsername(state, username);
    if (profile === undefined) throw badRequest(`${prefix}: ${noProfile}`);
    return { pk33: profile.publicKey, state };
  };

  /** The reference's route, and the singular spelling the SDK calls (deso-protocol's adminGetUsernameVerificationAuditLog): one handler. */
  const auditLogsRoute = (path: string, summary: string): Route =>
    adminRoute(deps, {
      path,
      summary,
      level: 'superAdmin',
      body: adminGetUsernameVerificationAuditLogsBody,
      response: verificationAuditLogsResponse,
      async handle({ body }) {
        if (!isUsername(body.Username)) throw badRequest('AdminGetUsernameVerificationAuditLogs: Must provide a valid username');
        const logs = await verificationAuditLogs(deps.store, body.Username);
        return json({
          VerificationAuditLogs: logs.map((l) => ({
            TimestampNanos: l.timestampNanos,
            VerifierUsername: l.verifierUsername,
            VerifierPublicKeyBase58Check: l.verifier,
            VerifiedUsername: l.verifiedUsername,
            VerifiedPublicKeyBase58Check: encodePublicKey(l.verifiedPublicKey, network),
            IsRemoval: l.isRemoval,
          })),
        });
      },
    });

  return [
    adminRoute(deps, {
      path: '/admin/update-user-global-metadata',
      summary: 'Blacklists/graylists (IsBlacklistUpdate) or whitelists (IsWhitelistUpdate) a user, or clears their phone number',
      level: 'admin',
      body: adminUpdateUserGlobalMetadataBody,
      response: out.empty(),
      async handle({ body }, admin) {
        const P = 'AdminUpdateUserGlobalMetadata';
        if (body.UserPublicKeyBase58Check === '' && body.Username === '') throw badRequest(`${P}Request: Must provide a valid username or public key.`);
        const state = await deps.chain.pendingView();
        let pk33: Uint8Array;
        if (body.UserPublicKeyBase58Check !== '') {
          pk33 = keyOr400(body.UserPublicKeyBase58Check, 'UserPublicKeyBase58Check', `${P}: Problem decoding updater public key`);
        } else {
          const profile = isUsername(body.Username) ? await getProfileByUsername(state, body.Username) : undefined;
          if (profile === undefined) {
            throw badRequest(isUsername(body.Username) ? `${P}: Problem getting profile for username: ${body.Username}` : `${P}: Username is not a valid username`);
          }
          pk33 = profile.publicKey;
        }

        if (body.RemovePhoneNumberMetadata) {
          const before = await getUserMetadata(deps.store, pk33);
          if (before.phoneNumber === '') throw badRequest(`${P}: User does not have a phone number`);
          await updateUserMetadata(deps.store, pk33, (m) => ({ ...m, phoneNumber: '', phoneNumberCountryCode: '' }));
          return empty();
        }
        if (!body.IsBlacklistUpdate && !body.IsWhitelistUpdate) {
          throw badRequest(`${P}: nothing to update: set IsBlacklistUpdate, IsWhitelistUpdate or RemovePhoneNumberMetadata`);
        }

        // As the reference: a blacklist update sets both lists and wins over a whitelist update.
        await updateUserMetadata(deps.store, pk33, (m) =>
          body.IsBlacklistUpdate ? { ...m, removeEverywhere: body.RemoveEverywhere, removeFromLeaderboard: body.RemoveFromLeaderboard } : { ...m, whitelistPosts: body.WhitelistPosts },
        );
        const [updatedUsername, updaterUsername] = await Promise.all([getProfile(state, pk33).then((p) => p?.username ?? ''), usernameOf(state, admin, network)]);
        const changes: Array<[FilterList, boolean]> = body.IsBlacklistUpdate
          ? [
              ['blacklist', !body.RemoveEverywhere],
              ['graylist', !body.RemoveFromLeaderboard],
            ]
          : [['whitelist', !body.WhitelistPosts]];
        const timestampNanos = nowNanos();
        for (const [filter, isRemoval] of changes) {
          await appendFilterAuditLog(deps.store, { timestampNanos, filter, updater: admin, updaterUsername, updatedPublicKey: pk33, updatedUsername, isRemoval });
        }
        return empty();
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-all-user-global-metadata',
      summary: 'The user global metadata records of this node (in public-key order) and the usernames of their profiles',
      level: 'admin',
      body: adminGetAllUserGlobalMetadataBody,
      response: allUserGlobalMetadataResponse,
      async handle({ body }) {
        const limit = body.NumToFetch === 0 ? MAX_USER_METADATA_TO_FETCH : body.NumToFetch;
        const [hexKeys, state] = await Promise.all([usersWithMetadata(deps.store, limit), deps.chain.pendingView()]);
        const rows = await Promise.all(
          hexKeys.map(async (hex) => {
            const pk33 = new Uint8Array(Buffer.from(hex, 'hex'));
            const [meta, profile] = await Promise.all([userMetadataJson(deps.store, pk33, network), getProfile(state, pk33)]);
            return { b58: encodePublicKey(pk33, network), meta, username: profile?.username };
          }),
        );
        // Keys sorted, as Go writes a map.
        rows.sort((a, b) => (a.b58 < b.b58 ? -1 : a.b58 > b.b58 ? 1 : 0));
        const PubKeyToUserGlobalMetadata: Record<string, unknown> = {};
        const PubKeyToUsername: Record<string, string> = {};
        for (const r of rows) {
          PubKeyToUserGlobalMetadata[r.b58] = r.meta;
          if (r.username !== undefined) PubKeyToUsername[r.b58] = r.username;
        }
        return json({ PubKeyToUserGlobalMetadata, PubKeyToUsername });
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-user-global-metadata',
      summary: "A user's global metadata record (email and phone included) and profile",
      level: 'admin',
      body: adminGetUserGlobalMetadataBody,
      response: adminUserGlobalMetadataResponse,
      async handle({ body }) {
        const pk33 = keyOr400(body.UserPublicKeyBase58Check, 'UserPublicKeyBase58Check', 'AdminGetUserGlobalMetadata: Problem userPublicKeyBase58Check');
        const state = await deps.chain.pendingView();
        const [UserMetadata, UserProfileEntryResponse] = await Promise.all([userMetadataJson(deps.store, pk33, network), profileEntryResponse(deps, state, pk33)]);
        return json({ UserMetadata, UserProfileEntryResponse });
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-user-admin-data',
      summary: "A user's admin-side data: username, verification badge, white/gray/blacklist flags with who last changed each, email, phone, referral code",
      level: 'superAdmin',
      body: adminGetUserAdminDataBody,
      response: userAdminDataResponse,
      async handle({ body }) {
        const pk33 = keyOr400(body.UserPublicKeyBase58Check, 'UserPublicKeyBase58Check', 'AdminGetUserAdminData: Failed decoding user public key');
        return json(await userAdminData(deps.store, await deps.chain.pendingView(), pk33));
      },
    }),
    adminRoute(deps, {
      path: '/admin/grant-verification-badge',
      summary: 'Verifies a username for the profile that holds it (IsVerified in every ProfileEntryResponse)',
      level: 'superAdmin',
      body: adminGrantVerificationBadgeBody,
      response: messageResponse,
      async handle({ body }, admin) {
        const P = 'AdminGrantVerificationBadge';
        const username = body.UsernameToVerify;
        const { pk33, state } = await profileForBadge(username, P, `Username ${username} has no associated underlying publickey.`);
        await grantVerification(deps.store, { username, publicKey: pk33, verifier: admin, verifierUsername: await usernameOf(state, admin, network), nowNanos: nowNanos() });
        return json({ Message: `Successfully added verification badge for: ${username}` });
      },
    }),
    adminRoute(deps, {
      path: '/admin/remove-verification-badge',
      summary: 'Removes the verification badge of a username (the username stays listed as removed)',
      level: 'superAdmin',
      body: adminRemoveVerificationBadgeBody,
      response: messageResponse,
      errorPrefixes: { VERIFICATION_NEVER_GRANTED: 'AdminRemoveVerificationBadge: ' },
      async handle({ body }, admin) {
        const P = 'AdminRemoveVerificationBadge';
        const username = body.UsernameForWhomToRemoveVerification;
        const { pk33, state } = await profileForBadge(username, P, 'Username has no associated underlying publickey');
        await removeVerification(deps.store, { username, publicKey: pk33, verifier: admin, verifierUsername: await usernameOf(state, admin, network), nowNanos: nowNanos() });
        return json({ Message: `Successfully removed verification badge for: ${username}` });
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-verified-users',
      summary: 'Every username ever verified on this node (lower-cased), removed ones included',
      level: 'admin',
      body: adminGetVerifiedUsersBody,
      response: verifiedUsersResponse,
      handle: async () => json({ VerifiedUsers: await verifiedUsernames(deps.store) }),
    }),
    auditLogsRoute('/admin/get-username-verification-audit-logs', 'The grants and removals of a username’s verification badge, newest first'),
    auditLogsRoute('/admin/get-username-verification-audit-log', 'Same as admin/get-username-verification-audit-logs: the singular spelling the official SDK calls'),
  ];
}
