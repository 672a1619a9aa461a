import type { Logger } from 'pino';
import type { Store } from './store/types.js';

export type HealthStatus = { ready: true } | { ready: false; reason: string };

/**
 * Tracks whether this process can serve. The store is probed on a timer so that health-check
 * answers from memory: under load it never queues behind other requests' store traffic.
 */
export class HealthMonitor {
  private status: HealthStatus = { ready: false, reason: 'starting' };
  private draining = false;
  private timer: NodeJS.Timeout | undefined;
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

  async probe(): Promise<void> {
    const before = this.status.ready;
    try {
      this.lastPingMs = await this.store.ping();
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
