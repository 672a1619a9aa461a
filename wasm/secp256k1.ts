/**
 * secp256k1 (keys, ECDSA, recovery, ECDH) on the WASM core: typed wrapper over the
 * `secp256k1*` exports of wasm/assembly/secp256k1/index.ts.
 *
 * Inputs are copied into the core's IN region and results copied out of OUT (wasm/core.ts);
 * returned arrays are fresh copies. Lengths and types are checked here and throw
 * `TypeError`/`RangeError` (`"hash" expected 32 bytes, got 31`); invalid *values* of public
 * data (a signature that does not verify, a malformed DER signature, a public key that is not
 * a curve point) make `verify` return false and `recoverPublicKey` return null. Private keys
 * never appear in messages, and the core wipes them from IN after each call.
 *
 * Encodings: hashes are 32 bytes (the message is hashed by the caller: DeSo signs
 * sha256d(txn) directly); compact signatures are r ‖ s (64 bytes, big-endian); DER is strict
 * (`30 len 02 rlen r 02 slen s`, minimal, no padding beyond the sign byte, nothing trailing),
 * as the DeSo node parses it. "DeSo-DER" (node-api.md §5.4) replaces the 0x30 header with
 * 0x31 + recoveryId for derived-key signatures.
 * @module
 */
import { checkBytes, core, type Core } from './core.js';

interface SecpExports {
  secp256k1Init(): void;
  secp256k1PublicKey(compressed: number): number;
  secp256k1PrivateKeyValid(): number;
  secp256k1PublicKeyConvert(pubLen: number, compressed: number): number;
  secp256k1Sign(extraLen: number): number;
  secp256k1Verify(pubLen: number, flags: number): number;
  secp256k1VerifyBatch(count: number): number;
  secp256k1Recover(recid: number, compressed: number): number;
  secp256k1Ecdh(pubLen: number): number;
}

/** Bytes of one verifyBatch record: flags(1) ‖ public key(65) ‖ hash(32) ‖ r‖s(64). */
export const VERIFY_RECORD_BYTES = 162;
/** Record flag: reject high-S signatures. */
export const VERIFY_FLAG_LOW_S = 1;

let cached: { c: Core; x: SecpExports } | undefined;

function wasm(): { c: Core; x: SecpExports } {
  if (cached === undefined) {
    const c = core();
    cached = { c, x: c.exports as unknown as SecpExports };
  }
  return cached;
}

function invalidSecret(): RangeError {
  return new RangeError('"secretKey" expected a valid secp256k1 private key (1 <= d < n)');
}

function invalidPoint(title: string): RangeError {
  return new RangeError(`"${title}" expected a valid secp256k1 point`);
}

/** Builds the precomputed tables now instead of on the first operation (≈ 8 ms). */
export function init(): void {
  wasm().x.secp256k1Init();
}

/** True for 32 bytes encoding an integer in [1, n). Constant time in the key. */
export function isValidPrivateKey(secretKey: Uint8Array): boolean {
  checkBytes('secretKey', secretKey);
  if (secretKey.length !== 32) return false;
  const { c, x } = wasm();
  c.input.set(secretKey, 0);
  return x.secp256k1PrivateKeyValid() === 1;
}

/** The public key of a private key: 33 bytes compressed (default) or 65 uncompressed. */
export function getPublicKey(secretKey: Uint8Array, compressed = true): Uint8Array {
  checkBytes('secretKey', secretKey, 32);
  const { c, x } = wasm();
  c.input.set(secretKey, 0);
  const len = x.secp256k1PublicKey(compressed ? 1 : 0);
  if (len === 0) throw invalidSecret();
  return c.output.slice(0, len);
}

function convert(publicKey: Uint8Array, compressed: boolean): number {
  const { c, x } = wasm();
  c.input.set(publicKey, 0);
  return x.secp256k1PublicKeyConvert(publicKey.length, compressed ? 1 : 0);
}

/** True for a 33- or 65-byte encoding of a point on the curve (02/03/04 prefixes only). */
export function isValidPublicKey(publicKey: Uint8Array): boolean {
  checkBytes('publicKey', publicKey);
  if (publicKey.length !== 33 && publicKey.length !== 65) return false;
  return convert(publicKey, true) !== 0;
}

/** The 33-byte form of a valid public key (33 or 65 bytes). */
export function compress(publicKey: Uint8Array): Uint8Array {
  checkBytes('publicKey', publicKey, 33, 65);
  const len = convert(publicKey, true);
  if (len === 0) throw invalidPoint('publicKey');
  return wasm().c.output.slice(0, len);
}

/** The 65-byte form of a valid public key (33 or 65 bytes). */
export function decompress(publicKey: Uint8Array): Uint8Array {
  checkBytes('publicKey', publicKey, 33, 65);
  const len = convert(publicKey, false);
  if (len === 0) throw invalidPoint('publicKey');
  return wasm().c.output.slice(0, len);
}

// ---------------------------------------------------------------------------------------
// DER
// ---------------------------------------------------------------------------------------

/** Reads one strict DER INTEGER at der[off] into out[outOff..outOff+32); returns the next offset or -1. */
function readDerInteger(der: Uint8Array, off: number, out: Uint8Array, outOff: number): number {
  if (off + 2 > der.length || der[off] !== 0x02) return -1;
  const len = der[off + 1]!;
  const start = off + 2;
  const end = start + len;
  if (len === 0 || end > der.length) return -1;
  const first = der[start]!;
  if (first & 0x80) return -1; // negative
  if (len > 1 && first === 0 && !(der[start + 1]! & 0x80)) return -1; // non-minimal padding
  const value = first === 0 && len > 1 ? der.subarray(start + 1, end) : der.subarray(start, end);
  if (value.length > 32) return -1;
  out.fill(0, outOff, outOff + 32);
  out.set(value, outOff + 32 - value.length);
  return end;
}

/**
 * Strict DER `30 len 02 rlen r 02 slen s` → 64-byte r ‖ s, or null if malformed (BER forms,
 * long-form lengths, negative or padded integers, integers over 32 bytes, trailing bytes).
 * The ranges of r and s (1..n−1) are checked by verify.
 */
export function parseDer(der: Uint8Array): Uint8Array | null {
  checkBytes('signature', der);
  // 8 = two one-byte integers; 72 = two 33-byte integers. Both lengths fit the short form.
  if (der.length < 8 || der.length > 72 || der[0] !== 0x30 || der[1] !== der.length - 2) return null;
  const out = new Uint8Array(64);
  const next = readDerInteger(der, 2, out, 0);
  if (next < 0) return null;
  const end = readDerInteger(der, next, out, 32);
  if (end !== der.length) return null;
  return out;
}

function derInteger(v: Uint8Array): number[] {
  let i = 0;
  while (i < 31 && v[i] === 0) i++;
  const body = Array.from(v.subarray(i));
  if (body[0]! & 0x80) body.unshift(0);
  return [0x02, body.length, ...body];
}

/** 64-byte r ‖ s → minimal DER. */
export function toDer(compact: Uint8Array): Uint8Array {
  checkBytes('signature', compact, 64);
  const r = derInteger(compact.subarray(0, 32));
  const s = derInteger(compact.subarray(32, 64));
  return Uint8Array.from([0x30, r.length + s.length, ...r, ...s]);
}

/**
 * A DeSo transaction signature: standard DER (header 0x30, recovery null) or DeSo-DER
 * (header 0x31 + recoveryId). Null if malformed or the header is outside 0x30..0x34.
 */
export function parseDesoDer(sig: Uint8Array): { compact: Uint8Array; recovery: number | null } | null {
  checkBytes('signature', sig);
  if (sig.length < 1) return null;
  const header = sig[0]!;
  if (header < 0x30 || header > 0x34) return null;
  const der = header === 0x30 ? sig : Uint8Array.from(sig);
  der[0] = 0x30;
  const compact = parseDer(der);
  if (compact === null) return null;
  return { compact, recovery: header === 0x30 ? null : header - 0x31 };
}

/** DeSo-DER encoding of a compact signature with its recovery id (header 0x31 + recovery). */
export function toDesoDer(compact: Uint8Array, recovery: number): Uint8Array {
  if (!Number.isInteger(recovery) || recovery < 0 || recovery > 3) {
    throw new RangeError(`"recovery" expected an integer 0..3, got ${recovery}`);
  }
  const der = toDer(compact);
  der[0] = 0x31 + recovery;
  return der;
}

// ---------------------------------------------------------------------------------------
// ECDSA
// ---------------------------------------------------------------------------------------

export interface SignOpts {
  /**
   * RFC 6979 §3.6 additional data k′ mixed into the nonce (noble's `extraEntropy`; the
   * deso-protocol SDK passes 32 random bytes). Omit for plain deterministic RFC 6979.
   */
  extraEntropy?: Uint8Array;
}

export interface Signature {
  /** r ‖ s, 64 bytes, s ≤ n/2. */
  compact: Uint8Array;
  /** 0..3: bit 0 = parity of R.y, bit 1 = R.x ≥ n. */
  recovery: number;
}

/** RFC 6979 deterministic ECDSA over a 32-byte hash, low-S. Constant time in key and nonce. */
export function sign(hash: Uint8Array, secretKey: Uint8Array, opts: SignOpts = {}): Signature {
  checkBytes('hash', hash, 32);
  checkBytes('secretKey', secretKey, 32);
  const extra = opts.extraEntropy;
  if (extra !== undefined) checkBytes('extraEntropy', extra);
  const { c, x } = wasm();
  const extraLen = extra?.length ?? 0;
  if (64 + extraLen > c.ioBytes) throw new RangeError(`"extraEntropy" expected at most ${c.ioBytes - 64} bytes, got ${extraLen}`);
  c.input.set(hash, 0);
  c.input.set(secretKey, 32);
  if (extra !== undefined) c.input.set(extra, 64);
  if (x.secp256k1Sign(extraLen) !== 1) throw invalidSecret();
  return { compact: c.output.slice(0, 64), recovery: c.output[64]! };
}

/** sign() encoded as strict DER (the DeSo transaction signature format). */
export function signDer(hash: Uint8Array, secretKey: Uint8Array, opts: SignOpts = {}): Uint8Array {
  return toDer(sign(hash, secretKey, opts).compact);
}

export interface VerifyOpts {
  /** Reject s > n/2 (DeSo's RuleErrorTxnSigHasHighS, BIP 62). Default true, as noble. */
  lowS?: boolean;
}

function compactOf(signature: Uint8Array): Uint8Array | null {
  return signature.length === 64 ? signature : parseDer(signature);
}

/**
 * Verifies a signature (64-byte compact or strict DER) of a 32-byte hash by a public key
 * (33 or 65 bytes). False for anything that does not verify, including malformed signatures
 * and invalid public keys. A 64-byte signature is always read as compact (a DER encoding
 * that short needs r or s below 2^232, which no honest signer produces); callers that must
 * insist on DER (transactions) use parseDer/parseDesoDer first.
 */
export function verify(signature: Uint8Array, hash: Uint8Array, publicKey: Uint8Array, opts: VerifyOpts = {}): boolean {
  checkBytes('signature', signature);
  checkBytes('hash', hash, 32);
  checkBytes('publicKey', publicKey);
  const compact = compactOf(signature);
  if (compact === null || (publicKey.length !== 33 && publicKey.length !== 65)) return false;
  const { c, x } = wasm();
  c.input.set(hash, 0);
  c.input.set(compact, 32);
  c.input.set(publicKey, 96);
  return x.secp256k1Verify(publicKey.length, opts.lowS === false ? 0 : VERIFY_FLAG_LOW_S) === 1;
}

export interface VerifyItem {
  signature: Uint8Array;
  hash: Uint8Array;
  publicKey: Uint8Array;
  /** Default true. */
  lowS?: boolean;
}

/**
 * Writes item as one VERIFY_RECORD_BYTES record at dst[off]; false (nothing written) when the
 * item cannot verify anyway (malformed DER, wrong lengths). For callers that pack batches
 * themselves (the worker pool).
 */
export function packVerifyRecord(dst: Uint8Array, off: number, item: VerifyItem): boolean {
  const { signature, hash, publicKey } = item;
  if (!(signature instanceof Uint8Array) || !(hash instanceof Uint8Array) || !(publicKey instanceof Uint8Array)) return false;
  const compact = compactOf(signature);
  if (compact === null || hash.length !== 32 || (publicKey.length !== 33 && publicKey.length !== 65)) return false;
  dst[off] = item.lowS === false ? 0 : VERIFY_FLAG_LOW_S;
  dst.fill(0, off + 1, off + 66);
  dst.set(publicKey, off + 1);
  dst.set(hash, off + 66);
  dst.set(compact, off + 98);
  return true;
}

/**
 * Verifies every item; result[i] is item i's outcome. A malformed item only fails itself.
 * Runs in chunks of as many records as the IN region holds.
 */
export function verifyBatch(items: readonly VerifyItem[]): boolean[] {
  const { c, x } = wasm();
  const results = new Array<boolean>(items.length).fill(false);
  const perCall = Math.floor(c.ioBytes / VERIFY_RECORD_BYTES);
  const index: number[] = [];
  const flush = (): void => {
    if (index.length === 0) return;
    x.secp256k1VerifyBatch(index.length);
    for (let j = 0; j < index.length; j++) results[index[j]!] = c.output[j] === 1;
    index.length = 0;
  };
  for (let i = 0; i < items.length; i++) {
    if (packVerifyRecord(c.input, index.length * VERIFY_RECORD_BYTES, items[i]!)) index.push(i);
    if (index.length === perCall) flush();
  }
  flush();
  return results;
}

/**
 * Verifies `count` records already packed back to back in `packed` (VERIFY_RECORD_BYTES
 * each, see packVerifyRecord), e.g. a buffer a worker received whole. Returns one byte per
 * record: 1 verified, 0 not.
 */
export function verifyBatchPacked(packed: Uint8Array, count: number): Uint8Array {
  checkBytes('packed', packed);
  if (!Number.isInteger(count) || count < 0 || count * VERIFY_RECORD_BYTES > packed.length) {
    throw new RangeError(`"count" expected an integer in [0, ${Math.floor(packed.length / VERIFY_RECORD_BYTES)}], got ${count}`);
  }
  const { c, x } = wasm();
  const out = new Uint8Array(count);
  const perCall = Math.floor(c.ioBytes / VERIFY_RECORD_BYTES);
  for (let start = 0; start < count; start += perCall) {
    const n = Math.min(perCall, count - start);
    c.input.set(packed.subarray(start * VERIFY_RECORD_BYTES, (start + n) * VERIFY_RECORD_BYTES), 0);
    x.secp256k1VerifyBatch(n);
    out.set(c.output.subarray(0, n), start);
  }
  return out;
}

/**
 * The public key (33 bytes, or 65 if !compressed) that produced compact signature r ‖ s over
 * hash with the given recovery id, or null if none does.
 */
export function recoverPublicKey(hash: Uint8Array, compact: Uint8Array, recovery: number, compressed = true): Uint8Array | null {
  checkBytes('hash', hash, 32);
  checkBytes('signature', compact, 64);
  if (!Number.isInteger(recovery) || recovery < 0 || recovery > 3) {
    throw new RangeError(`"recovery" expected an integer 0..3, got ${recovery}`);
  }
  const { c, x } = wasm();
  c.input.set(hash, 0);
  c.input.set(compact, 32);
  const len = x.secp256k1Recover(recovery, compressed ? 1 : 0);
  return len === 0 ? null : c.output.slice(0, len);
}

// ---------------------------------------------------------------------------------------
// ECDH
// ---------------------------------------------------------------------------------------

/**
 * x coordinate of secretKey·publicKey, always 32 bytes (leading zeros kept, as the
 * deso-protocol SDK does; the identity frame's minimal-length quirk is the ECIES layer's
 * concern). Throws for an invalid public key or private key. Constant time in the key.
 */
export function ecdh(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  checkBytes('secretKey', secretKey, 32);
  checkBytes('publicKey', publicKey, 33, 65);
  const { c, x } = wasm();
  c.input.set(secretKey, 0);
  c.input.set(publicKey, 32);
  const res = x.secp256k1Ecdh(publicKey.length);
  if (res === 0) throw invalidPoint('publicKey');
  if (res < 0) throw invalidSecret();
  const shared = c.output.slice(0, 32);
  c.output.fill(0, 0, 32); // the shared secret does not stay in OUT
  return shared;
}
