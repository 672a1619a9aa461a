/**
 * The built-in miner (chain/miner.ts): a search that takes several slices mines the mempool as
 * it is at its last slice, so what was admitted during the search is in the block and not left
 * to connect again on the new tip.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { AutoMiner } from '../../server/chain/miner.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { MemoryStore } from '../../server/store/memory.js';
import { solvedBlock } from '../helpers/mining.js';
import { newKey, signedTransfer } from '../helpers/transfers.js';
import { until } from '../helpers/until.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
after(() => crypto.close());

describe('AutoMiner', () => {
  it('a search over several slices mines what was admitted during it', async () => {
    const store = new MemoryStore();
    const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
    await chain.init();
    const [alice, bob, carol] = [newKey(), newKey(), newKey()];
    const first = await solvedBlock(chain, crypto, alice.pk, []);
    assert.ok((await chain.processBlock(first.header, first.txns)).isMainChain);
    await chain.submitTransaction(await signedTransfer(chain, crypto, alice, bob.pk, 1_000n));
    const late = await signedTransfer(chain, crypto, alice, carol.pk, 2_000n);

    // The first two slices find nothing; a transaction arrives during the first.
    let slices = 0;
    const slowCrypto = Object.create(crypto) as CryptoService;
    slowCrypto.mine = async (task) => {
      slices++;
      if (slices === 1) await chain.submitTransaction(late);
      if (slices <= 2) return { found: false, hashesTried: task.count } as Awaited<ReturnType<CryptoService['mine']>>;
      return crypto.mine({ ...task, count: 1 << 30 });
    };
    const miner = new AutoMiner({ chain, crypto: slowCrypto, store, rewardPublicKey: newKey().pk, blockIntervalSeconds: 0, log });
    try {
      await miner.start();
      await until(async () => (await chain.tip()).height === 2n, 'the miner mined a block', { timeoutMs: 10_000 });
      assert.ok(slices >= 3);
      assert.equal(await chain.mempoolSize(), 0, 'both transfers are in the block');
    } finally {
      await miner.stop();
      await store.close();
    }
  });

  it('waits for the clock instead of mining blocks that would be too far past it', async () => {
    const store = new MemoryStore();
    // The core rule (each block a second past its parent) and a 2 s allowance: three blocks
    // mined within one second reach it.
    const params = { ...DEV_CHAIN_PARAMS, minSecsAfterParent: 1n, maxTimestampFutureSecs: 2n };
    let nowMs = 1_900_000_000_000;
    const now = (): number => nowMs;
    const chain = new Chain({ store, crypto, params, log, now });
    await chain.init();
    const alice = newKey();
    for (let i = 1; i <= 3; i++) {
      const b = await solvedBlock(chain, crypto, alice.pk, [], i);
      assert.ok((await chain.processBlock(b.header, b.txns)).isMainChain);
    }
    await chain.submitTransaction(await signedTransfer(chain, crypto, alice, newKey().pk, 1_000n));
    let templates = 0;
    const counting = Object.create(chain) as Chain;
    counting.blockTemplate = (...args) => {
      templates++;
      return chain.blockTemplate(...args);
    };
    const miner = new AutoMiner({ chain: counting, crypto, store, rewardPublicKey: newKey().pk, blockIntervalSeconds: 0, log });
    try {
      const t0 = performance.now();
      await miner.start();
      await until(async () => templates >= 1, 'the miner looked at a template', { timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(miner.blocksMined, 0);
      // One look, then a wait of the 1 s the clock is short (another look per second at most).
      const most = 1 + Math.floor((performance.now() - t0) / 1000);
      assert.ok(templates <= most, `${templates} looks at a template (at most ${most}): no attempt after attempt`);
      nowMs += 1000; // the clock reaches the next block's timestamp less the allowance
      await until(async () => (await chain.tip()).height === 4n, 'the miner mined once the clock allowed', { timeoutMs: 10_000 });
      assert.equal(await chain.mempoolSize(), 0);
    } finally {
      await miner.stop();
      await store.close();
    }
  });

  it('backs off after failed attempts, whatever mempool events come meanwhile, and mines once they stop failing', async () => {
    const store = new MemoryStore();
    const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
    await chain.init();
    const alice = newKey();
    const first = await solvedBlock(chain, crypto, alice.pk, []);
    assert.ok((await chain.processBlock(first.header, first.txns)).isMainChain);
    let failing = true;
    let attempts = 0;
    const flaky = Object.create(chain) as Chain;
    flaky.blockTemplate = (...args) => {
      attempts++;
      return failing ? Promise.reject(new Error('template store hiccup')) : chain.blockTemplate(...args);
    };
    const miner = new AutoMiner({ chain: flaky, crypto, store, rewardPublicKey: newKey().pk, blockIntervalSeconds: 0, log });
    try {
      await miner.start();
      // A transaction every ~20 ms: each announces a mempool change.
      const t0 = performance.now();
      for (let i = 0; i < 32; i++) {
        await chain.submitTransaction(await signedTransfer(chain, crypto, alice, newKey().pk, 1_000n));
        await new Promise((r) => setTimeout(r, 20));
      }
      const elapsedMs = performance.now() - t0;
      // Attempts at ~0, 100, 300, 700, 1,500 ms… (back-offs of 100 ms doubling): within T ms at
      // most 1 + log2(T / 100 + 1) of them, plus one for timer slack; not one per event.
      const most = 2 + Math.floor(Math.log2(elapsedMs / 100 + 1));
      assert.ok(attempts >= 2 && attempts <= most, `${attempts} attempts in ${Math.round(elapsedMs)} ms (at most ${most})`);
      assert.equal(miner.failedAttempts, attempts, 'each failure is counted (socialnode_miner_failed_attempts_total)');
      failing = false;
      await until(async () => (await chain.mempoolSize()) === 0, 'the miner mined once the failures stopped', { timeoutMs: 10_000 });
      assert.ok(miner.blocksMined >= 1);
    } finally {
      await miner.stop();
      await store.close();
    }
  });
});
