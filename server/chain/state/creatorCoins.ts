/**
 * Creator-coin holdings in chain state (CREATOR_COIN, CREATOR_COIN_TRANSFER): one balance per
 * (holder, creator), and two indexes over the non-zero ones: the holders of a creator's coin,
 * the creators a holder holds (and the same two ordered by balance, coinHolders.ts). The
 * curve's totals (locked native, coins in circulation, number of holders) live on the
 * creator's profile (profiles.ts).
 *
 * As in core, a balance entry survives a complete sell with a zero balance: a later sell of it
 * is "insufficient coins" rather than "no balance entry". A transfer that empties the sender
 * deletes its entry (core's HelpConnectCoinTransfer).
 * @module
 */
import { toHex } from '../../hex.js';
import { moveHolding } from './coinHolders.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

export const creatorCoinKeys = {
  /** HoldingRecord by (holder, creator). */
  balance: (holder33: Uint8Array, creator33: Uint8Array): string => `chain:cc:balance:${toHex(holder33)}:${toHex(creator33)}`,
  /** Index of holder public keys (hex) with a non-zero balance of `creator`'s coin. */
  holders: (creator33: Uint8Array): string => `chain:cc:holders:${toHex(creator33)}`,
  /** Index of creator public keys (hex) whose coin `holder` holds (non-zero). */
  holdings: (holder33: Uint8Array): string => `chain:cc:holdings:${toHex(holder33)}`,
};

export interface HoldingRecord {
  balanceNanos: bigint;
  /** Set by a buy, cleared when the balance reaches zero (core HasPurchased). */
  hasPurchased: boolean;
}

/** The holder's entry for a creator's coin, if one was ever written. */
export async function getHolding(state: StateReader, holder33: Uint8Array, creator33: Uint8Array): Promise<HoldingRecord | undefined> {
  return state.get<HoldingRecord>(creatorCoinKeys.balance(holder33, creator33));
}

/** Coin nanos of `creator` held by `holder` (0 without an entry). */
export async function creatorCoinBalance(state: StateReader, holder33: Uint8Array, creator33: Uint8Array): Promise<bigint> {
  return (await getHolding(state, holder33, creator33))?.balanceNanos ?? 0n;
}

/**
 * Writes a holding and keeps the indexes to the non-zero balances in step: both sets here and
 * the by-balance indexes (coinHolders.ts). `previous` must be the record this replaces.
 */
export function putHolding(view: StateView, holder33: Uint8Array, creator33: Uint8Array, next: HoldingRecord, previous: HoldingRecord | undefined): void {
  view.set(creatorCoinKeys.balance(holder33, creator33), next);
  indexHolding(view, holder33, creator33, next.balanceNanos, previous);
}

/**
 * Removes a holding record (core deletes the sender's balance entry when a transfer empties
 * it, where a sell keeps it at zero), and its index entries. `previous` is the record removed.
 */
export function deleteHolding(view: StateView, holder33: Uint8Array, creator33: Uint8Array, previous: HoldingRecord | undefined): void {
  view.delete(creatorCoinKeys.balance(holder33, creator33));
  indexHolding(view, holder33, creator33, 0n, previous);
}

function indexHolding(view: StateView, holder33: Uint8Array, creator33: Uint8Array, balance: bigint, previous: HoldingRecord | undefined): void {
  moveHolding(view, 'creator', holder33, creator33, previous?.balanceNanos ?? 0n, balance);
  const held = balance > 0n;
  const heldBefore = (previous?.balanceNanos ?? 0n) > 0n;
  if (held === heldBefore) return;
  if (held) {
    view.indexAdd(creatorCoinKeys.holders(creator33), [toHex(holder33)]);
    view.indexAdd(creatorCoinKeys.holdings(holder33), [toHex(creator33)]);
  } else {
    view.indexRemove(creatorCoinKeys.holders(creator33), [toHex(holder33)]);
    view.indexRemove(creatorCoinKeys.holdings(holder33), [toHex(creator33)]);
  }
}
