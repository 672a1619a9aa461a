/**
 * The state store on the request path: what our Store layer (msgpack codec, checks, prefixes,
 * Lua commit) costs over the raw client it wraps. Redis: RedisStore vs bare ioredis on the
 * same private redis-server; memory: MemoryStore vs a bare Map of encoded values.
 *
 * Last results: see the closing note of issue 2 (numbers depend on the machine's load).
 * @module
 */
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { Bench } from 'tinybench';
import { encodeValue, decodeValue } from '../server/store/codec.js';
import { MemoryStore, RedisStore } from '../server/store/index.js';
import { startRedisServer } from '../test/helpers/redisServer.js';
import { printResults, ratioLine, roundOptions, runRounds } from './_shared.js';
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
