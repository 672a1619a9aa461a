import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { json, raw, route, type Route } from '../../server/http/route.js';
import { Router } from '../../server/http/router.js';
import type { IncomingRequest } from '../../server/http/uws.js';
import { NodeMetrics } from '../../server/metrics/nodeMetrics.js';
import { metricsRoutes } from '../../server/metrics/route.js';
import { CONTENT_TYPE, escapeHelp, escapeLabelValue, formatValue, MetricsRegistry } from '../../server/metrics/registry.js';
import { parsePrometheusText, sampleValue } from '../helpers/promText.js';

const log = pino({ level: 'silent' });

describe('MetricsRegistry', () => {
  it('renders HELP, TYPE and labelled samples, constant labels first', async () => {
    const r = new MetricsRegistry({ constLabels: { process: 'p1' } });
    const c = r.counter({ name: 'x_requests_total', help: 'Requests.', labelNames: ['route', 'code'] });
    const g = r.gauge({ name: 'x_depth', help: 'Depth.' });
    c.inc({ route: '/a', code: '2xx' });
    c.inc({ route: '/a', code: '2xx' }, 2);
    c.inc({ route: '/b', code: '4xx' });
    g.set(undefined, 7);
    const text = await r.render();
    assert.equal(
      text,
      [
        '# HELP x_requests_total Requests.',
        '# TYPE x_requests_total counter',
        'x_requests_total{process="p1",route="/a",code="2xx"} 3',
        'x_requests_total{process="p1",route="/b",code="4xx"} 1',
        '# HELP x_depth Depth.',
        '# TYPE x_depth gauge',
        'x_depth{process="p1"} 7',
        '',
      ].join('\n'),
    );
    const parsed = parsePrometheusText(text);
    assert.equal(sampleValue(parsed, 'x_requests_total', { route: '/a' }), 3);
    assert.equal(parsed.get('x_depth')?.type, 'gauge');
  });

  it('a counter without labels starts at 0 and is rendered before its first increment', async () => {
    const r = new MetricsRegistry();
    r.counter({ name: 'x_errors_total', help: 'Errors.' });
    assert.match(await r.render(), /^x_errors_total 0$/m);
  });

  it('escapes label values (backslash, quote, line feed) and help text (backslash, line feed)', async () => {
    assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
    assert.equal(escapeHelp('line1\nback\\slash "quoted"'), 'line1\\nback\\\\slash "quoted"');
    const r = new MetricsRegistry({ constLabels: { process: 'we"ird\\' } });
    const g = r.gauge({ name: 'x_g', help: 'Two\nlines \\ here', labelNames: ['v'] });
    const nasty = 'a\\b"c\nd}{,=';
    g.set({ v: nasty }, 1);
    const text = await r.render();
    assert.ok(text.includes('# HELP x_g Two\\nlines \\\\ here\n'), text);
    const parsed = parsePrometheusText(text);
    assert.equal(parsed.get('x_g')?.help, 'Two\nlines \\ here');
    assert.deepEqual(parsed.get('x_g')?.samples[0]?.labels, { process: 'we"ird\\', v: nasty });
  });

  it('formats NaN and infinities as the format spells them', () => {
    assert.equal(formatValue(NaN), 'NaN');
    assert.equal(formatValue(Infinity), '+Inf');
    assert.equal(formatValue(-Infinity), '-Inf');
    assert.equal(formatValue(0.25), '0.25');
  });

  it('renders histograms with cumulative buckets, +Inf equal to _count, and _sum', async () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: 'x_seconds', help: 'Latency.', labelNames: ['route'], buckets: [0.1, 0.5, 1] });
    for (const v of [0.05, 0.1, 0.3, 0.7, 2, 5]) h.observe({ route: '/a' }, v);
    h.observe({ route: '/b' }, 0.2);
    assert.equal(h.count({ route: '/a' }), 6);
    const parsed = parsePrometheusText(await r.render());
    const bucket = (route: string, le: string) => sampleValue(parsed, 'x_seconds_bucket', { route, le });
    // 0.1 is inside the le="0.1" bucket (upper bounds are inclusive).
    assert.deepEqual(['0.1', '0.5', '1', '+Inf'].map((le) => bucket('/a', le)), [2, 3, 4, 6]);
    assert.equal(sampleValue(parsed, 'x_seconds_count', { route: '/a' }), 6);
    assert.equal(sampleValue(parsed, 'x_seconds_sum', { route: '/a' }), 0.05 + 0.1 + 0.3 + 0.7 + 2 + 5);
    assert.equal(sampleValue(parsed, 'x_seconds_count', { route: '/b' }), 1);
  });

  it('runs collect callbacks at render; a failing one is reported and the rest still render', async () => {
    const failures: string[] = [];
    const r = new MetricsRegistry({ onCollectError: (name) => failures.push(name) });
    let depth = 3;
    r.gauge({ name: 'x_depth', help: 'Depth.' }, (g) => g.set(undefined, depth));
    r.gauge({ name: 'x_broken', help: 'Broken.' }, async () => {
      throw new Error('source down');
    });
    r.counter({ name: 'x_total', help: 'Mirrored total.' }, (c) => c.setTotal(undefined, depth * 10));
    assert.equal(sampleValue(parsePrometheusText(await r.render()), 'x_depth'), 3);
    depth = 1;
    const parsed = parsePrometheusText(await r.render());
    assert.equal(sampleValue(parsed, 'x_depth'), 1);
    // A mirrored counter never goes down.
    assert.equal(sampleValue(parsed, 'x_total'), 30);
    assert.deepEqual(failures, ['x_broken', 'x_broken']);
  });

  it('refuses bad names, label sets that do not match, decreasing counters and duplicates', () => {
    const r = new MetricsRegistry({ constLabels: { process: 'p' } });
    assert.throws(() => r.counter({ name: '1bad', help: '' }), /metric name/);
    assert.throws(() => r.counter({ name: 'x_a', help: '', labelNames: ['__reserved'] }), /not allowed/);
    assert.throws(() => r.counter({ name: 'x_b', help: '', labelNames: ['process'] }), /constant label/);
    assert.throws(() => r.histogram({ name: 'x_c', help: '', labelNames: ['le'], buckets: [1] }), /not allowed/);
    assert.throws(() => r.histogram({ name: 'x_d', help: '', buckets: [1, 0.5] }), /increasing order/);
    const c = r.counter({ name: 'x_e_total', help: '', labelNames: ['route'] });
    assert.throws(() => c.inc(), /expected labels route/);
    assert.throws(() => c.inc({ route: '/a', extra: 'x' }), /exactly the labels/);
    assert.throws(() => c.inc({ route: '/a' }, -1), /only goes up/);
    assert.throws(() => r.counter({ name: 'x_e_total', help: '' }), /already registered/);
  });
});

describe('GET /metrics (NodeMetrics through the router)', () => {
  function setup(): { router: Router; metrics: NodeMetrics } {
    const metrics = new NodeMetrics('proc-1');
    const routes: Route[] = [
      route({ method: 'GET', path: '/thing/:Id', summary: 'param', handle: (ctx) => json({ id: ctx.params['Id'] }) }),
      route({ method: 'GET', path: '/text', summary: 'text', handle: () => raw('x'.repeat(10), 'text/plain') }),
      ...metricsRoutes(metrics),
    ];
    const router = new Router([routes], { network: 'testnet', corsOrigins: ['*'], log, onDispatched: (o) => metrics.observeDispatch(o) });
    return { router, metrics };
  }
  const get = (url: string): IncomingRequest => ({ method: 'GET', url, query: '', headers: {}, remoteAddress: '10.0.0.1', body: null });

  it('counts requests by route pattern and status class, and the latency histogram count matches', async (t) => {
    const { router, metrics } = setup();
    t.after(() => metrics.close());
    const N = 7;
    for (let i = 0; i < N; i++) await router.dispatch(get(`/api/v0/thing/id-${i}`));
    await router.dispatch(get('/no/such/route/secret-token-123'));
    const out = await router.dispatch(get('/metrics'));
    assert.equal(out.status, 200);
    assert.deepEqual(new Map(out.headers).get('Content-Type'), CONTENT_TYPE);
    const text = String(out.body);
    const parsed = parsePrometheusText(text);
    const labels = { process: 'proc-1', route: '/thing/:Id', method: 'GET' };
    assert.equal(sampleValue(parsed, 'socialnode_http_requests_total', { ...labels, code: '200' }), N);
    assert.equal(sampleValue(parsed, 'socialnode_http_request_duration_seconds_count', labels), N);
    assert.equal(sampleValue(parsed, 'socialnode_http_requests_total', { route: '(unmatched)', code: '404' }), 1);
    // Raw URLs never become label values (bounded cardinality).
    assert.ok(!text.includes('id-3') && !text.includes('secret-token-123'), 'raw URL leaked into labels');

    for (let i = 0; i < 3; i++) await router.dispatch(get('/thing/again'));
    const again = parsePrometheusText(String((await router.dispatch(get('/metrics'))).body));
    assert.equal(sampleValue(again, 'socialnode_http_requests_total', { ...labels, code: '200' }), N + 3);
    assert.equal(sampleValue(again, 'socialnode_http_request_duration_seconds_count', labels), N + 3);
    // The first scrape is counted too, under its own route.
    assert.equal(sampleValue(again, 'socialnode_http_requests_total', { route: '/metrics', code: '200' }), 1);
  });

  it('exposes process metrics, and the crypto and rate limit hooks count into it', async (t) => {
    const { router, metrics } = setup();
    t.after(() => metrics.close());
    metrics.cryptoPool.taskTime('verifySignatures', 4);
    metrics.cryptoPool.taskTime('verifySignatures', 12);
    metrics.cryptoPool.rejected('sign');
    metrics.cryptoPool.queueDepth(5);
    metrics.rateLimits.rejected('write', 'key');
    metrics.rateLimits.storeError();
    metrics.attach({
      storeKind: 'memory',
      network: 'testnet',
      chain: { tip: async () => ({ height: 42n }), mempoolSize: async () => 3 },
      health: { lastPingMs: 2.5, current: () => ({ ready: true }) },
      minerFeed: { subscribers: 2, rounds: 9 },
      producer: { leading: true, templatesPublished: 4, minerBlocks: 6, minerFailedAttempts: 2 },
      cryptoPool: { queueSize: 1, threadCount: 2 },
      inFlight: () => 1,
      readCache: () => ({ hits: 7, misses: 2, entries: 2, bytes: 512, rechecked: 5, kept: 3 }),
    });
    const parsed = parsePrometheusText(String((await router.dispatch(get('/metrics'))).body));
    const v = (name: string, labels: Record<string, string> = {}) => sampleValue(parsed, name, labels);
    assert.equal(v('socialnode_crypto_task_duration_seconds_count', { task: 'verifySignatures' }), 2);
    assert.equal(v('socialnode_crypto_task_duration_seconds_bucket', { task: 'verifySignatures', le: '0.005' }), 1);
    assert.equal(v('socialnode_crypto_pool_rejected_total', { task: 'sign' }), 1);
    assert.equal(v('socialnode_crypto_pool_queue_depth_peak'), 5);
    assert.equal(v('socialnode_crypto_pool_queue_depth'), 1);
    assert.equal(v('socialnode_crypto_pool_threads'), 2);
    assert.equal(v('socialnode_rate_limited_requests_total', { class: 'write', scope: 'key' }), 1);
    assert.equal(v('socialnode_rate_limit_store_errors_total'), 1);
    assert.equal(v('socialnode_chain_tip_height'), 42);
    assert.equal(v('socialnode_chain_mempool_transactions'), 3);
    assert.equal(v('socialnode_store_ping_seconds'), 0.0025);
    assert.equal(v('socialnode_ready'), 1);
    assert.equal(v('socialnode_miner_feed_subscribers'), 2);
    assert.equal(v('socialnode_miner_feed_rounds_total'), 9);
    assert.equal(v('socialnode_block_producer'), 1);
    assert.equal(v('socialnode_templates_published_total'), 4);
    assert.equal(v('socialnode_miner_blocks_total'), 6);
    assert.equal(v('socialnode_miner_failed_attempts_total'), 2);
    assert.equal(v('socialnode_http_requests_in_flight'), 1);
    assert.equal(v('socialnode_read_cache_hits_total'), 7);
    assert.equal(v('socialnode_read_cache_misses_total'), 2);
    assert.equal(v('socialnode_read_cache_rechecked_total'), 5);
    assert.equal(v('socialnode_read_cache_kept_total'), 3);
    assert.equal(v('socialnode_read_cache_bytes'), 512);
    assert.equal(v('socialnode_info', { store: 'memory', network: 'testnet' }), 1);
    assert.ok((v('process_resident_memory_bytes') ?? 0) > 0, 'rss');
    assert.ok((v('process_cpu_seconds_total') ?? 0) > 0, 'cpu');
    assert.ok(v('nodejs_eventloop_lag_p99_seconds') !== undefined, 'event loop lag p99');
    assert.equal(parsed.get('process_cpu_seconds_total')?.type, 'counter');
    // The standard exporters' names, so stock Node.js dashboards read them as they are.
    for (const name of ['nodejs_heap_size_used_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_external_memory_bytes', 'process_open_fds', 'process_max_fds', 'process_start_time_seconds', 'nodejs_eventloop_lag_p50_seconds', 'nodejs_eventloop_lag_max_seconds']) {
      assert.ok(v(name) !== undefined, name);
    }
    assert.equal(sampleValue(parsed, 'nodejs_version_info', { version: process.version }), 1);
    assert.equal(parsed.get('nodejs_gc_duration_seconds')?.type, 'histogram');
    // Every sample names its process.
    for (const f of parsed.values()) for (const s of f.samples) assert.equal(s.labels['process'], 'proc-1', `${s.name} has the process label`);
  });

  it('answers with Cache-Control: no-store and no ETag: every scrape is fresh', async (t) => {
    const { router, metrics } = setup();
    t.after(() => metrics.close());
    const out = await router.dispatch(get('/metrics'));
    const headers = new Map(out.headers);
    assert.equal(headers.get('Cache-Control'), 'no-store');
    assert.equal(headers.has('ETag'), false);
  });
});
