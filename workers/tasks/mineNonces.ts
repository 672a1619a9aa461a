/**
 * mineNonces task: scans a range of nonces of one header template for a DeSoHashV1 at or
 * below the target (layouts in workers/types.ts).
 * @module
 */
import { MAX_MINE_COUNT, mineDesoHashV1 } from '../../wasm/hash.js';
import {
  HEADER_BYTES,
  MINE_REPLY_BYTES,
  MINE_REQUEST_BYTES,
  MineReplyOffset,
  MineRequestOffset,
  HASH_BYTES,
} from '../types.js';

const U64_MOD = 1n << 64n;

/**
 * request: header(100) ‖ startNonce(u64) ‖ count(u32) ‖ target(32) → reply: found(1) ‖
 * nonce(u64) ‖ hash(32). The wire count is a u32 but one WASM call takes at most
 * MAX_MINE_COUNT (2^31 - 1), so a larger scan is two calls.
 */
export function mineNonces(request: Uint8Array): Uint8Array {
  if (request.length !== MINE_REQUEST_BYTES) {
    throw new RangeError(`mineNonces request expected ${MINE_REQUEST_BYTES} bytes, got ${request.length}`);
  }
  const view = new DataView(request.buffer, request.byteOffset, request.byteLength);
  const header = request.subarray(MineRequestOffset.header, MineRequestOffset.header + HEADER_BYTES);
  const target = request.subarray(MineRequestOffset.target, MineRequestOffset.target + HASH_BYTES);
  let start = view.getBigUint64(MineRequestOffset.startNonce);
  let left = view.getUint32(MineRequestOffset.count);

  const reply = new Uint8Array(MINE_REPLY_BYTES);
  while (left > 0) {
    const n = Math.min(left, MAX_MINE_COUNT);
    const mined = mineDesoHashV1(header, start, n, target);
    if (mined !== null) {
      reply[MineReplyOffset.found] = 1;
      new DataView(reply.buffer).setBigUint64(MineReplyOffset.nonce, mined.nonce);
      reply.set(mined.hash, MineReplyOffset.hash);
      return reply;
    }
    left -= n;
    start = (start + BigInt(n)) % U64_MOD;
  }
  return reply;
}
