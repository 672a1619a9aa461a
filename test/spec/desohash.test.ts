/**
 * DeSoHashV1 (node-api.md §5.5) of the WASM core: every vector of shared/vectors/desohash.json,
 * 10,000 random headers against the straightforward JS port (bench/baselines/desoHashV1.ts,
 * itself checked against node:crypto SHA3-256 with the DeSo change switched off), batch and
 * mining forms against the single form.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { desoHashV1 as desoHashV1Port, sha3Variant256 } from '../../bench/baselines/desoHashV1.js';
import { core } from '../../wasm/core.js';
import {
  desoHashV1,
  desoHashV1Batch,
  desoHashV1BatchInto,
  desoHashV1Into,
  HEADER_V1_BYTES,
  HEADER_V1_NONCE_OFFSET,
  mineDesoHashV1,
} from '../../wasm/hash.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

const RUNS = 10_000;
const U64 = 1n << 64n;

interface DesoHashVectors {
  source: string;
  vectors: Array<{ name: string; inputHex: string; inputLen: number; hashV0Hex: string; hashV1Hex: string }>;
}

const file = readSharedVectors<DesoHashVectors>('desohash.json');

/** The header with Nonce (u64 big-endian at byte 84) set. */
function withNonce(header: Uint8Array, nonce: bigint): Uint8Array {
  const h = Uint8Array.from(header);
  new DataView(h.buffer).setBigUint64(HEADER_V1_NONCE_OFFSET, nonce, false);
  return h;
}

/** Big-endian unsigned compare: a <= b. */
function atMost(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) <= 0;
}

describe('DeSoHashV1', () => {
  it('the JS port is SHA3-256 when the DeSo change is off (checks its Keccak independently)', () => {
    for (const len of [0, 1, 99, 100, 135, 136, 137, 271, 272, 500]) {
      const msg = randomBytes(len);
      assert.deepEqual(Buffer.from(sha3Variant256(msg, false)), createHash('sha3-256').update(msg).digest(), `length ${len}`);
    }
  });

  describe(`vectors (${file.source})`, () => {
    for (const v of file.vectors) {
      it(v.name, () => {
        const input = hexToBytes(v.inputHex);
        assert.equal(input.length, v.inputLen);
        assert.equal(bytesToHex(desoHashV1(input)), v.hashV1Hex, 'wasm');
        assert.equal(bytesToHex(desoHashV1Port(input)), v.hashV1Hex, 'JS port');
      });
    }
  });

  it(`matches the JS port on ${RUNS} random 100-byte headers`, () => {
    const out = new Uint8Array(32);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: HEADER_V1_BYTES, maxLength: HEADER_V1_BYTES }), (header) => {
        const expected = Buffer.from(desoHashV1Port(header));
        assert.deepEqual(Buffer.from(desoHashV1(header)), expected);
        assert.deepEqual(Buffer.from(desoHashV1Into(header, out)), expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('matches the JS port on other lengths, across rate blocks and the I/O region (streamed)', () => {
    const io = core().ioBytes;
    const lengths = [0, 1, 80, 97, 134, 135, 136, 137, 271, 272, 273, 1000, io - 1, io, io + 1, io + 137];
    for (let i = 0; i < 200; i++) lengths.push(Math.floor(Math.random() * 600));
    for (const len of lengths) {
      const msg = randomBytes(len);
      assert.deepEqual(Buffer.from(desoHashV1(msg)), Buffer.from(desoHashV1Port(msg)), `length ${len}`);
    }
  });

  it('the batch form equals the single form, including batches spanning several calls', () => {
    // 3000 headers (300,000 bytes) exceed the 256 KiB region, so the wrapper makes two calls.
    for (const count of [0, 1, 7, 1024, 3000]) {
      const headers = randomBytes(count * HEADER_V1_BYTES);
      const single = Buffer.alloc(count * 32);
      for (let i = 0; i < count; i++) {
        desoHashV1Into(headers.subarray(i * 100, (i + 1) * 100), single.subarray(i * 32, (i + 1) * 32));
      }
      assert.deepEqual(Buffer.from(desoHashV1Batch(headers)), single, `${count} headers`);
      const out = new Uint8Array(count * 32);
      assert.equal(desoHashV1BatchInto(headers, out), out);
      assert.deepEqual(Buffer.from(out), single);
    }
  });

  describe('mining', () => {
    it('finds the first nonce whose hash is <= the target, and the single hash confirms it', () => {
      const template = randomBytes(HEADER_V1_BYTES);
      // About 1 header in 16 qualifies.
      const target = hexToBytes('0fff' + 'ff'.repeat(30));
      const start = 1_000n;
      const found = mineDesoHashV1(template, start, 10_000, target);
      assert.ok(found !== null, 'a 1-in-16 target within 10,000 nonces');
      const hash = desoHashV1(withNonce(template, found.nonce));
      assert.deepEqual(found.hash, hash);
      assert.ok(atMost(hash, target));
      // Every nonce before it misses the target.
      for (let n = start; n < found.nonce; n++) {
        assert.ok(!atMost(desoHashV1(withNonce(template, n)), target), `nonce ${n} should miss`);
      }
      // The template itself is not modified.
      assert.deepEqual(Buffer.from(desoHashV1(template)), Buffer.from(desoHashV1Port(template)));
    });

    it('returns null when the target is impossible or the count is 0', () => {
      const template = randomBytes(HEADER_V1_BYTES);
      assert.equal(mineDesoHashV1(template, 0n, 2_000, new Uint8Array(32)), null);
      assert.equal(mineDesoHashV1(template, 0n, 0, new Uint8Array(32).fill(0xff)), null);
    });

    it('a target equal to a hash is met (<=, not <)', () => {
      const template = randomBytes(HEADER_V1_BYTES);
      const nonce = 77n;
      const target = desoHashV1(withNonce(template, nonce));
      const found = mineDesoHashV1(template, nonce, 1, target);
      assert.deepEqual(found, { nonce, hash: target });
    });

    it('never reports a nonce past count, though it hashes two nonces per pass', () => {
      // Target = hash at start + 1 while start - 1 and start miss it: from start, count 1 must
      // miss and count 2 hit; from start - 1 (the hit is then in the second pass), count 3 hits.
      for (let attempt = 0; attempt < 100; attempt++) {
        const template = randomBytes(HEADER_V1_BYTES);
        const start = 1_000_000n;
        const target = desoHashV1(withNonce(template, start + 1n));
        const misses = [start - 1n, start].every((n) => !atMost(desoHashV1(withNonce(template, n)), target));
        if (!misses) continue;
        assert.equal(mineDesoHashV1(template, start, 1, target), null);
        assert.deepEqual(mineDesoHashV1(template, start, 2, target), { nonce: start + 1n, hash: target });
        assert.deepEqual(mineDesoHashV1(template, start - 1n, 3, target), { nonce: start + 1n, hash: target });
        return;
      }
      assert.fail('no suitable template in 100 attempts');
    });

    it('wraps the nonce past 2^64 - 1 to 0', () => {
      // Pick a template where neither of the last two u64 nonces meets the target but a
      // wrapped one (0..3) does, so the answer can only come from the wrapped range.
      for (let attempt = 0; attempt < 100; attempt++) {
        const template = randomBytes(HEADER_V1_BYTES);
        const nonces = [U64 - 2n, U64 - 1n, 0n, 1n, 2n, 3n];
        const hashes = nonces.map((n) => desoHashV1(withNonce(template, n)));
        const target = hashes.slice(2).reduce((a, b) => (atMost(a, b) ? a : b));
        if (atMost(hashes[0]!, target) || atMost(hashes[1]!, target)) continue;
        const expected = hashes.findIndex((h) => atMost(h, target));
        const found = mineDesoHashV1(template, U64 - 2n, nonces.length, target);
        assert.deepEqual(found, { nonce: nonces[expected], hash: hashes[expected] });
        return;
      }
      assert.fail('no suitable template in 100 attempts');
    });

    it('accepts a number start nonce and rejects bad arguments', () => {
      const template = randomBytes(HEADER_V1_BYTES);
      const all = new Uint8Array(32).fill(0xff);
      assert.equal(mineDesoHashV1(template, 5, 1, all)?.nonce, 5n);
      assert.throws(() => mineDesoHashV1(template.subarray(1), 0n, 1, all), {
        name: 'RangeError',
        message: '"template" expected 100 bytes, got 99',
      });
      assert.throws(() => mineDesoHashV1(template, 0n, 1, all.subarray(0, 31)), {
        name: 'RangeError',
        message: '"target" expected 32 bytes, got 31',
      });
      assert.throws(() => mineDesoHashV1(template, U64, 1, all), { name: 'RangeError' });
      assert.throws(() => mineDesoHashV1(template, -1, 1, all), { name: 'RangeError' });
      assert.throws(() => mineDesoHashV1(template, 0n, 2 ** 31, all), { name: 'RangeError' });
      assert.throws(() => desoHashV1Batch(new Uint8Array(150)), {
        name: 'RangeError',
        message: '"headers" expected a multiple of 100 bytes, got 150',
      });
    });
  });
});
