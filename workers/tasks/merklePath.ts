/**
 * merklePath task: the merkle path of a block's first leaf (reference node-api.md §5.5 tree),
 * computed from the other leaves alone (workers/types.ts). A block template varies only its
 * first transaction, the block reward with its extra nonce, so the path is computed once per
 * template and each header's root is then one hash per tree level (merkle.ts
 * `rootFromFirstLeafPath`), not a tree over every transaction.
 *
 * Why the other leaves suffice: at every level the first node's sibling is node 1, which
 * covers only leaves after the first; node 0 is never paired with itself while a level has
 * two or more nodes (only the last node of an odd level is).
 * @module
 */
import { sha256dBatch } from '../../wasm/hash.js';
import { HASH_BYTES } from '../types.js';

/** request: n × 32-byte hashes of leaves 1..n (n >= 0) → reply: k × 32-byte siblings, leaf level first. */
export function merklePath(request: Uint8Array): Uint8Array {
  if (request.length % HASH_BYTES !== 0) {
    throw new RangeError(`merklePath request expected a multiple of ${HASH_BYTES} bytes, got ${request.length}`);
  }
  const siblings: Uint8Array[] = [];
  // The level's nodes from index 1 on (node 0 is the unknown first leaf's ancestor).
  let rest = request;
  let count = request.length / HASH_BYTES + 1;
  while (count > 1) {
    siblings.push(rest.subarray(0, HASH_BYTES));
    // Next level's nodes 1..: pairs (2i, 2i+1) for i >= 1, the last node doubled on an odd level.
    const nextCount = Math.ceil(count / 2);
    const pairs = new Uint8Array((nextCount - 1) * 2 * HASH_BYTES);
    for (let i = 1; i < nextCount; i++) {
      const left = 2 * i;
      const right = left + 1 < count ? left + 1 : left;
      pairs.set(rest.subarray((left - 1) * HASH_BYTES, left * HASH_BYTES), (i - 1) * 2 * HASH_BYTES);
      pairs.set(rest.subarray((right - 1) * HASH_BYTES, right * HASH_BYTES), ((i - 1) * 2 + 1) * HASH_BYTES);
    }
    rest = pairs.length === 0 ? pairs : sha256dBatch(pairs, 2 * HASH_BYTES);
    count = nextCount;
  }
  const reply = new Uint8Array(siblings.length * HASH_BYTES);
  siblings.forEach((s, i) => reply.set(s, i * HASH_BYTES));
  return reply;
}
