/**
 * SHA-256 and SHA-256d of the WASM core (wasm/hash.ts) against node:crypto: FIPS 180-4 example
 * strings, every padding boundary, inputs larger than the I/O region (streamed), 10,000
 * fast-check inputs, and batch forms against single ones.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { core } from '../../wasm/core.js';
import {
  sha256,
  sha256Batch,
  sha256BatchInto,
  sha256d,
  sha256dBatch,
  sha256dBatchInto,
  sha256dInto,
  sha256Into,
} from '../../wasm/hash.js';
import { bytesToHex } from '../helpers/vectors.js';

/** fast-check runs per property: the differential floor for every primitive. */
const RUNS = 10_000;
const IO_BYTES = core().ioBytes;

const nodeSha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();
const nodeSha256d = (b: Uint8Array): Buffer => nodeSha256(nodeSha256(b));

/**
 * Lengths where padding changes shape (55: length fits the block, 56: it does not; 64: the
 * precomputed padding block), block multiples, and the I/O region edges (streaming starts above it).
 */
const EDGE_LENGTHS = [
  0, 1, 3, 31, 32, 33, 55, 56, 57, 63, 64, 65, 100, 119, 120, 127, 128, 129, 183, 184, 191, 192, 255, 256, 1000, 4096,
  IO_BYTES - 1, IO_BYTES, IO_BYTES + 1, IO_BYTES + 55, 2 * IO_BYTES + 64, 3 * IO_BYTES + 7,
];

/** Mostly short inputs around block boundaries, sometimes a few KiB; as views with an offset half the time. */
const message = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 200 }) },
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 8 }).chain((k) => fc.integer({ min: 64 * k - 9, max: 64 * k + 1 })) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 5000 }) },
    ),
    fc.integer({ min: 0, max: 7 }),
  )
  .chain(([len, offset]) =>
    fc
      .uint8Array({ minLength: Math.max(len, 0) + offset, maxLength: Math.max(len, 0) + offset })
      .map((buf) => buf.subarray(offset)),
  );

describe('wasm sha256', () => {
  it('FIPS 180-4 example messages', () => {
    const text = new TextEncoder();
    const cases: Array<[Uint8Array, string]> = [
      [text.encode('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      [new Uint8Array(0), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      [
        text.encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'),
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      ],
      [new Uint8Array(1_000_000).fill(0x61), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
    ];
    for (const [msg, hex] of cases) assert.equal(bytesToHex(sha256(msg)), hex, `length ${msg.length}`);
  });

  it('matches node:crypto at every padding boundary and across the I/O region size', () => {
    for (const len of EDGE_LENGTHS) {
      const msg = randomBytes(len);
      assert.deepEqual(Buffer.from(sha256(msg)), nodeSha256(msg), `sha256 length ${len}`);
      assert.deepEqual(Buffer.from(sha256d(msg)), nodeSha256d(msg), `sha256d length ${len}`);
    }
  });

  it(`matches node:crypto on ${RUNS} random inputs (sha256, sha256d, Into forms)`, () => {
    const out = new Uint8Array(32);
    fc.assert(
      fc.property(message, (msg) => {
        const expected = nodeSha256(msg);
        assert.deepEqual(Buffer.from(sha256(msg)), expected);
        assert.deepEqual(Buffer.from(sha256Into(msg, out)), expected);
        assert.deepEqual(Buffer.from(sha256dInto(msg, out)), nodeSha256(expected));
      }),
      { numRuns: RUNS },
    );
  });

  it('the Into forms write into the given buffer and return it', () => {
    const out = new Uint8Array(32);
    const msg = randomBytes(77);
    assert.equal(sha256Into(msg, out), out);
    assert.deepEqual(Buffer.from(out), nodeSha256(msg));
    assert.equal(sha256dInto(msg, out), out);
    assert.deepEqual(Buffer.from(out), nodeSha256d(msg));
  });

  it('batch forms equal the single forms, including batches spanning several calls', () => {
    // 100-byte items × 3000 is larger than the region, so the wrapper splits it.
    const shapes: Array<[itemLen: number, count: number]> = [
      [1, 0], [1, 1], [32, 5], [55, 9], [64, 17], [100, 3000], [129, 40], [IO_BYTES + 3, 2],
    ];
    for (const [itemLen, count] of shapes) {
      const items = randomBytes(itemLen * count);
      const single = Buffer.alloc(count * 32);
      const singleD = Buffer.alloc(count * 32);
      for (let i = 0; i < count; i++) {
        const item = items.subarray(i * itemLen, (i + 1) * itemLen);
        sha256Into(item, single.subarray(i * 32, (i + 1) * 32));
        sha256dInto(item, singleD.subarray(i * 32, (i + 1) * 32));
      }
      assert.deepEqual(Buffer.from(sha256Batch(items, itemLen)), single, `sha256Batch ${itemLen}×${count}`);
      assert.deepEqual(Buffer.from(sha256dBatch(items, itemLen)), singleD, `sha256dBatch ${itemLen}×${count}`);
      const out = new Uint8Array(count * 32);
      assert.equal(sha256dBatchInto(items, itemLen, out), out);
      assert.deepEqual(Buffer.from(out), singleD);
      assert.deepEqual(Buffer.from(sha256BatchInto(items, itemLen, out)), single);
    }
    // The first item of a batch checked against node:crypto too, so batch and single cannot share a bug.
    const headers = randomBytes(100 * 4);
    assert.deepEqual(Buffer.from(sha256dBatch(headers, 100).subarray(0, 32)), nodeSha256d(headers.subarray(0, 100)));
  });

  it('batch forms (4-way SIMD lanes plus a scalar remainder) match node:crypto for any item length', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 13 }), (itemLen, count) => {
        const items = randomBytes(itemLen * count);
        const batch = sha256Batch(items, itemLen);
        const batchD = sha256dBatch(items, itemLen);
        for (let i = 0; i < count; i++) {
          const item = items.subarray(i * itemLen, (i + 1) * itemLen);
          const at = `item ${i} of ${count}, ${itemLen} bytes`;
          assert.deepEqual(Buffer.from(batch.subarray(i * 32, (i + 1) * 32)), nodeSha256(item), at);
          assert.deepEqual(Buffer.from(batchD.subarray(i * 32, (i + 1) * 32)), nodeSha256d(item), at);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('rejects bad arguments with the name, the expectation and what it got', () => {
    assert.throws(() => sha256Into(new Uint8Array(3), new Uint8Array(31)), {
      name: 'RangeError',
      message: '"out" expected 32 bytes, got 31',
    });
    assert.throws(() => sha256('abc' as unknown as Uint8Array), {
      name: 'TypeError',
      message: '"data" expected Uint8Array, got type=string',
    });
    assert.throws(() => sha256dBatch(new Uint8Array(10), 3), {
      name: 'RangeError',
      message: '"items" expected a multiple of itemLen=3 bytes, got 10',
    });
    assert.throws(() => sha256Batch(new Uint8Array(10), 0), {
      name: 'RangeError',
      message: '"itemLen" expected a positive integer, got 0',
    });
    assert.throws(() => sha256dBatchInto(new Uint8Array(20), 10, new Uint8Array(32)), {
      name: 'RangeError',
      message: '"out" expected 64 bytes, got 32',
    });
  });
});
