/**
 * server/chain/txn/varint.ts: uvarintOf (bytes that are exactly one uvarint, as Go's
 * binary.Uvarint reads them) and the decoder's Reader.uvarint.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeUvarint, Reader, uvarintOf } from '../../server/chain/txn/varint.js';

describe('uvarintOf', () => {
  it('reads back what encodeUvarint wrote, from 0 to 2^64-1', () => {
    for (const v of [0n, 1n, 127n, 128n, 300n, 2n ** 32n, 2n ** 63n, 2n ** 64n - 1n]) assert.equal(uvarintOf(encodeUvarint(v)), v);
  });

  it('accepts a non-minimal spelling, as Go does', () => {
    assert.equal(uvarintOf(Uint8Array.of(0x81, 0x00)), 1n);
  });

  it('is null for empty bytes, trailing bytes, an unfinished varint and more than 64 bits', () => {
    assert.equal(uvarintOf(new Uint8Array(0)), null);
    assert.equal(uvarintOf(Uint8Array.of(0x01, 0x02)), null);
    assert.equal(uvarintOf(Uint8Array.of(0x80)), null);
    assert.equal(uvarintOf(Uint8Array.of(...new Array<number>(9).fill(0xff), 0x02)), null);
  });
});

describe('Reader.uvarint', () => {
  /** Go's binary.Uvarint as the decoder defines it: minimal, at most 64 bits, a bigint per byte. */
  function reference(bytes: Uint8Array): { value: bigint; pos: number } | string {
    let result = 0n;
    for (let i = 0; i < 10; i++) {
      if (i >= bytes.length) return 'unexpected end of data in uvarint';
      const b = bytes[i]!;
      if (i === 9 && b > 1) return 'uvarint overflows 64 bits';
      result |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) return b === 0 && i > 0 ? 'uvarint is not minimally encoded' : { value: result, pos: i + 1 };
    }
    return 'uvarint overflows 64 bits';
  }

  const read = (bytes: Uint8Array): { value: bigint; pos: number } | string => {
    const r = new Reader(bytes);
    try {
      return { value: r.uvarint('x'), pos: r.pos };
    } catch (e) {
      return (e as Error).message.replace(/^x: /, '');
    }
  };

  it('reads every encoded value from 0 to 2^64-1 and stops after it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.uint8Array({ maxLength: 3 }), (v, tail) => {
        const enc = encodeUvarint(v);
        assert.deepEqual(read(Uint8Array.from([...enc, ...tail])), { value: v, pos: enc.length });
      }),
      { numRuns: 3000 },
    );
  });

  it('answers as the definition does on any bytes: value, end of data, overflow, non-minimal', () => {
    // Mostly continuation bytes, so every length up to 11 and every error is reached.
    const byte = fc.oneof(fc.integer({ min: 0x80, max: 0xff }), fc.integer({ min: 0, max: 0xff }), fc.constantFrom(0, 1, 2, 0x80));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 12 }), (arr) => {
        const bytes = Uint8Array.from(arr);
        assert.deepEqual(read(bytes), reference(bytes));
      }),
      { numRuns: 5000 },
    );
  });
});
