/**
 * Builds the WASM core (asconfig.json target `release`, or `debug` with --debug) into
 * wasm/build/ when any AssemblyScript source is newer than the binary, or always with --force.
 * `npm start` and `npm test` run it first (prestart/pretest), so no stale binary is ever used and
 * none is committed.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = process.argv.includes('--debug') ? 'debug' : 'release';
const force = process.argv.includes('--force');
const out = join(ROOT, 'wasm', 'build', `${target}.wasm`);

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function mtime(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
}

const sources = Math.max(newestSource(join(ROOT, 'wasm', 'assembly')), mtime(join(ROOT, 'asconfig.json')));
if (force || mtime(out) < sources) {
  const asc = join(ROOT, 'node_modules', 'assemblyscript', 'bin', 'asc.js');
  execFileSync(process.execPath, [asc, '--config', 'asconfig.json', '--target', target], { cwd: ROOT, stdio: 'inherit' });
  console.log(`wasm: built ${target} → ${out}`);
}
