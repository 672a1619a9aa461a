// The regression check's judgement (bench/compare.ts) and the figures it judges (bench/figures.ts):
// thresholds, noisy spreads, which way a figure improves, absolutes never judged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparabilityNotes, compareReports, comparisonFails, formatComparison, judgeRatio, regressionLine } from '../../bench/compare.js';
import { absoluteFigure, checkFigures, mergeFigures, nameKey, ratioFigure, ratioOf, type Figure } from '../../bench/figures.js';
import { machineClass, parseReport, type BenchReport } from '../../bench/report.js';
import { benchSettings, roundOptions } from '../../bench/_shared.js';

/** A ratio figure with a spread (rounds min, value, max). */
function ratio(value: number, min = value, max = value, better: 'higher' | 'lower' = 'higher', name = 'r'): Figure {
  return ratioOf(name, min === max ? [value] : [min, value, max], better);
}

describe('regressionLine', () => {
  it('sits threshold percent below the base when higher is better, above when lower is', () => {
    assert.equal(regressionLine(2, 'higher', 10), 1.8);
    assert.ok(Math.abs(regressionLine(2, 'lower', 10) - 2.2) < 1e-12);
    assert.equal(regressionLine(2, 'higher', 0), 2);
  });
});

describe('judgeRatio (higher is better)', () => {
  const base = ratio(2);
  it('passes a figure within the threshold', () => {
    assert.equal(judgeRatio(base, ratio(1.85, 1.82, 1.9), 10), 'ok');
    assert.equal(judgeRatio(base, ratio(2.1), 10), 'ok');
  });
  it('fails a fall past the threshold whose best round is past it too', () => {
    assert.equal(judgeRatio(base, ratio(1.5, 1.45, 1.7), 10), 'regressed');
    assert.equal(judgeRatio(base, ratio(1.79), 10), 'regressed');
  });
  it('marks a fall past the threshold whose spread reaches back over the line as noisy, not failed', () => {
    assert.equal(judgeRatio(base, ratio(1.7, 1.6, 1.85), 10), 'noisy');
  });
  it('passes a median on the good side of the line even when some rounds dip past it', () => {
    assert.equal(judgeRatio(base, ratio(1.9, 1.7, 2.0), 10), 'ok');
  });
  it('calls a gain improved only when the whole spread beats the base by the threshold', () => {
    assert.equal(judgeRatio(base, ratio(2.5, 2.3, 2.7), 10), 'improved');
    assert.equal(judgeRatio(base, ratio(2.5, 2.1, 2.7), 10), 'ok');
  });
  it('uses the threshold given', () => {
    assert.equal(judgeRatio(base, ratio(1.75), 10), 'regressed');
    assert.equal(judgeRatio(base, ratio(1.75), 15), 'ok');
    assert.throws(() => judgeRatio(base, ratio(1.75), -1), RangeError);
  });
});

describe('judgeRatio (lower is better)', () => {
  const base = ratio(1.2, 1.2, 1.2, 'lower');
  it('fails a rise past the threshold whose best (lowest) round is past it too', () => {
    assert.equal(judgeRatio(base, ratio(1.5, 1.4, 1.6, 'lower'), 10), 'regressed');
  });
  it('passes a fall: for a lower-is-better ratio that is a gain', () => {
    assert.equal(judgeRatio(base, ratio(0.6, 0.55, 0.65, 'lower'), 10), 'improved');
    assert.equal(judgeRatio(base, ratio(1.25, 1.22, 1.3, 'lower'), 10), 'ok');
  });
  it('marks a spread straddling the line as noisy', () => {
    assert.equal(judgeRatio(base, ratio(1.4, 1.25, 1.45, 'lower'), 10), 'noisy');
  });
});

describe('compareReports', () => {
  const report = (benches: Record<string, Figure[]>): Pick<BenchReport, 'benches'> => ({ benches });
  const base = report({
    'hash.bench.ts': [ratio(2, 2, 2, 'higher', 'sha'), absoluteFigure('shaOps', [800_000, 810_000, 820_000], 'ops/s'), ratio(3, 3, 3, 'higher', 'gone')],
    'keys.bench.ts': [ratio(4, 4, 4, 'higher', 'decode')],
  });

  it('never judges an absolute figure, however far it moves', () => {
    const rows = compareReports(base, report({ 'hash.bench.ts': [ratio(2, 2, 2, 'higher', 'sha'), absoluteFigure('shaOps', [80_000, 81_000, 82_000], 'ops/s'), ratio(3, 3, 3, 'higher', 'gone')] }), 10);
    const ops = rows.find((r) => r.name === 'shaOps')!;
    assert.equal(ops.verdict, 'shown');
    assert.ok(Math.abs(ops.changePct! + 90) < 0.01);
    assert.equal(comparisonFails(rows), false);
  });

  it('fails on a regressed ratio and reports the change in percent', () => {
    const rows = compareReports(base, report({ 'hash.bench.ts': [ratio(1.5, 1.4, 1.6, 'higher', 'sha'), ratio(3, 3, 3, 'higher', 'gone')] }), 10);
    const sha = rows.find((r) => r.name === 'sha')!;
    assert.equal(sha.verdict, 'regressed');
    assert.equal(sha.changePct, -25);
    assert.equal(comparisonFails(rows), true);
    assert.match(formatComparison(rows, 10), /regressed: hash\.bench\.ts sha 2x → 1\.5x, best round 1\.6x < line 1\.8x/);
  });

  it('passes noisy figures', () => {
    const rows = compareReports(base, report({ 'hash.bench.ts': [ratio(1.7, 1.6, 1.9, 'higher', 'sha'), ratio(3, 3, 3, 'higher', 'gone')] }), 10);
    assert.equal(rows.find((r) => r.name === 'sha')!.verdict, 'noisy');
    assert.equal(comparisonFails(rows), false);
  });

  it('leaves out benches that did not run, marks new figures and fails on a missing ratio', () => {
    const rows = compareReports(base, report({ 'hash.bench.ts': [ratio(2, 2, 2, 'higher', 'sha'), ratio(1, 1, 1, 'higher', 'fresh')] }), 10);
    assert.deepEqual(
      rows.map((r) => [r.bench, r.name, r.verdict]),
      [
        ['hash.bench.ts', 'sha', 'ok'],
        ['hash.bench.ts', 'fresh', 'new'],
        ['hash.bench.ts', 'shaOps', 'missing'],
        ['hash.bench.ts', 'gone', 'missing'],
      ],
    );
    assert.equal(comparisonFails(rows), true, 'a ratio of the base that the run no longer produces');
  });

  it('passes when only an absolute figure is missing', () => {
    const rows = compareReports(base, report({ 'hash.bench.ts': [ratio(2, 2, 2, 'higher', 'sha'), ratio(3, 3, 3, 'higher', 'gone')] }), 10);
    assert.equal(rows.find((r) => r.name === 'shaOps')!.verdict, 'missing');
    assert.equal(comparisonFails(rows), false);
  });

  it('prints ratios to three significant digits, small ones too', () => {
    const rows = compareReports(report({ 'a.bench.ts': [ratio(0.0467, 0.0467, 0.0467, 'higher', 'aes')] }), report({ 'a.bench.ts': [ratio(0.0395, 0.039, 0.0401, 'higher', 'aes')] }), 10);
    assert.match(formatComparison(rows, 10), /0\.0467x\s+0\.0395x \[0\.039–0\.0401\]\s+-15\.4%\s+REGRESSED/);
  });

  it('prints one section per bench with the direction of each figure', () => {
    const text = formatComparison(compareReports(base, report({ 'keys.bench.ts': [ratio(4.1, 4.0, 4.2, 'higher', 'decode')] }), 10), 10);
    assert.match(text, /keys\.bench\.ts\n/);
    assert.match(text, /decode\s+ratio\s+↑\s+4x\s+4\.1x \[4–4\.2\]\s+\+2\.5%\s+ok/);
    assert.match(text, /1 ratio figures judged at 10%: 1 ok/);
  });
});

describe('figures', () => {
  it('pairs rounds: the value is the median of per-round quotients, the spread their min and max', () => {
    const f = ratioFigure('x', [10, 30, 20], [5, 10, 10]);
    assert.deepEqual(f.rounds, [2, 3, 2]);
    assert.equal(f.value, 2);
    assert.deepEqual(f.spread, { min: 2, max: 3 });
    assert.equal(f.kind, 'ratio');
    assert.equal(f.better, 'higher');
  });
  it('has no spread for one measurement', () => {
    assert.equal(absoluteFigure('ms', 4.2, 'ms', 'lower').spread, undefined);
  });
  it('refuses unpaired rounds and non-finite values', () => {
    assert.throws(() => ratioFigure('x', [1, 2], [1]), RangeError);
    assert.throws(() => ratioOf('x', Number.NaN), RangeError);
    assert.throws(() => absoluteFigure('x', [], 'ms'), RangeError);
  });
  it('checkFigures refuses what a run() must not return', () => {
    assert.throws(() => checkFigures('a.bench.ts', undefined), /run\(\) must return an array of figures, got undefined/);
    assert.throws(() => checkFigures('a.bench.ts', [{ name: 'x', value: 1 }]), /malformed figure/);
    assert.throws(() => checkFigures('a.bench.ts', [ratioOf('x', 1), ratioOf('x', 2)]), /appears twice/);
    assert.equal(checkFigures('a.bench.ts', [ratioOf('x', 1)]).length, 1);
  });
  it('mergeFigures pools the rounds of several processes per figure', () => {
    const a = [ratioFigure('r', [2, 2.1, 2.2], [1, 1, 1]), absoluteFigure('ms', 5, 'ms', 'lower')];
    const b = [ratioFigure('r', [2.5, 2.6, 2.4], [1, 1, 1]), absoluteFigure('ms', 7, 'ms', 'lower'), ratioOf('only', 3)];
    const c = [ratioFigure('r', [2.05, 2.15, 2.1], [1, 1, 1]), absoluteFigure('ms', 6, 'ms', 'lower')];
    const merged = mergeFigures([a, b, c]);
    assert.deepEqual(merged.map((f) => f.name), ['r', 'ms', 'only']);
    const r = merged[0]!;
    assert.equal(r.rounds!.length, 9);
    assert.equal(r.value, 2.15, 'the median of nine rounds: the majority state, not the odd process');
    assert.deepEqual(r.spread, { min: 2, max: 2.6 });
    assert.equal(r.kind, 'ratio');
    assert.deepEqual(merged[1]!.spread, { min: 5, max: 7 });
    assert.equal(merged[1]!.better, 'lower');
    assert.equal(merged[2]!.value, 3);
  });
  it('nameKey turns routes and labels into name tails', () => {
    assert.equal(nameKey('get-single-profile'), 'GetSingleProfile');
    assert.equal(nameKey('GET get-exchange-rate'), 'GETGetExchangeRate');
  });
});

describe('reports', () => {
  it('names the machine class by cores, CPU maker and family, and Node major', () => {
    assert.equal(machineClass('AMD EPYC', 2, 'v20.20.2'), '2core-amd-epyc-node20');
    assert.equal(machineClass('AMD EPYC 7763 64-Core Processor', 8, 'v22.1.0'), '8core-amd-epyc-node22');
    assert.equal(machineClass('Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz', 4, 'v20.1.0'), '4core-intel-xeon-node20');
    assert.equal(machineClass('', 1, 'v20.0.0'), '1core-unknown-cpu-node20');
  });
  it('parseReport refuses what is not a report', () => {
    assert.throws(() => parseReport('{', 'f.json'), /f\.json: not JSON/);
    assert.throws(() => parseReport('{"a":1}', 'f.json'), /not a bench report/);
    assert.throws(() => parseReport('{"machine":"m","benches":{"a.bench.ts":[{"name":"x"}]}}', 'f.json'), /malformed figure/);
  });
  it('notes a base from another machine class or other settings', () => {
    const settings = { rounds: 3, quick: true, processes: 3 };
    const base = { machine: '2core-amd-epyc-node20', node: 'v20.1.0', settings } as BenchReport;
    assert.deepEqual(comparabilityNotes(base, { machine: '2core-amd-epyc-node20', node: 'v20.1.0', settings }), []);
    assert.equal(comparabilityNotes(base, { machine: '8core-intel-xeon-node20', node: 'v20.1.0', settings }).length, 1);
    assert.deepEqual(comparabilityNotes(base, { machine: '2core-amd-epyc-node20', node: 'v20.1.0', settings: { rounds: 5, quick: false, processes: 1 } }), [
      'the base measured 3 processes × 3 rounds, quick, this run 1 process × 5 rounds',
    ]);
  });
});

describe('bench settings', () => {
  it('reads BENCH_ROUNDS and BENCH_QUICK, refusing a bad round count', () => {
    assert.deepEqual(benchSettings({}), { rounds: 3, quick: false });
    assert.deepEqual(benchSettings({ BENCH_ROUNDS: '5', BENCH_QUICK: '1' }), { rounds: 5, quick: true });
    assert.throws(() => benchSettings({ BENCH_ROUNDS: '0' }), RangeError);
  });
  it('shares a time budget among the rounds, shortened in quick mode but for the warm-up', () => {
    assert.deepEqual(roundOptions({ time: 900, warmupTime: 300 }, { rounds: 3, quick: false }), { time: 300, warmupTime: 300, iterations: 22 });
    const quick = roundOptions({ time: 1000, warmupTime: 250, iterations: 8, warmupIterations: 2 }, { rounds: 2, quick: true });
    assert.deepEqual(quick, { time: 150, warmupTime: 250, iterations: 2, warmupIterations: 2 });
  });
});
