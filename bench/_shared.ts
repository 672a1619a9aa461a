/**
 * Helpers shared by `bench/*.bench.ts`: how long and how many rounds to measure (the runner's
 * settings, from the environment), tinybench tasks run in rounds, one results table per Bench
 * and a ratio line per candidate/baseline pair, so every bench measures and prints in the same
 * shape.
 * @module
 */
import type { Bench, BenchOptions } from 'tinybench';
import { formatRatio, ratioFigure, type Better, type Figure } from './figures.js';

/** How the benches measure; bench/run.ts sets the variables from its flags. */
export interface BenchSettings {
  /**
   * BENCH_ROUNDS (default 3): each figure is measured this many times, its spread being the
   * run's own noise; `--compare` judges a change against it.
   */
  rounds: number;
  /** BENCH_QUICK=1: shorter measurements (QUICK_TIME_SHARE of the time), and optional parts skipped. */
  quick: boolean;
}

/** Rounds when BENCH_ROUNDS is unset: the fewest that give a median and a spread. */
export const DEFAULT_ROUNDS = 3;
/**
 * Share of each tinybench time budget a quick run spends: 0.3 keeps `npm run bench:check` (three
 * processes of six benches) near two minutes on 2 cores, each task still measured 100+ ms a round.
 */
export const QUICK_TIME_SHARE = 0.3;
/** tinybench's own default for the least samples per task. */
const TINYBENCH_ITERATIONS = 64;

/** The settings of this process, read from BENCH_ROUNDS and BENCH_QUICK. */
export function benchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const raw = env['BENCH_ROUNDS'];
  const rounds = raw === undefined || raw === '' ? DEFAULT_ROUNDS : Number(raw);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new RangeError(`BENCH_ROUNDS expected an integer ≥ 1, got ${raw}`);
  const quick = env['BENCH_QUICK'] === '1' || env['BENCH_QUICK'] === 'true';
  return { rounds, quick };
}

type TimeOptions = Required<Pick<BenchOptions, 'time' | 'warmupTime'>> & Pick<BenchOptions, 'iterations' | 'warmupIterations'>;

/**
 * tinybench options for one round: the bench's budget for a whole run shared among the rounds
 * (so a run takes about as long as before rounds existed), shortened in quick mode (the warm-up
 * excepted). At least 2 samples per task and round.
 */
export function roundOptions(o: TimeOptions, settings: BenchSettings = benchSettings()): TimeOptions {
  const share = settings.quick ? QUICK_TIME_SHARE : 1;
  const out: TimeOptions = {
    time: (o.time * share) / settings.rounds,
    // Warm-up is not shortened: cut short, the JIT and V8's WASM tier-up finish during the
    // rounds instead, and ratios landed in different places from one process to the next.
    warmupTime: o.warmupTime,
    iterations: Math.max(2, Math.ceil(((o.iterations ?? TINYBENCH_ITERATIONS) * share) / settings.rounds)),
  };
  if (o.warmupIterations !== undefined) out.warmupIterations = o.warmupIterations;
  return out;
}

/** Every task's mean ops/s in each round. */
export interface RoundResults {
  /** The task's ops/s per round, in round order; throws for an unknown task. */
  opsPerSec(task: string): number[];
}

/**
 * Warms every task once, then runs the tasks in turn, `rounds` times (A B C, A B C, …), so a
 * change in the machine's load between rounds lands on every task of a round alike. The Bench's
 * results are left from the last round (what printResults shows).
 */
export async function runRounds(bench: Bench, rounds: number = benchSettings().rounds): Promise<RoundResults> {
  for (const task of bench.tasks) await task.warmup();
  const perTask = new Map<string, number[]>(bench.tasks.map((t) => [t.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const task of bench.tasks) {
      task.reset(false);
      await task.run();
      perTask.get(task.name)!.push(opsPerSec(bench, task.name));
    }
  }
  return {
    opsPerSec(task: string): number[] {
      const rows = perTask.get(task);
      if (rows === undefined) throw new RangeError(`"task" expected a task of ${bench.name ?? 'bench'}, got ${task}`);
      return rows;
    },
  };
}

/**
 * Prints `ratio <label>: 2.16x (2.05–2.22 over 3 rounds)` for candidate ÷ baseline per round
 * and returns the figure named `name`.
 */
export function ratioLine(label: string, name: string, r: RoundResults, candidate: string, baseline: string, better: Better = 'higher'): Figure {
  const f = ratioFigure(name, r.opsPerSec(candidate), r.opsPerSec(baseline), better);
  printFigure(label, f);
  return f;
}

/** Prints a ratio figure as `ratio <label>: …`. */
export function printFigure(label: string, f: Figure): void {
  console.log(`ratio ${label}: ${formatRatio(f)}`);
}

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
