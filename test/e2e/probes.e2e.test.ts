/**
 * The probe pair of a node process on Redis: `health-live` (liveness) answers 200 as long as the
 * process runs, whatever its store does; `health-check` (readiness) answers 503 while the store
 * is unreachable. The node reaches its own redis-server through a TCP proxy the test controls
 * (test/helpers/tcpProxy.ts, as in redisCut.e2e), which cuts the link, silently and then by
 * resets. Used as a liveness probe, health-check would have had every process restarted during
 * a Redis blip; health-live never would.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { startTcpProxy, type CutMode, type TcpProxy } from '../helpers/tcpProxy.js';
import { until } from '../helpers/until.js';

/** A liveness answer slower than this would fail a typical probe (Kubernetes' default timeout is 1 s). */
const LIVE_ANSWER_BOUND_MS = 1000;

let redis: RedisServer;
let proxy: TcpProxy;
let node: NodeProcess;

before(async () => {
  redis = await startRedisServer();
  proxy = await startTcpProxy({ port: redis.port });
  node = await startNodeProcess({ args: ['--redis', `redis://127.0.0.1:${proxy.port}`, '--miner', 'off', '--crypto-threads', '1'] });
});
after(async () => {
  await node?.stop();
  await proxy?.close();
  await redis?.stop();
});

async function probe(path: string): Promise<{ status: number; text: string; ms: number }> {
  const start = performance.now();
  const r = await fetch(`${node.url}${path}`);
  const text = await r.text();
  return { status: r.status, text, ms: performance.now() - start };
}

describe('GET /api/v0/health-live', () => {
  it('answers 200 with the reference body, also without the /api/v0 prefix', async () => {
    for (const path of ['/api/v0/health-live', '/health-live']) {
      const r = await probe(path);
      assert.equal(r.status, 200, path);
      assert.equal(r.text, '200');
    }
  });

  for (const mode of ['blackhole', 'reset'] as CutMode[]) {
    it(`answers 200 at once while the store is cut (${mode}) and health-check answers 503`, async () => {
      assert.equal((await probe('/api/v0/health-check')).status, 200, 'ready before the cut');
      proxy.cut(mode);
      try {
        const live: Array<{ status: number; ms: number }> = [];
        await until(async () => {
          live.push(await probe('/api/v0/health-live'));
          return (await probe('/api/v0/health-check')).status === 503;
        }, 'health-check answers 503 (not ready)');
        // Well into the outage: the liveness probe still answers, quickly.
        const deadline = performance.now() + 1500;
        while (performance.now() < deadline) live.push(await probe('/api/v0/health-live'));
        assert.ok(live.length > 5, `probed ${live.length} times`);
        for (const r of live) {
          assert.equal(r.status, 200, 'health-live is 200 throughout the outage');
          assert.ok(r.ms < LIVE_ANSWER_BOUND_MS, `health-live answered in ${Math.round(r.ms)} ms`);
        }
      } finally {
        proxy.restore();
      }
      await until(async () => (await probe('/api/v0/health-check')).status === 200, 'health-check answers 200 again', { timeoutMs: 15_000 });
      assert.equal((await probe('/api/v0/health-live')).status, 200);
    });
  }
});
