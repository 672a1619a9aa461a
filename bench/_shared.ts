/**
 * Output helpers shared by `bench/*.bench.ts`: one results table per Bench and a ratio line
 * per candidate/baseline pair, so every bench prints in the same shape.
 * @module
 */
import type { Bench } from 'tinybench';

/** Prints one row per task: mean throughput, latency mean/p50/p99, relative margin of error. */
export function printResults(title: string, bench: Bench): void {
  const header = ['task', 'ops/s', 'mean', 'p50', 'p99', '±rme', 'samples'];
  const rows = bench.tasks.map((task): string[] => {
    const r = task.result;
    if (r.state !== 'completed' && r.state !== 'aborted-with-statistics') {
      return [task.name, r.state === 'errored' ? `errored: ${r.error.message}` : r.state, '', '', '', '', ''];
    }
    return [
      task.name,
      Math.round(r.throughput.mean).toLocaleString('en-US'),
      formatMs(r.latency.mean),
      formatMs(r.latency.p50),
      formatMs(r.latency.p99),
      `${r.latency.rme.toFixed(2)}%`,
      String(r.latency.samplesCount),
    ];
  });
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((row) => row[col]!.length)));
  const line = (cells: string[]): string =>
    cells.map((c, col) => (col === 0 ? c.padEnd(widths[col]!) : c.padStart(widths[col]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

/** Mean ops/s of a finished task; throws if the task is missing or did not complete. */
export function opsPerSec(bench: Bench, taskName: string): number {
  const task = bench.getTask(taskName);
  if (task === undefined) throw new RangeError(`"taskName" expected a task of ${bench.name ?? 'bench'}, got ${taskName}`);
  const r = task.result;
  if (r.state !== 'completed') {
    throw new Error(`${taskName}: expected a completed task, got ${r.state === 'errored' ? r.error.message : r.state}`);
  }
  return r.throughput.mean;
}

/** `ratio <label>: 1.23x` means the candidate ran 1.23 times as fast as the baseline. */
export function printRatio(label: string, candidateOpsPerSec: number, baselineOpsPerSec: number): void {
  console.log(`ratio ${label}: ${(candidateOpsPerSec / baselineOpsPerSec).toFixed(2)}x`);
}

function formatMs(ms: number): string {
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  if (ms >= 1e-3) return `${(ms * 1e3).toFixed(2)} µs`;
  return `${(ms * 1e6).toFixed(0)} ns`;
}
