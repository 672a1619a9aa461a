/**
 * For e2e tests of Redis outages under load: a node on an AOF-persisted redis-server that a
 * test stops, kills and starts again on the same port and data directory, and the senders and
 * readers that load it, recording how each request was answered.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPair, startChainNode, type ChainNode, type KeyPair } from './chainNode.js';
import { startRedisServer, type RedisServer } from './redisServer.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface AofRedisNode {
  n: ChainNode;
  /** The redis-server running now (replaced by `restartRedis`). */
  redis: RedisServer;
  /** Starts Redis again on the same port and data directory (after `redis.stop()` or `redis.kill()`). */
  restartRedis(): Promise<void>;
  /** Closes the node, stops Redis and removes its data. */
  close(): Promise<void>;
}

/** A node (health probe every 100 ms) on a private redis-server with AOF on, in a fresh directory. */
export async function startOnAofRedis(prefix: string): Promise<AofRedisNode> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const redis = await startRedisServer({ appendonly: true, dir });
  const n = await startChainNode({ redisUrl: redis.url, args: ['--health-probe-interval-ms', '100'] });
  const node: AofRedisNode = {
    n,
    redis,
    restartRedis: async () => {
      node.redis = await startRedisServer({ appendonly: true, dir, port: node.redis.port });
    },
    close: async () => {
      await n.close();
      await node.redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return node;
}

export interface LoadStats {
  acknowledged: string[];
  ok: number;
  unavailable: number;
  /** Statuses other than 200 and 503 (a 500 would be a bug). */
  other: Array<{ status: number; error: string }>;
}

export function emptyLoadStats(): LoadStats {
  return { acknowledged: [], ok: 0, unavailable: 0, other: [] };
}

function record(stats: LoadStats, status: number, json: Record<string, unknown>): void {
  if (status === 200) stats.ok++;
  else if (status === 503) stats.unavailable++;
  else stats.other.push({ status, error: String(json['error']) });
}

/** Something running until `stop()`, which waits for its last request. */
export interface Load {
  stop(): Promise<void>;
}

function loop(step: () => Promise<void>): Load {
  let running = true;
  const done = (async () => {
    while (running) await step();
  })();
  return {
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** Sends native coins from `from` to fresh keys until `stop()`; records what was acknowledged. */
export function sender(n: ChainNode, from: KeyPair, stats: LoadStats): Load {
  return loop(async () => {
    const c = await n.post('send-deso', { ...FEE, SenderPublicKeyBase58Check: from.pk, RecipientPublicKeyOrUsername: keyPair().pk, AmountNanos: 1000 });
    if (c.status === 200) {
      const s = await n.post('submit-transaction', { TransactionHex: await n.sign(c.json['TransactionHex'] as string, from, 'sdk') });
      record(stats, s.status, s.json);
      if (s.status === 200) stats.acknowledged.push(s.json['TxnHashHex'] as string);
    } else {
      record(stats, c.status, c.json);
    }
    if (c.status !== 200) await sleep(20);
  });
}

/** Reads the app state until `stop()`. */
export function reader(n: ChainNode, stats: LoadStats): Load {
  return loop(async () => {
    const r = await n.post('get-app-state', {});
    record(stats, r.status, r.json);
    if (r.status !== 200) await sleep(20);
  });
}
