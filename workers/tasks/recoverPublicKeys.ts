/**
 * recoverPublicKeys task: the public key behind each (hash, compact signature, recovery id),
 * for DeSo-DER transaction signatures, whose header names the recovery id so the signer (a
 * derived key) need not be named anywhere else. One status ‖ key per item (layout in
 * workers/types.ts).
 * @module
 */
import { recoverPublicKey } from '../../wasm/secp256k1.js';
import {
  COMPACT_SIGNATURE_BYTES,
  HASH_BYTES,
  ItemStatus,
  RECOVER_ITEM_BYTES,
  RECOVER_REPLY_BYTES,
  RecoverItemOffset,
  RecoverReplyOffset,
} from '../types.js';

/** request: n × (hash ‖ r‖s ‖ recovery) → reply: n × (status ‖ compressed public key). */
export function recoverPublicKeys(request: Uint8Array): Uint8Array {
  if (request.length % RECOVER_ITEM_BYTES !== 0) {
    throw new RangeError(`recoverPublicKeys request expected a multiple of ${RECOVER_ITEM_BYTES} bytes, got ${request.length}`);
  }
  const count = request.length / RECOVER_ITEM_BYTES;
  const reply = new Uint8Array(count * RECOVER_REPLY_BYTES);
  for (let i = 0; i < count; i++) {
    const at = i * RECOVER_ITEM_BYTES;
    const out = i * RECOVER_REPLY_BYTES;
    const recovery = request[at + RecoverItemOffset.recovery]!;
    if (recovery > 3) {
      reply[out + RecoverReplyOffset.status] = ItemStatus.BadRecoveryId;
      continue;
    }
    const hash = request.subarray(at + RecoverItemOffset.hash, at + RecoverItemOffset.hash + HASH_BYTES);
    const signature = request.subarray(at + RecoverItemOffset.signature, at + RecoverItemOffset.signature + COMPACT_SIGNATURE_BYTES);
    const publicKey = recoverPublicKey(hash, signature, recovery, true);
    if (publicKey === null) {
      reply[out + RecoverReplyOffset.status] = ItemStatus.Unrecoverable;
      continue;
    }
    reply[out + RecoverReplyOffset.status] = ItemStatus.Ok;
    reply.set(publicKey, out + RecoverReplyOffset.publicKey);
  }
  return reply;
}
