import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore, compareUtf8 } from '../../server/store/memory.js';
import { storeSuite } from './store.js';

storeSuite('MemoryStore contract', async () => {
  const store = new MemoryStore();
  return { store, peer: async () => store, cleanup: () => store.close() };
});

describe('MemoryStore specifics', () => {
  it('compareUtf8 agrees with UTF-8 byte order (Buffer.compare)', () => {
    // Random strings mixing ASCII, BMP around the surrogate gap, and astral characters.
    const alphabet = ['a', 'z', '\u007f', '\u0080', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '😀', '\u{10ffff}'];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = () => {
      let s = '';
      const length = Math.floor(random() * 4);
      for (let i = 0; i < length; i++) s += alphabet[Math.floor(random() * alphabet.length)];
      return s;
    };
    for (let i = 0; i < 5000; i++) {
      const a = pick();
      const b = pick();
      const expected = Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      assert.equal(Math.sign(compareUtf8(a, b)), expected, JSON.stringify([a, b]));
    }
  });

  it('the periodic sweep drops expired values without a read', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    try {
      await store.set('k', 1, { ttlMs: 10 });
      const values = (store as unknown as { values: Map<string, unknown> }).values;
      assert.equal(values.size, 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(values.size, 0);
    } finally {
      await store.close();
    }
  });

  it('the periodic sweep drops expired map entries, and a map once empty, without a read', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    try {
      await store.mapSet('m', 'short', 1, 10);
      await store.mapSet('n', 'short', 1, 10);
      await store.mapSet('n', 'long', 2, 60_000);
      const maps = (store as unknown as { maps: Map<string, Map<string, unknown>> }).maps;
      assert.equal(maps.size, 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual([...maps.keys()], ['n']);
      assert.deepEqual([...maps.get('n')!.keys()], ['long']);
    } finally {
      await store.close();
    }
  });

  it('a throwing or rejecting subscriber goes to onError and does not stop the others', async () => {
    const errors: unknown[] = [];
    const store = new MemoryStore({ onError: (err) => errors.push(err) });
    try {
      const got: unknown[] = [];
      await store.subscribe('ch', () => {
        throw new Error('sync boom');
      });
      await store.subscribe('ch', async () => {
        throw new Error('async boom');
      });
      await store.subscribe('ch', (m) => got.push(m));
      await store.publish('ch', 'hello');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(got, ['hello']);
      assert.deepEqual(errors.map((e) => (e as Error).message).sort(), ['async boom', 'sync boom']);
    } finally {
      await store.close();
    }
  });
});
