/**
 * Redis-backed Store, shared by every server process. Built on ioredis.
 *
 * Layout under `keyPrefix` (default `sn:`): each store key lives in one of three namespaces by
 * kind, so values, counters and indexes can never collide with a WRONGTYPE error (which would
 * break commit atomicity half-way through a script) and `keys()` sees value keys only:
 *   <prefix>v:<key>  value   - msgpack bytes (codec.ts), optional PX expiry
 *   <prefix>c:<key>  counter - Redis integer string, INCRBY
 *   <prefix>x:<key>  index   - sorted set, every score 0, read BYLEX
 *   <prefix>b:<key>  bucket  - token bucket hash {t: tokens, a: epoch ms}, PX until full again
 * Pub/sub channels are `<prefix><channel>` carrying msgpack bytes.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Redis, type RedisOptions } from 'ioredis';
import { decodeValue, encodeValue } from './codec.js';
import {
  StoreError,
  type Guard,
  type IndexRange,
  type SetOptions,
  type Store,
  type TakeTokensOptions,
  type TokenTake,
  type Unsubscribe,
  type WriteOp,
} from './types.js';
import {
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

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://...` for TLS. */
  url: string;
  /** Prepended to every key and channel, so several deployments can share one Redis. @default 'sn:' */
  keyPrefix?: string;
  /** How long `connect` waits for the first connection before failing. @default 5000 */
  connectTimeoutMs?: number;
  /** A command without a reply after this long rejects with STORE_UNAVAILABLE. @default 2000 */
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
  commandTimeoutMs: 2000,
} as const;

/** Reconnect delays grow from 100 ms and are capped here; reconnecting never stops. */
const MAX_RECONNECT_DELAY_MS = 2000;
/** Keys asked per SCAN round trip. */
const SCAN_BATCH = 1000;

const VALUE = 'v:';
const COUNTER = 'c:';
const INDEX = 'x:';
const BUCKET = 'b:';

const COMMIT_LUA = readFileSync(new URL('./scripts/commit.lua', import.meta.url), 'utf8');
const TAKE_TOKENS_LUA = readFileSync(new URL('./scripts/takeTokens.lua', import.meta.url), 'utf8');

/**
 * The client with the commit script registered by `defineCommand` (numkeys passed first).
 * ioredis flattens array arguments, so long key/arg lists need no call-site spread.
 */
type CommitClient = Redis & {
  storeCommit(numKeys: number, keys: string[], args: (string | Buffer | number)[]): Promise<number>;
  /** scripts/takeTokens.lua: one key, then capacity, refillPerSec, cost, nowMs. */
  storeTakeTokens(key: string, capacity: string, refillPerSec: string, cost: string, nowMs: string): Promise<[number, string, number]>;
};

interface Subscription {
  onMessage: (message: unknown) => void;
}

interface Channel {
  subs: Set<Subscription>;
  /** Settles when the SUBSCRIBE for this channel was acknowledged (or failed). */
  ready: Promise<void>;
}

/** The URL with its password (and password-like query parameters) replaced by `***`. */
export function redactRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(unparseable URL)';
  }
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (/pass|secret|token|auth/i.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.toString();
}

/** SCAN MATCH treats `* ? [ ] \` as glob syntax; a literal prefix must escape them. */
export function escapeGlob(literal: string): string {
  return literal.replace(/[*?[\]\\]/g, '\\$&');
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;

  private readonly channels = new Map<string, Channel>();
  private subscriber: Promise<Redis> | undefined;
  /** Latest connection error; explains a failed connect better than "Connection is closed." */
  private lastConnectionError: unknown;
  private closed = false;

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
  ) {}

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
    const { shownUrl, secrets } = inspectUrl(opts.url);

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
      enableAutoPipelining: true,
      keyPrefix,
      connectTimeout: connectTimeoutMs,
      commandTimeout: commandTimeoutMs,
      retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt - 1, 5), MAX_RECONNECT_DELAY_MS),
    };
    const client = new Redis(opts.url, clientOptions) as CommitClient;
    client.defineCommand('storeCommit', { lua: COMMIT_LUA });
    client.defineCommand('storeTakeTokens', { lua: TAKE_TOKENS_LUA, numberOfKeys: 1 });
    const store = new RedisStore(
      client,
      keyPrefix,
      commandTimeoutMs,
      connectTimeoutMs,
      shownUrl,
      secrets,
      opts.onError,
    );
    store.watchErrors(client);
    try {
      await withTimeout(client.connect(), connectTimeoutMs);
    } catch (err) {
      client.disconnect(); // stop the background reconnect loop
      throw new StoreError(
        'STORE_UNAVAILABLE',
        `Cannot connect to Redis at ${shownUrl}: ${store.reason(store.lastConnectionError ?? err)}. ` +
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

  async commit(ops: readonly WriteOp[], guards?: readonly Guard[]): Promise<boolean> {
    this.assertOpen();
    const prepared = prepareCommit(ops, guards);
    if (prepared.ops.length === 0 && prepared.guards.length === 0) return true;
    // Argument layout is documented at the top of scripts/commit.lua.
    const keys: string[] = [];
    const args: (string | Buffer | number)[] = [prepared.guards.length];
    for (const guard of prepared.guards) {
      keys.push(VALUE + guard.key);
      if (guard.expected === null) args.push('0', '');
      else args.push('1', guard.expected);
    }
    for (const op of prepared.ops) {
      switch (op.op) {
        case 'set':
          keys.push(VALUE + op.key);
          args.push('s', op.value, op.ttlMs ?? '');
          break;
        case 'del':
          keys.push(VALUE + op.key, COUNTER + op.key, INDEX + op.key);
          args.push('d');
          break;
        case 'incr':
          keys.push(COUNTER + op.key);
          args.push('i', op.by);
          break;
        case 'indexAdd':
        case 'indexRemove':
          keys.push(INDEX + op.key);
          args.push(op.op === 'indexAdd' ? 'a' : 'r', op.members.length, ...op.members);
          break;
      }
    }
    const applied = await this.run('commit', () =>
      this.client.storeCommit(keys.length, keys, args),
    );
    return applied === 1;
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
    this.closed = true;
    this.channels.clear();
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
      const conn = this.client.duplicate();
      this.watchErrors(conn);
      conn.on('messageBuffer', (channel: Buffer, message: Buffer) => {
        const entry = this.channels.get(channel.toString());
        if (entry === undefined || this.closed) return;
        for (const sub of [...entry.subs]) deliver(sub.onMessage, message, this.callbackErrorSink());
      });
      const pending = withTimeout(conn.connect(), this.connectTimeoutMs).then(
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
  }

  private callbackErrorSink(): (err: unknown) => void {
    return this.onError ?? warnSubscriberError;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'redis store is closed');
  }

  /** Runs one Redis call, translating every failure into a StoreError. */
  private async run<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.fail(what, err);
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
    } else if (message === 'Command timed out') {
      message = `no reply within ${this.commandTimeoutMs} ms (commandTimeoutMs)`;
    } else if (message === 'timeout') {
      // Only withTimeout() around a (re)connect produces this.
      message = `no connection within ${this.connectTimeoutMs} ms (connectTimeoutMs)`;
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
function inspectUrl(url: unknown): { shownUrl: string; secrets: string[] } {
  const hint = 'expected redis://[user:password@]host:port[/db] from --redis or REDIS_URL';
  if (typeof url !== 'string') throw new StoreError('STORE_INVALID_ARGUMENT', `Redis URL missing (${hint})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError('STORE_INVALID_ARGUMENT', `Redis URL is not a valid URL (${hint})`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new StoreError('STORE_INVALID_ARGUMENT', `Redis URL has protocol ${parsed.protocol} (${hint})`);
  }
  const secrets = new Set<string>();
  const addSecret = (s: string) => {
    if (s.length === 0) return;
    secrets.add(s);
    try {
      secrets.add(decodeURIComponent(s));
    } catch {
      // Not percent-encoded; the raw form is already covered.
    }
  };
  addSecret(parsed.password);
  for (const [name, value] of parsed.searchParams) {
    if (/pass|secret|token|auth/i.test(name)) addSecret(value);
  }
  return { shownUrl: redactRedisUrl(url), secrets: [...secrets] };
}

/** Rejects with Error('timeout') if `promise` has not settled within `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
