/**
 * Transaction signatures as DeSo writes them (identity-and-crypto.md §2.6): minimal DER
 * (`30 len 02 rlen r 02 slen s`), or DeSo-DER for a derived key, whose header byte 0x31..0x34
 * carries the recovery id. Chain rules read them, the identity service writes them.
 * @module
 */
import { TxnDecodeError } from './errors.js';


/** Header of a standard DER SEQUENCE; DeSo-DER uses DER_HEADER + 1 + recoveryId. */
const DER_HEADER = 0x30;
const DESO_DER_MAX_HEADER = DER_HEADER + 1 + 3;
/** Two one-byte integers: 30 06 02 01 r 02 01 s. */
const DER_MIN_BYTES = 8;
/** Two 33-byte integers (32 bytes plus a 0x00 sign pad). Short-form lengths only, then. */
const DER_MAX_BYTES = 72;

function derInteger(value: Uint8Array): Uint8Array {
  let i = 0;
  while (i < value.length - 1 && value[i] === 0) i++;
  const body = value.subarray(i);
  const pad = (body[0]! & 0x80) !== 0 ? 1 : 0;
  const out = new Uint8Array(2 + pad + body.length);
  out[0] = 0x02;
  out[1] = pad + body.length;
  out.set(body, 2 + pad);
  return out;
}

/**
 * 64-byte compact r ‖ s → minimal DER `30 len 02 rlen r 02 slen s`: leading zero bytes stripped
 * (a zero integer stays one 00 byte), one 00 prepended when the high bit is set. With a
 * `recoveryId` (0..3), DeSo-DER: header 0x31 + recoveryId.
 * @throws {RangeError} when `compact64` is not 64 bytes or `recoveryId` is not 0..3
 */
export function encodeDerSignature(compact64: Uint8Array, recoveryId?: number): Uint8Array {
  if (!(compact64 instanceof Uint8Array) || compact64.length !== 64) {
    throw new RangeError(`"compact64" expected 64 bytes, got ${compact64 instanceof Uint8Array ? compact64.length : typeof compact64}`);
  }
  if (recoveryId !== undefined && !(Number.isInteger(recoveryId) && recoveryId >= 0 && recoveryId <= 3)) {
    throw new RangeError(`"recoveryId" expected 0..3, got ${recoveryId}`);
  }
  const r = derInteger(compact64.subarray(0, 32));
  const s = derInteger(compact64.subarray(32, 64));
  const out = new Uint8Array(2 + r.length + s.length);
  // DeSo-DER: the recovery id of a derived key's signature rides in the header byte.
  out[0] = recoveryId === undefined ? DER_HEADER : DER_HEADER + 1 + recoveryId;
  out[1] = r.length + s.length;
  out.set(r, 2);
  out.set(s, 2 + r.length);
  return out;
}

/** Reads one strict INTEGER at `off` into out[outOff..outOff+32); returns the next offset. */
function readDerInteger(der: Uint8Array, off: number, out: Uint8Array, outOff: number, name: 'r' | 's'): number {
  if (off + 2 > der.length) throw new TxnDecodeError(`signature: DER ${name} missing`);
  if (der[off] !== 0x02) throw new TxnDecodeError(`signature: DER ${name} expected INTEGER tag 02, got ${hexByte(der[off]!)}`);
  const len = der[off + 1]!;
  const start = off + 2;
  const end = start + len;
  if (len === 0) throw new TxnDecodeError(`signature: DER ${name} has length 0`);
  if (end > der.length) throw new TxnDecodeError(`signature: DER ${name} length ${len} runs past the end`);
  const first = der[start]!;
  if ((first & 0x80) !== 0) throw new TxnDecodeError(`signature: DER ${name} is negative`);
  if (len > 1 && first === 0 && (der[start + 1]! & 0x80) === 0) {
    throw new TxnDecodeError(`signature: DER ${name} is not minimal (superfluous leading 00)`);
  }
  const value = len > 1 && first === 0 ? der.subarray(start + 1, end) : der.subarray(start, end);
  if (value.length > 32) throw new TxnDecodeError(`signature: DER ${name} is longer than 32 bytes`);
  out.set(value, outOff + 32 - value.length);
  return end;
}

function hexByte(b: number): string {
  return `0x${b.toString(16).padStart(2, '0')}`;
}

/**
 * Strict DER or DeSo-DER → 64-byte compact r ‖ s and the recovery id folded into the header
 * (null for a standard 0x30 header; 0..3 for 0x31..0x34). Strict as the DeSo node parses
 * signatures: short-form lengths only, the SEQUENCE length equal to the rest, minimal
 * non-negative integers of at most 32 value bytes, nothing trailing. The *range* of r and s
 * (1..n−1) is not checked here; verification refuses out-of-range values.
 * @throws {TxnDecodeError} (code TXN_MALFORMED) naming what is wrong
 */
export function decodeDerSignature(der: Uint8Array): { compact: Uint8Array; recoveryId: number | null } {
  if (!(der instanceof Uint8Array)) throw new TxnDecodeError(`signature: expected bytes, got ${typeof der}`);
  if (der.length === 0) throw new TxnDecodeError('signature: empty');
  const header = der[0]!;
  if (header < DER_HEADER || header > DESO_DER_MAX_HEADER) {
    throw new TxnDecodeError(`signature: first byte ${hexByte(header)} is neither DER 0x30 nor DeSo-DER 0x31..0x34`);
  }
  if (der.length < DER_MIN_BYTES || der.length > DER_MAX_BYTES) {
    throw new TxnDecodeError(`signature: DER length ${der.length} outside ${DER_MIN_BYTES}..${DER_MAX_BYTES}`);
  }
  if (der[1] !== der.length - 2) {
    throw new TxnDecodeError(`signature: DER sequence length ${der[1]} does not match the ${der.length - 2} bytes that follow`);
  }
  const compact = new Uint8Array(64);
  const next = readDerInteger(der, 2, compact, 0, 'r');
  const end = readDerInteger(der, next, compact, 32, 's');
  if (end !== der.length) throw new TxnDecodeError(`signature: ${der.length - end} bytes after the DER integers`);
  return { compact, recoveryId: header === DER_HEADER ? null : header - (DER_HEADER + 1) };
}
