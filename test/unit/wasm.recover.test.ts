/**
 * The crypto pool's recoverPublicKeys task (workers/tasks/recoverPublicKeys.ts through
 * server/crypto/pack.ts and the CryptoService implementations) against @noble/curves recovery.
 *
 * Runs: RECOVER_DIFF_RUNS (default 1,000) per property: noble's recovery costs about a
 * millisecond, and the WASM recovery itself has its own 10,000-run check in
 * wasm.secp256k1.test.ts; this file checks the task, its wire layout and its statuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import { BatchingCrypto } from '../../server/crypto/batching.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { packRecoverItems, unpackRecoverReply, type RecoverItem } from '../../server/crypto/pack.js';
import { CryptoPool } from '../../server/crypto/pool.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { recoverPublicKeys } from '../../workers/tasks/recoverPublicKeys.js';
import { ITEM_ERROR_MESSAGES, ItemStatus, RECOVER_ITEM_BYTES, RECOVER_REPLY_BYTES } from '../../workers/types.js';
import { bytesToHex, hexToBytes } from '../helpers/vectors.js';

const RUNS = Number(process.env.RECOVER_DIFF_RUNS ?? 1_000);
const N = secp256k1.Point.CURVE().n;
const P = secp256k1.Point.CURVE().p;

const toBytes32 = (v: bigint): Uint8Array => hexToBytes(v.toString(16).padStart(64, '0'));
const scalar = fc.bigInt({ min: 1n, max: N - 1n });
const hash32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

function nobleRecover(hash: Uint8Array, compact: Uint8Array, recovery: number): Uint8Array | null {
  try {
    const sig = new Uint8Array(65);
    sig[0] = recovery;
    sig.set(compact, 1);
    return secp256k1.recoverPublicKey(sig, hash, { prehash: false });
  } catch {
    return null;
  }
}

const inline = new InlineCrypto();

describe('recoverPublicKeys task against @noble/curves', () => {
  it(`recovers the signer of ${RUNS} noble signatures (random keys and hashes), as noble does`, async () => {
    const cases = fc.sample(fc.tuple(scalar, hash32), RUNS).map(([d, hash]) => {
      const rec = secp256k1.sign(hash, toBytes32(d), { prehash: false, format: 'recovered' });
      return { item: { hash, signature: rec.subarray(1), recovery: rec[0]! }, signer: secp256k1.Point.BASE.multiply(d).toBytes(true) };
    });
    const results = await inline.recoverPublicKeys(cases.map((c) => c.item));
    results.forEach((r, i) => {
      const { item, signer } = cases[i]!;
      assert.ok(r.ok, `item ${i} recovers: ${r.ok ? '' : r.error}`);
      assert.equal(bytesToHex(r.value), bytesToHex(signer), `item ${i}: the signer's compressed key`);
      assert.equal(bytesToHex(r.value), bytesToHex(nobleRecover(item.hash, item.signature, item.recovery)!), `item ${i}: noble's answer`);
    });
  });

  it(`agrees with noble on ${RUNS} arbitrary (r, s, recovery id), including unrecoverable ones`, async () => {
    const edge = fc.oneof(scalar, fc.constantFrom(0n, N, N + 1n, (1n << 256n) - 1n, P - N, P - N - 1n));
    const items: RecoverItem[] = fc.sample(fc.tuple(hash32, edge, edge, fc.integer({ min: 0, max: 3 })), RUNS).map(([hash, r, s, recovery]) => {
      const signature = new Uint8Array(64);
      signature.set(toBytes32(r % (1n << 256n)), 0);
      signature.set(toBytes32(s % (1n << 256n)), 32);
      return { hash, signature, recovery };
    });
    const results = await inline.recoverPublicKeys(items);
    let unrecoverable = 0;
    results.forEach((r, i) => {
      const { hash, signature, recovery } = items[i]!;
      const expected = nobleRecover(hash, signature, recovery);
      if (expected === null) {
        unrecoverable++;
        assert.deepEqual(r, { ok: false, error: ITEM_ERROR_MESSAGES[ItemStatus.Unrecoverable] }, `item ${i}: no key recovers`);
      } else {
        assert.ok(r.ok, `item ${i} recovers like noble`);
        assert.equal(bytesToHex(r.value), bytesToHex(expected), `item ${i}`);
      }
    });
    assert.ok(unrecoverable > 0, 'the sample includes signatures no key produced');
  });
});

describe('recoverPublicKeys wire layout and statuses', () => {
  it('packs hash ‖ r‖s ‖ recovery, 97 bytes per item, and reads status ‖ 33-byte key back', () => {
    const item: RecoverItem = { hash: new Uint8Array(32).fill(1), signature: new Uint8Array(64).fill(2), recovery: 3 };
    const batch = packRecoverItems([item]);
    assert.equal(batch.bytes.length, RECOVER_ITEM_BYTES, 'one item, exactly sized');
    assert.equal(batch.bytes[96], 3, 'recovery id last');
    const reply = new Uint8Array(RECOVER_REPLY_BYTES);
    reply[0] = ItemStatus.Ok;
    reply.fill(7, 1);
    assert.deepEqual(unpackRecoverReply(batch, reply), [{ ok: true, value: new Uint8Array(33).fill(7) }]);
  });

  it('refuses a wrong-length field or a recovery id outside 0..3 for that item alone', async () => {
    const d = 12345n;
    const hash = new Uint8Array(32).fill(9);
    const rec = secp256k1.sign(hash, toBytes32(d), { prehash: false, format: 'recovered' });
    const good: RecoverItem = { hash, signature: rec.subarray(1), recovery: rec[0]! };
    const results = await inline.recoverPublicKeys([
      { ...good, hash: hash.subarray(1) },
      { ...good, recovery: 4 },
      good,
      { ...good, signature: new Uint8Array(63) },
    ]);
    assert.deepEqual(results[0], { ok: false, error: '"hash" expected 32 bytes, got 31' });
    assert.deepEqual(results[1], { ok: false, error: '"recovery" expected an integer 0..3, got 4' });
    assert.ok(results[2]!.ok, 'the good item still recovers');
    assert.equal(bytesToHex(results[2]!.value), secp256k1.Point.BASE.multiply(d).toHex(true));
    assert.deepEqual(results[3], { ok: false, error: '"signature" expected 64 bytes, got 63' });
  });

  it('the task answers BadRecoveryId for a recovery byte above 3 (bytes that did not come from pack.ts)', () => {
    const request = new Uint8Array(RECOVER_ITEM_BYTES);
    request[96] = 0x7f;
    const reply = recoverPublicKeys(request);
    assert.equal(reply.length, RECOVER_REPLY_BYTES);
    assert.equal(reply[0], ItemStatus.BadRecoveryId);
    assert.ok(reply.subarray(1).every((b) => b === 0), 'no key bytes with an error status');
  });

  it('the task refuses a request that is not a whole number of items', () => {
    assert.throws(() => recoverPublicKeys(new Uint8Array(RECOVER_ITEM_BYTES + 1)), /multiple of 97 bytes/);
  });
});

describe('recoverPublicKeys through every CryptoService', () => {
  let pool: CryptoPool;
  before(() => {
    pool = new CryptoPool({ threads: 1 }, { metrics: null, log: null });
  });
  after(() => pool.close());

  it('the worker pool and the micro-batcher answer as InlineCrypto does', async () => {
    const items: RecoverItem[] = fc.sample(fc.tuple(scalar, hash32), 50).map(([d, hash]) => {
      const rec = secp256k1.sign(hash, toBytes32(d), { prehash: false, format: 'recovered' });
      return { hash, signature: rec.subarray(1), recovery: rec[0]! };
    });
    items.push({ hash: new Uint8Array(32), signature: new Uint8Array(64), recovery: 0 });
    const expected = await inline.recoverPublicKeys(items);
    const batching = new BatchingCrypto(new InlineCrypto());
    const services: Array<[string, CryptoService]> = [
      ['pool', pool],
      ['batching', batching],
    ];
    for (const [name, service] of services) {
      assert.deepEqual(await service.recoverPublicKeys(items), expected, `${name} gives InlineCrypto's results`);
    }
    await batching.close();
  });
});
