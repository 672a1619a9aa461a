/**
 * Redis going away again and again under load (issue 8, faults): stopped or SIGKILLed at
 * seeded moments while transactions are admitted and mined, then started again on the same
 * port. Every answer is a 200 or a clear 503, no promise is left rejected with no handler, and
 * after the last restart the node takes and mines transactions again by itself. Durability
 * across a clean restart: redisRestart.e2e. The race behind CI's failure of 2026-11-26 (a
 * replay failing while a block commits) needs heavier load than this to show up reliably; its
 * regression test is chain.blockFromPending's store that fails during the commit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keyPair } from '../helpers/chainNode.js';
import { emptyLoadStats, sender, startOnAofRedis, type AofRedisNode } from '../helpers/redisOutage.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const OUTAGES = 5;

let node: AofRedisNode;

before(async () => {
  node = await startOnAofRedis('sn-redis-flapping-');
});
after(async () => {
  await node?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Redis stopped and killed repeatedly under load', () => {
  it('answers 200 or 503 only, leaves no rejection unhandled, and takes writes again after the last restart', async () => {
    const { n } = node;
    const unhandled: string[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push((reason as Error)?.stack ?? String(reason));
    process.on('unhandledRejection', onUnhandled);
    try {
      const senders = [keyPair(), keyPair(), keyPair()];
      for (const k of senders) await n.fund(k.pk, 0.05 * 1e9);
      const stats = emptyLoadStats();
      const loads = senders.map((k) => sender(n, k, stats));

      // Deterministic moments (a seeded sequence), so a failure can be run again the same way.
      let seed = 7;
      const next = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
      for (let i = 0; i < OUTAGES; i++) {
        await sleep(150 + next() * 600);
        await (next() < 0.5 ? node.redis.stop() : node.redis.kill());
        await sleep(next() * 600);
        await node.restartRedis();
      }
      const acceptedBefore = stats.acknowledged.length;
      for (let i = 0; i < 400 && stats.acknowledged.length < acceptedBefore + 5; i++) await sleep(25);
      await Promise.all(loads.map((l) => l.stop()));

      assert.deepEqual(stats.other, [], 'every answer was a 200 or a 503');
      assert.ok(stats.acknowledged.length >= acceptedBefore + 5, 'the node took transactions again after the last restart');
      const c = await n.post('send-deso', { ...FEE, SenderPublicKeyBase58Check: senders[0]!.pk, RecipientPublicKeyOrUsername: keyPair().pk, AmountNanos: 1000 });
      assert.equal(c.status, 200, JSON.stringify(c.json));
      await n.submit(c.json['TransactionHex'] as string, senders[0]!, 'sdk');
      await sleep(50);
      assert.deepEqual(unhandled, [], 'no rejection was left unhandled');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
