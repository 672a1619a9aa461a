/**
 * `npm run bench [-- name...]`: runs every `bench/*.bench.ts` (or those whose file name
 * contains one of the given names), one after another, each printing its candidate against a
 * baseline measured in the same run. Benches that take long (ON_REQUEST_ONLY: bench:scale
 * populates 100k profiles) run only when named.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const ON_REQUEST_ONLY = ['scale.bench.ts'];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => (filters.length === 0 ? !ON_REQUEST_ONLY.includes(f) : filters.some((name) => f.includes(name))))
  .sort();

if (files.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}; available: ${readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).join(', ')}`);
  process.exit(2);
}
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const mod = (await import(pathToFileURL(`${dir}/${f}`).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') throw new Error(`${f} must export run()`);
  await mod.run();
}
