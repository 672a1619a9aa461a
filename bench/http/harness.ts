/**
 * Process and measurement plumbing shared by the HTTP benches (bench/http.bench.ts,
 * bench/readRoutes.bench.ts): start a server process and wait until it answers, run the load
 * generator (bench/http/loadgen.ts) in its own process against it while sampling the server's
 * CPU and the machine's, and print one table of results.
 * @module
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './loadgen.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LOADGEN = join(ROOT, 'bench', 'http', 'loadgen.ts');
const READY_TIMEOUT_MS = 30_000;

export interface ServerProc {
  name: string;
  port: number;
  child: ChildProcess;
  stderr: string[];
}

export interface Workload {
  route: string;
  method: 'GET' | 'POST';
  body?: string;
  /** A JSON file holding an array of bodies the load generator sends in turn. */
  bodiesFile?: string;
}

export interface Measured extends LoadResult {
  /** Server process CPU (user + system) during the measured window, % of one core. */
  serverCpuPct: number;
  /** Every other process on the machine (other sessions' tests...), % of one core. */
  otherCpuPct: number;
}

export interface Row {
  server: string;
  route: string;
  /** The best round, with errors, non-2xx and reconnects summed over all rounds. */
  r: Measured;
  /** req/s of every round, in run order. */
  rounds: number[];
}

const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process in ms, from /proc (Linux); NaN elsewhere. */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" closing comm: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** Busy time of the whole machine (all cores) in ms, from /proc/stat; NaN elsewhere. */
export function machineBusyMs(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu  user nice system idle iowait irq softirq steal ...
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const busy = f.reduce((a, b) => a + b, 0) - f[3]! - f[4]!;
    return (busy * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/**
 * The Node flags `npm start` runs the node with (package.json's start script; a unit test keeps
 * the two the same): benches start `server/main.ts` as operators do. A 64 MB young generation
 * (16 MB by default) scavenges a third as often under sustained writes, each scavenge copying
 * about what one did: 54 µs of GC a write instead of 90 (2026-11-26, 1,800 writes/s).
 */
export const NODE_RUNTIME_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

export function spawnTs(script: string, args: string[]): ChildProcess {
  // BENCH_CHILD_NODE_ARGS: extra Node flags for the processes a bench starts, e.g.
  // `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the node under load (not allowed in NODE_OPTIONS).
  const extra = (process.env['BENCH_CHILD_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== '');
  const runtime = /server[\\/]main\.ts$/.test(script) ? NODE_RUNTIME_FLAGS : [];
  return spawn(process.execPath, [...runtime, ...extra, '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

/** Resolves when a stdout line satisfies `ready`; rejects if the child exits first or on timeout. */
export function startServer(name: string, port: number, script: string, args: string[]): Promise<ServerProc> {
  const child = spawnTs(script, args);
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
  const proc: ServerProc = { name, port, child, stderr };
  return new Promise((resolve, reject) => {
    let out = '';
    let done = false;
    const timer = setTimeout(() => settle(new Error(`${name}: not ready after ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    const settle = (err?: Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      poller.stop = true;
      if (err) reject(err);
      else resolve(proc);
    };
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      // uWS node at --log-level warn does not print its info-level "listening"; the poll covers it.
      if (out.includes('"msg":"listening"') || out.includes(`listening ${port}`)) settle();
    });
    child.once('exit', (code, signal) =>
      settle(new Error(`${name} exited before ready (code ${code}, signal ${signal}): ${stderr.join('').slice(-2000)}`)),
    );
    const poller = { stop: false };
    void (async () => {
      while (!poller.stop) {
        await new Promise((r) => setTimeout(r, 100));
        if (poller.stop) return;
        try {
          const res = await fetch(`http://127.0.0.1:${port}/api/v0/health-check`);
          await res.arrayBuffer();
          if (res.ok) settle();
        } catch {
          // not listening yet
        }
      }
    })();
  });
}

export async function stopServer(s: ServerProc): Promise<void> {
  const { child } = s;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export function runLoadgen(server: ServerProc, w: Workload, connections: number, durationMs: number, warmupMs: number): Promise<Measured> {
  const args = [
    '--port', String(server.port),
    '--path', w.route,
    '--method', w.method,
    '--connections', String(connections),
    '--duration-ms', String(durationMs),
    '--warmup-ms', String(warmupMs),
  ];
  if (w.bodiesFile !== undefined) args.push('--bodies-file', w.bodiesFile, '--content-type', 'application/json');
  else if (w.body !== undefined) args.push('--body', w.body, '--content-type', 'application/json');
  const child = spawnTs(LOADGEN, args);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let cpuStart = NaN;
    let cpuEnd = NaN;
    let busyStart = NaN;
    let busyEnd = NaN;
    let tStart = 0;
    let tEnd = 0;
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      err += s;
      if (Number.isNaN(cpuStart) && err.includes('loadgen: measure-start')) {
        cpuStart = processCpuMs(server.child.pid);
        busyStart = machineBusyMs();
        tStart = performance.now();
      }
      if (Number.isNaN(cpuEnd) && err.includes('loadgen: measure-end')) {
        cpuEnd = processCpuMs(server.child.pid);
        busyEnd = machineBusyMs();
        tEnd = performance.now();
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`loadgen against ${server.name} failed (code ${code}): ${err.slice(-2000)}`));
        return;
      }
      const r = JSON.parse(line) as LoadResult;
      const serverCpuPct = ((cpuEnd - cpuStart) / (tEnd - tStart)) * 100;
      const busyPct = ((busyEnd - busyStart) / (tEnd - tStart)) * 100;
      resolve({ ...r, serverCpuPct, otherCpuPct: Math.max(0, busyPct - serverCpuPct - r.cpuPct) });
    });
  });
}

export function fmt(n: number, digits: number): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';
}

export function printTable(rows: Row[]): void {
  const header = ['server', 'route', 'req/s', 'p50', 'p99', 'max', 'errors', 'non2xx', 'reconn', 'server cpu', 'loadgen cpu', 'other cpu', 'all rounds (k req/s)'];
  const cells = rows.map(({ server, route, r, rounds }) => [
    server,
    route,
    fmt(r.reqPerSec, 0),
    `${fmt(r.p50ms, 2)} ms`,
    `${fmt(r.p99ms, 2)} ms`,
    `${fmt(r.maxMs, 2)} ms`,
    String(r.errors),
    String(r.non2xx),
    String(r.reconnects),
    `${fmt(r.serverCpuPct, 0)}%`,
    `${fmt(r.cpuPct, 0)}%`,
    `${fmt(r.otherCpuPct, 0)}%`,
    rounds.map((x) => (x / 1000).toFixed(1)).join(' '),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c]!.length)));
  const line = (row: string[]): string =>
    row.map((s, c) => (c < 2 || c === row.length - 1 ? s.padEnd(widths[c]!) : s.padStart(widths[c]!))).join('  ').trimEnd();
  console.log(line(header));
  for (const row of cells) console.log(line(row));
}


/**
 * The server processes of one bench run. A child is tracked as soon as it is up, so `release()`
 * stops it even if another failed to start; if the bench process exits or is interrupted
 * (Ctrl-C skips 'exit' handlers by default) the children are killed too.
 */
export function serverSet(): { start(p: Promise<ServerProc>): Promise<ServerProc>; release(): Promise<void> } {
  const servers: ServerProc[] = [];
  const killAll = (): void => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  };
  const onSignal = (): void => {
    killAll();
    process.exit(130);
  };
  process.once('exit', killAll);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    start: (p) => {
      void p.then((s) => servers.push(s), () => undefined);
      return p;
    },
    release: async () => {
      await Promise.all(servers.map(stopServer));
      process.off('exit', killAll);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

export interface RoundOptions {
  connections: number;
  durationMs: number;
  warmupMs: number;
  /** The unrecorded warm-up run per server before the rounds (JIT, connection pools). */
  warmupRunMs: number;
  rounds: number;
}

/**
 * Loads each server with `w`: one warm-up run each, then `rounds` rounds, the order reversed
 * every other round. Per server: the best round by req/s, with errors, non-2xx and reconnects
 * summed over all rounds (a bad round cannot hide behind a good one), and every round's req/s.
 */
export async function bestOfRounds(servers: readonly ServerProc[], w: Workload, o: RoundOptions): Promise<Map<ServerProc, { r: Measured; rounds: number[] }>> {
  for (const s of servers) await runLoadgen(s, w, o.connections, o.warmupRunMs, 0);
  const out = new Map(servers.map((s) => [s, { r: undefined as Measured | undefined, rounds: [] as number[], errors: 0, non2xx: 0, reconnects: 0 }]));
  for (let round = 0; round < o.rounds; round++) {
    for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
      const r = await runLoadgen(s, w, o.connections, o.durationMs, o.warmupMs);
      const e = out.get(s)!;
      e.errors += r.errors;
      e.non2xx += r.non2xx;
      e.reconnects += r.reconnects;
      e.rounds.push(r.reqPerSec);
      if (e.r === undefined || r.reqPerSec > e.r.reqPerSec) e.r = r;
    }
  }
  return new Map([...out].map(([s, e]) => [s, { r: { ...e.r!, errors: e.errors, non2xx: e.non2xx, reconnects: e.reconnects }, rounds: e.rounds }]));
}

/** Throws when any row had errors, non-2xx answers or reconnects (keep-alive must hold), or no requests. */
export function assertCleanRows(bench: string, rows: readonly Row[]): void {
  const failures = rows.filter((row) => row.r.errors > 0 || row.r.non2xx > 0 || row.r.reconnects > 0 || row.r.requests === 0);
  if (failures.length > 0) {
    throw new Error(`${bench}: errors, non-2xx responses or reconnects from ${failures.map((f) => `${f.server} ${f.route}`).join(', ')}`);
  }
}
