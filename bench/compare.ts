/**
 * `npm run bench -- --compare BASE.json`: a run's figures against a saved report's. Only
 * ratio figures are judged (candidate and baseline measured in the same run share the
 * machine's state, so their quotient carries across runs); absolute figures move with the
 * machine and are shown, never judged. A ratio regresses when it falls past the threshold
 * and stays past it over the new run's whole spread; when the spread straddles the line the
 * figure is noisy: neither passed nor failed. Pure: no I/O.
 * @module
 */
import type { Better, Figure } from './figures.js';
import { describeSettings, type BenchReport } from './report.js';

/** Percent a ratio may fall (or rise, for lower-is-better ratios) before it counts: --threshold. */
export const DEFAULT_THRESHOLD_PCT = 10;

/**
 * - `ok`: within the threshold; `improved`: the whole spread better by more than the threshold;
 * - `noisy`: the median is past the regression line but the spread straddles it (more rounds or
 *   a quieter machine decide);
 * - `regressed`: the whole spread past the line (fails the comparison);
 * - `shown`: an absolute figure, never judged;
 * - `new`: no figure of that name in the base; `missing`: in the base, not in this run.
 */
export type Verdict = 'ok' | 'improved' | 'noisy' | 'regressed' | 'shown' | 'new' | 'missing';

export interface FigureComparison {
  bench: string;
  name: string;
  kind: Figure['kind'];
  better: Better;
  unit: string;
  old?: Figure;
  now?: Figure;
  /** (new − old) ÷ old, in percent; absent unless both exist. */
  changePct?: number;
  verdict: Verdict;
  /** The value a ratio must not fall past (rise past, when lower is better). */
  line?: number;
}

/** The regression line of a ratio: old × (1 − t) when higher is better, old × (1 + t) when lower is. */
export function regressionLine(old: number, better: Better, thresholdPct: number): number {
  const t = thresholdPct / 100;
  return better === 'higher' ? old * (1 - t) : old * (1 + t);
}

/** The new run's spread, or its single value twice. */
function range(f: Figure): { min: number; max: number } {
  return f.spread ?? { min: f.value, max: f.value };
}

/**
 * Judges a ratio figure of this run against the base's. `best` is the spread's end on the good
 * side (max when higher is better), `worst` the other end: regressed when even the best round is
 * past the line; noisy when the median is past it but the spread reaches back over it (the rounds
 * straddle the line: a failure the run cannot tell from noise); improved when even the worst
 * round beats the base by more than the threshold. A median on the good side is ok even when
 * some rounds dip past the line: on a shared machine most spreads do.
 */
export function judgeRatio(old: Figure, now: Figure, thresholdPct: number): 'ok' | 'improved' | 'noisy' | 'regressed' {
  if (thresholdPct < 0 || !Number.isFinite(thresholdPct)) throw new RangeError(`"thresholdPct" expected a number ≥ 0, got ${thresholdPct}`);
  const better = now.better;
  const line = regressionLine(old.value, better, thresholdPct);
  const gain = regressionLine(old.value, better === 'higher' ? 'lower' : 'higher', thresholdPct);
  const { min, max } = range(now);
  const [best, worst] = better === 'higher' ? [max, min] : [min, max];
  const past = (x: number, limit: number): boolean => (better === 'higher' ? x < limit : x > limit);
  if (past(best, line)) return 'regressed';
  if (past(now.value, line)) return 'noisy';
  if (past(gain, worst)) return 'improved';
  return 'ok';
}

/**
 * Every figure of every bench in `now`, matched by name with `base`'s figures of the same bench.
 * Benches of `base` that `now` did not run are left out (a subset was asked for).
 */
export function compareReports(base: Pick<BenchReport, 'benches'>, now: Pick<BenchReport, 'benches'>, thresholdPct: number): FigureComparison[] {
  const rows: FigureComparison[] = [];
  for (const [bench, figures] of Object.entries(now.benches)) {
    const olds = new Map((base.benches[bench] ?? []).map((f) => [f.name, f]));
    for (const f of figures) {
      const old = olds.get(f.name);
      olds.delete(f.name);
      const row: FigureComparison = { bench, name: f.name, kind: f.kind, better: f.better, unit: f.unit, now: f, verdict: 'new' };
      if (old !== undefined) {
        row.old = old;
        row.changePct = ((f.value - old.value) / old.value) * 100;
        if (f.kind === 'ratio' && old.kind === 'ratio') {
          row.verdict = judgeRatio(old, f, thresholdPct);
          row.line = regressionLine(old.value, f.better, thresholdPct);
        } else {
          row.verdict = 'shown';
        }
      }
      rows.push(row);
    }
    for (const old of olds.values()) rows.push({ bench, name: old.name, kind: old.kind, better: old.better, unit: old.unit, old, verdict: 'missing' });
  }
  return rows;
}

/**
 * True when the comparison fails: a ratio regressed, or a ratio of the base is missing from a
 * bench that ran (a renamed or dropped figure would otherwise pass unseen: regenerate the base).
 */
export function comparisonFails(rows: readonly FigureComparison[]): boolean {
  return rows.some((r) => r.verdict === 'regressed' || (r.verdict === 'missing' && r.kind === 'ratio'));
}

/** Three significant digits, whole numbers grouped: `0.0467`, `2.16`, `370`, `831,720`. */
function formatNumber(value: number): string {
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : Number(value.toPrecision(3)).toString();
}

/** `2.16x`, `0.0467x`, `831,720 ops/s`, `0.412 ms`. */
export function formatValue(value: number, unit: string): string {
  return unit === 'x' ? `${formatNumber(value)}x` : `${formatNumber(value)} ${unit}`;
}

function formatFigure(f: Figure | undefined): string {
  if (f === undefined) return '-';
  const v = formatValue(f.value, f.unit);
  return f.spread === undefined ? v : `${v} [${formatNumber(f.spread.min)}–${formatNumber(f.spread.max)}]`;
}

/** The comparison as a table, one section per bench, then a summary and the failures spelt out. */
export function formatComparison(rows: readonly FigureComparison[], thresholdPct: number): string {
  const header = ['figure', 'kind', 'better', 'old', 'new [spread]', 'change', 'verdict'];
  const cells = rows.map((r) => [
    r.name,
    r.kind,
    r.better === 'higher' ? '↑' : '↓',
    formatFigure(r.old),
    formatFigure(r.now),
    r.changePct === undefined ? '' : `${r.changePct >= 0 ? '+' : ''}${r.changePct.toFixed(1)}%`,
    r.verdict === 'regressed' ? 'REGRESSED' : r.verdict,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c]!.length)));
  // Names, kind, direction and verdict left-aligned; numbers right-aligned.
  const left = new Set([0, 1, 2, header.length - 1]);
  const line = (row: string[]): string => row.map((s, c) => (left.has(c) ? s.padEnd(widths[c]!) : s.padStart(widths[c]!))).join('  ').trimEnd();
  const out: string[] = [];
  let bench = '';
  rows.forEach((r, i) => {
    if (r.bench !== bench) {
      bench = r.bench;
      out.push('', `${bench}`, line(header));
    }
    out.push(line(cells[i]!));
  });
  const count = (v: Verdict): number => rows.filter((r) => r.verdict === v).length;
  const judged = rows.filter((r) => r.kind === 'ratio' && r.old !== undefined && r.now !== undefined).length;
  out.push(
    '',
    `${judged} ratio figures judged at ${thresholdPct}%: ${count('ok')} ok, ${count('improved')} improved, ${count('noisy')} noisy, ${count('regressed')} regressed; ` +
      `${count('shown')} absolute figures shown (never judged); ${count('new')} new, ${count('missing')} missing`,
  );
  for (const r of rows) {
    if (r.verdict === 'regressed') {
      const best = r.better === 'higher' ? range(r.now!).max : range(r.now!).min;
      out.push(`regressed: ${r.bench} ${r.name} ${formatValue(r.old!.value, r.unit)} → ${formatValue(r.now!.value, r.unit)}, best round ${formatValue(best, r.unit)} ${r.better === 'higher' ? '<' : '>'} line ${formatValue(r.line!, r.unit)}`);
    }
    if (r.verdict === 'missing' && r.kind === 'ratio') out.push(`missing: ${r.bench} ${r.name} is in the base but this run did not produce it (renamed? regenerate the base)`);
  }
  return out.join('\n');
}

/** Why the base may not be comparable with this run, one line each (machine class, Node, settings). */
export function comparabilityNotes(base: BenchReport, now: Pick<BenchReport, 'machine' | 'node' | 'settings'>): string[] {
  const notes: string[] = [];
  if (base.machine !== now.machine) notes.push(`the base is from a ${base.machine} machine, this is ${now.machine}: ratios may differ by machine, absolutes will`);
  else if (base.node !== now.node) notes.push(`the base ran on Node ${base.node}, this on ${now.node}`);
  const [b, n] = [describeSettings(base.settings ?? {}), describeSettings(now.settings)];
  if (b !== n) notes.push(`the base measured ${b}, this run ${n}`);
  return notes;
}
