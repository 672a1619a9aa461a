#!/usr/bin/env node
// The package registry this project installs from lacks some platform-specific optional
// packages (e.g. @msgpackr-extract/msgpackr-extract-darwin-arm64). npm then writes a lock file
// without them, and `npm ci` refuses that lock ("Missing: ... from lock file"). This script
// adds an entry for each missing optional platform package, with the os/cpu its name states,
// so npm ci skips it on other platforms. Run it after any `npm install` that rewrites the lock:
//   node .ci/lockfile-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const PLATFORM = /-(darwin|linux|win32|freebsd|android|openbsd|sunos|aix)-(x64|arm64|arm|ia32|ppc64|s390x|riscv64|loong64)(?:-|$)/;

let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const entry = `node_modules/${dep}`;
    if (lock.packages[entry] || lock.packages[`${key}/${entry}`]) continue;
    const m = PLATFORM.exec(dep);
    if (!m || !/^\d+\.\d+\.\d+/.test(version)) {
      throw new Error(`${key || 'root'}: optional dependency ${dep}@${version} is missing from the lock and is not a pinned platform package`);
    }
    lock.packages[entry] = { version, cpu: [m[2]], optional: true, os: [m[1]] };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`lockfile-platforms: added ${added} platform entr${added === 1 ? 'y' : 'ies'}`);
