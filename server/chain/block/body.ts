/**
 * A block's transactions as the store keeps them (BlockRecord.body): each signed transaction
 * with its length as a uvarint, the whole run deflated (raw deflate, no zlib header).
 *
 * Why: blocks are kept forever and were most of the bytes of history. Transactions in one block
 * repeat a lot of bytes across and within themselves (a DM names its sender's and recipient's
 * keys twice each; the followers of one creator, the likers of one post name the same key and
 * hash), which per-transaction compression cannot see. Measured on bench:scale's mix: 366 B a
 * transaction raw; per block, 206 deflated (zlib level 6, 5 µs a transaction), 199 with brotli
 * at quality 5 (14 µs), 198 at quality 11 (50 times slower); 292 deflated one by one. Deflate:
 * a block commits only once its body is packed, and brotli's wait (8-21 ms for 300-transaction
 * blocks on a busy 2-core machine) held up the block and so every write behind it. Compression
 * runs on the libuv thread pool (`packBlockBody`), never on the event loop.
 * @module
 */
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw, inflateRawSync } from 'node:zlib';
import { encodeUvarint, Reader } from '../txn/varint.js';

const compress = promisify(deflateRaw);
const decompress = promisify(inflateRaw);

/**
 * Bodies up to this many stored bytes decompress on the event loop (~0.1 ms for 32 KB; a
 * thread-pool hop costs about that much); larger ones on the thread pool.
 */
const DECOMPRESS_INLINE_MAX_BYTES = 32 * 1024;

/** Most bytes a body decompresses to: a block is at most a few MB (ChainParams.maxBlockSizeBytes). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export class BlockBodyError extends Error {
  constructor(message: string) {
    super(`block body: ${message}`);
    this.name = 'BlockBodyError';
  }
}

/** The stored body of these transactions (block reward first, as in the block). */
export async function packBlockBody(txns: readonly Uint8Array[]): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (const t of txns) parts.push(encodeUvarint(t.length), t);
  return new Uint8Array(await compress(Buffer.concat(parts)));
}

/** The transactions of a stored body, in block order. */
export async function unpackBlockBody(body: Uint8Array): Promise<Uint8Array[]> {
  let raw: Buffer;
  try {
    raw =
      body.length <= DECOMPRESS_INLINE_MAX_BYTES
        ? inflateRawSync(body, { maxOutputLength: MAX_BODY_BYTES })
        : await decompress(body, { maxOutputLength: MAX_BODY_BYTES });
  } catch (e) {
    throw new BlockBodyError(`does not decompress: ${(e as Error).message}`);
  }
  return splitTxns(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
}

function splitTxns(raw: Uint8Array): Uint8Array[] {
  const r = new Reader(raw);
  const txns: Uint8Array[] = [];
  try {
    while (r.remaining > 0) txns.push(r.varBytes('transaction'));
  } catch (e) {
    throw new BlockBodyError((e as Error).message);
  }
  return txns;
}
