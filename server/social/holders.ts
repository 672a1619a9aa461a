/**
 * Coin holders (reference social-graph.md §7, backend GetHodlersForPublicKey,
 * IsHodlingPublicKey): who holds a creator's creator coin or DAO coin, what a key holds, and
 * the BalanceEntryResponse both answer with. Reads the state the route passes (the pending
 * view: tip + mempool, as the reference reads its mempool view).
 *
 * Order, as the reference sorts: the creator's own holding first, then balance descending
 * (ties by public key), from the by-balance indexes (chain/state/coinHolders.ts), so a page
 * costs its own size. `SortType: "wealth"` orders by the listed party's native balance plus
 * the native locked in its own creator coin, which no index keeps; it sorts in memory and is
 * refused for lists longer than MAX_WEALTH_SORT_HOLDERS.
 *
 * Where the reference does not do what it evidently means (frontends depend on neither):
 * - zero balances: it screens them out of its database query but not out of its mempool view
 *   (its code marks that as left to do); here a zero balance is never listed;
 * - wealth: it means native balance + locked native but attaches the profiles after sorting,
 *   so only the holder's native balance counts (and, listing what K holds, every entry has K's
 *   wealth); here it is the listed party's balance + the native locked in its coin.
 * @module
 */
import { getBalance } from '../chain/state/balances.js';
import { coinHolderKeys, holdingMember, parseHoldingMember, type CoinKind } from '../chain/state/coinHolders.js';
import { getHolding } from '../chain/state/creatorCoins.js';
import { getDAOCoinBalance } from '../chain/state/daoCoins.js';
import { getProfile, publicKeyForUsername } from '../chain/state/profiles.js';
import type { StateIndexReader, StateReader } from '../chain/state/reader.js';
import { DomainError } from '../errors.js';
import { decodePublicKey, encodePublicKey, isKeyError, type Network } from '../keys/index.js';
import { profileRecordResponse, type ProfileDeps } from './profileEntry.js';
import { LOOKUP_USERNAME } from './usernames.js';

/**
 * Most holders a `wealth`-sorted listing reads. Wealth (native balance + locked native) changes
 * with every transfer of every holder, so no index keeps holders in that order: the listing
 * reads them all and sorts: a page of 20 out of 2,000 holders took 50–100 ms on the memory store
 * (2-core dev machine, 2025), where the same page by `coin_balance` took under 1 ms warm. A
 * coin with more holders is listed by balance instead.
 */
export const MAX_WEALTH_SORT_HOLDERS = 2_000;

const U64_MASK = (1n << 64n) - 1n;

/** A refused holders request (the route answers `kind`'s status with this message). */
export class HoldersRequestError extends DomainError {
  override readonly name = 'HoldersRequestError';
  constructor(message: string, kind: 'invalid' | 'notFound' = 'invalid') {
    super(kind === 'notFound' ? 'HOLDERS_NOT_FOUND' : 'HOLDERS_REQUEST_INVALID', kind, message);
  }
}

export const HODLER_SORT_TYPES = ['', 'coin_balance', 'wealth'] as const;
export type HodlerSortType = (typeof HODLER_SORT_TYPES)[number];

/** Balance of `holder` in `creator`'s coin of `kind` (0 without one). */
async function balanceOf(state: StateReader, kind: CoinKind, holder33: Uint8Array, creator33: Uint8Array): Promise<bigint> {
  if (kind === 'dao') return getDAOCoinBalance(state, holder33, creator33);
  return (await getHolding(state, holder33, creator33))?.balanceNanos ?? 0n;
}

/**
 * The BalanceEntryResponse of (holder, creator) in `kind`, or null when there is none (no
 * creator-coin record; a zero DAO coin balance). `NetBalanceInMempool` is the pending balance
 * minus the mined one; `BalanceNanos` is the low 64 bits of a uint256 DAO balance, as the
 * reference writes it (`BalanceNanosUint256` carries the whole amount). `ProfileEntryResponse`
 * is `withProfileOf`'s profile, absent when it has none (omitempty).
 */
export async function balanceEntryResponse(
  deps: ProfileDeps,
  state: StateIndexReader,
  kind: CoinKind,
  holder33: Uint8Array,
  creator33: Uint8Array,
  withProfileOf: Uint8Array | null,
): Promise<Record<string, unknown> | null> {
  const network = deps.config.network;
  let balance: bigint;
  let hasPurchased = false;
  if (kind === 'creator') {
    const holding = await getHolding(state, holder33, creator33);
    if (holding === undefined) return null;
    balance = holding.balanceNanos;
    hasPurchased = holding.hasPurchased;
  } else {
    balance = await getDAOCoinBalance(state, holder33, creator33);
    if (balance === 0n) return null;
  }
  const [mined, profile, native] = await Promise.all([
    balanceOf(deps.store, kind, holder33, creator33),
    withProfileOf === null ? undefined : getProfile(state, withProfileOf),
    getBalance(state, holder33),
  ]);
  const entry: Record<string, unknown> = {
    HODLerPublicKeyBase58Check: encodePublicKey(holder33, network),
    CreatorPublicKeyBase58Check: encodePublicKey(creator33, network),
    HasPurchased: hasPurchased,
    BalanceNanos: balance & U64_MASK,
    BalanceNanosUint256: `0x${balance.toString(16)}`,
    NetBalanceInMempool: BigInt.asIntN(64, (balance & U64_MASK) - (mined & U64_MASK)),
  };
  if (profile !== undefined) entry['ProfileEntryResponse'] = await profileRecordResponse(deps, state, profile);
  entry['HodlerNativeBalanceNanos'] = native;
  return entry;
}

// --- get-hodlers-for-public-key --------------------------------------------------------------

export interface HodlersRequest {
  /** K: whose coin's holders, or (fetchHodlings) whose holdings; null to name K by `username`. */
  publicKey: Uint8Array | null;
  username: string;
  isDAOCoin: boolean;
  fetchHodlings: boolean;
  sortType: string;
  /** The listed party of the previous page's last entry, as sent ('' = first page). */
  lastPublicKeyBase58Check: string;
  numToFetch: bigint;
  fetchAll: boolean;
}

export interface HodlersResponse {
  Hodlers: Record<string, unknown>[];
  LastPublicKeyBase58Check: string;
}

/** One listed holding: the other party (holder, or creator when listing holdings) and the balance. */
interface Listed {
  other: Uint8Array;
  balance: bigint;
}

const sameKey = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/** The cursor key, or null when it names nothing here (the reference then starts over). */
function cursorKey(s: string, network: Network): Uint8Array | null {
  if (s === '') return null;
  try {
    return decodePublicKey(s, network, 'LastPublicKeyBase58Check');
  } catch (e) {
    if (isKeyError(e)) return null;
    throw e;
  }
}

/** Holders of K's coin, or what K holds, as the reference pages them (module comment). */
export async function hodlersForPublicKey(deps: ProfileDeps, state: StateIndexReader, req: HodlersRequest): Promise<HodlersResponse> {
  // A string that cannot be a username names no profile (and is not echoed: the field could
  // hold anything a client pasted).
  const isName = LOOKUP_USERNAME.test(req.username);
  const k = req.publicKey ?? (isName ? await publicKeyForUsername(state, req.username) : undefined);
  if (k === undefined) {
    const named = isName || req.username === '' ? req.username : '(not a username)';
    throw new HoldersRequestError(`GetHodlersForPublicKey: could not find profile for username: ${named}`, 'notFound');
  }
  if (!(HODLER_SORT_TYPES as readonly string[]).includes(req.sortType)) throw new HoldersRequestError(`GetHodlersForPublicKey: Unrecognized sort type: ${req.sortType}`);
  const kind: CoinKind = req.isDAOCoin ? 'dao' : 'creator';
  // Holding (holder, creator) of the listed party `other`.
  const pair = (other: Uint8Array): [Uint8Array, Uint8Array] => (req.fetchHodlings ? [k, other] : [other, k]);
  const limit = req.fetchAll ? Infinity : Number(req.numToFetch > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : req.numToFetch);
  const cursor = req.fetchAll ? null : cursorKey(req.lastPublicKeyBase58Check, deps.config.network);
  const listed = req.sortType === 'wealth' ? await wealthPage(state, kind, k, req.fetchHodlings, cursor, limit) : await balancePage(state, kind, k, req.fetchHodlings, cursor, limit);

  const entries = await Promise.all(listed.map(({ other }) => balanceEntryResponse(deps, state, kind, ...pair(other), other)));
  const hodlers = entries.filter((e): e is Record<string, unknown> => e !== null);
  const last = listed.at(-1);
  return { Hodlers: hodlers, LastPublicKeyBase58Check: last === undefined ? '' : encodePublicKey(last.other, deps.config.network) };
}

/** The listing's index: K's coin's holders, or K's holdings. */
const listIndex = (kind: CoinKind, k: Uint8Array, fetchHodlings: boolean): string => (fetchHodlings ? coinHolderKeys.holdings(kind, k) : coinHolderKeys.holders(kind, k));

/**
 * A page by balance: K's own holding first (on the first page), then the index from after the
 * cursor. An unknown cursor, or one with no balance here, starts over as the reference does.
 */
async function balancePage(state: StateIndexReader, kind: CoinKind, k: Uint8Array, fetchHodlings: boolean, cursor: Uint8Array | null, limit: number): Promise<Listed[]> {
  if (limit <= 0) return [];
  const self = await balanceOf(state, kind, k, k);
  let includeSelf = self > 0n;
  let after: string | undefined;
  if (cursor !== null && sameKey(cursor, k)) {
    // After K's own entry: the rest from the start (K's entry first or not listed at all).
    includeSelf = false;
  } else if (cursor !== null) {
    const balance = fetchHodlings ? await balanceOf(state, kind, k, cursor) : await balanceOf(state, kind, cursor, k);
    if (balance > 0n) {
      includeSelf = false;
      after = holdingMember(balance, cursor);
    }
  }
  const out: Listed[] = includeSelf ? [{ other: k, balance: self }] : [];
  const want = limit - out.length;
  if (want <= 0) return out;
  // One more than wanted: K's own member may be in the range and is skipped there.
  const range = { ...(after === undefined ? {} : { gt: after }), ...(Number.isFinite(want) ? { limit: want + 1 } : {}) };
  const rest = (await state.indexRange(listIndex(kind, k, fetchHodlings), range))
    .map(parseHoldingMember)
    .filter(({ pk33 }) => !sameKey(pk33, k))
    .slice(0, Number.isFinite(want) ? want : undefined);
  return [...out, ...rest.map(({ balance, pk33 }) => ({ other: pk33, balance }))];
}

/** A page by wealth (module comment): the whole list, sorted, then sliced after the cursor. */
async function wealthPage(state: StateIndexReader, kind: CoinKind, k: Uint8Array, fetchHodlings: boolean, cursor: Uint8Array | null, limit: number): Promise<Listed[]> {
  const key = listIndex(kind, k, fetchHodlings);
  const size = await state.indexSize(key);
  if (size > MAX_WEALTH_SORT_HOLDERS) {
    throw new HoldersRequestError(`GetHodlersForPublicKey: SortType wealth lists at most ${MAX_WEALTH_SORT_HOLDERS} entries and this list has ${size}; use coin_balance`);
  }
  const all = (await state.indexRange(key)).map(parseHoldingMember).map(({ balance, pk33 }) => ({ other: pk33, balance }));
  const wealth = new Map<Listed, bigint>();
  await Promise.all(
    all.map(async (l) => {
      const [native, profile] = await Promise.all([getBalance(state, l.other), getProfile(state, l.other)]);
      wealth.set(l, native + (profile?.creatorCoin.nanosLocked ?? 0n));
    }),
  );
  const isSelf = (l: Listed): boolean => sameKey(l.other, k);
  all.sort((a, b) => {
    if (isSelf(a) !== isSelf(b)) return isSelf(a) ? -1 : 1;
    const [wa, wb] = [wealth.get(a)!, wealth.get(b)!];
    if (wa !== wb) return wa > wb ? -1 : 1;
    if (a.balance !== b.balance) return a.balance > b.balance ? -1 : 1;
    return Buffer.compare(a.other, b.other);
  });
  const at = cursor === null ? -1 : all.findIndex((l) => sameKey(l.other, cursor));
  const start = at + 1;
  return all.slice(start, Number.isFinite(limit) ? start + limit : undefined);
}

// --- is-hodling-public-key -------------------------------------------------------------------

/** Whether `holder` holds any of `creator`'s coin, with the balance entry when it does (no profile). */
export async function isHodling(deps: ProfileDeps, state: StateIndexReader, holder33: Uint8Array, creator33: Uint8Array, isDAOCoin: boolean): Promise<{ IsHodling: boolean; BalanceEntry: Record<string, unknown> | null }> {
  const kind: CoinKind = isDAOCoin ? 'dao' : 'creator';
  if ((await balanceOf(state, kind, holder33, creator33)) === 0n) return { IsHodling: false, BalanceEntry: null };
  return { IsHodling: true, BalanceEntry: await balanceEntryResponse(deps, state, kind, holder33, creator33, null) };
}
