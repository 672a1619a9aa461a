/**
 * SHA-256, SHA-256d, HMAC-SHA-256 and DeSoHashV1 through the WASM core (wasm/assembly/hash/).
 *
 * Every function checks its arguments, copies them into the core's input region, calls one
 * export and copies the result out. Inputs larger than the region are streamed through the
 * init/update/final exports, so no length is capped by it. `fooInto(…, out)` writes into a
 * caller's buffer and allocates nothing; `foo(…)` returns a fresh array.
 * @module
 */
import { checkBytes, core, type CoreExports } from './core.js';

/** Digest bytes of SHA-256, SHA-256d, HMAC-SHA-256 and DeSoHashV1. */
export const DIGEST_BYTES = 32;
/** A v1 block header (node-api.md §5.5). */
export const HEADER_V1_BYTES = 100;
/** Offset of the u64 big-endian Nonce in a v1 header. */
export const HEADER_V1_NONCE_OFFSET = 84;
/** SHA3-256 rate: DeSoHashV1 streams in whole blocks of this size. */
const DESOHASH_RATE = 136;
/** Largest nonce count per mining call: the export's count is an i32. */
export const MAX_MINE_COUNT = 0x7fffffff;
const U64_MOD = 1n << 64n;

/** The hash exports of wasm/assembly/hash/index.ts. */
interface HashExports extends CoreExports {
  sha256(len: number): void;
  sha256d(len: number): void;
  sha256Init(): void;
  sha256Update(len: number): void;
  sha256Final(): void;
  sha256dFinal(): void;
  sha256Batch(itemLen: number, count: number): void;
  sha256dBatch(itemLen: number, count: number): void;
  hmacSha256(keyLen: number, msgLen: number): void;
  hmacSha256Init(keyLen: number): void;
  hmacSha256Update(len: number): void;
  hmacSha256Final(): void;
  desoHashV1(len: number): void;
  desoHashV1Init(): void;
  desoHashV1Update(len: number): void;
  desoHashV1Final(len: number): void;
  desoHashV1Batch(count: number): void;
  desoHashV1Mine(start: bigint, count: number): number;
}

interface HashCore {
  exports: HashExports;
  input: Uint8Array;
  output: Uint8Array;
  ioBytes: number;
}

let cached: HashCore | undefined;

/** This thread's core, typed for the hash exports (made once; the views never move). */
function hashCore(): HashCore {
  if (cached === undefined) {
    const c = core();
    cached = { exports: c.exports as HashExports, input: c.input, output: c.output, ioBytes: c.ioBytes };
  }
  return cached;
}

/** Checks an output buffer of exactly `length` bytes. */
function checkOut(out: unknown, length: number): asserts out is Uint8Array {
  checkBytes('out', out, length);
}

/** Copies the first `length` bytes of the output region into out. */
function copyOut(c: HashCore, out: Uint8Array, length: number): Uint8Array {
  out.set(c.output.subarray(0, length));
  return out;
}

/** Streams data through update(len) in chunks of at most `chunk` bytes. */
function stream(c: HashCore, data: Uint8Array, chunk: number, update: (len: number) => void): void {
  for (let off = 0; off < data.length; off += chunk) {
    const part = data.subarray(off, Math.min(off + chunk, data.length));
    c.input.set(part);
    update(part.length);
  }
}

/** Runs a SHA-256 stream over data (which does not fit the input region in one piece). */
function sha256Stream(c: HashCore, data: Uint8Array): void {
  c.exports.sha256Init();
  stream(c, data, c.ioBytes, c.exports.sha256Update);
}

/** SHA-256 (FIPS 180-4) of data into out (32 bytes); returns out. */
export function sha256Into(data: Uint8Array, out: Uint8Array): Uint8Array {
  checkBytes('data', data);
  checkOut(out, DIGEST_BYTES);
  const c = hashCore();
  if (data.length <= c.ioBytes) {
    c.input.set(data);
    c.exports.sha256(data.length);
  } else {
    sha256Stream(c, data);
    c.exports.sha256Final();
  }
  return copyOut(c, out, DIGEST_BYTES);
}

/** SHA-256 (FIPS 180-4) of data. */
export function sha256(data: Uint8Array): Uint8Array {
  return sha256Into(data, new Uint8Array(DIGEST_BYTES));
}

/** SHA-256d = SHA-256(SHA-256(data)) into out (32 bytes); returns out. */
export function sha256dInto(data: Uint8Array, out: Uint8Array): Uint8Array {
  checkBytes('data', data);
  checkOut(out, DIGEST_BYTES);
  const c = hashCore();
  if (data.length <= c.ioBytes) {
    c.input.set(data);
    c.exports.sha256d(data.length);
  } else {
    sha256Stream(c, data);
    c.exports.sha256dFinal();
  }
  return copyOut(c, out, DIGEST_BYTES);
}

/** SHA-256d = SHA-256(SHA-256(data)): DeSo transaction hashes and Merkle nodes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256dInto(data, new Uint8Array(DIGEST_BYTES));
}

/**
 * Hashes `items` (count × itemLen bytes, packed) with one batch export per input-region-full of
 * items; out receives count × 32 bytes in item order.
 */
function batchInto(
  items: Uint8Array,
  itemLen: number,
  out: Uint8Array,
  run: (e: HashExports, itemLen: number, count: number) => void,
  single: (data: Uint8Array, out: Uint8Array) => Uint8Array,
): Uint8Array {
  checkBytes('items', items);
  if (!Number.isSafeInteger(itemLen) || itemLen < 1) {
    throw new RangeError(`"itemLen" expected a positive integer, got ${itemLen}`);
  }
  if (items.length % itemLen !== 0) {
    throw new RangeError(`"items" expected a multiple of itemLen=${itemLen} bytes, got ${items.length}`);
  }
  const count = items.length / itemLen;
  checkOut(out, count * DIGEST_BYTES);
  const c = hashCore();
  if (itemLen > c.ioBytes) {
    // An item larger than the region cannot be batched: hash each through the stream path.
    for (let i = 0; i < count; i++) {
      single(items.subarray(i * itemLen, (i + 1) * itemLen), out.subarray(i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES));
    }
    return out;
  }
  // Both the items in and the digests out must fit their regions.
  const perCall = Math.floor(c.ioBytes / Math.max(itemLen, DIGEST_BYTES));
  for (let first = 0; first < count; first += perCall) {
    const n = Math.min(perCall, count - first);
    c.input.set(items.subarray(first * itemLen, (first + n) * itemLen));
    run(c.exports, itemLen, n);
    out.set(c.output.subarray(0, n * DIGEST_BYTES), first * DIGEST_BYTES);
  }
  return out;
}

/** SHA-256 of each itemLen-byte item of `items` into out (count × 32 bytes); returns out. */
export function sha256BatchInto(items: Uint8Array, itemLen: number, out: Uint8Array): Uint8Array {
  return batchInto(items, itemLen, out, (e, len, n) => e.sha256Batch(len, n), sha256Into);
}

/** SHA-256 of each itemLen-byte item of `items`, digests packed in item order. */
export function sha256Batch(items: Uint8Array, itemLen: number): Uint8Array {
  return sha256BatchInto(items, itemLen, new Uint8Array(batchOutBytes(items, itemLen)));
}

/** SHA-256d of each itemLen-byte item of `items` into out (count × 32 bytes); returns out. */
export function sha256dBatchInto(items: Uint8Array, itemLen: number, out: Uint8Array): Uint8Array {
  return batchInto(items, itemLen, out, (e, len, n) => e.sha256dBatch(len, n), sha256dInto);
}

/** SHA-256d of each itemLen-byte item of `items` (e.g. headers or txns of one size), packed in item order. */
export function sha256dBatch(items: Uint8Array, itemLen: number): Uint8Array {
  return sha256dBatchInto(items, itemLen, new Uint8Array(batchOutBytes(items, itemLen)));
}

/** Output size for a batch, or 0 so that batchInto reports the real argument error. */
function batchOutBytes(items: Uint8Array, itemLen: number): number {
  const ok = items instanceof Uint8Array && Number.isSafeInteger(itemLen) && itemLen > 0 && items.length % itemLen === 0;
  return ok ? (items.length / itemLen) * DIGEST_BYTES : 0;
}

/** HMAC-SHA-256 (RFC 2104) of msg under key into out (32 bytes); returns out. Any key length. */
export function hmacSha256Into(key: Uint8Array, msg: Uint8Array, out: Uint8Array): Uint8Array {
  checkBytes('key', key);
  checkBytes('msg', msg);
  checkOut(out, DIGEST_BYTES);
  const c = hashCore();
  if (key.length + msg.length <= c.ioBytes) {
    c.input.set(key);
    c.input.set(msg, key.length);
    c.exports.hmacSha256(key.length, msg.length);
  } else {
    // RFC 2104 §2: a key longer than the block is replaced by its hash; doing that here first
    // (same result) lets any key fit the region.
    const k = key.length > c.ioBytes ? sha256(key) : key;
    c.input.set(k);
    c.exports.hmacSha256Init(k.length);
    stream(c, msg, c.ioBytes, c.exports.hmacSha256Update);
    c.exports.hmacSha256Final();
  }
  // The key (secret) does not stay in the shared input region.
  c.input.fill(0, 0, Math.min(key.length, c.ioBytes));
  return copyOut(c, out, DIGEST_BYTES);
}

/** HMAC-SHA-256 (RFC 2104) of msg under key. */
export function hmacSha256(key: Uint8Array, msg: Uint8Array): Uint8Array {
  return hmacSha256Into(key, msg, new Uint8Array(DIGEST_BYTES));
}

/**
 * DeSoHashV1 (node-api.md §5.5) of data into out (32 bytes); returns out. A v1 header is 100
 * bytes; any length is accepted because the hash is defined for any input (the shared vectors
 * include 0-, 80- and 97-byte inputs).
 */
export function desoHashV1Into(data: Uint8Array, out: Uint8Array): Uint8Array {
  checkBytes('data', data);
  checkOut(out, DIGEST_BYTES);
  const c = hashCore();
  if (data.length <= c.ioBytes) {
    c.input.set(data);
    c.exports.desoHashV1(data.length);
  } else {
    // Whole rate blocks per update; the rest (< one chunk) goes to final.
    const chunk = Math.floor(c.ioBytes / DESOHASH_RATE) * DESOHASH_RATE;
    const whole = Math.floor((data.length - 1) / chunk) * chunk;
    c.exports.desoHashV1Init();
    stream(c, data.subarray(0, whole), chunk, c.exports.desoHashV1Update);
    const rest = data.subarray(whole);
    c.input.set(rest);
    c.exports.desoHashV1Final(rest.length);
  }
  return copyOut(c, out, DIGEST_BYTES);
}

/** DeSoHashV1 of data: the block hash and PoW hash of a 100-byte v1 header. */
export function desoHashV1(data: Uint8Array): Uint8Array {
  return desoHashV1Into(data, new Uint8Array(DIGEST_BYTES));
}

/** DeSoHashV1 of each 100-byte header in `headers` (n × 100 bytes) into out (n × 32 bytes); returns out. */
export function desoHashV1BatchInto(headers: Uint8Array, out: Uint8Array): Uint8Array {
  checkBytes('headers', headers);
  if (headers.length % HEADER_V1_BYTES !== 0) {
    throw new RangeError(`"headers" expected a multiple of ${HEADER_V1_BYTES} bytes, got ${headers.length}`);
  }
  const count = headers.length / HEADER_V1_BYTES;
  checkOut(out, count * DIGEST_BYTES);
  const c = hashCore();
  const perCall = Math.floor(c.ioBytes / HEADER_V1_BYTES);
  for (let first = 0; first < count; first += perCall) {
    const n = Math.min(perCall, count - first);
    c.input.set(headers.subarray(first * HEADER_V1_BYTES, (first + n) * HEADER_V1_BYTES));
    c.exports.desoHashV1Batch(n);
    out.set(c.output.subarray(0, n * DIGEST_BYTES), first * DIGEST_BYTES);
  }
  return out;
}

/** DeSoHashV1 of each 100-byte header in `headers` (n × 100 bytes), hashes packed in order (n × 32 bytes). */
export function desoHashV1Batch(headers: Uint8Array): Uint8Array {
  const n = headers instanceof Uint8Array && headers.length % HEADER_V1_BYTES === 0 ? headers.length / HEADER_V1_BYTES : 0;
  return desoHashV1BatchInto(headers, new Uint8Array(n * DIGEST_BYTES));
}

/** A nonce found by mineDesoHashV1 and the header hash it gives. */
export interface MinedNonce {
  nonce: bigint;
  hash: Uint8Array;
}

/**
 * Scans Nonce = startNonce, startNonce + 1, … (count values, wrapping mod 2^64) in the 100-byte
 * v1 header `template` (Nonce = u64 big-endian at byte 84; the other bytes are used as given)
 * and returns the first nonce whose DeSoHashV1, read as a big-endian integer, is <= the 32-byte
 * big-endian `target` (node-api.md §5.5), with that hash; null when none of them is.
 * One call is one synchronous WASM call of about 0.5 µs per nonce on the 2-core sandbox (two
 * nonces per SIMD pass), so pick `count` for the latency the calling thread can accept.
 */
export function mineDesoHashV1(
  template: Uint8Array,
  startNonce: bigint | number,
  count: number,
  target: Uint8Array,
): MinedNonce | null {
  checkBytes('template', template, HEADER_V1_BYTES);
  checkBytes('target', target, DIGEST_BYTES);
  const start = typeof startNonce === 'bigint' ? startNonce : Number.isSafeInteger(startNonce) ? BigInt(startNonce) : -1n;
  if (start < 0n || start >= U64_MOD) {
    throw new RangeError(`"startNonce" expected an integer in [0, 2^64), got ${startNonce}`);
  }
  if (!Number.isInteger(count) || count < 0 || count > MAX_MINE_COUNT) {
    throw new RangeError(`"count" expected an integer in [0, ${MAX_MINE_COUNT}], got ${count}`);
  }
  const c = hashCore();
  c.input.set(template);
  c.input.set(target, HEADER_V1_BYTES);
  // The export takes an i64; BigInt.asIntN passes the same 64 bits.
  const i = c.exports.desoHashV1Mine(BigInt.asIntN(64, start), count);
  if (i < 0) return null;
  return { nonce: (start + BigInt(i)) % U64_MOD, hash: c.output.slice(0, DIGEST_BYTES) };
}
