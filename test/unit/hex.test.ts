/**
 * Hex text (server/hex.ts): `parseHex` answers the bytes of exactly the texts the regular
 * expression it replaced accepted (an even number of hex digits, either case), and null for
 * every other text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHex, toHex } from '../../server/hex.js';

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

describe('parseHex', () => {
  it('decodes hex of either case, empty included', () => {
    assert.deepEqual(parseHex(''), new Uint8Array(0));
    assert.deepEqual(parseHex('00ff10Ab'), new Uint8Array([0, 255, 16, 171]));
    const bytes = new Uint8Array(300).map((_, i) => (i * 37) & 0xff);
    assert.deepEqual(parseHex(toHex(bytes)), bytes);
    assert.deepEqual(parseHex(toHex(bytes).toUpperCase()), bytes);
  });

  it('refuses odd lengths and any non-hex character, wherever it is', () => {
    for (const bad of ['0', 'abc', 'zz', '0g', 'g0', '00 ', ' 00', '00\n', '0x00', 'ab-d', '００', 'éé', '\u0000\u0000', '😀']) {
      assert.equal(parseHex(bad), null, JSON.stringify(bad));
    }
  });

  it('agrees with the regular expression on 5,000 random texts', () => {
    const alphabet = '0123456789abcdefABCDEFgxyzG -\u00e9\u4e2d';
    let seed = 11;
    const next = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let k = 0; k < 5_000; k++) {
      const valid = next(2) === 0;
      let text = '';
      for (let len = next(40); text.length < len; ) text += alphabet[next(valid ? 22 : alphabet.length)];
      const got = parseHex(text);
      if (HEX.test(text)) assert.deepEqual(got, new Uint8Array(Buffer.from(text, 'hex')), JSON.stringify(text));
      else assert.equal(got, null, JSON.stringify(text));
    }
  });

  it('answers a copy of its own, not a view of a shared buffer', () => {
    const got = parseHex('0102')!;
    assert.equal(got.byteOffset, 0);
    assert.equal(got.buffer.byteLength, 2);
  });
});
