/**
 * Process and Node.js metrics under the names the standard exporters use (prom-client's default
 * collectors, which stock Node.js dashboards read): CPU, memory, heap, file descriptors, event
 * loop lag (each statistic its own gauge), garbage collection, and the Node.js version. All
 * read at scrape time, so they cost nothing per request.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import type { Histogram, MetricsRegistry } from './registry.js';

/** Event loop delay sampling resolution, ms. */
const EVENT_LOOP_RESOLUTION_MS = 10;
/** GC pause buckets, seconds (prom-client's). */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
/** perf_hooks GC kinds by flag, as prom-client labels them. */
const GC_KINDS: Readonly<Record<number, string>> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };

/** The number of open file descriptors, or undefined where /proc is not there. */
function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

function maxFds(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line === undefined ? NaN : Number(line.split(/\s+/)[3]);
    return Number.isFinite(soft) ? soft : undefined;
  } catch {
    return undefined;
  }
}

export class ProcessMetrics {
  private readonly loopDelay: IntervalHistogram;
  private readonly gcObserver: PerformanceObserver;

  constructor(r: MetricsRegistry) {
    r.counter({ name: 'process_cpu_user_seconds_total', help: 'User CPU time of this process (all threads).' }, (c) => c.setTotal(undefined, process.cpuUsage().user / 1e6));
    r.counter({ name: 'process_cpu_system_seconds_total', help: 'System CPU time of this process (all threads).' }, (c) => c.setTotal(undefined, process.cpuUsage().system / 1e6));
    r.counter({ name: 'process_cpu_seconds_total', help: 'User and system CPU time of this process (all threads).' }, (c) => {
      const u = process.cpuUsage();
      c.setTotal(undefined, (u.user + u.system) / 1e6);
    });
    const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
    r.gauge({ name: 'process_start_time_seconds', help: 'Start time of the process, Unix seconds.' }, (g) => g.set(undefined, startSeconds));
    r.gauge({ name: 'process_resident_memory_bytes', help: 'Resident set size of this process.' }, (g) => g.set(undefined, process.memoryUsage.rss()));
    r.gauge({ name: 'process_open_fds', help: 'Open file descriptors.' }, (g) => {
      const n = openFds();
      if (n !== undefined) g.set(undefined, n);
    });
    const max = maxFds();
    r.gauge({ name: 'process_max_fds', help: 'Limit of open file descriptors.' }, (g) => {
      if (max !== undefined) g.set(undefined, max);
    });

    r.gauge({ name: 'nodejs_heap_size_total_bytes', help: 'V8 heap size.' }, (g) => g.set(undefined, process.memoryUsage().heapTotal));
    r.gauge({ name: 'nodejs_heap_size_used_bytes', help: 'V8 heap in use.' }, (g) => g.set(undefined, process.memoryUsage().heapUsed));
    r.gauge({ name: 'nodejs_external_memory_bytes', help: 'Memory of C++ objects bound to JavaScript objects (buffers among them).' }, (g) =>
      g.set(undefined, process.memoryUsage().external),
    );
    const [major, minor, patch] = process.versions.node.split('.');
    r.gauge({ name: 'nodejs_version_info', help: 'Always 1; labels name the Node.js version.', labelNames: ['version', 'major', 'minor', 'patch'] }, (g) =>
      g.set({ version: process.version, major: major!, minor: minor!, patch: patch! }, 1),
    );

    this.loopDelay = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
    this.loopDelay.enable();
    const lag = (name: string, help: string, read: (h: IntervalHistogram) => number): void => {
      r.gauge({ name, help: `${help} Sampled every ${EVENT_LOOP_RESOLUTION_MS} ms since the previous scrape of this process.` }, (g) => {
        const ns = read(this.loopDelay);
        // Nanoseconds; 0 when nothing was sampled yet.
        g.set(undefined, Number.isFinite(ns) ? ns / 1e9 : 0);
      });
    };
    lag('nodejs_eventloop_lag_min_seconds', 'Smallest event loop delay.', (h) => h.min);
    lag('nodejs_eventloop_lag_max_seconds', 'Largest event loop delay.', (h) => h.max);
    lag('nodejs_eventloop_lag_mean_seconds', 'Mean event loop delay.', (h) => h.mean);
    lag('nodejs_eventloop_lag_p50_seconds', 'Median event loop delay.', (h) => h.percentile(50));
    lag('nodejs_eventloop_lag_p90_seconds', '90th percentile of the event loop delay.', (h) => h.percentile(90));
    lag('nodejs_eventloop_lag_p99_seconds', '99th percentile of the event loop delay.', (h) => h.percentile(99));
    // Read by all the gauges above first (they are rendered in order), then started afresh.
    r.gauge({ name: 'nodejs_eventloop_lag_samples', help: 'Event loop delay samples behind the lag gauges.' }, (g) => {
      g.set(undefined, this.loopDelay.count);
      this.loopDelay.reset();
    });

    const gc: Histogram = r.histogram({ name: 'nodejs_gc_duration_seconds', help: 'Garbage collection pauses, by kind.', labelNames: ['kind'], buckets: GC_BUCKETS });
    this.gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = GC_KINDS[((e as { detail?: { kind?: number } }).detail)?.kind ?? 0] ?? 'unknown';
        gc.observe({ kind }, e.duration / 1000);
      }
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
  }

  close(): void {
    this.loopDelay.disable();
    this.gcObserver.disconnect();
  }
}
