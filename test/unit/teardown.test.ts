/** Teardown (server/teardown.ts): parts stop last started first, each once, a failing one logged and the rest still stopped. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { Teardown } from '../../server/teardown.js';

describe('Teardown', () => {
  it('stops the parts last started first, each once, and hands back each part as it registers it', async () => {
    const stopped: string[] = [];
    const down = new Teardown(pino({ level: 'silent' }));
    const store = down.add('store', { name: 'store' }, (p) => void stopped.push(p.name));
    down.add('crypto', { name: 'crypto' }, async (p) => {
      await new Promise((r) => setImmediate(r));
      stopped.push(p.name);
    });
    down.add('producer', { name: 'producer' }, (p) => void stopped.push(p.name));
    assert.equal(store.name, 'store');
    await down.run();
    await down.run();
    assert.deepEqual(stopped, ['producer', 'crypto', 'store']);
  });

  it('a part that fails to stop is logged, and the parts before it still stop', async () => {
    const lines: string[] = [];
    const down = new Teardown(pino({ level: 'warn' }, { write: (s: string) => void lines.push(s) }));
    const stopped: string[] = [];
    down.add('store', 'store', (p) => void stopped.push(p));
    down.add('registry', 'registry', () => Promise.reject(new Error('store unreachable')));
    await down.run();
    assert.deepEqual(stopped, ['store']);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /"part":"registry".*store unreachable.*a part failed to stop/);
  });
});
