/**
 * `npm run bench [-- [options] [name...] [-- bench options]]`: runs every `bench/*.bench.ts` (or
 * those whose file name contains one of the given names), one after another, each printing its
 * candidate against a baseline measured in the same run and returning its named figures
 * (bench/figures.ts). Benches that take long (ON_REQUEST_ONLY: bench:scale populates 100k
 * profiles) run only when named. Arguments after a second `--` are left to the benches
 * (`npm run bench -- scale -- --sizes 1000,3000`); before it, only the runner's flags are
 * accepted, so a bench option given too early is not taken for a name.
 *
 * `--json FILE` writes the figures with the machine (bench/report.ts); `--compare BASE.json`
 * judges them against a saved report (bench/compare.ts) and exits 1 on a regression; `--check`
 * (`npm run bench:check`) is the quick regression check against this machine class's committed
 * baseline.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exitWithUsageError, parseCommandLine, runCommandLine, UsageError, type CommandSpec } from '../server/cli.js';
import { benchSettings, DEFAULT_ROUNDS, QUICK_TIME_SHARE } from './_shared.js';
import { comparabilityNotes, compareReports, comparisonFails, DEFAULT_THRESHOLD_PCT, formatComparison } from './compare.js';
import { checkFigures, formatRatio, mergeFigures, type Figure } from './figures.js';
import { describeSettings, loadNow, parseReport, thisMachine, type BenchReport, type RunSettings } from './report.js';

const dir = dirname(fileURLToPath(import.meta.url));
const ON_REQUEST_ONLY = ['scale.bench.ts'];
/**
 * `--check`'s benches: each runs in seconds in quick mode, in this process alone, with same-run
 * ratios of the hot paths (hashing, keys, signatures, ECIES, the pool's round trip, block
 * templates). Left out: the HTTP, load and identity benches (minutes, or servers started), and
 * viewIndexPage, whose candidate waits on redis-server while its baseline decodes in-process:
 * with another job on the cores its 20,000-message ratios read 54x and 36x in two runs back to back.
 */
export const CHECK_BENCHES = ['hash.bench.ts', 'keys.bench.ts', 'secp256k1.bench.ts', 'ecies.bench.ts', 'pool.bench.ts', 'template.bench.ts'];
/**
 * `--check` measures in CHECK_PROCESSES fresh processes of CHECK_ROUNDS rounds each: a process
 * can land in a faster or slower state as a whole (ecdh ours/tiny-secp256k1 read 2.03, 2.04,
 * 2.47 and 2.07 in four processes, each with a spread under 0.1), so one process cannot make a
 * baseline nor fail a check; the median of 9 rounds is the majority's. About 40 s a process here.
 */
const CHECK_ROUNDS = 3;
const CHECK_PROCESSES = 3;
const BASELINES = join(dir, 'baselines');
const available = readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort();

const BENCH_COMMAND: CommandSpec = {
  name: 'bench',
  usage: 'npm run bench [-- [options] [name...] [-- bench options]]',
  summary:
    'Runs every bench/*.bench.ts, or those whose file name contains one of the names given, one after another; each ' +
    'prints its candidate against a baseline measured in the same run and returns its named figures. Options of a bench ' +
    'go after a second `--` (each bench reads its own, and most also from the environment).',
  flags: [
    { name: 'json', value: 'FILE', doc: 'Write every figure, with the machine (cores, CPU, Node), the settings and each figure\'s spread over rounds, to FILE.' },
    {
      name: 'compare',
      value: 'BASE.json',
      doc:
        'Run the benches of BASE.json (or those named) and print old, new and change per figure. Exit 1 when a ratio figure falls by more than ' +
        'the threshold over its whole spread (noisy when the spread straddles it); absolute figures are shown, never judged. Measures as ' +
        'BASE.json did (its rounds, quick mode) unless --rounds or --quick say otherwise.',
    },
    { name: 'threshold', value: 'PERCENT', default: String(DEFAULT_THRESHOLD_PCT), doc: 'How far a ratio figure may fall before --compare fails.' },
    {
      name: 'rounds',
      value: 'N',
      env: 'BENCH_ROUNDS',
      doc: `Rounds per figure: its value is the median, its spread min–max. When unset: BASE.json's with --compare, else ${DEFAULT_ROUNDS}.`,
    },
    { name: 'quick', env: 'BENCH_QUICK', doc: `Shorter measurements (${QUICK_TIME_SHARE} of the time, the warm-up excepted), optional parts skipped.` },
    {
      name: 'processes',
      value: 'N',
      doc: 'Run the benches in N fresh processes, one after another, and merge each figure\'s rounds. When unset: BASE.json\'s with --compare, else 1.',
    },
    {
      name: 'check',
      doc:
        `The regression check (npm run bench:check): ${CHECK_BENCHES.map((f) => f.replace('.bench.ts', '')).join(', ')} ` +
        `in quick mode, ${CHECK_PROCESSES} processes of ${CHECK_ROUNDS} rounds, compared with bench/baselines/check-<machine class>.json; ` +
        'with --json, writes that file instead.',
    },
  ],
  positionals: true,
  notes:
    `Benches: ${available.map((f) => (ON_REQUEST_ONLY.includes(f) ? `${f} (only when named)` : f)).join(', ')}. ` +
    'Examples: npm run bench -- scale -- --sizes 1000,3000 --sustain-seconds 10; ' +
    'npm run bench -- --json before.json hash keys; npm run bench -- --compare before.json --threshold 15.',
};

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const runnerArgs = split === -1 ? argv : argv.slice(0, split);
try {
  parseCommandLine(BENCH_COMMAND, runnerArgs);
} catch (err) {
  // Before the second `--`, a bench's own option is the likely mistake: say where it goes.
  if (err instanceof UsageError) exitWithUsageError(BENCH_COMMAND.name, `${err.message}; a bench's options go after a second --, as in: npm run bench -- scale -- --sizes 1000`);
  throw err;
}
const { values, positionals: filters } = runCommandLine(BENCH_COMMAND, runnerArgs);
const fail = (message: string): never => exitWithUsageError(BENCH_COMMAND.name, message);

const machine = thisMachine();
const check = values['check'] === true;
const jsonFile = values['json'] as string | undefined;
const checkBaseline = join(BASELINES, `check-${machine.machine}.json`);
let compareFile = values['compare'] as string | undefined;
if (check && compareFile === undefined && jsonFile === undefined) {
  if (!existsSync(checkBaseline)) {
    fail(`no baseline for this machine class (${machine.machine}): make one on a quiet machine with npm run bench:check -- --json ${relative(process.cwd(), checkBaseline)}`);
  }
  compareFile = checkBaseline;
}
const threshold = Number(values['threshold']);
if (!(threshold >= 0) || !Number.isFinite(threshold)) fail(`--threshold must be a number ≥ 0, got ${JSON.stringify(values['threshold'])}`);

let base: BenchReport | undefined;
if (compareFile !== undefined) {
  try {
    base = parseReport(readFileSync(compareFile, 'utf8'), compareFile);
  } catch (err) {
    fail((err as Error).message);
  }
}

// Settings: a flag, else the environment, else the base's (compare like with like), else the defaults.
const fromEnv = benchSettings();
const settings: RunSettings = {
  rounds: values['rounds'] !== undefined ? Number(values['rounds']) : process.env['BENCH_ROUNDS'] ? fromEnv.rounds : (base?.settings.rounds ?? (check ? CHECK_ROUNDS : DEFAULT_ROUNDS)),
  quick: values['quick'] === true || check || fromEnv.quick || (base?.settings.quick ?? false),
  processes: values['processes'] !== undefined ? Number(values['processes']) : (base?.settings.processes ?? (check ? CHECK_PROCESSES : 1)),
};
if (!Number.isSafeInteger(settings.rounds) || settings.rounds < 1) fail(`--rounds must be an integer ≥ 1, got ${JSON.stringify(values['rounds'])}`);
if (!Number.isSafeInteger(settings.processes) || settings.processes < 1) fail(`--processes must be an integer ≥ 1, got ${JSON.stringify(values['processes'])}`);
/** Arguments after the second `--`, passed on to each process's benches. */
const benchArgs = split === -1 ? [] : argv.slice(split);
// The benches read their settings from the environment when they load.
process.env['BENCH_ROUNDS'] = String(settings.rounds);
process.env['BENCH_QUICK'] = settings.quick ? '1' : '0';

function selectBenches(): string[] {
  if (filters.length > 0) return available.filter((f) => filters.some((name) => f.includes(name)));
  if (check) return CHECK_BENCHES;
  if (base !== undefined) return available.filter((f) => f in base!.benches);
  return available.filter((f) => !ON_REQUEST_ONLY.includes(f));
}
const files = selectBenches();
if (files.length === 0) {
  fail(filters.length > 0 ? `no benchmark matches ${filters.join(', ')}; available: ${available.join(', ')}` : `${compareFile} names no benchmark of ${available.join(', ')}`);
}

/** Runs the benches here, one after another: their figures and wall seconds. */
async function runHere(): Promise<Pick<BenchReport, 'benches' | 'seconds'>> {
  const benches: Record<string, Figure[]> = {};
  const seconds: Record<string, number> = {};
  for (const f of files) {
    console.log(`\n=== ${f} ===`);
    const t0 = performance.now();
    const mod = (await import(pathToFileURL(`${dir}/${f}`).href)) as { run?: () => Promise<unknown> };
    if (typeof mod.run !== 'function') throw new Error(`${f} must export run()`);
    benches[f] = checkFigures(f, await mod.run());
    seconds[f] = Number(((performance.now() - t0) / 1000).toFixed(1));
    console.log(`(${f}: ${seconds[f]} s)`);
  }
  return { benches, seconds };
}

/**
 * Runs the benches in `processes` fresh processes, one after another (never two at once), and
 * merges each figure's rounds: a process can land in a faster or slower state as a whole (JIT and
 * WASM tier-up, memory layout), which rounds within one process never show.
 */
function runInProcesses(processes: number): Pick<BenchReport, 'benches' | 'seconds'> {
  const tmp = mkdtempSync(join(tmpdir(), 'bench-runs-'));
  const reports: BenchReport[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      console.log(`\n##### process ${i + 1} of ${processes} #####`);
      const out = join(tmp, `run${i}.json`);
      const args = [...files, '--rounds', String(settings.rounds), ...(settings.quick ? ['--quick'] : []), '--processes', '1', '--json', out, ...benchArgs];
      const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...args], { cwd: dirname(dir), stdio: 'inherit' });
      if (child.status !== 0) throw new Error(`bench: process ${i + 1} of ${processes} failed (${child.signal ?? `exit code ${child.status}`})`);
      reports.push(parseReport(readFileSync(out, 'utf8'), out));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const benches: Record<string, Figure[]> = {};
  const seconds: Record<string, number> = {};
  for (const f of files) {
    benches[f] = mergeFigures(reports.map((r) => r.benches[f] ?? []));
    seconds[f] = Number(reports.reduce((a, r) => a + (r.seconds?.[f] ?? 0), 0).toFixed(1));
  }
  console.log(`\n##### ${processes} processes merged: each ratio's median and spread over ${processes} × ${settings.rounds} rounds #####`);
  for (const [f, figures] of Object.entries(benches)) {
    for (const fig of figures.filter((x) => x.kind === 'ratio')) console.log(`${f} ${fig.name}: ${formatRatio(fig)}`);
  }
  return { benches, seconds };
}

const loadStart = loadNow();
const started = performance.now();
const { benches, seconds } = settings.processes > 1 ? runInProcesses(settings.processes) : await runHere();
console.log(`\n${files.length} benches in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const report: BenchReport = { ...machine, date: new Date().toISOString(), settings, loadavg: { start: loadStart, end: loadNow() }, seconds, benches };

if (jsonFile !== undefined) {
  mkdirSync(dirname(jsonFile), { recursive: true });
  writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  const count = Object.values(benches).reduce((n, fs) => n + fs.length, 0);
  console.log(`\nwrote ${count} figures of ${files.length} benches to ${jsonFile} (${machine.machine}, ${describeSettings(settings)})`);
}

if (base !== undefined) {
  console.log(`\n=== compared with ${compareFile} (${base.machine}, ${base.date}) ===`);
  for (const note of comparabilityNotes(base, report)) console.log(`note: ${note}`);
  console.log(`load average (1 min): base ${base.loadavg?.start ?? '?'}–${base.loadavg?.end ?? '?'}, this run ${report.loadavg.start}–${report.loadavg.end}`);
  const rows = compareReports(base, report, threshold);
  console.log(formatComparison(rows, threshold));
  if (comparisonFails(rows)) {
    console.log('\nbench: FAILED: a ratio figure regressed (see above)');
    process.exitCode = 1;
  }
}
