/**
 * The node under test of the scale bench: `server/main.ts` in a child process on the bench's
 * Redis, read cache off (so reads measure the store, not the cache), built-in miner on and
 * paying the bench's funder. Starting it is timed: until health-check answers 200, and until a
 * read answers 200 (the restart time). Also the chain figures the bench waits on (tip height,
 * mempool size, from /metrics) and mining through get-block-template / submit-block, which
 * gives the funder its first coins before any transaction exists to make the built-in miner
 * work.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { ROOT, spawnTs, type ServerProc } from '../http/harness.js';
import { chainGaugesOf, freshRequest } from '../load/node.js';
import { parsePrometheusText } from '../../test/helpers/promText.js';
import { solveTemplate } from '../../test/helpers/mining.js';
import { okApi } from '../../test/helpers/http.js';
import type { CryptoService } from '../../server/crypto/service.js';

const MAIN = join(ROOT, 'server', 'main.ts');
/** Poll period while timing a start: the restart figures are this precise. */
const POLL_MS = 10;
const START_TIMEOUT_MS = 120_000;

/** The node's flags: everything but the port. */
export function nodeArgs(redisUrl: string, minerPublicKey: string): string[] {
  return ['--redis', redisUrl, '--network', 'testnet', '--miner', 'auto', '--miner-public-key', minerPublicKey, '--read-cache-mb', '0', '--log-level', 'warn'];
}

export interface TimedStart {
  server: ServerProc;
  /** From spawn until health-check answered 200. */
  healthMs: number;
  /** From spawn until the probe read answered 200. */
  readMs: number;
}

async function status(port: number, method: 'GET' | 'POST', path: string, body?: string): Promise<number> {
  try {
    return (await freshRequest(port, method, path, body)).status;
  } catch {
    return 0;
  }
}

/**
 * Spawns the node and times it: health-check 200, then `probe` (a read route and body) 200.
 * `track` registers the child for cleanup as soon as it exists (bench/http/harness serverSet).
 */
export async function startNodeTimed(name: string, port: number, args: readonly string[], probe: { path: string; body: string }, track: (s: ServerProc) => void): Promise<TimedStart> {
  const t0 = performance.now();
  const child = spawnTs(MAIN, ['--port', String(port), ...args]);
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
  child.stdout!.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
  const server: ServerProc = { name, port, child, stderr };
  track(server);
  const deadline = t0 + START_TIMEOUT_MS;
  const until = async (ok: () => Promise<boolean>, what: string): Promise<number> => {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before ${what}: ${stderr.join('').slice(-2000)}`);
      if (await ok()) return performance.now() - t0;
      if (performance.now() > deadline) throw new Error(`${name}: no ${what} within ${START_TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
  };
  const healthMs = await until(async () => (await status(port, 'GET', '/api/v0/health-check')) === 200, 'health-check 200');
  const readMs = await until(async () => (await status(port, 'POST', probe.path, probe.body)) === 200, `${probe.path} 200`);
  return { server, healthMs, readMs };
}

/** Tip height and mempool size from /metrics (bench/load/node.ts `chainGaugesOf`: any number of processes). */
export async function chainGauges(port: number): Promise<{ tip: bigint; mempool: number }> {
  const r = await freshRequest(port, 'GET', '/metrics');
  const { tip, mempool } = chainGaugesOf(parsePrometheusText(r.text));
  if (Number.isNaN(tip) || Number.isNaN(mempool)) throw new Error('/metrics lacks the chain tip or mempool gauge');
  return { tip: BigInt(tip), mempool };
}

/**
 * Seconds the tip block's timestamp is past the clock (negative: behind it). A chain that mines
 * several blocks a second must not run ahead: blocks more than maxTimestampFutureSecs (2 h)
 * past the clock are refused, and a chain there may mine only one block a second.
 */
export async function chainLeadSecs(port: number, tip: bigint): Promise<number> {
  const r = await freshRequest(port, 'POST', '/api/v1/block', JSON.stringify({ Height: Number(tip) }));
  if (r.status !== 200) throw new Error(`/api/v1/block answered ${r.status}: ${r.text.slice(0, 200)}`);
  const header = (JSON.parse(r.text) as { Header: { TstampSecs: number } }).Header;
  return header.TstampSecs - Math.floor(Date.now() / 1000);
}

/** Mines `count` blocks paying `publicKey` (1 native coin each on the dev chain). */
export async function mineBlocks(port: number, publicKey: string, count: number, crypto: CryptoService): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < count; i++) {
    const t = await okApi(base, 'get-block-template', { PublicKeyBase58Check: publicKey, NumHeaders: 1, HeaderVersion: 1 });
    const header = await solveTemplate(crypto, t);
    const r = await okApi(base, 'submit-block', { PublicKeyBase58Check: publicKey, Header: header, ExtraNonce: (t['ExtraNonces'] as number[])[0], BlockID: t['BlockID'] });
    if (r['IsMainChain'] !== true) throw new Error(`mined block did not join the main chain: ${JSON.stringify(r)}`);
  }
}
