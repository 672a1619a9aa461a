/**
 * DAO coins in chain state (DAO_COIN, DAO_COIN_TRANSFER, and the coin side of limit orders):
 * one coin entry per creator and one balance per (holder, creator), plus two indexes so read
 * routes can list a coin's holders and a holder's coins (and the same two ordered by balance,
 * coinHolders.ts). Amounts are uint256 base units (1e18 per coin) held as bigint. A zero
 * balance is no balance: the key is deleted and the holder leaves the indexes, as core
 * deletes emptied balance entries.
 * @module
 */
import { toHex, fromHex } from '../../hex.js';
import { moveHolding } from './coinHolders.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';
import type { IndexRange } from '../../store/types.js';

/** Core's TransferRestrictionStatus (one byte in DAO_COIN metadata). */
export const TransferRestrictionStatus = {
  UNRESTRICTED: 0,
  PROFILE_OWNER_ONLY: 1,
  DAO_MEMBERS_ONLY: 2,
  PERMANENTLY_UNRESTRICTED: 3,
} as const;

/** API names of the statuses (reference §2 ProfileEntryResponse, DAOCoinRequest). */
export const TRANSFER_RESTRICTION_STATUS_NAMES: Readonly<Record<number, string>> = {
  0: 'unrestricted',
  1: 'profile_owner_only',
  2: 'dao_members_only',
  3: 'permanently_unrestricted',
};

/** API name of a status; core renders a byte it does not know as unrestricted. */
export function transferRestrictionStatusName(status: number): string {
  return TRANSFER_RESTRICTION_STATUS_NAMES[status] ?? 'unrestricted';
}

/** Unrestricted and permanently unrestricted coins move freely (core IsUnrestricted). */
export function isUnrestricted(status: number): boolean {
  return status === TransferRestrictionStatus.UNRESTRICTED || status === TransferRestrictionStatus.PERMANENTLY_UNRESTRICTED;
}

export interface DAOCoinEntry {
  coinsInCirculationNanos: bigint;
  mintingDisabled: boolean;
  transferRestrictionStatus: number;
  /** Kept as core counts it (mint, burn and transfers move it; limit-order fills do not). */
  numberOfHolders: bigint;
}

export const EMPTY_DAO_COIN_ENTRY: Readonly<DAOCoinEntry> = Object.freeze({
  coinsInCirculationNanos: 0n,
  mintingDisabled: false,
  transferRestrictionStatus: TransferRestrictionStatus.UNRESTRICTED,
  numberOfHolders: 0n,
});

export const MAX_UINT256 = (1n << 256n) - 1n;

export const daoCoinKeys = {
  /** DAOCoinEntry by creator public key. */
  entry: (creator33: Uint8Array): string => `chain:dao:coin:${toHex(creator33)}`,
  /** bigint base units held by (holder, creator). */
  balance: (holder33: Uint8Array, creator33: Uint8Array): string => `chain:dao:bal:${toHex(holder33)}:${toHex(creator33)}`,
  /** Index of a coin's holders: members are holder public keys (hex). */
  holders: (creator33: Uint8Array): string => `chain:dao:holders:${toHex(creator33)}`,
  /** Index of a holder's coins: members are creator public keys (hex). */
  holdings: (holder33: Uint8Array): string => `chain:dao:holdings:${toHex(holder33)}`,
};

/** A reader that can also walk indexes: the store itself or a StateView. */
export interface IndexedStateReader extends StateReader {
  indexRange(key: string, range?: IndexRange): Promise<string[]>;
}

export async function getDAOCoinEntry(state: StateReader, creator33: Uint8Array): Promise<DAOCoinEntry> {
  return (await state.get<DAOCoinEntry>(daoCoinKeys.entry(creator33))) ?? { ...EMPTY_DAO_COIN_ENTRY };
}

export function setDAOCoinEntry(view: StateView, creator33: Uint8Array, entry: DAOCoinEntry): void {
  view.set(daoCoinKeys.entry(creator33), entry);
}

export async function getDAOCoinBalance(state: StateReader, holder33: Uint8Array, creator33: Uint8Array): Promise<bigint> {
  return (await state.get<bigint>(daoCoinKeys.balance(holder33, creator33))) ?? 0n;
}

/**
 * Sets a balance and keeps the indexes in step (zero removes the holder): both sets here and
 * the by-balance indexes (coinHolders.ts), which need the balance it replaces (read here).
 */
export async function setDAOCoinBalance(view: StateView, holder33: Uint8Array, creator33: Uint8Array, amount: bigint): Promise<void> {
  if (amount < 0n || amount > MAX_UINT256) throw new RangeError(`DAO coin balance ${amount} is outside uint256`);
  const key = daoCoinKeys.balance(holder33, creator33);
  moveHolding(view, 'dao', holder33, creator33, await getDAOCoinBalance(view, holder33, creator33), amount);
  if (amount === 0n) {
    view.delete(key);
    view.indexRemove(daoCoinKeys.holders(creator33), [toHex(holder33)]);
    view.indexRemove(daoCoinKeys.holdings(holder33), [toHex(creator33)]);
  } else {
    view.set(key, amount);
    view.indexAdd(daoCoinKeys.holders(creator33), [toHex(holder33)]);
    view.indexAdd(daoCoinKeys.holdings(holder33), [toHex(creator33)]);
  }
}

export interface DAOCoinHolding {
  holder: Uint8Array;
  creator: Uint8Array;
  balanceNanos: bigint;
}


/** Everyone holding a creator's coin, ascending by holder key. */
export async function daoCoinHolders(state: IndexedStateReader, creator33: Uint8Array): Promise<DAOCoinHolding[]> {
  const holders = (await state.indexRange(daoCoinKeys.holders(creator33))).map(fromHex);
  return Promise.all(holders.map(async (holder) => ({ holder, creator: creator33, balanceNanos: await getDAOCoinBalance(state, holder, creator33) })));
}

/** Every DAO coin a holder has, ascending by creator key. */
export async function daoCoinHoldings(state: IndexedStateReader, holder33: Uint8Array): Promise<DAOCoinHolding[]> {
  const creators = (await state.indexRange(daoCoinKeys.holdings(holder33))).map(fromHex);
  return Promise.all(creators.map(async (creator) => ({ holder: holder33, creator, balanceNanos: await getDAOCoinBalance(state, holder33, creator) })));
}
