/**
 * The Redis store cut from its Redis by a TCP proxy (test/helpers/tcpProxy.ts), issue 17: every
 * call fails with STORE_UNAVAILABLE within about a second of being made, even one queued behind
 * a stalled pipeline; once one has, later calls fail at once; and the same store answers again
 * as soon as the link is back, without a reconnect of its own when nothing was closed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { performance } from 'node:perf_hooks';
import { RedisStore } from '../../server/store/redis.js';
import { isStoreError } from '../../server/store/types.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';
import { until } from '../helpers/until.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls `call` and answers how long it took to fail, asserting it failed as unavailable. */
async function failsUnavailable(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await assert.rejects(call(), (err: unknown) => {
    assert.ok(isStoreError(err), `expected a StoreError, got ${inspect(err)}`);
    assert.equal(err.code, 'STORE_UNAVAILABLE', err.message);
    return true;
  });
  return performance.now() - started;
}

describe('RedisStore cut from Redis', () => {
  let redis: RedisServer;
  let prefix = 0;

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });

  /** A store that reaches Redis through a proxy of its own. */
  const open = async (): Promise<{ proxy: TcpProxy; store: RedisStore; close: () => Promise<void> }> => {
    const proxy = await startTcpProxy({ port: redis.port });
    const store = await RedisStore.connect({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: `cut${++prefix}:` });
    await store.set('k', 'before');
    const close = async (): Promise<void> => {
      await store.close();
      await proxy.close();
    };
    return { proxy, store, close };
  };

  it('a silent link: each call fails within ~1 s of being made, later ones at once, and the link\'s return ends it', async () => {
    const { proxy, store, close } = await open();
    try {
      const connections = proxy.accepted;
      proxy.cut('blackhole');
      const first = store.get('k');
      // Made while the first is stuck: with auto-pipelining it waits unsent behind it, and
      // its own deadline must still run from here (before: ~2 s wait, then 2 s of its own).
      await sleep(300);
      const queuedMs = failsUnavailable(() => store.getMany(['k', 'other']));
      const firstMs = await failsUnavailable(() => first);
      assert.ok(firstMs < 1500, `the first call failed after ${Math.round(firstMs)} ms`);
      assert.ok((await queuedMs) < 1500, `a call queued behind it failed after ${Math.round(await queuedMs)} ms`);
      // Stalled: no call waits out a deadline of its own any more.
      for (const call of [() => store.get('k'), () => store.ping(), () => store.set('k', 'x'), () => store.commit([{ op: 'set', key: 'k', value: 'y' }])]) {
        const ms = await failsUnavailable(call);
        assert.ok(ms < 200, `a call while stalled took ${Math.round(ms)} ms to fail`);
      }

      proxy.restore();
      const restoredAt = performance.now();
      await until(async () => (await store.ping().then(() => true, () => false)) || undefined, 'the store answers again', { timeoutMs: 3000, intervalMs: 10 });
      const recoveredMs = performance.now() - restoredAt;
      assert.ok(recoveredMs < 1000, `answered again ${Math.round(recoveredMs)} ms after the link came back`);
      // Nothing was sent while failing fast: the refused writes never ran.
      assert.equal(await store.get('k'), 'before');
      assert.equal(proxy.accepted, connections, 'no reconnect: the connection was kept');
    } finally {
      await close();
    }
  });

  it('reset connections: calls fail at once while the link is down, and the store reconnects by itself within ~1 s of its return', async () => {
    const { proxy, store, close } = await open();
    try {
      proxy.cut('reset');
      await sleep(100);
      for (const call of [() => store.get('k'), () => store.ping()]) {
        const ms = await failsUnavailable(call);
        assert.ok(ms < 500, `a call on a reset link took ${Math.round(ms)} ms to fail`);
      }
      // Long enough for the reconnect backoff to reach its cap.
      await sleep(2500);
      proxy.restore();
      const restoredAt = performance.now();
      await until(async () => (await store.ping().then(() => true, () => false)) || undefined, 'the store answers again', { timeoutMs: 5000, intervalMs: 10 });
      const recoveredMs = performance.now() - restoredAt;
      assert.ok(recoveredMs < 1500, `answered again ${Math.round(recoveredMs)} ms after the link came back`);
      assert.equal(await store.get('k'), 'before');
    } finally {
      await close();
    }
  });
});
