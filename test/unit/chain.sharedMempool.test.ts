/**
 * One mempool shared by several processes (issue 8): two Chain instances over one store stand
 * for two server processes. Admissions alternate between them; each brings its cached replay
 * up to date by connecting only the other's new admissions (no full replay), and the pending
 * state it sees always equals a full replay's. A prune or a block forces a full replay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { MemoryStore } from '../../server/store/memory.js';
import type { IndexRange } from '../../server/store/types.js';
import { solveHeader } from '../helpers/mining.js';
import { newKey, signedTransfer } from '../helpers/transfers.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
const store = new MemoryStore();
/** Full reads of the mempool order (a full replay), counted per test. */
let fullOrderReads = 0;
const indexRange = store.indexRange.bind(store);
store.indexRange = (key: string, range?: IndexRange) => {
  if (key === 'mempool:order' && range?.gte === undefined) fullOrderReads++;
  return indexRange(key, range);
};
const processA = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
const processB = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });

const alice = newKey();
const bob = newKey();

before(async () => {
  await processA.init();
  const t = await processA.blockTemplate(alice.pk, 1);
  await processA.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
});
after(async () => {
  await store.close();
  await crypto.close();
});

const transfer = (amount: bigint): Promise<Uint8Array> => signedTransfer(processA, crypto, alice, bob.pk, amount);

/** Bob's balance in the pending state of a chain, and of a fresh process (a full replay). */
async function pendingBalances(chain: Chain): Promise<[bigint | undefined, bigint | undefined]> {
  const fresh = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
  const key = chainKeys.balance(bob.pk);
  return [await (await chain.pendingView()).get<bigint>(key), await (await fresh.pendingView()).get<bigint>(key)];
}

describe('a mempool shared by two processes', () => {
  it('admissions alternate between processes without a full replay, and each sees the full replay\'s state', async () => {
    // Warm both caches.
    await processA.submitTransaction(await transfer(1000n));
    await processB.submitTransaction(await transfer(1000n));
    fullOrderReads = 0;
    for (let i = 0; i < 10; i++) {
      const chain = i % 2 === 0 ? processA : processB;
      await chain.submitTransaction(await transfer(BigInt(1000 + i)));
    }
    assert.equal(fullOrderReads, 0, 'each process extended its replay with the other\'s admissions');
    for (const chain of [processA, processB]) {
      const [seen, full] = await pendingBalances(chain);
      assert.equal(seen, full, 'the extended replay equals a full replay');
    }
    assert.equal(await processB.mempoolSize(), 12);
    const t = await processB.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.TxnCount, 12, 'the template holds every admission, in order');
  });

  it('a new block makes the next admission replay in full', async () => {
    const t = await processA.blockTemplate(alice.pk, 1);
    const r = await processA.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
    assert.ok(r.isMainChain, 'the block connected');
    fullOrderReads = 0;
    await processB.submitTransaction(await transfer(5000n));
    assert.ok(fullOrderReads > 0, 'a new tip: full replay');
    const [seen, full] = await pendingBalances(processB);
    assert.equal(seen, full);
  });

  it('a process whose cached pending state the other moved admits what the move made valid', async () => {
    // Two new processes (no history of racing each other): C's cache is current, then D funds
    // carol, and C's cache still says she has nothing.
    const [c, d] = [new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log }), new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log })];
    const carol = newKey();
    await c.submitTransaction(await transfer(1n));
    await d.submitTransaction(await signedTransfer(d, crypto, alice, carol.pk, 50_000n));
    // Refused on C's stale cache alone; admitted on the pending state.
    await c.submitTransaction(await signedTransfer(c, crypto, carol, bob.pk, 10_000n));
    const [seen, full] = await pendingBalances(c);
    assert.equal(seen, full);
    assert.equal(await c.mempoolSize(), await d.mempoolSize());
  });
});
