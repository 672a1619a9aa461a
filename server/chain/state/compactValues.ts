/**
 * Compact stored numbers: msgpack spends 9 bytes on every bigint, 1 to 5 on a small number. The
 * state's amounts are bigint in the code; stored, those below 2^53 are plain numbers.
 * @module
 */

/** A bigint as stored: a plain number when it is a safe integer. */
export function packBig(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** The bigint of a `packBig` value. */
export function unpackBig(v: number | bigint): bigint {
  return BigInt(v);
}
