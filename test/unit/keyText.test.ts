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

  it('refuses a character outside the alphabet', () => {
    assert.throws(() => textBytes('ab:c'), /unexpected character ":" at 2/);
  });
});
