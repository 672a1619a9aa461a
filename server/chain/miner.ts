/**
 * The node's own CPU miner (`--miner auto`): mines a block shortly after the mempool gets a
 * transaction, and otherwise every `--block-interval-seconds` if set, so a fresh dev chain
 * confirms transactions by itself while an idle node's template stays stable for outside
 * miners. The proof-of-work scan runs in the crypto pool (DeSoHashV1 in WASM), in slices, so a
 * new tip from elsewhere aborts a stale attempt quickly.
 *
 * Operators steer it at run time (admin/node-control `update_miner`): `setRewardKeys` pays
 * the blocks to other keys (in turn, one key per block, like the reference miner's list) and
 * `pause`/`resume` stop and restart mining. `stop` is the final shutdown.
 * @module
 */
import type { Logger } from 'pino';
import type { CryptoService } from '../crypto/service.js';
import type { Guard, Store, Unsubscribe } from '../store/types.js';
import { HEADER_OFFSETS } from './block/header.js';
import { secondsPastFutureLimit } from './block/params.js';
import { CHANNEL_MEMPOOL, CHANNEL_TIP, FencedError, type Chain } from './chain.js';
import { randomU64 } from './random.js';
import { DomainError } from '../errors.js';

/**
 * Nonces per pool task (~20 ms of WASM hashing here): small enough that a stale attempt stops
 * within milliseconds, and each slice after the first mines the current template, so the
 * shorter the slice, the less of the mempool a block leaves behind to connect again. Measured
 * (1,000-profile write probe at 32 in flight, three interleaved rounds): 25,000 gave 1,087 tx/s
 * and p99 93-104 ms where 50,000 gave 1,003 tx/s and p99 96-116 ms, at less CPU per write.
 */
const NONCES_PER_SLICE = 25_000;
/** Wait after a mempool event before mining, so a burst of transactions lands in one block. */
const BATCH_DELAY_MS = 20;
/**
 * Least time from one block of this miner to its next. An idle chain still confirms a
 * transaction within BATCH_DELAY_MS; under a steady stream of writes, blocks come at most this
 * often instead of one per admission (each block replays what is left of the mempool on the new
 * tip, and every process drops the cached reads of the keys it wrote). Shorter spacing means
 * smaller blocks and shorter pauses for the admissions a block overtakes: at 2,000 writes a
 * second, 100 ms gave p99 submit-to-visible ~70 ms where 250 ms gave ~90 ms (bench/scale); with
 * the dev chain's proof of work at ~7,300 hashes, 50 ms gave p99 33-34 ms where 100 ms gave
 * 42-46 ms at the same ~3,000 writes a second (3,000-profile probe, two interleaved rounds);
 * on a slower Intel Xeon, 35 ms gave p99 45.1 / 45.8 / 46.8 / 52.6 ms where 50 ms gave 53.4 /
 * 54.5 / 49.9 / 55.0 in the neighbouring runs, at the same ~1,900-2,300 writes a second and CPU
 * per write (bench:scale at 3,000 profiles, 40 s sustained at 32 in flight, four interleaved pairs).
 */
const MIN_BLOCK_SPACING_MS = 35;
/** How long to wait before asking an unreachable store again. */
const STORE_RETRY_MS = 1000;
/**
 * After a failed attempt the next waits this long, doubled for each failure in a row up to
 * MAX_FAILURE_BACKOFF_MS, whatever mempool events come meanwhile: a failure that repeats (a
 * block the chain refuses, a template that cannot be built) must not become a loop of attempts.
 */
const FAILURE_BACKOFF_MS = 100;
const MAX_FAILURE_BACKOFF_MS = 5_000;

export interface AutoMinerOptions {
  chain: Chain;
  crypto: CryptoService;
  store: Store;
  /** Receives the block rewards (until `setRewardKeys`). */
  rewardPublicKey: Uint8Array;
  /** Mine an empty block this often; 0 = only when the mempool holds transactions. */
  blockIntervalSeconds: number;
  log: Logger;
  /**
   * The block producer's lease guard (ProducerLease.fence); null while this process does not
   * lead. Each block is written under the guard of the term it was started in, so a miner
   * that lost the lease (or was paused past it) never writes. @default no fence (tests)
   */
  fence?: () => Guard | null;
}

/** The miner was asked to resume after `stop()`: the node is shutting down (503, retry on another process). */
export class MinerShutDownError extends DomainError {
  override readonly name = 'MinerShutDownError';
  constructor() {
    super('MINER_SHUT_DOWN', 'unavailable', 'the node is shutting down');
  }
}

export class AutoMiner {
  private running = false;
  private wanted = false;
  /** Not mining: paused, or shut down. */
  private stopped = true;
  /** `stop()` was called: the miner never starts again. */
  private closed = false;
  private tipChanged = false;
  private timer: NodeJS.Timeout | null = null;
  /** Set while an attempt waits (the store unreadable, a failure's back-off, the clock behind the chain); fires it. */
  private retryTimer: NodeJS.Timeout | null = null;
  private interval: NodeJS.Timeout | null = null;
  private unsubscribes: Unsubscribe[] = [];
  private current: Promise<void> = Promise.resolve();
  /** start/pause/resume/stop, one at a time. */
  private control: Promise<void> = Promise.resolve();
  private rewardKeys: Uint8Array[];
  /** Blocks attempted, to take the reward keys in turn. */
  private attempts = 0;
  private lastBlockAt = -Infinity;
  /** No attempt before this (performance.now() ms): a failure's back-off, or the clock's wait. */
  private notBefore = 0;
  /** Attempts that failed in a row. */
  private failures = 0;
  /** Blocks this miner connected (for status, metrics and tests). */
  blocksMined = 0;
  /** Attempts that failed, in all (for metrics and tests). */
  failedAttempts = 0;

  constructor(private readonly opts: AutoMinerOptions) {
    this.rewardKeys = [opts.rewardPublicKey];
  }

  /** Starts mining (a no-op while already mining). */
  start(): Promise<void> {
    return this.serially(() => this.subscribe());
  }

  /** Stops mining for good (shutdown); waits for an attempt in progress. */
  stop(): Promise<void> {
    this.closed = true;
    return this.serially(() => this.unsubscribe());
  }

  /** Stops mining until `resume`; waits for an attempt in progress. */
  pause(): Promise<void> {
    return this.serially(() => this.unsubscribe());
  }

  /**
   * Mines again (a no-op while mining).
   * @throws {MinerShutDownError} after `stop()`
   */
  resume(): Promise<void> {
    return this.serially(async () => {
      if (this.closed) throw new MinerShutDownError();
      await this.subscribe();
    });
  }

  /**
   * Mines soon if transactions wait (a no-op while paused): the block producer calls it when
   * it (re)gains the lease, since an attempt may have stopped for lack of it meanwhile.
   */
  async poke(): Promise<void> {
    if (!this.stopped && (await this.mempoolWaiting())) this.schedule();
  }

  /** Pays the next blocks to these keys, one key per block in turn (at least one key). */
  setRewardKeys(keys: readonly Uint8Array[]): void {
    if (keys.length === 0) throw new RangeError('setRewardKeys: at least one reward key; pause() stops mining');
    this.rewardKeys = keys.map((k) => new Uint8Array(k));
  }

  /** The keys the blocks are paid to. */
  get rewardPublicKeys(): Uint8Array[] {
    return this.rewardKeys.map((k) => new Uint8Array(k));
  }

  /** Whether the miner is on (started and not paused or stopped). */
  get active(): boolean {
    return !this.stopped;
  }

  private serially(step: () => Promise<void>): Promise<void> {
    const next = this.control.then(step);
    this.control = next.catch(() => undefined);
    return next;
  }

  private async subscribe(): Promise<void> {
    if (this.closed || !this.stopped) return;
    this.stopped = false;
    const { store } = this.opts;
    this.unsubscribes.push(await store.subscribe(CHANNEL_MEMPOOL, () => this.schedule()));
    this.unsubscribes.push(
      await store.subscribe(CHANNEL_TIP, () => {
        this.tipChanged = true;
      }),
    );
    if (this.opts.blockIntervalSeconds > 0) {
      this.interval = setInterval(() => this.request(), this.opts.blockIntervalSeconds * 1000);
      this.interval.unref();
    }
    if ((await this.opts.chain.mempoolSize()) > 0) this.schedule();
  }

  private async unsubscribe(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.interval) clearInterval(this.interval);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.timer = null;
    this.interval = null;
    const unsubscribes = this.unsubscribes;
    this.unsubscribes = [];
    await Promise.all(unsubscribes.map((u) => u().catch(() => undefined)));
    await this.current;
  }

  get isMining(): boolean {
    return this.running;
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.request();
    }, BATCH_DELAY_MS);
    this.timer.unref();
  }

  private request(): void {
    if (this.stopped) return;
    this.wanted = true;
    if (!this.running) this.current = this.loop();
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.wanted && !this.stopped) {
        this.wanted = false;
        const deferred = this.notBefore - performance.now();
        if (deferred > 0) {
          this.retryAfter(deferred);
          break;
        }
        const wait = this.lastBlockAt + MIN_BLOCK_SPACING_MS - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (this.stopped) break;
        try {
          // Not the producer (any more): the lease listener pauses this miner; until then, idle.
          if (!(await this.mineOne())) break;
          this.failures = 0;
        } catch (err) {
          this.failures++;
          this.failedAttempts++;
          const backoffMs = Math.min(FAILURE_BACKOFF_MS * 2 ** (this.failures - 1), MAX_FAILURE_BACKOFF_MS);
          this.opts.log.warn({ err: (err as Error).message, failuresInARow: this.failures, retryInMs: backoffMs }, 'miner: attempt failed; retrying after a pause');
          this.deferFor(backoffMs);
        }
        // Transactions that arrived while mining go into the next block.
        if (!this.stopped && (await this.mempoolWaiting())) this.wanted = true;
      }
    } finally {
      this.running = false;
    }
  }

  /** No attempt for `ms`, then one. */
  private deferFor(ms: number): void {
    this.notBefore = Math.max(this.notBefore, performance.now() + ms);
    this.retryAfter(ms);
  }

  /** A new attempt after `ms` (one pending at a time). */
  private retryAfter(ms: number): void {
    if (this.stopped || this.retryTimer !== null) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.request();
    }, ms);
    this.retryTimer.unref();
  }

  /**
   * Whether transactions wait. If the store cannot say (Redis down), look again in a second:
   * transactions admitted before the outage must still be mined after it, even if no new
   * mempool event comes.
   */
  private async mempoolWaiting(): Promise<boolean> {
    try {
      return (await this.opts.chain.mempoolSize()) > 0;
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'miner: cannot read the mempool; retrying in 1 s');
      this.retryAfter(STORE_RETRY_MS);
      return false;
    }
  }

  /** One block attempt; false when this process may not produce blocks (no lease) or must wait for the clock. */
  private async mineOne(): Promise<boolean> {
    const { chain, crypto, log } = this.opts;
    const fence = this.opts.fence?.();
    if (fence === null) return false;
    const rewardPublicKey = this.rewardKeys[this.attempts++ % this.rewardKeys.length]!;
    let t = await chain.blockTemplate(rewardPublicKey, 1);
    let header = t.headers[0]!;
    const tstamp = new DataView(header.buffer, header.byteOffset).getBigUint64(HEADER_OFFSETS.tstampSecs);
    const early = Number(secondsPastFutureLimit(chain.params, tstamp, chain.now()));
    if (early > 0) {
      // Refused as too far in the future until the clock catches up (a clock set back, or a
      // chain whose timestamps ran ahead): wait for it rather than mine blocks that cannot connect.
      log.warn({ waitSecs: early, maxTimestampFutureSecs: Number(chain.params.maxTimestampFutureSecs) }, 'miner: the next block\'s timestamp is too far past the clock; waiting for the clock');
      this.deferFor(early * 1000);
      return false;
    }
    this.tipChanged = false;
    let start = randomU64();
    for (let slice = 0; ; slice++) {
      if (this.stopped || this.tipChanged || this.opts.fence?.() === null) return true;
      if (slice > 0) {
        // Each slice is a fresh draw (proof of work has no memory), so it may as well mine
        // the mempool as it is now: the block then leaves fewer transactions to connect again
        // on the new tip, where a template kept for the whole search left everything admitted
        // meanwhile (half of all writes at 1,000 tx/s).
        const fresh = await chain.blockTemplate(rewardPublicKey, 1);
        if (this.tipChanged) return true;
        if (fresh.blockId !== t.blockId) [t, header] = [fresh, fresh.headers[0]!];
      }
      const r = await crypto.mine({ header, startNonce: start, count: NONCES_PER_SLICE, target: t.target });
      if (r.found) {
        new DataView(header.buffer, header.byteOffset).setBigUint64(HEADER_OFFSETS.nonce, r.nonce);
        let result;
        try {
          result = await chain.submitBlock(rewardPublicKey, header, t.extraNonces[0]!, t.blockId, fence ? { fence } : {});
        } catch (err) {
          if (!(err instanceof FencedError)) throw err;
          log.info({ height: Number(t.height) }, 'miner: lease lost before the block was written; block dropped');
          return false;
        }
        if (result.isMainChain) {
          this.lastBlockAt = performance.now();
          this.blocksMined++;
          log.debug({ height: Number(t.height), txns: t.stats.TxnCount }, 'miner: block mined');
        }
        return true;
      }
      start = (start + BigInt(NONCES_PER_SLICE)) & 0xffff_ffff_ffff_ffffn;
    }
  }
}
