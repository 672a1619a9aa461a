/**
 * Mined transactions by hash. The location key (`chainKeys.txn`) holds only the hash's first
 * 16 bytes, so a reader confirms the whole hash against the transaction the location names:
 * three reads (location, block hash at that height, block), whatever the chain's length.
 * @module
 */
import { sha256d } from '../../../wasm/hash.js';
import { toHex } from '../../hex.js';
import { chainKeys, type BlockRecord, type TxnLocation } from './keys.js';
import type { StateReader } from './reader.js';

/**
 * Where the transaction with this hash (64 lower-case hex characters) is in the main chain, or
 * undefined when no main-chain block holds it.
 */
export async function minedTxnLocation(state: StateReader, hashHex: string): Promise<TxnLocation | undefined> {
  const location = await state.get<TxnLocation>(chainKeys.txn(hashHex));
  if (location === undefined) return undefined;
  const [height, index] = location;
  const blockHash = await state.get<string>(chainKeys.hashAtHeight(BigInt(height)));
  const block = blockHash === undefined ? undefined : await state.get<BlockRecord>(chainKeys.block(blockHash));
  const bytes = block?.txns[index];
  // A different hash sharing the 16-byte prefix names someone else's transaction.
  return bytes !== undefined && toHex(sha256d(bytes)) === hashHex ? location : undefined;
}
