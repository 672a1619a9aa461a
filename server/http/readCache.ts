/**
 * Serialized answers of the hot social read routes, kept while nothing they read has changed,
 * so a popular profile, thread page or order book is computed once per change to what it
 * shows instead of once per request.
 *
 * What an answer reads: chain state (the pending view: tip plus mempool, or mined state) and
 * node-local state: the profile flags (verified badge, tutorial lists), the moderation lists,
 * users' block lists and the global feed (every writer bumps PROFILE_FLAGS_VERSION in the same
 * commit: social/profileEntry.ts). A cached handler reads chain state only through the
 * `ChainReads` it is handed, which records every key (and index) read; the answer is kept with
 * those keys.
 *
 * The tip. A read of the pending state is kept with what it saw, but some answers depend on
 * the tip itself: a post's `InMempool` (confirmed above the tip) flips when a block mines it
 * although the post reads the same, and a mempool transaction's place (`pendingPlaces`) is a
 * place of the mempool replayed on that tip. Such an answer reads the tip through `mined()`:
 * a read kept without a value, so the next block (which writes the tip) drops the answer.
 * `txnAt` makes that read itself, and nothing more is needed for places: on one tip the replay
 * connects the mempool in arrival order, admissions only append to it and a prune takes out only
 * transactions that failed (they hold no place), so a place keeps its transaction until the tip
 * moves. An answer that only relies on a height being at or below the tip (a mined post, a
 * notification in a block) needs no tip read: between two points the cache catches up across,
 * the tip only rises (a lower or another branch's tip makes the changes unbounded: all go).
 *
 * Each request first learns where the state is (tip, mempool version, flags counter: one
 * coalesced store read, never staler than a read of its own: store/freshRead.ts). When that
 * moved, the cache catches up once (Chain.pendingChanges): it learns which state keys may have
 * been written since its last point, reads those of them that kept answers read again at the
 * new point, and drops only the answers that saw a different value. (A block writes again
 * every key its transactions wrote on admission, and the pending values of those stay the
 * same: without the second look, every block would drop every answer of its senders.) A
 * change of the flags, or changes that cannot be bounded, drop everything. An answer of another
 * process's write is therefore never served once the position read has seen that write, and a
 * process's own writes are seen by its next request.
 *
 * Only routes whose answer is a pure function of (request, chain state read through
 * `ChainReads`, the node-local state above) may be cached: no wall clock, no per-caller
 * state, no chain reads around it. Only 200 answers are kept. Bounded by total bytes (oldest
 * entries out first); `--read-cache-mb 0` turns it off.
 * @module
 */
import type { AppDeps } from '../deps.js';
import type { PendingPlaces, PendingPoint } from '../chain/chain.js';
import { chainKeys } from '../chain/state/keys.js';
import { FreshRead } from '../store/freshRead.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { stringifyJson } from './router.js';
import { raw, type Reply, type Route, type RouteContext } from './route.js';
import { encodeValue } from '../store/codec.js';
import type { IndexRange } from '../store/types.js';
import { PROFILE_FLAGS_VERSION } from '../social/profileEntry.js';
import { responseBody } from './responseNames.js';
import { LruMap } from '../lru.js';

/** Keys longer than this (large bodies) are not cached: they are rare and would crowd out the rest. */
const MAX_KEY_CHARS = 4096;
/** Distinct reads one catch-up makes to look again at written keys; past it, their readers are dropped unread. */
const MAX_RECHECK_READS = 512;

export interface ReadCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
  /** Answers that read a key written since, looked at again on catching up. */
  rechecked: number;
  /** Of those, kept: every written key they read still held what they saw. */
  kept: number;
}

/** Where the cached state is: equal ids mean nothing an answer reads has changed. */
export interface CachePoint {
  id: string;
}

/** What the cache follows: the chain and the profile flags, or a stand-in in tests. */
export interface ReadCacheSource<P extends CachePoint> {
  /** The current point's id, cheaply (no catching up). */
  currentId(): Promise<string>;
  /**
   * Catches up: the current point, and the state keys that may have changed since `since`
   * (null: unknown, treat everything as changed).
   */
  update(since: P | null): Promise<{ point: P; changed: ReadonlySet<string> | null; reader?: PointReader }>;
}

/** The state at the point `update` answered, to read written keys again. */
export interface PointReader extends StateIndexReader {
  /** After the reads: whether they were of that point (false: treat every one as changed). */
  settled(): Promise<boolean>;
}

/** One read an answer made. */
export interface StateRead {
  key: string;
  /**
   * What it saw, to compare with a later read of the same key (and index range) in the pending
   * state. Absent (a read of mined state): the answer goes whenever the key is written.
   */
  seen?: { range?: IndexRange; size?: true; value: Buffer };
}

interface Entry {
  /** The answer, UTF-8 encoded once (writing a string encodes it on every response). */
  body: Buffer;
  reads: readonly StateRead[];
  size: number;
}

/** Bytes that stand for a read value: equal bytes, equal value. Undefined (absent) is empty. */
export function fingerprint(value: unknown): Buffer {
  return value === undefined ? EMPTY : encodeValue(value);
}
const EMPTY = Buffer.alloc(0);

/** A read's key and index range: reads with equal ids see equal values at one point. */
function readId(r: StateRead): string {
  if (r.seen?.size === true) return `${r.key}\nsize`;
  return r.seen?.range === undefined ? r.key : `${r.key}\n${JSON.stringify(r.seen.range)}`;
}

export class ReadCache<P extends CachePoint = CachePoint> {
  private point: P | null = null;
  /**
   * Oldest stored first (read with `peek`, so a hit does not reorder): an LruMap rather than a
   * Map, whose `keys().next()` grows slow once many entries were removed ahead of the live ones.
   */
  private readonly entries = new LruMap<string, Entry>(Number.MAX_SAFE_INTEGER);
  /** Entry keys by the state key they read. */
  private readonly readers = new Map<string, Set<string>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private rechecked = 0;
  private kept = 0;
  /** While catching up, answers are not kept: the entries are being checked against the new point. */
  private catching = false;
  /** Catching up runs one at a time, and a caller only joins one that started after it asked. */
  private readonly updates = new FreshRead(() => this.catchUp());

  constructor(
    private readonly source: ReadCacheSource<P>,
    private readonly maxBytes: number,
  ) {}

  /** The cached answer of `key` at the current state, or the version to store a fresh one under. */
  async lookup(key: string): Promise<{ version: string; body: Buffer | undefined }> {
    const id = await this.source.currentId();
    if (this.point?.id !== id) await this.updates.get();
    const version = this.point!.id;
    const body = this.entries.peek(key)?.body;
    if (body === undefined) this.misses++;
    else this.hits++;
    return { version, body };
  }

  /**
   * Keeps `body`, which read `reads`, unless the cache moved on while it was computed (it may
   * then be of a state the catching up did not account for), or it could never fit.
   */
  store(version: string, key: string, body: Buffer, reads: Iterable<StateRead>): void {
    if (version !== this.point?.id || this.catching || this.maxBytes <= 0) return;
    const readList = [...reads];
    const size = body.length + key.length * 2 + readList.reduce((n, r) => n + r.key.length * 2 + (r.seen?.value.length ?? 0) + 32, 0);
    if (size > this.maxBytes / 4) return;
    this.remove(key);
    while (this.bytes + size > this.maxBytes && this.entries.size > 0) this.remove(this.entries.oldestKey()!);
    this.entries.set(key, { body, reads: readList, size });
    this.bytes += size;
    for (const r of readList) {
      let set = this.readers.get(r.key);
      if (set === undefined) this.readers.set(r.key, (set = new Set()));
      set.add(key);
    }
  }

  stats(): ReadCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.bytes, rechecked: this.rechecked, kept: this.kept };
  }

  private async catchUp(): Promise<void> {
    this.catching = true;
    try {
      const { point, changed, reader } = await this.source.update(this.point);
      if (changed === null) {
        this.entries.clear();
        this.readers.clear();
        this.bytes = 0;
      } else {
        const suspects = new Set<string>();
        for (const k of changed) for (const key of this.readers.get(k) ?? []) suspects.add(key);
        const stale = reader === undefined || suspects.size === 0 ? suspects : await this.recheck(suspects, changed, reader);
        this.rechecked += suspects.size;
        this.kept += suspects.size - stale.size;
        for (const key of stale) this.remove(key);
      }
      this.point = point;
    } finally {
      this.catching = false;
    }
  }

  /**
   * Of the answers that read a written key, those that would now read something else: each
   * written key (and index range) they read is read once more at the new point and compared
   * with what each answer saw. All of them when the reads could not be pinned to that point.
   */
  private async recheck(suspects: ReadonlySet<string>, changed: ReadonlySet<string>, reader: PointReader): Promise<ReadonlySet<string>> {
    /** What to read again, once per key and index range. */
    const reads = new Map<string, { key: string; range?: IndexRange; size?: true }>();
    /** Each suspect's reads of written keys, with what it saw. */
    const checks: Array<{ entryKey: string; id: string; saw: Buffer }> = [];
    const stale = new Set<string>();
    for (const entryKey of suspects) {
      for (const r of this.entries.peek(entryKey)!.reads) {
        if (!changed.has(r.key)) continue;
        if (r.seen === undefined) {
          stale.add(entryKey);
          continue;
        }
        const id = readId(r);
        if (!reads.has(id)) reads.set(id, { key: r.key, range: r.seen.range, ...(r.seen.size ? { size: true as const } : {}) });
        checks.push({ entryKey, id, saw: r.seen.value });
      }
    }
    if (reads.size > MAX_RECHECK_READS) return suspects;
    const now = new Map(
      await Promise.all(
        [...reads].map(async ([id, { key, range, size }]) => {
          const value = size ? await reader.indexSize(key) : range === undefined ? await reader.get(key) : await reader.indexRange(key, range);
          return [id, fingerprint(value)] as const;
        }),
      ),
    );
    if (!(await reader.settled())) return suspects;
    for (const c of checks) if (!now.get(c.id)!.equals(c.saw)) stale.add(c.entryKey);
    return stale;
  }

  private remove(key: string): void {
    const entry = this.entries.peek(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.size;
    for (const { key: k } of entry.reads) {
      const set = this.readers.get(k);
      set?.delete(key);
      if (set?.size === 0) this.readers.delete(k);
    }
  }
}

interface ChainCachePoint extends CachePoint {
  pending: PendingPoint;
  flags: number;
}

/** The cache's source: the chain's pending state and the profile flags counter. */
export function chainCacheSource(deps: Pick<AppDeps, 'chain' | 'store'>): ReadCacheSource<ChainCachePoint> {
  const flags = deps.store.watchedRead(() => deps.store.getCounter(PROFILE_FLAGS_VERSION));
  const idOf = (tipHashHex: string, mempoolVersion: number | undefined, flagsVersion: number): string =>
    `${tipHashHex}:${mempoolVersion ?? 0}:${flagsVersion}`;
  return {
    async currentId() {
      const [position, flagsVersion] = await Promise.all([deps.chain.position(), flags.get()]);
      return idOf(position.tip.hashHex, position.mempoolVersion, flagsVersion);
    },
    async update(since) {
      const [{ point, changed, view }, flagsVersion] = await Promise.all([deps.chain.pendingChanges(since?.pending ?? null), flags.get()]);
      return {
        point: { id: idOf(point.tipHashHex, point.version, flagsVersion), pending: point, flags: flagsVersion },
        // Flags are counted, not listed: a change of them may touch any answer.
        changed: since !== null && since.flags === flagsVersion ? changed : null,
        reader: {
          get: (key) => view.get(key),
          indexRange: (key, range) => view.indexRange(key, range),
          indexSize: (key) => view.indexSize(key),
          // The view reads keys its mempool part does not hold from the store: of the point
          // only while no block has moved the tip since. A plain read, on the connection the
          // view's reads took, after them: the remembered position may not have heard yet of
          // a block those reads already saw.
          settled: async () => (await deps.chain.tip()).hashHex === point.tipHashHex,
        },
      };
    },
  };
}

const caches = new WeakMap<AppDeps['chain'], ReadCache | null>();

/** The process's one cache (per chain instance), or null when `--read-cache-mb` is 0. */
export function sharedReadCache(deps: Pick<AppDeps, 'chain' | 'store' | 'config'>): ReadCache | null {
  let cache = caches.get(deps.chain);
  if (cache === undefined) {
    const maxBytes = deps.config.readCacheMb * 1024 * 1024;
    cache = maxBytes > 0 ? (new ReadCache(chainCacheSource(deps), maxBytes) as ReadCache) : null;
    caches.set(deps.chain, cache);
  }
  return cache;
}

/** Chain state as a cached handler may read it: every read is recorded. */
export interface ChainReads {
  /** The pending state: tip plus mempool (Chain.pendingView). */
  pending(): Promise<StateIndexReader>;
  /**
   * The pending state with the places of its mempool part (Chain.pendingPlaces). `height` is
   * the next block's: what is below it stays mined; an answer that shows something at or above
   * it as unmined depends on the tip and reads it through `mined()` (see the module comment).
   * `txnAt` reads the tip itself.
   */
  pendingPlaces(): Promise<PendingPlaces<StateIndexReader>>;
  /** Mined state only. Reading the tip (chainKeys.tip) here ties the answer to it: the next block drops it. */
  mined(): StateIndexReader;
}

/**
 * A reader that notes every key it is asked for; with `keepSeen` (the pending state), what it
 * saw too, so a later catch-up can tell whether a write changed it.
 */
class RecordingReader implements StateIndexReader {
  constructor(
    private readonly inner: StateIndexReader,
    private readonly reads: StateRead[],
    private readonly keepSeen: boolean,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    if (!this.keepSeen) this.reads.push({ key });
    const value = await this.inner.get<T>(key);
    if (this.keepSeen) this.reads.push({ key, seen: { value: fingerprint(value) } });
    return value;
  }

  async indexRange(key: string, range?: IndexRange): Promise<string[]> {
    if (!this.keepSeen) this.reads.push({ key });
    const members = await this.inner.indexRange(key, range);
    if (this.keepSeen) this.reads.push({ key, seen: { range: range ?? {}, value: fingerprint(members) } });
    return members;
  }

  async indexSize(key: string): Promise<number> {
    if (!this.keepSeen) this.reads.push({ key });
    const size = await this.inner.indexSize(key);
    if (this.keepSeen) this.reads.push({ key, seen: { size: true, value: fingerprint(size) } });
    return size;
  }
}

function chainReads(deps: Pick<AppDeps, 'chain' | 'store'>, reads: StateRead[] | null): ChainReads {
  return {
    pending: async () => {
      const view = await deps.chain.pendingView();
      return reads === null ? view : new RecordingReader(view, reads, true);
    },
    pendingPlaces: async () => {
      const places = await deps.chain.pendingPlaces();
      if (reads === null) return places;
      let tipRead = false;
      return {
        view: new RecordingReader(places.view, reads, true),
        height: places.height,
        txnAt: (index) => {
          // A place holds its transaction while the tip holds (see the module comment).
          if (!tipRead) reads.push({ key: chainKeys.tip });
          tipRead = true;
          return places.txnAt(index);
        },
      };
    },
    mined: () => (reads === null ? deps.store : new RecordingReader(deps.store, reads, false)),
  };
}

/** Chain state as a cached handler reads it, recorded nowhere: for uncached routes over the same services. */
export function unrecordedChainReads(deps: Pick<AppDeps, 'chain' | 'store'>): ChainReads {
  return chainReads(deps, null);
}

/** A route whose handler reads chain state through `state` only (see the module comment). */
export interface CachedRoute<B> extends Omit<Route<B>, 'handle'> {
  handle(ctx: RouteContext<B>, state: ChainReads): Promise<Reply> | Reply;
}

/**
 * The route with its 200 answers cached (see the module comment for which routes qualify).
 * The key is the route and its validated body, so two spellings of one request (field case,
 * a number sent as a string) share an entry.
 */
export function cachedRoute<B>(deps: Pick<AppDeps, 'chain' | 'store' | 'config'>, r: CachedRoute<B>): Route {
  const cache = sharedReadCache(deps);
  const { handle, ...rest } = r;
  if (cache === null) return { ...rest, handle: (ctx: RouteContext<B>) => handle(ctx, chainReads(deps, null)) } as Route;
  const cached: Route<B> = {
    ...rest,
    async handle(ctx): Promise<Reply> {
      const key = `${r.method} ${r.path}\n${stringifyJson(ctx.body ?? null)}\n${stringifyJson(ctx.params)}\n${ctx.query.toString()}`;
      if (key.length > MAX_KEY_CHARS) return handle(ctx, chainReads(deps, null));
      const { version, body } = await cache.lookup(key);
      if (body !== undefined) return raw(body, 'application/json');
      const reads: StateRead[] = [];
      const reply = await handle(ctx, chainReads(deps, reads));
      if (reply.kind !== 'json' || reply.status !== 200 || reply.headers !== undefined) return reply;
      // Serialized as the router would (compact JSON and a newline), once.
      const serialized = Buffer.from(stringifyJson(responseBody(reply.body, deps.config.responseNames)) + '\n', 'utf8');
      cache.store(version, key, serialized, reads);
      return raw(serialized, 'application/json');
    },
  };
  return cached as Route;
}
