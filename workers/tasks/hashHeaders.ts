/**
 * hashHeaders task: DeSoHashV1 of n 100-byte v1 headers (workers/types.ts), in one pass
 * through the WASM core's batch export.
 * @module
 */
import { desoHashV1Batch } from '../../wasm/hash.js';
import { HASH_BYTES, HEADER_BYTES } from '../types.js';

/** request: n × 100-byte headers → reply: n × 32-byte hashes, in order. */
export function hashHeaders(request: Uint8Array): Uint8Array {
  if (request.length % HEADER_BYTES !== 0) {
    throw new RangeError(`hashHeaders request expected a multiple of ${HEADER_BYTES} bytes, got ${request.length}`);
  }
  const reply = desoHashV1Batch(request);
  // desoHashV1Batch's contract; checked because a short reply would be read as wrong hashes.
  if (reply.length !== (request.length / HEADER_BYTES) * HASH_BYTES) throw new RangeError('hashHeaders: short reply');
  return reply;
}
