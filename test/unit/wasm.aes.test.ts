/**
 * AES-128-CTR of the WASM core (wasm/aes.ts) against node:crypto aes-128-ctr: the SP 800-38A
 * F.5.1 vector, counter wrap-around IVs, block-boundary lengths, inputs larger than the I/O
 * region (streamed, including a wrap mid-stream), and 10,000 fast-check (key, iv, data).
 */
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { aes128Ctr, aes128CtrInto } from '../../wasm/aes.js';
import { core } from '../../wasm/core.js';
import { bytesToHex, hexToBytes } from '../helpers/vectors.js';

const RUNS = 10_000;
const IO_BYTES = core().ioBytes;

function nodeCtr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  const c = createCipheriv('aes-128-ctr', key, iv);
  return Buffer.concat([c.update(data), c.final()]);
}

/** IVs near a carry: all ff (wraps to 0), low half ff (carry into the high half), and random ones. */
const iv = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ minLength: 16, maxLength: 16 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 40 }).map((k) => Uint8Array.from(Buffer.from((2n ** 128n - 1n - BigInt(k)).toString(16), 'hex'))) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.integer({ min: 0, max: 40 }))
      .map(([hi, k]) => Uint8Array.from([...hi, ...Buffer.from((2n ** 64n - 1n - BigInt(k)).toString(16), 'hex')])),
  },
);

const dataLength = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 700 }) },
);

describe('wasm aes128Ctr', () => {
  it('SP 800-38A F.5.1 CTR-AES128.Encrypt', () => {
    const key = hexToBytes('2b7e151628aed2a6abf7158809cf4f3c');
    const counter = hexToBytes('f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff');
    const plaintext = hexToBytes(
      '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710',
    );
    const ciphertext =
      '874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee';
    assert.equal(bytesToHex(aes128Ctr(key, counter, plaintext)), ciphertext);
    assert.equal(bytesToHex(aes128Ctr(key, counter, hexToBytes(ciphertext))), bytesToHex(plaintext));
  });

  it(`matches node:crypto on ${RUNS} random (key, iv, data), wrap-around IVs included`, () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        iv,
        dataLength.chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
        (key, counter, data) => {
          assert.deepEqual(Buffer.from(aes128Ctr(key, counter, data)), nodeCtr(key, counter, data));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('matches node:crypto across the I/O region size, with the counter wrapping mid-stream', () => {
    const lengths = [IO_BYTES - 33, IO_BYTES - 32, IO_BYTES - 31, IO_BYTES, IO_BYTES + 1, 2 * IO_BYTES + 5, 1_000_003];
    const ivs = [randomBytes(16), Buffer.alloc(16, 0xff), hexToBytes('ffffffffffffffffffffffffffffff00')];
    for (const len of lengths) {
      for (const counter of ivs) {
        const key = randomBytes(16);
        const data = randomBytes(len);
        assert.deepEqual(Buffer.from(aes128Ctr(key, counter, data)), nodeCtr(key, counter, data), `length ${len}`);
      }
    }
  });

  it('encrypts in place when out is the data, and leaves no key in the input region', () => {
    const key = randomBytes(16);
    const counter = randomBytes(16);
    for (const len of [40, IO_BYTES + 100]) {
      const data = randomBytes(len);
      const expected = nodeCtr(key, counter, data);
      assert.equal(aes128CtrInto(key, counter, data, data), data);
      assert.deepEqual(Buffer.from(data), expected);
    }
    assert.ok(core().input.subarray(0, 16).every((b) => b === 0));
  });

  it('rejects bad arguments', () => {
    const k = new Uint8Array(16);
    assert.throws(() => aes128Ctr(new Uint8Array(15), k, k), { name: 'RangeError', message: '"key" expected 16 bytes, got 15' });
    assert.throws(() => aes128Ctr(k, new Uint8Array(17), k), { name: 'RangeError', message: '"iv" expected 16 bytes, got 17' });
    assert.throws(() => aes128CtrInto(k, k, k, new Uint8Array(15)), { name: 'RangeError', message: '"out" expected 16 bytes, got 15' });
    assert.throws(() => aes128Ctr(k, k, 'text' as unknown as Uint8Array), {
      name: 'TypeError',
      message: '"data" expected Uint8Array, got type=string',
    });
  });
});
