/**
 * Used nonces (balance-model replay protection): one key per (public key, expiration height,
 * partial id) spent, and an index of them by expiration height. Once the chain passes a
 * nonce's expiration height the rules refuse it as expired before they look for the key, so
 * block connect deletes the keys of nonces that expired (`expiredNonceOps`) and the store holds
 * only the nonces that can still be replayed.
 * @module
 */
import type { Store, WriteOp } from '../../store/types.js';
import { chainKeys, nonceText } from './keys.js';
import { bytesText, orderedUint } from './keyText.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

/**
 * Most expired nonces one block deletes: more than a full block's transactions (a 1 MB block
 * holds about 6,000 of the smallest), and nonces expire at about the rate blocks spent them, so
 * pruning keeps up while each block's share of the work stays bounded.
 */
export const MAX_NONCES_PRUNED_PER_BLOCK = 10_000;

export async function isNonceUsed(state: StateReader, pk33: Uint8Array, expiration: bigint, partialId: bigint): Promise<boolean> {
  return (await state.get(chainKeys.nonce(pk33, expiration, partialId))) !== undefined;
}

/**
 * Spends a nonce unless it was used: false (nothing written) when it was. Spent, the nonce is
 * a key and a member of the index by expiration height (for pruning), both named by one text.
 */
export async function spendNonce(view: StateView, pk33: Uint8Array, expiration: bigint, partialId: bigint): Promise<boolean> {
  const text = nonceText(pk33, expiration, partialId);
  const key = chainKeys.nonceOfText(text);
  if ((await view.get(key)) !== undefined) return false;
  view.set(key, true);
  view.indexAdd(chainKeys.noncesByExpiration, [text]);
  return true;
}

/**
 * Deletes of the nonces that expired before `height` (expiration height below it: a block at
 * `height` refuses them as expired), at most `limit` of them, lowest expiration first; the rest
 * go with the next blocks. Read from the store: for the commit of the block at `height`.
 */
export async function expiredNonceOps(store: Store, height: bigint, limit = MAX_NONCES_PRUNED_PER_BLOCK): Promise<WriteOp[]> {
  // Members start with their expiration height (orderedUint), so those below `height` sort
  // below its text (keyText.ts: order holds across lengths).
  const members = await store.indexRange(chainKeys.noncesByExpiration, { lt: bytesText(orderedUint(height)), limit });
  if (members.length === 0) return [];
  return [...members.map((m) => ({ op: 'del' as const, key: chainKeys.nonceOfText(m) })), { op: 'indexRemove', key: chainKeys.noncesByExpiration, members }];
}
