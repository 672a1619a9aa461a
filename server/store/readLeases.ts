/**
 * Read leases: how every RedisStore sharing one Redis (and key prefix) learns of each other's
 * commits quickly enough that a watched read (watchedRead.ts) may answer from memory, and yet
 * no process ever answers what was true before a commit that has already been acknowledged
 * anywhere.
 *
 * - **Holding a lease.** A process with watched reads renews every LEASE_MS / 4 with one
 *   script: add itself to the holders set, and publish a ping on the notices channel. When
 *   its own ping comes back on its subscription, it trusts its remembered values until
 *   LEASE_MS after it sent that renewal.
 * - **Committing.** The commit script publishes a notice in the same atomic step as its
 *   writes, and returns the holders. Before `commit` resolves, the writer waits until every
 *   other holder has acknowledged the notice, or LEASE_MS for those that do not (it then
 *   removes them from the set; a live one adds itself again with its next renewal).
 * - **Hearing a notice:** bump the epoch (every remembered value is forgotten), then
 *   acknowledge. A lost subscription bumps the epoch too and ends the trust.
 *
 * Why a read never misses an acknowledged commit C: let process P answer a remembered value
 * after C's `commit` resolved. P trusted, so its last echoed renewal R was sent less than
 * LEASE_MS ago. If R ran before C's script, P was in the holders C saw: either P acknowledged,
 * having bumped its epoch first (the value would be forgotten), or C's writer waited LEASE_MS
 * after C ran, past the end of P's trust. If R ran after C's script, P's subscription carried
 * C's notice before R's ping, unless it was lost in between, which bumps the epoch as well.
 * Either way the remembered value is forgotten or untrusted. (The value itself was read after
 * the epoch it is remembered in began, and no notice arrived during the read.)
 *
 * The bound relies on the processes' clocks running at the same rate over LEASE_MS, not on
 * their agreeing on the time. A commit whose outcome is unknown (its connection dropped) may
 * still have run: its notice went out with it, and holders that missed it stop trusting
 * within LEASE_MS.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ChangeEpoch } from './watchedRead.js';

/** How long a renewal's trust lasts; also the longest a commit waits for a silent holder. */
export const LEASE_MS = 1000;

/** Channel and key names, under the store's key prefix. */
export const LEASE_NAMES = {
  notices: 'leases:notices',
  holders: 'leases:holders',
  ack: (holder: string) => `leases:ack:${holder}`,
} as const;

/** What the leases need from the Redis connections (RedisStore provides it). */
export interface LeaseIo {
  /** Adds `holder` to the holders set and publishes `ping` on the notices channel, atomically. */
  renew(holder: string, ping: string): Promise<void>;
  /** Publishes `message` on a channel. */
  publish(channel: string, message: string): Promise<void>;
  /** Removes holders that did not acknowledge a notice. */
  drop(holders: readonly string[]): Promise<void>;
  /** Subscribes the subscriber connection to `channel`, delivering each message as a string. */
  listen(channel: string, onMessage: (message: string) => void): Promise<void>;
  /** Whether Redis is connected now (while it is not, nothing waits on a subscription). */
  connected(): boolean;
}

interface AckWait {
  acked: Set<string>;
  /** Set once the commit returned its holders: those still to acknowledge. */
  pending: Set<string> | null;
  done: (() => void) | null;
}

export class ReadLeases implements ChangeEpoch {
  readonly id = randomBytes(8).toString('hex');
  epoch = 0;
  private trustedUntil = 0;
  /** Send times of renewals whose ping has not come back yet. */
  private readonly renewals = new Map<number, number>();
  private renewalCount = 0;
  private noticeCount = 0;
  private readonly waits = new Map<string, AckWait>();
  private listening: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly io: LeaseIo,
    private readonly leaseMs = LEASE_MS,
  ) {}

  /** Whether this process has started holding a lease (it is in the holders set, or was). */
  get holding(): boolean {
    return this.timer !== undefined;
  }

  trusted(): boolean {
    return performance.now() < this.trustedUntil;
  }

  /** Starts holding a lease (once): renewing in the background for as long as the store is open. */
  watching(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.round(this.leaseMs / 4)));
    this.timer.unref();
    void this.renew();
  }

  /** The subscriber connection closed: notices may have been missed while it was away. */
  subscriptionLost(): void {
    this.epoch++;
    this.trustedUntil = 0;
  }

  /**
   * Before a commit: the notice it should publish. Makes sure acknowledgements can be heard,
   * waiting at most `maxWaitMs` for that (if it fails, the commit still goes ahead; its wait
   * then runs the full LEASE_MS).
   */
  async prepareNotice(maxWaitMs = Infinity): Promise<{ notice: string; id: string }> {
    const listening = this.listen().catch(() => undefined);
    if (this.io.connected()) {
      let timer: NodeJS.Timeout | undefined;
      const waited = Number.isFinite(maxWaitMs) ? new Promise<void>((r) => (timer = setTimeout(r, maxWaitMs))) : listening;
      await Promise.race([listening, waited]);
      clearTimeout(timer);
    }
    const id = String(++this.noticeCount);
    this.waits.set(id, { acked: new Set(), pending: null, done: null });
    return { notice: `n ${this.id} ${id}`, id };
  }

  /**
   * After the commit script ran (`holders` as it returned them): forget this process's
   * remembered values, then wait until every other holder has heard the notice or can no
   * longer trust what it remembers. `holders` null: the commit failed, and may have run
   * unseen (a reply that never came); then waits `unknownOutcomeWaitMs` (up to a lease).
   */
  async committed(id: string, holders: readonly string[] | null, unknownOutcomeWaitMs = 0): Promise<void> {
    this.epoch++;
    const wait = this.waits.get(id);
    if (wait === undefined) return;
    if (holders === null) {
      this.waits.delete(id);
      if (unknownOutcomeWaitMs > 0 && !this.closed) await new Promise((r) => setTimeout(r, Math.min(unknownOutcomeWaitMs, this.leaseMs)));
      return;
    }
    const others = holders.filter((h) => h !== this.id && !wait.acked.has(h));
    if (others.length === 0 || this.closed) {
      this.waits.delete(id);
      return;
    }
    const pending = new Set(others);
    wait.pending = pending;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, this.leaseMs);
      function finish(): void {
        clearTimeout(timer);
        resolve();
      }
      wait.done = finish;
    });
    this.waits.delete(id);
    if (pending.size > 0 && !this.closed) await this.io.drop([...pending]).catch(() => undefined);
  }

  /** Stops renewing and lets waiting commits go (the store is closing). */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.trustedUntil = 0;
    for (const wait of this.waits.values()) wait.done?.();
  }

  private listen(): Promise<void> {
    this.listening ??= Promise.all([
      this.io.listen(LEASE_NAMES.notices, (m) => this.onNotice(m)),
      this.io.listen(LEASE_NAMES.ack(this.id), (m) => this.onAck(m)),
    ]).then(
      () => undefined,
      (err: unknown) => {
        this.listening = null; // the next renewal or commit tries again
        throw err;
      },
    );
    return this.listening;
  }

  private async renew(): Promise<void> {
    if (this.closed) return;
    const now = performance.now();
    // Renewals whose ping never came back (a lost connection) are of no use past a lease.
    for (const [n, sentAt] of this.renewals) if (now - sentAt > this.leaseMs) this.renewals.delete(n);
    try {
      await this.listen();
      const n = ++this.renewalCount;
      this.renewals.set(n, performance.now());
      await this.io.renew(this.id, `p ${this.id} ${n}`);
    } catch {
      // Redis away: the trust runs out by itself, and reads go to Redis (and fail there).
    }
  }

  private onNotice(message: string): void {
    const [kind, from, n] = message.split(' ');
    if (kind === 'n') {
      // An own commit's notice: `committed` bumped the epoch already, after the reply, which
      // came on the connection every read takes too, so after any read the script preceded.
      if (from === this.id || from === undefined) return;
      this.epoch++;
      if (!this.closed) void this.io.publish(LEASE_NAMES.ack(from), `${n} ${this.id}`).catch(() => undefined);
    } else if (kind === 'p' && from === this.id) {
      const sentAt = this.renewals.get(Number(n));
      if (sentAt === undefined) return;
      for (const k of this.renewals.keys()) if (k <= Number(n)) this.renewals.delete(k);
      this.trustedUntil = Math.max(this.trustedUntil, sentAt + this.leaseMs);
    }
  }

  private onAck(message: string): void {
    const [id, holder] = message.split(' ');
    const wait = this.waits.get(id ?? '');
    if (wait === undefined || holder === undefined) return;
    wait.acked.add(holder);
    if (wait.pending === null) return;
    wait.pending.delete(holder);
    if (wait.pending.size === 0) wait.done?.();
  }
}
