/**
 * Starts a private, throw-away redis-server for a test file (never the system one on 6379).
 * Fails loudly when Redis cannot be started: Redis-backed tests must fail, not skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { freePort } from './ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServerOptions {
  /** Enable AOF persistence in the temp dir. @default false */
  appendonly?: boolean;
  /** Listen on this port (e.g. to restart a server where clients expect it). @default a free port */
  port?: number;
  /**
   * Keep data in this directory (e.g. to restart on the same AOF); `stop()` leaves it for the
   * caller to remove. @default a fresh temp dir, removed by `stop()`
   */
  dir?: string;
}

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** SIGTERM, wait for exit, remove the temp dir. Idempotent. */
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const PORT_ATTEMPTS = 5;

/** Children still running; killed when this process exits normally or by an exception. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

let pdeathsig: boolean | undefined;

/**
 * Linux `setpriv --pdeathsig` makes the kernel SIGTERM redis-server when this process dies in
 * any way, SIGKILL included, which no JS handler can cover. setpriv execs redis-server, so the
 * child pid stays the server's pid. Elsewhere only the 'exit' hook protects against orphans.
 */
function hasPdeathsig(): boolean {
  if (pdeathsig === undefined) {
    const probe = spawnSync('setpriv', ['--help'], { encoding: 'utf8' });
    pdeathsig = probe.status === 0 && probe.stdout.includes('--pdeathsig');
  }
  return pdeathsig;
}

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  installExitHook();
  let lastError: Error | undefined;
  const attempts = opts.port === undefined ? PORT_ATTEMPTS : 1;
  for (let i = 0; i < attempts; i++) {
    const port = opts.port ?? (await freePort());
    try {
      return await startOn(port, opts.appendonly === true, opts.dir);
    } catch (err) {
      lastError = err as Error;
      // Another process may have taken the port between probe and bind: try a fresh one.
      if (!(err instanceof PortInUseError)) break;
    }
  }
  throw lastError ?? new Error('redis-server did not start');
}

class PortInUseError extends Error {}

async function startOn(port: number, appendonly: boolean, givenDir: string | undefined): Promise<RedisServer> {
  const dir = givenDir ?? (await mkdtemp(join(tmpdir(), 'sn-redis-test-')));
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dir,
    '--save', '',
    '--appendonly', appendonly ? 'yes' : 'no',
    '--daemonize', 'no',
    '--logfile', '',
  ];
  const child = hasPdeathsig()
    ? spawn('setpriv', ['--pdeathsig', 'TERM', '--', 'redis-server', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);

  // Keep the log tail for error messages; always drain the pipes so the child never blocks.
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
    (resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    },
  );
  exited.then(() => live.delete(child));

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      if (givenDir === undefined) await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    await waitForServer(port, child.pid, exited);
  } catch (err) {
    await stop();
    const message = (err as Error).message;
    if (/Address already in use/i.test(output)) throw new PortInUseError(`port ${port} is in use`);
    throw new Error(
      `redis-server could not be started on 127.0.0.1:${port}: ${message}` +
        (output ? `\n--- redis-server output ---\n${output.trim()}` : ''),
    );
  }
  return { url: `redis://127.0.0.1:${port}`, port, dir, stop };
}

/**
 * Resolves once our child answers on the port; rejects if it exits first or on timeout. The
 * answer must carry the child's pid: another server already on the port would answer too.
 */
async function waitForServer(
  port: number,
  pid: number | undefined,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>,
): Promise<void> {
  let exitInfo: string | undefined;
  exited.then(({ code, signal, error }) => {
    // 127: setpriv could not find redis-server either.
    exitInfo =
      error || code === 127
        ? `cannot run redis-server (${error?.message ?? 'command not found'}); is Redis installed and on PATH?`
        : `redis-server exited early (code ${code}, signal ${signal})`;
  });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exitInfo) throw new Error(exitInfo);
    const answeringPid = await serverPid(port);
    if (answeringPid !== undefined && answeringPid === pid) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(exitInfo ?? `no answer within ${STARTUP_TIMEOUT_MS} ms`);
}

/** The process_id from INFO of whatever Redis listens on the port, if any answers. */
function serverPid(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (pid: number | undefined) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(1000, () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.startsWith('-')) return done(undefined); // e.g. LOADING: not ready yet
      const match = /process_id:(\d+)\r\n/.exec(reply);
      if (match) done(Number(match[1]));
    });
  });
}

