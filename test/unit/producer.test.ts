/**
 * The block producer of a cluster (issue 8): the producer lease elects exactly one process,
 * hands over when the holder stops or goes silent, and fences writes so a paused old holder
 * cannot write a block; the BlockProducer publishes templates only while it leads and applies
 * the operator's miner setting node-wide. Every case runs on the memory store and on Redis.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { BlockProducer } from '../../server/chain/blockProducer.js';
import { Chain, CHANNEL_MEMPOOL, CHANNEL_TEMPLATE, FencedError } from '../../server/chain/chain.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import { AutoMiner } from '../../server/chain/miner.js';
import { ProducerLease, LEASE_KEY } from '../../server/cluster/producerLease.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { MemoryStore } from '../../server/store/memory.js';
import { RedisStore } from '../../server/store/redis.js';
import type { Store } from '../../server/store/types.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { solveHeader } from '../helpers/mining.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { until as untilHolds } from '../helpers/until.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const newPk = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const until = (check: () => boolean | Promise<boolean>, what: string): Promise<boolean> => untilHolds(check, what, { timeoutMs: 5_000 });


let redis: RedisServer;
let namespace = 0;
before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis.stop();
  await crypto.close();
});

const STORES: Array<[string, () => Promise<Store>]> = [
  ['memory', async () => new MemoryStore()],
  ['redis', () => RedisStore.connect({ url: redis.url, keyPrefix: `producer${++namespace}:` })],
];

for (const [kind, open] of STORES) {
  describe(`ProducerLease (${kind} store)`, () => {
    let store: Store;
    const leases: ProducerLease[] = [];
    const lease = (processId: string, opts: { ttlMs?: number; now?: () => number } = {}): ProducerLease => {
      const l = new ProducerLease({ store, processId, log, ...opts });
      leases.push(l);
      return l;
    };
    before(async () => {
      store = await open();
    });
    after(async () => {
      for (const l of leases) await l.stop();
      await store.close();
    });

    it('of several processes on one store exactly one leads, and the store names it', async () => {
      await store.delete(LEASE_KEY);
      const ls = [lease('a'), lease('b'), lease('c')];
      await Promise.all(ls.map((l) => l.start()));
      const leaders = ls.filter((l) => l.leading);
      assert.equal(leaders.length, 1, 'one leader');
      assert.deepEqual(await leaders[0]!.holder(), leaders[0]!.term);
      assert.deepEqual(ls.filter((l) => !l.leading).map((l) => l.fence()), [null, null], 'followers have no fence');
      for (const l of ls) await l.stop();
      assert.equal(await store.get(LEASE_KEY), undefined, 'the holder gave the lease up on stop');
    });

    it('a holder that stops hands over at once: the next attempt elsewhere takes it with a higher epoch', async () => {
      const a = lease('a');
      const b = lease('b');
      await a.start();
      await b.start();
      const first = a.leading ? a : b;
      const second = first === a ? b : a;
      const epoch = first.term!.Epoch;
      const heard: boolean[] = [];
      second.onChange((leading) => heard.push(leading));
      await first.stop();
      await second.tick();
      assert.ok(second.leading, 'the other process leads');
      assert.ok(second.term!.Epoch > epoch, 'with a higher epoch');
      assert.deepEqual(heard, [true], 'its listeners heard the change once');
      await second.stop();
      assert.deepEqual(heard, [true, false], 'and the loss once');
    });

    it('renewal keeps the lease beyond its TTL; a silent holder loses it when it expires', async () => {
      // Renewed by hand, so a loaded machine's timer delays cannot end the term early.
      const a = lease('a', { ttlMs: 2000 });
      const b = lease('b', { ttlMs: 2000 });
      await a.tick();
      await sleep(1200);
      await a.tick();
      await sleep(1200);
      await b.tick();
      assert.ok(a.leading && !b.leading, 'a renewed and still leads after more than its TTL');
      assert.deepEqual(await b.holder(), a.term, 'the store still names a');
      // a goes silent (as a crashed or stopped process): no more renewals, the key expires.
      await sleep(2100);
      assert.ok(!a.leading, 'a knows its term ran out');
      await b.tick();
      assert.ok(b.leading, 'b took the expired lease');
      assert.equal((await b.holder())?.ProcessId, 'b');
    });
  });

  describe(`fenced block writes (${kind} store)`, () => {
    let store: Store;
    let chain: Chain;
    const reward = newPk();
    before(async () => {
      store = await open();
      chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
      await chain.init();
    });
    after(async () => {
      await store.close();
    });

    /** A solved block on the current tip: (header, extra nonce, template id). */
    async function solvedBlock(): Promise<{ header: Uint8Array; extraNonce: bigint; blockId: string }> {
      const t = await chain.blockTemplate(reward, 1);
      return { header: await solveHeader(crypto, t.headers[0]!, t.target), extraNonce: t.extraNonces[0]!, blockId: t.blockId };
    }

    it('a paused old leader cannot write: its block is refused and nothing is stored; the new leader\'s connects', async () => {
      await store.delete(LEASE_KEY);
      // The old leader's clock stands still: it wakes from its pause still believing it leads.
      const old = new ProducerLease({ store, processId: 'old', log, ttlMs: 300, now: () => 0 });
      const next = new ProducerLease({ store, processId: 'next', log, ttlMs: 300 });
      await old.tick();
      const staleFence = old.fence();
      assert.ok(staleFence, 'the old leader led');
      const block = await solvedBlock();
      await sleep(400); // the pause: the lease expires
      await next.tick();
      assert.ok(next.leading, 'another process took over');
      assert.ok(old.fence(), 'the paused leader still thinks it leads');

      const tipBefore = await chain.tip();
      await assert.rejects(chain.submitBlock(reward, block.header, block.extraNonce, block.blockId, { fence: staleFence }), FencedError);
      assert.deepEqual(await chain.tip(), tipBefore, 'the tip did not move');
      const [hash] = await crypto.hashHeaders([block.header]);
      assert.equal(await store.get(chainKeys.block(Buffer.from(hash!).toString('hex'))), undefined, 'the block was not stored, not even as a side block');

      const r = await chain.submitBlock(reward, block.header, block.extraNonce, block.blockId, { fence: next.fence()! });
      assert.ok(r.isMainChain, 'the same block under the current fence connects');
      await next.stop();
    });

    it('a lease that merely expired (no successor yet) fences its old holder too', async () => {
      await store.delete(LEASE_KEY);
      const old = new ProducerLease({ store, processId: 'old', log, ttlMs: 300, now: () => 0 });
      await old.tick();
      const fence = old.fence()!;
      const block = await solvedBlock();
      await sleep(400);
      await assert.rejects(chain.submitBlock(reward, block.header, block.extraNonce, block.blockId, { fence }), FencedError);
      const r = await chain.submitBlock(reward, block.header, block.extraNonce, block.blockId);
      assert.ok(r.isMainChain, 'an outside miner\'s unfenced submission of the block still connects');
    });
  });

  describe(`BlockProducer (${kind} store)`, () => {
    let store: Store;
    let chain: Chain;
    const producers: BlockProducer[] = [];
    before(async () => {
      store = await open();
      chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
      await chain.init();
      await store.delete(LEASE_KEY);
    });
    after(async () => {
      for (const p of producers) await p.stop();
      await store.close();
    });

    function producer(processId: string, withMiner: boolean): { producer: BlockProducer; miner: AutoMiner | null; lease: ProducerLease } {
      const lease = new ProducerLease({ store, processId, log });
      const miner = withMiner ? new AutoMiner({ chain, crypto, store, rewardPublicKey: newPk(), blockIntervalSeconds: 0, log, fence: () => lease.fence() }) : null;
      const p = new BlockProducer({ chain, store, lease, miner, defaultRewardKey: newPk(), log });
      producers.push(p);
      return { producer: p, miner, lease };
    }

    it('only the leader publishes templates, one per change, and every subscriber gets them', async () => {
      const a = producer('a', false);
      const b = producer('b', false);
      const announced: string[] = [];
      const unsubscribe = await store.subscribe(CHANNEL_TEMPLATE, (m) => announced.push((m as { BlockId: string }).BlockId));
      await a.producer.start();
      await b.producer.start();
      const [leader, follower] = a.producer.leading ? [a.producer, b.producer] : [b.producer, a.producer];
      await until(() => leader.templatesPublished >= 1, 'the new leader announces a template');
      const before = leader.templatesPublished;
      await store.publish(CHANNEL_MEMPOOL, { added: 'test' });
      await until(() => leader.templatesPublished > before, 'a mempool change publishes a template');
      await until(() => announced.length >= 2, 'subscribers hear the templates');
      assert.equal(follower.templatesPublished, 0, 'the follower published nothing');
      const t = await chain.publishedTemplate(announced.at(-1)!, newPk(), 2);
      assert.ok(t, 'the announced template is in the store');
      assert.equal(t.headers.length, 2, 'with headers for any reward key');
      assert.equal(t.height, (await chain.tip()).height + 1n);
      await unsubscribe();
      await a.producer.stop();
      await b.producer.stop();
    });

    it('the miner runs on the leader only; the operator\'s setting reaches it from any process and outlives a handover', async () => {
      await store.delete(LEASE_KEY);
      const a = producer('a', true);
      const b = producer('b', true);
      await a.producer.start();
      await b.producer.start();
      const [leader, follower] = a.producer.leading ? [a, b] : [b, a];
      assert.ok(leader.miner!.active && !follower.miner!.active, 'only the leader mines');

      await follower.producer.setMiner('pause');
      await until(() => !leader.miner!.active, 'the leader pauses on the follower\'s request');
      await until(async () => !(await follower.producer.status()).mining, 'status shows the pause on every process');

      const keys = [newPk(), newPk()];
      await follower.producer.setMiner(keys);
      await until(() => leader.miner!.active, 'the leader mines again');
      await until(async () => (await follower.producer.status()).rewardPublicKeys.length === 2, 'status shows the keys');
      assert.deepEqual(leader.miner!.rewardPublicKeys, keys, 'paid to the operator\'s keys');

      await leader.producer.stop();
      await follower.lease.tick();
      await until(() => follower.miner!.active, 'the next leader mines');
      assert.deepEqual(follower.miner!.rewardPublicKeys, keys, 'with the operator\'s keys');
      assert.equal((await follower.producer.status()).producer?.ProcessId, follower === a ? 'a' : 'b');
    });
  });
}
