/**
 * The metrics of one server process, served at GET /metrics (Prometheus text format 0.0.4).
 * Every sample carries `process="<process id>"`: each process counts only what it served. With
 * several processes, the scraped one adds the others' series to its own (`scrape`, through the
 * supervisor: cluster/metricsRelay.ts), so one scrape holds every process's series; sum by
 * `process` in queries.
 *
 * Counted on the request path (cheap increments): HTTP requests, latency, response bytes, rate
 * limit refusals, crypto pool batches. Read at scrape time (collect callbacks): chain tip and
 * mempool, store latency of the last health probe, miner feed, crypto pool queue, process
 * memory, CPU and event loop delay.
 * @module
 */
import type { TaskName } from '../../workers/types.js';
import type { PoolMetrics } from '../crypto/pool.js';
import type { RateLimiterMetrics } from '../http/rateLimit.js';
import type { RateClass } from '../http/rateClasses.js';
import type { DispatchObservation } from '../http/router.js';
import { mergeExpositions } from './merge.js';
import { ProcessMetrics } from './processMetrics.js';
import { Counter, Gauge, Histogram, MetricsRegistry } from './registry.js';

/**
 * Request latency buckets, seconds: 0.5 ms (a cached read on uWS answers in ~0.7 ms at load)
 * to 10 s (a construction route waiting on a busy store), ~2.5x apart.
 */
export const HTTP_LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Crypto batch time from submit to result, seconds: a single verification round trip is
 * ~0.2 ms, a 64-item verify batch ~9 ms, a mining scan up to tens of seconds.
 */
export const CRYPTO_TASK_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];


/** HTTP methods kept as label values; anything else is `other` (bounded cardinality). */
const KNOWN_METHODS = new Set(['GET', 'POST', 'OPTIONS', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

/** What the scrape-time collectors read; attached once the node's parts exist. */
export interface MetricsSources {
  storeKind: string;
  network: string;
  chain: { tip(): Promise<{ height: bigint | number }>; mempoolSize(): Promise<number> };
  /** Counters of the process's read cache (http/readCache.ts); null when it is off. */
  readCache?: () => { hits: number; misses: number; entries: number; bytes: number; rechecked: number; kept: number } | null;
  health: { readonly lastPingMs: number; current(): { ready: boolean } };
  minerFeed: { readonly subscribers: number; readonly rounds: number };
  /** The block producer role (chain/blockProducer.ts); absent in baselines without one. */
  producer?: {
    readonly leading: boolean;
    readonly templatesPublished: number;
    /** The built-in miner of this process: blocks it connected, attempts that failed (each paused the next). */
    readonly minerBlocks?: number;
    readonly minerFailedAttempts?: number;
  };
  /** The worker pool, when the process has one. */
  cryptoPool: { readonly queueSize: number; readonly threadCount: number } | null;
  /** HTTP requests and socket messages being handled now. */
  inFlight(): number;
  /** The node's other server processes (`--processes N`, cluster/metricsRelay.ts); absent when this one runs alone. */
  peers?: PeerMetrics;
}

/** The other server processes of the node, as a scrape reaches them. */
export interface PeerMetrics {
  /** Server processes of the node in all, this one included. */
  readonly processes: number;
  /** The renders of the other processes that answered in time (never rejects). */
  gather(): Promise<string[]>;
}

export class NodeMetrics {
  readonly registry: MetricsRegistry;
  /** Series about the scrape itself: rendered once per scrape, by the scraped process only. */
  private readonly scrapeRegistry: MetricsRegistry;
  private readonly scrapeProcesses: Gauge;
  private sources: MetricsSources | null = null;
  private readonly process: ProcessMetrics;
  /** Largest crypto queue depth seen since the last scrape. */
  private queuePeak = 0;

  private readonly httpRequests: Counter;
  private readonly httpLatency: Histogram;
  private readonly httpBytes: Counter;
  private readonly rateLimited: Counter;
  private readonly rateLimitStoreErrors: Counter;
  private readonly cryptoTaskTime: Histogram;
  private readonly cryptoRejected: Counter;
  private readonly cryptoWorkerDeaths: Counter;

  /** Hooks for CryptoPool (its `modules.metrics`). */
  readonly cryptoPool: PoolMetrics;
  /** Hooks for the RateLimiter. */
  readonly rateLimits: RateLimiterMetrics;

  constructor(processId: string, opts: { onCollectError?: (metric: string, err: unknown) => void } = {}) {
    const r = (this.registry = new MetricsRegistry({ constLabels: { process: processId }, onCollectError: opts.onCollectError }));
    this.scrapeRegistry = new MetricsRegistry({ constLabels: { process: processId } });
    this.scrapeProcesses = this.scrapeRegistry.gauge({
      name: 'socialnode_scrape_processes',
      help:
        'Server processes of the node whose series this scrape holds (state="included", the scraped one among them) or lacks ' +
        '(state="missing": starting, restarting, or no answer within 2 s); process names the scraped one.',
      labelNames: ['state'],
    });
    const src = (): MetricsSources | null => this.sources;

    this.httpRequests = r.counter({
      name: 'socialnode_http_requests_total',
      help: 'HTTP requests answered, by route pattern (not the raw URL), method and status code.',
      labelNames: ['route', 'method', 'code'],
    });
    this.httpLatency = r.histogram({
      name: 'socialnode_http_request_duration_seconds',
      help: 'Time from request arrival to a ready response, by route pattern and method.',
      labelNames: ['route', 'method'],
      buckets: HTTP_LATENCY_BUCKETS,
    });
    this.httpBytes = r.counter({
      name: 'socialnode_http_response_body_bytes_total',
      help: 'Response body bytes sent, by content coding (identity, br, gzip).',
      labelNames: ['encoding'],
    });
    r.gauge({ name: 'socialnode_http_requests_in_flight', help: 'HTTP requests and WebSocket messages being handled now.' }, (g) => {
      const s = src();
      if (s) g.set(undefined, s.inFlight());
    });
    this.rateLimited = r.counter({
      name: 'socialnode_rate_limited_requests_total',
      help: 'Requests refused with 429, by rate limit class and bucket scope (ip or key).',
      labelNames: ['class', 'scope'],
    });
    this.rateLimitStoreErrors = r.counter({
      name: 'socialnode_rate_limit_store_errors_total',
      help: 'Rate limit takes that failed in the state store; those requests were let through (fail open).',
    });

    r.gauge({ name: 'socialnode_crypto_pool_queue_depth', help: 'Crypto batches waiting for a worker thread now.' }, (g) => {
      const pool = src()?.cryptoPool;
      if (pool) g.set(undefined, pool.queueSize);
    });
    r.gauge({ name: 'socialnode_crypto_pool_queue_depth_peak', help: 'Largest crypto queue depth seen after a submit since the previous scrape.' }, (g) => {
      g.set(undefined, this.queuePeak);
      this.queuePeak = src()?.cryptoPool?.queueSize ?? 0;
    });
    r.gauge({ name: 'socialnode_crypto_pool_threads', help: 'Crypto worker threads alive.' }, (g) => {
      const pool = src()?.cryptoPool;
      if (pool) g.set(undefined, pool.threadCount);
    });
    this.cryptoTaskTime = r.histogram({
      name: 'socialnode_crypto_task_duration_seconds',
      help: 'Crypto batch time from submit to result (queue wait, run, transfer), by task.',
      labelNames: ['task'],
      buckets: CRYPTO_TASK_BUCKETS,
    });
    this.cryptoRejected = r.counter({
      name: 'socialnode_crypto_pool_rejected_total',
      help: 'Crypto batches refused because the queue was full (answered 503), by task.',
      labelNames: ['task'],
    });
    this.cryptoWorkerDeaths = r.counter({
      name: 'socialnode_crypto_worker_deaths_total',
      help: 'Crypto worker threads that died under a batch, by task.',
      labelNames: ['task'],
    });

    r.gauge({ name: 'socialnode_chain_tip_height', help: 'Height of the chain tip.' }, async (g) => {
      const s = src();
      if (s) g.set(undefined, Number((await s.chain.tip()).height));
    });
    r.gauge({ name: 'socialnode_chain_mempool_transactions', help: 'Transactions waiting in the mempool.' }, async (g) => {
      const s = src();
      if (s) g.set(undefined, await s.chain.mempoolSize());
    });
    const readCacheCounters = [
      ['hits', 'socialnode_read_cache_hits_total', 'Hot read route requests answered from the read cache.'],
      ['misses', 'socialnode_read_cache_misses_total', 'Hot read route requests computed from state (then cached).'],
      ['rechecked', 'socialnode_read_cache_rechecked_total', 'Cached answers that read a state key written since, looked at again.'],
      ['kept', 'socialnode_read_cache_kept_total', 'Rechecked answers kept: every written key they read still held what they saw.'],
    ] as const;
    for (const [field, name, help] of readCacheCounters) {
      r.counter({ name, help }, (c) => {
        const stats = this.sources?.readCache?.();
        if (stats) c.setTotal(undefined, stats[field]);
      });
    }
    r.gauge({ name: 'socialnode_read_cache_bytes', help: 'Approximate memory held by cached answers.' }, (g) => {
      const stats = this.sources?.readCache?.();
      if (stats) g.set(undefined, stats.bytes);
    });
    r.gauge({ name: 'socialnode_store_ping_seconds', help: 'Round trip of the last state store health probe.' }, (g) => {
      const s = src();
      if (s && Number.isFinite(s.health.lastPingMs)) g.set(undefined, s.health.lastPingMs / 1000);
    });
    r.gauge({ name: 'socialnode_ready', help: '1 when this process can serve (state store reachable, not shutting down), else 0.' }, (g) => {
      const s = src();
      if (s) g.set(undefined, s.health.current().ready ? 1 : 0);
    });
    r.gauge({ name: 'socialnode_miner_feed_subscribers', help: 'Miner sockets subscribed to block templates on this process.' }, (g) => {
      const s = src();
      if (s) g.set(undefined, s.minerFeed.subscribers);
    });
    r.counter({ name: 'socialnode_miner_feed_rounds_total', help: 'Rounds of block templates pushed to miner sockets.' }, (c) => {
      const s = src();
      if (s) c.setTotal(undefined, s.minerFeed.rounds);
    });
    r.gauge({ name: 'socialnode_block_producer', help: '1 while this process holds the block-producer lease (builds templates, runs the built-in miner), else 0.' }, (g) => {
      const p = src()?.producer;
      if (p) g.set(undefined, p.leading ? 1 : 0);
    });
    r.counter({ name: 'socialnode_templates_published_total', help: 'Block templates this process built and announced as the block producer.' }, (c) => {
      const p = src()?.producer;
      if (p) c.setTotal(undefined, p.templatesPublished);
    });
    r.counter({ name: 'socialnode_miner_blocks_total', help: 'Blocks the built-in miner of this process mined and connected.' }, (c) => {
      const p = src()?.producer;
      if (p?.minerBlocks !== undefined) c.setTotal(undefined, p.minerBlocks);
    });
    r.counter(
      { name: 'socialnode_miner_failed_attempts_total', help: 'Block attempts of the built-in miner that failed (a template not built, a block refused); each pauses the next, 100 ms doubling to 5 s.' },
      (c) => {
        const p = src()?.producer;
        if (p?.minerFailedAttempts !== undefined) c.setTotal(undefined, p.minerFailedAttempts);
      },
    );
    r.gauge({ name: 'socialnode_info', help: 'Always 1; labels name the state store kind and the network.', labelNames: ['store', 'network'] }, (g) => {
      const s = src();
      g.reset();
      if (s) g.set({ store: s.storeKind, network: s.network }, 1);
    });

    this.process = new ProcessMetrics(r);

    this.cryptoPool = {
      queueDepth: (depth: number) => {
        if (depth > this.queuePeak) this.queuePeak = depth;
      },
      taskTime: (task: TaskName, ms: number) => this.cryptoTaskTime.observe({ task }, ms / 1000),
      workerDied: (task: TaskName) => this.cryptoWorkerDeaths.inc({ task }),
      rejected: (task: TaskName) => this.cryptoRejected.inc({ task }),
    };
    this.rateLimits = {
      rejected: (cls: RateClass, scope: 'ip' | 'key') => this.rateLimited.inc({ class: cls, scope }),
      storeError: () => this.rateLimitStoreErrors.inc(),
    };
  }

  /** Connects the scrape-time collectors to the node's parts. */
  attach(sources: MetricsSources): void {
    this.sources = sources;
  }

  /** One answered HTTP request (the router calls this for every dispatch). */
  observeDispatch(o: DispatchObservation): void {
    const method = KNOWN_METHODS.has(o.method) ? o.method : 'other';
    this.httpRequests.inc({ route: o.route, method, code: String(o.status) });
    this.httpLatency.observe({ route: o.route, method }, o.seconds);
    this.httpBytes.inc({ encoding: o.encoding }, o.bodyBytes);
  }

  /** This process's series alone (what it sends another process's scrape). */
  render(): Promise<string> {
    return this.registry.render();
  }

  /**
   * GET /metrics: this process's series and every other process's that answered in time,
   * merged into one exposition, with socialnode_scrape_processes saying how many are in it.
   */
  async scrape(): Promise<string> {
    const peers = this.sources?.peers;
    const [own, others] = await Promise.all([this.registry.render(), peers?.gather() ?? Promise.resolve([])]);
    this.scrapeProcesses.set({ state: 'included' }, 1 + others.length);
    this.scrapeProcesses.set({ state: 'missing' }, Math.max(0, (peers?.processes ?? 1) - 1 - others.length));
    return mergeExpositions([own, ...others, await this.scrapeRegistry.render()]);
  }

  /** Stops the event loop delay sampler and the GC observer. */
  close(): void {
    this.process.close();
  }
}
