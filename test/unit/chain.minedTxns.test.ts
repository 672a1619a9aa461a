/** Mined transactions by hash (server/chain/state/minedTxns.ts): bucketed locations, checked against the block. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sha256d } from '../../wasm/hash.js';
import { packBlockBody } from '../../server/chain/block/body.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import { isMinedTxn, minedTxnLocation, minedTxnOps, txnLocationMember } from '../../server/chain/state/minedTxns.js';
import { MemoryStore } from '../../server/store/memory.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

async function storeWithBlock(height: bigint, txns: Uint8Array[]): Promise<{ store: MemoryStore; hashes: string[] }> {
  const store = new MemoryStore();
  const hashes = txns.map((t) => hex(sha256d(t)));
  const blockHash = hex(randomBytes(32));
  await store.commit([
    { op: 'set', key: chainKeys.hashAtHeight(height), value: blockHash },
    { op: 'set', key: chainKeys.block(blockHash), value: { header: new Uint8Array(100), body: await packBlockBody(txns), height, targetHex: 'ff'.repeat(32), mainChain: true } },
    ...minedTxnOps(height, hashes),
  ]);
  return { store, hashes };
}

describe('mined transaction locations', () => {
  it('finds each transaction of a block at its height and index', async () => {
    const txns = Array.from({ length: 300 }, () => randomBytes(100));
    const { store, hashes } = await storeWithBlock(70_000n, txns);
    for (const [i, h] of hashes.entries()) {
      assert.deepEqual(await minedTxnLocation(store, h), [70_000, i]);
      assert.equal(await isMinedTxn(store, h), true);
    }
    const other = hex(randomBytes(32));
    assert.equal(await minedTxnLocation(store, other), undefined);
    assert.equal(await isMinedTxn(store, other), false);
  });

  it('groups one block\'s locations by bucket: one index write per bucket', () => {
    const hashes = ['abcd' + '11'.repeat(30), 'abcd' + '22'.repeat(30), 'abce' + '33'.repeat(30)];
    const ops = minedTxnOps(5n, hashes);
    assert.equal(ops.length, 2);
    assert.deepEqual(ops.map((o) => (o.op === 'indexAdd' ? o.members.length : 0)), [2, 1]);
  });

  it('serves a transaction only when its whole hash matches: a hash sharing the located bytes is not it', async () => {
    const txn = randomBytes(120);
    const { store, hashes } = await storeWithBlock(9n, [txn]);
    // Same first 14 bytes, different rest: a (self-made) collision of the located bytes.
    const twin = hashes[0]!.slice(0, 28) + 'f'.repeat(36);
    assert.equal(await isMinedTxn(store, twin), true, 'admission refuses it as mined, as one of one\'s own colliding pair');
    assert.equal(await minedTxnLocation(store, twin), undefined, 'but no read serves the other transaction for it');
    assert.deepEqual(await minedTxnLocation(store, hashes[0]!), [9, 0]);
  });

  it('keeps members short: 14 hash bytes and the location, in text', () => {
    assert.ok(txnLocationMember('ab'.repeat(32), 1_000_000n, 3000).length <= 26);
  });
});
