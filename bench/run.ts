/**
 * `npm run bench [-- name...] [-- bench options]`: runs every `bench/*.bench.ts` (or those whose
 * file name contains one of the given names), one after another, each printing its candidate
 * against a baseline measured in the same run. Benches that take long (ON_REQUEST_ONLY:
 * bench:scale populates 100k profiles) run only when named. Arguments after a second `--` are
 * left to the benches (`npm run bench -- scale -- --sizes 1000,3000`); before it, any flag but
 * --help and --version is refused, so a bench option given too early is not taken for a name.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exitWithUsageError, parseCommandLine, runCommandLine, UsageError, type CommandSpec } from '../server/cli.js';

const dir = dirname(fileURLToPath(import.meta.url));
const ON_REQUEST_ONLY = ['scale.bench.ts'];
const available = readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort();

const BENCH_COMMAND: CommandSpec = {
  name: 'bench',
  usage: 'npm run bench [-- [name...] [-- bench options]]',
  summary:
    'Runs every bench/*.bench.ts, or those whose file name contains one of the names given, one after another; each ' +
    'prints its candidate against a baseline measured in the same run. Options of a bench go after a second `--` ' +
    '(each bench reads its own, and most also from the environment).',
  flags: [],
  positionals: true,
  notes:
    `Benches: ${available.map((f) => (ON_REQUEST_ONLY.includes(f) ? `${f} (only when named)` : f)).join(', ')}. ` +
    'Example: npm run bench -- scale -- --sizes 1000,3000 --sustain-seconds 10.',
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
const { positionals: filters } = runCommandLine(BENCH_COMMAND, runnerArgs);
const files = available.filter((f) => (filters.length === 0 ? !ON_REQUEST_ONLY.includes(f) : filters.some((name) => f.includes(name))));

if (files.length === 0) exitWithUsageError(BENCH_COMMAND.name, `no benchmark matches ${filters.join(', ')}; available: ${available.join(', ')}`);
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const mod = (await import(pathToFileURL(`${dir}/${f}`).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') throw new Error(`${f} must export run()`);
  await mod.run();
}
