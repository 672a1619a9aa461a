/**
 * A block of this node's own template is connected from the pending state (issue 18): its
 * transactions' writes, recorded when the mempool connected them, are applied instead of
 * connecting every transaction again. Two identical chains (same clock, same transactions) take
 * the same block, one from its pending state and one as a fresh process would (every
 * transaction connected, signatures from the mempool): every byte of both stores must match.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { PendingState } from '../../server/chain/mempool/pending.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { MemoryStore } from '../../server/store/memory.js';
import { solvedBlock } from '../helpers/mining.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import type { StateView } from '../../server/chain/state/view.js';
import { newKey, signedTransfer, type TestKey } from '../helpers/transfers.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
let clockMs = Number(DEV_CHAIN_PARAMS.genesisTstampSecs) * 1000 + 60_000;
const now = (): number => clockMs;
const stores = [new MemoryStore(), new MemoryStore()];
const chains = stores.map((store) => new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log, now }));

after(async () => {
  for (const s of stores) await s.close();
  await crypto.close();
});

/** Every value, counter and index of a memory store but block templates (a chain that built one keeps it), for comparing two stores byte for byte. */
function dump(store: MemoryStore): Record<string, unknown> {
  const s = store as unknown as { values: Map<string, { bytes: Buffer }>; counters: Map<string, number>; indexes: Map<string, string[]> };
  const out: Record<string, unknown> = {};
  for (const [k, v] of [...s.values].sort(([a], [b]) => (a < b ? -1 : 1))) if (!k.startsWith('chain:template:')) out[`v:${k}`] = v.bytes.toString('hex');
  for (const [k, v] of s.counters) out[`c:${k}`] = v;
  for (const [k, v] of s.indexes) if (v.length > 0) out[`x:${k}`] = [...v];
  return out;
}

const balanceIn = async (view: StateView, pk: Uint8Array): Promise<bigint> => (await view.get<bigint>(chainKeys.balance(pk))) ?? 0n;

const blockOf = (chain: Chain, reward: TestKey, txns: readonly Uint8Array[]) => solvedBlock(chain, crypto, reward.pk, txns);

/** Counts how often a chain connected a block from its pending state. */
function countFastPaths(): { count: number; restore: () => void } {
  const original = PendingState.prototype.connectedPrefix;
  const counter = { count: 0, restore: () => void (PendingState.prototype.connectedPrefix = original) };
  PendingState.prototype.connectedPrefix = function (this: PendingState, ...args: Parameters<typeof original>) {
    const r = original.apply(this, args);
    if (r !== null) counter.count++;
    return r;
  };
  return counter;
}

describe('a block connected from the pending state', () => {
  it('writes exactly what connecting every transaction writes', async () => {
    const [alice, bob, carol] = [newKey(), newKey(), newKey()];
    for (const c of chains) await c.init();
    // Both chains take the same first block: alice's reward.
    const first = await blockOf(chains[0]!, alice, []);
    for (const c of chains) assert.ok((await c.processBlock(first.header, first.txns)).isMainChain);
    clockMs += 10_000;

    // Dependent transfers (bob spends what alice sent him in the same block), and one that fails.
    const signed = [
      await signedTransfer(chains[0]!, crypto, alice, bob.pk, 50_000n),
      await signedTransfer(chains[0]!, crypto, bob, carol.pk, 20_000n),
      await signedTransfer(chains[0]!, crypto, alice, carol.pk, 7_000n),
      await signedTransfer(chains[0]!, crypto, carol, bob.pk, 1_000n),
    ];
    for (const c of chains) for (const bytes of signed) await c.submitTransaction(bytes);
    const overspend = await signedTransfer(chains[0]!, crypto, carol, alice.pk, 10n ** 15n);
    for (const c of chains) await assert.rejects(c.submitTransaction(overspend));
    assert.deepEqual(dump(stores[0]!), dump(stores[1]!), 'same mempool on both');

    const fast = countFastPaths();
    try {
      const block = await blockOf(chains[0]!, carol, (await chains[0]!.mempool()).map((m) => m.bytes));
      assert.equal(block.txns.length, 5);
      const a = await chains[0]!.processBlock(block.header, block.txns);
      assert.equal(fast.count, 1, 'the first chain applied its pending writes');
      // A fresh process on the second store has no pending state of its own: it connects all.
      const fresh = new Chain({ store: stores[1]!, crypto, params: DEV_CHAIN_PARAMS, log, now });
      const b = await fresh.processBlock(block.header, block.txns);
      assert.equal(fast.count, 1, 'the fresh process connected every transaction');
      assert.ok(a.isMainChain && b.isMainChain);
      assert.equal(a.hashHex, b.hashHex);
    } finally {
      fast.restore();
    }
    assert.deepEqual(dump(stores[0]!), dump(stores[1]!), 'both ways wrote the same bytes');
    assert.equal(await chains[0]!.mempoolSize(), 0);
  });

  it('connects every transaction when the block is not a prefix of what the pending state connected', async () => {
    const [dave, erin] = [newKey(), newKey()];
    const chain = chains[0]!;
    clockMs += 10_000;
    const funding = await blockOf(chain, dave, []);
    assert.ok((await chain.processBlock(funding.header, funding.txns)).isMainChain);
    clockMs += 10_000;
    const first = await signedTransfer(chain, crypto, dave, erin.pk, 3_000n);
    const second = await signedTransfer(chain, crypto, dave, erin.pk, 4_000n);
    await chain.submitTransaction(first);
    await chain.submitTransaction(second);
    const fast = countFastPaths();
    try {
      // A block of the second alone (another miner's choice): the pending state's first
      // transaction is not in it, so its recorded writes (made after the first's) do not apply.
      assert.equal((await chain.blockTemplate(dave.pk, 1)).stats.TxnCount, 2);
      const block = await blockOf(chain, dave, [second]);
      const r = await chain.processBlock(block.header, block.txns);
      assert.ok(r.isMainChain, 'the block connected');
      assert.equal(fast.count, 0, 'every transaction was connected');
    } finally {
      fast.restore();
    }
    // The first transfer is still pending and still connects on the new tip.
    assert.equal(await chain.mempoolSize(), 1);
    assert.equal((await chain.blockTemplate(dave.pk, 1)).stats.TxnCount, 1);
  });

  it('leaves the pending state a full replay on the new tip would build (built while the block commits)', async () => {
    const [fay, gus, hal] = [newKey(), newKey(), newKey()];
    const chain = chains[0]!;
    clockMs += 10_000;
    const funding = await blockOf(chain, fay, []);
    assert.ok((await chain.processBlock(funding.header, funding.txns)).isMainChain);
    clockMs += 10_000;
    // Mined by the block: two transfers. Left for after it: one that spends what the block
    // gives, and one whose nonce expires at the block's own height (valid in it, not after it).
    const mined = [await signedTransfer(chain, crypto, fay, gus.pk, 40_000n), await signedTransfer(chain, crypto, fay, hal.pk, 9_000n)];
    for (const bytes of mined) await chain.submitTransaction(bytes);
    const template = await blockOf(chain, fay, (await chain.mempool()).map((m) => m.bytes));
    const shortLived = { params: { ...chain.params, maxNonceExpirationBlockHeightOffset: 0n }, tip: () => chain.tip() } as unknown as Chain;
    const rest = [await signedTransfer(chain, crypto, gus, hal.pk, 5_000n), await signedTransfer(shortLived, crypto, fay, gus.pk, 1_000n)];
    for (const bytes of rest) await chain.submitTransaction(bytes);

    let built = 0;
    const original = PendingState.prototype.replayAfterBlock;
    PendingState.prototype.replayAfterBlock = function (this: PendingState, ...args: Parameters<typeof original>) {
      const r = original.apply(this, args);
      if (r !== null) built++;
      return r;
    };
    try {
      assert.ok((await chain.processBlock(template.header, template.txns)).isMainChain);
    } finally {
      PendingState.prototype.replayAfterBlock = original;
    }
    assert.equal(built, 1, 'the pending state after the block was built during its commit');

    // A fresh process on the same store replays the mempool on the new tip from scratch.
    const fresh = new Chain({ store: stores[0]!, crypto, params: DEV_CHAIN_PARAMS, log, now });
    const [a, b] = [await chain.pendingPlaces(), await fresh.pendingPlaces()];
    assert.equal(a.height, b.height);
    const placed = (p: typeof a): string[] => [1, 2, 3, 4].map((i) => Buffer.from(p.txnAt(i) ?? []).toString('hex'));
    assert.deepEqual(placed(a), placed(b), 'the same transactions at the same places');
    assert.equal(placed(a).filter((h) => h !== '').length, 1, 'the dependent transfer connects; the expired one does not');
    const templateA = await chain.blockTemplate(fay.pk, 1);
    const templateB = await fresh.blockTemplate(fay.pk, 1);
    assert.equal(templateA.stats.TxnCount, templateB.stats.TxnCount);
    assert.deepEqual(templateA.stats, templateB.stats);
    for (const k of [fay, gus, hal]) assert.equal(await balanceIn(a.view, k.pk), await balanceIn(b.view, k.pk));
  });

  it('a store that fails while the block commits leaves no unhandled rejection, and readers rebuild', async () => {
    // Reads fail for as long as the block's commit is in flight: the replay built meanwhile
    // fails before anyone awaits it (settle runs only once the commit is back).
    class FailsDuringCommit extends MemoryStore {
      failing = false;
      armed = false;
      override async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
        if (this.failing) throw new Error('store unavailable (test)');
        return super.getMany<T>(keys);
      }
      override async commit(...args: Parameters<MemoryStore['commit']>): Promise<boolean> {
        if (this.armed) {
          this.failing = true;
          await new Promise((r) => setTimeout(r, 30));
          this.failing = false;
        }
        return super.commit(...args);
      }
    }
    const store = new FailsDuringCommit();
    const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log, now });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await chain.init();
      const [ivy, jon] = [newKey(), newKey()];
      clockMs += 10_000;
      const funding = await blockOf(chain, ivy, []);
      assert.ok((await chain.processBlock(funding.header, funding.txns)).isMainChain);
      clockMs += 10_000;
      await chain.submitTransaction(await signedTransfer(chain, crypto, ivy, jon.pk, 30_000n));
      const block = await blockOf(chain, ivy, (await chain.mempool()).map((m) => m.bytes));
      // Left for after the block: the replay of it is what fails.
      const left = await signedTransfer(chain, crypto, jon, ivy.pk, 1_000n);
      await chain.submitTransaction(left);

      store.armed = true;
      assert.ok((await chain.processBlock(block.header, block.txns)).isMainChain, 'the block is committed');
      store.armed = false;
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(unhandled, [], 'the failed replay was handled');
      const places = await chain.pendingPlaces();
      assert.equal(Buffer.from(places.txnAt(1) ?? []).toString('hex'), Buffer.from(left).toString('hex'), 'a reader rebuilt the pending state on the new tip');
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await store.close();
    }
  });
});

