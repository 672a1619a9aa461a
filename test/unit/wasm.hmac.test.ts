/**
 * HMAC-SHA-256 of the WASM core (wasm/hash.ts) against node:crypto: key lengths around the
 * 64-byte block (hashed above it), messages and keys larger than the I/O region (streamed),
 * and 10,000 fast-check inputs. Wycheproof vectors are in test/spec/hmac.wycheproof.test.ts.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { core } from '../../wasm/core.js';
import { hmacSha256, hmacSha256Into } from '../../wasm/hash.js';
import { bytesToHex, hexToBytes } from '../helpers/vectors.js';

const RUNS = 10_000;
const IO_BYTES = core().ioBytes;

const nodeHmac = (key: Uint8Array, msg: Uint8Array): Buffer => createHmac('sha256', key).update(msg).digest();

const bytes = (maxLength: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: 0, maxLength });

describe('wasm hmacSha256', () => {
  it('RFC 4231 test case 2 (a key shorter than the output)', () => {
    const tag = hmacSha256(new TextEncoder().encode('Jefe'), new TextEncoder().encode('what do ya want for nothing?'));
    assert.equal(bytesToHex(tag), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('matches node:crypto for key lengths around the block size and across the I/O region', () => {
    const keyLengths = [0, 1, 16, 32, 63, 64, 65, 100, 128, 1000, IO_BYTES - 10, IO_BYTES + 1];
    const msgLengths = [0, 1, 55, 56, 64, 100, 1000, IO_BYTES - 5, IO_BYTES + 1, 2 * IO_BYTES + 3];
    for (const kl of keyLengths) {
      for (const ml of msgLengths) {
        const key = randomBytes(kl);
        const msg = randomBytes(ml);
        assert.deepEqual(Buffer.from(hmacSha256(key, msg)), nodeHmac(key, msg), `key ${kl}, msg ${ml}`);
      }
    }
  });

  it(`matches node:crypto on ${RUNS} random (key, message) pairs`, () => {
    const out = new Uint8Array(32);
    fc.assert(
      fc.property(bytes(200), bytes(600), (key, msg) => {
        const expected = nodeHmac(key, msg);
        assert.deepEqual(Buffer.from(hmacSha256(key, msg)), expected);
        assert.deepEqual(Buffer.from(hmacSha256Into(key, msg, out)), expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('leaves no key bytes in the input region', () => {
    const key = new Uint8Array(48).fill(0xa5);
    hmacSha256(key, new Uint8Array(8));
    assert.ok(core().input.subarray(0, 48).every((b) => b === 0));
  });

  it('the Into form writes into the given buffer and returns it', () => {
    const out = new Uint8Array(32);
    const key = hexToBytes('0b'.repeat(20));
    assert.equal(hmacSha256Into(key, new TextEncoder().encode('Hi There'), out), out);
    // RFC 4231 test case 1.
    assert.equal(bytesToHex(out), 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7');
  });

  it('rejects bad arguments', () => {
    assert.throws(() => hmacSha256Into(new Uint8Array(1), new Uint8Array(1), new Uint8Array(33)), {
      name: 'RangeError',
      message: '"out" expected 32 bytes, got 33',
    });
    assert.throws(() => hmacSha256([1, 2] as unknown as Uint8Array, new Uint8Array(0)), {
      name: 'TypeError',
      message: '"key" expected Uint8Array, got type=Array',
    });
  });
});
