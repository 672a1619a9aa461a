/**
 * The Store contract: every implementation must pass this suite unchanged
 * (store.memory.test.ts, store.lmdb.test.ts, store.redis.test.ts).
 *
 * Every assert.ok carries a message: without one, a failing assert.ok makes Node re-parse the
 * (tsx-transformed) source to describe the expression, which can spin for minutes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStoreError, type Store, type StoreErrorCode, type WriteOp } from '../../server/store/types.js';

export interface StoreFixture {
  store: Store;
  /**
   * Another client of the same data, as a second server process would hold (a single-process
   * store returns itself). Closed by `cleanup`.
   */
  peer(): Promise<Store>;
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function rejectsWith(promise: Promise<unknown>, code: StoreErrorCode): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isStoreError(err), `expected a StoreError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

/** Polls until `check` passes (it throws until then) or the deadline passes. */
async function eventually(check: () => void, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(10);
    }
  }
}

/** Sort like Redis BYLEX: by the UTF-8 bytes of each member. */
function byteOrder(members: readonly string[]): string[] {
  return [...members].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

export function storeSuite(name: string, factory: () => Promise<StoreFixture>): void {
  /** Each test gets its own store (or key namespace) and always cleans it up. */
  const withStore = (body: (store: Store, peer: () => Promise<Store>) => Promise<void>) => async () => {
    const fixture = await factory();
    try {
      await body(fixture.store, () => fixture.peer());
    } finally {
      await fixture.cleanup();
    }
  };

  describe(name, () => {
    describe('values', () => {
      it('round-trips every supported kind of value', withStore(async (store) => {
        const samples: Record<string, unknown> = {
          object: { a: 1, b: 'two', c: { d: [true, false, null] } },
          nestedArrays: [[1, [2, [3, ['four']]]], [], [[[]]]],
          unicode: 'héllo wörld ✓ 中文 😀 \u0000 end',
          emptyString: '',
          emptyObject: {},
          emptyArray: [],
          null: null,
          true: true,
          false: false,
          zero: 0,
          negativeFloat: -1.5,
          maxSafe: Number.MAX_SAFE_INTEGER,
          smallBigint: 5n,
          negativeBigint: -7n,
          bigint2pow64: 2n ** 64n,
          bigint2pow200: 2n ** 200n,
          negativeHugeBigint: -(2n ** 200n) + 1n,
          mixed: { amount: 2n ** 70n, list: [1n, 2, '3'], nested: { deep: [-(2n ** 65n)] } },
        };
        for (const [key, value] of Object.entries(samples)) await store.set(key, value);
        for (const [key, value] of Object.entries(samples)) {
          assert.deepEqual(await store.get(key), value, key);
        }
        assert.equal(typeof (await store.get('smallBigint')), 'bigint');
        assert.equal(typeof (await store.get('zero')), 'number');
      }));

      it('round-trips Uint8Array contents, top-level and nested', withStore(async (store) => {
        const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
        await store.set('bytes', bytes);
        await store.set('nested', { sig: bytes, list: [new Uint8Array(0)] });
        const top = await store.get<Uint8Array>('bytes');
        assert.ok(top instanceof Uint8Array, 'top-level bytes are not a Uint8Array');
        assert.deepEqual([...top], [...bytes]);
        const nested = await store.get<{ sig: Uint8Array; list: Uint8Array[] }>('nested');
        assert.ok(nested?.sig instanceof Uint8Array, 'nested bytes are not a Uint8Array');
        assert.deepEqual([...nested.sig], [...bytes]);
        assert.equal(nested.list[0]?.length, 0);
      }));

      it('returns undefined for missing keys and overwrites on set', withStore(async (store) => {
        assert.equal(await store.get('missing'), undefined);
        await store.set('k', 1);
        await store.set('k', { now: 'object' });
        assert.deepEqual(await store.get('k'), { now: 'object' });
      }));

      it('getMany keeps order and reports missing keys as undefined', withStore(async (store) => {
        await store.set('a', 'A');
        await store.set('c', { c: 3n });
        assert.deepEqual(await store.getMany(['a', 'b', 'c', 'a']), ['A', undefined, { c: 3n }, 'A']);
        assert.deepEqual(await store.getMany([]), []);
      }));

      it('delete reports whether the key existed', withStore(async (store) => {
        await store.set('k', 'v');
        assert.equal(await store.delete('k'), true);
        assert.equal(await store.get('k'), undefined);
        assert.equal(await store.delete('k'), false);
      }));

      it('reads are copies: mutating a returned value never changes the store', withStore(async (store) => {
        const original = { list: [1, 2], inner: { x: 1 }, bytes: new Uint8Array([1, 2, 3]) };
        await store.set('k', original);
        original.list.push(99); // mutating the written object afterwards changes nothing either
        const first = await store.get<typeof original>('k');
        assert.ok(first, 'value missing');
        first.list.push(3);
        first.inner.x = 42;
        first.bytes[0] = 200;
        const [second] = await store.getMany<typeof original>(['k']);
        assert.ok(second, 'value missing');
        assert.deepEqual(second.list, [1, 2]);
        assert.equal(second.inner.x, 1);
        assert.deepEqual([...second.bytes], [1, 2, 3]);
        assert.notEqual(first, second);
      }));

      it('rejects undefined and other unstorable values (use delete)', withStore(async (store) => {
        await rejectsWith(store.set('k', undefined), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.set('k', () => 1), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.set('k', Symbol('s')), 'STORE_INVALID_ARGUMENT');
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await rejectsWith(store.set('k', cyclic), 'STORE_INVALID_ARGUMENT');
        assert.equal(await store.get('k'), undefined);
      }));

      it('rejects non-string keys and keys without a UTF-8 form', withStore(async (store) => {
        await rejectsWith(store.set(42 as unknown as string, 1), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.get('\uD800lonely'), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.getMany(['ok', 7 as unknown as string]), 'STORE_INVALID_ARGUMENT');
      }));

      it('expires values after ttlMs', withStore(async (store) => {
        await store.set('short', 'gone soon', { ttlMs: 80 });
        await store.set('long', 'stays', { ttlMs: 60_000 });
        assert.equal(await store.get('short'), 'gone soon');
        await sleep(200);
        assert.equal(await store.get('short'), undefined);
        assert.deepEqual(await store.getMany(['short', 'long']), [undefined, 'stays']);
        assert.deepEqual(await store.keys('short'), []);
        assert.equal(await store.delete('short'), false);
      }));

      it('set without ttlMs clears an earlier TTL', withStore(async (store) => {
        await store.set('k', 1, { ttlMs: 80 });
        await store.set('k', 2);
        await sleep(200);
        assert.equal(await store.get('k'), 2);
      }));

      it('rejects invalid ttlMs', withStore(async (store) => {
        for (const ttlMs of [0, -5, 1.5, Number.NaN, Infinity]) {
          await rejectsWith(store.set('k', 1, { ttlMs }), 'STORE_INVALID_ARGUMENT');
        }
        assert.equal(await store.get('k'), undefined);
      }));
    });

    describe('counters', () => {
      it('starts at 0 and adds 1 by default', withStore(async (store) => {
        assert.equal(await store.getCounter('n'), 0);
        assert.equal(await store.incr('n'), 1);
        assert.equal(await store.incr('n'), 2);
        assert.equal(await store.getCounter('n'), 2);
      }));

      it('adds any integer, including negative and zero', withStore(async (store) => {
        assert.equal(await store.incr('n', 10), 10);
        assert.equal(await store.incr('n', -25), -15);
        assert.equal(await store.incr('n', 0), -15);
        assert.equal(await store.getCounter('n'), -15);
        assert.equal(await store.incr('big', 2 ** 52), 2 ** 52);
      }));

      it('rejects non-integer increments without changing the counter', withStore(async (store) => {
        await store.incr('n', 3);
        for (const by of [1.5, Number.NaN, Infinity, 2 ** 53, '1' as unknown as number]) {
          await rejectsWith(store.incr('n', by), 'STORE_INVALID_ARGUMENT');
        }
        assert.equal(await store.getCounter('n'), 3);
      }));

      it('delete removes a counter', withStore(async (store) => {
        await store.incr('n', 5);
        assert.equal(await store.delete('n'), true);
        assert.equal(await store.getCounter('n'), 0);
      }));

      it('are separate from values: keys() lists only value keys', withStore(async (store) => {
        await store.set('kind:value', 1);
        await store.incr('kind:counter');
        await store.indexAdd('kind:index', ['m']);
        assert.deepEqual(await store.keys('kind:'), ['kind:value']);
      }));
    });

    describe('commit', () => {
      it('applies every kind of op and returns true', withStore(async (store) => {
        await store.set('old', 'x');
        await store.indexAdd('idx', ['gone', 'keep']);
        const ok = await store.commit([
          { op: 'set', key: 'a', value: { n: 1n } },
          { op: 'set', key: 'b', value: [1, 2] },
          { op: 'del', key: 'old' },
          { op: 'incr', key: 'count', by: 7 },
          { op: 'incr', key: 'count', by: -2 },
          { op: 'indexAdd', key: 'idx', members: ['new', 'another'] },
          { op: 'indexRemove', key: 'idx', members: ['gone'] },
        ]);
        assert.equal(ok, true);
        assert.deepEqual(await store.getMany(['a', 'b', 'old']), [{ n: 1n }, [1, 2], undefined]);
        assert.equal(await store.getCounter('count'), 5);
        assert.deepEqual(await store.indexRange('idx'), ['another', 'keep', 'new']);
      }));

      it('publishes its announcement once the writes are applied, never when a guard fails', withStore(async (store) => {
        const heard: Array<{ message: unknown; value: unknown }> = [];
        // What a subscriber reads when it hears the announcement: the commit's writes are there.
        await store.subscribe('announced', (message) => void store.get('written').then((value) => heard.push({ message, value })));
        const refused = await store.commit([{ op: 'set', key: 'written', value: 'no' }], [{ key: 'guard', equals: 1 }], { channel: 'announced', message: { n: 0 } });
        assert.equal(refused, false);
        const ok = await store.commit([{ op: 'set', key: 'written', value: 'yes' }], [{ key: 'guard', equals: undefined }], { channel: 'announced', message: { n: 1n, added: ['a', 'b'] } });
        assert.equal(ok, true);
        await eventually(() => assert.equal(heard.length, 1));
        assert.deepEqual(heard, [{ message: { n: 1n, added: ['a', 'b'] }, value: 'yes' }]);
        // An announcement alone (no ops, no guards) is still published.
        assert.equal(await store.commit([], undefined, { channel: 'announced', message: 'bare' }), true);
        await eventually(() => assert.equal(heard.length, 2));
        await sleep(50);
        assert.equal(heard.length, 2, 'the refused commit announced nothing');
      }));

      it('rejects an invalid announcement before writing anything', withStore(async (store) => {
        await rejectsWith(store.commit([{ op: 'set', key: 'k', value: 1 }], undefined, { channel: '\ud800', message: 1 }), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.commit([{ op: 'set', key: 'k', value: 1 }], undefined, { channel: 'c', message: undefined }), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.commit([{ op: 'set', key: 'k', value: 1 }], undefined, null as unknown as { channel: string; message: unknown }), 'STORE_INVALID_ARGUMENT');
        assert.equal(await store.get('k'), undefined);
      }));

      it('applies ops in order', withStore(async (store) => {
        await store.commit([
          { op: 'set', key: 'k1', value: 1 },
          { op: 'del', key: 'k1' },
          { op: 'del', key: 'k2' },
          { op: 'set', key: 'k2', value: 2 },
          { op: 'indexAdd', key: 'i', members: ['m'] },
          { op: 'indexRemove', key: 'i', members: ['m'] },
          { op: 'indexAdd', key: 'i', members: ['n'] },
        ]);
        assert.deepEqual(await store.getMany(['k1', 'k2']), [undefined, 2]);
        assert.deepEqual(await store.indexRange('i'), ['n']);
      }));

      it('carries any text and size: unicode keys and members, thousands of members, values of every length class', withStore(async (store) => {
        const members = Array.from({ length: 2_000 }, (_, i) => `m${String(i).padStart(4, '0')}`);
        const text = ['', 'é', '中文', '😀', 'a\u0000b', 'x'.repeat(300), 'ü'.repeat(30_000)];
        const bytes = [0, 1, 255, 256, 65_535, 65_536, 200_000].map((n) => new Uint8Array(n).map((_, i) => (i * 7) & 0xff));
        await store.set('guarded', 'héllo 😀');
        const ok = await store.commit(
          [
            ...text.map((value, i) => ({ op: 'set' as const, key: `t:${value.slice(0, 40)}:${i}`, value })),
            ...bytes.map((value, i) => ({ op: 'set' as const, key: `b:${i}`, value })),
            { op: 'indexAdd', key: 'many', members },
            { op: 'indexAdd', key: 'ünï', members: ['中', '😀', 'a\u0000', 'x'.repeat(1_500)] },
            { op: 'incr', key: '😀', by: 3 },
          ],
          [{ key: 'guarded', equals: 'héllo 😀' }, { key: 'absent:é', equals: undefined }],
        );
        assert.equal(ok, true);
        assert.deepEqual(await store.getMany(text.map((v, i) => `t:${v.slice(0, 40)}:${i}`)), text);
        const stored = (await store.getMany<Uint8Array>(bytes.map((_, i) => `b:${i}`))).map((b) => Buffer.from(b!));
        assert.deepEqual(stored, bytes.map((b) => Buffer.from(b)));
        assert.deepEqual(await store.indexRange('many'), members);
        assert.deepEqual(await store.indexRange('ünï'), ['a\u0000', 'x'.repeat(1_500), '中', '😀']);
        assert.equal(await store.getCounter('😀'), 3);
        assert.equal(await store.commit([{ op: 'set', key: 'guarded', value: 1 }], [{ key: 'guarded', equals: 'héllo 😀!' }]), false);
      }));

      it('del removes a value, a counter and an index alike', withStore(async (store) => {
        await store.set('v', 1);
        await store.incr('c');
        await store.indexAdd('x', ['m']);
        assert.equal(await store.commit([
          { op: 'del', key: 'v' },
          { op: 'del', key: 'c' },
          { op: 'del', key: 'x' },
        ]), true);
        assert.equal(await store.get('v'), undefined);
        assert.equal(await store.getCounter('c'), 0);
        assert.equal(await store.indexSize('x'), 0);
      }));

      it('an empty commit succeeds', withStore(async (store) => {
        assert.equal(await store.commit([]), true);
        assert.equal(await store.commit([], []), true);
      }));

      it('is all-or-nothing: one invalid op rejects and writes nothing', withStore(async (store) => {
        await store.set('pre', 'before');
        const valid: WriteOp[] = [
          { op: 'set', key: 'pre', value: 'after' },
          { op: 'set', key: 'a', value: 1 },
          { op: 'incr', key: 'n', by: 1 },
          { op: 'indexAdd', key: 'i', members: ['m'] },
          { op: 'del', key: 'pre' },
        ];
        const invalidOps: WriteOp[] = [
          { op: 'set', key: 'bad', value: undefined },
          { op: 'incr', key: 'n', by: 0.5 },
          { op: 'set', key: 'bad', value: 1, ttlMs: -1 },
          { op: 'indexAdd', key: 'i', members: [1 as unknown as string] },
          { op: 'bogus', key: 'x' } as unknown as WriteOp,
          { op: 'set', key: 5 as unknown as string, value: 1 },
        ];
        for (const bad of invalidOps) {
          await rejectsWith(store.commit([...valid, bad]), 'STORE_INVALID_ARGUMENT');
        }
        await rejectsWith(
          store.commit(valid, [{ key: 'pre', equals: undefined }, { key: 'g', equals: () => 1 }]),
          'STORE_INVALID_ARGUMENT',
        );
        assert.equal(await store.get('pre'), 'before');
        assert.equal(await store.get('a'), undefined);
        assert.equal(await store.getCounter('n'), 0);
        assert.equal(await store.indexSize('i'), 0);
      }));

      it('applies when every guard holds (byte-equal values)', withStore(async (store) => {
        const tip = { height: 10, hash: new Uint8Array([1, 2]), work: 2n ** 100n };
        await store.set('tip', tip);
        await store.set('other', 'x');
        const ok = await store.commit(
          [{ op: 'set', key: 'tip', value: { ...tip, height: 11 } }],
          [
            { key: 'tip', equals: { height: 10, hash: new Uint8Array([1, 2]), work: 2n ** 100n } },
            { key: 'other', equals: 'x' },
            { key: 'absent', equals: undefined },
          ],
        );
        assert.equal(ok, true);
        assert.equal((await store.get<{ height: number }>('tip'))?.height, 11);
      }));

      it('writes nothing and returns false when a guard fails', withStore(async (store) => {
        await store.set('tip', 10);
        await store.incr('n');
        const ops: WriteOp[] = [
          { op: 'set', key: 'tip', value: 11 },
          { op: 'incr', key: 'n', by: 1 },
          { op: 'indexAdd', key: 'i', members: ['m'] },
        ];
        assert.equal(await store.commit(ops, [{ key: 'tip', equals: 9 }]), false);
        assert.equal(await store.commit(ops, [{ key: 'tip', equals: 10n }]), false); // bigint != number
        assert.equal(await store.commit(ops, [{ key: 'tip', equals: undefined }]), false); // present
        assert.equal(await store.commit(ops, [{ key: 'missing', equals: null }]), false); // absent != null
        assert.equal(
          await store.commit(ops, [{ key: 'tip', equals: 10 }, { key: 'missing', equals: 1 }]),
          false,
        );
        assert.equal(await store.get('tip'), 10);
        assert.equal(await store.getCounter('n'), 1);
        assert.equal(await store.indexSize('i'), 0);
      }));

      it('a bytes guard compares the stored bytes, even of a value that does not round-trip', withStore(async (store) => {
        // JSON.parse makes "__proto__" an own key; msgpackr reads it back as "__proto_", so the
        // decoded value re-encodes to other bytes and a guard on it can never hold.
        const odd = JSON.parse('{"m":{"__proto__":1}}') as unknown;
        await store.set('rec', odd);
        const read = await store.getStored<Record<string, unknown>>('rec');
        assert.ok(read !== undefined, 'getStored reads the value');
        assert.equal(await store.commit([{ op: 'set', key: 'rec', value: 1 }], [{ key: 'rec', equals: read.value }]), false);
        assert.equal(await store.commit([{ op: 'set', key: 'rec', value: 2 }], [{ key: 'rec', bytes: read.bytes }]), true);
        assert.equal(await store.get('rec'), 2);
        // Stale bytes fail; an undefined bytes guard means absent.
        assert.equal(await store.commit([{ op: 'set', key: 'rec', value: 3 }], [{ key: 'rec', bytes: read.bytes }]), false);
        assert.equal(await store.commit([{ op: 'set', key: 'rec', value: 3 }], [{ key: 'rec', bytes: undefined }]), false);
        assert.equal(await store.getStored('absent'), undefined);
        assert.equal(await store.commit([{ op: 'set', key: 'absent', value: 3 }], [{ key: 'absent', bytes: undefined }]), true);
      }));

      it('getStored answers a copy: changing its bytes changes nothing stored', withStore(async (store) => {
        await store.set('k', 'v');
        const read = await store.getStored('k');
        assert.ok(read !== undefined, 'getStored reads the value');
        read.bytes.fill(0);
        assert.equal(await store.get('k'), 'v');
      }));

      it('an absent-key guard works as a create-if-missing lease', withStore(async (store) => {
        const lease = (owner: string) =>
          store.commit([{ op: 'set', key: 'lease', value: owner, ttlMs: 60_000 }], [{ key: 'lease', equals: undefined }]);
        assert.equal(await lease('first'), true);
        assert.equal(await lease('second'), false);
        assert.equal(await store.get('lease'), 'first');
      }));

      it('a guard fails once the value changed since it was read', withStore(async (store) => {
        await store.set('state', { v: 1 });
        const seen = await store.get('state');
        await store.set('state', { v: 2 }); // another writer got there first
        assert.equal(await store.commit([{ op: 'set', key: 'state', value: { v: 3 } }], [{ key: 'state', equals: seen }]), false);
        assert.deepEqual(await store.get('state'), { v: 2 });
      }));

      it('a guard on an expired key sees it as absent', withStore(async (store) => {
        await store.set('lease', 'old', { ttlMs: 50 });
        await sleep(150);
        assert.equal(await store.commit([{ op: 'set', key: 'lease', value: 'new' }], [{ key: 'lease', equals: undefined }]), true);
        assert.equal(await store.get('lease'), 'new');
      }));

      it('concurrent compare-and-set loops never lose an update', withStore(async (store) => {
        await store.set('counter', 0);
        const bump = async () => {
          for (;;) {
            const current = (await store.get<number>('counter')) ?? 0;
            if (await store.commit([{ op: 'set', key: 'counter', value: current + 1 }], [{ key: 'counter', equals: current }])) return;
          }
        };
        await Promise.all(Array.from({ length: 20 }, bump));
        assert.equal(await store.get('counter'), 20);
      }));

      it('honours ttlMs on set ops', withStore(async (store) => {
        await store.commit([
          { op: 'set', key: 'short', value: 1, ttlMs: 80 },
          { op: 'set', key: 'plain', value: 2 },
        ]);
        assert.equal(await store.get('short'), 1);
        await sleep(200);
        assert.deepEqual(await store.getMany(['short', 'plain']), [undefined, 2]);
      }));

      it('handles long member lists in one op', withStore(async (store) => {
        const members = Array.from({ length: 3000 }, (_, i) => `m${String(i).padStart(5, '0')}`);
        assert.equal(await store.commit([{ op: 'indexAdd', key: 'big', members }]), true);
        assert.equal(await store.indexSize('big'), 3000);
        assert.equal(await store.commit([{ op: 'indexRemove', key: 'big', members: members.slice(0, 2500) }]), true);
        assert.deepEqual(await store.indexRange('big', { limit: 2 }), ['m02500', 'm02501']);
      }));
    });

    describe('indexes', () => {
      const letters = ['b', 'd', 'f', 'h'];

      it('keeps members sorted, ignores duplicates and counts size', withStore(async (store) => {
        await store.indexAdd('i', ['d', 'b', 'h']);
        await store.indexAdd('i', ['f', 'b', 'f']);
        assert.equal(await store.indexSize('i'), 4);
        assert.deepEqual(await store.indexRange('i'), letters);
        assert.deepEqual(await store.indexRange('missing'), []);
        assert.equal(await store.indexSize('missing'), 0);
      }));

      it('orders members by UTF-8 bytes, including astral characters', withStore(async (store) => {
        const members = ['b', 'a', 'aa', '', 'B', '~', 'é', 'z', '\u00ff', '\u0100', '中', '\uffff', '\ue000', '😀', '𝄞', 'a😀', 'a\uffff'];
        await store.indexAdd('u', members);
        const expected = byteOrder(members);
        assert.deepEqual(await store.indexRange('u'), expected);
        // UTF-16 order would put the astral characters before U+E000..U+FFFF; bytes do not.
        assert.ok(expected.indexOf('\uffff') < expected.indexOf('😀'), 'U+FFFF must sort before U+1F600');
        assert.ok(expected.indexOf('a\uffff') < expected.indexOf('a😀'), 'a+U+FFFF must sort before a+U+1F600');
        assert.deepEqual(await store.indexRange('u', { gt: '\uffff' }), ['𝄞', '😀']);
        assert.deepEqual(await store.indexRange('u', { reverse: true }), [...expected].reverse());
      }));

      it('removes members; removing unknown members is harmless', withStore(async (store) => {
        await store.indexAdd('i', letters);
        await store.indexRemove('i', ['d', 'zzz']);
        assert.deepEqual(await store.indexRange('i'), ['b', 'f', 'h']);
        assert.equal(await store.indexSize('i'), 3);
        await store.indexRemove('i', ['b', 'f', 'h']);
        assert.equal(await store.indexSize('i'), 0);
        assert.deepEqual(await store.indexRange('i'), []);
        await store.indexRemove('never', ['x']);
        await store.indexAdd('i', []);
        await store.indexRemove('i', []);
        assert.equal(await store.indexSize('i'), 0);
      }));

      it('supports every bound kind, on and between members', withStore(async (store) => {
        await store.indexAdd('i', letters);
        const cases: [Parameters<Store['indexRange']>[1], string[]][] = [
          [{}, letters],
          [{ gte: 'd' }, ['d', 'f', 'h']],
          [{ gt: 'd' }, ['f', 'h']],
          [{ lte: 'f' }, ['b', 'd', 'f']],
          [{ lt: 'f' }, ['b', 'd']],
          [{ gte: 'c' }, ['d', 'f', 'h']],
          [{ gt: 'c' }, ['d', 'f', 'h']],
          [{ lte: 'e' }, ['b', 'd']],
          [{ lt: 'e' }, ['b', 'd']],
          [{ gte: 'd', lte: 'f' }, ['d', 'f']],
          [{ gt: 'd', lt: 'f' }, []],
          [{ gt: 'b', lte: 'h' }, ['d', 'f', 'h']],
          [{ gte: 'b', lt: 'h' }, ['b', 'd', 'f']],
          [{ gte: 'a', lte: 'z' }, letters],
          [{ gte: 'x' }, []],
          [{ lt: 'b' }, []],
          [{ gte: 'f', lte: 'd' }, []],
          [{ gte: '' }, letters],
          [{ gt: '' }, letters],
        ];
        for (const [range, expected] of cases) {
          assert.deepEqual(await store.indexRange('i', range), expected, JSON.stringify(range));
        }
      }));

      it('walks backwards with reverse, with and without bounds', withStore(async (store) => {
        await store.indexAdd('i', letters);
        assert.deepEqual(await store.indexRange('i', { reverse: true }), ['h', 'f', 'd', 'b']);
        assert.deepEqual(await store.indexRange('i', { reverse: true, lt: 'h' }), ['f', 'd', 'b']);
        assert.deepEqual(await store.indexRange('i', { reverse: true, lte: 'f', gt: 'b' }), ['f', 'd']);
        assert.deepEqual(await store.indexRange('i', { reverse: true, gte: 'c', lt: 'g' }), ['f', 'd']);
      }));

      it('limits the number of members from the walking end', withStore(async (store) => {
        await store.indexAdd('i', letters);
        assert.deepEqual(await store.indexRange('i', { limit: 2 }), ['b', 'd']);
        assert.deepEqual(await store.indexRange('i', { limit: 2, reverse: true }), ['h', 'f']);
        assert.deepEqual(await store.indexRange('i', { limit: 2, gt: 'b' }), ['d', 'f']);
        assert.deepEqual(await store.indexRange('i', { limit: 2, lt: 'h', reverse: true }), ['f', 'd']);
        assert.deepEqual(await store.indexRange('i', { limit: 10 }), letters);
        assert.deepEqual(await store.indexRange('i', { limit: 0 }), []);
      }));

      it('handles members containing bound and glob syntax literally', withStore(async (store) => {
        const odd = ['[a', '(b', '-', '+', '*', 'a b', 'x\ny'];
        await store.indexAdd('i', odd);
        assert.deepEqual(await store.indexRange('i'), byteOrder(odd));
        assert.deepEqual(await store.indexRange('i', { gte: '[a', lte: '[a' }), ['[a']);
        assert.deepEqual(await store.indexRange('i', { gte: '-', lte: '-' }), ['-']);
      }));

      it('rejects invalid ranges and members', withStore(async (store) => {
        await rejectsWith(store.indexRange('i', { gte: 'a', gt: 'a' }), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.indexRange('i', { lte: 'a', lt: 'a' }), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.indexRange('i', { limit: -1 }), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.indexRange('i', { limit: 1.5 }), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.indexAdd('i', [1 as unknown as string]), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.indexAdd('i', ['\udc00']), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.indexRemove('i', 'a' as unknown as string[]), 'STORE_INVALID_ARGUMENT');
      }));
    });

    describe('keys', () => {
      it('lists value keys by prefix, up to a limit', withStore(async (store) => {
        for (const key of ['user:1', 'user:2', 'user:3', 'users', 'other:1']) await store.set(key, 1);
        assert.deepEqual((await store.keys('user:')).sort(), ['user:1', 'user:2', 'user:3']);
        assert.deepEqual((await store.keys('user')).sort(), ['user:1', 'user:2', 'user:3', 'users']);
        assert.deepEqual((await store.keys('')).sort(), ['other:1', 'user:1', 'user:2', 'user:3', 'users']);
        assert.deepEqual(await store.keys('nope'), []);
        const two = await store.keys('user:', 2);
        assert.equal(two.length, 2);
        for (const key of two) assert.match(key, /^user:\d$/);
        assert.deepEqual(await store.keys('user:', 0), []);
        await store.delete('user:2');
        assert.deepEqual((await store.keys('user:')).sort(), ['user:1', 'user:3']);
      }));

      it('treats glob characters in the prefix literally', withStore(async (store) => {
        const prefix = 'a*[b]?\\';
        const matching = [`${prefix}1`, `${prefix}2`];
        const decoys = ['aX[b]?\\1', 'a*b?\\1', 'a*[b]X\\1', 'a*[b]?1', 'a*[c]?\\1', 'ab]?\\1'];
        for (const key of [...matching, ...decoys]) await store.set(key, key);
        assert.deepEqual((await store.keys(prefix)).sort(), matching);
        assert.deepEqual(await store.keys('*'), []);
      }));

      it('handles unicode prefixes and many keys', withStore(async (store) => {
        const many = Array.from({ length: 1500 }, (_, i) => `😀:${i}`);
        await store.commit(many.map((key) => ({ op: 'set', key, value: 0 })));
        await store.set('😁:x', 0);
        const listed = await store.keys('😀:');
        assert.equal(listed.length, 1500);
        assert.deepEqual(new Set(listed), new Set(many));
        assert.equal((await store.keys('😀:', 1000)).length, 1000);
      }));
    });

    describe('expiring maps', () => {
      it('sets, overwrites, lists and deletes entries; reads are copies', withStore(async (store) => {
        assert.deepEqual(await store.mapEntries('m'), new Map());
        await store.mapSet('m', 'a', { n: 1 }, 60_000);
        await store.mapSet('m', 'b', [2n, 'two'], 60_000);
        await store.mapSet('m', 'a', { n: 3 }, 60_000);
        await store.mapSet('other', 'a', 'elsewhere', 60_000);
        const entries = await store.mapEntries<unknown>('m');
        assert.deepEqual(entries, new Map<string, unknown>([['a', { n: 3 }], ['b', [2n, 'two']]]));
        (entries.get('a') as { n: number }).n = 99;
        assert.deepEqual((await store.mapEntries('m')).get('a'), { n: 3 });
        assert.equal(await store.mapDelete('m', 'a'), true);
        assert.equal(await store.mapDelete('m', 'a'), false);
        assert.equal(await store.mapDelete('nope', 'a'), false);
        assert.deepEqual(await store.mapEntries('m'), new Map([['b', [2n, 'two']]]));
        assert.deepEqual(await store.mapEntries('other'), new Map([['a', 'elsewhere']]));
        assert.equal(await store.mapDelete('m', 'b'), true);
        assert.deepEqual(await store.mapEntries('m'), new Map());
      }));

      it('expires each entry on its own; setting an entry again renews it', withStore(async (store) => {
        await store.mapSet('m', 'short', 1, 80);
        await store.mapSet('m', 'renewed', 2, 80);
        await store.mapSet('m', 'long', 3, 60_000);
        await sleep(40);
        await store.mapSet('m', 'renewed', 4, 300);
        assert.deepEqual([...(await store.mapEntries('m')).keys()].sort(), ['long', 'renewed', 'short']);
        await sleep(120);
        assert.deepEqual(await store.mapEntries('m'), new Map<string, number>([['long', 3], ['renewed', 4]]));
        assert.equal(await store.mapDelete('m', 'short'), false, 'an expired entry is not there to delete');
        // A shorter TTL replaces a longer one, as set does.
        await store.mapSet('m', 'long', 5, 80);
        await sleep(400);
        assert.deepEqual(await store.mapEntries('m'), new Map());
        await store.mapSet('m', 'back', 6, 60_000);
        assert.deepEqual(await store.mapEntries('m'), new Map([['back', 6]]));
      }));

      it('keeps fields literally: unicode, glob and separator characters', withStore(async (store) => {
        const fields = ['', '*', 'a:b', '[x]?\\', 'héllo 😀', ' '];
        for (const [i, field] of fields.entries()) await store.mapSet('m:😀', field, i, 60_000);
        assert.deepEqual(await store.mapEntries('m:😀'), new Map(fields.map((f, i) => [f, i])));
        assert.deepEqual(await store.mapEntries('m:*'), new Map());
      }));

      it('are apart from values, counters, indexes and keys()', withStore(async (store) => {
        await store.set('k', 'value');
        await store.incr('k');
        await store.indexAdd('k', ['member']);
        await store.mapSet('k', 'f', 'entry', 60_000);
        assert.equal(await store.get('k'), 'value');
        assert.deepEqual(await store.keys(''), ['k']);
        await store.commit([{ op: 'set', key: 'k', value: 'again' }]);
        assert.deepEqual(await store.mapEntries('k'), new Map([['f', 'entry']]));
        // delete removes the value, counter and index; the map is untouched.
        assert.equal(await store.delete('k'), true);
        assert.deepEqual(await store.mapEntries('k'), new Map([['f', 'entry']]));
        assert.equal(await store.get('k'), undefined);
      }));

      it('are shared with other clients of the store', withStore(async (store, peer) => {
        const other = await peer();
        await store.mapSet('m', 'mine', 1, 60_000);
        await other.mapSet('m', 'theirs', 2, 60_000);
        assert.deepEqual(await store.mapEntries('m'), new Map([['mine', 1], ['theirs', 2]]));
        assert.equal(await other.mapDelete('m', 'mine'), true);
        assert.deepEqual(await store.mapEntries('m'), new Map([['theirs', 2]]));
      }));

      it('rejects invalid arguments without writing', withStore(async (store) => {
        for (const ttlMs of [undefined, 0, -5, 1.5, Number.NaN, Infinity, '100']) {
          await rejectsWith(store.mapSet('m', 'f', 1, ttlMs as number), 'STORE_INVALID_ARGUMENT');
        }
        await rejectsWith(store.mapSet('m', 'f', undefined, 100), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.mapSet('m', 7 as unknown as string, 1, 100), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.mapSet('\ud800', 'f', 1, 100), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.mapDelete('m', '\udc00'), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.mapEntries(null as unknown as string), 'STORE_INVALID_ARGUMENT');
        assert.deepEqual(await store.mapEntries('m'), new Map());
      }));
    });

    describe('publish/subscribe', () => {
      it('delivers a decoded copy to every subscriber of the channel', withStore(async (store) => {
        const a: unknown[] = [];
        const b: unknown[] = [];
        const other: unknown[] = [];
        await store.subscribe('events', (m) => a.push(m));
        await store.subscribe('events', (m) => b.push(m));
        await store.subscribe('elsewhere', (m) => other.push(m));
        const message = { kind: 'block', height: 7, work: 2n ** 80n, bytes: new Uint8Array([9]) };
        await store.publish('events', message);
        message.height = 8; // the publisher's later mutation must not leak into deliveries
        await eventually(() => {
          assert.equal(a.length, 1);
          assert.equal(b.length, 1);
        });
        const expected = { kind: 'block', height: 7, work: 2n ** 80n, bytes: new Uint8Array([9]) };
        const [gotA] = a as (typeof expected)[];
        const [gotB] = b as (typeof expected)[];
        assert.ok(gotA && gotB, 'a subscriber got nothing');
        assert.equal(gotA.height, 7);
        assert.equal(gotA.work, 2n ** 80n);
        assert.deepEqual([...gotA.bytes], [9]);
        assert.notEqual(gotA, gotB); // each subscriber owns its copy
        gotA.height = 100;
        assert.equal(gotB.height, 7);
        await sleep(50);
        assert.deepEqual(other, []);
      }));

      it('preserves publish order and accepts any storable message', withStore(async (store) => {
        const got: unknown[] = [];
        await store.subscribe('seq', (m) => got.push(m));
        const sent = [1, 'two', null, [3n], { four: 4 }, false];
        for (const m of sent) await store.publish('seq', m);
        await eventually(() => assert.deepEqual(got, sent));
        await rejectsWith(store.publish('seq', undefined), 'STORE_INVALID_ARGUMENT');
      }));

      it('stops delivering after unsubscribe, keeping other subscribers', withStore(async (store) => {
        const a: unknown[] = [];
        const b: unknown[] = [];
        const offA = await store.subscribe('ch', (m) => a.push(m));
        const offB = await store.subscribe('ch', (m) => b.push(m));
        await store.publish('ch', 1);
        await eventually(() => assert.deepEqual([a, b], [[1], [1]]));
        await offA();
        await offA(); // idempotent
        await store.publish('ch', 2);
        await eventually(() => assert.deepEqual(b, [1, 2]));
        await offB();
        await store.publish('ch', 3);
        await sleep(100);
        assert.deepEqual(a, [1]);
        assert.deepEqual(b, [1, 2]);
        // Subscribing again after the channel went idle works.
        const c: unknown[] = [];
        const offC = await store.subscribe('ch', (m) => c.push(m));
        await store.publish('ch', 4);
        await eventually(() => assert.deepEqual(c, [4]));
        await offC();
      }));

      it('the same callback subscribed twice is delivered twice and detached once per call', withStore(async (store) => {
        const got: unknown[] = [];
        const onMessage = (m: unknown) => got.push(m);
        const off1 = await store.subscribe('dup', onMessage);
        await store.subscribe('dup', onMessage);
        await store.publish('dup', 'x');
        await eventually(() => assert.deepEqual(got, ['x', 'x']));
        await off1();
        await store.publish('dup', 'y');
        await eventually(() => assert.deepEqual(got, ['x', 'x', 'y']));
      }));
    });

    describe('watched reads', () => {
      /** A watched read of value key `key` on `store`, counting the reads it makes. */
      const watch = (store: Store, key: string) => {
        let reads = 0;
        const w = store.watchedRead(async () => {
          reads++;
          return store.get<number>(key);
        });
        return { get: () => w.get(), reads: () => reads, watched: w };
      };
      /** Until answering `n` gets in a row costs no read: the store vouches for the remembered value. */
      const remembering = async (w: ReturnType<typeof watch>, n = 20): Promise<void> => {
        const deadline = Date.now() + 5000;
        for (;;) {
          const before = w.reads();
          for (let i = 0; i < n; i++) await w.get();
          if (w.reads() === before) return;
          assert.ok(Date.now() < deadline, `${n} gets without commits in between still read (${w.reads() - before} reads) after 5 s`);
          await sleep(20);
        }
      };

      it('answers again without reading while nothing is committed', withStore(async (store) => {
        await store.set('w', 1);
        const w = watch(store, 'w');
        assert.equal(await w.get(), 1);
        await remembering(w);
        assert.equal(await w.get(), 1);
      }));

      it('never misses a commit that resolved before the call, from this or another client', withStore(async (store, peer) => {
        const other = await peer();
        await store.commit([{ op: 'set', key: 'w', value: 0 }]);
        const w = watch(store, 'w');
        await remembering(w);
        const readsBefore = w.reads();
        for (let i = 1; i <= 200; i++) {
          const writer = i % 2 === 0 ? store : other;
          await writer.commit([{ op: 'set', key: 'w', value: i }]);
          assert.equal(await w.get(), i, `commit ${i} through ${writer === store ? 'this' : 'the other'} client`);
          assert.equal(await w.get(), i, 'and answered again');
        }
        // Remembered between commits, read after each: the check above ran on remembered values.
        assert.ok(w.reads() - readsBefore <= 200 + 10, `${w.reads() - readsBefore} reads for 200 commits and 400 gets`);
      }));

      it('concurrent gets share one read, and none is older than its call', withStore(async (store, peer) => {
        const other = await peer();
        await store.commit([{ op: 'set', key: 'w', value: 0 }]);
        const w = watch(store, 'w');
        await remembering(w);
        const seen: number[] = [];
        for (let i = 1; i <= 50; i++) {
          const gets = Array.from({ length: 5 }, () => w.get());
          await other.commit([{ op: 'set', key: 'w', value: i }]);
          const after = await Promise.all(Array.from({ length: 5 }, () => w.get()));
          assert.deepEqual(after, [i, i, i, i, i], `every get after commit ${i}`);
          for (const v of await Promise.all(gets)) seen.push(v ?? -1);
        }
        assert.ok(seen.every((v, k) => v >= Math.floor(k / 5)), 'gets before a commit saw it or the one before');
      }));

      it('commitLeaving: the writer of a commit answers the value it left without reading it back', withStore(async (store) => {
        await store.commit([{ op: 'set', key: 'w', value: 0 }]);
        const w = watch(store, 'w');
        await remembering(w);
        for (let i = 1; i <= 20; i++) {
          const readsBefore = w.reads();
          const ok = await w.watched.commitLeaving(() => store.commit([{ op: 'set', key: 'w', value: i }], [{ key: 'w', equals: i - 1 }]), i);
          assert.equal(ok, true);
          assert.equal(await w.get(), i, `commit ${i}`);
          assert.equal(await store.get('w'), i, 'the store holds it too');
          // A lease that lapsed meanwhile costs one read; remembered, it costs none.
          assert.ok(w.reads() - readsBefore <= 1, `${w.reads() - readsBefore} reads after commit ${i}`);
        }
      }));

      it('commitLeaving: a commit that lost its guard leaves nothing remembered', withStore(async (store) => {
        await store.commit([{ op: 'set', key: 'w', value: 5 }]);
        const w = watch(store, 'w');
        await remembering(w);
        const ok = await w.watched.commitLeaving(() => store.commit([{ op: 'set', key: 'w', value: 99 }], [{ key: 'w', equals: 4 }]), 99);
        assert.equal(ok, false);
        assert.equal(await w.get(), 5);
      }));

      it('commitLeaving: another commit learnt of meanwhile wins over the value the writer meant to leave', withStore(async (store, peer) => {
        const other = await peer();
        await store.commit([{ op: 'set', key: 'w', value: 0 }]);
        const w = watch(store, 'w');
        await remembering(w);
        const ok = await w.watched.commitLeaving(async () => {
          const committed = await store.commit([{ op: 'set', key: 'w', value: 1 }]);
          // Another client commits after it, before the writer hears back.
          await other.commit([{ op: 'set', key: 'w', value: 2 }]);
          return committed;
        }, 1);
        assert.equal(ok, true);
        assert.equal(await w.get(), 2, 'the later commit is what a read answers');
      }));
    });

    describe('token buckets', () => {
      it('a new bucket starts full; each take answers the whole tokens left; an empty one refuses with retryAfterMs', withStore(async (store) => {
        const opts = { capacity: 3, refillPerSec: 2, nowMs: 1_000_000 };
        assert.deepEqual(await store.takeTokens('b', opts), { allowed: true, remaining: 2, retryAfterMs: 0 });
        assert.deepEqual(await store.takeTokens('b', opts), { allowed: true, remaining: 1, retryAfterMs: 0 });
        assert.deepEqual(await store.takeTokens('b', opts), { allowed: true, remaining: 0, retryAfterMs: 0 });
        // One token comes back every 500 ms.
        assert.deepEqual(await store.takeTokens('b', opts), { allowed: false, remaining: 0, retryAfterMs: 500 });
      }));

      it('refills at refillPerSec up to capacity', withStore(async (store) => {
        const at = (nowMs: number) => ({ capacity: 3, refillPerSec: 2, nowMs });
        for (let i = 0; i < 3; i++) assert.equal((await store.takeTokens('b', at(0))).allowed, true, `take ${i}`);
        assert.deepEqual(await store.takeTokens('b', at(250)), { allowed: false, remaining: 0, retryAfterMs: 250 });
        assert.deepEqual(await store.takeTokens('b', at(500)), { allowed: true, remaining: 0, retryAfterMs: 0 });
        assert.deepEqual(await store.takeTokens('b', at(500)), { allowed: false, remaining: 0, retryAfterMs: 500 });
        // Long idle: full again, never more than capacity.
        assert.deepEqual(await store.takeTokens('b', at(60_000)), { allowed: true, remaining: 2, retryAfterMs: 0 });
      }));

      it('takes `cost` tokens at once; a refused take takes nothing; cost 0 only reads', withStore(async (store) => {
        const at = (nowMs: number, cost: number) => ({ capacity: 8, refillPerSec: 4, cost, nowMs });
        assert.deepEqual(await store.takeTokens('b', at(0, 4)), { allowed: true, remaining: 4, retryAfterMs: 0 });
        assert.deepEqual(await store.takeTokens('b', at(0, 4)), { allowed: true, remaining: 0, retryAfterMs: 0 });
        // 1 token after 250 ms; 3 more need 750 ms.
        assert.deepEqual(await store.takeTokens('b', at(250, 4)), { allowed: false, remaining: 1, retryAfterMs: 750 });
        assert.deepEqual(await store.takeTokens('b', at(250, 0)), { allowed: true, remaining: 1, retryAfterMs: 0 });
        assert.deepEqual(await store.takeTokens('b', at(1000, 4)), { allowed: true, remaining: 0, retryAfterMs: 0 });
      }));

      it('keeps fractional tokens between takes', withStore(async (store) => {
        const at = (nowMs: number) => ({ capacity: 1, refillPerSec: 4, nowMs });
        assert.equal((await store.takeTokens('b', at(0))).allowed, true, 'first take');
        // 0.5 token after 125 ms: refused, but the half is kept...
        assert.deepEqual(await store.takeTokens('b', at(125)), { allowed: false, remaining: 0, retryAfterMs: 125 });
        // ...so 125 ms later the bucket holds exactly one.
        assert.deepEqual(await store.takeTokens('b', at(250)), { allowed: true, remaining: 0, retryAfterMs: 0 });
      }));

      it('a clock that went back adds nothing', withStore(async (store) => {
        const at = (nowMs: number) => ({ capacity: 1, refillPerSec: 1, nowMs });
        assert.equal((await store.takeTokens('b', at(10_000))).allowed, true, 'first take');
        assert.deepEqual(await store.takeTokens('b', at(5_000)), { allowed: false, remaining: 0, retryAfterMs: 1000 });
        // Refill still counts from 10 000.
        assert.deepEqual(await store.takeTokens('b', at(10_500)), { allowed: false, remaining: 0, retryAfterMs: 500 });
        assert.deepEqual(await store.takeTokens('b', at(11_000)), { allowed: true, remaining: 0, retryAfterMs: 0 });
      }));

      it('a lowered capacity applies to an existing bucket at once', withStore(async (store) => {
        assert.equal((await store.takeTokens('b', { capacity: 100, refillPerSec: 1, nowMs: 0 })).remaining, 99);
        assert.deepEqual(await store.takeTokens('b', { capacity: 2, refillPerSec: 1, nowMs: 0 }), { allowed: true, remaining: 1, retryAfterMs: 0 });
      }));

      it('uses the store clock without nowMs', withStore(async (store) => {
        const opts = { capacity: 2, refillPerSec: 1 };
        assert.equal((await store.takeTokens('b', opts)).allowed, true, 'first take');
        assert.equal((await store.takeTokens('b', opts)).allowed, true, 'second take');
        const refused = await store.takeTokens('b', opts);
        assert.equal(refused.allowed, false, 'third take within a second is refused');
        assert.ok(Number.isInteger(refused.retryAfterMs) && refused.retryAfterMs >= 1 && refused.retryAfterMs <= 1000, `retryAfterMs ${refused.retryAfterMs}`);
      }));

      it('keys have separate buckets, apart from values, counters and indexes', withStore(async (store) => {
        const opts = { capacity: 1, refillPerSec: 1, nowMs: 0 };
        await store.set('k', 'value');
        await store.incr('k');
        assert.equal((await store.takeTokens('k', opts)).allowed, true, 'k: first take');
        assert.equal((await store.takeTokens('k', opts)).allowed, false, 'k: second take');
        assert.equal((await store.takeTokens('other', opts)).allowed, true, 'other key: own bucket');
        assert.equal(await store.get('k'), 'value');
        assert.equal(await store.getCounter('k'), 1);
        assert.deepEqual((await store.keys('')).sort(), ['k']);
        // delete removes the value and counter; buckets are untouched and expire by themselves.
        assert.equal(await store.delete('k'), true);
        assert.equal(await store.delete('other'), false);
        assert.equal((await store.takeTokens('k', opts)).allowed, false, 'k: bucket survives delete');
      }));

      it('is atomic: concurrent takes never hand out more than the bucket holds', withStore(async (store) => {
        const opts = { capacity: 20, refillPerSec: 1, nowMs: 0 };
        const takes = await Promise.all(Array.from({ length: 50 }, () => store.takeTokens('b', opts)));
        assert.equal(takes.filter((t) => t.allowed).length, 20);
        assert.deepEqual([...new Set(takes.filter((t) => t.allowed).map((t) => t.remaining))].sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
      }));

      it('rejects invalid options without touching the bucket', withStore(async (store) => {
        const ok = { capacity: 2, refillPerSec: 1, nowMs: 0 };
        const bad: unknown[] = [
          { ...ok, capacity: 0 },
          { ...ok, capacity: -1 },
          { ...ok, capacity: Number.NaN },
          { ...ok, capacity: Infinity },
          { ...ok, refillPerSec: 0 },
          { ...ok, refillPerSec: Infinity },
          { ...ok, cost: 3 },
          { ...ok, cost: -1 },
          { ...ok, cost: '1' },
          { ...ok, nowMs: 1.5 },
          { ...ok, nowMs: -1 },
          { capacity: 2 },
          null,
        ];
        for (const opts of bad) await rejectsWith(store.takeTokens('b', opts as never), 'STORE_INVALID_ARGUMENT');
        await rejectsWith(store.takeTokens(5 as unknown as string, ok), 'STORE_INVALID_ARGUMENT');
        assert.equal((await store.takeTokens('b', ok)).remaining, 1);
      }));
    });

    describe('lifecycle', () => {
      it('ping returns a round-trip time in ms', withStore(async (store) => {
        const ms = await store.ping();
        assert.equal(typeof ms, 'number');
        assert.ok(Number.isFinite(ms) && ms >= 0 && ms < 1000, String(ms));
      }));

      it('every method rejects with STORE_CLOSED after close; close is idempotent', withStore(async (store) => {
        const off = await store.subscribe('ch', () => {});
        await store.close();
        await store.close();
        const calls: [string, () => Promise<unknown>][] = [
          ['get', () => store.get('k')],
          ['getMany', () => store.getMany(['k'])],
          ['set', () => store.set('k', 1)],
          ['delete', () => store.delete('k')],
          ['incr', () => store.incr('k')],
          ['getCounter', () => store.getCounter('k')],
          ['commit', () => store.commit([{ op: 'set', key: 'k', value: 1 }])],
          ['indexAdd', () => store.indexAdd('i', ['m'])],
          ['indexRemove', () => store.indexRemove('i', ['m'])],
          ['indexRange', () => store.indexRange('i')],
          ['indexSize', () => store.indexSize('i')],
          ['keys', () => store.keys('')],
          ['mapSet', () => store.mapSet('m', 'f', 1, 1000)],
          ['mapDelete', () => store.mapDelete('m', 'f')],
          ['mapEntries', () => store.mapEntries('m')],
          ['takeTokens', () => store.takeTokens('b', { capacity: 1, refillPerSec: 1 })],
          ['publish', () => store.publish('ch', 1)],
          ['subscribe', () => store.subscribe('ch', () => {})],
          ['ping', () => store.ping()],
        ];
        for (const [method, call] of calls) {
          await assert.rejects(call(), (err: unknown) => {
            assert.ok(isStoreError(err), `${method}: expected a StoreError`);
            assert.equal(err.code, 'STORE_CLOSED', method);
            return true;
          });
        }
        await off(); // detaching after close is harmless
      }));
    });
  });
}
