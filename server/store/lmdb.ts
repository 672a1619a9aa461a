/**
 * Store on LMDB (the `lmdb` package): the durable embedded store, default of `npm start`.
 * One process owns the environment (dataDir.ts locks the directory); what is per-process by
 * nature (expiring maps, token buckets, publish/subscribe) lives in an inner MemoryStore.
 *
 * Everything durable is one LMDB database of binary keys, each led by a kind byte (lmdbKeys.ts).
 *
 * Writes are lmdb-js asynchronous transactions: every write of one event turn goes into one LMDB
 * transaction, committed on lmdb-js's write thread, and a write's promise resolves once that
 * transaction is flushed to the disk (see `LMDB_STORE_DEFAULTS.overlappingSync`).
 * @module
 */
import { open, type RootDatabase } from 'lmdb';
import { MemoryStore } from './memory.js';
import { decodeValue, encodeValue } from './codec.js';
import {
  StoreError,
  type Guard,
  type IndexRange,
  type SetOptions,
  type StoredValue,
  type Store,
  type TakeTokensOptions,
  type TokenTake,
  type Unsubscribe,
  type WriteOp,
  type Announcement,
} from './types.js';
import {
  assertIncrement,
  assertKeys,
  assertLimit,
  assertMembers,
  assertName,
  assertTtl,
  prepareCommit,
  prepareRange,
  warnSubscriberError,
  type PreparedOp,
} from './shared.js';
import { LocalEpoch, WatchedRead } from './watchedRead.js';
import {
  COUNTER,
  EMPTY,
  EXPIRY,
  INDEX_SIZE,
  MEMBER_MARK,
  META,
  VALUE,
  asNumber64,
  expiryBound,
  expiryKey,
  indexHeader,
  kindKey,
  memberKey,
  number64,
  recordExpiry,
  recordPayload,
  setRecord,
  withSuffix,
} from './lmdbKeys.js';

export { MAX_KEY_BYTES } from './lmdbKeys.js';

export interface LmdbStoreOptions {
  /** Directory of the LMDB environment (data.mdb, lock.mdb); created if missing. */
  path: string;
  /** How often expired values are deleted (reads never see them anyway). @default 30000 */
  sweepIntervalMs?: number;
  /** Background failures (a sweep that could not commit, subscriber callbacks). @default a process warning */
  onError?: (err: unknown) => void;
  /** Runs once the environment is closed (dataDir.ts releases its directory lock there). */
  afterClose?: () => Promise<void> | void;
}

export const LMDB_STORE_DEFAULTS = {
  sweepIntervalMs: 30_000,
  /** Expired values deleted per sweep transaction; more are left to the next one, queued at once. */
  sweepBatch: 1000,
  /**
   * The sync mode: lmdb-js `overlappingSync` (its Linux default), never `noSync`, and a write
   * resolves only after the fsync of its commit. Overlapping: the fsync runs after the commit,
   * outside the write lock, while the next transaction already collects and commits writes, so
   * concurrent writers still share one transaction and one fsync per batch (measured when
   * choosing, on this project's 2-core VM: waiting for the fsync added 0.1-0.2 ms to a lone
   * write, and nothing to the throughput of 32 concurrent writers). Hence nothing acknowledged
   * is lost to a killed process, nor to a power loss on a disk that honours fsync; writes not
   * yet acknowledged may be lost, and LMDB reopens at its last flushed commit, consistent.
   */
  overlappingSync: true,
} as const;

/** A validated write with its LMDB keys and bytes, ready to apply inside a write transaction. */
type LmdbOp =
  | { op: 'set'; key: string; vkey: Buffer; record: Buffer; ttlMs: number | undefined }
  | { op: 'del'; key: string }
  | { op: 'incr'; ckey: Buffer; by: number }
  | { op: 'indexAdd' | 'indexRemove'; header: Buffer; members: Buffer[] };

function toLmdbOp(op: PreparedOp): LmdbOp {
  switch (op.op) {
    case 'set':
      return { op: 'set', key: op.key, vkey: kindKey(VALUE, op.key), record: setRecord(op.value, op.ttlMs), ttlMs: op.ttlMs };
    case 'del':
      kindKey(VALUE, op.key); // length check
      return { op: 'del', key: op.key };
    case 'incr':
      return { op: 'incr', ckey: kindKey(COUNTER, op.key), by: op.by };
    case 'indexAdd':
    case 'indexRemove': {
      const header = indexHeader(op.key);
      return { op: op.op, header, members: op.members.map((m) => memberKey(header, m)) };
    }
  }
}

export class LmdbStore implements Store {
  readonly kind = 'lmdb' as const;

  private readonly db: RootDatabase<Buffer, Buffer>;
  /** Expiring maps, token buckets and publish/subscribe: per process by nature. */
  private readonly local: MemoryStore;
  private readonly onError: (err: unknown) => void;
  private readonly afterClose: (() => Promise<void> | void) | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** Bumped once a write's transaction committed: watched reads remember values until then. */
  private readonly changes = new LocalEpoch();
  private closed = false;
  private closing: Promise<void> | undefined;

  private constructor(db: RootDatabase<Buffer, Buffer>, opts: LmdbStoreOptions) {
    this.db = db;
    this.onError = opts.onError ?? warnSubscriberError;
    this.afterClose = opts.afterClose;
    this.local = new MemoryStore({ onError: this.onError });
    const interval = opts.sweepIntervalMs ?? LMDB_STORE_DEFAULTS.sweepIntervalMs;
    this.sweepTimer = setInterval(() => this.sweep(), interval);
    this.sweepTimer.unref(); // never keeps the process alive on its own
  }

  /** Opens (creating if needed) the environment at `opts.path`. Throws what LMDB throws (EACCES, ENOSPC…). */
  static open(opts: LmdbStoreOptions): LmdbStore {
    const db = open<Buffer, Buffer>({
      path: opts.path,
      keyEncoding: 'binary',
      encoding: 'binary',
      overlappingSync: LMDB_STORE_DEFAULTS.overlappingSync,
      noSync: false,
      compression: false,
    });
    return new LmdbStore(db, opts);
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    this.assertOpen();
    assertName(key, 'key');
    const record = this.liveRecord(kindKey(VALUE, key));
    return record === undefined ? undefined : (decodeValue(recordPayload(record)) as T);
  }

  async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    this.assertOpen();
    assertKeys(keys);
    const vkeys = keys.map((key) => kindKey(VALUE, key));
    return vkeys.map((vkey) => {
      const record = this.liveRecord(vkey);
      return record === undefined ? undefined : (decodeValue(recordPayload(record)) as T);
    });
  }

  async getStored<T = unknown>(key: string): Promise<StoredValue<T> | undefined> {
    this.assertOpen();
    assertName(key, 'key');
    const record = this.liveRecord(kindKey(VALUE, key));
    if (record === undefined) return undefined;
    const bytes = recordPayload(record);
    // getBinary answered a copy: these bytes are the caller's.
    return { value: decodeValue(bytes) as T, bytes };
  }

  async set(key: string, value: unknown, opts?: SetOptions): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    const op = toLmdbOp({ op: 'set', key, value: encodeValue(value), ttlMs: assertTtl(opts?.ttlMs) });
    await this.write(() => this.apply(op));
  }

  async delete(key: string): Promise<boolean> {
    this.assertOpen();
    assertName(key, 'key');
    kindKey(VALUE, key); // length check before the transaction
    return this.write(() => this.applyDelete(key));
  }

  async incr(key: string, by: number = 1): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    const ckey = kindKey(COUNTER, key);
    const step = assertIncrement(by);
    return this.write(() => this.applyIncr(ckey, step));
  }

  async getCounter(key: string): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    return number64(this.db.getBinary(kindKey(COUNTER, key)));
  }

  async commit(ops: readonly WriteOp[], guards?: readonly Guard[], announce?: Announcement): Promise<boolean> {
    this.assertOpen();
    const prepared = prepareCommit(ops, guards, announce);
    // Every key is checked and encoded before the transaction: a write that threw halfway
    // would leave its first ops in the (shared, batched) transaction.
    const lmdbOps = prepared.ops.map(toLmdbOp);
    const lmdbGuards = prepared.guards.map((g) => ({ vkey: kindKey(VALUE, g.key), expected: g.expected }));
    const applied = await this.write(() => {
      for (const guard of lmdbGuards) {
        const current = this.liveRecord(guard.vkey);
        if (guard.expected === null ? current !== undefined : current === undefined || !recordPayload(current).equals(guard.expected)) {
          return false;
        }
      }
      for (const op of lmdbOps) this.apply(op);
      return true;
    });
    // This store serves one process, whose subscribers hear it once the transaction is written.
    if (applied && prepared.announce !== null) this.local.deliverAll(prepared.announce.channel, prepared.announce.bytes);
    return applied;
  }

  async indexAdd(key: string, members: readonly string[]): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    const op = toLmdbOp({ op: 'indexAdd', key, members: assertMembers(members) });
    await this.write(() => this.apply(op));
  }

  async indexRemove(key: string, members: readonly string[]): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    const op = toLmdbOp({ op: 'indexRemove', key, members: assertMembers(members) });
    await this.write(() => this.apply(op));
  }

  async indexRange(key: string, range?: IndexRange): Promise<string[]> {
    this.assertOpen();
    assertName(key, 'key');
    const r = prepareRange(range);
    const header = indexHeader(key);
    if (r.limit === 0) return [];
    // [low, high) in key bytes. gt X starts just after X (X 0x00); lte X ends just after X.
    const low = r.lower === undefined ? withSuffix(header, MEMBER_MARK) : withSuffix(header, MEMBER_MARK, r.lower.inclusive ? r.lower.value : `${r.lower.value}\0`);
    const high = r.upper === undefined ? withSuffix(header, MEMBER_MARK + 1) : withSuffix(header, MEMBER_MARK, r.upper.inclusive ? `${r.upper.value}\0` : r.upper.value);
    if (Buffer.compare(low, high) >= 0) return [];
    const limit = r.limit ?? Infinity;
    const memberAt = header.length + 1;
    const out: string[] = [];
    // Reverse ranges start at the greatest key <= start (inclusive): skip `high` itself.
    const keys = r.reverse
      ? this.db.getKeys({ start: high, end: withSuffix(header, MEMBER_MARK - 1), reverse: true })
      : this.db.getKeys({ start: low, end: high });
    for (const k of keys) {
      if (r.reverse) {
        if (k.equals(high)) continue;
        if (Buffer.compare(k, low) < 0) break;
      }
      out.push(k.toString('utf8', memberAt));
      if (out.length >= limit) break;
    }
    return out;
  }

  async indexSize(key: string): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    return number64(this.db.getBinary(kindKey(INDEX_SIZE, key)));
  }

  async keys(prefix: string, limit?: number): Promise<string[]> {
    this.assertOpen();
    assertName(prefix, 'prefix');
    const max = assertLimit(limit) ?? Infinity;
    const start = kindKey(VALUE, prefix);
    const out: string[] = [];
    if (max === 0) return out;
    const now = Date.now();
    for (const { key, value } of this.db.getRange({ start, end: withSuffix(start, 0xff) })) {
      const expiresAt = recordExpiry(value);
      if (expiresAt !== undefined && expiresAt <= now) continue;
      out.push(key.toString('utf8', 1));
      if (out.length >= max) break;
    }
    return out;
  }

  async mapSet(key: string, field: string, value: unknown, ttlMs: number): Promise<void> {
    this.assertOpen();
    return this.local.mapSet(key, field, value, ttlMs);
  }

  async mapDelete(key: string, field: string): Promise<boolean> {
    this.assertOpen();
    return this.local.mapDelete(key, field);
  }

  async mapEntries<T = unknown>(key: string): Promise<Map<string, T>> {
    this.assertOpen();
    return this.local.mapEntries<T>(key);
  }

  async takeTokens(key: string, opts: TakeTokensOptions): Promise<TokenTake> {
    this.assertOpen();
    return this.local.takeTokens(key, opts);
  }

  watchedRead<T>(read: () => Promise<T>): WatchedRead<T> {
    return new WatchedRead(this.changes, read);
  }

  async publish(channel: string, message: unknown): Promise<void> {
    this.assertOpen();
    return this.local.publish(channel, message);
  }

  async subscribe(channel: string, onMessage: (message: unknown) => void): Promise<Unsubscribe> {
    this.assertOpen();
    return this.local.subscribe(channel, onMessage);
  }

  async ping(): Promise<number> {
    this.assertOpen();
    const started = performance.now();
    this.db.getBinary(Buffer.from([META]));
    return performance.now() - started;
  }

  /** Store metadata (dataDir.ts: format version, network), apart from every kind of key. */
  meta(name: string): string | undefined {
    this.assertOpen();
    return this.db.getBinary(kindKey(META, name))?.toString('utf8');
  }

  /** Writes metadata. */
  async setMeta(entries: Record<string, string>): Promise<void> {
    this.assertOpen();
    await this.write(() => {
      for (const [name, value] of Object.entries(entries)) this.db.putSync(kindKey(META, name), Buffer.from(value, 'utf8'));
    });
  }

  /** Whether the environment holds no key at all (a new data directory). */
  isEmpty(): boolean {
    this.assertOpen();
    for (const _ of this.db.getKeys({ limit: 1 })) return false;
    return true;
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
      await this.local.close();
      await this.sweeping;
      // Waits for the writes still queued; the last commit is flushed before the file closes.
      await this.db.close();
      await this.afterClose?.();
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'LMDB store is closed');
  }

  /**
   * Runs `apply` inside the next write transaction (shared with the other writes of this event
   * turn) and resolves once that transaction is committed and flushed to the disk. `apply` must
   * not throw: everything it could throw on is checked before.
   */
  private async write<T>(apply: () => T): Promise<T> {
    let result: T;
    try {
      const committed = this.db.transaction(apply);
      // `flushed` is the flush of the batch being collected now, the one this write joined:
      // taken at once, it does not wait for batches queued after this one.
      const flushed = new Promise<unknown>((resolve, reject) => this.db.flushed.then(resolve, reject));
      result = await committed;
      // Only now can a read see the write: a watched read remembered before this is stale.
      this.changes.bump();
      await flushed;
    } catch (err) {
      throw new StoreError('STORE_UNAVAILABLE', `LMDB commit failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
    return result;
  }

  /** The record at `vkey` (a copy) unless absent or expired. */
  private liveRecord(vkey: Buffer): Buffer | undefined {
    const record = this.db.getBinary(vkey);
    if (record === undefined) return undefined;
    const expiresAt = recordExpiry(record);
    return expiresAt !== undefined && expiresAt <= Date.now() ? undefined : record;
  }

  private apply(op: LmdbOp): void {
    switch (op.op) {
      case 'set':
        return this.applySet(op);
      case 'del':
        this.applyDelete(op.key);
        return;
      case 'incr':
        this.applyIncr(op.ckey, op.by);
        return;
      case 'indexAdd':
        return this.applyIndexAdd(op.header, op.members);
      case 'indexRemove':
        return this.applyIndexRemove(op.header, op.members);
    }
  }

  private applySet(op: Extract<LmdbOp, { op: 'set' }>): void {
    this.dropExpiry(op.vkey, op.key);
    if (op.ttlMs !== undefined) {
      const expiresAt = Date.now() + op.ttlMs;
      op.record.writeBigUInt64BE(BigInt(expiresAt), 1);
      this.db.putSync(expiryKey(expiresAt, op.key), EMPTY);
    }
    this.db.putSync(op.vkey, op.record);
  }

  /** Removes the expiry entry of the value now at `vkey`, if it has one. */
  private dropExpiry(vkey: Buffer, key: string): void {
    const old = this.db.getBinary(vkey);
    const expiresAt = old === undefined ? undefined : recordExpiry(old);
    if (expiresAt !== undefined) this.db.removeSync(expiryKey(expiresAt, key));
  }

  /** Removes whatever the key holds (value, counter, index), like Redis DEL. */
  private applyDelete(key: string): boolean {
    const vkey = kindKey(VALUE, key);
    const hadValue = this.liveRecord(vkey) !== undefined;
    this.dropExpiry(vkey, key);
    this.db.removeSync(vkey);
    const hadCounter = this.db.removeSync(kindKey(COUNTER, key));
    const header = indexHeader(key);
    const members = [...this.db.getKeys({ start: withSuffix(header, MEMBER_MARK), end: withSuffix(header, MEMBER_MARK + 1) })];
    for (const member of members) this.db.removeSync(member);
    this.db.removeSync(kindKey(INDEX_SIZE, key));
    return hadValue || hadCounter || members.length > 0;
  }

  private applyIncr(ckey: Buffer, by: number): number {
    const next = number64(this.db.getBinary(ckey)) + by;
    this.db.putSync(ckey, asNumber64(next));
    return next;
  }

  private applyIndexAdd(header: Buffer, members: readonly Buffer[]): void {
    let added = 0;
    for (const member of members) {
      if (this.db.doesExist(member)) continue;
      this.db.putSync(member, EMPTY);
      added++;
    }
    if (added > 0) this.addToSize(header, added);
  }

  private applyIndexRemove(header: Buffer, members: readonly Buffer[]): void {
    let removed = 0;
    for (const member of members) if (this.db.removeSync(member)) removed++;
    if (removed > 0) this.addToSize(header, -removed);
  }

  private addToSize(header: Buffer, by: number): void {
    // The size key of index `key`: `n` + key, the header without its length.
    const skey = Buffer.concat([Buffer.from([INDEX_SIZE]), header.subarray(3)]);
    const size = number64(this.db.getBinary(skey)) + by;
    // Like Redis, an emptied index stops existing.
    if (size <= 0) this.db.removeSync(skey);
    else this.db.putSync(skey, asNumber64(size));
  }

  /** Deletes values whose expiry passed, a batch per transaction, until none is due. */
  private sweep(): void {
    if (this.closed || this.sweeping !== undefined) return;
    const now = Date.now();
    const due = [...this.db.getKeys({ start: Buffer.from([EXPIRY]), end: expiryBound(now), limit: LMDB_STORE_DEFAULTS.sweepBatch })];
    if (due.length === 0) return;
    this.sweeping = this.db
      .transaction(() => {
        for (const ekey of due) {
          const key = ekey.toString('utf8', 9);
          const vkey = kindKey(VALUE, key);
          const record = this.db.getBinary(vkey);
          const expiresAt = record === undefined ? undefined : recordExpiry(record);
          // Re-read inside the transaction: the value may have been set again meanwhile.
          if (expiresAt !== undefined && expiresAt <= now) this.db.removeSync(vkey);
          this.db.removeSync(ekey);
        }
      })
      .then(
        () => {
          this.sweeping = undefined;
          if (due.length === LMDB_STORE_DEFAULTS.sweepBatch) setImmediate(() => this.sweep());
        },
        (err: unknown) => {
          this.sweeping = undefined;
          this.onError(err);
        },
      );
  }
}
