/**
 * ecdh task: shared secrets (x coordinate of privateKey × publicKey) for the identity
 * service's encryption; one status ‖ secret per item (layout in workers/types.ts).
 * @module
 */
import { ecdh as sharedSecret, isValidPrivateKey } from '../../wasm/secp256k1.js';
import {
  ECDH_ITEM_BYTES,
  ECDH_REPLY_BYTES,
  EcdhItemOffset,
  EcdhReplyOffset,
  ItemStatus,
  PRIVATE_KEY_BYTES,
  PUBLIC_KEY_BYTES,
} from '../types.js';

/**
 * request: n × (privateKey ‖ publicKey) → reply: n × (status ‖ secret). A bad key fails its
 * item with a precise status rather than an exception; the request (private keys) is zeroed
 * before returning.
 */
export function ecdh(request: Uint8Array): Uint8Array {
  if (request.length % ECDH_ITEM_BYTES !== 0) {
    throw new RangeError(`ecdh request expected a multiple of ${ECDH_ITEM_BYTES} bytes, got ${request.length}`);
  }
  const count = request.length / ECDH_ITEM_BYTES;
  const reply = new Uint8Array(count * ECDH_REPLY_BYTES);
  try {
    for (let i = 0; i < count; i++) {
      const at = i * ECDH_ITEM_BYTES;
      const out = i * ECDH_REPLY_BYTES;
      const key = request.subarray(at + EcdhItemOffset.privateKey, at + EcdhItemOffset.privateKey + PRIVATE_KEY_BYTES);
      const pub = request.subarray(at + EcdhItemOffset.publicKey, at + EcdhItemOffset.publicKey + PUBLIC_KEY_BYTES);
      let status: ItemStatus = ItemStatus.BadPrivateKey;
      if (isValidPrivateKey(key)) {
        // ecdh parses (and so validates) the public key itself; checking it first would
        // decompress it twice (~9 µs an item).
        try {
          reply.set(sharedSecret(key, pub), out + EcdhReplyOffset.secret);
          status = ItemStatus.Ok;
        } catch {
          status = ItemStatus.BadPublicKey;
        }
      }
      reply[out + EcdhReplyOffset.status] = status;
    }
  } finally {
    request.fill(0);
  }
  return reply;
}
