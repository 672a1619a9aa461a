/**
 * Starts the real node (`server/main.ts` through tsx, as `npm start` does) in a child process
 * on a free port, and stops it. Used by every e2e test: real uWS, real sockets.
 *
 * A node given no store (no --store, --redis or --data-dir, nor their env vars) runs on the
 * default LMDB store in a fresh temporary data directory, removed once it exits: tests run in
 * parallel and must never share ./data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { freePort } from './ports.js';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');


export interface NodeProcess {
  port: number;
  url: string;
  child: ChildProcess;
  /** Every stdout/stderr line so far. */
  output: string[];
  /** Resolves with the first output line matching, or rejects after timeoutMs. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends SIGTERM and resolves with the exit code (SIGKILL after a grace period). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Line that means ready. @default the single-process "listening" log line */
  readyLine?: RegExp;
  /** Do not wait for readiness (for processes expected to fail). */
  noWait?: boolean;
  timeoutMs?: number;
  /** Pass the port as the PORT env var instead of --port. */
  portFromEnv?: boolean;
}

const live = new Set<ChildProcess>();
/** Temporary data directories of nodes still running (removed at exit at the latest). */
const tempDirs = new Set<string>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh data directory for the node's LMDB store, removed when the test process exits. */
export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sn-node-data-'));
  tempDirs.add(dir);
  return dir;
}

/** Whether the args or env already choose where the node keeps state. */
function choosesStore(args: readonly string[], env: Record<string, string> | undefined): boolean {
  const flags = ['--store', '--redis', '--data-dir'];
  if (args.some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)))) return true;
  return ['STORE', 'REDIS_URL', 'DATA_DIR'].some((v) => env?.[v] !== undefined || process.env[v] !== undefined);
}

export async function startNodeProcess(opts: StartOptions = {}): Promise<NodeProcess> {
  const port = await freePort();
  const portArgs = opts.portFromEnv ? [] : ['--port', String(port)];
  const ownDataDir = choosesStore(opts.args ?? [], opts.env) ? undefined : tempDataDir();
  const storeArgs = ownDataDir === undefined ? [] : ['--data-dir', ownDataDir];
  const args = ['--import', 'tsx', 'server/main.ts', ...portArgs, '--log-level', 'info', ...storeArgs, ...(opts.args ?? [])];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    // CHECK_RESPONSES: every 200 answer is checked against its route's response schema (a
    // suite's own env or --no-check-responses can turn it off).
    env: { CHECK_RESPONSES: 'true', ...process.env, ...opts.env, ...(opts.portFromEnv ? { PORT: String(port) } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const output: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  const onData = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      output.push(line);
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i]!.re.test(line)) waiters.splice(i, 1)[0]!.resolve(line);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((res) =>
    child.once('exit', (code) => {
      live.delete(child);
      if (ownDataDir !== undefined) {
        rmSync(ownDataDir, { recursive: true, force: true });
        tempDirs.delete(ownDataDir);
      }
      res(code);
    }),
  );

  const waitForLine = (re: RegExp, timeoutMs = 20_000): Promise<string> => {
    const seen = output.find((l) => re.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error(`timed out waiting for ${re}; output:\n${output.join('\n')}`)), timeoutMs);
      t.unref();
      void exited.then((code) => {
        clearTimeout(t);
        rej(new Error(`node exited (${code}) before ${re}; output:\n${output.join('\n')}`));
      });
      waiters.push({
        re,
        resolve: (l) => {
          clearTimeout(t);
          res(l);
        },
      });
    });
  };

  const node: NodeProcess = {
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    output,
    waitForLine,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(kill);
      return code;
    },
  };
  if (!opts.noWait) {
    try {
      await waitForLine(opts.readyLine ?? /"msg":"listening"/, opts.timeoutMs ?? 30_000);
    } catch (err) {
      await node.stop('SIGKILL');
      throw err;
    }
  }
  return node;
}
