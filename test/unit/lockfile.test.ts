// `npm ci` (README's first command, and CI) refuses a lock file that lacks any optional
// dependency; the registry here lacks some platform packages, so npm may write such a lock.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/nodeProcess.js';

interface LockPackage {
  version?: string;
  optionalDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

describe('package-lock.json', () => {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

  it('has an entry for every optional dependency (else run node .ci/lockfile-platforms.mjs)', () => {
    const missing: string[] = [];
    for (const [key, p] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(p.optionalDependencies ?? {})) {
        if (!lock.packages[`node_modules/${dep}`] && !lock.packages[`${key}/node_modules/${dep}`]) missing.push(`${key} → ${dep}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('pins uWebSockets.js to the unofficial package the design card names', () => {
    assert.equal(pkg.dependencies['uWebSockets.js'], 'npm:@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0');
    assert.equal(lock.packages['']!.dependencies!['uWebSockets.js'], pkg.dependencies['uWebSockets.js']);
  });
});
