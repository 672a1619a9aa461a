/**
 * Go's `binary.PutUvarint` / `binary.Uvarint` (unsigned LEB128, at most 10 bytes), as every
 * DeSo length, count and amount is written. Values are bigint: amounts and nonces use all 64 bits.
 */
import { TxnDecodeError } from './errors.js';

const U64_MAX = (1n << 64n) - 1n;

export function encodeUvarint(value: bigint | number): Uint8Array {
  let v = BigInt(value);
  if (v < 0n || v > U64_MAX) throw new RangeError(`uvarint expected 0..2^64-1, got ${v}`);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/**
 * The value of bytes that are exactly one uvarint, as Go's `binary.Uvarint` reads it (a
 * non-minimal spelling is accepted, more than 64 bits is not), or null when they are anything
 * else (empty, trailing bytes, overflow): how the backend renders uvarint ExtraData values
 * such as `NodeSource`.
 */
export function uvarintOf(bytes: Uint8Array): bigint | null {
  let v = 0n;
  for (let i = 0; i < bytes.length && i < 10; i++) {
    const b = bytes[i]!;
    if (i === 9 && b > 1) return null;
    v |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) return i === bytes.length - 1 ? v : null;
  }
  return null;
}

/** A cursor over bytes that reads DeSo's primitive encodings and names what it was reading on failure. */
export class Reader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  uvarint(what: string): bigint {
    // The first 7 bytes (49 bits) in number arithmetic: lengths, counts and most amounts end
    // there, without a bigint per byte (a transaction decode reads dozens of uvarints).
    let small = 0;
    let scale = 1;
    let big: bigint | null = null;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.bytes.length) throw new TxnDecodeError(`${what}: unexpected end of data in uvarint`);
      const b = this.bytes[this.pos++]!;
      // The tenth byte may only carry the top bit of a 64-bit value (Go: "varint overflows a 64-bit integer").
      if (i === 9 && b > 1) throw new TxnDecodeError(`${what}: uvarint overflows 64 bits`);
      if (i < 7) {
        small += (b & 0x7f) * scale;
        scale *= 128;
      } else {
        big = (big ?? BigInt(small)) | (BigInt(b & 0x7f) << BigInt(7 * i));
      }
      if (b < 0x80) {
        // A final 0x00 after other bytes adds nothing: another spelling of a shorter varint.
        // Core re-serializes what it parses before hashing, so such bytes can never verify.
        if (b === 0 && i > 0) throw new TxnDecodeError(`${what}: uvarint is not minimally encoded`);
        return big ?? BigInt(small);
      }
    }
    throw new TxnDecodeError(`${what}: uvarint overflows 64 bits`);
  }

  /** A uvarint used as a length or count: bounded by the bytes left, so a lie can't allocate. */
  length(what: string, bytesPerItem = 1): number {
    const n = this.uvarint(what);
    if (n * BigInt(bytesPerItem) > BigInt(this.remaining)) {
      throw new TxnDecodeError(`${what}: ${n} exceeds the ${this.remaining} bytes left`);
    }
    return Number(n);
  }

  take(n: number, what: string): Uint8Array {
    if (n > this.remaining) throw new TxnDecodeError(`${what}: expected ${n} bytes, ${this.remaining} left`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Moves past `n` bytes without a view of them. */
  skip(n: number, what: string): void {
    if (n > this.remaining) throw new TxnDecodeError(`${what}: expected ${n} bytes, ${this.remaining} left`);
    this.pos += n;
  }

  /** `uvarint(len) ‖ bytes`. */
  varBytes(what: string): Uint8Array {
    return this.take(this.length(what), what);
  }
}
