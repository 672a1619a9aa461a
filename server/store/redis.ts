/**
 * Redis-backed Store, shared by every server process. Built on ioredis.
 *
 * Layout under `keyPrefix` (default `sn:`): each store key lives in a namespace by its kind, so
 * values, counters and indexes can never collide with a WRONGTYPE error (which would break
 * commit atomicity half-way through a script) and `keys()` sees value keys only:
 *   <prefix>v:<key>  value   - msgpack bytes (codec.ts), optional PX expiry
 *   <prefix>c:<key>  counter - Redis integer string, INCRBY
 *   <prefix>x:<key>  index   - sorted set, every score 0, read BYLEX
 *   <prefix>b:<key>  bucket  - token bucket hash {t: tokens, a: epoch ms}, PX until full again
 *   <prefix>m:<key>  map     - expiring map's values, hash {field: msgpack bytes}, and
 *   <prefix>mt:<key>           its entries' expiry times, sorted set {field: epoch ms};
 *                              both PX until the last entry expires (scripts/map*.lua)
 *   <prefix>leases:holders   - set of read-lease holders (readLeases.ts)
 * Pub/sub channels are `<prefix><channel>` carrying msgpack bytes; the read leases' own
 * channels (`<prefix>leases:…`) carry plain strings.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Redis, SentinelConnector, type RedisOptions } from 'ioredis';
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
} from './shared.js';
import { prepareTake } from './tokenBucket.js';
import { LEASE_MS, LEASE_NAMES, ReadLeases } from './readLeases.js';
import { LuaPayload } from './luaPayload.js';
import { WatchedRead } from './watchedRead.js';
import { parseRedisUrl, RedisUrlError, redactRedisUrl, redisUrlSecrets, type ParsedRedisUrl } from './redisUrl.js';
import { withTimeout } from '../timeout.js';

export { redactRedisUrl };

export interface RedisStoreOptions {
  /**
   * `redis://[user:password@]host:port[/db]`, `rediss://...` for TLS, or a Sentinel-managed
   * master: `redis-sentinel://[user:password@]host1:26379[,host2:26379...]/<masterName>[?db=N]`
   * (see redisUrl.ts; sentinel credentials go in `sentinelUsername`/`sentinelPassword`).
   */
  url: string;
  /** Prepended to every key and channel, so several deployments can share one Redis. @default 'sn:' */
  keyPrefix?: string;
  /** How long `connect` waits for the first connection before failing. @default 5000 */
  connectTimeoutMs?: number;
  /**
   * A call without a reply this long after it was made rejects with STORE_UNAVAILABLE, and until
   * Redis answers again later calls fail at once (see `run`). @default 1000
   */
  commandTimeoutMs?: number;
  /**
   * Background problems: connection loss and each failed reconnect (as StoreErrors with
   * credentials removed), and exceptions thrown by subscriber callbacks.
   * @default connection errors are dropped (the next command reports them); callback errors
   * become a process warning
   */
  onError?: (err: unknown) => void;
}

export const REDIS_STORE_DEFAULTS = {
  keyPrefix: 'sn:',
  connectTimeoutMs: 5000,
  commandTimeoutMs: 1000,
} as const;

/**
 * Reconnect delays grow from 100 ms and are capped here; reconnecting never stops. The cap
 * bounds how long a node stays unavailable after Redis is back (about a second).
 */
const MAX_RECONNECT_DELAY_MS = 1000;
/** While stalled (see `run`), the least time between two pings asking whether Redis answers again. */
const STALL_PING_GAP_MS = 100;
/** Keys asked per SCAN round trip. */
const SCAN_BATCH = 1000;

const VALUE = 'v:';
const COUNTER = 'c:';
const INDEX = 'x:';
const BUCKET = 'b:';
const MAP = 'm:';
const MAP_EXPIRY = 'mt:';

const COMMIT_LUA = readFileSync(new URL('./scripts/commit.lua', import.meta.url), 'utf8');
const TAKE_TOKENS_LUA = readFileSync(new URL('./scripts/takeTokens.lua', import.meta.url), 'utf8');
const RENEW_LEASE_LUA = readFileSync(new URL('./scripts/renewLease.lua', import.meta.url), 'utf8');
const MAP_SET_LUA = readFileSync(new URL('./scripts/mapSet.lua', import.meta.url), 'utf8');
const MAP_DELETE_LUA = readFileSync(new URL('./scripts/mapDelete.lua', import.meta.url), 'utf8');
const MAP_ENTRIES_LUA = readFileSync(new URL('./scripts/mapEntries.lua', import.meta.url), 'utf8');

/**
 * The argument of scripts/commit.lua (its layout is documented there): one msgpack array in
 * place of one Redis argument per field. ioredis encodes each argument on its own (three
 * length computations and a copy); for a block's ~9,600 fields that took 6.7 ms of the event
 * loop (2026-11-27, a 200-transaction block's shape). Store keys get `prefix` here: ioredis
 * prefixes only declared keys.
 */
function commitPayload(prefix: string, noticesChannel: string, notice: string, prepared: ReturnType<typeof prepareCommit>): Buffer {
  const out = new LuaPayload().text(noticesChannel).text(notice);
  // ioredis never prefixes channels, so the store does (as `publish`).
  if (prepared.announce === null) out.text('').text('');
  else out.joined(prefix, '', prepared.announce.channel).bytes(prepared.announce.bytes);
  out.text(String(prepared.guards.length));
  for (const guard of prepared.guards) {
    out.joined(prefix, VALUE, guard.key);
    if (guard.expected === null) out.text('0').text('');
    else out.text('1').bytes(guard.expected);
  }
  for (const op of prepared.ops) {
    switch (op.op) {
      case 'set':
        out.text('s').joined(prefix, VALUE, op.key).bytes(op.value).text(op.ttlMs === undefined ? '' : String(op.ttlMs));
        break;
      case 'del':
        out.text('d').joined(prefix, VALUE, op.key).joined(prefix, COUNTER, op.key).joined(prefix, INDEX, op.key);
        break;
      case 'incr':
        out.text('i').joined(prefix, COUNTER, op.key).text(String(op.by));
        break;
      case 'indexAdd':
      case 'indexRemove':
        out.text(op.op === 'indexAdd' ? 'a' : 'r').joined(prefix, INDEX, op.key).text(String(op.members.length));
        for (const m of op.members) out.text(m);
        break;
    }
  }
  return out.finish();
}

/**
 * The client with the commit script registered by `defineCommand` (numkeys passed first).
 */
type CommitClient = Redis & {
  /** `[1, ...lease holders]` when applied, `[0]` when a guard failed (scripts/commit.lua). */
  storeCommit(numKeys: 1, holders: string, payload: Buffer): Promise<[number, ...string[]]>;
  /** scripts/renewLease.lua: the holders set, then holder, notices channel, ping. */
  storeRenewLease(holders: string, holder: string, channel: string, ping: string): Promise<number>;
  /** scripts/takeTokens.lua: one key, then capacity, refillPerSec, cost, nowMs. */
  storeTakeTokens(key: string, capacity: string, refillPerSec: string, cost: string, nowMs: string): Promise<[number, string, number]>;
  /** scripts/mapSet.lua: the map's two keys (values, expiry times), then field, value, ttlMs. */
  storeMapSet(values: string, expiries: string, field: string, value: Buffer, ttlMs: string): Promise<number>;
  /** scripts/mapDelete.lua: the map's two keys, then field; 1 when a live entry was removed. */
  storeMapDelete(values: string, expiries: string, field: string): Promise<number>;
  /** scripts/mapEntries.lua: the map's two keys; [field, value, field, value, ...] as Buffers. */
  storeMapEntriesBuffer(values: string, expiries: string): Promise<Buffer[]>;
};

interface Subscription {
  onMessage: (message: unknown) => void;
}

interface Channel {
  subs: Set<Subscription>;
  /** Settles when the SUBSCRIBE for this channel was acknowledged (or failed). */
  ready: Promise<void>;
}

/** SCAN MATCH treats `* ? [ ] \` as glob syntax; a literal prefix must escape them. */
export function escapeGlob(literal: string): string {
  return literal.replace(/[*?[\]\\]/g, '\\$&');
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;

  private readonly channels = new Map<string, Channel>();
  /** The read leases' channels: plain-string messages, one listener each. */
  private readonly leaseChannels = new Map<string, (message: string) => void>();
  private readonly leases: ReadLeases;
  private subscriber: Promise<Redis> | undefined;
  /** Latest connection error; explains a failed connect better than "Connection is closed." */
  private lastConnectionError: unknown;
  /** Sentinel mode: why the latest sentinel asked for the master's address gave none. */
  private lastSentinelError: unknown;
  private closed = false;
  /**
   * A call ran out its deadline and Redis has not answered anything since: calls fail at once
   * instead of each waiting out a deadline of its own, while `pingUntilAnswered` finds out.
   */
  private stalled = false;

  private constructor(
    private readonly client: CommitClient,
    private readonly keyPrefix: string,
    private readonly commandTimeoutMs: number,
    private readonly connectTimeoutMs: number,
    /** Redacted URL, safe for messages and logs. */
    private readonly shownUrl: string,
    /** Credentials to scrub from any server or client message before it leaves this class. */
    private readonly secrets: readonly string[],
    private readonly onError: ((err: unknown) => void) | undefined,
    /** Connected through Redis Sentinel (`redis-sentinel://`). */
    private readonly viaSentinel: boolean,
  ) {
    this.leases = new ReadLeases({
      // Not while stalled: it would only wait unanswered behind the cut (the trust runs out either way).
      renew: (holder, ping) =>
        this.stalled
          ? Promise.reject(this.stalledError('renew lease'))
          : this.client.storeRenewLease(LEASE_NAMES.holders, holder, this.keyPrefix + LEASE_NAMES.notices, ping).then(() => undefined),
      publish: (channel, message) => this.client.publish(this.keyPrefix + channel, message).then(() => undefined),
      drop: (holders) => this.client.srem(LEASE_NAMES.holders, ...holders).then(() => undefined),
      listen: async (channel, onMessage) => {
        const name = this.keyPrefix + channel;
        this.leaseChannels.set(name, onMessage);
        await (await this.getSubscriber()).subscribe(name);
      },
      connected: () => this.client.status === 'ready',
    });
  }

  /**
   * Connects (waiting at most `connectTimeoutMs`) and returns a ready store. Once connected,
   * the store survives Redis restarts: commands fail fast with STORE_UNAVAILABLE while the
   * server is away and work again after the automatic reconnect.
   */
  static async connect(opts: RedisStoreOptions): Promise<RedisStore> {
    const keyPrefix = opts.keyPrefix ?? REDIS_STORE_DEFAULTS.keyPrefix;
    const connectTimeoutMs = opts.connectTimeoutMs ?? REDIS_STORE_DEFAULTS.connectTimeoutMs;
    const commandTimeoutMs = opts.commandTimeoutMs ?? REDIS_STORE_DEFAULTS.commandTimeoutMs;
    assertName(keyPrefix, 'keyPrefix');
    assertPositiveInt(connectTimeoutMs, 'connectTimeoutMs');
    assertPositiveInt(commandTimeoutMs, 'commandTimeoutMs');
    const { parsed, shownUrl, secrets } = inspectUrl(opts.url);

    const clientOptions: RedisOptions = {
      lazyConnect: true,
      // Fail fast instead of queueing while disconnected: callers get STORE_UNAVAILABLE now.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // A command in flight when the connection dropped may already have run (INCRBY, commit);
      // resending it could apply it twice, so it times out as "unavailable" instead.
      autoResendUnfulfilledCommands: false,
      // Commands issued in the same tick (a read route's Promise.all) go out in one socket
      // write: a write per command was the largest cost of the read routes (bench:http).
      // ioredis sends one such pipeline at a time, so behind a stalled one a command waits
      // unsent: its deadline therefore runs from the call (`run`), not from the send.
      enableAutoPipelining: true,
      // Except commits and multi-key reads, which go out when called. ioredis runs one
      // auto-pipeline at a time: a command waits for the next event-loop check phase and then
      // for the whole round trip of the pipeline in flight (a block's commit, say). Mempool
      // admission makes two round trips per batch (its prefetch's MGET, its commit), each ~1.2 ms
      // that way under load; sent at once, the writes of a 3k-profile node at 32 in flight went
      // from 2,508-3,133 to 3,026-3,440 tx/s (4 interleaved 10 s runs each, 2026-11-26), at
      // less CPU per write (347-392 µs against 375-469). Single GETs, which read routes issue
      // many of in one tick, still share a socket write.
      autoPipeliningIgnoredCommands: ['storeCommit', 'mget'],
      keyPrefix,
      connectTimeout: connectTimeoutMs,
      // From the send: settles commands sent into a connection that went silent, so the
      // pipelines queued behind them move on (callers were answered by `run` already).
      commandTimeout: commandTimeoutMs,
      retryStrategy: reconnectDelay,
    };
    let client: CommitClient;
    let sentinelRetry: SentinelRetry | undefined;
    /** Set once the store exists; the connector class is shared with `duplicate()`. */
    let reportWatchError: ((address: string, err: unknown) => void) | undefined;
    if (parsed.kind === 'sentinel') {
      sentinelRetry = new SentinelRetry();
      client = new Redis({
        ...clientOptions,
        ...sentinelOptions(parsed, commandTimeoutMs),
        sentinelRetryStrategy: sentinelRetry.strategy,
        Connector: watchedSentinelConnector((address, err) => reportWatchError?.(address, err)),
      }) as CommitClient;
      sentinelRetry.arm(client);
    } else {
      client = new Redis(parsed.url, clientOptions) as CommitClient;
    }
    client.defineCommand('storeCommit', { lua: COMMIT_LUA });
    client.defineCommand('storeTakeTokens', { lua: TAKE_TOKENS_LUA, numberOfKeys: 1 });
    client.defineCommand('storeRenewLease', { lua: RENEW_LEASE_LUA, numberOfKeys: 1 });
    client.defineCommand('storeMapSet', { lua: MAP_SET_LUA, numberOfKeys: 2 });
    client.defineCommand('storeMapDelete', { lua: MAP_DELETE_LUA, numberOfKeys: 2 });
    client.defineCommand('storeMapEntries', { lua: MAP_ENTRIES_LUA, numberOfKeys: 2 });
    const store = new RedisStore(
      client,
      keyPrefix,
      commandTimeoutMs,
      connectTimeoutMs,
      shownUrl,
      secrets,
      opts.onError,
      sentinelRetry !== undefined,
    );
    store.watchErrors(client);
    reportWatchError = (address, err) => store.reportWatchError(address, err);
    try {
      await withTimeout(client.connect(), connectTimeoutMs, connectTimeout);
    } catch (err) {
      client.disconnect(); // stop the background reconnect loop
      throw new StoreError(
        'STORE_UNAVAILABLE',
        `Cannot connect to Redis at ${shownUrl}: ${store.connectFailure(err)}. ` +
          'Start Redis there, or point the node at another server with --redis <url> ' +
          '(or the REDIS_URL environment variable).',
      );
    }
    return store;
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    this.assertOpen();
    assertName(key, 'key');
    const bytes = await this.run('GET', () => this.client.getBuffer(VALUE + key));
    return bytes === null ? undefined : (decodeValue(bytes) as T);
  }

  async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    this.assertOpen();
    assertKeys(keys);
    if (keys.length === 0) return [];
    const all = await this.run('MGET', () => this.client.mgetBuffer(keys.map((k) => VALUE + k)));
    return all.map((bytes) => (bytes === null ? undefined : (decodeValue(bytes) as T)));
  }

  async getStored<T = unknown>(key: string): Promise<StoredValue<T> | undefined> {
    this.assertOpen();
    assertName(key, 'key');
    const bytes = await this.run('GET', () => this.client.getBuffer(VALUE + key));
    return bytes === null ? undefined : { value: decodeValue(bytes) as T, bytes };
  }

  async set(key: string, value: unknown, opts?: SetOptions): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    const bytes = encodeValue(value);
    const ttlMs = assertTtl(opts?.ttlMs);
    await this.run('SET', () =>
      ttlMs === undefined
        ? this.client.set(VALUE + key, bytes)
        : this.client.set(VALUE + key, bytes, 'PX', ttlMs),
    );
  }

  async delete(key: string): Promise<boolean> {
    this.assertOpen();
    assertName(key, 'key');
    const removed = await this.run('DEL', () => this.client.del(VALUE + key, COUNTER + key, INDEX + key));
    return removed > 0;
  }

  async incr(key: string, by: number = 1): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    const step = assertIncrement(by);
    return this.run('INCRBY', () => this.client.incrby(COUNTER + key, step));
  }

  async getCounter(key: string): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    const raw = await this.run('GET', () => this.client.get(COUNTER + key));
    if (raw === null) return 0;
    if (!/^-?\d+$/.test(raw)) {
      throw new StoreError('STORE_CORRUPT', `counter ${JSON.stringify(key)} does not hold an integer`);
    }
    return Number(raw);
  }

  async commit(ops: readonly WriteOp[], guards?: readonly Guard[], announce?: Announcement): Promise<boolean> {
    this.assertOpen();
    const prepared = prepareCommit(ops, guards, announce);
    if (prepared.ops.length === 0 && prepared.guards.length === 0 && prepared.announce === null) return true;
    if (this.stalled) throw this.stalledError('commit');
    // Argument layout is documented at the top of scripts/commit.lua.
    const { notice, id } = await this.leases.prepareNotice(this.commandTimeoutMs);
    const payload = commitPayload(this.keyPrefix, this.keyPrefix + LEASE_NAMES.notices, notice, prepared);
    // Whether the script may reach Redis: `run` refuses at once while stalled (never sent).
    const sentReady = this.client.status === 'ready' && !this.stalled;
    let result: [number, ...string[]] | undefined;
    try {
      result = await this.run('commit', () => this.client.storeCommit(1, LEASE_NAMES.holders, payload));
    } finally {
      // Before resolving, every process that remembers reads has heard of the writes (or
      // stopped trusting what it remembers): readLeases.ts.
      if (result !== undefined) await this.leases.committed(id, result[0] === 1 ? result.slice(1).map(String) : []);
      // Sent but unanswered: it may have run; wait out the leases that may not have heard.
      else await this.leases.committed(id, null, sentReady ? LEASE_MS : 0);
    }
    return result[0] === 1;
  }

  watchedRead<T>(read: () => Promise<T>): WatchedRead<T> {
    return new WatchedRead(this.leases, read);
  }

  async indexAdd(key: string, members: readonly string[]): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    const list = assertMembers(members);
    if (list.length === 0) return;
    const scored = list.flatMap((member) => [0, member]);
    // `call` with one array: no argument-count limit for very long member lists.
    await this.run('ZADD', () => this.client.call('ZADD', [INDEX + key, ...scored]));
  }

  async indexRemove(key: string, members: readonly string[]): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    const list = assertMembers(members);
    if (list.length === 0) return;
    await this.run('ZREM', () => this.client.call('ZREM', [INDEX + key, ...list]));
  }

  async indexRange(key: string, range?: IndexRange): Promise<string[]> {
    this.assertOpen();
    assertName(key, 'key');
    const r = prepareRange(range);
    if (r.limit === 0) return []; // LIMIT 0 0 would mean "no limit" to some readers; be explicit
    const min = r.lower ? (r.lower.inclusive ? '[' : '(') + r.lower.value : '-';
    const max = r.upper ? (r.upper.inclusive ? '[' : '(') + r.upper.value : '+';
    // Redis 7 ZRANGE: with REV the bounds are given highest first.
    const args: (string | number)[] = r.reverse ? [max, min, 'BYLEX', 'REV'] : [min, max, 'BYLEX'];
    if (r.limit !== undefined) args.push('LIMIT', 0, r.limit);
    const result = await this.run('ZRANGE', () => this.client.call('ZRANGE', [INDEX + key, ...args]));
    return result as string[];
  }

  async indexSize(key: string): Promise<number> {
    this.assertOpen();
    assertName(key, 'key');
    return this.run('ZCARD', () => this.client.zcard(INDEX + key));
  }

  /**
   * Value keys only (counters and indexes live in other namespaces). Walks the keyspace with
   * SCAN, so it is meant for maintenance and small prefixes, not hot paths.
   */
  async keys(prefix: string, limit?: number): Promise<string[]> {
    this.assertOpen();
    assertName(prefix, 'prefix');
    const max = assertLimit(limit) ?? Infinity;
    if (max === 0) return [];
    // ioredis applies keyPrefix to key arguments but not to SCAN patterns, so spell it out.
    const fullPrefix = this.keyPrefix + VALUE;
    const pattern = escapeGlob(fullPrefix + prefix) + '*';
    const found = new Set<string>(); // SCAN may return a key more than once
    let cursor = '0';
    do {
      const [next, batch] = await this.run('SCAN', () =>
        this.client.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH),
      );
      cursor = next;
      for (const fullKey of batch) {
        found.add(fullKey.slice(fullPrefix.length));
        if (found.size >= max) return [...found];
      }
    } while (cursor !== '0');
    return [...found];
  }

  async mapSet(key: string, field: string, value: unknown, ttlMs: number): Promise<void> {
    this.assertOpen();
    assertName(key, 'key');
    assertName(field, 'field');
    const ttl = assertEntryTtl(ttlMs);
    const bytes = encodeValue(value);
    await this.run('mapSet', () => this.client.storeMapSet(MAP + key, MAP_EXPIRY + key, field, bytes, String(ttl)));
  }

  async mapDelete(key: string, field: string): Promise<boolean> {
    this.assertOpen();
    assertName(key, 'key');
    assertName(field, 'field');
    return (await this.run('mapDelete', () => this.client.storeMapDelete(MAP + key, MAP_EXPIRY + key, field))) === 1;
  }

  async mapEntries<T = unknown>(key: string): Promise<Map<string, T>> {
    this.assertOpen();
    assertName(key, 'key');
    const flat = await this.run('mapEntries', () => this.client.storeMapEntriesBuffer(MAP + key, MAP_EXPIRY + key));
    const out = new Map<string, T>();
    for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i]!.toString('utf8'), decodeValue(flat[i + 1]!) as T);
    return out;
  }

  async takeTokens(key: string, opts: TakeTokensOptions): Promise<TokenTake> {
    this.assertOpen();
    assertName(key, 'key');
    const p = prepareTake(opts);
    // Numbers as shortest round-trip decimal strings: Lua's tonumber reads back the same double.
    const [allowed, tokens, retryAfterMs] = await this.run('takeTokens', () =>
      this.client.storeTakeTokens(BUCKET + key, String(p.capacity), String(p.refillPerSec), String(p.cost), p.nowMs === undefined ? '' : String(p.nowMs)),
    );
    return { allowed: allowed === 1, remaining: Math.floor(Number(tokens)), retryAfterMs };
  }

  async publish(channel: string, message: unknown): Promise<void> {
    this.assertOpen();
    assertName(channel, 'channel');
    const bytes = encodeValue(message);
    // ioredis never prefixes channels, so the store does.
    await this.run('PUBLISH', () => this.client.publish(this.keyPrefix + channel, bytes));
  }

  async subscribe(channel: string, onMessage: (message: unknown) => void): Promise<Unsubscribe> {
    this.assertOpen();
    assertName(channel, 'channel');
    if (typeof onMessage !== 'function') {
      throw new StoreError('STORE_INVALID_ARGUMENT', 'subscribe needs a callback function');
    }
    const name = this.keyPrefix + channel;
    let entry = this.channels.get(name);
    if (entry === undefined) {
      const created: Channel = { subs: new Set(), ready: Promise.resolve() };
      created.ready = this.getSubscriber().then(async (sub) => {
        await sub.subscribe(name);
      });
      // Every caller waiting on a failed SUBSCRIBE fails; the next subscribe retries afresh.
      created.ready.catch(() => {
        if (this.channels.get(name) === created) this.channels.delete(name);
      });
      this.channels.set(name, created);
      entry = created;
    }
    const sub: Subscription = { onMessage };
    entry.subs.add(sub);
    try {
      await entry.ready;
    } catch (err) {
      entry.subs.delete(sub);
      throw this.fail('SUBSCRIBE', err);
    }
    const subscribed = entry;
    // Resolves once the callback is detached. Never rejects: if UNSUBSCRIBE cannot reach Redis,
    // the leftover server-side subscription only delivers messages that are then ignored.
    return async () => {
      if (!subscribed.subs.delete(sub)) return;
      if (subscribed.subs.size > 0 || this.channels.get(name) !== subscribed) return;
      this.channels.delete(name);
      if (this.closed || this.subscriber === undefined) return;
      try {
        const conn = await this.subscriber;
        await conn.unsubscribe(name);
      } catch (err) {
        if (!this.closed) this.onError?.(this.fail('UNSUBSCRIBE', err));
      }
    };
  }

  async ping(): Promise<number> {
    this.assertOpen();
    const started = performance.now();
    await this.run('PING', () => this.client.ping());
    return performance.now() - started;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.leases.holding) await this.client.srem(LEASE_NAMES.holders, this.leases.id).catch(() => undefined);
    this.leases.close();
    this.closed = true;
    this.channels.clear();
    this.leaseChannels.clear();
    const conns: Promise<Redis | undefined>[] = [Promise.resolve(this.client)];
    if (this.subscriber) conns.push(this.subscriber.catch(() => undefined));
    await Promise.all(
      conns.map(async (pending) => {
        const conn = await pending;
        if (conn === undefined) return;
        try {
          await conn.quit();
        } catch {
          // Already down or reconnecting: nothing to say goodbye to.
        } finally {
          conn.disconnect(); // also cancels a pending reconnect timer
        }
      }),
    );
  }

  /** The dedicated SUBSCRIBE connection, created on first use. */
  private getSubscriber(): Promise<Redis> {
    if (this.subscriber === undefined) {
      let conn: Redis;
      if (this.viaSentinel) {
        // Its own fail-fast-until-ready state: a copied strategy would see the client's.
        const retry = new SentinelRetry();
        conn = this.client.duplicate({ sentinelRetryStrategy: retry.strategy });
        retry.arm(conn);
      } else {
        conn = this.client.duplicate();
      }
      this.watchErrors(conn);
      // Notices published while the connection was away are lost: remembered reads go.
      conn.on('close', () => this.leases.subscriptionLost());
      conn.on('messageBuffer', (channel: Buffer, message: Buffer) => {
        const onLeaseMessage = this.leaseChannels.get(channel.toString());
        if (onLeaseMessage !== undefined) {
          if (!this.closed) onLeaseMessage(message.toString());
          return;
        }
        const entry = this.channels.get(channel.toString());
        if (entry === undefined || this.closed) return;
        for (const sub of [...entry.subs]) deliver(sub.onMessage, message, this.callbackErrorSink());
      });
      const pending = withTimeout(conn.connect(), this.connectTimeoutMs, connectTimeout).then(
        () => conn,
        (err: unknown) => {
          conn.disconnect();
          if (this.subscriber === pending) this.subscriber = undefined;
          throw err;
        },
      );
      this.subscriber = pending;
    }
    return this.subscriber;
  }

  /** Without an 'error' listener, ioredis errors would be thrown as uncaught exceptions. */
  private watchErrors(conn: Redis): void {
    conn.on('error', (err: unknown) => {
      this.lastConnectionError = err;
      if (this.closed || this.onError === undefined) return;
      this.onError(
        new StoreError('STORE_UNAVAILABLE', `Redis at ${this.shownUrl}: ${this.reason(err)}`),
      );
    });
    // One per sentinel that gave no master address; the round's 'error' summarises them.
    conn.on('sentinelError', (err: unknown) => {
      this.lastSentinelError = err;
    });
  }

  /** A failover-detector connection to one sentinel failed (the store itself may be fine). */
  private reportWatchError(address: string, err: unknown): void {
    if (this.closed || this.onError === undefined) return;
    this.onError(
      new StoreError(
        'STORE_UNAVAILABLE',
        `Redis at ${this.shownUrl}: sentinel ${address}, watched for failovers: ${this.reason(err)}`,
      ),
    );
  }

  /** Why the first connect failed, as specific as the errors seen allow. */
  private connectFailure(err: unknown): string {
    const last = this.lastConnectionError ?? err;
    const message = last instanceof Error ? last.message : String(last);
    if (this.lastSentinelError !== undefined && message.startsWith('All sentinels are unreachable')) {
      return `no sentinel gave the master's address (last: ${this.reason(this.lastSentinelError)})`;
    }
    return this.reason(last);
  }

  private callbackErrorSink(): (err: unknown) => void {
    return this.onError ?? warnSubscriberError;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'redis store is closed');
  }

  /**
   * Runs one Redis call within `commandTimeoutMs` of this call, translating every failure into
   * a StoreError. The deadline runs from here, not from the send: with auto-pipelining a
   * command may wait unsent behind a pipeline stalled on a silent connection (a network cut
   * that closes nothing), where ioredis's own timeout, started at the send, would let it wait
   * up to twice as long. A call that runs out its deadline may still be sent and run later,
   * as a timed-out command always might have (a commit's outcome is then unknown: `commit`).
   *
   * Once a call ran out its deadline, later calls fail at once until Redis answers anything
   * again (a call in flight, or the pings of `pingUntilAnswered`): a cut node answers 503
   * within one deadline, not one per store call a request makes, and sends nothing that piles
   * up unanswered behind the cut.
   */
  private async run<T>(what: string, call: () => Promise<T>): Promise<T> {
    if (this.stalled) throw this.stalledError(what);
    try {
      const result = await this.withDeadline(call());
      this.stalled = false;
      return result;
    } catch (err) {
      if (err instanceof DeadlineError) this.markStalled();
      throw this.fail(what, err);
    }
  }

  private stalledError(what: string): StoreError {
    return new StoreError(
      'STORE_UNAVAILABLE',
      `Redis at ${this.shownUrl} unavailable (${what}): no reply within ${this.commandTimeoutMs} ms (commandTimeoutMs); failing fast until it answers again`,
    );
  }

  /** `pending`, or a DeadlineError once `commandTimeoutMs` passed (`pending` settles later, unheard). */
  private withDeadline<T>(pending: Promise<T>): Promise<T> {
    // Unref: keeps no closed store's process alive; a pending command has a socket.
    return withTimeout(pending, this.commandTimeoutMs, () => new DeadlineError(), { unref: true });
  }

  private markStalled(): void {
    if (this.stalled || this.closed) return;
    this.stalled = true;
    this.onError?.(
      new StoreError('STORE_UNAVAILABLE', `Redis at ${this.shownUrl}: no reply within ${this.commandTimeoutMs} ms; failing fast until it answers again`),
    );
    void this.pingUntilAnswered();
  }

  /**
   * While stalled: pings, one at a time, each within the deadline, until one is answered. On a
   * silent connection a ping waits its deadline out (and is answered the moment the link is
   * back); on a refused one it fails at once, so pings are spaced STALL_PING_GAP_MS apart.
   */
  private async pingUntilAnswered(): Promise<void> {
    while (this.stalled && !this.closed) {
      const started = performance.now();
      try {
        await this.withDeadline(this.client.ping());
        this.stalled = false;
      } catch {
        const rest = STALL_PING_GAP_MS - (performance.now() - started);
        if (rest > 0) await new Promise((r) => setTimeout(r, rest).unref());
      }
    }
  }

  private fail(what: string, err: unknown): StoreError {
    if (err instanceof StoreError) return err;
    if (this.closed) return new StoreError('STORE_CLOSED', 'redis store is closed');
    const reason = this.reason(err);
    if (reason.startsWith('WRONGTYPE')) {
      return new StoreError('STORE_CORRUPT', `Redis at ${this.shownUrl}: ${what}: ${reason}`);
    }
    return new StoreError('STORE_UNAVAILABLE', `Redis at ${this.shownUrl} unavailable (${what}): ${reason}`);
  }

  /**
   * A one-line, credential-free reason. The original error is deliberately not attached as
   * `cause`: ioredis errors can carry the command arguments, and HELLO/AUTH carry the password.
   */
  private reason(err: unknown): string {
    let message = err instanceof Error ? err.message : String(err);
    if (/enableOfflineQueue|Stream isn't writeable/.test(message)) {
      message = 'not connected (reconnecting in the background)';
    } else if (/max retries per request/i.test(message)) {
      message = 'connection lost before the reply arrived';
    } else if (message === 'Command timed out' || err instanceof DeadlineError) {
      message = `no reply within ${this.commandTimeoutMs} ms (commandTimeoutMs)`;
    } else if (message === 'timeout') {
      // Only withTimeout() around a (re)connect produces this.
      message = `no connection within ${this.connectTimeoutMs} ms (connectTimeoutMs)`;
    } else if (message.startsWith('All sentinels are unreachable')) {
      // ioredis: "All sentinels are unreachable[ and retry is disabled]. [Retrying ...] Last error: x"
      const last = /Last error: ([\s\S]*)$/.exec(message)?.[1];
      message = `no sentinel gave the master's address${last ? ` (last error: ${last})` : ''}`;
    } else {
      const unknown = /^connected to sentinel (\S+) successfully, but got an invalid reply: null$/.exec(message);
      // ioredis's sentinel query client keeps the socket error to itself and reports this.
      const closed = /^failed to connect to sentinel (\S+) because Connection is closed\.$/.exec(message);
      if (unknown) message = `sentinel ${unknown[1]} monitors no master of that name`;
      else if (closed) message = `cannot reach sentinel ${closed[1]} (connection refused or closed)`;
    }
    for (const secret of this.secrets) message = message.split(secret).join('***');
    return message;
  }
}

function assertPositiveInt(value: unknown, what: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new StoreError('STORE_INVALID_ARGUMENT', `${what} must be a positive integer, got ${String(value)}`);
  }
}

/** Validates the URL without ever echoing it raw, and collects its secrets for scrubbing. */
function inspectUrl(url: unknown): { parsed: ParsedRedisUrl; shownUrl: string; secrets: string[] } {
  let parsed: ParsedRedisUrl;
  try {
    parsed = parseRedisUrl(url);
  } catch (err) {
    if (err instanceof RedisUrlError) throw new StoreError('STORE_INVALID_ARGUMENT', err.message);
    throw err;
  }
  const text = url as string;
  return { parsed, shownUrl: redactRedisUrl(text), secrets: redisUrlSecrets(text) };
}

/** Reconnect delay: grows from 100 ms, capped at MAX_RECONNECT_DELAY_MS; never gives up. */
function reconnectDelay(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(Math.max(attempt, 1) - 1, 5), MAX_RECONNECT_DELAY_MS);
}

/**
 * ioredis options for a Sentinel-managed master. ioredis asks the sentinels for the master's
 * address on every (re)connect and, by its ready check, accepts only a node whose INFO says
 * role:master, so after a failover the store reconnects to the promoted replica and writes
 * never go to a replica. Between a replica's promotion and Sentinel's +switch-master
 * announcement (about a second in test/contract/store.sentinel), the old master still accepts
 * writes, which the failover then discards: Sentinel replication is asynchronous
 * (`min-replicas-to-write` on the master narrows that window; no client can close it).
 */
function sentinelOptions(url: Extract<ParsedRedisUrl, { kind: 'sentinel' }>, commandTimeoutMs: number): RedisOptions {
  return {
    sentinels: url.sentinels.map(({ host, port }) => ({ host, port })),
    name: url.name,
    role: 'master',
    db: url.db,
    ...(url.username !== undefined && { username: url.username }),
    ...(url.password !== undefined && { password: url.password }),
    ...(url.sentinelUsername !== undefined && { sentinelUsername: url.sentinelUsername }),
    ...(url.sentinelPassword !== undefined && { sentinelPassword: url.sentinelPassword }),
    // A sentinel that accepts the connection and then hangs must not stall a reconnect.
    sentinelCommandTimeout: commandTimeoutMs,
    // Subscribe to +switch-master on the sentinels and drop the connection the moment a
    // failover is announced, instead of writing to the old master until Sentinel demotes it
    // (it then closes every client connection there itself).
    failoverDetector: true,
    // Safety net: a master demoted under an open connection answers writes with READONLY.
    // Reconnect (through the sentinels) without resending; the failed command reports
    // STORE_UNAVAILABLE like any other command caught by a failover.
    reconnectOnError: (err) => (/^READONLY\b/.test(err.message) ? 1 : false),
  };
}

type ConnectorClass = NonNullable<RedisOptions['Connector']>;

type SentinelClientFactory = (
  this: SentinelConnector,
  endpoint: { host?: string; port?: number },
  options?: Partial<RedisOptions>,
) => Redis;

/**
 * ioredis's SentinelConnector, except that the connections its failover detector keeps to each
 * sentinel report their errors to `report`: they have no 'error' listener of their own, so
 * ioredis would print "[ioredis] Unhandled error event" with a stack to stderr, bypassing the
 * node's log, for every failed (re)connect to a sentinel that is down. Hooks the internal
 * `connectToSentinel` (ioredis 6); should that be gone, the stock connector is used.
 */
function watchedSentinelConnector(report: (address: string, err: unknown) => void): ConnectorClass {
  const base = (SentinelConnector.prototype as unknown as { connectToSentinel?: SentinelClientFactory })
    .connectToSentinel;
  // The casts: ioredis types `Connector` as taking unknown options; it passes the client's
  // options, which hold `sentinels` and `name` here, as SentinelConnector needs.
  if (typeof base !== 'function') return SentinelConnector as unknown as ConnectorClass;
  class WatchedSentinelConnector extends SentinelConnector {}
  const connectToSentinel: SentinelClientFactory = function (endpoint, options) {
    const conn = base.call(this, endpoint, options);
    // Only the failover detector passes options; the one-shot address queries listen already
    // and their failures are summarised in the connection's own 'error' / 'sentinelError'.
    if (options !== undefined) {
      const address = `${endpoint.host ?? 'localhost'}:${endpoint.port ?? 26379}`;
      conn.on('error', (err: unknown) => report(address, err));
    }
    return conn;
  };
  (WatchedSentinelConnector.prototype as unknown as { connectToSentinel: SentinelClientFactory })
    .connectToSentinel = connectToSentinel;
  return WatchedSentinelConnector as unknown as ConnectorClass;
}

/**
 * ioredis's sentinel connector walks the sentinel list itself and asks `sentinelRetryStrategy`
 * after a round in which no sentinel gave the master's address: a number means "wait, then
 * another round", null means "give up" and ends the connection for good. Until the connection
 * has been ready once, give up after one round, so `connect` fails at once with the reason
 * (as a refused direct connection does); after that, never give up.
 */
class SentinelRetry {
  private everReady = false;
  readonly strategy = (attempt: number): number | null => (this.everReady ? reconnectDelay(attempt) : null);

  arm(conn: Redis): void {
    conn.once('ready', () => {
      this.everReady = true;
    });
  }
}

/** A call of `RedisStore.run` that ran out its deadline. */
class DeadlineError extends Error {
  constructor() {
    super('deadline');
  }
}

/** A (re)connect's timeout: `fail` tells it by its message. */
const connectTimeout = (): Error => new Error('timeout');
