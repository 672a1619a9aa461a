/**
 * sign task: deterministic (RFC 6979) low-S ECDSA over 32-byte hashes, for the identity
 * service; one status ‖ signature ‖ recovery id per item (layout in workers/types.ts).
 * @module
 */
import { isValidPrivateKey, sign as ecdsaSign } from '../../wasm/secp256k1.js';
import {
  HASH_BYTES,
  ItemStatus,
  PRIVATE_KEY_BYTES,
  SIGN_ITEM_BYTES,
  SIGN_REPLY_BYTES,
  SignItemOffset,
  SignReplyOffset,
} from '../types.js';

/**
 * request: n × (privateKey ‖ hash) → reply: n × (status ‖ r‖s ‖ recovery). The request holds
 * private keys, so it is zeroed before returning; an invalid key (0 or ≥ n) fails its item
 * alone.
 */
export function sign(request: Uint8Array): Uint8Array {
  if (request.length % SIGN_ITEM_BYTES !== 0) {
    throw new RangeError(`sign request expected a multiple of ${SIGN_ITEM_BYTES} bytes, got ${request.length}`);
  }
  const count = request.length / SIGN_ITEM_BYTES;
  const reply = new Uint8Array(count * SIGN_REPLY_BYTES);
  try {
    for (let i = 0; i < count; i++) {
      const at = i * SIGN_ITEM_BYTES;
      const out = i * SIGN_REPLY_BYTES;
      const key = request.subarray(at + SignItemOffset.privateKey, at + SignItemOffset.privateKey + PRIVATE_KEY_BYTES);
      if (!isValidPrivateKey(key)) {
        reply[out + SignReplyOffset.status] = ItemStatus.BadPrivateKey;
        continue;
      }
      const sig = ecdsaSign(request.subarray(at + SignItemOffset.hash, at + SignItemOffset.hash + HASH_BYTES), key);
      reply[out + SignReplyOffset.status] = ItemStatus.Ok;
      reply.set(sig.compact, out + SignReplyOffset.signature);
      reply[out + SignReplyOffset.recovery] = sig.recovery;
    }
  } finally {
    request.fill(0);
  }
  return reply;
}
