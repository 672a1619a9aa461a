/**
 * The one store interface behind all node state: chain state, sessions, order book, block
 * templates. Three implementations share it (lmdb: embedded and durable, the default; memory:
 * volatile; redis: shared by every server process) and one contract suite
 * (test/contract/store.ts) runs against each.
 *
 * Values are anything msgpackr encodes (objects, arrays, strings, numbers, bigint of any size,
 * Uint8Array, null). Every implementation stores the encoded bytes, so a value read back is
 * always a fresh copy and mutating it never changes stored state.
 *
 * Keys are plain strings; each implementation adds its own prefix. Counter keys (`incr`) and
 * index keys (`index*`) are separate kinds and must not be read with `get`.
 */
import type { WatchedRead } from './watchedRead.js';

export interface SetOptions {
  /** Expire the key after this many milliseconds. @default no expiry */
  ttlMs?: number;
}

/** One write inside an atomic `commit`. */
export type WriteOp =
  | { op: 'set'; key: string; value: unknown; ttlMs?: number }
  | { op: 'del'; key: string }
  | { op: 'incr'; key: string; by: number }
  | { op: 'indexAdd'; key: string; members: string[] }
  | { op: 'indexRemove'; key: string; members: string[] };

/**
 * A precondition of `commit`. With `equals`: the value at `key` must encode to the same bytes
 * as `equals`, or the key must be absent when `equals` is undefined (chain tip moves, leases).
 * With `bytes`: the value at `key` must be exactly these bytes (from `getStored`), or absent
 * when undefined. Read-modify-write of values that came from clients guards on `bytes`: not
 * every value survives decode and re-encode unchanged (msgpackr reads a `__proto__` key back
 * as `__proto_`), and a guard on such a value would never hold again.
 */
export type Guard = { key: string; equals: unknown } | { key: string; bytes: Uint8Array | undefined };

/** A message a commit publishes once its writes are applied (Store.commit). */
export interface Announcement {
  channel: string;
  message: unknown;
}

/** A value as `getStored` reads it: decoded, with the exact bytes it was decoded from. */
export interface StoredValue<T> {
  value: T;
  bytes: Uint8Array;
}

/**
 * A range over a lexicographically ordered index (byte order of the UTF-8 members).
 * Bounds are optional; `reverse` walks from the highest member down.
 */
export interface IndexRange {
  gte?: string;
  gt?: string;
  lte?: string;
  lt?: string;
  reverse?: boolean;
  /** At most this many members. @default all */
  limit?: number;
}

export type Unsubscribe = () => Promise<void>;

/** One take from a token bucket (`Store.takeTokens`). */
export interface TakeTokensOptions {
  /** Tokens a full bucket holds (the burst); a positive finite number. */
  capacity: number;
  /** Tokens added back per second, up to `capacity`; a positive finite number. */
  refillPerSec: number;
  /** Tokens this take needs; from 0 up to `capacity`. @default 1 */
  cost?: number;
  /**
   * The current time in epoch milliseconds (an integer); tests inject a clock here.
   * @default the store's clock: Date.now() in memory, the Redis server's TIME in Redis, so
   * processes on machines with skewed clocks still agree
   */
  nowMs?: number;
}

/** What a take answered. */
export interface TokenTake {
  /** Whether the tokens were taken. A refused take takes nothing. */
  allowed: boolean;
  /** Whole tokens left in the bucket after this take. */
  remaining: number;
  /** 0 when allowed; else milliseconds until `cost` tokens will be there (at least 1). */
  retryAfterMs: number;
}

export interface Store {
  readonly kind: 'memory' | 'redis' | 'lmdb';

  get<T = unknown>(key: string): Promise<T | undefined>;
  getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]>;
  /** Like `get`, with the stored bytes, for a compare-and-set guarded on them (`Guard.bytes`). */
  getStored<T = unknown>(key: string): Promise<StoredValue<T> | undefined>;
  set(key: string, value: unknown, opts?: SetOptions): Promise<void>;
  /** Returns whether the key existed. */
  delete(key: string): Promise<boolean>;

  /** Adds `by` (default 1, may be negative, must be an integer) and returns the new value. */
  incr(key: string, by?: number): Promise<number>;
  /** Current counter value; 0 when absent. */
  getCounter(key: string): Promise<number>;

  /**
   * Applies every op or none. When guards are given, the ops are applied only if every guard
   * holds at that moment; returns false (and writes nothing) otherwise. `announce`, when given,
   * is published once the writes are applied (never when a guard fails), as `publish` would:
   * on Redis in the same atomic step, so no subscriber hears of writes it cannot read yet, and
   * the writer pays one round trip for both.
   */
  commit(ops: readonly WriteOp[], guards?: readonly Guard[], announce?: Announcement): Promise<boolean>;

  /** Ordered string sets (Redis sorted sets with equal scores, read BYLEX). */
  indexAdd(key: string, members: readonly string[]): Promise<void>;
  indexRemove(key: string, members: readonly string[]): Promise<void>;
  indexRange(key: string, range?: IndexRange): Promise<string[]>;
  indexSize(key: string): Promise<number>;

  /**
   * Value keys starting with `prefix`, in no particular order, at most `limit`. Walks every
   * key of the store (SCAN in Redis): for tests and maintenance, never a request's path.
   */
  keys(prefix: string, limit?: number): Promise<string[]>;

  /**
   * Expiring maps: small maps whose every entry expires on its own `ttlMs` after it was last
   * set (the process registry: one entry per server process, renewed by its heartbeat). Each
   * operation costs in the size of its map, never of the store; reads answer every live entry,
   * so keep maps small. Entries expire by the store's clock (the Redis server's TIME in Redis),
   * as TTLs do. Maps are their own kind of key: `get`, `delete`, `keys` and commits never see
   * them, and a map whose entries all expired takes no memory.
   */
  mapSet(key: string, field: string, value: unknown, ttlMs: number): Promise<void>;
  /** Removes the entry at once; returns whether a live one was there. */
  mapDelete(key: string, field: string): Promise<boolean>;
  /** The live entries of the map, field to value, in no particular order. */
  mapEntries<T = unknown>(key: string): Promise<Map<string, T>>;

  /**
   * Token bucket rate limiting, atomic across every process sharing the store: refills the
   * bucket at `key` for the time since its last take (a new bucket starts full), then takes
   * `cost` tokens if that many are there. Buckets are their own kind of key: `get`, `delete`,
   * `keys` and commits never see them, and a bucket expires by itself once it would be full
   * again (an absent bucket is a full one), so idle callers cost no memory.
   */
  takeTokens(key: string, opts: TakeTokensOptions): Promise<TokenTake>;

  /**
   * A read (of this store) whose value is remembered and answered again until a commit may
   * have changed it: `get()` never misses a commit that resolved, in any process sharing the
   * store, before it was called, as a plain read would not. For values that change through
   * `commit` only and never expire (the chain's position, say). See watchedRead.ts.
   */
  watchedRead<T>(read: () => Promise<T>): WatchedRead<T>;

  /** Fan-out to every process subscribed to `channel` (including this one). */
  publish(channel: string, message: unknown): Promise<void>;
  subscribe(channel: string, onMessage: (message: unknown) => void): Promise<Unsubscribe>;

  /** Round-trip time in ms; rejects with a StoreError when the store is unreachable. */
  ping(): Promise<number>;
  close(): Promise<void>;
}

export type StoreErrorCode =
  | 'STORE_UNAVAILABLE'
  | 'STORE_INVALID_ARGUMENT'
  | 'STORE_CLOSED'
  | 'STORE_CORRUPT';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isStoreError(e: unknown): e is StoreError {
  return e instanceof StoreError;
}

/**
 * The store cannot answer now (unreachable, or closing): a transient condition that requests
 * answer 503 with Retry-After, never a fallback value or a per-item failure.
 */
export function isStoreUnavailable(e: unknown): e is StoreError {
  return e instanceof StoreError && (e.code === 'STORE_UNAVAILABLE' || e.code === 'STORE_CLOSED');
}
