/**
 * The block-producer lease: of all server processes sharing a store, exactly one holds it at a
 * time, and only that one builds the published block templates and runs the built-in miner.
 *
 * The lease is one store key with a TTL, holding the holder's process id and an epoch drawn from
 * a counter that only grows. The holder renews it with a guarded commit every `renewEveryMs`; a
 * process that dies or stalls stops renewing, the key expires, and another process takes it
 * with a new epoch.
 *
 * Expiry alone cannot stop a holder that was paused (GC, SIGSTOP, a slow disk) past its TTL and
 * wakes up believing it still leads. So the lease is also a fencing token: every chain write the
 * producer makes carries `fence()`, a commit guard that the lease key still holds this exact
 * record. The store checks it in the same atomic step as the write, so a stale holder's write is
 * refused even if it has not noticed yet, and a holder that lost and retook the lease cannot
 * finish work of its earlier term (the epoch differs).
 * @module
 */
import type { Logger } from 'pino';
import type { Guard, Store } from '../store/types.js';

export const LEASE_KEY = 'node:producer:lease';
/** Counter behind the epochs (never reset; a new holder's epoch is above every earlier one). */
export const EPOCH_KEY = 'node:producer:epoch';

/** The lease key's value. */
export interface LeaseRecord {
  ProcessId: string;
  Epoch: number;
}

export interface ProducerLeaseOptions {
  store: Store;
  processId: string;
  log: Logger;
  /** How long the lease outlives its holder's last renewal. @default 3000 */
  ttlMs?: number;
  /** How often the holder renews and the others try to take it. @default ttlMs / 3 */
  renewEveryMs?: number;
  /** Milliseconds clock (tests inject one). @default performance.now */
  now?: () => number;
}

type Listener = (leading: boolean) => void;

export class ProducerLease {
  private readonly ttlMs: number;
  private readonly renewEveryMs: number;
  private readonly now: () => number;
  private held: LeaseRecord | null = null;
  /** Local end of the term: the last successful renewal's start plus the TTL. */
  private validUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly listeners: Listener[] = [];
  /** Whether listeners were last told "leading" (they hear each change once). */
  private announced = false;

  constructor(private readonly opts: ProducerLeaseOptions) {
    this.ttlMs = opts.ttlMs ?? 3000;
    this.renewEveryMs = opts.renewEveryMs ?? Math.max(50, Math.floor(this.ttlMs / 3));
    if (this.renewEveryMs >= this.ttlMs) throw new RangeError('ProducerLease: renewEveryMs must be below ttlMs');
    this.now = opts.now ?? (() => performance.now());
  }

  /** Takes part in the election: tries at once, then every `renewEveryMs`. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.renewEveryMs);
    this.timer.unref();
  }

  /** Stops renewing and, if held, gives the lease up at once so another process takes over now. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    const held = this.held;
    this.held = null;
    this.announce();
    if (held) {
      await this.opts.store.commit([{ op: 'del', key: LEASE_KEY }], [{ key: LEASE_KEY, equals: held }]).catch(() => false);
    }
  }

  /** Called with `true` when this process becomes the producer and `false` when it stops being it. */
  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Whether this process holds the lease (as far as it can tell; the fence decides writes). */
  get leading(): boolean {
    return this.held !== null && this.now() < this.validUntil;
  }

  /** This process's term, or null when it does not lead. */
  get term(): LeaseRecord | null {
    return this.leading ? { ...this.held! } : null;
  }

  /**
   * The commit guard that makes a write conditional on this process still holding the lease of
   * this term; null when it does not lead (then it must not write as the producer at all).
   */
  fence(): Guard | null {
    return this.leading ? { key: LEASE_KEY, equals: { ...this.held! } } : null;
  }

  /** The current holder as the store has it (any process may ask). */
  holder(): Promise<LeaseRecord | undefined> {
    return this.opts.store.get<LeaseRecord>(LEASE_KEY);
  }

  /** One renewal or take-over attempt (exposed for tests; the timer calls it). */
  tick(): Promise<void> {
    this.ticking = this.ticking.then(() => this.attempt());
    return this.ticking;
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    const { store, log } = this.opts;
    const startedAt = this.now();
    try {
      if (this.held) {
        const renewed = await store.commit(
          [{ op: 'set', key: LEASE_KEY, value: this.held, ttlMs: this.ttlMs }],
          [{ key: LEASE_KEY, equals: this.held }],
        );
        if (renewed) {
          // The key was set at or after startedAt, so it lives at least until then + TTL.
          this.validUntil = startedAt + this.ttlMs;
        } else {
          log.warn({ epoch: this.held.Epoch }, 'block producer: lease lost');
          this.held = null;
        }
      } else if ((await store.get(LEASE_KEY)) === undefined) {
        // The epoch is drawn before the take: a lost race only skips a number.
        const record: LeaseRecord = { ProcessId: this.opts.processId, Epoch: await store.incr(EPOCH_KEY) };
        if (await store.commit([{ op: 'set', key: LEASE_KEY, value: record, ttlMs: this.ttlMs }], [{ key: LEASE_KEY, equals: undefined }])) {
          this.held = record;
          this.validUntil = startedAt + this.ttlMs;
          log.info({ epoch: record.Epoch }, 'block producer: this process leads');
        }
      }
    } catch (err) {
      // Store unreachable: keep the term until it runs out locally; the fence guards writes anyway.
      log.warn({ msg: (err as Error).message }, 'block producer: lease renewal failed');
      if (this.held && this.now() >= this.validUntil) {
        log.warn({ epoch: this.held.Epoch }, 'block producer: lease expired while the store was unreachable');
        this.held = null;
      }
    }
    this.announce();
  }

  private announce(): void {
    const leading = this.leading;
    if (leading === this.announced) return;
    this.announced = leading;
    for (const l of this.listeners) {
      try {
        l(leading);
      } catch (err) {
        this.opts.log.error({ msg: (err as Error).message }, 'block producer: a lease listener failed');
      }
    }
  }
}
