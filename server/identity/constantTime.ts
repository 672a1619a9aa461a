/**
 * Equality of secret-derived bytes (MAC tags, HMACs) without a data-dependent early exit.
 * @module
 */
import { timingSafeEqual } from 'node:crypto';

/**
 * True when a and b hold the same bytes. Lengths are public (every tag we compare has a fixed
 * size), so a length mismatch returns at once; equal-length inputs are compared in time that
 * does not depend on where they differ. node:crypto's timingSafeEqual (OpenSSL CRYPTO_memcmp)
 * is used rather than a JS loop because the JIT gives no such guarantee for JS code; this is a
 * comparison, not key handling, so it does not need to live in the WASM core.
 */
export function bytesEqualConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
