import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LmdbStore, MAX_KEY_BYTES } from '../../server/store/lmdb.js';
import { isStoreError } from '../../server/store/types.js';
import { storeSuite } from './store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'sn-lmdb-test-'));
}

/** Every raw LMDB key of the store, as hex (kind byte first). */
function rawKeys(store: LmdbStore): string[] {
  const db = (store as unknown as { db: { getKeys(o: object): Iterable<Buffer> } }).db;
  return [...db.getKeys({})].map((k) => Buffer.from(k).toString('hex'));
}

storeSuite('LmdbStore contract', async () => {
  const dir = tempDir();
  const store = LmdbStore.open({ path: dir });
  return {
    store,
    peer: async () => store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('LmdbStore specifics', () => {
  const withDir = (body: (dir: string) => Promise<void>) => async () => {
    const dir = tempDir();
    try {
      await body(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('keeps values, counters, indexes and expiries across close and reopen', withDir(async (dir) => {
    const first = LmdbStore.open({ path: dir });
    await first.commit([
      { op: 'set', key: 'tip', value: { height: 7n, hash: new Uint8Array([1, 2]) } },
      { op: 'set', key: 'session', value: 's', ttlMs: 60_000 },
      { op: 'set', key: 'brief', value: 'b', ttlMs: 100 },
      { op: 'incr', key: 'n', by: 5 },
      { op: 'indexAdd', key: 'i', members: ['b', 'a', 'c'] },
    ]);
    await first.close();
    await sleep(150);
    const again = LmdbStore.open({ path: dir });
    try {
      const tip = await again.get<{ height: bigint; hash: Uint8Array }>('tip');
      assert.equal(tip?.height, 7n);
      assert.deepEqual([...(tip?.hash ?? [])], [1, 2]);
      assert.equal(await again.get('session'), 's');
      assert.equal(await again.get('brief'), undefined, 'expired while closed');
      assert.equal(await again.getCounter('n'), 5);
      assert.deepEqual(await again.indexRange('i'), ['a', 'b', 'c']);
      assert.equal(await again.indexSize('i'), 3);
    } finally {
      await again.close();
    }
  }));

  it('the periodic sweep deletes expired values and their expiry entries without a read', withDir(async (dir) => {
    const store = LmdbStore.open({ path: dir, sweepIntervalMs: 20 });
    try {
      // 'short' outlives the first look even on a loaded machine (a 10 ms TTL did not, in CI).
      await store.set('short', 1, { ttlMs: 400 });
      await store.set('long', 2, { ttlMs: 60_000 });
      assert.equal(rawKeys(store).length, 4, 'two values and their two expiry entries');
      await sleep(800);
      const left = rawKeys(store);
      assert.equal(left.length, 2, `the long value and its expiry entry: ${left.join(' ')}`);
      assert.ok(left.every((k) => !k.endsWith(Buffer.from('short').toString('hex'))), 'nothing of short is left');
    } finally {
      await store.close();
    }
  }));

  it('a value set again drops its old expiry entry; a set without TTL leaves none', withDir(async (dir) => {
    const store = LmdbStore.open({ path: dir });
    try {
      for (let i = 0; i < 10; i++) await store.set('lease', i, { ttlMs: 60_000 + i });
      assert.equal(rawKeys(store).length, 2, 'one value, one expiry entry');
      await store.set('lease', 'forever');
      assert.equal(rawKeys(store).length, 1, 'the value alone');
      await store.set('lease', 'again', { ttlMs: 60_000 });
      await store.delete('lease');
      assert.deepEqual(rawKeys(store), []);
    } finally {
      await store.close();
    }
  }));

  it('deleting a large index removes every member and its size', withDir(async (dir) => {
    const store = LmdbStore.open({ path: dir });
    try {
      await store.indexAdd('big', Array.from({ length: 3000 }, (_, i) => `m${i}`));
      await store.indexAdd('other', ['a']);
      assert.equal(await store.delete('big'), true);
      assert.equal(await store.indexSize('big'), 0);
      assert.equal(rawKeys(store).length, 2, 'the other index: one member and its size');
    } finally {
      await store.close();
    }
  }));

  it(`refuses keys over ${MAX_KEY_BYTES} bytes and over-long members, and a commit holding one writes nothing`, withDir(async (dir) => {
    const store = LmdbStore.open({ path: dir });
    const refused = (err: unknown) => isStoreError(err) && err.code === 'STORE_INVALID_ARGUMENT';
    try {
      const long = 'k'.repeat(MAX_KEY_BYTES + 1);
      await assert.rejects(store.set(long, 1), refused);
      await assert.rejects(store.get(long), refused);
      await assert.rejects(store.indexAdd('i', ['m'.repeat(2000)]), refused);
      await assert.rejects(store.commit([{ op: 'set', key: 'ok', value: 1 }, { op: 'incr', key: long, by: 1 }]), refused);
      await assert.rejects(store.commit([{ op: 'set', key: 'ok', value: 1 }], [{ key: long, equals: undefined }]), refused);
      assert.equal(await store.get('ok'), undefined);
      await store.set('k'.repeat(MAX_KEY_BYTES), 'fits', { ttlMs: 60_000 });
      assert.equal(await store.get('k'.repeat(MAX_KEY_BYTES)), 'fits');
    } finally {
      await store.close();
    }
  }));
});
