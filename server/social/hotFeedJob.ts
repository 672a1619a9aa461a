/**
 * The hot feed's periodic refresh (hotFeed.ts refreshHotFeed), as the reference's hot feed
 * routine: every HOT_FEED_REFRESH_MS, on the one process of those sharing the store that holds
 * the producer lease (the rankings are in the store, so one process computing them serves all).
 * Refreshes run one at a time; `refresh()` runs one now (after any that is running), whichever
 * process leads: tests and tools call it.
 * @module
 */
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';
import { refreshHotFeed } from './hotFeed.js';

/** The reference's interval: a refresh every 30 s picks up new blocks and admin settings. */
export const HOT_FEED_REFRESH_MS = 30_000;
/** The first refresh after start: soon, but not in the way of the start itself. */
const FIRST_REFRESH_MS = 1_000;

export interface HotFeedJobOptions {
  store: Store;
  /** Whether this process holds the producer lease. */
  leading: () => boolean;
  log: Logger;
  /** @default HOT_FEED_REFRESH_MS */
  intervalMs?: number;
}

export class HotFeedJob {
  private timer: NodeJS.Timeout | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Refreshes completed by this process (for tests and logs). */
  refreshes = 0;

  constructor(private readonly opts: HotFeedJobOptions) {}

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      if (this.opts.leading()) this.refresh().catch((err: unknown) => this.opts.log.warn({ msg: (err as Error)?.message }, 'hot feed refresh failed'));
      this.timer = setTimeout(tick, this.opts.intervalMs ?? HOT_FEED_REFRESH_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, FIRST_REFRESH_MS);
    this.timer.unref();
  }

  /** One refresh, after the one running (if any); answers how many posts the ranking holds. */
  refresh(): Promise<number> {
    const run = this.tail.then(async () => {
      const started = performance.now();
      const ranked = await refreshHotFeed(this.opts.store);
      this.refreshes++;
      this.opts.log.debug({ ranked, ms: Math.round(performance.now() - started) }, 'hot feed refreshed');
      return ranked;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.tail;
  }
}
