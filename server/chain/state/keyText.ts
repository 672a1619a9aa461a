/**
 * The compact text of bytes in state keys and index members: base64 (6 bits a character, where
 * hex spends 4) over an alphabet in code-point order, so text order is byte order (indexes
 * compare members as UTF-8 bytes, and every character here is one byte).
 *
 * Order holds for inputs of different lengths too: the text of a byte string that is a prefix
 * of another is shorter and equal up to its last character (its trailing bits are zeros), so it
 * sorts first, as the bytes do. Index members that must sort by several fields are therefore
 * one byte string of order-preserving, self-delimiting fields (`orderedUint`, fixed-width keys)
 * turned into text once.
 * @module
 */

/** The URL-safe base64 characters, sorted: '-' < '0'–'9' < 'A'–'Z' < '_' < 'a'–'z'. */
const ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
const VALUE_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE_OF[ALPHABET.charCodeAt(i)] = i;

/** Characters of the text of `n` bytes. */
export const textLength = (n: number): number => Math.ceil((n * 8) / 6);

/** ALPHABET's character codes, by 6-bit value. */
const CODE_OF = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/**
 * Characters are written here and read out as one Latin-1 string: building the text a
 * character at a time made a string per character, the largest source of garbage on the
 * write path (every nonce, balance and index key is such a text).
 */
let scratch = Buffer.allocUnsafe(256);

/** The order-preserving base64 text of `bytes` (no padding). */
export function bytesText(bytes: Uint8Array): string {
  return textOfFirst(bytes, bytes.length);
}

/** `bytesText` of the first `length` bytes. */
function textOfFirst(bytes: Uint8Array, length: number): string {
  const n = textLength(length);
  if (n > scratch.length) scratch = Buffer.allocUnsafe(Math.max(n, scratch.length * 2));
  const out = scratch;
  let at = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < length; i++) {
    acc = (acc << 8) | bytes[i]!;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out[at++] = CODE_OF[(acc >> bits) & 63]!;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out[at++] = CODE_OF[(acc << (6 - bits)) & 63]!;
  return out.toString('latin1', 0, at);
}

/** The bytes of a `bytesText` text. @throws {RangeError} on a character outside the alphabet */
export function textBytes(text: string): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let acc = 0;
  let bits = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? VALUE_OF[c]! : -1;
    if (v < 0) throw new RangeError(`key text: unexpected character ${JSON.stringify(text[i])} at ${i}`);
    acc = ((acc << 6) | v) & 0xfff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/**
 * An unsigned integer as order-preserving, self-delimiting bytes: its byte count, then its
 * big-endian bytes without leading zeros (0 is the single byte 0). Up to 2^2040.
 */
export function orderedUint(n: bigint): Uint8Array {
  if (n < 0n) throw new RangeError(`orderedUint: ${n} is negative`);
  // Heights, indexes and most amounts: number arithmetic (exact below 2^53), no hex text.
  if (n <= 0xffffffffffffn) return orderedSmallUint(Number(n));
  // 64-bit values (nonce ids, amounts) as two 32-bit halves; larger ones through hex.
  if (n <= 0xffffffffffffffffn) {
    const hi = Number(n >> 32n);
    const lo = Number(n & 0xffffffffn);
    const hiLen = byteLength(hi);
    const out = new Uint8Array(1 + hiLen + 4);
    out[0] = hiLen + 4;
    for (let i = hiLen, t = hi; i >= 1; i--, t >>>= 8) out[i] = t & 0xff;
    for (let i = hiLen + 4, t = lo; i > hiLen; i--, t >>>= 8) out[i] = t & 0xff;
    return out;
  }
  const digits = n.toString(16);
  const body = Buffer.from(digits.length % 2 === 0 ? digits : `0${digits}`, 'hex');
  if (body.length > 255) throw new RangeError('orderedUint: more than 255 bytes');
  return Uint8Array.of(body.length, ...body);
}

/** Bytes a `fieldsText` is built in (most keys are well under this). */
let fieldScratch = new Uint8Array(256);

/**
 * The text of fields joined: each bigint as `orderedUint`, each byte string as it is. The
 * same as `bytesText(joinBytes(...))` with `orderedUint` fields, without an array per field
 * (nonce keys are built several times per transaction).
 */
export function fieldsText(...fields: Array<bigint | Uint8Array>): string {
  let length = 0;
  for (const [i, f] of fields.entries()) {
    if (typeof f !== 'bigint') length += f.length;
    else if (f >= 0n && f <= 0xffffffffffffn) length += 7;
    // Larger (or negative: orderedUint throws) as bytes first; rare outside nonce ids.
    else length += (fields[i] = orderedUint(f)).length;
  }
  if (length > fieldScratch.length) fieldScratch = new Uint8Array(Math.max(length, fieldScratch.length * 2));
  const out = fieldScratch;
  let at = 0;
  for (const f of fields) {
    if (typeof f === 'bigint') {
      at = writeSmallUint(Number(f), out, at);
    } else {
      out.set(f, at);
      at += f.length;
    }
  }
  return textOfFirst(out, at);
}

/** Writes `orderedUint(n)` of a safe integer at `at`; answers where it ends. */
function writeSmallUint(n: number, out: Uint8Array, at: number): number {
  const len = byteLength(n);
  out[at] = len;
  for (let i = at + len, t = n; i > at; i--, t = Math.floor(t / 256)) out[i] = t % 256;
  return at + len + 1;
}

/** Bytes of a non-negative safe integer without leading zeros (0 has none). */
function byteLength(n: number): number {
  let len = 0;
  for (let t = n; t > 0; t = Math.floor(t / 256)) len++;
  return len;
}

function orderedSmallUint(n: number): Uint8Array {
  const out = new Uint8Array(byteLength(n) + 1);
  writeSmallUint(n, out, 0);
  return out;
}

/** `orderedUint` with every byte complemented: larger numbers sort first. */
export function orderedUintDescending(n: bigint): Uint8Array {
  return orderedUint(n).map((b) => 0xff - b);
}

/** Reads an `orderedUint` (or, `descending`, its complement) at `at`; answers it and where it ends. */
export function readOrderedUint(bytes: Uint8Array, at: number, descending = false): { value: bigint; end: number } {
  const flip = (b: number): number => (descending ? 0xff - b : b);
  const len = flip(bytes[at]!);
  let value = 0n;
  for (let i = 1; i <= len; i++) value = (value << 8n) | BigInt(flip(bytes[at + i]!));
  return { value, end: at + 1 + len };
}

/** The text of an unsigned integer, ordered as the numbers are (`orderedUint`). */
export const uintText = (n: bigint): string => bytesText(orderedUint(n));

/** The number of a `uintText` text. */
export const textUint = (text: string): bigint => readOrderedUint(textBytes(text), 0).value;

/** Concatenates byte strings (the fields of a member). */
export function joinBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
