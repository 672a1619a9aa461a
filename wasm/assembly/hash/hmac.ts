// HMAC-SHA-256 (RFC 2104; FIPS 198-1) over raw memory.
//
// Used with secret keys (RFC 6979 nonces, ECIES MAC keys), so nothing here branches on or
// indexes memory by a key byte: the key only flows through XOR and SHA-256, whose operations
// are data-independent. The only branches depend on the key's length, which is public.
//
// Stable entry point for other AS modules:
//   hmacSha256Into(key, keyLen, msg, msgLen, dst)
// and the keyed-context functions hmacSha256Key / hmacSha256Absorb / hmacSha256Finish for
// streaming (the JS wrapper streams messages larger than the I/O region through them).

import { SHA256_CTX_BYTES, sha256Absorb, sha256Finish, sha256Into, sha256Reset } from './sha256';

/** SHA-256 block size B in bytes (RFC 2104 §2). */
const BLOCK: i32 = 64;
/** RFC 2104 §2: ipad = the byte 0x36 repeated B times, as four bytes per u32 XOR. */
const IPAD32: u32 = 0x36363636;
/** RFC 2104 §2: opad = the byte 0x5C repeated B times. */
const OPAD32: u32 = 0x5c5c5c5c;

/** Bytes a caller reserves for one keyed context: the inner and the outer SHA-256 context. */
export const HMAC_CTX_BYTES: i32 = 2 * SHA256_CTX_BYTES;

/** The key padded to one block (RFC 2104 §2 step 1), then the same block XORed with a pad. */
const KEY_BLOCK: usize = memory.data(BLOCK, 16);
/** Inner digest H(K ^ ipad ‖ text), the outer hash's message. */
const INNER_DIGEST: usize = memory.data(32, 16);
/** Context behind the one-shot hmacSha256Into. */
const ONE_SHOT: usize = memory.data(HMAC_CTX_BYTES, 16);

@inline function innerCtx(ctx: usize): usize {
  return ctx;
}

@inline function outerCtx(ctx: usize): usize {
  return ctx + <usize>SHA256_CTX_BYTES;
}

/** KEY_BLOCK ^= a pad, four bytes at a time. */
@inline function xorPad(pad: u32): void {
  for (let i: usize = 0; i < <usize>BLOCK; i += 4) {
    store<u32>(KEY_BLOCK + i, load<u32>(KEY_BLOCK + i) ^ pad);
  }
}

/**
 * Keys the context at ctx: absorbs K0 ^ ipad into the inner hash and K0 ^ opad into the outer
 * one (RFC 2104 §2 steps 1-2 and 5), so a message can then be streamed into the inner hash.
 * K0 is the key zero-padded to 64 bytes, or SHA-256(key) zero-padded when the key is longer.
 */
export function hmacSha256Key(ctx: usize, key: usize, keyLen: i32): void {
  memory.fill(KEY_BLOCK, 0, BLOCK);
  if (keyLen > BLOCK) {
    sha256Into(key, keyLen, KEY_BLOCK);
  } else if (keyLen > 0) {
    memory.copy(KEY_BLOCK, key, keyLen);
  }
  xorPad(IPAD32);
  sha256Reset(innerCtx(ctx));
  sha256Absorb(innerCtx(ctx), KEY_BLOCK, BLOCK);
  // (K0 ^ ipad) ^ (ipad ^ opad) = K0 ^ opad, without keeping K0 itself around.
  xorPad(IPAD32 ^ OPAD32);
  sha256Reset(outerCtx(ctx));
  sha256Absorb(outerCtx(ctx), KEY_BLOCK, BLOCK);
  // Best-effort hygiene: key-derived bytes do not stay in shared scratch after the call. (The
  // SHA-256 schedule scratch still holds the last block hashed; WASM memory is private to its
  // thread, and the key itself sits in the caller's buffer anyway.)
  memory.fill(KEY_BLOCK, 0, BLOCK);
}

/** Adds message bytes to a keyed context (RFC 2104 §2 step 3-4, streamed). */
export function hmacSha256Absorb(ctx: usize, msg: usize, msgLen: i32): void {
  sha256Absorb(innerCtx(ctx), msg, msgLen);
}

/**
 * Finishes: tag = H(K0 ^ opad ‖ H(K0 ^ ipad ‖ text)) into dst[0..32) (RFC 2104 §2 steps 4-7).
 * The context holds key-derived chaining values, so it is wiped afterwards (same best-effort
 * hygiene as hmacSha256Key); key it again to reuse.
 */
export function hmacSha256Finish(ctx: usize, dst: usize): void {
  sha256Finish(innerCtx(ctx), INNER_DIGEST);
  sha256Absorb(outerCtx(ctx), INNER_DIGEST, 32);
  sha256Finish(outerCtx(ctx), dst);
  memory.fill(ctx, 0, HMAC_CTX_BYTES);
  memory.fill(INNER_DIGEST, 0, 32);
}

/**
 * HMAC-SHA-256 of [msg, msg+msgLen) under [key, key+keyLen) into dst[0..32).
 * dst may overlap key or msg: both are fully read before dst is written.
 */
export function hmacSha256Into(key: usize, keyLen: i32, msg: usize, msgLen: i32, dst: usize): void {
  hmacSha256Key(ONE_SHOT, key, keyLen);
  hmacSha256Absorb(ONE_SHOT, msg, msgLen);
  hmacSha256Finish(ONE_SHOT, dst);
}
