/**
 * Starts a private, throw-away redis-server for a test file (never the system one on 6379).
 * Fails loudly when Redis cannot be started: Redis-backed tests must fail, not skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
  /** Start as a replica of this master (on 127.0.0.1 unless `host` says otherwise). */
  replicaOf?: { host?: string; port: number };
  /**
   * `requirepass` of this server, also used as `masterauth` (so it can replicate from a master
   * with the same password, e.g. after a Sentinel failover). `url` then carries it.
   */
  password?: string;
}

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** SIGTERM, wait for exit, remove the temp dir. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL (a crash: no shutdown work), wait for exit, remove the temp dir. Idempotent. */
  kill(): Promise<void>;
}

export interface RedisSentinelOptions {
  /** Name the master is monitored under (`sentinel monitor <name> ...`). */
  masterName: string;
  masterPort: number;
  /** @default '127.0.0.1' */
  masterHost?: string;
  /** @default 1 */
  quorum?: number;
  /** `sentinel down-after-milliseconds`. @default 1000 */
  downAfterMs?: number;
  /** `sentinel failover-timeout`; also the minimum gap (x2) between two automatic failovers. @default 2000 */
  failoverTimeoutMs?: number;
  /** `sentinel auth-pass`: the password of the master and its replicas. */
  masterPassword?: string;
  /** `requirepass` of the sentinel itself. `url` then carries it. */
  password?: string;
  /** @default a free port */
  port?: number;
  /**
   * Directory of sentinel.conf, which Sentinel rewrites (it must be writable); `stop()` leaves
   * it for the caller to remove. @default a fresh temp dir, removed by `stop()`
   */
  dir?: string;
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
  return startWithPortRetry(opts.port, async (port) => {
    const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'sn-redis-test-')));
    const args = [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', dir,
      '--save', '',
      '--appendonly', opts.appendonly === true ? 'yes' : 'no',
      '--daemonize', 'no',
      '--logfile', '',
      // A replica's first sync starts at once instead of after the default 5 s.
      '--repl-diskless-sync-delay', '0',
    ];
    if (opts.replicaOf) args.push('--replicaof', opts.replicaOf.host ?? '127.0.0.1', String(opts.replicaOf.port));
    if (opts.password !== undefined) args.push('--requirepass', opts.password, '--masterauth', opts.password);
    return startOn({ port, args, dir, removeDir: opts.dir === undefined, password: opts.password, what: 'redis-server' });
  });
}

/**
 * Starts a Redis Sentinel (`redis-server <conf> --sentinel`; no redis-sentinel binary needed)
 * monitoring one master. `url` is `redis://[:password@]127.0.0.1:<port>`, for raw SENTINEL
 * commands. Sentinel rewrites its config file at runtime, so the file lives in `dir`, which
 * must be writable.
 */
export async function startRedisSentinel(opts: RedisSentinelOptions): Promise<RedisServer> {
  if (!/^[A-Za-z0-9._-]+$/.test(opts.masterName)) throw new Error(`unusable master name ${JSON.stringify(opts.masterName)}`);
  return startWithPortRetry(opts.port, async (port) => {
    const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'sn-sentinel-test-')));
    try {
      await access(dir, constants.W_OK);
    } catch (err) {
      if (opts.dir === undefined) await rm(dir, { recursive: true, force: true });
      throw new Error(
        `Sentinel rewrites its config file, but its directory ${dir} is not writable: ${(err as Error).message}`,
      );
    }
    const name = opts.masterName;
    const lines = [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${quoteConf(dir)}`,
      'daemonize no',
      'logfile ""',
      `sentinel monitor ${name} ${opts.masterHost ?? '127.0.0.1'} ${opts.masterPort} ${opts.quorum ?? 1}`,
      `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 1000}`,
      `sentinel failover-timeout ${name} ${opts.failoverTimeoutMs ?? 2000}`,
      `sentinel parallel-syncs ${name} 1`,
    ];
    if (opts.masterPassword !== undefined) lines.push(`sentinel auth-pass ${name} ${quoteConf(opts.masterPassword)}`);
    if (opts.password !== undefined) lines.push(`requirepass ${quoteConf(opts.password)}`);
    const conf = join(dir, 'sentinel.conf');
    await writeFile(conf, lines.join('\n') + '\n');
    return startOn({
      port,
      args: [conf, '--sentinel'],
      dir,
      removeDir: opts.dir === undefined,
      password: opts.password,
      what: 'redis sentinel',
    });
  });
}

/** A double-quoted redis.conf string. */
function quoteConf(value: string): string {
  return '"' + value.replace(/[\\"]/g, '\\$&') + '"';
}

async function startWithPortRetry(
  fixedPort: number | undefined,
  start: (port: number) => Promise<RedisServer>,
): Promise<RedisServer> {
  installExitHook();
  let lastError: Error | undefined;
  const attempts = fixedPort === undefined ? PORT_ATTEMPTS : 1;
  for (let i = 0; i < attempts; i++) {
    const port = fixedPort ?? (await freePort());
    try {
      return await start(port);
    } catch (err) {
      lastError = err as Error;
      // Another process may have taken the port between probe and bind: try a fresh one.
      if (!(err instanceof PortInUseError)) break;
    }
  }
  throw lastError ?? new Error('redis-server did not start');
}

class PortInUseError extends Error {}

interface StartSpec {
  port: number;
  args: string[];
  dir: string;
  /** Remove `dir` on stop (it was created for this server). */
  removeDir: boolean;
  password: string | undefined;
  /** For error messages. */
  what: string;
}

async function startOn({ port, args, dir, removeDir, password, what }: StartSpec): Promise<RedisServer> {
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
  const stopWith = (signal: 'SIGTERM' | 'SIGKILL') => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      if (removeDir) await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  const stop = () => stopWith('SIGTERM');
  const kill = () => stopWith('SIGKILL');

  try {
    await waitForServer(port, child.pid, exited, password);
  } catch (err) {
    await stop();
    const message = (err as Error).message;
    if (/Address already in use/i.test(output)) throw new PortInUseError(`port ${port} is in use`);
    throw new Error(
      `${what} could not be started on 127.0.0.1:${port}: ${message}` +
        (output ? `\n--- ${what} output ---\n${output.trim()}` : ''),
    );
  }
  const auth = password === undefined ? '' : `:${encodeURIComponent(password)}@`;
  return { url: `redis://${auth}127.0.0.1:${port}`, port, dir, stop, kill };
}

/**
 * Resolves once our child answers on the port; rejects if it exits first or on timeout. The
 * answer must carry the child's pid: another server already on the port would answer too.
 */
async function waitForServer(
  port: number,
  pid: number | undefined,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>,
  password: string | undefined,
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
    const answeringPid = await serverPid(port, password);
    if (answeringPid !== undefined && answeringPid === pid) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(exitInfo ?? `no answer within ${STARTUP_TIMEOUT_MS} ms`);
}

/** The process_id from INFO of whatever Redis listens on the port, if any answers. */
function serverPid(port: number, password: string | undefined): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (pid: number | undefined) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(1000, () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.once('connect', () => {
      // Inline command syntax cannot carry every byte; RESP can.
      if (password !== undefined) socket.write(`*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\n`);
      socket.write('INFO server\r\n');
    });
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.startsWith('-')) return done(undefined); // e.g. LOADING: not ready yet
      const match = /process_id:(\d+)\r\n/.exec(reply);
      if (match) done(Number(match[1]));
    });
  });
}

