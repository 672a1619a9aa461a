/**
 * The signed transactions of a stored block, by its hash: the record read and its body
 * decompressed once, then kept in a process-wide LRU bounded by bytes. A block never changes
 * (its hash fixes its merkle root, so its transactions), and the readers that want one of its
 * transactions (notification pages, get-txn, the exchange API, the hot feed's refresh) ask for
 * the same recent blocks again and again: without the cache each asked a whole-block read and
 * decompression per transaction shown (bench:http, uncached notification pages: ~15 ms each).
 * @module
 */
import { unpackBlockBody } from '../block/body.js';
import { chainKeys, type BlockRecord } from './keys.js';
import type { StateReader } from './reader.js';

/** Decoded transaction bytes kept at most, over every block (plus a small per-transaction overhead). */
export const BLOCK_TXNS_CACHE_BYTES = 32 * 1024 * 1024;
const PER_TXN_OVERHEAD = 64;

const cache = new Map<string, { txns: readonly Uint8Array[]; bytes: number }>();
let cachedBytes = 0;

function remember(hashHex: string, txns: readonly Uint8Array[]): void {
  const bytes = txns.reduce((n, t) => n + t.length + PER_TXN_OVERHEAD, 0);
  // A block bigger than a quarter of the cache would push out everything else: not kept.
  if (bytes > BLOCK_TXNS_CACHE_BYTES / 4) return;
  cache.set(hashHex, { txns, bytes });
  cachedBytes += bytes;
  for (const [oldest, entry] of cache) {
    if (cachedBytes <= BLOCK_TXNS_CACHE_BYTES) break;
    cache.delete(oldest);
    cachedBytes -= entry.bytes;
  }
}

function cached(hashHex: string): readonly Uint8Array[] | undefined {
  const hit = cache.get(hashHex);
  if (hit === undefined) return undefined;
  // Most recently used last.
  cache.delete(hashHex);
  cache.set(hashHex, hit);
  return hit.txns;
}

/** The transactions of a block whose record the caller read already (block reward first). */
export async function txnsOfBlock(hashHex: string, record: Pick<BlockRecord, 'body'>): Promise<readonly Uint8Array[]> {
  const hit = cached(hashHex);
  if (hit !== undefined) return hit;
  const txns = await unpackBlockBody(record.body);
  if (!cache.has(hashHex)) remember(hashHex, txns);
  return txns;
}

/** The transactions of the stored block with this hash, or undefined when no block has it. */
export async function blockTxns(state: StateReader, hashHex: string): Promise<readonly Uint8Array[] | undefined> {
  const hit = cached(hashHex);
  if (hit !== undefined) return hit;
  const record = await state.get<BlockRecord>(chainKeys.block(hashHex));
  return record === undefined ? undefined : txnsOfBlock(hashHex, record);
}
