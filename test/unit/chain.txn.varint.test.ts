/** uvarintOf (server/chain/txn/varint.ts): bytes that are exactly one uvarint, as Go's binary.Uvarint reads them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeUvarint, uvarintOf } from '../../server/chain/txn/varint.js';

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
