/**
 * The node under test of the load bench, as operators run it: `server/main.ts --processes N
 * --redis URL`, started fresh for each run. Finds the node's OS processes (for CPU figures),
 * waits until its chain is quiet (mempool mined, tip still) and snapshots answers from each of
 * its server processes, so the bench can check that every process, and every run, serves the
 * same state.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer, type ServerProc } from '../http/harness.js';
import { parsePrometheusText, sampleValue } from '../../test/helpers/promText.js';

export interface NodeUnderTest {
  server: ServerProc;
  processes: number;
  /** The supervisor (with --processes > 1) and every server process. */
  pids: number[];
  /** The server processes (those that answer requests). */
  serverPids: number[];
  /** ProcessId (X-Node-Process) of each server process. */
  processIds: string[];
}

interface ProcessEntry {
  ProcessId: string;
  Pid: number;
}

const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function ppid(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return NaN;
  }
}

/**
 * CPU (user + system, ms) of a process's main thread alone (its JS event loop), without its
 * worker threads (crypto pool, where the built-in miner's proof of work runs) and helpers.
 */
export function mainThreadCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One request; on a fresh connection (so SO_REUSEPORT may hand it to any process) unless an
 * agent holding one keep-alive socket is given.
 */
export function freshRequest(port: number, method: 'GET' | 'POST', path: string, body?: string, agent?: Agent): Promise<{ status: number; processId: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, agent: agent ?? false, headers: body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (s: string) => (text += s));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, processId: String(res.headers['x-node-process'] ?? ''), text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts the node and waits until all `processes` server processes are listed live in node-info
 * (entries of a node stopped just before linger in the store for a few seconds: only this
 * node's own process tree counts).
 */
export async function startNode(processes: number, port: number, redisUrl: string, start: (p: Promise<ServerProc>) => Promise<ServerProc>): Promise<NodeUnderTest> {
  const args = ['--port', String(port), '--processes', String(processes), '--redis', redisUrl, '--log-level', 'warn', '--network', 'testnet'];
  const server = await start(startServer(`${processes} process${processes === 1 ? '' : 'es'}`, port, join(ROOT, 'server', 'main.ts'), args));
  const root = server.child.pid!;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await freshRequest(port, 'GET', '/api/v0/node-info');
    const own = r.status === 200 ? ((JSON.parse(r.text) as { Processes: ProcessEntry[] }).Processes ?? []).filter((e) => e.Pid === root || ppid(e.Pid) === root) : [];
    if (own.length === processes) {
      const serverPids = own.map((e) => e.Pid);
      return { server, processes, pids: processes === 1 ? [root] : [root, ...serverPids], serverPids, processIds: own.map((e) => e.ProcessId) };
    }
    if (Date.now() > deadline) throw new Error(`${server.name}: ${own.length} of ${processes} server processes listed in node-info after 30 s`);
    await sleep(100);
  }
}

/** After `stopServer`: waits until every process of the node is gone (CPU and port free). */
export async function waitGone(n: NodeUnderTest): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (n.pids.some(alive)) {
    if (Date.now() > deadline) throw new Error(`${n.server.name}: processes ${n.pids.filter(alive).join(', ')} still running 10 s after stop`);
    await sleep(50);
  }
}

/** The pid of the redis-server listening on `port` (its title names the port), from /proc. */
export function redisPid(port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes('redis-server') && (cmd.includes(`:${port}`) || cmd.includes(`--port ${port}`))) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

/**
 * Mempool size and tip height from a /metrics text. With several server processes every one
 * reports both (one chain in the shared store), each sample labelled with its process: the
 * highest tip, and the mempool size of the process that reported it. NaN when absent.
 */
export function chainGaugesOf(m: ReturnType<typeof parsePrometheusText>): { mempool: number; tip: number } {
  const samples = (name: string) => m.get(name)?.samples.filter((s) => s.name === name) ?? [];
  const tips = samples('socialnode_chain_tip_height');
  const mempools = samples('socialnode_chain_mempool_transactions');
  if (tips.length === 0) return { mempool: mempools[0]?.value ?? NaN, tip: NaN };
  const best = tips.reduce((a, t) => (t.value > a.value ? t : a));
  const mempool = mempools.find((s) => s.labels['process'] === best.labels['process']) ?? mempools[0];
  return { mempool: mempool?.value ?? NaN, tip: best.value };
}

async function chainGauges(port: number): Promise<{ mempool: number; tip: number }> {
  const r = await freshRequest(port, 'GET', '/metrics');
  return chainGaugesOf(parsePrometheusText(r.text));
}

/**
 * Waits until the mempool is empty and the tip has not moved for QUIET_MS: every admitted
 * transaction mined. Answers the tip height.
 */
export async function waitQuiet(port: number, timeoutMs = 20_000): Promise<number> {
  const QUIET_MS = 400;
  const deadline = Date.now() + timeoutMs;
  let last = await chainGauges(port);
  let stillSince = Date.now();
  for (;;) {
    await sleep(100);
    const now = await chainGauges(port);
    if (now.tip !== last.tip || now.mempool !== 0) stillSince = Date.now();
    else if (Date.now() - stillSince >= QUIET_MS) return now.tip;
    last = now;
    if (Date.now() > deadline) throw new Error(`chain not quiet after ${timeoutMs} ms: mempool ${now.mempool}, tip ${now.tip}`);
  }
}

export interface Probe {
  route: string;
  body: string;
}

/** Per probe, `status body` as served. */
export type Snapshot = string[];

/**
 * Asks every probe of each server process of the node: one keep-alive connection per attempt,
 * new connections until each process has answered (told by X-Node-Process). Answers one
 * snapshot per process.
 */
export async function snapshotEach(n: NodeUnderTest, probes: readonly Probe[]): Promise<Map<string, Snapshot>> {
  const out = new Map<string, Snapshot>();
  for (let attempt = 0; out.size < n.processIds.length; attempt++) {
    if (attempt === 200) throw new Error(`${n.server.name}: only processes ${[...out.keys()].join(', ')} of ${n.processIds.join(', ')} answered 200 fresh connections`);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const answers: string[] = [];
      let processId = '';
      for (const p of probes) {
        const r = await freshRequest(n.server.port, 'POST', p.route, p.body, agent);
        if (processId === '') processId = r.processId;
        else if (r.processId !== processId) throw new Error(`one keep-alive connection answered by processes ${processId} and ${r.processId}`);
        if (out.has(processId)) break;
        answers.push(`${r.status} ${r.text}`);
      }
      if (!out.has(processId)) out.set(processId, answers);
    } finally {
      agent.destroy();
    }
  }
  return out;
}

/** Read cache hits and misses summed over the node's server processes (each counts its own). */
export async function readCacheCounts(n: NodeUnderTest): Promise<{ hits: number; misses: number }> {
  const seen = new Map<string, { hits: number; misses: number }>();
  for (let attempt = 0; seen.size < n.processIds.length; attempt++) {
    if (attempt === 200) throw new Error(`${n.server.name}: /metrics of only ${seen.size} of ${n.processIds.length} processes after 200 connections`);
    const r = await freshRequest(n.server.port, 'GET', '/metrics');
    if (seen.has(r.processId)) continue;
    const m = parsePrometheusText(r.text);
    seen.set(r.processId, { hits: sampleValue(m, 'socialnode_read_cache_hits_total') ?? NaN, misses: sampleValue(m, 'socialnode_read_cache_misses_total') ?? NaN });
  }
  return [...seen.values()].reduce((a, c) => ({ hits: a.hits + c.hits, misses: a.misses + c.misses }), { hits: 0, misses: 0 });
}
