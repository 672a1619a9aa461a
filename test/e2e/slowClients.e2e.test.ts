/**
 * Slow and aborted clients (issue 8, faults): many clients that send half a body and vanish, or
 * that ask for a large answer and do not read it, must not hold requests open, grow the heap
 * without bound, or delay anyone else. One real node in this process (uWS, memory store), its
 * own /metrics for the in-flight gauge.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startChainNode, type ChainNode } from '../helpers/chainNode.js';
import { parsePrometheusText, sampleValue } from '../helpers/promText.js';
import { request } from '../helpers/http.js';

let n: ChainNode;
let port: number;

before(async () => {
  n = await startChainNode();
  port = Number(new URL(n.url).port);
});
after(async () => {
  await n?.close();
});

async function inFlight(): Promise<number> {
  const text = (await request(n.url, '/metrics')).text;
  const value = sampleValue(parsePrometheusText(text), 'socialnode_http_requests_in_flight', {});
  assert.ok(value !== undefined, 'the node exposes socialnode_http_requests_in_flight');
  // The scrape itself is in flight while it renders.
  return value - 1;
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Time of one ordinary request, ms. */
async function timed(): Promise<number> {
  const t = performance.now();
  const r = await request(n.url, '/api/v0/get-exchange-rate');
  assert.equal(r.status, 200, 'an ordinary request is answered');
  return performance.now() - t;
}

describe('clients that send half a body and disconnect', () => {
  it('leave no request in flight and no lasting heap growth, and others are answered meanwhile', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const ROUNDS = 20;
    const PER_ROUND = 50;
    for (let round = 0; round < ROUNDS; round++) {
      const sockets = await Promise.all(Array.from({ length: PER_ROUND }, open));
      for (const s of sockets) {
        s.on('error', () => undefined);
        // Declares 10 KB, sends 20 bytes: the node waits for a body that never comes.
        s.write('POST /api/v0/get-app-state HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"PublicKeyBase58Ch');
      }
      await timed();
      for (const s of sockets) s.destroy();
    }
    // Aborts reach the node asynchronously; give them a moment.
    for (let i = 0; i < 50 && (await inFlight()) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await inFlight(), 0, `no request of the ${ROUNDS * PER_ROUND} aborted ones is still in flight`);
    (globalThis as { gc?: () => void }).gc?.();
    const growthMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    assert.ok(growthMb < 64, `heap grew ${growthMb.toFixed(1)} MB over ${ROUNDS * PER_ROUND} aborted requests`);
    assert.equal((await request(n.url, '/api/v0/health-check')).status, 200, 'the node still serves');
  });
});

describe('clients that ask for a large answer and do not read it', () => {
  it('do not delay other clients, and get the whole answer once they read', async () => {
    const SLOW = 20;
    const slow = await Promise.all(Array.from({ length: SLOW }, open));
    const received = slow.map(() => [] as Buffer[]);
    slow.forEach((s, i) => {
      s.on('error', () => undefined);
      s.pause(); // read nothing: the kernel buffers fill and the node must hold the rest
      s.on('data', (d: Buffer) => received[i]!.push(d));
      // openapi.json is ~140 KB uncompressed: more than the socket buffers take at once.
      s.write('GET /api/v0/openapi.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n');
    });
    await new Promise((r) => setTimeout(r, 200));
    const times: number[] = [];
    for (let i = 0; i < 20; i++) times.push(await timed());
    times.sort((a, b) => a - b);
    // A blocked event loop would stall these behind the unread answers; generous bound, not a speed target.
    assert.ok(times[times.length - 1]! < 2000, `ordinary requests answered while ${SLOW} clients read nothing (slowest ${times.at(-1)!.toFixed(0)} ms)`);

    // Now read: every slow client gets one complete response.
    const done = slow.map(
      (s, i) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`slow client ${i} got no complete answer`)), 10_000);
          const check = (): void => {
            const all = Buffer.concat(received[i]!);
            const head = all.indexOf('\r\n\r\n');
            if (head === -1) return;
            const length = Number(/content-length: (\d+)/i.exec(all.subarray(0, head).toString('latin1'))?.[1] ?? NaN);
            if (all.length - head - 4 >= length) {
              clearTimeout(timer);
              assert.match(all.subarray(0, 12).toString('latin1'), /^HTTP\/1\.1 200/, `slow client ${i}: status 200`);
              const body = JSON.parse(all.subarray(head + 4, head + 4 + length).toString('utf8')) as { openapi?: string };
              assert.match(body.openapi ?? '', /^3\.1\./, `slow client ${i}: the whole document`);
              resolve();
            }
          };
          s.on('data', check);
          s.resume();
          check();
        }),
    );
    await Promise.all(done);
    for (const s of slow) s.destroy();
  });
});
