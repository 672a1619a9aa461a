/**
 * Transaction signing for the identity frame's `sign` method (identity-and-crypto.md §5.2–§5.4,
 * §2.6, §2.8).
 *
 * - The signer signs `hashToSign` = sha256d of the transaction with an empty signature field
 *   (v1 tail included), deterministic RFC 6979 without extra entropy, low-S: the frame's nonce,
 *   so our output equals the frame's byte for byte (the SDK adds random entropy, so its
 *   signatures differ but verify the same).
 * - The signature is minimal DER (`30 len 02 rlen r 02 slen s`). For a derived key the header
 *   byte 0x30 becomes 0x31 + recoveryId ("DeSo-DER", 0x31..0x34), so a verifier can recover the
 *   derived public key.
 * - It is spliced into the signature field (`uvarint len ‖ sig`); every other byte is kept.
 *
 * Errors: malformed transaction bytes and malformed DER signatures throw `TxnDecodeError`
 * (code TXN_MALFORMED); our own refusals throw `SignTxnError` (ALREADY_SIGNED, SIGN_FAILED).
 * @module
 */
import { decodeTxn, hashToSign, withSignature, type TxnEnvelope } from '../chain/txn/envelope.js';
import { TxnDecodeError } from '../chain/txn/errors.js';
import type { CryptoService } from '../crypto/service.js';
import { signLevelFor } from './accessLevel.js';

export type SignTxnErrorCode = 'ALREADY_SIGNED' | 'SIGN_FAILED';

/** signTransaction refused or failed for a reason other than malformed transaction bytes. */
export class SignTxnError extends Error {
  override readonly name = 'SignTxnError';
  constructor(
    readonly code: SignTxnErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isSignTxnError(e: unknown): e is SignTxnError {
  return e instanceof SignTxnError;
}

// ---------------------------------------------------------------------------------------------
// DER
// ---------------------------------------------------------------------------------------------

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
 * (a zero integer stays one 00 byte), one 00 prepended when the high bit is set.
 * @throws {RangeError} when `compact64` is not 64 bytes
 */
export function encodeDerSignature(compact64: Uint8Array): Uint8Array {
  if (!(compact64 instanceof Uint8Array) || compact64.length !== 64) {
    throw new RangeError(`"compact64" expected 64 bytes, got ${compact64 instanceof Uint8Array ? compact64.length : typeof compact64}`);
  }
  const r = derInteger(compact64.subarray(0, 32));
  const s = derInteger(compact64.subarray(32, 64));
  const out = new Uint8Array(2 + r.length + s.length);
  out[0] = DER_HEADER;
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

// ---------------------------------------------------------------------------------------------
// Access level
// ---------------------------------------------------------------------------------------------

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Largest fee a level-3 (ApproveLarge) grant signs without approval: a 100 KB transaction at the
 * mainnet floor of 1,000 nanos/KB, so every social transaction an app sends passes, while an app
 * holding a level-3 handle cannot burn the user's balance through the fee field (the frame's
 * rule looks only at outputs, and the balance model's fee is a field, not an output).
 */
export const LEVEL3_MAX_FEE_NANOS = 100_000n;

/**
 * Level `sign` needs for this transaction (§2.6, §2.8): 3 for a level-3 type whose outputs all
 * pay the transaction's own public key (no outputs counts) and whose fee is at most
 * LEVEL3_MAX_FEE_NANOS, else 4. A version-0 transaction with inputs pays an unknown fee
 * (inputs minus outputs): 4.
 */
export function signLevelForTxn(txn: TxnEnvelope): 3 | 4 {
  const outputsPayOnlySender = txn.outputs.every((o) => bytesEqual(o.publicKey, txn.publicKey));
  const feeWithinLevel3 = txn.v1 !== null ? txn.v1.feeNanos <= LEVEL3_MAX_FEE_NANOS : txn.inputs.length === 0;
  return feeWithinLevel3 ? signLevelFor(txn.txnType, outputsPayOnlySender) : 4;
}

// ---------------------------------------------------------------------------------------------
// Signing
// ---------------------------------------------------------------------------------------------

export interface SignTxnOpts {
  /** The key is a derived key: DeSo-DER header 0x31 + recoveryId instead of 0x30. */
  derived: boolean;
}

/**
 * Signs an unsigned transaction and returns the signed bytes (a fresh array; the input is not
 * modified, and the private key is neither kept nor wiped: it belongs to the caller).
 * @throws {TxnDecodeError} when `unsignedTxn` is not a well-formed transaction
 * @throws {SignTxnError} ALREADY_SIGNED when the signature field is not empty; SIGN_FAILED when
 *   the crypto service refuses the item (e.g. an invalid private key) or answers nonsense
 */
export async function signTransaction(
  crypto: CryptoService,
  unsignedTxn: Uint8Array,
  privateKey: Uint8Array,
  opts: SignTxnOpts,
): Promise<Uint8Array> {
  const txn = decodeTxn(unsignedTxn);
  if (txn.signature.length !== 0) {
    // The frame and the SDK splice at "the" unsigned 00 byte without checking; doing that to a
    // signed transaction would corrupt it, and re-signing silently would hide an app bug.
    throw new SignTxnError(
      'ALREADY_SIGNED',
      `transaction already carries a ${txn.signature.length}-byte signature; only an unsigned transaction (signature field 00) can be signed`,
    );
  }
  const hash = hashToSign(unsignedTxn);
  const [result] = await crypto.sign([{ privateKey, hash }]);
  if (result === undefined) throw new SignTxnError('SIGN_FAILED', 'signing failed: no result from the crypto service');
  if (!result.ok) throw new SignTxnError('SIGN_FAILED', `signing failed: ${result.error}`);
  const { signature, recovery } = result.value;
  if (signature.length !== 64 || !Number.isInteger(recovery) || recovery < 0 || recovery > 3) {
    throw new SignTxnError('SIGN_FAILED', 'signing failed: malformed signature from the crypto service');
  }
  const der = encodeDerSignature(signature);
  if (opts.derived === true) der[0] = DER_HEADER + 1 + recovery;
  // withSignature answers a Buffer that may be a view of Node's shared allocation pool; hand
  // back a plain array that owns its memory.
  return Uint8Array.from(withSignature(unsignedTxn, der));
}
