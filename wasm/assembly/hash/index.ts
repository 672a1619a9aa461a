// Exports of the hash area; see wasm/assembly/index.ts. Each export reads its input from the IN
// region and writes its result to the OUT region (wasm/assembly/io.ts); the JS wrappers in
// wasm/hash.ts check every length against the region size before calling, so these do not.

import { inputPtr, outputPtr } from '../io';
import { SHA256_CTX_BYTES, sha256Absorb, sha256Digest32Into, sha256Finish, sha256Into, sha256Reset, sha256dInto } from './sha256';
import { sha256x4Into } from './sha256x4';
import { HMAC_CTX_BYTES, hmacSha256Absorb, hmacSha256Finish, hmacSha256Into, hmacSha256Key } from './hmac';
import {
  HEADER_V1_BYTES,
  desoHashV1AbsorbBlocks,
  desoHashV1BatchInto,
  desoHashV1Finish,
  desoHashV1Into,
  desoHashV1MineInto,
  desoHashV1Reset,
} from './desohash';

/** The stream JS drives through sha256Init/Update/Final, apart from the AS one-shot contexts. */
const SHA256_STREAM: usize = memory.data(SHA256_CTX_BYTES, 16);
/** The keyed stream JS drives through hmacSha256Init/Update/Final. */
const HMAC_STREAM: usize = memory.data(HMAC_CTX_BYTES, 16);
/** First digest of a streamed SHA-256d. */
const STREAM_INNER: usize = memory.data(32, 16);

/** OUT[0..32) = SHA-256(IN[0..len)). */
export function sha256(len: i32): void {
  sha256Into(inputPtr(), len, outputPtr());
}

/** OUT[0..32) = SHA-256(SHA-256(IN[0..len))). */
export function sha256d(len: i32): void {
  sha256dInto(inputPtr(), len, outputPtr());
}

/** Starts a streamed SHA-256 (for inputs larger than IN). */
export function sha256Init(): void {
  sha256Reset(SHA256_STREAM);
}

/** Adds IN[0..len) to the streamed SHA-256. */
export function sha256Update(len: i32): void {
  sha256Absorb(SHA256_STREAM, inputPtr(), len);
}

/** OUT[0..32) = the streamed SHA-256. */
export function sha256Final(): void {
  sha256Finish(SHA256_STREAM, outputPtr());
}

/** OUT[0..32) = SHA-256 of the streamed SHA-256, i.e. SHA-256d of the stream. */
export function sha256dFinal(): void {
  sha256Finish(SHA256_STREAM, STREAM_INNER);
  sha256Digest32Into(STREAM_INNER, outputPtr());
}

/**
 * SHA-256 (or SHA-256d) of `count` consecutive itemLen-byte items: four at a time through the
 * 4-way SIMD code, the last 0-3 one by one.
 */
function batch(itemLen: i32, count: i32, double: bool): void {
  const src = inputPtr();
  const dst = outputPtr();
  const len = <usize>itemLen;
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    sha256x4Into(src + <usize>i * len, itemLen, dst + (<usize>i << 5), double);
  }
  for (; i < count; i++) {
    if (double) sha256dInto(src + <usize>i * len, itemLen, dst + (<usize>i << 5));
    else sha256Into(src + <usize>i * len, itemLen, dst + (<usize>i << 5));
  }
}

/** OUT[32i..32i+32) = SHA-256(IN[i·itemLen..(i+1)·itemLen)) for i < count. */
export function sha256Batch(itemLen: i32, count: i32): void {
  batch(itemLen, count, false);
}

/** OUT[32i..32i+32) = SHA-256d(IN[i·itemLen..(i+1)·itemLen)) for i < count (txn hashes, Merkle nodes). */
export function sha256dBatch(itemLen: i32, count: i32): void {
  batch(itemLen, count, true);
}

/** OUT[0..32) = HMAC-SHA-256 with key IN[0..keyLen) of message IN[keyLen..keyLen+msgLen). */
export function hmacSha256(keyLen: i32, msgLen: i32): void {
  const key = inputPtr();
  hmacSha256Into(key, keyLen, key + <usize>keyLen, msgLen, outputPtr());
}

/** Starts a streamed HMAC-SHA-256 keyed with IN[0..keyLen). */
export function hmacSha256Init(keyLen: i32): void {
  hmacSha256Key(HMAC_STREAM, inputPtr(), keyLen);
}

/** Adds IN[0..len) to the streamed HMAC message. */
export function hmacSha256Update(len: i32): void {
  hmacSha256Absorb(HMAC_STREAM, inputPtr(), len);
}

/** OUT[0..32) = the streamed HMAC tag; the stream must be keyed again before reuse. */
export function hmacSha256Final(): void {
  hmacSha256Finish(HMAC_STREAM, outputPtr());
}

/** OUT[0..32) = DeSoHashV1(IN[0..len)); any length, a v1 header being 100 bytes. */
export function desoHashV1(len: i32): void {
  desoHashV1Into(inputPtr(), len, outputPtr());
}

/** Starts a streamed DeSoHashV1 (for inputs larger than IN). */
export function desoHashV1Init(): void {
  desoHashV1Reset();
}

/** Adds IN[0..len) to the streamed DeSoHashV1; len must be a multiple of the 136-byte rate. */
export function desoHashV1Update(len: i32): void {
  desoHashV1AbsorbBlocks(inputPtr(), len);
}

/** Adds the last IN[0..len) (any length) and writes the streamed DeSoHashV1 to OUT[0..32). */
export function desoHashV1Final(len: i32): void {
  desoHashV1Finish(inputPtr(), len, outputPtr());
}

/** OUT[32i..32i+32) = DeSoHashV1 of the i-th 100-byte header in IN, for i < count. */
export function desoHashV1Batch(count: i32): void {
  desoHashV1BatchInto(inputPtr(), count, outputPtr());
}

/**
 * Mines the 100-byte header IN[0..100) against the 32-byte big-endian target IN[100..132):
 * tries Nonce = start + i for i < count and returns the first i whose hash <= target, with the
 * hash in OUT[0..32), or -1. `start` is a u64 (a BigInt on the JS side).
 */
export function desoHashV1Mine(start: u64, count: i32): i32 {
  const src = inputPtr();
  return desoHashV1MineInto(src, start, count, src + <usize>HEADER_V1_BYTES, outputPtr());
}
