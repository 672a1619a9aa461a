/**
 * verifySignatures task: ECDSA checks of a batch of (publicKey, hash, signature, flags) items
 * (layout in workers/types.ts), one status byte per item.
 *
 * The whole batch goes through the core's batch export first; only items that fail are looked
 * at again, to tell a bad signature from a malformed one (a public key off the curve, r or s
 * out of range). Valid signatures, the common case, pay for nothing extra.
 * @module
 */
import { isValidPublicKey, verifyBatch, type VerifyItem } from '../../wasm/secp256k1.js';
import {
  COMPACT_SIGNATURE_BYTES,
  HASH_BYTES,
  ItemStatus,
  PUBLIC_KEY_BYTES,
  VERIFY_FLAGS_KNOWN,
  VERIFY_ITEM_BYTES,
  VerifyFlags,
  VerifyItemOffset,
} from '../types.js';

/** secp256k1 group order n, big-endian (SEC 2 v2, §2.4.1). */
const CURVE_ORDER = Uint8Array.from(Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex'));

/** True for a 32-byte big-endian integer in [1, n-1], the range of r and s. */
function isScalarInRange(v: Uint8Array): boolean {
  return v.some((b) => b !== 0) && Buffer.compare(v, CURVE_ORDER) < 0;
}

/** Why a failed item failed: malformed input is an error, anything else a plain mismatch. */
function diagnose(item: VerifyItem): ItemStatus {
  if (!isValidPublicKey(item.publicKey)) return ItemStatus.BadPublicKey;
  const sig = item.signature;
  if (!isScalarInRange(sig.subarray(0, 32)) || !isScalarInRange(sig.subarray(32, 64))) return ItemStatus.BadSignature;
  return ItemStatus.Invalid;
}

/** request: n × 130-byte items → reply: n status bytes (Ok = valid, Invalid, Bad*). */
export function verifySignatures(request: Uint8Array): Uint8Array {
  if (request.length % VERIFY_ITEM_BYTES !== 0) {
    throw new RangeError(`verifySignatures request expected a multiple of ${VERIFY_ITEM_BYTES} bytes, got ${request.length}`);
  }
  const count = request.length / VERIFY_ITEM_BYTES;
  const reply = new Uint8Array(count);
  const items: VerifyItem[] = [];
  const slots: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * VERIFY_ITEM_BYTES;
    const flags = request[at + VerifyItemOffset.flags]!;
    if ((flags & ~VERIFY_FLAGS_KNOWN) !== 0) {
      reply[i] = ItemStatus.BadFlags;
      continue;
    }
    const field = (offset: number, bytes: number): Uint8Array => request.subarray(at + offset, at + offset + bytes);
    items.push({
      publicKey: field(VerifyItemOffset.publicKey, PUBLIC_KEY_BYTES),
      hash: field(VerifyItemOffset.hash, HASH_BYTES),
      signature: field(VerifyItemOffset.signature, COMPACT_SIGNATURE_BYTES),
      lowS: (flags & VerifyFlags.LowS) !== 0,
    });
    slots.push(i);
  }
  const valid = verifyBatch(items);
  for (let j = 0; j < items.length; j++) {
    reply[slots[j]!] = valid[j] ? ItemStatus.Ok : diagnose(items[j]!);
  }
  return reply;
}
