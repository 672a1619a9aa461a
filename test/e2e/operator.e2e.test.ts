/**
 * The operator surface on a real node (uWS, pool, miner), on both stores: GET /metrics in the
 * Prometheus text format, following the traffic; response compression when the client accepts
 * it; ETag / 304 on GET routes; rate limits (429 + Retry-After, refill, per authenticated key, shared
 * by two nodes on one Redis). Responses are read with node:http so that compressed bytes and
 * 304s are seen as sent (fetch would decode them).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { issueJwt } from '../../server/identity/jwt.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { rawRequest } from '../helpers/http.js';
import { parsePrometheusText, sampleValue, type Family } from '../helpers/promText.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { WsClient } from '../helpers/ws.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request over node:http, body bytes as sent (no decoding). */
function send(
  base: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; localAddress?: string } = {},
): Promise<RawResponse> {
  const url = new URL(path, base);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
        localAddress: opts.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const text = (r: RawResponse): string => r.body.toString('utf8');
const jsonOf = (r: RawResponse): J => JSON.parse(text(r)) as J;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function scrape(base: string): Promise<{ families: Map<string, Family>; processId: string }> {
  const r = await send(base, '/metrics');
  assert.equal(r.status, 200, text(r));
  assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return { families: parsePrometheusText(text(r)), processId: String(r.headers['x-node-process']) };
}

const PNG_A = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const PNG_B = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 83]);
const pic = (png: Buffer): string => `data:image/png;base64,${png.toString('base64')}`;

async function setProfile(n: ChainNode, k: KeyPair, username: string, png: Buffer): Promise<void> {
  const c = await n.ok('update-profile', {
    UpdaterPublicKeyBase58Check: k.pk,
    ProfilePublicKeyBase58Check: '',
    NewUsername: username,
    NewDescription: 'operator test',
    NewProfilePic: pic(png),
    NewCreatorBasisPoints: 1000,
    NewStakeMultipleBasisPoints: 12500,
    IsHidden: false,
    MinFeeRateNanosPerKB: 1000,
  });
  await n.submit(c['TransactionHex'] as string, k);
}

for (const store of TEST_STORES) {
  describe(`operator surface (${store} store)`, () => {
    let n: ChainNode;
    const creator = keyPair();

    before(async () => {
      n = await startChainNode({ store });
      await n.fund(creator.pk, 0.1 * 1e9);
    });
    after(async () => {
      await n?.close();
    });

    describe('GET /metrics', () => {
      it('serves the text format; a route’s request counter and latency histogram follow the traffic', async () => {
        const labels = { route: '/get-exchange-rate', method: 'GET' };
        const before = await scrape(n.url);
        const count0 = sampleValue(before.families, 'socialnode_http_requests_total', { ...labels, code: '200' }) ?? 0;
        const hist0 = sampleValue(before.families, 'socialnode_http_request_duration_seconds_count', labels) ?? 0;
        const N = 6;
        for (let i = 0; i < N; i++) assert.equal((await send(n.url, '/api/v0/get-exchange-rate')).status, 200);
        const after = await scrape(n.url);
        assert.equal(sampleValue(after.families, 'socialnode_http_requests_total', { ...labels, code: '200' }), count0 + N);
        assert.equal(sampleValue(after.families, 'socialnode_http_request_duration_seconds_count', labels), hist0 + N);
        assert.equal(after.families.get('socialnode_http_request_duration_seconds')?.type, 'histogram');
        // Per process: every sample carries the answering process's id.
        for (const f of after.families.values()) for (const s of f.samples) assert.equal(s.labels['process'], after.processId, s.name);
      });

      it('reports the chain tip and mempool, the store latency, crypto task times and process metrics', async () => {
        const { families } = await scrape(n.url);
        const v = (name: string, labels: Record<string, string> = {}) => sampleValue(families, name, labels);
        assert.equal(v('socialnode_chain_tip_height'), Number((await n.deps.chain.tip()).height));
        assert.ok(v('socialnode_chain_tip_height')! >= 3, 'fund() mined blocks');
        assert.equal(v('socialnode_chain_mempool_transactions'), (await n.deps.chain.mempool()).length);
        assert.ok(v('socialnode_store_ping_seconds')! >= 0, 'store latency from the health probe');
        assert.equal(v('socialnode_info', { store, network: 'testnet' }), 1);
        // fund() logged in and signed through the identity service: crypto ran on the pool.
        const tasks = families.get('socialnode_crypto_task_duration_seconds')!.samples.filter((s) => s.name.endsWith('_count'));
        assert.ok(tasks.reduce((sum, s) => sum + s.value, 0) > 0, 'crypto batches were timed');
        assert.equal(v('socialnode_crypto_pool_queue_depth'), 0);
        assert.ok(v('process_resident_memory_bytes')! > 0, 'rss');
        assert.ok(v('nodejs_eventloop_lag_max_seconds')! >= 0, 'event loop lag');
      });

      it('counts miner feed subscribers', async () => {
        const ws = await WsClient.connect(`${n.url.replace('http', 'ws')}/api/v0/miner`);
        try {
          ws.sendJson({ id: 1, method: 'subscribe', params: { PublicKeyBase58Check: keyPair().pk } });
          await ws.next((m) => (m.json as J | undefined)?.['id'] === 1, 'subscribe reply');
          assert.equal(sampleValue((await scrape(n.url)).families, 'socialnode_miner_feed_subscribers'), 1);
        } finally {
          ws.close();
        }
      });

      it('is served under /api/v0/metrics too, and never rate limited', async () => {
        const r = await send(n.url, '/api/v0/metrics');
        assert.equal(r.status, 200);
        assert.ok(parsePrometheusText(text(r)).has('socialnode_http_requests_total'), 'parses');
      });
    });

    describe('compression', () => {
      const body = () => ({ PublicKeysBase58Check: Array.from({ length: 5 }, () => keyPair().pk), SkipForLeaderboard: true });

      it('compresses a large JSON answer with the accepted coding; it decodes to the uncompressed answer', async () => {
        const b = body();
        const plain = await send(n.url, '/api/v0/get-users-stateless', { body: b });
        assert.equal(plain.status, 200);
        assert.ok(plain.body.length > 1024, `answer of ${plain.body.length} bytes`);
        assert.equal(plain.headers['content-encoding'], undefined);
        assert.match(String(plain.headers['vary']), /Accept-Encoding/);

        const br = await send(n.url, '/api/v0/get-users-stateless', { body: b, headers: { 'accept-encoding': 'gzip, deflate, br' } });
        assert.equal(br.headers['content-encoding'], 'br');
        assert.match(String(br.headers['vary']), /Accept-Encoding/);
        assert.ok(br.body.length < plain.body.length, `${br.body.length} < ${plain.body.length}`);
        assert.equal(brotliDecompressSync(br.body).toString('utf8'), text(plain));

        const gz = await send(n.url, '/api/v0/get-users-stateless', { body: b, headers: { 'accept-encoding': 'gzip' } });
        assert.equal(gz.headers['content-encoding'], 'gzip');
        assert.equal(gunzipSync(gz.body).toString('utf8'), text(plain));
      });

      it('does not compress when the client refuses every coding, nor small answers', async () => {
        const refused = await send(n.url, '/api/v0/get-users-stateless', { body: body(), headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
        assert.equal(refused.headers['content-encoding'], undefined);
        assert.equal(jsonOf(refused)['UserList'].length, 5);
        const small = await send(n.url, '/api/v0/get-exchange-rate', { headers: { 'accept-encoding': 'gzip, br' } });
        assert.ok(small.body.length < 1024, 'a small answer');
        assert.equal(small.headers['content-encoding'], undefined);
        assert.equal(typeof jsonOf(small)['SatoshisPerNativeExchangeRate'], 'number');
      });

      it('fetch, which sends Accept-Encoding, reads compressed answers transparently', async () => {
        const r = await fetch(`${n.url}/api/v0/get-users-stateless`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()) });
        assert.notEqual(r.headers.get('content-encoding'), null);
        assert.equal(((await r.json()) as J)['UserList'].length, 5);
      });
    });

    describe('ETag and 304', () => {
      it('get-exchange-rate: a strong ETag; If-None-Match answers 304 with no body and no Content-Length', async () => {
        const first = await send(n.url, '/api/v0/get-exchange-rate');
        const tag = String(first.headers['etag']);
        assert.match(tag, /^"[A-Za-z0-9_-]+"$/);
        const again = await send(n.url, '/api/v0/get-exchange-rate', { headers: { 'if-none-match': tag } });
        assert.equal(again.status, 304);
        assert.equal(again.body.length, 0);
        assert.equal(again.headers['etag'], tag);
        const port = Number(new URL(n.url).port);
        const wire = await rawRequest(port, [`GET /api/v0/get-exchange-rate HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${tag}\r\n\r\n`], 0, 1000);
        assert.equal(wire.status, 304);
        assert.doesNotMatch(wire.head, /content-length/i);
        assert.equal(wire.body, '');
        const other = await send(n.url, '/api/v0/get-exchange-rate', { headers: { 'if-none-match': '"something-else"' } });
        assert.equal(other.status, 200);
        assert.deepEqual(jsonOf(other), jsonOf(first));
      });

      it('get-single-profile-picture: the tag follows the picture; a changed picture answers 200 again', async () => {
        const path = `/api/v0/get-single-profile-picture/${creator.pk}`;
        await setProfile(n, creator, `op${Date.now().toString(36).slice(-6)}`, PNG_A);
        const first = await send(n.url, path);
        assert.equal(first.status, 200);
        assert.equal(first.headers['content-type'], 'image/png');
        assert.deepEqual(first.body, PNG_A);
        const tag = String(first.headers['etag']);
        assert.equal((await send(n.url, path, { headers: { 'if-none-match': tag } })).status, 304);
        await setProfile(n, creator, `oq${Date.now().toString(36).slice(-6)}`, PNG_B);
        const changed = await send(n.url, path, { headers: { 'if-none-match': tag } });
        assert.equal(changed.status, 200);
        assert.deepEqual(changed.body, PNG_B);
        assert.notEqual(changed.headers['etag'], tag);
      });

      it('get-user-metadata: 304 on revalidation', async () => {
        const path = `/api/v0/get-user-metadata/${creator.pk}`;
        const first = await send(n.url, path);
        assert.equal(first.status, 200, text(first));
        const again = await send(n.url, path, { headers: { 'if-none-match': String(first.headers['etag']) } });
        assert.equal(again.status, 304);
        assert.equal(again.body.length, 0);
      });

      it('POST answers carry no ETag', async () => {
        const r = await send(n.url, '/api/v0/get-app-state', { body: {} });
        assert.equal(r.status, 200);
        assert.equal(r.headers['etag'], undefined);
      });
    });
  });

  describe(`rate limits (${store} store, loopback limited)`, () => {
    let n: ChainNode;
    before(async () => {
      n = await startChainNode({ store, args: ['--rate-limit-loopback', '--rate-limits', 'read=3/1,write=3/0.01'] });
    });
    after(async () => {
      await n?.close();
    });

    it('a burst over the read limit gets 429 with Retry-After; probes still answer; the bucket refills', async () => {
      const statuses: number[] = [];
      let refused: RawResponse | undefined;
      for (let i = 0; i < 5; i++) {
        const r = await send(n.url, '/api/v0/get-exchange-rate');
        statuses.push(r.status);
        if (r.status === 429) refused ??= r;
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal(refused!.headers['retry-after'], '1');
      assert.match(jsonOf(refused!)['error'] as string, /^too many read requests from this address/);
      assert.equal((await send(n.url, '/api/v0/health-check')).status, 200);
      const { families } = await scrape(n.url);
      assert.equal(sampleValue(families, 'socialnode_rate_limited_requests_total', { class: 'read', scope: 'ip' }), 2);
      // Retry-After is honest: after it, the bucket (1 per second) has a token again.
      await sleep(Number(refused!.headers['retry-after']) * 1000);
      assert.equal((await send(n.url, '/api/v0/get-exchange-rate')).status, 200);
    });

    it('an authenticated public key is limited across client addresses; a key merely named is not', async () => {
      const a = keyPair();
      const b = keyPair();
      const blocked = keyPair().pk;
      const jwtOf = (k: KeyPair) => issueJwt(n.deps.crypto, new Uint8Array(Buffer.from(k.seedHex, 'hex')));
      const block = (k: KeyPair, JWT: string, localAddress: string) =>
        send(n.url, '/api/v0/block-public-key', { localAddress, body: { PublicKeyBase58Check: k.pk, JWT, BlockPublicKeyBase58Check: blocked, Unblock: false } });
      const jwtA = await jwtOf(a);
      // Each address has a bucket of 3; key a, once its JWT passed, takes from one bucket of 3 wherever it comes from.
      assert.equal((await block(a, jwtA, '127.0.0.2')).status, 200);
      assert.equal((await block(a, jwtA, '127.0.0.2')).status, 200);
      assert.equal((await block(a, jwtA, '127.0.0.3')).status, 200);
      const refused = await block(a, jwtA, '127.0.0.4');
      assert.equal(refused.status, 429);
      assert.match(jsonOf(refused)['error'] as string, /from this public key/);
      assert.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After in whole seconds');
      // Junk tokens naming key b (each from a fresh address) take nothing from b's bucket.
      for (const addr of ['127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8']) assert.equal((await block(b, 'junk', addr)).status, 401);
      assert.equal((await block(b, await jwtOf(b), '127.0.0.4')).status, 200);
    });
  });
}

describe('rate limits shared through one Redis', () => {
  let redis: RedisServer;
  const nodes: ChainNode[] = [];
  before(async () => {
    redis = await startRedisServer();
    const args = ['--redis', redis.url, '--rate-limit-loopback', '--rate-limits', 'read=4/0.01'];
    nodes.push(await startChainNode({ args }));
    // One miner per chain: the second node only serves.
    nodes.push(await startChainNode({ args: [...args, '--miner', 'off'] }));
  });
  after(async () => {
    for (const n of nodes) await n.close();
    await redis?.stop();
  });

  it('two nodes on one Redis take from the same bucket', async () => {
    const [a, b] = nodes as [ChainNode, ChainNode];
    const statuses: number[] = [];
    for (const n of [a, b, a, b, a, b]) statuses.push((await send(n.url, '/api/v0/get-exchange-rate')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
  });
});

describe('--no-metrics', () => {
  let n: ChainNode;
  before(async () => {
    n = await startChainNode({ args: ['--no-metrics'] });
  });
  after(async () => {
    await n?.close();
  });

  it('removes GET /metrics', async () => {
    assert.equal((await send(n.url, '/metrics')).status, 404);
    assert.equal((await send(n.url, '/api/v0/get-exchange-rate')).status, 200);
  });
});
