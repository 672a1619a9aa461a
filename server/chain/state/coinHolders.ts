/**
 * Coin holders by balance (creator coins and DAO coins): for each coin an index of its holders
 * and for each key an index of the coins it holds, both ordered by balance, largest first, ties
 * by public key ascending. `get-hodlers-for-public-key` pages them as the reference sorts its
 * answer (balance descending), so a page costs its own size whatever the number of holders.
 *
 * | key                        | members (`holdingMember`)                      |
 * |----------------------------|------------------------------------------------|
 * | `Chold:cc:<creator>`       | holders of a creator coin: balance ‖ holder    |
 * | `Chold:cc-of:<holder>`     | creator coins a key holds: balance ‖ creator   |
 * | `Chold:dao:<creator>`      | holders of a DAO coin: balance ‖ holder        |
 * | `Chold:dao-of:<holder>`    | DAO coins a key holds: balance ‖ creator       |
 *
 * A member is `bytesText(orderedUintDescending(balance) ‖ pk33)`: only non-zero balances are
 * listed, and a balance change moves the member (remove the old, add the new). The writers are
 * the two balance setters (creatorCoins.ts `putHolding`, daoCoins.ts `setDAOCoinBalance`), so
 * every rule that moves a coin keeps these in step.
 * @module
 */
import { bytesText, joinBytes, orderedUintDescending, readOrderedUint, textBytes } from './keyText.js';
import type { StateView } from './view.js';
import { PUBLIC_KEY_BYTES } from '../txn/sizes.js';

export type CoinKind = 'creator' | 'dao';

export const coinHolderKeys = {
  /** Holders of `creator`'s coin of this kind, by balance descending. */
  holders: (kind: CoinKind, creator33: Uint8Array): string => `Chold:${kind === 'dao' ? 'dao' : 'cc'}:${bytesText(creator33)}`,
  /** Coins of this kind `holder` holds, by balance descending. */
  holdings: (kind: CoinKind, holder33: Uint8Array): string => `Chold:${kind === 'dao' ? 'dao' : 'cc'}-of:${bytesText(holder33)}`,
};

/** The index member of a non-zero balance held against `other` (the holder, or the creator). */
export function holdingMember(balance: bigint, other33: Uint8Array): string {
  return bytesText(joinBytes(orderedUintDescending(balance), other33));
}

/** The balance and the public key a member names. @throws {RangeError} on a member this module did not write */
export function parseHoldingMember(member: string): { balance: bigint; pk33: Uint8Array } {
  const bytes = textBytes(member);
  const { value, end } = readOrderedUint(bytes, 0, true);
  if (bytes.length - end < PUBLIC_KEY_BYTES) throw new RangeError(`holder index member ${member}: too short for a public key`);
  return { balance: value, pk33: bytes.slice(end, end + PUBLIC_KEY_BYTES) };
}

/** Moves (holder, creator) in both indexes of `kind` from balance `before` to `after` (0 = not listed). */
export function moveHolding(view: StateView, kind: CoinKind, holder33: Uint8Array, creator33: Uint8Array, before: bigint, after: bigint): void {
  if (before === after) return;
  const holders = coinHolderKeys.holders(kind, creator33);
  const holdings = coinHolderKeys.holdings(kind, holder33);
  if (before > 0n) {
    view.indexRemove(holders, [holdingMember(before, holder33)]);
    view.indexRemove(holdings, [holdingMember(before, creator33)]);
  }
  if (after > 0n) {
    view.indexAdd(holders, [holdingMember(after, holder33)]);
    view.indexAdd(holdings, [holdingMember(after, creator33)]);
  }
}
