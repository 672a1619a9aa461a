/**
 * keyText: the compact key text round-trips and keeps byte order (what index ranges over
 * members built from it rely on), for bytes of any length and for ordered integers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareUtf8 } from '../../server/store/memory.js';
import {
  bytesText,
  fieldsText,
  joinBytes,
  orderedUint,
  orderedUintDescending,
  readOrderedUint,
  textBytes,
  textLength,
  textUint,
  uintText,
} from '../../server/chain/state/keyText.js';

const compareBytes = (a: Uint8Array, b: Uint8Array): number => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
const sign = (n: number): number => Math.sign(n);

describe('keyText', () => {
  it('round-trips bytes of any length, in textLength characters', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (b) => {
        const t = bytesText(b);
        assert.equal(t.length, textLength(b.length));
        assert.deepEqual(textBytes(t), b);
      }),
    );
  });

  it('keeps byte order, prefixes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.uint8Array({ maxLength: 12 }), (a, b) => {
        assert.equal(sign(compareUtf8(bytesText(a), bytesText(b))), compareBytes(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('orders integers as numbers, ascending and descending, followed by anything', () => {
    const big = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
    fc.assert(
      fc.property(big, big, fc.uint8Array({ maxLength: 4 }), fc.uint8Array({ maxLength: 4 }), (x, y, tx, ty) => {
        const want = x === y ? 0 : x < y ? -1 : 1;
        if (want !== 0) {
          assert.equal(sign(compareUtf8(bytesText(joinBytes(orderedUint(x), tx)), bytesText(joinBytes(orderedUint(y), ty)))), want);
          assert.equal(sign(compareUtf8(bytesText(joinBytes(orderedUintDescending(x), tx)), bytesText(joinBytes(orderedUintDescending(y), ty)))), -want);
        }
        assert.equal(textUint(uintText(x)), x);
        assert.equal(readOrderedUint(orderedUintDescending(x), 0, true).value, x);
      }),
      { numRuns: 2000 },
    );
    assert.equal(uintText(0n), '--');
  });

  it('writes the same text and integers as their definitions (stored keys never change)', () => {
    // The definitions, written plainly: six bits a character; byte count, then big-endian bytes.
    const ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
    const bitsOf = (b: Uint8Array): string => [...b].map((x) => x.toString(2).padStart(8, '0')).join('');
    const textOf = (b: Uint8Array): string => (bitsOf(b).match(/.{1,6}/g) ?? []).map((c) => ALPHABET[parseInt(c.padEnd(6, '0'), 2)]).join('');
    const uintOf = (n: bigint): Uint8Array => {
      const hex = n === 0n ? '' : n.toString(16);
      const body = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
      return Uint8Array.of(body.length, ...body);
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => assert.equal(bytesText(b), textOf(b))),
      { numRuns: 3000 },
    );
    // Every width up to 80 bits, the 48- and 64-bit edges included (nonce ids are 64-bit).
    const widths = fc.integer({ min: 0, max: 80 }).chain((w) => fc.bigInt({ min: w === 0 ? 0n : 1n << BigInt(w - 1), max: (1n << BigInt(w)) - 1n }));
    const edges = [0n, 1n, 255n, 256n, (1n << 48n) - 1n, 1n << 48n, (1n << 48n) + 1n, (1n << 64n) - 1n, 1n << 64n, 0xffffffffn, 1n << 32n];
    for (const n of edges) assert.deepEqual(orderedUint(n), uintOf(n), `orderedUint(${n})`);
    fc.assert(fc.property(widths, (n) => assert.deepEqual(orderedUint(n), uintOf(n))), { numRuns: 3000 });
  });

  it('fieldsText is the text of its fields joined, integers as orderedUint', () => {
    const field = fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.bigInt({ min: 0n, max: (1n << 80n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 2040n) - 1n }));
    fc.assert(
      fc.property(fc.array(field, { maxLength: 6 }), (fields) => {
        assert.equal(fieldsText(...fields), bytesText(joinBytes(...fields.map((f) => (typeof f === 'bigint' ? orderedUint(f) : f)))));
      }),
      { numRuns: 3000 },
    );
    assert.throws(() => fieldsText(-1n), /negative/);
  });

  it('refuses a character outside the alphabet', () => {
    assert.throws(() => textBytes('ab:c'), /unexpected character ":" at 2/);
  });
});
