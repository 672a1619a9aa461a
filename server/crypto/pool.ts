/**
 * The crypto worker pool: every heavy crypto operation of the node runs here, off the uWS
 * event loop, as a batch over one moved ArrayBuffer (layouts: workers/types.ts).
 *
 * Backpressure is explicit: past `maxQueue` waiting batches a call rejects at once with
 * POOL_BUSY (routes answer 503) instead of queueing without bound. A worker that dies under a
 * batch is replaced by Piscina; the batch is retried once, then fails with POOL_WORKER_DIED.
 * @module
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { TaskName } from '../../workers/types.js';
import { PoolError } from './errors.js';
import { BatchCrypto } from './service.js';

export interface CryptoPoolOptions {
  /**
   * Worker threads at most. One per core: tasks are CPU-bound, so more threads than cores only
   * adds switching.
   * @default os.availableParallelism(), at least 1
   */
  threads: number;
  /**
   * Workers kept alive while idle. All of them by default: a worker start (tsx hooks + WASM
   * instantiation) took 230-450 ms (2 vCPU), longer than a 256-item verify batch (~36 ms).
   * @default threads
   */
  minThreads: number;
  /**
   * Batches that may wait for a worker; one more rejects with POOL_BUSY. A full queue of
   * 64-item verify batches is 64 × 64 × 0.14 ms / 2 threads ≈ 0.3 s of work on 2 cores: past
   * that a client is better served by a 503 and a retry than by a slower answer.
   * @default 64
   */
  maxQueue: number;
  /**
   * Milliseconds an idle worker above `minThreads` lives before exiting (no effect while
   * minThreads equals threads).
   * @default 30_000
   */
  idleTimeout: number;
  /**
   * Milliseconds close() lets running batches finish before terminating their workers. A
   * 256-item verify batch takes ~36 ms, far under this; a long mining scan is cut short.
   * @default 2_000
   */
  closeTimeout: number;
  /**
   * Old-generation heap limit of each worker, MB. A worker that exceeds it dies alone
   * (ERR_WORKER_OUT_OF_MEMORY) and is replaced, instead of growing the server process. Tasks
   * hold one batch (a 256-item verify batch is 33 KB) and WASM memory is outside this heap
   * (at most 4 MiB, asconfig.json), so 256 MB is generous.
   * @default 256
   */
  workerHeapMb: number;
  /**
   * The worker module (absolute path). Tests substitute a fixture that re-exports the tasks.
   * @default workers/crypto.ts
   */
  filename: string;
}

export const DEFAULTS: Readonly<Omit<CryptoPoolOptions, 'minThreads'>> = {
  threads: Math.max(1, availableParallelism()),
  maxQueue: 64,
  idleTimeout: 30_000,
  closeTimeout: 2_000,
  workerHeapMb: 256,
  filename: fileURLToPath(new URL('../../workers/crypto.ts', import.meta.url)),
};

/** Loads tsx's hooks in each worker so it can import TypeScript (see workers/tsxHooks.mjs). */
const TSX_HOOKS = new URL('../../workers/tsxHooks.mjs', import.meta.url).href;

/** Optional instrumentation; every hook must be cheap (called on the request path). */
export interface PoolMetrics {
  /** Batches waiting for a worker, sampled after each submit. */
  queueDepth(depth: number): void;
  /** Milliseconds from submit to settle (queue wait + run + transfer), per batch. */
  taskTime(task: TaskName, ms: number): void;
  /** A worker died under a batch of this task. */
  workerDied(task: TaskName): void;
  /** A batch was refused with POOL_BUSY. */
  rejected(task: TaskName): void;
}

/** Warnings about worker deaths; a pino Logger fits. */
export interface PoolLog {
  warn(obj: object, msg: string): void;
}

export interface CryptoPoolModules {
  metrics: PoolMetrics | null;
  log: PoolLog | null;
}

/** Attempts per batch: the first run, then one retry on a fresh worker if the worker died. */
const MAX_ATTEMPTS = 2;

/**
 * How Piscina reports a dead worker to the task it was running: `worker exited with code: N`
 * when the thread exits (process.exit in the worker, a fatal error), or Node's
 * ERR_WORKER_OUT_OF_MEMORY when it hits its heap limit. A task that merely throws arrives as
 * its own error instead.
 */
function isWorkerDeath(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.message.startsWith('worker exited with code') || (err as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY';
}

function checkOptions(o: CryptoPoolOptions): void {
  const positive = (name: keyof CryptoPoolOptions, min: number): void => {
    const v = o[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw new RangeError(`CryptoPool option "${name}" expected an integer >= ${min}, got ${String(v)}`);
    }
  };
  positive('threads', 1);
  positive('minThreads', 0);
  positive('maxQueue', 1);
  positive('idleTimeout', 0);
  positive('closeTimeout', 0);
  positive('workerHeapMb', 16);
  if (o.minThreads > o.threads) {
    throw new RangeError(`CryptoPool option "minThreads" expected at most threads (${o.threads}), got ${o.minThreads}`);
  }
}

export class CryptoPool extends BatchCrypto {
  readonly opts: Readonly<CryptoPoolOptions>;
  private readonly piscina: Piscina<Uint8Array, Uint8Array>;
  private readonly metrics: PoolMetrics | null;
  private readonly log: PoolLog | null;
  private closing: Promise<void> | null = null;

  constructor(opts: Partial<CryptoPoolOptions>, modules: CryptoPoolModules) {
    super();
    const threads = opts.threads ?? DEFAULTS.threads;
    this.opts = { ...DEFAULTS, minThreads: threads, ...opts, threads };
    checkOptions(this.opts);
    this.metrics = modules.metrics;
    this.log = modules.log;
    this.piscina = new Piscina({
      filename: this.opts.filename,
      minThreads: this.opts.minThreads,
      maxThreads: this.opts.threads,
      idleTimeout: this.opts.idleTimeout,
      closeTimeout: this.opts.closeTimeout,
      // The bound is enforced in submit(), before Piscina sees the task, so the refusal is a
      // coded PoolError and not Piscina's message.
      maxQueue: Infinity,
      execArgv: ['--import', TSX_HOOKS],
      resourceLimits: { maxOldGenerationSizeMb: this.opts.workerHeapMb },
    });
    // Without a listener, Piscina's 'error' event (a worker dying while idle, a close timeout)
    // would be thrown by EventEmitter and take down the server.
    this.piscina.on('error', (err: unknown) => {
      this.log?.warn({ err }, 'crypto pool: worker error outside a task');
    });
  }

  /**
   * False once the queue is full or the pool is closed: callers (routes, the batcher) answer 503
   * rather than submit. Built on Piscina's queueSize, which counts batches no worker has taken.
   */
  canAcceptWork(): boolean {
    return this.closing === null && this.piscina.queueSize < this.opts.maxQueue;
  }

  /** Batches waiting for a worker. */
  get queueSize(): number {
    return this.piscina.queueSize;
  }

  /** Worker threads alive now. */
  get threadCount(): number {
    return this.piscina.threads.length;
  }

  /**
   * Refuses new work at once, rejects queued batches with POOL_CLOSED, lets running ones finish
   * for up to `closeTimeout` ms (then they reject with POOL_CLOSED too), and ends every worker.
   * Idempotent. Afterwards the pool holds no handle that keeps the process alive.
   */
  close(): Promise<void> {
    this.closing ??= this.piscina.close({ force: true });
    return this.closing;
  }

  /**
   * Runs one task, retrying once on a fresh worker if its worker died. A scan whose `signal`
   * aborts while it runs ends its worker (Piscina replaces it): the scan is one synchronous loop
   * with nowhere to check a flag.
   */
  protected async submit(task: TaskName, encode: () => Uint8Array, signal?: AbortSignal): Promise<Uint8Array> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      this.admit(task);
      const bytes = encode();
      const running = this.piscina.run(Piscina.move(bytes) as Uint8Array, { name: task, signal: signal ?? null });
      this.metrics?.queueDepth(this.piscina.queueSize);
      try {
        const reply = await running;
        this.metrics?.taskTime(task, performance.now() - started);
        return reply;
      } catch (err) {
        if (this.closing !== null) throw new PoolError('POOL_CLOSED', `crypto pool closed before ${task} finished`, { cause: err });
        if (signal?.aborted) throw err;
        if (!isWorkerDeath(err)) {
          throw new PoolError('POOL_TASK_FAILED', `crypto task ${task} failed: ${(err as Error)?.message}`, { cause: err });
        }
        this.metrics?.workerDied(task);
        if (attempt >= MAX_ATTEMPTS) {
          throw new PoolError('POOL_WORKER_DIED', `crypto worker died twice running ${task}; gave up`, { cause: err });
        }
        this.log?.warn({ task, err: (err as Error).message }, 'crypto pool: worker died, retrying the batch once');
      }
    }
  }

  private admit(task: TaskName): void {
    if (this.closing !== null) throw new PoolError('POOL_CLOSED', 'crypto pool is closed');
    if (this.piscina.queueSize >= this.opts.maxQueue) {
      this.metrics?.rejected(task);
      throw new PoolError(
        'POOL_BUSY',
        `crypto pool busy: ${this.piscina.queueSize} batches queued (maxQueue ${this.opts.maxQueue})`,
      );
    }
  }
}
