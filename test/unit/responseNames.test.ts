/**
 * --response-names reference (server/http/responseNames.ts): one table from the spec's field
 * names to the reference backend's, checked against the official SDK's own type declarations.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { REFERENCE_NAMES, responseBody, withReferenceNames } from '../../server/http/responseNames.js';

/** Property names the SDK's backend-types declare (deso-protocol's response types). */
function sdkFieldNames(): Set<string> {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('deso-protocol/package.json')), 'src', 'backend-types');
  const text = ['deso-types.d.ts', 'deso-types-custom.d.ts'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  return new Set([...text.matchAll(/^\s*([A-Za-z0-9_]+)\??:/gm)].map((m) => m[1]!));
}
const referenceDoc = readFileSync(new URL('../../../shared/reference/node-api.md', import.meta.url), 'utf8');

describe('response names', () => {
  it('every reference name is one the SDK declares (or, where its types lack it, the reference documents)', () => {
    const sdk = sdkFieldNames();
    const unknown = Object.values(REFERENCE_NAMES).filter((n) => !sdk.has(n) && !referenceDoc.includes(n));
    assert.deepEqual(unknown, []);
  });

  it('every spec name in the table is one the node answers with (no stale rows)', () => {
    const server = new URL('../../server/', import.meta.url).pathname;
    const answered = (name: string): boolean => {
      try {
        execFileSync('grep', ['-rqw', name, 'social', 'routes', 'meta', 'chain'], { cwd: server });
        return true;
      } catch {
        return false;
      }
    };
    assert.deepEqual(Object.keys(REFERENCE_NAMES).filter((n) => !answered(n)), []);
  });

  it('renames keys at any depth, in arrays too, and leaves values and other keys alone', () => {
    const body = { ProfilesFound: [{ CoinEntry: { NativeLockedNanos: 5n, Name: 'NativeBalanceNanos' } }], NativeBalanceNanos: 1 };
    assert.deepEqual(withReferenceNames(body), { ProfilesFound: [{ CoinEntry: { DeSoLockedNanos: 5n, Name: 'NativeBalanceNanos' } }], DESOBalanceNanos: 1 });
    assert.deepEqual(body.ProfilesFound[0]!.CoinEntry, { NativeLockedNanos: 5n, Name: 'NativeBalanceNanos' }, 'the input is not changed');
  });

  it('returns what holds nothing to rename as it is (no copy), and the spec setting changes nothing', () => {
    const body = { A: [{ B: 1 }], C: new Uint8Array(2) };
    assert.equal(withReferenceNames(body), body);
    const named = { NativeBalanceNanos: 1 };
    assert.equal(responseBody(named, 'spec'), named);
  });
});
