/**
 * Users and profiles (spec §4.4, reference node-api.md §2.3, backend routes/user.go): the
 * response builders behind the route file, as plain functions of (deps, state, request).
 *
 * State read per route (the reference reads the mempool-augmented view everywhere):
 * - get-users-stateless, get-single-profile, get-single-profile-picture, get-user-metadata and
 *   get-user-derived-keys read the pending view (tip + mempool), so a user sees their own
 *   unmined profile, trade or authorization at once.
 * - get-profiles reads mined state: its listings walk the store's ordered indexes directly
 *   (the pending view's index reads merge the whole range), so a page costs its own size.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getBalance } from '../chain/state/balances.js';
import { creatorCoinKeys } from '../chain/state/creatorCoins.js';
import { derivedKeysOfOwner, isDerivedKeyValid, type DerivedKeyRecord } from '../chain/state/derivedKeys.js';
import { followPage } from '../chain/state/follows.js';
import { getPost, hashesOfMembers, postKeys, type PostRecord } from '../chain/state/posts.js';
import { getProfile, lockedMember, pkOfLockedMember, profileKeys, publicKeyForUsername, type ProfileRecord } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { PARAM_UPDATER_PUBLIC_KEYS, parseProfilePicDataUrl, type ProfilePicType } from '../chain/rules/profiles.js';
import { decodeSpendingLimit } from '../chain/txn/spendingLimit.js';
import { toHex, fromHex } from '../hex.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { balanceEntryResponse } from './holders.js';
import { postEntryResponse } from './postEntry.js';
import { isStoreUnavailable } from '../store/types.js';
import { extraDataMap, profileRecordResponse } from './profileEntry.js';
import { transactionSpendingLimitResponse } from './spendingLimitResponse.js';
import { profilesByUsernamePrefix } from './usernamePrefix.js';
import { getTutorialState } from './tutorial.js';
import { blockedKeysHex, getUserMetadata, moderationFlags } from './userMetadata.js';
import { DomainError } from '../errors.js';

/** What these read services use of a process's dependencies. */
export type UsersDeps = Pick<AppDeps, 'chain' | 'config' | 'store' | 'log'>;

const b58 = (pk: Uint8Array, network: Network): string => encodePublicKey(pk, network);

/** A refused request: the route answers it as 400 (or `status`) with this message. */
export class UsersRequestError extends DomainError {
  override readonly name = 'UsersRequestError';
  constructor(message: string) {
    super('USERS_REQUEST_INVALID', 'invalid', message);
  }
}

/** Tutorial states after which the tutorial purchase no longer matters (spec §3). */
const TUTORIAL_DONE = new Set(['TutorialComplete', 'TutorialSkipped']);

/** Go's `{"<key>":{}}` for a set of hex public keys, keys sorted as Go sorts map keys. */
export function keySetJson(hexKeys: Iterable<string>, network: Network): Record<string, Record<string, never>> {
  const names = [...hexKeys].map((h) => b58(fromHex(h), network)).sort();
  return Object.fromEntries(names.map((n) => [n, {}]));
}

/** The node's default fee rate (reference: global MinimumNetworkFeeNanosPerKB if set, else the node's 1000). */
export function defaultFeeRateNanosPerKB(deps: Pick<AppDeps, 'chain'>): bigint {
  const p = BigInt(deps.chain.params.minNetworkFeeNanosPerKB);
  return p > 0n ? p : 1000n;
}

export function paramUpdatersJson(network: Network): Record<string, boolean> {
  return Object.fromEntries([...PARAM_UPDATER_PUBLIC_KEYS].map((h) => [b58(fromHex(h), network), true]));
}

/** Backend canUserCreateProfile: a named profile, a verified phone, or the creation fee in hand. */
export async function canCreateProfile(deps: Pick<AppDeps, 'chain'>, state: StateIndexReader, pk33: Uint8Array, phoneNumber: string): Promise<boolean> {
  const profile = await getProfile(state, pk33);
  if (profile !== undefined && profile.username !== '') return true;
  if (phoneNumber !== '') return true;
  return (await getBalance(state, pk33)) >= (await deps.chain.globalParams(state)).createProfileFeeNanos;
}

// --- balance entries --------------------------------------------------------------------------

/** The creator coins `holder` holds, as BalanceEntryResponses with the creators' profiles, by creator key descending. */
export async function usersYouHodl(deps: UsersDeps, state: StateIndexReader, holder33: Uint8Array, hideHex: ReadonlySet<string> = new Set()): Promise<Record<string, unknown>[]> {
  const creators = (await state.indexRange(creatorCoinKeys.holdings(holder33))).filter((h) => !hideHex.has(h)).map(fromHex);
  const entries = await Promise.all(creators.map((c) => balanceEntryResponse(deps, state, 'creator', holder33, c, c)));
  const list = entries.filter((e): e is Record<string, unknown> => e !== null);
  const key = (e: Record<string, unknown>): string => e['CreatorPublicKeyBase58Check'] as string;
  return list.sort((a, b) => (key(a) > key(b) ? -1 : key(a) < key(b) ? 1 : 0));
}

/**
 * The holders of `creator`'s coin with their profiles: the creator first, then by balance
 * descending (reference GetProfiles FetchUsersThatHODL), ties by holder key.
 */
export async function usersThatHodl(deps: UsersDeps, state: StateIndexReader, creator33: Uint8Array): Promise<Record<string, unknown>[]> {
  const holders = (await state.indexRange(creatorCoinKeys.holders(creator33))).map(fromHex);
  const entries = (await Promise.all(holders.map((h) => balanceEntryResponse(deps, state, 'creator', h, creator33, h)))).filter((e): e is Record<string, unknown> => e !== null);
  const self = (e: Record<string, unknown>): boolean => e['HODLerPublicKeyBase58Check'] === e['CreatorPublicKeyBase58Check'];
  return entries.sort((a, b) => {
    if (self(a) !== self(b)) return self(a) ? -1 : 1;
    const [x, y] = [a['BalanceNanos'] as bigint, b['BalanceNanos'] as bigint];
    if (x !== y) return x > y ? -1 : 1;
    return (a['HODLerPublicKeyBase58Check'] as string) < (b['HODLerPublicKeyBase58Check'] as string) ? -1 : 1;
  });
}

// --- get-users-stateless ----------------------------------------------------------------------

export interface UsersStatelessRequest {
  /** As sent: a key that does not decode gives a user with only its key set (reference). */
  publicKeys: string[];
  skipForLeaderboard: boolean;
  includeBalance: boolean;
  /** Extension: hide what this reader blocked (their blocked users, and those creators' holdings). */
  reader: Uint8Array | null;
}

type Decoder = (s: string) => Uint8Array | null;

function emptyUser(pk: string): Record<string, unknown> {
  return {
    PublicKeyBase58Check: pk,
    ProfileEntryResponse: null,
    Utxos: null,
    BalanceNanos: 0n,
    UnminedBalanceNanos: 0n,
    PublicKeysBase58CheckFollowedByUser: null,
    UsersYouHODL: null,
    UsersWhoHODLYouCount: 0,
    HasPhoneNumber: false,
    CanCreateProfile: false,
    BlockedPubKeys: null,
    HasEmail: false,
    EmailVerified: false,
    JumioStartTime: 0,
    JumioFinishedTime: 0,
    JumioVerified: false,
    JumioReturned: false,
    IsAdmin: false,
    IsSuperAdmin: false,
    IsBlacklisted: false,
    IsGraylisted: false,
    TutorialStatus: '',
    CreatorCoinsPurchasedInTutorial: 0n,
    MustCompleteTutorial: false,
  };
}

async function fillUser(deps: UsersDeps, state: StateIndexReader, user: Record<string, unknown>, pk33: Uint8Array, req: UsersStatelessRequest, hideHex: ReadonlySet<string>): Promise<void> {
  const network = deps.config.network;
  const profile = await getProfile(state, pk33);
  if (profile !== undefined) user['ProfileEntryResponse'] = await profileRecordResponse(deps, state, profile);
  if (!req.skipForLeaderboard || req.includeBalance) user['BalanceNanos'] = await getBalance(state, pk33);
  if (!req.skipForLeaderboard) {
    // Every key the user follows, sorted (the follow index's order is the Base58Check order).
    user['PublicKeysBase58CheckFollowedByUser'] = (await followPage(state, pk33, 'following')).map((pk) => b58(pk, network));
    user['UsersYouHODL'] = await usersYouHodl(deps, state, pk33, hideHex);
    user['UsersWhoHODLYouCount'] = await state.indexSize(creatorCoinKeys.holders(pk33));
    const meta = await getUserMetadata(deps.store, pk33);
    user['HasPhoneNumber'] = meta.phoneNumber !== '';
    user['HasEmail'] = meta.email !== '';
    user['EmailVerified'] = meta.emailVerified;
    const tutorial = await getTutorialState(deps.store, pk33);
    user['TutorialStatus'] = tutorial.status;
    user['MustCompleteTutorial'] = tutorial.mustCompleteTutorial;
    if (!TUTORIAL_DONE.has(tutorial.status) && tutorial.creatorPurchasedInTutorial !== null) {
      const bought = await getProfile(state, tutorial.creatorPurchasedInTutorial);
      if (bought !== undefined) {
        user['CreatorPurchasedInTutorialUsername'] = bought.username;
        user['CreatorCoinsPurchasedInTutorial'] = tutorial.creatorCoinsPurchasedInTutorial;
      }
    }
    user['CanCreateProfile'] = await canCreateProfile(deps, state, pk33, meta.phoneNumber);
    user['BlockedPubKeys'] = keySetJson(await blockedKeysHex(deps.store, pk33), network);
  }
  const flags = await moderationFlags(deps.store, pk33);
  user['IsBlacklisted'] = flags.isBlacklisted;
  user['IsGraylisted'] = flags.isGraylisted;
  const b = b58(pk33, network);
  user['IsSuperAdmin'] = deps.config.superAdminPublicKeys.includes(b);
  user['IsAdmin'] = user['IsSuperAdmin'] === true || deps.config.adminPublicKeys.includes(b);
}

export async function usersStateless(deps: UsersDeps, state: StateIndexReader, req: UsersStatelessRequest, decode: Decoder): Promise<Record<string, unknown>> {
  const hideHex = req.reader === null ? new Set<string>() : await blockedKeysHex(deps.store, req.reader);
  const users: Record<string, unknown>[] = [];
  for (const pk of req.publicKeys) {
    const pk33 = pk === '' ? null : decode(pk);
    if (pk33 !== null && hideHex.has(toHex(pk33))) continue;
    const user = emptyUser(pk);
    users.push(user);
    // The reference keeps a user whose fields failed (only the key set) and answers the rest;
    // but a store that cannot answer fails the call (503): a half-filled user would pass for data.
    if (pk33 === null) continue;
    try {
      await fillUser(deps, state, user, pk33, req, hideHex);
    } catch (e) {
      if (isStoreUnavailable(e)) throw e;
      deps.log.error({ err: e, publicKey: pk }, 'get-users-stateless: filling a user failed');
    }
  }
  return { UserList: users, DefaultFeeRateNanosPerKB: defaultFeeRateNanosPerKB(deps), ParamUpdaters: paramUpdatersJson(deps.config.network) };
}

// --- get-profiles -------------------------------------------------------------------------------

export const PROFILE_ORDERS = ['', 'newest_last_post', 'newest_last_comment', 'influencer_coin_price'] as const;
export type ProfileOrder = (typeof PROFILE_ORDERS)[number];
export const MODERATION_TYPES = ['', 'unrestricted', 'leaderboard'] as const;
export const DEFAULT_PROFILES_TO_FETCH = 20;
/** Spec §8: NumToFetch must be below this. */
export const MAX_PROFILES_TO_FETCH = 100;
/** The single-profile view attaches at most this many of the profile's newest posts. */
export const MAX_PROFILE_POSTS = 100;
/** How far back the post/comment orderings look for a profile's latest post or comment. */
const LAST_ACTIVITY_SCAN = 50;

export interface GetProfilesRequest {
  start: Uint8Array | null;
  usernamePrefix: string;
  orderBy: ProfileOrder;
  numToFetch: number;
  reader: Uint8Array | null;
  fetchUsersThatHodl: boolean;
  addGlobalFeedBool: boolean;
}


/** Newest timestamp of the profile's visible top-level posts (kind 'post') or comments ('comment'); 0 for none. */
async function lastActivityNanos(state: StateIndexReader, pk33: Uint8Array, kind: 'post' | 'comment'): Promise<bigint> {
  const members = await state.indexRange(postKeys.byPoster(pk33), { reverse: true, limit: LAST_ACTIVITY_SCAN });
  for (const hash of hashesOfMembers(members)) {
    const post = await getPost(state, hash);
    if (post === undefined || post.isHidden) continue;
    if ((kind === 'comment') === post.parentStakeId.length > 0) return post.timestampNanos;
  }
  return 0n;
}

async function visibleTopLevelPosts(state: StateIndexReader, pk33: Uint8Array): Promise<PostRecord[]> {
  const out: PostRecord[] = [];
  let upper: string | undefined;
  // Walk newest first in pages, skipping comments and hidden posts.
  while (out.length < MAX_PROFILE_POSTS) {
    const members = await state.indexRange(postKeys.byPoster(pk33), { reverse: true, limit: 200, ...(upper === undefined ? {} : { lt: upper }) });
    if (members.length === 0) break;
    for (const hash of hashesOfMembers(members)) {
      const post = await getPost(state, hash);
      if (post !== undefined && !post.isHidden && post.parentStakeId.length === 0) out.push(post);
      if (out.length === MAX_PROFILE_POSTS) break;
    }
    upper = members[members.length - 1];
  }
  return out;
}

async function profileWithPosts(deps: UsersDeps, state: StateIndexReader, p: ProfileRecord, req: GetProfilesRequest): Promise<Record<string, unknown>> {
  const r = await profileRecordResponse(deps, state, p);
  // The reference embeds the poster's profile (without posts) in each of its posts.
  const poster = { ...r };
  const posts = await visibleTopLevelPosts(state, p.publicKey);
  r['Posts'] = await Promise.all(
    posts.map(async (post) => {
      // get-profiles reads mined state: every post it lists is mined.
      const pr = await postEntryResponse(state, post, deps.config.network, { inMempool: false });
      pr['ProfileEntryResponse'] = poster;
      // No global feed is curated on this node yet: nothing is in it.
      if (req.addGlobalFeedBool) pr['InGlobalFeed'] = false;
      return pr;
    }),
  );
  r['UsersThatHODL'] = req.fetchUsersThatHodl ? await usersThatHodl(deps, state, p.publicKey) : [];
  return r;
}

/** Whether the listing shows this profile to `reader` (hidden profiles and the reader's blocks are left out). */
const listable = (p: ProfileRecord | undefined, hideHex: ReadonlySet<string>): p is ProfileRecord => p !== undefined && !p.isHidden && !hideHex.has(toHex(p.publicKey));

export async function getProfiles(deps: UsersDeps, state: StateIndexReader, req: GetProfilesRequest): Promise<{ ProfilesFound: Record<string, unknown>[]; NextPublicKey: string | null }> {
  const network = deps.config.network;
  const hideHex = req.reader === null ? new Set<string>() : await blockedKeysHex(deps.store, req.reader);

  if (req.usernamePrefix !== '') {
    // The reference's prefix search filters the reader's blocks but not hidden profiles.
    const page = await profilesByUsernamePrefix(state, req.usernamePrefix.toLowerCase(), req.numToFetch, (p) => hideHex.has(toHex(p.publicKey)));
    return { ProfilesFound: await Promise.all(page.map((p) => profileRecordResponse(deps, state, p))), NextPublicKey: null };
  }

  const startProfile = req.start === null ? undefined : await getProfile(state, req.start);

  if (req.numToFetch === 1) {
    // The profile page: that one profile with its posts (and holders when asked).
    if (!listable(startProfile, hideHex)) throw new UsersRequestError('GetProfiles: Could not find profile for pub key');
    return { ProfilesFound: [await profileWithPosts(deps, state, startProfile, req)], NextPublicKey: null };
  }
  if (req.start !== null && startProfile === undefined) throw new UsersRequestError('GetProfiles: Could not find profile for pub key');

  // Walk profiles by coin value, highest first, starting after the start profile.
  const page: ProfileRecord[] = [];
  let upper = startProfile === undefined ? undefined : lockedMember(startProfile);
  let more = false;
  while (!more) {
    const batch = await state.indexRange(profileKeys.lockedIndex, { reverse: true, limit: req.numToFetch + 1, ...(upper === undefined ? {} : { lt: upper }) });
    if (batch.length === 0) break;
    for (const member of batch) {
      const p = await getProfile(state, pkOfLockedMember(member));
      if (!listable(p, hideHex)) continue;
      if (page.length === req.numToFetch) {
        more = true;
        break;
      }
      page.push(p);
    }
    upper = batch[batch.length - 1];
  }
  const next = more ? b58(page[page.length - 1]!.publicKey, network) : null;

  let ordered = page;
  if (req.orderBy === 'newest_last_post' || req.orderBy === 'newest_last_comment') {
    const kind = req.orderBy === 'newest_last_post' ? 'post' : 'comment';
    const times = await Promise.all(page.map((p) => lastActivityNanos(state, p.publicKey, kind)));
    ordered = page.map((p, i) => ({ p, t: times[i]! })).sort((a, b) => (a.t === b.t ? 0 : a.t > b.t ? -1 : 1)).map((x) => x.p);
  }
  return { ProfilesFound: await Promise.all(ordered.map((p) => profileRecordResponse(deps, state, p))), NextPublicKey: next };
}

// --- get-single-profile / picture ----------------------------------------------------------------

/**
 * The data-URL picture of a profile, decoded; a reason string when there is none. Stored text
 * is not trusted (a chain may hold pictures from before the connect rule checked them): only
 * the rule's raster types pass, and the content type is built from that list, never copied.
 */
export function decodeProfilePicture(pic: string): { contentType: `image/${ProfilePicType}`; bytes: Uint8Array } | { problem: string } {
  const parsed = parseProfilePicDataUrl(pic);
  if ('problem' in parsed) return { problem: '_getProfilePictureForPublicKey: profile picture is not base64 encoded image' };
  return { contentType: `image/${parsed.type}`, bytes: new Uint8Array(Buffer.from(parsed.base64, 'base64')) };
}

// --- get-user-metadata -------------------------------------------------------------------------

export async function userMetadataResponse(deps: UsersDeps, state: StateIndexReader, pk33: Uint8Array): Promise<Record<string, unknown>> {
  const meta = await getUserMetadata(deps.store, pk33);
  return {
    HasPhoneNumber: meta.phoneNumber !== '',
    CanCreateProfile: await canCreateProfile(deps, state, pk33, meta.phoneNumber),
    BlockedPubKeys: keySetJson(await blockedKeysHex(deps.store, pk33), deps.config.network),
    HasEmail: meta.email !== '',
    EmailVerified: meta.emailVerified,
    JumioFinishedTime: 0,
    JumioVerified: false,
    JumioReturned: false,
  };
}

// --- get-user-derived-keys ---------------------------------------------------------------------

/** The memo as text: the stored memo is the hex of what the app sent (reference "hex-decoded memo"). */
function memoText(memo: Uint8Array): string {
  const text = Buffer.from(memo).toString('latin1');
  return /^(?:[0-9a-fA-F]{2})*$/.test(text) ? Buffer.from(text, 'hex').toString('utf8') : Buffer.from(memo).toString('utf8');
}

/**
 * The backend's UserDerivedKey (DerivedKeyEntryToUserDerivedKey): valid while authorized and
 * expiring after the tip (the mined tip, as the reference's BlockTip).
 */
export function userDerivedKeyResponse(r: DerivedKeyRecord, tipHeight: bigint, network: Network): Record<string, unknown> {
  return {
    OwnerPublicKeyBase58Check: b58(r.ownerPublicKey, network),
    DerivedPublicKeyBase58Check: b58(r.derivedPublicKey, network),
    ExpirationBlock: r.expirationBlock,
    IsValid: isDerivedKeyValid(r, tipHeight),
    ExtraData: r.extraData.length === 0 ? null : extraDataMap(r.extraData, network),
    TransactionSpendingLimit: r.spendingLimit.length === 0 ? null : transactionSpendingLimitResponse(decodeSpendingLimit(r.spendingLimit), network),
    Memo: memoText(r.memo),
  };
}

export async function userDerivedKeys(deps: UsersDeps, state: StateIndexReader, owner33: Uint8Array, tipHeight: bigint): Promise<Record<string, unknown>> {
  const network = deps.config.network;
  const out: Record<string, unknown> = {};
  for (const r of await derivedKeysOfOwner(state, owner33)) out[b58(r.derivedPublicKey, network)] = userDerivedKeyResponse(r, tipHeight, network);
  return { DerivedKeys: out };
}
