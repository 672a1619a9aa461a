/**
 * Response compression (server/http/compression.ts): what each codec costs per body size, and
 * what compressing costs and saves end to end on the real node.
 *
 * 1. Codecs on JSON user lists like get-users-stateless answers (keys and hashes are random,
 *    so incompressible, as in real answers): tinybench, CPU per body and size after.
 * 2. HTTP: `server/main.ts` in a child process (memory store, miner off), loaded from this
 *    process by closed-loop raw keep-alive sockets (16 connections), each route asked without
 *    Accept-Encoding (identity, the baseline), with `br` and with `gzip`, 3 rounds alternating;
 *    best round per variant. The client shares the 2 cores with the server, so req/s are a
 *    ratio within one run, not capacity.
 *
 * Last results, 2026-11-24, Node v20.20.2, 2-core sandbox (AMD EPYC, 2 vCPU) shared with other
 * sessions' test suites (load average 1.7-2.3), `npx tsx bench/compression.bench.ts`:
 *   codecs, tinybench mean per body, size after as % of the body:
 *     1.3 KiB  gzip-1  16 µs 45.5%  gzip-6  19 µs 45.5%  br-1  12 µs 46.0%  br-4  30 µs 44.1%  br-1 async 159 µs
 *     11 KiB   gzip-1  39 µs 27.8%  gzip-6  54 µs 27.4%  br-1  28 µs 27.3%  br-4  92 µs 25.8%  br-1 async 149 µs
 *     86 KiB   gzip-1 381 µs 25.6%  gzip-6 703 µs 24.9%  br-1 183 µs 23.5%  br-4 622 µs 23.4%  br-1 async 366 µs
 *   HTTP, best of 3 (req/s, bytes per response, server CPU per request):
 *     POST get-users-stateless (20 users)  identity   815  12,657 B  1.27 ms
 *                                          br         774   1,474 B  1.33 ms   0.95x req/s, 0.116x bytes
 *                                          gzip       738   1,538 B  1.44 ms   0.91x req/s, 0.122x bytes
 *     GET openapi.json                     identity 1,998 137,738 B  0.46 ms
 *                                          br       2,485  11,568 B  0.46 ms   1.24x req/s, 0.084x bytes
 *                                          gzip     2,288  13,500 B  0.48 ms   1.14x req/s, 0.098x bytes
 *   get-users-stateless spends ~1.3 ms per request in the route itself, so compression is within
 *   noise there; openapi.json answers the same body every time, and the router's per-route memo
 *   (compression.ts ResponseMemo) serves its ETag and compressed bytes without recomputing, so
 *   compressed it costs no more CPU and writes 12x fewer bytes. Before the memo, the same run
 *   gave br 0.82x and gzip 0.87x the identity req/s on openapi.json (~1 ms CPU per request).
 * @module
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { Bench } from 'tinybench';
import { freePort } from '../test/helpers/ports.js';
import { encodePublicKey } from '../server/keys/index.js';
import { getPublicKey } from '../wasm/secp256k1.js';
import { printFigure, printResults, ratioLine, roundOptions, runRounds } from './_shared.js';
import { ratioFigure, ratioOf, type Figure } from './figures.js';
import { processCpuMs, ROOT, startServer, stopServer, type ServerProc } from './http/harness.js';

const MAIN = join(ROOT, 'server', 'main.ts');
const CONNECTIONS = 16;
const DURATION_MS = 1500;
const WARMUP_MS = 300;
const ROUNDS = 3;

/** A JSON body shaped like a get-users-stateless answer of `n` users. */
function usersJson(n: number): Buffer {
  const users = Array.from({ length: n }, (_, i) => ({
    PublicKeyBase58Check: 'tBC' + randomBytes(38).toString('base64').replace(/[+/=]/g, 'x').slice(0, 51),
    Username: `user${i}`,
    Description: `Hello, I am user number ${i} and I like posting things`,
    IsHidden: false,
    IsVerified: i % 7 === 0,
    CoinEntry: { CreatorBasisPoints: 1000, DeSoLockedNanos: 123456789 + i, NumberOfHolders: i % 13, CoinsInCirculationNanos: 987654321 * i },
    BalanceNanos: 1e9 + i,
    PostHashHex: randomBytes(32).toString('hex'),
  }));
  return Buffer.from(JSON.stringify({ UserList: users }) + '\n');
}

async function codecs(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const [label, n, key] of [['1.5 KiB', 3, '1500B'], ['12 KiB', 25, '12KiB'], ['100 KiB', 200, '100KiB']] as const) {
    const body = usersJson(n);
    const br = (q: number) => ({ params: { [zc.BROTLI_PARAM_QUALITY]: q, [zc.BROTLI_PARAM_SIZE_HINT]: body.length } });
    const run: Record<string, () => Buffer> = {
      'gzip-1': () => gzipSync(body, { level: 1 }),
      'gzip-6': () => gzipSync(body, { level: 6 }),
      'br-1': () => brotliCompressSync(body, br(1)),
      'br-4': () => brotliCompressSync(body, br(4)),
    };
    const bench = new Bench({ name: label, ...roundOptions({ time: 300, warmupTime: 50 }) });
    for (const [name, f] of Object.entries(run)) bench.add(name, f);
    // The same work on the libuv thread pool, one at a time: its latency is the inline cost
    // plus the hop, which is what ASYNC_COMPRESS_MIN_BYTES weighs.
    const brAsync = promisify(brotliCompress);
    bench.add('br-1 async', () => brAsync(body, br(1)));
    const rounds = await runRounds(bench);
    printResults(`codecs, ${label} JSON (${body.length} bytes)`, bench);
    console.log(Object.entries(run).map(([name, f]) => `${name} ${((f().length / body.length) * 100).toFixed(1)}%`).join('   '));
    figures.push(ratioLine(`br-1/gzip-6 ${label}`, `br1VsGzip6Body${key}`, rounds, 'br-1', 'gzip-6'));
    figures.push(ratioLine(`br-1 async/inline ${label}`, `br1AsyncVsInlineBody${key}`, rounds, 'br-1 async', 'br-1'));
  }
  return figures;
}

interface Request {
  name: string;
  bytes: Buffer;
}

function buildRequest(port: number, method: string, path: string, body: string | undefined, acceptEncoding: string | undefined): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  if (acceptEncoding) head += `Accept-Encoding: ${acceptEncoding}\r\n`;
  if (body !== undefined) head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(head + '\r\n' + (body ?? ''));
}

interface LoadResult {
  reqPerSec: number;
  bytesPerResponse: number;
  non200: number;
  serverCpuMsPer1k: number;
}

/** Closed loop on raw keep-alive sockets; responses always carry Content-Length (uWS). */
async function load(server: ServerProc, req: Request): Promise<LoadResult> {
  let measuring = false;
  let stop = false;
  let count = 0;
  let bodyBytes = 0;
  let non200 = 0;
  const sockets: Socket[] = [];
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = connect(server.port, '127.0.0.1');
      sockets.push(s);
      s.setNoDelay(true);
      let buf: Buffer = Buffer.alloc(0);
      s.on('error', reject);
      s.on('close', () => resolve());
      s.on('data', (d: Buffer) => {
        buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
        for (;;) {
          const headEnd = buf.indexOf('\r\n\r\n');
          if (headEnd === -1) return;
          const head = buf.subarray(0, headEnd).toString('latin1');
          const len = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (buf.length < headEnd + 4 + len) return;
          if (measuring) {
            count++;
            bodyBytes += len;
            if (!head.startsWith('HTTP/1.1 200')) non200++;
          }
          buf = buf.subarray(headEnd + 4 + len);
          if (stop) {
            s.end();
            return;
          }
          s.write(req.bytes);
        }
      });
      s.on('connect', () => s.write(req.bytes));
    });
  const done = Promise.all(Array.from({ length: CONNECTIONS }, one));
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  measuring = true;
  const cpu0 = processCpuMs(server.child.pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, DURATION_MS));
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = processCpuMs(server.child.pid) - cpu0;
  stop = true;
  await done;
  return { reqPerSec: count / seconds, bytesPerResponse: count ? bodyBytes / count : 0, non200, serverCpuMsPer1k: (cpu / count) * 1000 };
}

async function http(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const port = await freePort();
  const server = await startServer('uws', port, MAIN, ['--port', String(port), '--log-level', 'warn', '--miner', 'off', '--crypto-threads', '1']);
  try {
    const pks = Array.from({ length: 20 }, () => encodePublicKey(getPublicKey(new Uint8Array(randomBytes(32)), true), 'testnet'));
    const routes: Array<{ label: string; key: string; method: string; path: string; body?: string }> = [
      { label: 'POST get-users-stateless (20 users)', key: 'UsersStateless', method: 'POST', path: '/api/v0/get-users-stateless', body: JSON.stringify({ PublicKeysBase58Check: pks, SkipForLeaderboard: true }) },
      { label: 'GET openapi.json', key: 'Openapi', method: 'GET', path: '/api/v0/openapi.json' },
    ];
    for (const rt of routes) {
      const variants = ['identity', 'br', 'gzip'].map((enc) => ({ name: enc, bytes: buildRequest(port, rt.method, rt.path, rt.body, enc === 'identity' ? undefined : enc) }));
      const best = new Map<string, LoadResult>();
      const all = new Map<string, LoadResult[]>(variants.map((v) => [v.name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
          const r = await load(server, v);
          if (r.non200 > 0) throw new Error(`${rt.label} ${v.name}: ${r.non200} answers were not 200`);
          if (r.reqPerSec > (best.get(v.name)?.reqPerSec ?? 0)) best.set(v.name, r);
          all.get(v.name)!.push(r);
        }
      }
      console.log(`\nHTTP ${rt.label}, ${CONNECTIONS} connections, best of ${ROUNDS} × ${DURATION_MS} ms`);
      for (const [name, r] of best) {
        console.log(`  ${name.padEnd(8)} ${Math.round(r.reqPerSec).toLocaleString('en-US').padStart(7)} req/s  ${Math.round(r.bytesPerResponse).toLocaleString('en-US').padStart(7)} bytes/response  server ${r.serverCpuMsPer1k.toFixed(0)} ms CPU / 1000 req`);
      }
      const id = best.get('identity')!;
      const perRound = (enc: string, f: (r: LoadResult) => number): number[] => all.get(enc)!.map(f);
      for (const enc of ['br', 'gzip']) {
        const r = best.get(enc)!;
        const Enc = enc === 'br' ? 'Br' : 'Gzip';
        // Round i of each variant against round i of identity: the pair ran back to back.
        const reqs = ratioFigure(`reqPerSec${Enc}VsIdentity${rt.key}`, perRound(enc, (x) => x.reqPerSec), perRound('identity', (x) => x.reqPerSec));
        printFigure(`${enc}/identity req/s, ${rt.label}`, reqs);
        console.log(`bytes ${enc}/identity, ${rt.label}: ${(r.bytesPerResponse / id.bytesPerResponse).toFixed(3)}`);
        figures.push(reqs, ratioOf(`bytes${Enc}VsIdentity${rt.key}`, r.bytesPerResponse / id.bytesPerResponse, 'lower'));
      }
    }
  } finally {
    await stopServer(server);
  }
  return figures;
}

export async function run(): Promise<Figure[]> {
  return [...(await codecs()), ...(await http())];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
