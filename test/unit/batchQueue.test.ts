/**
 * BatchQueue (server/chain/batchQueue.ts): one batch at a time; items handed in while a batch
 * runs form the next one; each caller gets its own item's answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchQueue, type Settled } from '../../server/chain/batchQueue.js';

const echo = async (items: readonly number[]): Promise<Array<Settled<number>>> => items.map((n) => (n < 0 ? { ok: false, error: new Error(`negative ${n}`) } : { ok: true, value: n * 10 }));

describe('BatchQueue', () => {
  it('answers each caller with its own item, and refuses one item alone', async () => {
    const q = new BatchQueue(echo, 8);
    const answers = await Promise.allSettled([1, -2, 3].map((n) => q.add(n)));
    assert.deepEqual(answers[0], { status: 'fulfilled', value: 10 });
    assert.equal(answers[1]!.status, 'rejected');
    assert.match(String((answers[1] as PromiseRejectedResult).reason), /negative -2/);
    assert.deepEqual(answers[2], { status: 'fulfilled', value: 30 });
  });

  it('runs one batch at a time; what arrives meanwhile is the next batch, cut at maxItems', async () => {
    const batches: number[][] = [];
    let running = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new BatchQueue(async (items: readonly number[]) => {
      running++;
      assert.equal(running, 1, 'never two batches at once');
      batches.push([...items]);
      if (batches.length === 1) await gate;
      running--;
      return echo(items);
    }, 3);
    const first = q.add(0);
    await new Promise((r) => setImmediate(r));
    const later = [1, 2, 3, 4, 5].map((n) => q.add(n));
    assert.equal(q.queued, 5);
    release();
    assert.deepEqual(await Promise.all([first, ...later]), [0, 10, 20, 30, 40, 50]);
    assert.deepEqual(batches, [[0], [1, 2, 3], [4, 5]]);
  });

  it('items handed in by one tick share a batch', async () => {
    const sizes: number[] = [];
    const q = new BatchQueue(async (items: readonly number[]) => {
      sizes.push(items.length);
      return echo(items);
    }, 100);
    await Promise.all(Array.from({ length: 20 }, (_, i) => q.add(i)));
    assert.deepEqual(sizes, [20]);
  });

  it('a failing batch rejects its items, and the queue goes on with the next', async () => {
    let calls = 0;
    const q = new BatchQueue(async (items: readonly number[]) => {
      calls++;
      if (calls === 1) throw new Error('store down');
      return echo(items);
    }, 100);
    await assert.rejects(q.add(1), /store down/);
    assert.equal(await q.add(2), 20);
  });

  it('refuses a maxItems that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, NaN]) assert.throws(() => new BatchQueue(echo, bad), RangeError);
  });
});
