/**
 * Serialized answers of the hot social read routes, kept while nothing they read can have
 * changed, so a popular profile, thread page or order book is computed once per change
 * instead of once per request.
 *
 * What an answer reads: chain state (the tip plus the mempool, i.e. the chain's position:
 * tip hash and mempool admission counter) and the node-local profile flags (verified badge,
 * tutorial lists, moderation: every writer bumps PROFILE_FLAGS_VERSION). The cache's version
 * is those three values; a request first learns the current version (one coalesced store
 * read, never staler than a read of its own: chain/freshRead.ts), and any change drops every
 * entry at once. Answers of other processes' writes are therefore never served once the
 * version read has seen them, and a process's own writes are seen by its next request.
 *
 * Only routes whose answer is a pure function of (request body, chain state, profile flags)
 * may be cached: no wall clock, no per-caller state. Only 200 answers are kept. Bounded by
 * total bytes (oldest entries out first); `--read-cache-mb 0` turns it off.
 * @module
 */
import type { AppDeps } from '../app.js';
import { FreshRead } from '../chain/freshRead.js';
import { stringifyJson } from '../http/router.js';
import { raw, type Reply, type Route } from '../http/route.js';
import { PROFILE_FLAGS_VERSION } from './profileEntry.js';

/** Keys longer than this (large bodies) are not cached: they are rare and would crowd out the rest. */
const MAX_KEY_CHARS = 4096;

export interface ReadCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

export class ReadCache {
  private version = '';
  private readonly entries = new Map<string, string>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly currentVersion: () => Promise<string>,
    private readonly maxBytes: number,
  ) {}

  /** The cached answer of `key` at the current version, or the version to store a fresh one under. */
  async lookup(key: string): Promise<{ version: string; text: string | undefined }> {
    const version = await this.currentVersion();
    if (version !== this.version) this.reset(version);
    const text = this.entries.get(key);
    if (text === undefined) this.misses++;
    else this.hits++;
    return { version, text };
  }

  /** Keeps `text` unless the version moved on while it was computed, or it could never fit. */
  store(version: string, key: string, text: string): void {
    if (version !== this.version || this.maxBytes <= 0) return;
    const size = (key.length + text.length) * 2;
    if (size > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= (key.length + old.length) * 2;
    }
    while (this.bytes + size > this.maxBytes && this.entries.size > 0) {
      const [k, v] = this.entries.entries().next().value!;
      this.entries.delete(k);
      this.bytes -= (k.length + v.length) * 2;
    }
    this.entries.set(key, text);
    this.bytes += size;
  }

  stats(): ReadCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.bytes };
  }

  private reset(version: string): void {
    this.version = version;
    this.entries.clear();
    this.bytes = 0;
  }
}

/** The version a cached answer is valid for: chain position and profile flags counter. */
export function readVersion(deps: Pick<AppDeps, 'chain' | 'store'>): () => Promise<string> {
  const flags = new FreshRead(() => deps.store.getCounter(PROFILE_FLAGS_VERSION));
  return async () => {
    const [position, flagsVersion] = await Promise.all([deps.chain.position(), flags.get()]);
    return `${position.tip.hashHex}:${position.mempoolVersion ?? 0}:${flagsVersion}`;
  };
}

const caches = new WeakMap<AppDeps['chain'], ReadCache | null>();

/** The process's one cache (per chain instance), or null when `--read-cache-mb` is 0. */
export function sharedReadCache(deps: Pick<AppDeps, 'chain' | 'store' | 'config'>): ReadCache | null {
  let cache = caches.get(deps.chain);
  if (cache === undefined) {
    const maxBytes = deps.config.readCacheMb * 1024 * 1024;
    cache = maxBytes > 0 ? new ReadCache(readVersion(deps), maxBytes) : null;
    caches.set(deps.chain, cache);
  }
  return cache;
}

/**
 * The route with its 200 answers cached (see the module comment for which routes qualify).
 * The key is the route and its validated body, so two spellings of one request (field case,
 * a number sent as a string) share an entry.
 */
export function cachedRoute(deps: Pick<AppDeps, 'chain' | 'store' | 'config'>, r: Route): Route {
  const cache = sharedReadCache(deps);
  if (cache === null) return r;
  return {
    ...r,
    async handle(ctx): Promise<Reply> {
      const key = `${r.method} ${r.path}\n${stringifyJson(ctx.body ?? null)}\n${stringifyJson(ctx.params)}\n${ctx.query.toString()}`;
      if (key.length > MAX_KEY_CHARS) return r.handle(ctx);
      const { version, text } = await cache.lookup(key);
      if (text !== undefined) return raw(text, 'application/json');
      const reply = await r.handle(ctx);
      if (reply.kind !== 'json' || reply.status !== 200 || reply.headers !== undefined) return reply;
      // Serialized as the router would (compact JSON and a newline), once.
      const serialized = stringifyJson(reply.body) + '\n';
      cache.store(version, key, serialized);
      return raw(serialized, 'application/json');
    },
  };
}
