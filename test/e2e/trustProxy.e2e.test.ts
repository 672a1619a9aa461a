/**
 * `--trust-proxy` on a real uWS node: the node trusts 127.0.0.1 as its proxy. Requests from
 * 127.0.0.1 carrying X-Forwarded-For or Forwarded are limited per forwarded client; requests
 * from 127.0.0.2 (connected from that source address: an untrusted peer) are limited per peer
 * whatever their headers say; and 127.0.0.1 itself, without a header, is limited (no longer
 * exempt as loopback once a proxy is trusted). Probes stay unlimited.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startChainNode, type ChainNode } from '../helpers/chainNode.js';
import { rawRequest, type RawResult } from '../helpers/http.js';
import { WsClient } from '../helpers/ws.js';

/** Two reads in a bucket, refilled far slower than the test runs. */
const READ_CAPACITY = 2;

let n: ChainNode;
const open: WsClient[] = [];

before(async () => {
  n = await startChainNode({
    args: ['--trust-proxy', '127.0.0.1/32', '--rate-limits', `read=${READ_CAPACITY}/0.01`, '--max-sockets-per-address', '1'],
  });
});
after(async () => {
  for (const c of open) await c.close();
  await n?.close();
});

/** GET `path` from source address `from` with `headers`: the status. */
function get(path: string, from: string, headers: Record<string, string> = {}): Promise<number> {
  const { port } = new URL(n.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), path, localAddress: from, headers, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end();
  });
}

/** The statuses of `count` reads (get-exchange-rate, class read) in turn. */
async function reads(count: number, from: string, headers: Record<string, string> = {}): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await get('/api/v0/get-exchange-rate', from, headers));
  return out;
}

const FULL_THEN_LIMITED = [...new Array<number>(READ_CAPACITY).fill(200), 429];

describe('--trust-proxy 127.0.0.1/32', () => {
  it('limits per X-Forwarded-For client behind the trusted proxy: two forwarded clients do not share a bucket', async () => {
    assert.deepEqual(await reads(READ_CAPACITY + 1, '127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }), FULL_THEN_LIMITED);
    assert.deepEqual(await reads(1, '127.0.0.1', { 'x-forwarded-for': '198.51.100.2' }), [200], 'another client has its own bucket');
    assert.deepEqual(await reads(1, '127.0.0.1', { forwarded: 'for="[2001:db8::7]:4711";proto=http' }), [200], 'Forwarded for= is read too');
  });

  it('reads the rightmost untrusted hop: entries a client wrote to the left of it change nothing', async () => {
    // 198.51.100.1 is out of tokens; a forged entry ahead of it does not buy a fresh bucket.
    assert.deepEqual(await reads(1, '127.0.0.1', { 'x-forwarded-for': '203.0.113.50, 198.51.100.1' }), [429]);
    // A proxy chain ending in the trusted proxy: the client is the first untrusted hop from the right.
    assert.deepEqual(await reads(1, '127.0.0.1', { 'x-forwarded-for': '198.51.100.1, 127.0.0.1' }), [429]);
  });

  it('reads every X-Forwarded-For line in order (a proxy that adds its own line after the client\'s, as HAProxy does)', async () => {
    const twoLines = (last: string): Promise<RawResult> =>
      rawRequest(Number(new URL(n.url).port), [
        `GET /api/v0/get-exchange-rate HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.1\r\nX-Forwarded-For: ${last}\r\nConnection: close\r\n\r\n`,
      ]);
    assert.equal((await twoLines('198.51.100.30')).status, 200, 'the last line names the client, not the exhausted one the client wrote first');
    assert.equal((await twoLines('127.0.0.1')).status, 429, 'a trusted last entry: the walk goes on to the first line');
  });

  it('ignores the headers of an untrusted peer (127.0.0.2): every forged client shares the peer\'s bucket', async () => {
    const statuses = [
      ...(await reads(1, '127.0.0.2', { 'x-forwarded-for': '198.51.100.10' })),
      ...(await reads(1, '127.0.0.2', { 'x-forwarded-for': '198.51.100.11' })),
      ...(await reads(1, '127.0.0.2', { forwarded: 'for=198.51.100.12' })),
    ];
    assert.deepEqual(statuses, FULL_THEN_LIMITED);
    assert.deepEqual(await reads(1, '127.0.0.2', { 'x-forwarded-for': '198.51.100.99' }), [429], 'naming a fresh client does not help');
  });

  it('limits loopback itself once a proxy is trusted, and never the probes', async () => {
    assert.deepEqual(await reads(READ_CAPACITY + 1, '127.0.0.1'), FULL_THEN_LIMITED);
    for (const path of ['/api/v0/health-check', '/api/v0/health-live']) {
      for (let i = 0; i < READ_CAPACITY + 2; i++) assert.equal(await get(path, '127.0.0.1'), 200, `${path} is never limited`);
    }
  });

  it('caps WebSockets per forwarded client, not per proxy', async () => {
    const wsUrl = `${n.url.replace(/^http/, 'ws')}/api/v0/identity`;
    const connect = async (headers: Record<string, string>, localAddress = '127.0.0.1'): Promise<WsClient> => {
      const c = await WsClient.connect(wsUrl, 5_000, { headers, localAddress });
      open.push(c);
      return c;
    };
    await connect({ 'x-forwarded-for': '198.51.100.20' });
    await connect({ 'x-forwarded-for': '198.51.100.21' });
    await assert.rejects(connect({ 'x-forwarded-for': '198.51.100.20' }), /upgrade refused with HTTP 429/, 'one socket per client (--max-sockets-per-address 1)');
    await connect({ 'x-forwarded-for': '198.51.100.22' }, '127.0.0.3');
    await assert.rejects(connect({ 'x-forwarded-for': '198.51.100.23' }, '127.0.0.3'), /HTTP 429/, 'an untrusted peer is one client whatever it forwards');
  });
});
