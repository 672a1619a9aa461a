// MicroBatcher: flushes when full and when the wait ends, routes each result to its own caller,
// and keeps one item's error (or one batch's failure) away from everyone else.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MicroBatcher, createVerifyBatcher, MAX_BATCH_ITEMS, MAX_WAIT_MS } from '../../server/crypto/batcher.js';
import { PoolError } from '../../server/crypto/errors.js';
import type { VerifyItem } from '../../server/crypto/pack.js';
import type { WorkResult } from '../../workers/types.js';

/** A runner that records each batch and answers item n with n * 10 (negative n is an item error). */
function recordingRunner(): { batches: number[][]; run: (items: number[]) => Promise<WorkResult<number>[]> } {
  const batches: number[][] = [];
  return {
    batches,
    run: async (items) => {
      batches.push([...items]);
      return items.map((n) => (n < 0 ? { ok: false, error: `item ${n} is negative` } : { ok: true, value: n * 10 }));
    },
  };
}

describe('MicroBatcher', () => {
  it('has sane defaults', () => {
    assert.ok(MAX_BATCH_ITEMS >= 1 && Number.isInteger(MAX_BATCH_ITEMS), `MAX_BATCH_ITEMS ${MAX_BATCH_ITEMS}`);
    assert.ok(MAX_WAIT_MS >= 0 && MAX_WAIT_MS <= 10, `MAX_WAIT_MS ${MAX_WAIT_MS} keeps added latency small`);
  });

  it('flushes as soon as a batch is full, without waiting', async () => {
    const r = recordingRunner();
    const b = new MicroBatcher(r.run, { maxItems: 3, maxWaitMs: 10_000 });
    const started = performance.now();
    const results = await Promise.all([1, 2, 3].map((n) => b.submit(n)));
    assert.ok(performance.now() - started < 1_000, 'did not wait for the 10 s timer');
    assert.deepEqual(r.batches, [[1, 2, 3]]);
    assert.deepEqual(results, [10, 20, 30].map((value) => ({ ok: true, value })));
  });

  it('splits a burst into full batches and a remainder', async () => {
    const r = recordingRunner();
    const b = new MicroBatcher(r.run, { maxItems: 4, maxWaitMs: 1 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => b.submit(i)));
    assert.deepEqual(r.batches, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
    assert.deepEqual(results.map((x) => (x.ok ? x.value : NaN)), Array.from({ length: 10 }, (_, i) => i * 10));
  });

  it('flushes a partial batch after maxWaitMs', async () => {
    const r = recordingRunner();
    const b = new MicroBatcher(r.run, { maxItems: 100, maxWaitMs: 30 });
    const p = b.submit(7);
    await sleep(5);
    assert.equal(r.batches.length, 0, 'not sent before the wait ends');
    assert.equal(b.pending, 1);
    assert.deepEqual(await p, { ok: true, value: 70 });
    assert.deepEqual(r.batches, [[7]]);
  });

  it('with maxWaitMs 0, batches everything submitted in the same event-loop turn', async () => {
    const r = recordingRunner();
    const b = new MicroBatcher(r.run, { maxItems: 100, maxWaitMs: 0 });
    const first = [1, 2, 3].map((n) => b.submit(n));
    await Promise.resolve(); // microtasks of the same turn still join the batch
    first.push(b.submit(4));
    await Promise.all(first);
    await b.submit(5);
    assert.deepEqual(r.batches, [[1, 2, 3, 4], [5]]);
  });

  it('routes results to the right callers when batches complete out of order', async () => {
    const b = new MicroBatcher<number, number>(
      async (items) => {
        // The first batch answers last.
        await sleep(items[0] === 0 ? 40 : 1);
        return items.map((n) => ({ ok: true, value: n }));
      },
      { maxItems: 2, maxWaitMs: 1 },
    );
    const results = await Promise.all([0, 1, 2, 3].map((n) => b.submit(n)));
    assert.deepEqual(results.map((x) => (x.ok ? x.value : -1)), [0, 1, 2, 3]);
  });

  it('an item error reaches only its caller', async () => {
    const r = recordingRunner();
    const b = new MicroBatcher(r.run, { maxItems: 3, maxWaitMs: 1 });
    const [a, bad, c] = await Promise.all([5, -1, 6].map((n) => b.submit(n)));
    assert.deepEqual(a, { ok: true, value: 50 });
    assert.deepEqual(bad, { ok: false, error: 'item -1 is negative' });
    assert.deepEqual(c, { ok: true, value: 60 });
  });

  it('a failed batch rejects its own callers only, and the next batch runs normally', async () => {
    let calls = 0;
    const b = new MicroBatcher<number, number>(
      async (items) => {
        if (calls++ === 0) throw new PoolError('POOL_BUSY', 'busy');
        return items.map((n) => ({ ok: true, value: n }));
      },
      { maxItems: 2, maxWaitMs: 1 },
    );
    const failed = [b.submit(1), b.submit(2)];
    const later = [b.submit(3), b.submit(4)];
    for (const p of failed) await assert.rejects(p, (e: unknown) => e instanceof PoolError && e.code === 'POOL_BUSY');
    assert.deepEqual(await Promise.all(later), [3, 4].map((value) => ({ ok: true, value })));
  });

  it('a runner that throws synchronously or miscounts results rejects that batch', async () => {
    const throwing = new MicroBatcher<number, number>(() => {
      throw new Error('sync failure');
    }, { maxItems: 1 });
    await assert.rejects(throwing.submit(1), /sync failure/);
    const short = new MicroBatcher<number, number>(async () => [], { maxItems: 1 });
    await assert.rejects(short.submit(1), /expected 1 results, got 0/);
  });

  it('flush() sends what is pending at once', async () => {
    const r = recordingRunner();
    const b = new MicroBatcher(r.run, { maxItems: 100, maxWaitMs: 10_000 });
    const p = [b.submit(1), b.submit(2)];
    b.flush();
    assert.deepEqual(r.batches, [[1, 2]]);
    assert.equal((await Promise.all(p)).length, 2);
    b.flush();
    assert.equal(r.batches.length, 1, 'an empty flush sends nothing');
  });

  it('rejects bad options, naming them', () => {
    assert.throws(() => new MicroBatcher(recordingRunner().run, { maxItems: 0 }), /"maxItems" expected an integer >= 1, got 0/);
    assert.throws(() => new MicroBatcher(recordingRunner().run, { maxWaitMs: -1 }), /"maxWaitMs" expected a number >= 0, got -1/);
    assert.throws(() => new MicroBatcher(recordingRunner().run, { maxInFlight: 0 }), /"maxInFlight" expected an integer >= 1 or Infinity, got 0/);
  });

  it('with maxInFlight, items arriving while that many batches run wait and then leave together', async () => {
    const batches: number[][] = [];
    const release: Array<() => void> = [];
    const run = (items: number[]): Promise<WorkResult<number>[]> => {
      batches.push([...items]);
      return new Promise((resolve) => release.push(() => resolve(items.map((value) => ({ ok: true, value })))));
    };
    // A later immediate runs after the batcher's own (scheduled first).
    const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
    const b = new MicroBatcher(run, { maxItems: 4, maxWaitMs: 0, maxInFlight: 1 });
    const first = b.submit(1);
    await turn();
    assert.deepEqual(batches, [[1]], 'idle: the first item leaves at once');
    const waiting = [2, 3, 4, 5, 6].map((n) => b.submit(n));
    await turn();
    assert.equal(batches.length, 1, 'nothing more leaves while the one batch allowed runs');
    assert.equal(b.pending, 5);
    release.shift()!();
    await first;
    await turn();
    assert.deepEqual(batches, [[1], [2, 3, 4, 5]], 'the waiting items leave as one batch, capped at maxItems');
    release.shift()!();
    await turn();
    assert.deepEqual(batches, [[1], [2, 3, 4, 5], [6]]);
    release.shift()!();
    assert.deepEqual(await Promise.all(waiting), [2, 3, 4, 5, 6].map((value) => ({ ok: true, value })));
    assert.equal(b.inFlight, 0);
  });

  it('flush(true) sends everything at once whatever runs (shutdown)', async () => {
    const r = recordingRunner();
    const b = new MicroBatcher(r.run, { maxItems: 2, maxWaitMs: 10_000, maxInFlight: 1 });
    const p = [1, 2, 3, 4, 5].map((n) => b.submit(n));
    b.flush(true);
    assert.deepEqual(r.batches, [[1, 2], [3, 4], [5]]);
    assert.equal((await Promise.all(p)).length, 5);
  });

  it('createVerifyBatcher sends concurrent single verifications as one pool batch', async () => {
    const seen: number[] = [];
    const pool = {
      verifySignatures: async (items: readonly VerifyItem[]): Promise<WorkResult<boolean>[]> => {
        seen.push(items.length);
        return items.map((it) => ({ ok: true, value: it.hash[0] === 1 }));
      },
    };
    const b = createVerifyBatcher(pool, { maxItems: 8, maxWaitMs: 1 });
    const item = (h: number): VerifyItem => ({ publicKey: new Uint8Array(33), hash: new Uint8Array(32).fill(h), signature: new Uint8Array(64) });
    const results = await Promise.all([1, 0, 1].map((h) => b.submit(item(h))));
    assert.deepEqual(seen, [3]);
    assert.deepEqual(results, [true, false, true].map((value) => ({ ok: true, value })));
  });
});
