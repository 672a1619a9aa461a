/**
 * A node started with --response-names reference answers with the reference backend's field
 * names, the ones the official SDK's backend-types declare: no Native/Legacy key is left in
 * what an SDK-typed frontend reads (a profile, users, the exchange rate, app state).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { keyPair, profileBody, startChainNode, type ChainNode, type J } from '../helpers/chainNode.js';

function sdkFieldNames(): Set<string> {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('deso-protocol/package.json')), 'src', 'backend-types');
  const text = ['deso-types.d.ts', 'deso-types-custom.d.ts'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  return new Set([...text.matchAll(/^\s*([A-Za-z0-9_]+)\??:/gm)].map((m) => m[1]!));
}

/** Every object key in a JSON answer, at any depth. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  }
  return out;
}

let n: ChainNode;
const user = keyPair();
before(async () => {
  n = await startChainNode({ args: ['--response-names', 'reference'] });
  await n.fund(user.pk, 1e8);
  const c = await n.ok('update-profile', { ...profileBody(user.pk, `rn${Date.now().toString(36)}`), MinFeeRateNanosPerKB: 1000 });
  await n.submit(c['TransactionHex'] as string, user, 'sdk');
});
after(async () => {
  await n?.close();
});

describe('--response-names reference', () => {
  it('answers with the names the SDK declares, and none of the spec\'s Native/Legacy names', async () => {
    const answers: J[] = [
      await n.ok('get-single-profile', { PublicKeyBase58Check: user.pk }),
      await n.ok('get-users-stateless', { PublicKeysBase58Check: [user.pk], SkipForLeaderboard: false }),
      await n.ok('get-app-state', {}),
      (await (await fetch(`${n.url}/api/v0/get-exchange-rate`)).json()) as J,
    ];
    const keys = new Set(answers.flatMap((a) => [...keysOf(a)]));
    assert.deepEqual([...keys].filter((k) => /Native|Legacy/.test(k)), [], 'no spec-only name is left');
    const sdk = sdkFieldNames();
    const referenceNamed = [...keys].filter((k) => /DeSo|DESO|BitClout/.test(k));
    assert.ok(referenceNamed.length >= 5, `reference names answered: ${referenceNamed.join(', ')}`);
    assert.deepEqual(referenceNamed.filter((k) => !sdk.has(k)), [], 'each one is a field the SDK types declare');
  });
});
