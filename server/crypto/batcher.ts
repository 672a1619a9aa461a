/**
 * Micro-batching of single-item requests. Many HTTP requests each needing one signature check
 * arrive within the same few milliseconds; sending each to the pool alone pays a thread
 * round trip per item, so items are collected and sent as one batch, and each caller gets
 * back only its own item's result.
 * @module
 */
import type { WorkResult } from '../../workers/types.js';
import type { VerifyItem } from './pack.js';

/**
 * Items per batch at most; a full batch is sent at once. 64 verifications are ~9 ms of work
 * (0.14 ms each), so no item waits behind more than that inside its own batch, while the
 * ~0.2 ms thread round trip is amortised to ~2%.
 *
 * Measured (bench/pool.bench.ts, 2026-11-22, 2 vCPU, pool of 2, open-loop single-item
 * verifications, median of 3): unbatched (1 item per task) tops out at 4,000-4,900/s and
 * already sheds load with POOL_BUSY at 3,000/s offered. Batched, the pool sustains the
 * offered 10,600/s at 70% load, and at 2x overload caps of 32, 64 and 256 reach
 * 11,570-11,740/s against 10,840/s for 16. 64 ≈ 256 in throughput, but a 256-item batch holds
 * its first item for ~36 ms.
 */
export const MAX_BATCH_ITEMS = 64;

/**
 * Milliseconds the first item of a batch waits for company before the batch is sent; 0 sends
 * at setImmediate, with everything that arrived in the same event-loop turn, and adds no timer
 * delay. Batches then grow with load by themselves (mean 4 items at 3,000/s, 12 at 10,600/s,
 * 24 at 21,100/s in the bench above).
 *
 * Measured, same run: at 20% load p50 is 0.85-1.04 ms with 0, 2.0-2.3 ms with 1, 3.4 ms with
 * 2 and 6.9 ms with 5; at 70% load 0 keeps p50 at 2.6-2.8 ms (caps 32-256) against 4.2-5.4,
 * 7.1 and 12.7 ms, at the same throughput. Under 2x overload no wait raised throughput
 * reliably (64/2 gave anywhere from 3,500 to 15,300/s over four runs on this shared machine),
 * and 5 ms doubled p99 (678 ms against 251 ms).
 */
export const MAX_WAIT_MS = 0;

/**
 * Batches of one batcher the node lets run at once, per pool thread (BatchingCrypto's
 * `maxInFlight` is this times the thread count). While that many run, new items wait for one
 * to finish and then go together: when verifications arrive faster than the pool finishes
 * them, batches grow toward MAX_BATCH_ITEMS instead of the pool's queue filling with 1-3-item
 * tasks, each paying ~0.25 ms of thread round trip (measured 2026-11-26 on this 2-core machine: 370 µs
 * of process CPU per single-item task, 95 µs an item in 64-item ones). Below that rate a batch
 * is seldom waited for, and an item leaves at once as before. Two per thread keep each
 * worker's next batch queued while it runs one.
 */
export const IN_FLIGHT_PER_THREAD = 2;

export interface BatcherOptions {
  /** @default MAX_BATCH_ITEMS */
  maxItems: number;
  /** 0 sends at setImmediate: everything that arrived in the same event-loop turn. @default MAX_WAIT_MS */
  maxWaitMs: number;
  /**
   * Batches running at once at most; items arriving meanwhile wait for one to finish.
   * @default Infinity (every batch is sent when it forms)
   */
  maxInFlight: number;
}

/** Runs one batch; must return exactly one result per item, in order. */
export type BatchRunner<I, O> = (items: I[]) => Promise<WorkResult<O>[]>;

interface Waiter<O> {
  resolve(r: WorkResult<O>): void;
  reject(err: unknown): void;
}

export class MicroBatcher<I, O> {
  private readonly opts: BatcherOptions;
  private items: I[] = [];
  private waiters: Waiter<O>[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private running = 0;

  constructor(
    private readonly run: BatchRunner<I, O>,
    opts: Partial<BatcherOptions> = {},
  ) {
    this.opts = { maxItems: MAX_BATCH_ITEMS, maxWaitMs: MAX_WAIT_MS, maxInFlight: Infinity, ...opts };
    if (!Number.isInteger(this.opts.maxItems) || this.opts.maxItems < 1) {
      throw new RangeError(`MicroBatcher option "maxItems" expected an integer >= 1, got ${this.opts.maxItems}`);
    }
    if (!Number.isFinite(this.opts.maxWaitMs) || this.opts.maxWaitMs < 0) {
      throw new RangeError(`MicroBatcher option "maxWaitMs" expected a number >= 0, got ${this.opts.maxWaitMs}`);
    }
    if (!(this.opts.maxInFlight === Infinity || (Number.isInteger(this.opts.maxInFlight) && this.opts.maxInFlight >= 1))) {
      throw new RangeError(`MicroBatcher option "maxInFlight" expected an integer >= 1 or Infinity, got ${this.opts.maxInFlight}`);
    }
  }

  /**
   * This item's result. Rejects only when its whole batch fails (e.g. POOL_BUSY): an error in
   * another item of the batch never reaches this caller.
   */
  submit(item: I): Promise<WorkResult<O>> {
    return new Promise<WorkResult<O>>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= this.opts.maxItems) this.flush();
      else if (this.timer === null && this.running < this.opts.maxInFlight) this.timer = this.schedule();
    });
  }

  /** Items waiting for the next batch. */
  get pending(): number {
    return this.items.length;
  }

  /** Batches running now. */
  get inFlight(): number {
    return this.running;
  }

  /**
   * Sends what is waiting, in batches of at most `maxItems`, as far as `maxInFlight` allows;
   * the rest goes when a running batch finishes. `force` sends everything now (shutdown).
   */
  flush(force = false): void {
    this.cancelTimer();
    while (this.items.length > 0 && (force || this.running < this.opts.maxInFlight)) {
      this.send(this.items.splice(0, this.opts.maxItems), this.waiters.splice(0, this.opts.maxItems));
    }
  }

  private send(items: I[], waiters: Waiter<O>[]): void {
    this.running++;
    let running: Promise<WorkResult<O>[]>;
    try {
      running = this.run(items);
    } catch (err) {
      running = Promise.reject(err);
    }
    running
      .then(
        (results) => {
          if (results.length !== waiters.length) {
            const err = new RangeError(`batch runner expected ${waiters.length} results, got ${results.length}`);
            for (const w of waiters) w.reject(err);
            return;
          }
          for (let i = 0; i < waiters.length; i++) waiters[i]!.resolve(results[i]!);
        },
        (err: unknown) => {
          for (const w of waiters) w.reject(err);
        },
      )
      .finally(() => {
        this.running--;
        // What waited for room goes now, together.
        if (this.items.length > 0) this.flush();
      });
  }

  private schedule(): NodeJS.Timeout | NodeJS.Immediate {
    const fire = (): void => {
      this.timer = null;
      this.flush();
    };
    return this.opts.maxWaitMs === 0 ? setImmediate(fire) : setTimeout(fire, this.opts.maxWaitMs);
  }

  private cancelTimer(): void {
    if (this.timer === null) return;
    if (this.opts.maxWaitMs === 0) clearImmediate(this.timer as NodeJS.Immediate);
    else clearTimeout(this.timer as NodeJS.Timeout);
    this.timer = null;
  }
}

/** The pool method a verify batcher needs (CryptoPool satisfies it). */
export interface SignatureVerifier {
  verifySignatures(items: readonly VerifyItem[]): Promise<WorkResult<boolean>[]>;
}

/** Collects concurrent single verifications from any number of requests into pool batches. */
export function createVerifyBatcher(
  pool: SignatureVerifier,
  opts: Partial<BatcherOptions> = {},
): MicroBatcher<VerifyItem, boolean> {
  return new MicroBatcher((items) => pool.verifySignatures(items), opts);
}
