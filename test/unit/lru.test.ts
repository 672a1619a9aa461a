/**
 * LruMap (server/lru.ts): the same answers and the same evictions as a plain model of an LRU map
 * (an array in use order), over thousands of random operations at several bounds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LruMap } from '../../server/lru.js';
import { seededRandom } from '../helpers/seededRandom.js';

/** The plain definition: entries least recently used first; a get or set moves one to the end. */
class ModelLru<K, V> {
  entries: Array<[K, V]> = [];
  constructor(readonly max: number) {}
  private at(key: K): number {
    return this.entries.findIndex(([k]) => k === key);
  }
  has(key: K): boolean {
    return this.at(key) !== -1;
  }
  get(key: K): V | undefined {
    const i = this.at(key);
    if (i === -1) return undefined;
    const [e] = this.entries.splice(i, 1);
    this.entries.push(e!);
    return e![1];
  }
  set(key: K, value: V): void {
    const i = this.at(key);
    if (i !== -1) this.entries.splice(i, 1);
    this.entries.push([key, value]);
    while (this.entries.length > this.max) this.entries.shift();
  }
  delete(key: K): boolean {
    const i = this.at(key);
    if (i === -1) return false;
    this.entries.splice(i, 1);
    return true;
  }
}

describe('LruMap', () => {
  it('answers and evicts as the plain model over 5,000 random operations per bound', () => {
    for (const max of [1, 2, 3, 10, 64]) {
      const next = seededRandom(max * 7919);
      const lru = new LruMap<string, number>(max);
      const model = new ModelLru<string, number>(max);
      for (let step = 0; step < 5000; step++) {
        const key = `k${Math.floor(next() * max * 3)}`;
        const op = next();
        const what = `bound ${max}, step ${step}`;
        if (op < 0.35) assert.equal(lru.get(key), model.get(key), `get ${what}`);
        else if (op < 0.4) assert.equal(lru.has(key), model.has(key), `has ${what}`);
        else if (op < 0.45) {
          assert.equal(lru.peek(key), model.entries.find(([k]) => k === key)?.[1], `peek ${what}`);
          assert.equal(lru.oldestKey(), model.entries[0]?.[0], `oldestKey ${what}`);
        }
        else if (op < 0.55) assert.equal(lru.delete(key), model.delete(key), `delete ${what}`);
        else if (op < 0.56) {
          lru.clear();
          model.entries = [];
        } else {
          const value = step;
          lru.set(key, value);
          model.set(key, value);
        }
        assert.equal(lru.size, model.entries.length, `size ${what}`);
        assert.deepEqual([...lru.keys()], model.entries.map(([k]) => k), `use order ${what}`);
      }
    }
  });

  it('holds undefined values as entries (a read of a key the store lacks is cached too)', () => {
    const lru = new LruMap<string, undefined | number>(2);
    lru.set('missing', undefined);
    assert.equal(lru.has('missing'), true);
    assert.equal(lru.get('missing'), undefined);
    lru.set('a', 1);
    lru.get('missing');
    lru.set('b', 2);
    assert.deepEqual([...lru.keys()], ['missing', 'b'], 'the get kept "missing"; "a" was the least recently used');
  });

  it('has and peek do not count as a use', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    assert.equal(lru.has('a'), true);
    assert.equal(lru.peek('a'), 1);
    lru.set('c', 3);
    assert.deepEqual([...lru.keys()], ['b', 'c']);
  });

  it('refuses a bound that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) assert.throws(() => new LruMap(bad), /"maxEntries" expected a positive integer/);
  });
});
