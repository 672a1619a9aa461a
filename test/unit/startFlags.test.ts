// `npm start` and the benches run the node with the same Node flags (bench/http/harness.ts
// NODE_RUNTIME_FLAGS): a bench measures the node as operators start it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_RUNTIME_FLAGS } from '../../bench/http/harness.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';

describe('the node\'s runtime flags', () => {
  it('are the flags of package.json\'s start script, in the same order', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // `exec`: npm's shell becomes tsx, so a SIGTERM to `npm start` reaches the node (startup.e2e).
    const m = /^exec tsx ((?:--\S+ )*)server\/main\.ts$/.exec(pkg.scripts['start']!);
    assert.ok(m, `start script: ${pkg.scripts['start']}`);
    assert.deepEqual(m[1]!.trim().split(' ').filter(Boolean), [...NODE_RUNTIME_FLAGS]);
  });
});
