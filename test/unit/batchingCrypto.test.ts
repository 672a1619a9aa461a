/** BatchingCrypto: per-item calls of concurrent requests become few inner batches, results unchanged. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { BatchingCrypto } from '../../server/crypto/batching.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import type { SignItem } from '../../server/crypto/pack.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

/** InlineCrypto that counts the batches it is asked to run. */
class CountingCrypto extends InlineCrypto {
  calls: Record<string, number[]> = {};
  private note(name: string, n: number): void {
    (this.calls[name] ??= []).push(n);
  }
  override sign(items: readonly SignItem[]) {
    this.note('sign', items.length);
    return super.sign(items);
  }
  override verifySignatures(items: Parameters<InlineCrypto['verifySignatures']>[0]) {
    this.note('verify', items.length);
    return super.verifySignatures(items);
  }
}

describe('BatchingCrypto', () => {
  it('200 concurrent single signatures run as a few batches, each caller getting its own result', async () => {
    const inner = new CountingCrypto();
    const crypto = new BatchingCrypto(inner);
    const keys = Array.from({ length: 200 }, () => new Uint8Array(randomBytes(32)));
    const hashes = keys.map(() => new Uint8Array(randomBytes(32)));
    const signed = await Promise.all(keys.map((privateKey, i) => crypto.sign([{ privateKey, hash: hashes[i]! }])));
    const direct = await new InlineCrypto().sign(keys.map((privateKey, i) => ({ privateKey, hash: hashes[i]! })));
    signed.forEach(([r], i) => assert.deepEqual(r, direct[i], `item ${i} gets its own signature`));
    assert.ok(inner.calls['sign']!.length <= 4, `coalesced into ${inner.calls['sign']!.length} batches`);
    assert.equal(inner.calls['sign']!.reduce((a, b) => a + b, 0), 200, 'every item signed once');

    const verified = await Promise.all(
      signed.map(([r], i) => crypto.verifySignatures([{ publicKey: getPublicKey(keys[i]!, true), hash: hashes[i]!, signature: r!.ok ? r!.value.signature : new Uint8Array(64) }])),
    );
    assert.ok(verified.every(([v]) => v?.ok && v.value), 'every signature verifies');
    await crypto.close();
  });

  it('a bad item is refused alone; the rest of its batch succeeds', async () => {
    const crypto = new BatchingCrypto(new InlineCrypto());
    const good = crypto.sign([{ privateKey: new Uint8Array(randomBytes(32)), hash: new Uint8Array(32) }]);
    const bad = crypto.sign([{ privateKey: new Uint8Array(31), hash: new Uint8Array(32) }]);
    const [[g], [b]] = await Promise.all([good, bad]);
    assert.equal(g?.ok, true);
    assert.equal(b?.ok, false);
    await crypto.close();
  });
});
