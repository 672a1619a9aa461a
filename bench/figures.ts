/**
 * The named figures every `bench/*.bench.ts` `run()` returns, and the builders that make them
 * from per-round measurements. A figure is either a ratio (a candidate against a baseline
 * measured in the same run: what `--compare` judges, since both sides share the machine's
 * state) or an absolute (ops/s, ms, bytes: shown, never judged, since it moves with the
 * machine). Pure: no I/O.
 * @module
 */

/** Which way a figure improves: a speed-up ratio is better higher, a latency or a size lower. */
export type Better = 'higher' | 'lower';

export interface Figure {
  /** camelCase, unique within its bench: the key `--compare` matches on. */
  name: string;
  /** The median of the rounds, or the single measurement. */
  value: number;
  /** `x` for ratios; `ops/s`, `ms`, `req/s`, `B`… for absolutes. */
  unit: string;
  kind: 'ratio' | 'absolute';
  better: Better;
  /** Lowest and highest over the rounds: the run's own noise. Absent for one measurement. */
  spread?: { min: number; max: number };
  /** Every round's value, in the order measured. */
  rounds?: number[];
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function checkRounds(name: string, rounds: readonly number[]): void {
  if (rounds.length === 0) throw new RangeError(`figure ${name}: expected at least one round, got none`);
  const bad = rounds.find((x) => !Number.isFinite(x));
  if (bad !== undefined) throw new RangeError(`figure ${name}: expected finite values, got ${bad}`);
}

/** A figure over rounds: the median as its value, min/max as its spread (with two or more rounds). */
function fromRounds(name: string, rounds: readonly number[], unit: string, kind: Figure['kind'], better: Better): Figure {
  checkRounds(name, rounds);
  const figure: Figure = { name, value: median(rounds), unit, kind, better };
  if (rounds.length > 1) {
    figure.spread = { min: Math.min(...rounds), max: Math.max(...rounds) };
    figure.rounds = [...rounds];
  }
  return figure;
}

/**
 * A same-run ratio, candidate ÷ baseline, from rounds measured in pairs: round i of the
 * candidate against round i of the baseline, so a change in the machine's load between rounds
 * moves both sides of the same quotient.
 */
export function ratioFigure(name: string, candidate: readonly number[], baseline: readonly number[], better: Better = 'higher'): Figure {
  if (candidate.length !== baseline.length) {
    throw new RangeError(`figure ${name}: expected as many baseline rounds as candidate rounds, got ${baseline.length} and ${candidate.length}`);
  }
  return fromRounds(name, candidate.map((c, i) => c / baseline[i]!), 'x', 'ratio', better);
}

/** A ratio already computed per round (or once). */
export function ratioOf(name: string, rounds: readonly number[] | number, better: Better = 'higher'): Figure {
  return fromRounds(name, typeof rounds === 'number' ? [rounds] : rounds, 'x', 'ratio', better);
}

/** An absolute figure (shown by `--compare`, never judged). */
export function absoluteFigure(name: string, rounds: readonly number[] | number, unit: string, better: Better = 'higher'): Figure {
  return fromRounds(name, typeof rounds === 'number' ? [rounds] : rounds, unit, 'absolute', better);
}

/** `get-single-profile` → `GetSingleProfile`: a route or label as the tail of a figure's name. */
export function nameKey(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** `2.16x (2.05–2.22 over 3 rounds)`: how a bench prints a ratio figure. */
export function formatRatio(f: Figure): string {
  const value = `${f.value.toFixed(2)}x`;
  if (f.spread === undefined) return value;
  return `${value} (${f.spread.min.toFixed(2)}–${f.spread.max.toFixed(2)} over ${f.rounds?.length ?? '?'} rounds)`;
}

/**
 * The figures of several runs of one bench (separate processes) as one list: each figure's
 * rounds are every run's rounds (or values) together, so a process that landed in a slower or
 * faster state shows in the spread, and the median is the majority's. Names keep the first
 * run's order; a figure missing from some runs merges what the others have.
 */
export function mergeFigures(runs: ReadonlyArray<readonly Figure[]>): Figure[] {
  const byName = new Map<string, { first: Figure; rounds: number[] }>();
  for (const figures of runs) {
    for (const f of figures) {
      const entry = byName.get(f.name) ?? { first: f, rounds: [] };
      entry.rounds.push(...(f.rounds ?? [f.value]));
      byName.set(f.name, entry);
    }
  }
  return [...byName.values()].map(({ first, rounds }) => fromRounds(first.name, rounds, first.unit, first.kind, first.better));
}

/**
 * Throws unless `value` is what a bench's `run()` must return: an array of well-formed figures
 * with unique names. The runner checks each bench's answer with it, so a bench that forgets to
 * return its figures fails loudly instead of leaving a hole in the baseline.
 */
export function checkFigures(bench: string, value: unknown): Figure[] {
  if (!Array.isArray(value)) throw new TypeError(`${bench}: run() must return an array of figures, got ${value === undefined ? 'undefined' : typeof value}`);
  const seen = new Set<string>();
  for (const f of value as Array<Partial<Figure>>) {
    const ok =
      typeof f === 'object' &&
      f !== null &&
      typeof f.name === 'string' &&
      typeof f.value === 'number' &&
      Number.isFinite(f.value) &&
      typeof f.unit === 'string' &&
      (f.kind === 'ratio' || f.kind === 'absolute') &&
      (f.better === 'higher' || f.better === 'lower');
    if (!ok) throw new TypeError(`${bench}: malformed figure ${JSON.stringify(f)}`);
    if (seen.has(f.name!)) throw new RangeError(`${bench}: figure ${f.name} appears twice`);
    seen.add(f.name!);
  }
  return value as Figure[];
}
