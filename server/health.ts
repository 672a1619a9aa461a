import type { Logger } from 'pino';
import type { Store } from './store/types.js';
import { withTimeout } from './timeout.js';

export type HealthStatus = { ready: true } | { ready: false; reason: string };

/**
 * A ping without an answer this long after it was sent fails the probe. The Redis store bounds
 * every call by about as much already; this bounds the probe whatever the store does.
 */
export const PROBE_TIMEOUT_MS = 1000;

/**
 * Tracks whether this process can serve. The store is probed on a timer so that health-check
 * answers from memory: under load it never queues behind other requests' store traffic.
 */
export class HealthMonitor {
  private status: HealthStatus = { ready: false, reason: 'starting' };
  private draining = false;
  private timer: NodeJS.Timeout | undefined;
  /** One probe at a time: a slow store never piles pings up. */
  private probing: Promise<void> | null = null;
  /** Last store round trip in ms, for metrics and node-info. */
  lastPingMs = NaN;

  constructor(
    private readonly store: Store,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.probe();
    this.timer = setInterval(() => void this.probe(), this.intervalMs);
    this.timer.unref();
  }

  probe(): Promise<void> {
    this.probing ??= this.probeOnce().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private async probeOnce(): Promise<void> {
    const before = this.status.ready;
    try {
      this.lastPingMs = await withTimeout(this.store.ping(), PROBE_TIMEOUT_MS, () => new Error(`no answer to a ping within ${PROBE_TIMEOUT_MS} ms`));
      this.status = { ready: true };
    } catch (err) {
      this.status = { ready: false, reason: `state store unreachable: ${(err as Error).message}` };
    }
    if (before !== this.status.ready) {
      if (this.status.ready) this.log.info('state store reachable; ready');
      else this.log.warn({ reason: this.status.reason }, 'not ready');
    }
  }

  /** Called on shutdown: load balancers should stop sending traffic here. */
  markDraining(): void {
    this.draining = true;
  }

  current(): HealthStatus {
    if (this.draining) return { ready: false, reason: 'shutting down' };
    return this.status;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
