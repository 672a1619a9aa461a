/**
 * Stored blocks with their transactions decoded: the record read and its body decompressed
 * once, then kept in a process-wide LRU bounded by bytes. A block never changes (its hash fixes
 * its merkle root, so its transactions), and the readers that want one of its transactions
 * (notification pages, get-txn, the exchange API) ask for the same recent blocks again and
 * again: without the cache each asked a whole-block read and decompression per transaction
 * shown (bench:http, uncached notification pages: ~15 ms each).
 * @module
 */
import { unpackBlockBody } from '../block/body.js';
import { chainKeys, type BlockRecord } from './keys.js';
import type { StateReader } from './reader.js';

/** Decoded transaction bytes kept at most, over every block (plus a small per-transaction overhead). */
export const BLOCK_TXNS_CACHE_BYTES = 32 * 1024 * 1024;
const PER_TXN_OVERHEAD = 64;

/** A stored block's header and its signed transactions, block reward first. */
export interface DecodedBlock {
  header: Uint8Array;
  txns: readonly Uint8Array[];
}

const cache = new Map<string, { block: DecodedBlock; bytes: number }>();
let cachedBytes = 0;

function remember(hashHex: string, block: DecodedBlock): void {
  const bytes = block.txns.reduce((n, t) => n + t.length + PER_TXN_OVERHEAD, block.header.length);
  // A block bigger than a quarter of the cache would push out everything else: not kept.
  if (bytes > BLOCK_TXNS_CACHE_BYTES / 4) return;
  cache.set(hashHex, { block, bytes });
  cachedBytes += bytes;
  for (const [oldest, entry] of cache) {
    if (cachedBytes <= BLOCK_TXNS_CACHE_BYTES) break;
    cache.delete(oldest);
    cachedBytes -= entry.bytes;
  }
}

function cached(hashHex: string): DecodedBlock | undefined {
  const hit = cache.get(hashHex);
  if (hit === undefined) return undefined;
  // Most recently used last.
  cache.delete(hashHex);
  cache.set(hashHex, hit);
  return hit.block;
}

/** The block whose record the caller read already, decoded (or from the cache). */
export async function decodedBlock(hashHex: string, record: Pick<BlockRecord, 'header' | 'body'>): Promise<DecodedBlock> {
  const hit = cached(hashHex);
  if (hit !== undefined) return hit;
  const block = { header: record.header, txns: await unpackBlockBody(record.body) };
  if (!cache.has(hashHex)) remember(hashHex, block);
  return block;
}

/** The stored block with this hash, decoded; undefined when no block has it. A cached one costs no read. */
export async function readBlock(state: StateReader, hashHex: string): Promise<DecodedBlock | undefined> {
  const hit = cached(hashHex);
  if (hit !== undefined) return hit;
  const record = await state.get<BlockRecord>(chainKeys.block(hashHex));
  return record === undefined ? undefined : decodedBlock(hashHex, record);
}

/** A main-chain block at a height: its hash, height, header and transactions. */
export interface MainChainBlock extends DecodedBlock {
  hashHex: string;
  height: bigint;
}

/**
 * The main-chain blocks one request reads, by height: each read once, whatever the number of
 * its transactions the request shows (a page of notifications or of a key's transactions).
 */
export class MainChainBlocks {
  private readonly byHeight = new Map<number, Promise<MainChainBlock | undefined>>();

  constructor(private readonly state: StateReader) {}

  at(height: number): Promise<MainChainBlock | undefined> {
    let b = this.byHeight.get(height);
    if (b === undefined) {
      b = (async () => {
        const hashHex = await this.state.get<string>(chainKeys.hashAtHeight(BigInt(height)));
        const block = hashHex === undefined ? undefined : await readBlock(this.state, hashHex);
        return hashHex === undefined || block === undefined ? undefined : { hashHex, height: BigInt(height), ...block };
      })();
      this.byHeight.set(height, b);
    }
    return b;
  }
}
