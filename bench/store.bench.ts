/**
 * The state store on the request path: what our Store layer (msgpack codec, checks, prefixes,
 * Lua commit) costs over the raw client it wraps. Redis: RedisStore vs bare ioredis on the
 * same private redis-server; memory: MemoryStore vs a bare Map of encoded values. Then the
 * three stores side by side (issue 19): get, commit, indexRange and concurrent commits on
 * LMDB (a temporary data directory on this machine's disk) against Redis and memory.
 *
 * Last results: see the closing note of issue 2 (numbers depend on the machine's load). LMDB
 * vs Redis (AOF everysec) vs memory, 2026-11-25, Node v20.20.2, 2-core VM, load average 1.5
 * (other sessions), ops/s: get 307k / 6.7k / 531k; commit (2 sets, sequential) 1.9k / 4.5k /
 * 241k; indexRange 20 of 10k 100k / 11.6k / 391k; 32 concurrent commits 54k / 35k / 1.3M
 * commits/s. Two runs under heavier load: LMDB commit 0.6–2.5k, 32 concurrent 23–28k/s; Redis
 * get 20k, commit 7–8k, 32 concurrent 41–42k/s.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { Bench } from 'tinybench';
import { encodeValue, decodeValue } from '../server/store/codec.js';
import { LmdbStore, MemoryStore, RedisStore, type Store } from '../server/store/index.js';
import { startRedisServer } from '../test/helpers/redisServer.js';
import { opsPerSec, printRatio, printResults, ratioLine, roundOptions, runRounds } from './_shared.js';
import { absoluteFigure, type Figure } from './figures.js';

const BENCH_OPTIONS = roundOptions({ time: 1_000, warmupTime: 250 });

/** A value shaped like the profile entries later routes read on every request. */
const PROFILE = {
  PublicKeyBase58Check: 'tBCKVijGnMB5GzJdAUB1bhQWEgrd5JGBqaCCYw2m22g931LCyNWLnb',
  Username: 'satoshi',
  Description: 'x'.repeat(200),
  CoinEntry: { CreatorBasisPoints: 1000, NativeLockedNanos: 123456789n, NumberOfHolders: 42 },
  ExtraData: { DisplayName: 'Satoshi', LargeProfilePicURL: 'https://example.com/p.png' },
};

export async function run(): Promise<Figure[]> {
  const redis = await startRedisServer();
  const raw = new Redis(redis.url, { keyPrefix: 'raw:' });
  const store = await RedisStore.connect({ url: redis.url, keyPrefix: 'sn:' });
  const memory = new MemoryStore();
  const map = new Map<string, Buffer>();
  try {
    const encoded = encodeValue(PROFILE);
    await raw.set('profile', encoded);
    await store.set('profile', PROFILE);
    await memory.set('profile', PROFILE);
    map.set('profile', encoded);
    let sink = 0;

    const redisBench = new Bench({ name: 'redis', ...BENCH_OPTIONS });
    redisBench
      .add('RedisStore.get', async () => {
        sink += (await store.get<typeof PROFILE>('profile'))!.Username.length;
      })
      .add('baseline: ioredis getBuffer + decode', async () => {
        sink += (decodeValue((await raw.getBuffer('profile'))!) as typeof PROFILE).Username.length;
      })
      .add('RedisStore.commit (2 sets, Lua)', async () => {
        await store.commit([
          { op: 'set', key: 'a', value: PROFILE },
          { op: 'set', key: 'b', value: 1 },
        ]);
      })
      .add('baseline: ioredis MULTI 2 sets', async () => {
        await raw.multi().set('a', encodeValue(PROFILE)).set('b', encodeValue(1)).exec();
      });
    const redisRounds = await runRounds(redisBench);
    printResults('Redis store vs bare ioredis (same server, one connection, sequential)', redisBench);
    const figures = [
      ratioLine('RedisStore.get/ioredis', 'redisGetVsIoredis', redisRounds, 'RedisStore.get', 'baseline: ioredis getBuffer + decode'),
      ratioLine('RedisStore.commit/ioredis MULTI', 'redisCommitVsMulti', redisRounds, 'RedisStore.commit (2 sets, Lua)', 'baseline: ioredis MULTI 2 sets'),
    ];

    const memBench = new Bench({ name: 'memory', ...BENCH_OPTIONS });
    memBench
      .add('MemoryStore.get', async () => {
        sink += (await memory.get<typeof PROFILE>('profile'))!.Username.length;
      })
      .add('baseline: Map.get + decode', async () => {
        sink += (decodeValue(map.get('profile')!) as typeof PROFILE).Username.length;
      });
    const memRounds = await runRounds(memBench);
    printResults('Memory store vs a bare Map of encoded values', memBench);
    figures.push(ratioLine('MemoryStore.get/Map', 'memoryGetVsMap', memRounds, 'MemoryStore.get', 'baseline: Map.get + decode'));
    sink += await compareStores();
    if (sink === 0) throw new Error('benchmark tasks produced nothing');
    return [
      ...figures,
      absoluteFigure('redisGetOpsPerSec', redisRounds.opsPerSec('RedisStore.get'), 'ops/s'),
      absoluteFigure('redisCommitOpsPerSec', redisRounds.opsPerSec('RedisStore.commit (2 sets, Lua)'), 'ops/s'),
      absoluteFigure('memoryGetOpsPerSec', memRounds.opsPerSec('MemoryStore.get'), 'ops/s'),
    ];
  } finally {
    raw.disconnect();
    await store.close();
    await memory.close();
    await redis.stop();
  }
}

/** Members of the index read by `indexRange`: a message thread's order, say. */
const INDEX_MEMBERS = 10_000;
/** Writers committing at once in the concurrent task (what a busy node's requests do). */
const CONCURRENT_COMMITS = 32;

/**
 * The same tasks on LMDB, Redis and memory, in one run; returns a sink of what was read. Redis
 * runs as README says to run it durably: AOF on (appendfsync everysec, its default), which
 * acknowledges before the fsync and can lose up to a second of writes to a power loss; LMDB
 * acknowledges after it.
 */
async function compareStores(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sn-bench-lmdb-'));
  const redis = await startRedisServer({ appendonly: true });
  const stores: Record<'lmdb' | 'redis' | 'memory', Store> = {
    lmdb: LmdbStore.open({ path: dir }),
    redis: await RedisStore.connect({ url: redis.url, keyPrefix: 'cmp:' }),
    memory: new MemoryStore(),
  };
  let sink = 0;
  try {
    const members = Array.from({ length: INDEX_MEMBERS }, (_, i) => `m${String(i).padStart(6, '0')}`);
    for (const store of Object.values(stores)) {
      await store.set('profile', PROFILE);
      for (let i = 0; i < members.length; i += 1000) await store.indexAdd('thread', members.slice(i, i + 1000));
    }
    const bench = new Bench({ name: 'stores', ...BENCH_OPTIONS });
    for (const [kind, store] of Object.entries(stores)) {
      let n = 0;
      bench
        .add(`${kind} get`, async () => {
          sink += (await store.get<typeof PROFILE>('profile'))!.Username.length;
        })
        .add(`${kind} commit (2 sets)`, async () => {
          await store.commit([
            { op: 'set', key: 'a', value: PROFILE },
            { op: 'set', key: 'b', value: ++n },
          ]);
        })
        .add(`${kind} indexRange (20 after a bound, of ${INDEX_MEMBERS})`, async () => {
          sink += (await store.indexRange('thread', { gt: members[(++n * 7919) % (INDEX_MEMBERS - 20)]!, limit: 20 })).length;
        })
        .add(`${kind} commit x${CONCURRENT_COMMITS} concurrent`, async () => {
          await Promise.all(Array.from({ length: CONCURRENT_COMMITS }, (_, w) => store.commit([{ op: 'set', key: `w${w}`, value: ++n }])));
        });
    }
    await bench.run();
    printResults(`LMDB vs Redis (AOF everysec) vs memory, one process; LMDB acknowledges after fsync; x${CONCURRENT_COMMITS}: ops/s are batches of ${CONCURRENT_COMMITS}`, bench);
    for (const task of ['get', 'commit (2 sets)', `indexRange (20 after a bound, of ${INDEX_MEMBERS})`, `commit x${CONCURRENT_COMMITS} concurrent`]) {
      const lmdb = opsPerSec(bench, `lmdb ${task}`);
      printRatio(`lmdb/redis ${task}`, lmdb, opsPerSec(bench, `redis ${task}`));
      printRatio(`lmdb/memory ${task}`, lmdb, opsPerSec(bench, `memory ${task}`));
    }
  } finally {
    await Promise.all(Object.values(stores).map((s) => s.close()));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return sink;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
