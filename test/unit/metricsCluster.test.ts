// One scrape, every process's series (issue 22, item 3): merging renders into one exposition,
// the supervisor's and the children's halves of the IPC relay (cluster/metricsRelay.ts) over
// in-memory channels, and NodeMetrics.scrape. The real processes: test/e2e/cluster.e2e.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ChildMetricsRelay, SupervisorMetricsRelay, type IpcChannel, type RelayPeer, type RelayReply, type RelayRequest } from '../../server/cluster/metricsRelay.js';
import { mergeExpositions } from '../../server/metrics/merge.js';
import { NodeMetrics } from '../../server/metrics/nodeMetrics.js';
import { MetricsRegistry } from '../../server/metrics/registry.js';
import { parsePrometheusText, sampleValue } from '../helpers/promText.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A registry render of one process: a counter, a gauge and a histogram. */
async function processRender(id: string, requests: number): Promise<string> {
  const r = new MetricsRegistry({ constLabels: { process: id } });
  r.counter({ name: 'x_requests_total', help: 'Requests.', labelNames: ['code'] }).inc({ code: '200' }, requests);
  r.gauge({ name: 'x_depth', help: 'Depth.' }).set(undefined, requests * 2);
  r.histogram({ name: 'x_seconds', help: 'Latency.', buckets: [0.1, 1] }).observe(undefined, 0.5);
  return r.render();
}

describe('mergeExpositions', () => {
  it('gives each family one HELP and TYPE, then every render\'s samples, in first-seen order', async () => {
    const merged = mergeExpositions([await processRender('a', 3), await processRender('b', 5)]);
    const families = parsePrometheusText(merged); // strict: a second TYPE line would throw
    assert.deepEqual([...families.keys()], ['x_requests_total', 'x_depth', 'x_seconds']);
    assert.equal(sampleValue(families, 'x_requests_total', { process: 'a', code: '200' }), 3);
    assert.equal(sampleValue(families, 'x_requests_total', { process: 'b', code: '200' }), 5);
    assert.equal(sampleValue(families, 'x_depth', { process: 'b' }), 10);
    assert.equal(sampleValue(families, 'x_seconds_count', { process: 'a' }), 1);
    assert.equal(merged.match(/^# TYPE x_seconds histogram$/gm)?.length, 1);
    assert.equal(families.get('x_seconds')!.samples.length, 2 * 5);
  });

  it('keeps a family only one render has, and one render unchanged', async () => {
    const one = await processRender('a', 1);
    assert.equal(mergeExpositions([one]), one);
    const extra = '# HELP y_only Only here.\n# TYPE y_only gauge\ny_only{process="b"} 7\n';
    const families = parsePrometheusText(mergeExpositions([one, extra]));
    assert.equal(sampleValue(families, 'y_only', { process: 'b' }), 7);
    assert.equal(mergeExpositions([]), '');
  });
});

/** A supervisor and N children wired by in-memory channels (delivery is asynchronous, as over IPC). */
function cluster(opts: { renders: Array<(() => Promise<string>) | 'silent'>; ready?: boolean[]; timeoutMs: number; childWaitMs?: number }) {
  const toChild: Array<(m: RelayReply) => void> = [];
  const peers: RelayPeer[] = opts.renders.map((_, slot) => ({
    slot,
    ready: opts.ready?.[slot] ?? true,
    send: (m) => {
      setImmediate(() => toChild[slot]!(m));
      return true;
    },
  }));
  const supervisor = new SupervisorMetricsRelay(() => peers, opts.timeoutMs);
  const children = opts.renders.map((render, slot) => {
    const listeners = new Set<(m: unknown) => void>();
    toChild[slot] = (m) => {
      // A silent child (event loop blocked) never reads its messages.
      if (render !== 'silent') for (const l of listeners) l(m);
    };
    const channel: IpcChannel = {
      send: (m: RelayRequest) => setImmediate(() => supervisor.onMessage(slot, m)),
      onMessage: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    return new ChildMetricsRelay(channel, render === 'silent' ? () => new Promise(() => undefined) : render, opts.childWaitMs ?? opts.timeoutMs + 200);
  });
  return { supervisor, children, peers };
}

describe('the metrics relay (supervisor and children)', () => {
  it('a scraped child gets every other ready child\'s render', async () => {
    const { supervisor, children } = cluster({ renders: [() => processRender('a', 1), () => processRender('b', 2), () => processRender('c', 3)], timeoutMs: 1000 });
    const texts = await children[1]!.gather();
    assert.equal(texts.length, 2);
    assert.ok(texts.some((t) => t.includes('process="a"')) && texts.some((t) => t.includes('process="c"')));
    assert.ok(!texts.some((t) => t.includes('process="b"')), 'not its own');
    assert.equal(supervisor.inProgress, 0);
    for (const c of children) c.close();
  });

  it('leaves out a child that is not ready without waiting for it', async () => {
    const { children } = cluster({ renders: [() => processRender('a', 1), () => processRender('b', 2)], ready: [true, false], timeoutMs: 60_000 });
    const started = performance.now();
    assert.deepEqual(await children[0]!.gather(), []);
    assert.ok(performance.now() - started < 1000, 'answered at once');
    for (const c of children) c.close();
  });

  it('answers with the others after the timeout when one child never does, and ignores its late answer', async () => {
    let release: (() => void) | undefined;
    const slow = (): Promise<string> => new Promise((r) => (release = () => void processRender('slow', 9).then(r)));
    const { supervisor, children } = cluster({ renders: [() => processRender('a', 1), slow, 'silent'], timeoutMs: 150 });
    const started = performance.now();
    const texts = await children[0]!.gather();
    const took = performance.now() - started;
    assert.ok(took >= 140 && took < 2000, `waited the timeout, ${took.toFixed(0)} ms`);
    assert.deepEqual(texts, [], 'neither the slow nor the silent one answered in time');
    assert.equal(supervisor.inProgress, 0);
    release!();
    await sleep(20);
    assert.equal(supervisor.inProgress, 0, 'the late render is dropped');
    for (const c of children) c.close();
  });

  it('a render that fails counts as missing at once', async () => {
    const { children } = cluster({ renders: [() => processRender('a', 1), () => Promise.reject(new Error('boom')), () => processRender('c', 3)], timeoutMs: 60_000 });
    const texts = await children[0]!.gather();
    assert.equal(texts.length, 1);
    assert.match(texts[0]!, /process="c"/);
    for (const c of children) c.close();
  });

  it('the child stops waiting for a supervisor that does not answer', async () => {
    const channel: IpcChannel = { send: () => undefined, onMessage: () => () => undefined };
    const relay = new ChildMetricsRelay(channel, () => processRender('a', 1), 100);
    const started = performance.now();
    assert.deepEqual(await relay.gather(), []);
    assert.ok(performance.now() - started >= 90);
    relay.close();
  });

  it('concurrent scrapes of two children are answered each with the other', async () => {
    const { children } = cluster({ renders: [() => processRender('a', 1), () => processRender('b', 2)], timeoutMs: 1000 });
    const [fromA, fromB] = await Promise.all([children[0]!.gather(), children[1]!.gather()]);
    assert.match(fromA.join(''), /process="b"/);
    assert.match(fromB.join(''), /process="a"/);
    for (const c of children) c.close();
  });
});

describe('NodeMetrics.scrape', () => {
  it('alone: its own series and socialnode_scrape_processes included 1, missing 0', async (t) => {
    const m = new NodeMetrics('solo');
    t.after(() => m.close());
    const f = parsePrometheusText(await m.scrape());
    assert.equal(sampleValue(f, 'socialnode_scrape_processes', { process: 'solo', state: 'included' }), 1);
    assert.equal(sampleValue(f, 'socialnode_scrape_processes', { process: 'solo', state: 'missing' }), 0);
    assert.ok(sampleValue(f, 'process_resident_memory_bytes', { process: 'solo' })! > 0);
  });

  it('with peers: every process\'s series in one valid exposition, and the missing ones counted', async (t) => {
    const [a, b] = [new NodeMetrics('proc-a'), new NodeMetrics('proc-b')];
    t.after(() => {
      a.close();
      b.close();
    });
    a.cryptoPool.rejected('sign');
    b.cryptoPool.rejected('sign');
    b.cryptoPool.rejected('sign');
    const attach = (m: NodeMetrics, peers: { processes: number; gather(): Promise<string[]> }): void =>
      m.attach({
        storeKind: 'redis',
        network: 'testnet',
        chain: { tip: async () => ({ height: 7n }), mempoolSize: async () => 0 },
        health: { lastPingMs: 1, current: () => ({ ready: true }) },
        minerFeed: { subscribers: 0, rounds: 0 },
        cryptoPool: null,
        inFlight: () => 0,
        peers,
      });
    // Three processes: b answers a's scrape, the third does not.
    attach(b, { processes: 3, gather: async () => [] });
    attach(a, { processes: 3, gather: async () => [await b.render()] });
    const f = parsePrometheusText(await a.scrape());
    assert.equal(sampleValue(f, 'socialnode_crypto_pool_rejected_total', { process: 'proc-a', task: 'sign' }), 1);
    assert.equal(sampleValue(f, 'socialnode_crypto_pool_rejected_total', { process: 'proc-b', task: 'sign' }), 2);
    assert.equal(sampleValue(f, 'socialnode_chain_tip_height', { process: 'proc-b' }), 7);
    assert.equal(sampleValue(f, 'socialnode_scrape_processes', { process: 'proc-a', state: 'included' }), 2);
    assert.equal(sampleValue(f, 'socialnode_scrape_processes', { process: 'proc-a', state: 'missing' }), 1);
    // The scrape's own series come from the scraped process alone, never from a peer's render.
    assert.equal(f.get('socialnode_scrape_processes')!.samples.length, 2);
    assert.deepEqual(new Set(f.get('process_resident_memory_bytes')!.samples.map((s) => s.labels['process'])), new Set(['proc-a', 'proc-b']));
  });
});
