/**
 * Latency from a new transaction to a miner holding a template that includes it: the miner
 * feed's push (WebSocket subscription) against the fastest a polling miner can be, a client
 * calling get-block-template back to back over HTTP, measured in the same run against one node
 * process (its own miner off, so the mempool only grows and each step adds one transaction).
 *
 * Each sample: t0 just before submit-transaction is sent; the sample ends when the client first
 * holds a template whose TxnCount includes the new transaction. Push and poll samples alternate;
 * the samples are cut into BENCH_ROUNDS consecutive rounds, each giving poll p50 ÷ push p50.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { signTx } from 'deso-protocol';
import WebSocket from 'ws';
import { InlineCrypto } from '../server/crypto/inline.js';
import { encodePublicKey } from '../server/keys/index.js';
import { getPublicKey } from '../wasm/secp256k1.js';
import { benchSettings, printFigure } from './_shared.js';
import { absoluteFigure, ratioFigure, type Figure } from './figures.js';
import { NODE_RUNTIME_FLAGS } from './http/harness.js';

const SAMPLES = 60;
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

type J = Record<string, any>;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  return port;
}

async function startNode(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_RUNTIME_FLAGS, '--import', 'tsx', 'server/main.ts', '--port', String(port), '--store', 'memory', '--miner', 'off', '--log-level', 'info'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((res, rej) => {
    const onData = (d: Buffer): void => {
      out += d;
      if (out.includes('"msg":"listening"')) res();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', () => rej(new Error(`node exited:\n${out}`)));
  });
  return { child, url: `127.0.0.1:${port}` };
}

export async function run(): Promise<Figure[]> {
  const { child, url } = await startNode();
  const crypto = new InlineCrypto();
  const post = async (path: string, body: unknown): Promise<J> => {
    const r = await fetch(`http://${url}/api/v0/${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const j = (await r.json()) as J;
    if (r.status !== 200) throw new Error(`${path}: ${JSON.stringify(j)}`);
    return j;
  };
  try {
    const seed = new Uint8Array(randomBytes(32));
    const seedHex = Buffer.from(seed).toString('hex');
    const pk = encodePublicKey(getPublicKey(seed, true), 'testnet');
    const other = encodePublicKey(getPublicKey(new Uint8Array(randomBytes(32)), true), 'testnet');
    // Coins for the transactions: one block mined to our key.
    const t = await post('get-block-template', { PublicKeyBase58Check: pk, NumHeaders: 1, HeaderVersion: 1 });
    const header = new Uint8Array(Buffer.from(t['Headers'][0], 'base64'));
    const target = new Uint8Array(Buffer.from(t['DifficultyTargetHex'], 'hex'));
    for (let s = 0n; ; s += 200_000n) {
      const r = await crypto.mine({ header, startNonce: s, count: 200_000, target });
      if (r.found) {
        new DataView(header.buffer).setBigUint64(84, r.nonce);
        break;
      }
    }
    await post('submit-block', { PublicKeyBase58Check: pk, Header: Buffer.from(header).toString('base64'), ExtraNonce: t['ExtraNonces'][0], BlockID: t['BlockID'] });

    // Signed transactions prepared up front, so a sample measures only submit → template.
    const signed: string[] = [];
    for (let i = 0; i < SAMPLES * 2; i++) {
      const c = await post('send-deso', { SenderPublicKeyBase58Check: pk, RecipientPublicKeyOrUsername: other, AmountNanos: 1000 + i, MinFeeRateNanosPerKB: 1000 });
      signed.push(await signTx(c['TransactionHex'], seedHex));
    }

    const ws = new WebSocket(`ws://${url}/api/v0/miner`);
    await once(ws, 'open');
    let latestCount = -1;
    let waiter: { count: number; resolve: () => void } | null = null;
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as J;
      const tpl = (m['method'] === 'template' ? m['params'] : m['result']) as J | undefined;
      const count = tpl?.['LatestBlockTemplateStats']?.['TxnCount'];
      if (typeof count !== 'number') return;
      latestCount = Math.max(latestCount, count);
      if (waiter && latestCount >= waiter.count) {
        waiter.resolve();
        waiter = null;
      }
    });
    ws.send(JSON.stringify({ id: 1, method: 'subscribe', params: { PublicKeyBase58Check: pk } }));
    while (latestCount < 0) await new Promise((r) => setTimeout(r, 5));

    const push: number[] = [];
    const poll: number[] = [];
    let mempool = 0;
    for (let i = 0; i < SAMPLES * 2; i++) {
      mempool++;
      const want = mempool;
      const pushed = i % 2 === 0 ? new Promise<void>((resolve) => (latestCount >= want ? resolve() : (waiter = { count: want, resolve }))) : null;
      const t0 = performance.now();
      await post('submit-transaction', { TransactionHex: signed[i] });
      if (pushed) {
        await pushed;
        push.push(performance.now() - t0);
      } else {
        for (;;) {
          const tpl = await post('get-block-template', { PublicKeyBase58Check: pk, NumHeaders: 1, HeaderVersion: 1 });
          if (tpl['LatestBlockTemplateStats']['TxnCount'] >= want) break;
        }
        poll.push(performance.now() - t0);
        // Let the push for this transaction arrive before the next push sample starts.
        while (latestCount < want) await new Promise((r) => setTimeout(r, 1));
      }
    }
    ws.close();
    // Rounds: consecutive slices of the samples (push and poll alternate, so each slice has both).
    const rounds = Math.min(benchSettings().rounds, SAMPLES);
    const slice = (xs: number[], r: number): number[] => xs.slice(Math.floor((r * xs.length) / rounds), Math.floor(((r + 1) * xs.length) / rounds)).sort((a, b) => a - b);
    const roundP50 = (xs: number[]): number[] => Array.from({ length: rounds }, (_, r) => pct(slice(xs, r), 50));
    const ratio = ratioFigure('pollVsPushP50', roundP50(poll), roundP50(push));
    push.sort((a, b) => a - b);
    poll.sort((a, b) => a - b);
    const figures = {
      pushP50Ms: +pct(push, 50).toFixed(2),
      pushP99Ms: +pct(push, 99).toFixed(2),
      pollP50Ms: +pct(poll, 50).toFixed(2),
      pollP99Ms: +pct(poll, 99).toFixed(2),
      samples: SAMPLES,
    };
    console.log(`miner feed push, submit → template with the txn: p50 ${figures.pushP50Ms} ms, p99 ${figures.pushP99Ms} ms`);
    console.log(`baseline: get-block-template back to back:       p50 ${figures.pollP50Ms} ms, p99 ${figures.pollP99Ms} ms`);
    console.log(`ratio (poll p50 / push p50): ${(figures.pollP50Ms / figures.pushP50Ms).toFixed(2)}x; a miner polling every second waits ~500 ms more on average`);
    printFigure('poll p50 / push p50 per round', ratio);
    console.log(JSON.stringify(figures));
    return [
      ratio,
      absoluteFigure('pushP50Ms', figures.pushP50Ms, 'ms', 'lower'),
      absoluteFigure('pushP99Ms', figures.pushP99Ms, 'ms', 'lower'),
      absoluteFigure('pollP50Ms', figures.pollP50Ms, 'ms', 'lower'),
      absoluteFigure('pollP99Ms', figures.pollP99Ms, 'ms', 'lower'),
    ];
  } finally {
    await crypto.close();
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
