/**
 * Creator-coin holdings in chain state (CREATOR_COIN): one balance per (holder, creator), and
 * two indexes over the non-zero ones: the holders of a creator's coin, the creators a holder
 * holds. The curve's totals (locked native, coins in circulation, number of holders) live on
 * the creator's profile (profiles.ts).
 *
 * As in core, a balance entry survives a complete sell with a zero balance: a later sell of it
 * is "insufficient coins" rather than "no balance entry".
 * @module
 */
import { toHex } from '../../hex.js';
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

/** Writes a holding and keeps both indexes to the non-zero balances. */
export function putHolding(view: StateView, holder33: Uint8Array, creator33: Uint8Array, next: HoldingRecord, previous: HoldingRecord | undefined): void {
  view.set(creatorCoinKeys.balance(holder33, creator33), next);
  const held = next.balanceNanos > 0n;
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
