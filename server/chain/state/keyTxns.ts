/**
 * Every transaction touching a public key, by key (core's txindex
 * `DbTxindexPublicKeyIndexToTxnKey`, read by the exchange API's transaction-info): the
 * transactor and each key the transaction affects (rules/notifications.ts affectedPublicKeys,
 * limit-order fills included; a block reward's output), so a page of a key's transactions
 * costs the page, never the key's history.
 *
 * | index        | members                                                            |
 * |--------------|--------------------------------------------------------------------|
 * | `K:<pk>`     | `positionMember` (notifications.ts) of each transaction touching pk |
 *
 * Members are places (height, index in block), ordered as the transactions connected, written
 * by the connect path as the notification index is: mempool transactions at the next height and
 * their place in the pending replay (shown by the pending view), mined ones by their block.
 * @module
 */
import { bytesText } from './keyText.js';
import { positionMember, POSITIONS_PER_HEIGHT } from './notifications.js';
import type { StateIndexReader } from './reader.js';
import type { StateView } from './view.js';

export const keyTxnKeys = {
  index: (pk33: Uint8Array): string => `K:${bytesText(pk33)}`,
};

/** Records that the transaction at (`height`, `index`) touches each of `keys` (duplicates written once). */
export function addKeyTxns(view: StateView, height: bigint, index: number, keys: readonly Uint8Array[]): void {
  if (index < 0 || index >= POSITIONS_PER_HEIGHT) throw new RangeError(`transaction place ${index} is outside 0..${POSITIONS_PER_HEIGHT - 1}`);
  const member = positionMember(height, index);
  const seen = new Set<string>();
  for (const pk of keys) {
    if (pk.length !== 33) continue;
    const k = keyTxnKeys.index(pk);
    if (seen.has(k)) continue;
    seen.add(k);
    view.indexAdd(k, [member]);
  }
}

/** Members of `pk`'s transactions, newest first, strictly before `before` (a member) when given; at most `limit`. */
export async function keyTxnMembers(state: StateIndexReader, pk33: Uint8Array, page: { before?: string; limit: number }): Promise<string[]> {
  if (page.limit <= 0) return [];
  return state.indexRange(keyTxnKeys.index(pk33), { ...(page.before !== undefined ? { lt: page.before } : {}), reverse: true, limit: page.limit });
}
