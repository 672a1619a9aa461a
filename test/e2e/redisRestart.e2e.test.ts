/**
 * Redis restarted under load (issue 8, faults): a node on an AOF-persisted redis-server keeps
 * taking transactions and reads; Redis goes down and comes back on the same port and data
 * directory. While it is down the node answers 503 with `Retry-After` (never 500, never a
 * crash); afterwards it serves again by itself, and every transaction it acknowledged before
 * the restart is still there and gets mined.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keyPair, type ChainNode } from '../helpers/chainNode.js';
import { request } from '../helpers/http.js';
import { emptyLoadStats, reader, sender, startOnAofRedis, type AofRedisNode } from '../helpers/redisOutage.js';
import { minedTxnLocation } from '../../server/chain/state/minedTxns.js';

let node: AofRedisNode;
let n: ChainNode;

before(async () => {
  node = await startOnAofRedis('sn-redis-restart-');
  n = node.n;
});
after(async () => {
  await node?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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
    const before = emptyLoadStats();
    const during = emptyLoadStats();

    let loads = [...senders.map((k) => sender(n, k, before)), reader(n, before)];
    await sleep(1500);
    await node.redis.stop(); // SIGTERM: Redis flushes its AOF and exits
    await Promise.all(loads.map((l) => l.stop()));
    assert.ok(before.acknowledged.length > 0, 'transactions were acknowledged before the restart');

    // Down: every request that needs the store is a clear 503.
    await waitForHealth(503);
    loads = [...senders.map((k) => sender(n, k, during)), reader(n, during)];
    await sleep(1000);
    await Promise.all(loads.map((l) => l.stop()));
    assert.ok(during.unavailable > 0, 'requests during the outage were answered 503');
    assert.deepEqual(during.other, [], 'no other failure (no 500) while Redis was down');
    assert.equal(during.acknowledged.length, 0, 'nothing was acknowledged without a store');
    const refused = await n.post('get-app-state', {});
    assert.equal(refused.status, 503, 'a read that needs the store is 503');
    assert.match(String(refused.json['error']), /unavailable|unreachable/i, 'with a clear reason');

    // Back on the same port and data directory.
    await node.restartRedis();
    await waitForHealth(200);
    const afterRestart = emptyLoadStats();
    loads = [...senders.map((k) => sender(n, k, afterRestart)), reader(n, afterRestart)];
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
