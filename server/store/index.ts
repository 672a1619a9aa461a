/**
 * Entry point for node state storage: `openStore` picks Redis when a URL is configured
 * (shared by every server process), else LMDB when a data directory is (durable, one process),
 * else the in-process memory store (volatile).
 */
import { openDataDir } from './dataDir.js';
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis.js';
import type { Store } from './types.js';

export * from './types.js';
export { MemoryStore, MEMORY_STORE_DEFAULTS, type MemoryStoreOptions } from './memory.js';
export { RedisStore, REDIS_STORE_DEFAULTS, redactRedisUrl, type RedisStoreOptions } from './redis.js';
export { LmdbStore, LMDB_STORE_DEFAULTS, type LmdbStoreOptions } from './lmdb.js';
export { DataDirError, isDataDirError, openDataDir, STORE_FORMAT } from './dataDir.js';

export interface OpenStoreOptions {
  /** Redis URL (from --redis / REDIS_URL). @default none: in-process memory store */
  redisUrl?: string;
  /** Prefix of every Redis key and channel. @default REDIS_STORE_DEFAULTS.keyPrefix ('sn:') */
  keyPrefix?: string;
  /** LMDB data directory (from --data-dir), used when no Redis URL is given. @default none: memory */
  dataDir?: string;
  /** The node's network, recorded in (and required of) the data directory. @default 'testnet' */
  network?: string;
  /** Background errors (Redis connection loss, failing subscriber callbacks); see RedisStoreOptions. */
  onError?: (err: unknown) => void;
}

/**
 * Opens the configured store; rejects with STORE_UNAVAILABLE when Redis cannot be reached, and
 * with a DataDirError when the data directory cannot be used.
 */
export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  if (opts.redisUrl) {
    return RedisStore.connect({ url: opts.redisUrl, keyPrefix: opts.keyPrefix, onError: opts.onError });
  }
  if (opts.dataDir !== undefined) {
    return openDataDir({ dir: opts.dataDir, network: opts.network ?? 'testnet', onError: opts.onError });
  }
  return new MemoryStore({ onError: opts.onError });
}
