/**
 * Redis restarted under load (issue 8, faults): a node on an AOF-persisted redis-server keeps
 * taking transactions and reads; Redis goes down and comes back on the same port and data
 * directory. While it is down the node answers 503 with `Retry-After` (never 500, never a
 * crash); afterwards it serves again by itself, and every transaction it acknowledged before
 * the restart is still there and gets mined.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { keyPair, startChainNode, type ChainNode, type KeyPair } from '../helpers/chainNode.js';
import { request } from '../helpers/http.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { minedTxnLocation } from '../../server/chain/state/minedTxns.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };

let dir: string;
let redis: RedisServer;
let n: ChainNode;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sn-redis-restart-'));
  redis = await startRedisServer({ appendonly: true, dir });
  n = await startChainNode({ redisUrl: redis.url, args: ['--health-probe-interval-ms', '100'] });
});
after(async () => {
  await n?.close();
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface LoadStats {
  acknowledged: string[];
  ok: number;
  unavailable: number;
  /** Statuses other than 200 and 503 (a 500 would be a bug). */
  other: Array<{ status: number; error: string }>;
}

/** Sends native coins from `from` to fresh keys until `stop()`; records what was acknowledged. */
function sender(from: KeyPair, stats: LoadStats): { stop: () => Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      const c = await n.post('send-deso', { ...FEE, SenderPublicKeyBase58Check: from.pk, RecipientPublicKeyOrUsername: keyPair().pk, AmountNanos: 1000 });
      if (c.status === 200) {
        const s = await n.post('submit-transaction', { TransactionHex: await n.sign(c.json['TransactionHex'] as string, from, 'sdk') });
        record(stats, s.status, s.json);
        if (s.status === 200) stats.acknowledged.push(s.json['TxnHashHex'] as string);
      } else {
        record(stats, c.status, c.json);
      }
      if (c.status !== 200) await sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** Reads a profile-less user's page and the app state until `stop()`. */
function reader(stats: LoadStats): { stop: () => Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      const r = await n.post('get-app-state', {});
      record(stats, r.status, r.json);
      if (r.status !== 200) await sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

function record(stats: LoadStats, status: number, json: Record<string, unknown>): void {
  if (status === 200) stats.ok++;
  else if (status === 503) stats.unavailable++;
  else stats.other.push({ status, error: String(json['error']) });
}

async function waitForHealth(status: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await request(n.url, '/api/v0/health-check')).status === status) return;
    await sleep(50);
  }
  assert.fail(`health-check never answered ${status}`);
}

describe('Redis restarted under load (AOF on)', () => {
  it('answers 503 while it is down, recovers by itself, and loses no acknowledged transaction', async () => {
    const senders = [keyPair(), keyPair()];
    for (const k of senders) await n.fund(k.pk, 0.05 * 1e9);
    const before: LoadStats = { acknowledged: [], ok: 0, unavailable: 0, other: [] };
    const during: LoadStats = { acknowledged: [], ok: 0, unavailable: 0, other: [] };

    let loads = [...senders.map((k) => sender(k, before)), reader(before)];
    await sleep(1500);
    await redis.stop(); // SIGTERM: Redis flushes its AOF and exits
    await Promise.all(loads.map((l) => l.stop()));
    assert.ok(before.acknowledged.length > 0, 'transactions were acknowledged before the restart');

    // Down: every request that needs the store is a clear 503.
    await waitForHealth(503);
    loads = [...senders.map((k) => sender(k, during)), reader(during)];
    await sleep(1000);
    await Promise.all(loads.map((l) => l.stop()));
    assert.ok(during.unavailable > 0, 'requests during the outage were answered 503');
    assert.deepEqual(during.other, [], 'no other failure (no 500) while Redis was down');
    assert.equal(during.acknowledged.length, 0, 'nothing was acknowledged without a store');
    const refused = await n.post('get-app-state', {});
    assert.equal(refused.status, 503, 'a read that needs the store is 503');
    assert.match(String(refused.json['error']), /unavailable|unreachable/i, 'with a clear reason');

    // Back on the same port and data directory.
    redis = await startRedisServer({ appendonly: true, dir, port: redis.port });
    await waitForHealth(200);
    const afterRestart: LoadStats = { acknowledged: [], ok: 0, unavailable: 0, other: [] };
    loads = [...senders.map((k) => sender(k, afterRestart)), reader(afterRestart)];
    await sleep(1000);
    await Promise.all(loads.map((l) => l.stop()));
    assert.ok(afterRestart.acknowledged.length > 0, 'the node takes transactions again without a restart of its own');
    assert.deepEqual([...before.other, ...afterRestart.other], [], 'no failure besides 503 before or after the outage');

    // Every acknowledged transaction is kept and mined.
    for (const hash of [...before.acknowledged, ...afterRestart.acknowledged]) await n.waitMined(hash);
    const kept = await Promise.all(before.acknowledged.map((h) => minedTxnLocation(n.deps.store, h)));
    assert.equal(kept.filter((t) => t === undefined).length, 0, `all ${before.acknowledged.length} transactions acknowledged before the restart are in blocks`);
  });
});
