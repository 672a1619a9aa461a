/**
 * The ProfileEntryResponse (spec §2.4–2.6, reference node-api.md §2 "Common response types",
 * backend `_profileEntryToResponse`) computed from chain state, plus the node-local flags:
 *
 * - `IsVerified`: store key `node:verified:<pk hex>` (written by the admin badge routes). A
 *   string value is the lower-cased username the badge was granted for (a rename loses it, as
 *   the backend's username→PKID map does); any other value other than false/0/null counts.
 * - `IsFeaturedTutorialWellKnownCreator` / `…UpAndComingCreator`: membership of the profile's
 *   public key (lower-case hex) in the store indexes `node:tutorial:wellknown` /
 *   `node:tutorial:upandcoming`.
 *
 * Amounts are bigint (the router writes them as JSON numbers, as Go writes uint64); the DAO
 * coin supply is uint256 `0x` hex. `Comments`, `Posts` and `UsersThatHODL` are null here: routes
 * that fill them do so on the returned object.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getBalance } from '../chain/state/balances.js';
import { getDAOCoinEntry, transferRestrictionStatusName } from '../chain/state/daoCoins.js';
import { daoCoinOrderKeys, DESO_COIN, getOrder, isDesoCoin, orderIdOfBookMember } from '../chain/state/daoCoinLimitOrders.js';
import { getProfile, type ProfileRecord } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { toHex } from '../hex.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import type { Store, WriteOp } from '../store/types.js';
import { indexHas } from '../store/indexHas.js';
import { uvarintOf } from '../chain/txn/varint.js';

/** What profile shaping needs of the node: its network and the store of node-local flags. */
export type ProfileDeps = Pick<AppDeps, 'config' | 'store'>;

/**
 * Counter of changes to the node-local state read answers show: the flags below (verification.ts,
 * tutorial.ts), the moderation lists and users' block lists (userMetadata.ts) and the global
 * feed and its pins (feed.ts). Every writer of one of them increments it in the same commit
 * (`PROFILE_FLAGS_CHANGED`): answers are cached per chain position and this counter
 * (http/readCache.ts), so a write without it would stay hidden behind cached answers.
 */
export const PROFILE_FLAGS_VERSION = 'node:flags:version';
export const PROFILE_FLAGS_CHANGED: WriteOp = { op: 'incr', key: PROFILE_FLAGS_VERSION, by: 1 };

/** Node-local keys this module reads (written by other areas). */
export const profileFlagKeys = {
  verified: (pk33: Uint8Array): string => `node:verified:${toHex(pk33)}`,
  tutorialWellKnown: 'node:tutorial:wellknown',
  tutorialUpAndComing: 'node:tutorial:upandcoming',
};

/** Core's CreatorCoinReserveRatio (a float64 in its params). */
const RESERVE_RATIO = 0.3333333;
const NANOS_PER_UNIT = 1e9;
const U64_MAX = (1n << 64n) - 1n;

/**
 * The backend's creator-coin spot price: locked / (supply × reserve ratio), in nanos per whole
 * coin. Core computes it with 53-bit big.Floats, round to nearest even, which are exactly the
 * IEEE double operations below (inputs above 2^53 round as `Number(bigint)` does); the result is
 * truncated to uint64.
 */
export function coinPriceNativeNanos(nativeLockedNanos: bigint, coinsInCirculationNanos: bigint): bigint {
  if (coinsInCirculationNanos === 0n) return 0n;
  const locked = Number(nativeLockedNanos) / NANOS_PER_UNIT;
  const supply = Number(coinsInCirculationNanos) / NANOS_PER_UNIT;
  const price = (locked / (supply * RESERVE_RATIO)) * NANOS_PER_UNIT;
  if (!(price > 0)) return 0n;
  if (price >= 2 ** 64) return U64_MAX;
  return BigInt(Math.trunc(price));
}

/** p / q (positive bigints) rounded to the nearest double. */
function ratioToDouble(p: bigint, q: bigint): number {
  // Scale so the quotient carries ≥ 64 significant bits, then one correctly rounded conversion
  // (the sticky bit of the remainder keeps ties from being mistaken).
  const shift = Math.max(0, 128 - (p.toString(2).length - q.toString(2).length));
  const num = p << BigInt(shift);
  let quotient = num / q;
  if (num % q !== 0n) quotient |= 1n;
  return Number(quotient) / 2 ** shift;
}

/**
 * The backend's BestExchangeRateDESOPerDAOCoin: the price, in native coins per DAO coin, of the
 * best open order selling `creator`'s DAO coin for the native coin (the order a market buy of
 * the coin would fill first); 0 when the book has none. The backend only looks when the coin
 * has holders. Rate = DAO base units per nano ×1e38, so native per coin = 1e47 / rate.
 */
export async function bestExchangeRateNativePerDAOCoin(state: StateIndexReader, creator33: Uint8Array, daoHolders: bigint): Promise<number> {
  if (daoHolders === 0n || isDesoCoin(creator33)) return 0;
  // The pair index is in matching priority: its first member is the order a buy would fill first.
  const [member] = await state.indexRange(daoCoinOrderKeys.book(DESO_COIN, creator33), { limit: 1 });
  if (member === undefined) return 0;
  const best = await getOrder(state, orderIdOfBookMember(member));
  if (best === undefined || best.scaledExchangeRate === 0n) return 0;
  return ratioToDouble(10n ** 47n, best.scaledExchangeRate);
}

/** ExtraData keys stored in a typed form (routes/constructed.ts encoders). */
const PUBLIC_KEY_EXTRA = new Set(['DerivedPublicKey']);
const UVARINT_EXTRA = new Set(['NodeSource']);

/** ExtraData as the backend's DecodeExtraDataMap renders it: text, typed keys decoded. */
export function extraDataMap(kvs: ReadonlyArray<readonly [Uint8Array, Uint8Array]>, network: Network): Record<string, string> {
  const entries = kvs.map(([k, val]): [string, string] => {
    const key = Buffer.from(k).toString('utf8');
    let text: string | null = null;
    if (PUBLIC_KEY_EXTRA.has(key) && val.length === 33) text = encodePublicKey(val, network);
    else if (UVARINT_EXTRA.has(key)) text = uvarintOf(val)?.toString() ?? null;
    return [key, text ?? Buffer.from(val).toString('utf8')];
  });
  // Keys come from signed transactions. fromEntries defines own properties: a `__proto__` key
  // is an ordinary field (as in the reference's Go map), where `out[key] =` would set the prototype.
  return Object.fromEntries(entries);
}

/** Whether the node has a verification badge for this profile. */
export async function isVerified(store: Store, profile: Pick<ProfileRecord, 'publicKey' | 'username'>): Promise<boolean> {
  const v = await store.get<unknown>(profileFlagKeys.verified(profile.publicKey));
  if (v === undefined || v === null || v === false || v === 0) return false;
  if (typeof v === 'string') return v === profile.username.toLowerCase();
  return true;
}

/** The tutorial-featured flags of a public key. */
export async function tutorialFlags(store: Store, pk33: Uint8Array): Promise<{ wellKnown: boolean; upAndComing: boolean }> {
  const hex = toHex(pk33);
  const [wellKnown, upAndComing] = await Promise.all([
    indexHas(store, profileFlagKeys.tutorialWellKnown, hex),
    indexHas(store, profileFlagKeys.tutorialUpAndComing, hex),
  ]);
  return { wellKnown, upAndComing };
}

/** The response for a profile record already read from `state`. */
export async function profileRecordResponse(deps: ProfileDeps, state: StateIndexReader, p: ProfileRecord): Promise<Record<string, unknown>> {
  const network = deps.config.network;
  const cc = p.creatorCoin;
  const dao = await getDAOCoinEntry(state, p.publicKey);
  const [balance, bestRate, verified, tutorial] = await Promise.all([
    getBalance(state, p.publicKey),
    bestExchangeRateNativePerDAOCoin(state, p.publicKey, dao.numberOfHolders),
    isVerified(deps.store, p),
    tutorialFlags(deps.store, p.publicKey),
  ]);
  const price = coinPriceNativeNanos(cc.nanosLocked, cc.coinsInCirculationNanos);
  return {
    PublicKeyBase58Check: encodePublicKey(p.publicKey, network),
    Username: p.username,
    Description: p.description,
    IsHidden: p.isHidden,
    IsReserved: false,
    IsVerified: verified,
    Comments: null,
    Posts: null,
    CoinEntry: {
      CreatorBasisPoints: p.creatorBasisPoints,
      NativeLockedNanos: cc.nanosLocked,
      NumberOfHolders: cc.numberOfHolders,
      CoinsInCirculationNanos: cc.coinsInCirculationNanos,
      CoinWatermarkNanos: cc.coinWatermarkNanos,
      LegacyLockedNanos: cc.nanosLocked,
    },
    DAOCoinEntry: {
      NumberOfHolders: dao.numberOfHolders,
      CoinsInCirculationNanos: `0x${dao.coinsInCirculationNanos.toString(16)}`,
      MintingDisabled: dao.mintingDisabled,
      TransferRestrictionStatus: transferRestrictionStatusName(dao.transferRestrictionStatus),
    },
    CoinPriceNativeNanos: price,
    CoinPriceLegacyNanos: price,
    UsersThatHODL: null,
    IsFeaturedTutorialWellKnownCreator: tutorial.wellKnown,
    IsFeaturedTutorialUpAndComingCreator: tutorial.upAndComing,
    ExtraData: extraDataMap(p.extraData, network),
    NativeBalanceNanos: balance,
    BestExchangeRateNativePerDAOCoin: bestRate,
  };
}

/** The ProfileEntryResponse of `pk33` read from `state`; null when the key has no profile. */
export async function profileEntryResponse(deps: ProfileDeps, state: StateIndexReader, pk33: Uint8Array): Promise<Record<string, unknown> | null> {
  const p = await getProfile(state, pk33);
  return p === undefined ? null : profileRecordResponse(deps, state, p);
}

/** Responses for many keys, keyed by Base58Check (null for a key without a profile). */
export async function profileEntryMap(
  deps: ProfileDeps,
  state: StateIndexReader,
  pks: Uint8Array[],
): Promise<Record<string, Record<string, unknown> | null>> {
  const network = deps.config.network;
  const out: Record<string, Record<string, unknown> | null> = {};
  const unique = new Map<string, Uint8Array>();
  for (const pk of pks) unique.set(encodePublicKey(pk, network), pk);
  const entries = await Promise.all([...unique].map(async ([b58, pk]) => [b58, await profileEntryResponse(deps, state, pk)] as const));
  for (const [b58, r] of entries) out[b58] = r;
  return out;
}
