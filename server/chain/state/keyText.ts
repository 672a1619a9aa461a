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

/** The order-preserving base64 text of `bytes` (no padding). */
export function bytesText(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += ALPHABET[(acc >> bits) & 63];
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(acc << (6 - bits)) & 63];
  return out;
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
  const digits = n === 0n ? '' : n.toString(16);
  const body = Buffer.from(digits.length % 2 === 0 ? digits : `0${digits}`, 'hex');
  if (body.length > 255) throw new RangeError('orderedUint: more than 255 bytes');
  return Uint8Array.of(body.length, ...body);
}

function orderedSmallUint(n: number): Uint8Array {
  let len = 0;
  for (let t = n; t > 0; t = Math.floor(t / 256)) len++;
  const out = new Uint8Array(len + 1);
  out[0] = len;
  for (let i = len, t = n; i >= 1; i--, t = Math.floor(t / 256)) out[i] = t % 256;
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
