// HTTP front end against a real node process (uWS on a free port): router behaviour of
// reference §0 and the exact shapes of the meta routes (spec §4.9, §2.9, §2.10).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, rawRequest, request } from '../helpers/http.js';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';

let node: NodeProcess;

before(async () => {
  node = await startNodeProcess({
    args: [
      '--satoshis-per-native-exchange-rate', '12345',
      '--usd-cents-per-bitcoin-exchange-rate', '8000000',
      '--nanos-sold', '777',
      '--max-body-bytes', '4096',
      '--cors-origins', 'https://app.example.com,https://*.frontend.test',
      '--support-email', 'help@example.com',
      '--sms-provider-api-key', 'sk-should-never-appear',
    ],
  });
});
after(async () => {
  assert.equal(await node.stop(), 0, 'graceful shutdown exits 0');
  assert.ok(!node.output.join('\n').includes('sk-should-never-appear'), 'secret config never logged');
});

function assertJsonError(r: { status: number; json: unknown; headers: Headers }, status: number, re: RegExp): void {
  assert.equal(r.status, status);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  const body = r.json as { error?: unknown };
  assert.equal(typeof body?.error, 'string', 'body is {"error": "..."}');
  assert.match(body.error as string, re);
}

describe('router', () => {
  it('answers OPTIONS with CORS headers only, echoing an allowed origin', async () => {
    const r = await request(node.url, '/api/v0/get-app-state', { method: 'OPTIONS', headers: { origin: 'https://app.example.com' } });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.equal(r.headers.get('access-control-allow-credentials'), 'true');
    assert.match(r.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(r.headers.get('access-control-allow-headers') ?? '', /Content-Type/);
  });

  it('matches wildcard subdomain origins and refuses others', async () => {
    const ok = await request(node.url, '/api/v0/health-check', { headers: { origin: 'https://a.frontend.test' } });
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://a.frontend.test');
    const no = await request(node.url, '/api/v0/health-check', { headers: { origin: 'https://evil.example.org' } });
    assert.equal(no.headers.get('access-control-allow-origin'), null);
  });

  it('gives 404 with a JSON error for an unknown path', async () => {
    assertJsonError(await postJson(node.url, '/api/v0/no-such-route', {}), 404, /no such route/);
    assertJsonError(await request(node.url, '/nothing/here'), 404, /no such route/);
  });

  it('gives 405 with Allow for a wrong method', async () => {
    const r = await request(node.url, '/api/v0/get-app-state');
    assertJsonError(r, 405, /not allowed.*POST/);
    assert.match(r.headers.get('allow') ?? '', /POST/);
    assertJsonError(await postJson(node.url, '/api/v0/health-check', {}), 405, /GET/);
  });

  it('serves every path with and without /api/v0 and ignores a trailing slash', async () => {
    for (const path of ['/api/v0/get-app-state', '/get-app-state', '/api/v0/get-app-state/']) {
      assert.equal((await postJson(node.url, path, {})).status, 200, path);
    }
  });

  it('refuses a POST that is not application/json with 400', async () => {
    const r = await request(node.url, '/api/v0/get-app-state', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } });
    assertJsonError(r, 400, /Content-Type must be application\/json/);
    const withCharset = await request(node.url, '/api/v0/get-app-state', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(withCharset.status, 200, 'media type parameters are fine');
  });

  it('refuses malformed JSON with a clear 400', async () => {
    assertJsonError(await postJson(node.url, '/api/v0/get-app-state', '{"PublicKeyBase58Check": '), 400, /malformed JSON/);
    assertJsonError(await postJson(node.url, '/api/v0/get-app-state', '[1,2]'), 400, /request body: expected a JSON object/);
  });

  it('matches JSON field names case-insensitively and ignores unknown fields', async () => {
    // A wrong type under a differently-cased name proves the name was matched.
    assertJsonError(await postJson(node.url, '/api/v0/get-app-state', { publickeybase58check: 5 }), 400, /^PublicKeyBase58Check: expected a string/);
    assert.equal((await postJson(node.url, '/api/v0/get-app-state', { NotAField: [1, { x: 2 }] })).status, 200);
  });

  it('answers 413 for a declared body over the limit, before reading it', async () => {
    const r = await rawRequest(node.port, [
      'POST /api/v0/get-app-state HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
    ]);
    assert.equal(r.status, 413);
    assert.match(r.body, /"error":"request body is larger than the limit of 4096 bytes"/);
    assert.ok(r.closed, 'connection closed since the body was not read');
  });

  it('answers 413 for a chunked body that grows over the limit', async () => {
    const chunk = Buffer.alloc(3000, 0x20);
    const r = await rawRequest(
      node.port,
      [
        'POST /api/v0/get-app-state HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        `${chunk.length.toString(16)}\r\n`, chunk, '\r\n',
        `${chunk.length.toString(16)}\r\n`, chunk, '\r\n',
      ],
      20,
    );
    assert.equal(r.status, 413);
  });

  it('survives a client that sends half a body and disconnects', async () => {
    await rawRequest(
      node.port,
      ['POST /api/v0/get-app-state HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"Pub'],
      0,
      300,
    ).catch(() => undefined);
    assert.equal((await request(node.url, '/api/v0/health-check')).status, 200);
  });

  it('gives 400 for an empty POST body', async () => {
    assertJsonError(await postJson(node.url, '/api/v0/get-app-state', ''), 400, /body is empty/);
  });

  it('names the answering process in X-Node-Process', async () => {
    const r = await request(node.url, '/api/v0/health-check');
    assert.match(r.headers.get('x-node-process') ?? '', /^[0-9a-f]{12}$/);
  });
});

describe('GET /api/v0/node-info', () => {
  it('reports this process, its store and its crypto pool', async () => {
    const r = await request(node.url, '/api/v0/node-info');
    assert.equal(r.status, 200);
    const info = r.json as Record<string, unknown>;
    assert.equal(info.Network, 'testnet');
    assert.equal(info.StoreKind, 'lmdb', 'the default store, as npm start runs');
    assert.equal(info.CryptoAcceptingWork, true);
    assert.equal(info.ProcessId, r.headers.get('x-node-process'));
    assert.equal((info.Processes as unknown[]).length, 1);
  });
});

describe('GET /api/v0/health-check', () => {
  it('answers 200 with the reference body when the store is reachable', async () => {
    const r = await request(node.url, '/api/v0/health-check');
    assert.equal(r.status, 200);
    assert.equal(r.text, '200');
  });
});

describe('GET /api/v0/health-live', () => {
  it('answers 200 with the reference body (liveness: the process runs), and only to GET', async () => {
    const r = await request(node.url, '/api/v0/health-live');
    assert.equal(r.status, 200);
    assert.equal(r.text, '200');
    assertJsonError(await postJson(node.url, '/api/v0/health-live', {}), 405, /GET/);
  });
});

describe('GET /api/v0/get-exchange-rate', () => {
  it('serves the configured rates in the spec §2.10 shape', async () => {
    const r = await request(node.url, '/api/v0/get-exchange-rate');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {
      SatoshisPerNativeExchangeRate: 12345,
      NanosSold: 777,
      USDCentsPerBitcoinExchangeRate: 8000000,
      // 12345 sat = 0.00012345 BTC; × $80,000/BTC = $9.876, floored to 987 cents
      USDCentsPerNativeExchangeRate: 987,
      SatoshisPerLegacyExchangeRate: 12345,
      USDCentsPerLegacyExchangeRate: 987,
      // No reserve rate or buy fee set (admin/set-…): zeros, and the price is the derived one.
      USDCentsPerNativeReserveExchangeRate: 0,
      USDCentsPerLegacyReserveExchangeRate: 0,
      BuyNativeFeeBasisPoints: 0,
    });
  });
});

describe('POST /api/v0/get-app-state', () => {
  it('serves the spec §2.9 shape', async () => {
    const r = await postJson(node.url, '/api/v0/get-app-state', { PublicKeyBase58Check: '' });
    assert.equal(r.status, 200);
    const s = r.json as Record<string, unknown>;
    assert.deepEqual(Object.keys(s).sort(), [
      'AnalyticsDomain', 'AnalyticsKey', 'BlockHeight', 'CompProfileCreation', 'CreateProfileFeeNanos', 'DiamondLevelMap',
      'HasPaymentProviderIntegration', 'HasSmsProviderAPIKey', 'HasStarterNativeSeed', 'IsTestnet',
      'MinSatoshisBurnedForProfileCreation', 'Password', 'ShowProcessingSpinners', 'SupportEmail',
    ]);
    assert.equal(s.IsTestnet, true);
    assert.equal(s.SupportEmail, 'help@example.com');
    assert.equal(s.HasSmsProviderAPIKey, true);
    assert.equal(s.HasStarterNativeSeed, false);
    assert.equal(s.MinSatoshisBurnedForProfileCreation, 50000);
    assert.equal(s.Password, '');
    assert.equal(typeof s.BlockHeight, 'number', 'the tip height, as the SDK reads it');
    const levels = s.DiamondLevelMap as Record<string, number>;
    assert.deepEqual(Object.keys(levels), ['1', '2', '3', '4', '5', '6', '7', '8']);
    const values = Object.values(levels);
    for (let i = 1; i < values.length; i++) assert.ok(values[i]! > values[i - 1]!, 'levels increase');
    assert.equal(levels['1'], 50000);
  });

  it('accepts an empty object', async () => {
    assert.equal((await postJson(node.url, '/api/v0/get-app-state', {})).status, 200);
  });

  it('gives 400 without a body', async () => {
    const r = await request(node.url, '/api/v0/get-app-state', { method: 'POST', headers: { 'content-type': 'application/json' } });
    assertJsonError(r, 400, /body is empty/);
  });
});
