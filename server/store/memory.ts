/**
 * In-process Store (`--store memory`): single process only, state is lost on exit; for tests
 * and demos (LMDB is the durable embedded store). Mirrors RedisStore's semantics closely enough to share its contract
 * suite (test/contract/store.ts).
 */
import { decodeValue, encodeValue } from './codec.js';
import {
  StoreError,
  type Guard,
  type IndexRange,
  type SetOptions,
  type StoredValue as ReadValue,
  type Store,
  type TakeTokensOptions,
  type TokenTake,
  type Unsubscribe,
  type WriteOp,
  type Announcement,
} from './types.js';
import {
  assertEntryTtl,
  assertIncrement,
  assertKeys,
  assertLimit,
  assertMembers,
  assertName,
  assertTtl,
  deliver,
  prepareCommit,
  prepareRange,
  warnSubscriberError,
  type PreparedOp,
} from './shared.js';
import { prepareTake, takeFromBucket, type BucketState } from './tokenBucket.js';
import { LocalEpoch, WatchedRead } from './watchedRead.js';

export interface MemoryStoreOptions {
  /** How often expired values are swept (reads also expire lazily). @default 30000 */
  sweepIntervalMs?: number;
  /**
   * Receives exceptions thrown by subscriber callbacks, which must not crash the publisher.
   * @default a process warning (stderr)
   */
  onError?: (err: unknown) => void;
}

export const MEMORY_STORE_DEFAULTS = { sweepIntervalMs: 30_000 } as const;

interface StoredValue {
  bytes: Buffer;
  /** Epoch ms after which the value is gone; undefined = no expiry. */
  expiresAt: number | undefined;
}

/** One entry of an expiring map (mapSet). */
interface MapEntry {
  bytes: Buffer;
  /** Epoch ms after which the entry is gone. */
  expiresAt: number;
}

interface Subscription {
  onMessage: (message: unknown) => void;
}

interface StoredBucket extends BucketState {
  /** Epoch ms (real clock) after which the bucket would be full again and is dropped. */
  expiresAt: number;
}

/**
 * Orders strings like their UTF-8 bytes (memcmp), which is what Redis BYLEX uses. Plain `<`
 * compares UTF-16 code units, where astral characters (surrogates D800-DFFF) sort below
 * U+E000-U+FFFF although their UTF-8 bytes sort above.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}

function utf8Rank(codeUnit: number): number {
  if (codeUnit >= 0xd800 && codeUnit <= 0xdfff) return codeUnit + 0x2000; // above U+FFFF
  if (codeUnit >= 0xe000) return codeUnit - 0x800; // close the gap left by surrogates
  return codeUnit;
}

/** First position whose member is >= value (inclusive) or > value (exclusive). */
function lowerIndex(sorted: readonly string[], value: string, inclusive: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareUtf8(sorted[mid]!, value);
    if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;

  private readonly values = new Map<string, StoredValue>();
  /** Keys of `values` that carry a TTL, so the sweep does not scan every value. */
  private readonly expiring = new Set<string>();
  private readonly counters = new Map<string, number>();
  /** Each index is kept sorted by compareUtf8, without duplicates. */
  private readonly indexes = new Map<string, string[]>();
  /** Expiring maps (mapSet), a kind of their own: each entry has its own expiry. */
  private readonly maps = new Map<string, Map<string, MapEntry>>();
  /** Token buckets (takeTokens), a kind of their own; every one expires. */
  private readonly buckets = new Map<string, StoredBucket>();
  private readonly channels = new Map<string, Set<Subscription>>();
  private readonly onError: (err: unknown) => void;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Bumped by every write: watched reads remember values until then. */
  private readonly changes = new LocalEpoch();
  private closed = false;

  constructor(opts: MemoryStoreOptions = {}) {
    this.onError = opts.onError ?? warnSubscriberError;
    const interval = opts.sweepIntervalMs ?? MEMORY_STORE_DEFAULTS.sweepIntervalMs;
    this.sweepTimer = setInterval(() => this.sweep(), interval);
    this.sweepTimer.unref(); // never keeps the process alive on its own
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    this.assertOpen();
    assertName(key, 'key');
    const entry = this.liveValue(key);
    return entry === undefined ? undefined : (decodeValue(entry.bytes) as T);
  }

  async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    this.assertOpen();
    assertKeys(keys);
    return keys.map((key) => {
      const entry = this.liveValue(key);
      return entry === undefined ? undefined : (decodeValue(entry.bytes) as T);
    });
  }

  async getStored<T = unknown>(key: string): Promise<ReadValue<T> | undefined> {
    this.assertOpen();
    assertName(key, 'key');
    const entry = this.liveValue(key);
    // A copy: the caller must not be able to change what is stored.
    return entry === undefined ? undefined : { value: decodeValue(entry.bytes) as T, bytes: Uint8Array.from(entry.bytes) };
  }

  async set(key: string, value: unknown, opts?: SetOptions): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    const bytes = encodeValue(value);
    this.applySet(key, bytes, assertTtl(opts?.ttlMs));
    this.changes.bump();
  }

  async delete(key: string): Promise<boolean> {
    this.assertOpen();
    assertName(key, 'key');
    const deleted = this.applyDelete(key);
    this.changes.bump();
    return deleted;
  }

  async incr(key: string, by: number = 1): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    const next = this.applyIncr(key, assertIncrement(by));
    this.changes.bump();
    return next;
  }

  async getCounter(key: string): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    return this.counters.get(key) ?? 0;
  }

  async commit(ops: readonly WriteOp[], guards?: readonly Guard[], announce?: Announcement): Promise<boolean> {
    this.assertOpen();
    const prepared = prepareCommit(ops, guards, announce);
    // Everything below runs synchronously, so no other call can interleave: that is the
    // whole of the atomicity guarantee in a single process.
    for (const guard of prepared.guards) {
      const current = this.liveValue(guard.key);
      if (guard.expected === null ? current !== undefined : !current?.bytes.equals(guard.expected)) {
        return false;
      }
    }
    for (const op of prepared.ops) this.apply(op);
    // One change however many ops (ChangeEpoch: one step per commit of its own).
    this.changes.bump();
    if (prepared.announce !== null) this.deliverAll(prepared.announce.channel, prepared.announce.bytes);
    return true;
  }

  async indexAdd(key: string, members: readonly string[]): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    this.applyIndexAdd(key, assertMembers(members));
    this.changes.bump();
  }

  async indexRemove(key: string, members: readonly string[]): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    this.applyIndexRemove(key, assertMembers(members));
    this.changes.bump();
  }

  async indexRange(key: string, range?: IndexRange): Promise<string[]> {
    this.assertOpen();
    assertName(key, 'key');
    const r = prepareRange(range);
    const sorted = this.indexes.get(key);
    if (sorted === undefined || r.limit === 0) return [];
    const start = r.lower ? lowerIndex(sorted, r.lower.value, r.lower.inclusive) : 0;
    // The upper end is the first position past the bound, i.e. the lower index of its complement.
    const end = r.upper ? lowerIndex(sorted, r.upper.value, !r.upper.inclusive) : sorted.length;
    if (end <= start) return [];
    const count = Math.min(end - start, r.limit ?? Infinity);
    return r.reverse ? sorted.slice(end - count, end).reverse() : sorted.slice(start, start + count);
  }

  async indexSize(key: string): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    return this.indexes.get(key)?.length ?? 0;
  }

  /** Lists value keys only (set via `set` or a commit `set`); counters and indexes are not keys here. */
  async keys(prefix: string, limit?: number): Promise<string[]> {
    this.assertOpen();
    assertName(prefix, 'prefix');
    const max = assertLimit(limit) ?? Infinity;
    const out: string[] = [];
    for (const key of this.values.keys()) {
      if (out.length >= max) break;
      if (key.startsWith(prefix) && this.liveValue(key) !== undefined) out.push(key);
    }
    return out;
  }

  async mapSet(key: string, field: string, value: unknown, ttlMs: number): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    assertName(field, 'field');
    const expiresAt = Date.now() + assertEntryTtl(ttlMs);
    const bytes = Buffer.from(encodeValue(value)); // a copy, as in applySet
    let map = this.maps.get(key);
    if (map === undefined) {
      map = new Map();
      this.maps.set(key, map);
    }
    map.set(field, { bytes, expiresAt });
  }

  async mapDelete(key: string, field: string): Promise<boolean> {
    this.assertOpen();
    assertName(key, 'key');
    assertName(field, 'field');
    const map = this.liveEntries(key);
    const removed = map?.delete(field) ?? false;
    if (map?.size === 0) this.maps.delete(key);
    return removed;
  }

  async mapEntries<T = unknown>(key: string): Promise<Map<string, T>> {
    this.assertOpen();
    assertName(key, 'key');
    const out = new Map<string, T>();
    for (const [field, entry] of this.liveEntries(key) ?? []) out.set(field, decodeValue(entry.bytes) as T);
    return out;
  }

  async takeTokens(key: string, opts: TakeTokensOptions): Promise<TokenTake> {
    this.assertOpen();
    assertName(key, 'key');
    const p = prepareTake(opts);
    const realNow = Date.now();
    let stored: StoredBucket | undefined = this.buckets.get(key);
    if (stored !== undefined && stored.expiresAt <= realNow) stored = undefined;
    // Synchronous from here: no other take can interleave, as in the Redis script.
    const { state, take, ttlMs } = takeFromBucket(stored, p, p.nowMs ?? realNow);
    this.buckets.set(key, { ...state, expiresAt: realNow + ttlMs });
    return take;
  }

  watchedRead<T>(read: () => Promise<T>): WatchedRead<T> {
    return new WatchedRead(this.changes, read);
  }

  async publish(channel: string, message: unknown): Promise<void> {
    this.assertOpen();
    assertName(channel, 'channel');
    // Encode now: later mutation by the publisher must not change what subscribers see.
    this.deliverAll(channel, encodeValue(message));
  }

  /**
   * Delivers an encoded message to the channel's subscribers, each in a later turn: `publish`
   * after its checks, and a commit's announcement (here and in LmdbStore, whose pub/sub this
   * store is), already checked and encoded by prepareCommit.
   */
  deliverAll(channel: string, bytes: Buffer): void {
    const subs = this.channels.get(channel);
    if (subs === undefined) return;
    for (const sub of subs) {
      // Asynchronous like a real broker; skipped if unsubscribed or closed in the meantime.
      setImmediate(() => {
        if (this.closed || !this.channels.get(channel)?.has(sub)) return;
        deliver(sub.onMessage, bytes, this.onError);
      });
    }
  }

  async subscribe(channel: string, onMessage: (message: unknown) => void): Promise<Unsubscribe> {
    this.assertOpen();
    assertName(channel, 'channel');
    if (typeof onMessage !== 'function') {
      throw new StoreError('STORE_INVALID_ARGUMENT', 'subscribe needs a callback function');
    }
    const sub: Subscription = { onMessage };
    let subs = this.channels.get(channel);
    if (subs === undefined) {
      subs = new Set();
      this.channels.set(channel, subs);
    }
    subs.add(sub);
    // Idempotent, and harmless after close: cleanup paths should not have to catch.
    return async () => {
      const current = this.channels.get(channel);
      if (current === undefined || !current.delete(sub)) return;
      if (current.size === 0) this.channels.delete(channel);
    };
  }

  async ping(): Promise<number> {
    this.assertOpen();
    return 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.values.clear();
    this.expiring.clear();
    this.counters.clear();
    this.indexes.clear();
    this.maps.clear();
    this.buckets.clear();
    this.channels.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'memory store is closed');
  }

  /** The value at `key` unless absent or expired (expired values are dropped on the way). */
  private liveValue(key: string): StoredValue | undefined {
    const entry = this.values.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      this.values.delete(key);
      this.expiring.delete(key);
      return undefined;
    }
    return entry;
  }

  /** The map at `key` without its expired entries (dropped on the way, as is an emptied map). */
  private liveEntries(key: string): Map<string, MapEntry> | undefined {
    const map = this.maps.get(key);
    if (map === undefined) return undefined;
    const now = Date.now();
    for (const [field, entry] of map) if (entry.expiresAt <= now) map.delete(field);
    if (map.size === 0) this.maps.delete(key);
    return map;
  }

  private sweep(): void {
    for (const key of this.expiring) this.liveValue(key);
    for (const key of [...this.maps.keys()]) this.liveEntries(key);
    const now = Date.now();
    for (const [key, bucket] of this.buckets) if (bucket.expiresAt <= now) this.buckets.delete(key);
  }

  private apply(op: PreparedOp): void {
    switch (op.op) {
      case 'set':
        return this.applySet(op.key, op.value, op.ttlMs);
      case 'del':
        this.applyDelete(op.key);
        return;
      case 'incr':
        this.applyIncr(op.key, op.by);
        return;
      case 'indexAdd':
        return this.applyIndexAdd(op.key, op.members);
      case 'indexRemove':
        return this.applyIndexRemove(op.key, op.members);
    }
  }

  private applySet(key: string, bytes: Buffer, ttlMs: number | undefined): void {
    // Copy: msgpackr returns a view into a shared 8 KiB chunk, which a long-lived small value
    // would otherwise pin in memory.
    const expiresAt = ttlMs === undefined ? undefined : Date.now() + ttlMs;
    this.values.set(key, { bytes: Buffer.from(bytes), expiresAt });
    // Like Redis SET, a write without TTL clears any previous TTL.
    if (expiresAt === undefined) this.expiring.delete(key);
    else this.expiring.add(key);
  }

  /** Removes whatever the key holds (value, counter, index), like Redis DEL. */
  private applyDelete(key: string): boolean {
    const hadValue = this.liveValue(key) !== undefined;
    this.values.delete(key);
    this.expiring.delete(key);
    const hadCounter = this.counters.delete(key);
    const hadIndex = this.indexes.delete(key);
    return hadValue || hadCounter || hadIndex;
  }

  private applyIncr(key: string, by: number): number {
    const next = (this.counters.get(key) ?? 0) + by;
    this.counters.set(key, next);
    return next;
  }

  private applyIndexAdd(key: string, members: readonly string[]): void {
    if (members.length === 0) return;
    let sorted = this.indexes.get(key);
    if (sorted === undefined) {
      sorted = [];
      this.indexes.set(key, sorted);
    }
    for (const member of members) {
      const at = lowerIndex(sorted, member, true);
      if (sorted[at] !== member) sorted.splice(at, 0, member);
    }
  }

  private applyIndexRemove(key: string, members: readonly string[]): void {
    const sorted = this.indexes.get(key);
    if (sorted === undefined) return;
    for (const member of members) {
      const at = lowerIndex(sorted, member, true);
      if (sorted[at] === member) sorted.splice(at, 1);
    }
    // Like Redis, an emptied sorted set stops existing.
    if (sorted.length === 0) this.indexes.delete(key);
  }
}
