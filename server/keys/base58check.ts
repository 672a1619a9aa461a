/**
 * Base58Check with DeSo's 3-byte version prefix:
 * `base58(prefix3 ‖ payload ‖ sha256d(prefix3 ‖ payload)[0..4])`, Bitcoin alphabet
 * (shared/reference/node-api.md §6). bs58check works on the whole `prefix ‖ payload`.
 * @module
 */
import bs58check from 'bs58check';
import { sha256d } from '../../wasm/hash.js';
import { KeyError } from './errors.js';

export const PREFIX_LENGTH = 3;

/**
 * Longest input `decodeBase58Check` accepts by default. Base58 decoding is quadratic in the
 * input length and runs on the event loop, so a megabyte "key" must be refused before
 * decoding. DeSo keys are at most 55 characters; 128 still lets slightly-wrong inputs reach
 * the precise byte-length message instead of a generic one.
 */
export const MAX_BASE58CHECK_CHARS = 128;

const NON_BASE58_CHAR = /[^1-9A-HJ-NP-Za-km-z]/;

export interface Base58CheckParts {
  prefix: Uint8Array;
  payload: Uint8Array;
}

/** The Bitcoin Base58 alphabet: digit values 0-57 in order. */
export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ALPHABET_CODES = Buffer.from(BASE58_ALPHABET, 'latin1');
const CHECKSUM_BYTES = 4;

/** Five base-58 digits per limb: 58^5 < 2^30, and a limb × 256 + carry stays an exact double. */
const LIMB = 58 ** 5;

/**
 * Base58 (Bitcoin alphabet) of `bytes`: each leading zero byte is a '1', the rest the number in
 * base 58, worked out in limbs of five digits. Quadratic in the length, so only for the short
 * inputs keys and hashes are.
 */
function base58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // log(256)/log(58^5) ≈ 0.274 limbs per byte; little-endian.
  const limbs = new Float64Array(Math.ceil((bytes.length - zeros) * 0.274) + 1);
  let used = 0;
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < used; j++) {
      carry += limbs[j]! * 256;
      const q = Math.floor(carry / LIMB);
      limbs[j] = carry - q * LIMB;
      carry = q;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB);
      limbs[used++] = carry - q * LIMB;
      carry = q;
    }
  }
  // Digits, most significant first, written backwards from the end of a buffer that has room
  // for five per limb; the top limb's leading zero digits are then dropped.
  const out = Buffer.allocUnsafe(zeros + used * 5);
  let p = out.length;
  for (let j = 0; j < used; j++) {
    let limb = limbs[j]!;
    for (let k = 0; k < 5; k++) {
      const q = Math.floor(limb / 58);
      out[--p] = ALPHABET_CODES[limb - q * 58]!;
      limb = q;
    }
  }
  while (p < out.length && out[p] === ALPHABET_CODES[0]) p++;
  out.fill(ALPHABET_CODES[0]!, p - zeros, p);
  return out.toString('latin1', p - zeros, out.length);
}

/**
 * Programmer-facing: a wrong prefix length is a bug, not bad input, hence RangeError. The
 * checksum is the WASM core's sha256d (submit-transaction encodes one per answer; bs58check's
 * two JS SHA-256 passes and base-x took ~16 µs of the event loop per call).
 */
export function encodeBase58Check(prefix: ArrayLike<number>, payload: Uint8Array): string {
  if (prefix.length !== PREFIX_LENGTH) {
    throw new RangeError(`"prefix" expected ${PREFIX_LENGTH} bytes, got ${prefix.length}`);
  }
  const body = PREFIX_LENGTH + payload.length;
  const bytes = new Uint8Array(body + CHECKSUM_BYTES);
  bytes.set(prefix);
  bytes.set(payload, PREFIX_LENGTH);
  bytes.set(sha256d(bytes.subarray(0, body)).subarray(0, CHECKSUM_BYTES), body);
  return base58(bytes);
}

/**
 * Decodes untrusted input. The prefix is returned, not checked: callers decide what it must be.
 * @param field - request field name used in error messages
 * @param context - prepended to error messages (KeyError `context`)
 * @throws {KeyError} KEY_EMPTY, KEY_INVALID_BASE58, KEY_BAD_CHECKSUM, KEY_BAD_LENGTH
 */
export function decodeBase58Check(
  s: string,
  field = 'value',
  maxChars = MAX_BASE58CHECK_CHARS,
  context = '',
): Base58CheckParts {
  // Values come from parsed JSON, so the static type is not a guarantee.
  const input: unknown = s;
  if (input === undefined || input === null) {
    throw new KeyError('KEY_EMPTY', field, 'expected a Base58Check string, got nothing', context);
  }
  if (typeof input !== 'string') {
    throw new KeyError('KEY_INVALID_BASE58', field, `expected a Base58Check string, got type=${typeof input}`, context);
  }
  if (input.length === 0) {
    throw new KeyError('KEY_EMPTY', field, 'expected a Base58Check string, got an empty string', context);
  }
  if (input.length > maxChars) {
    throw new KeyError('KEY_BAD_LENGTH', field, `expected at most ${maxChars} characters, got ${input.length}`, context);
  }
  const bad = input.search(NON_BASE58_CHAR);
  if (bad !== -1) {
    // Quote only the offending character, never the input (it may be a secret pasted by mistake).
    throw new KeyError(
      'KEY_INVALID_BASE58',
      field,
      `invalid Base58 character ${JSON.stringify(input[bad])} at position ${bad}`,
      context,
    );
  }
  // The alphabet is already checked, so `undefined` here can only mean a checksum mismatch.
  const bytes = bs58check.decodeUnsafe(input);
  if (bytes === undefined) {
    throw new KeyError('KEY_BAD_CHECKSUM', field, 'invalid Base58Check checksum', context);
  }
  if (bytes.length < PREFIX_LENGTH) {
    throw new KeyError(
      'KEY_BAD_LENGTH',
      field,
      `expected at least ${PREFIX_LENGTH} prefix bytes before the checksum, got ${bytes.length}`,
      context,
    );
  }
  // Copies, so a caller keeping `payload` does not pin or expose the prefix bytes.
  return { prefix: bytes.slice(0, PREFIX_LENGTH), payload: bytes.slice(PREFIX_LENGTH) };
}
