// Index range reads through a state view (tip plus pending changes): the same answers as
// reading the whole range and applying the pending changes (the view's former implementation,
// kept below as the model) for random indexes, pending adds and removes over nested views,
// bounds, directions and limits; and a page costs the page, not the index.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_CACHED_READS, StateView } from '../../server/chain/state/view.js';
import { MemoryStore } from '../../server/store/memory.js';
import type { IndexRange } from '../../server/store/types.js';
import { wholeRangeModel } from '../helpers/wholeRangeModel.js';

/** Counts the members the store hands back to index range reads. */
function countingStore(): { store: MemoryStore; read: () => number } {
  const store = new MemoryStore();
  const inner = store.indexRange.bind(store);
  let read = 0;
  store.indexRange = async (key, range) => {
    const members = await inner(key, range);
    read += members.length;
    return members;
  };
  return { store, read: () => read };
}

const KEY = 'idx';
const OTHER = 'other';
// Characters whose UTF-16 order is their UTF-8 byte order, so the model's plain `<` bounds agree;
// few enough members (30) that pending changes often hit stored ones and the page.
const member = fc.string({ unit: fc.constantFrom('0', 'a', 'b', 'é', '中'), minLength: 1, maxLength: 2 });
const bound = fc.option(fc.record({ inclusive: fc.boolean(), value: member }), { nil: undefined });
const levelOps = fc.array(
  fc.record({ op: fc.constantFrom<'indexAdd' | 'indexRemove'>('indexAdd', 'indexRemove'), key: fc.constantFrom(KEY, KEY, KEY, OTHER), members: fc.array(member, { minLength: 1, maxLength: 4 }) }),
  { maxLength: 8 },
);

describe('StateView.indexRange', () => {
  const stores: MemoryStore[] = [];
  after(async () => {
    for (const s of stores) await s.close();
  });

  it('answers as the whole range with the pending changes applied would (random indexes, changes over nested views, bounds, direction, limit); indexSize as its length', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(member, { maxLength: 30 }),
        fc.array(member, { maxLength: 5 }),
        fc.array(levelOps, { minLength: 1, maxLength: 3 }),
        bound,
        bound,
        fc.boolean(),
        fc.option(fc.nat({ max: 12 }), { nil: undefined }),
        async (base, otherBase, levels, lower, upper, reverse, limit) => {
          const store = new MemoryStore();
          stores.push(store);
          await store.commit([
            { op: 'indexAdd', key: KEY, members: base.length > 0 ? base : ['m'] },
            { op: 'indexAdd', key: OTHER, members: otherBase.length > 0 ? otherBase : ['m'] },
          ]);
          // Root, child, grandchild: each level's changes in its own view, as the mempool replay and a read's child view hold them.
          let view = StateView.over(store);
          for (const [i, ops] of levels.entries()) {
            if (i > 0) view = view.child();
            for (const o of ops) view[o.op](o.key, o.members);
          }
          const range: IndexRange = {};
          if (lower !== undefined) range[lower.inclusive ? 'gte' : 'gt'] = lower.value;
          if (upper !== undefined) range[upper.inclusive ? 'lte' : 'lt'] = upper.value;
          if (reverse) range.reverse = true;
          if (limit !== undefined) range.limit = limit;
          const pending = levels.flat();
          for (const key of [KEY, OTHER]) {
            assert.deepEqual(await view.indexRange(key, range), await wholeRangeModel(store, pending, key, range), JSON.stringify({ key, range }));
            assert.equal(await view.indexSize(key), (await wholeRangeModel(store, pending, key, {})).length, `${key}: indexSize counts the whole index with the changes`);
          }
          await store.close();
          stores.pop();
        },
      ),
      { numRuns: 400 },
    );
  });

  it('orders and bounds pending members as the store does (UTF-8 bytes: astral characters above U+E000-U+FFFF)', async () => {
    const { store } = countingStore();
    stores.push(store);
    await store.commit([{ op: 'indexAdd', key: KEY, members: ['a\ue000', 'a\u{1f600}'] }]);
    const view = StateView.over(store).child();
    view.indexAdd(KEY, ['a\uffff', 'a\u{10000}']);
    assert.deepEqual(await view.indexRange(KEY), ['a\ue000', 'a\uffff', 'a\u{10000}', 'a\u{1f600}']);
    assert.deepEqual(await view.indexRange(KEY, { gt: 'a\uffff' }), ['a\u{10000}', 'a\u{1f600}']);
    assert.deepEqual(await view.indexRange(KEY, { lt: 'a\u{10000}', reverse: true, limit: 1 }), ['a\uffff']);
  });

  it('reads a 10-member page of a 20,000-member index with one pending change as about 10 members from the store, not 20,000', async () => {
    const { store, read } = countingStore();
    stores.push(store);
    const ts = (i: number): string => i.toString(16).padStart(16, '0');
    await store.commit([{ op: 'indexAdd', key: KEY, members: Array.from({ length: 20_000 }, (_, i) => ts(i)) }]);
    const root = StateView.over(store);
    root.indexAdd(KEY, [ts(20_000)]); // one unmined message, newest
    const view = root.child();

    let before = read();
    assert.deepEqual(await view.indexRange(KEY, { reverse: true, limit: 10 }), [ts(20_000), ...Array.from({ length: 9 }, (_, i) => ts(19_999 - i))]);
    assert.ok(read() - before <= 10, `newest page read ${read() - before} members`);

    // An older page (below a cursor) and the oldest page: the pending member is outside or behind them.
    before = read();
    assert.deepEqual(await view.indexRange(KEY, { lt: ts(15_000), reverse: true, limit: 10 }), Array.from({ length: 10 }, (_, i) => ts(14_999 - i)));
    assert.deepEqual(await view.indexRange(KEY, { limit: 10 }), Array.from({ length: 10 }, (_, i) => ts(i)));
    assert.ok(read() - before <= 20, `older pages read ${read() - before} members`);

    // A pending removal inside the page costs one more member, and the page stays full.
    view.indexRemove(KEY, [ts(19_995)]);
    before = read();
    const page = await view.indexRange(KEY, { reverse: true, limit: 10 });
    assert.deepEqual(page, [ts(20_000), ...[19_999, 19_998, 19_997, 19_996, 19_994, 19_993, 19_992, 19_991, 19_990].map(ts)]);
    assert.ok(read() - before <= 11, `page with a removal read ${read() - before} members`);

    // Without a limit the whole range is still the answer.
    assert.equal((await view.indexRange(KEY)).length, 20_000);
  });
});

describe('StateView.indexSize', () => {
  it('counts a 20,000-member index with one pending change reading no member but the changed one', async () => {
    const { store, read } = countingStore();
    await store.indexAdd('holders', Array.from({ length: 20_000 }, (_, i) => `h${String(i).padStart(5, '0')}`));
    const view = StateView.over(store);
    view.indexAdd('holders', ['new']);
    view.indexRemove('holders', ['h00007']);
    view.indexAdd('holders', ['h00009']); // already held: no change in the count
    assert.equal(await view.indexSize('holders'), 20_000);
    assert.ok(read() <= 3, `${read()} members read`);
  });
});

describe('StateView.get', () => {
  /** A store whose value reads are counted. */
  function countingGets(): { store: MemoryStore; gets: () => number } {
    const store = new MemoryStore();
    const inner = store.get.bind(store);
    let gets = 0;
    store.get = (async (key: string) => {
      gets++;
      return inner(key);
    }) as MemoryStore['get'];
    return { store, gets: () => gets };
  }

  it(`keeps at most MAX_CACHED_READS (${MAX_CACHED_READS}) store reads, dropping the least recently used`, async () => {
    const { store, gets } = countingGets();
    await store.set('k0', 'v0');
    const view = StateView.over(store);
    assert.equal(await view.get('k0'), 'v0');
    assert.equal(await view.get('k0'), 'v0');
    assert.equal(gets(), 1, 'a key is fetched once');
    for (let i = 1; i <= MAX_CACHED_READS; i++) {
      await view.get(`k${i}`);
      if (i % 1000 === 0) await view.get('k0'); // used again: kept
    }
    await view.get('k0');
    assert.equal(gets(), 1 + MAX_CACHED_READS, 'k0, used recently, is still kept');
    await view.get('k1');
    assert.equal(gets(), 2 + MAX_CACHED_READS, 'k1, the least recently used, was dropped and is read again');
    // Reading 3x the bound keeps the bound: the oldest reads are fetched again.
    for (let i = 0; i < 3 * MAX_CACHED_READS; i++) await view.get(`x${i}`);
    const before = gets();
    await view.get('x0');
    await view.get(`x${3 * MAX_CACHED_READS - 1}`);
    assert.equal(gets() - before, 1, 'the oldest read was dropped, the newest kept');
  });
});

describe('StateView.ops', () => {
  it('nets index changes per index: the store ends as if each change were applied in turn (random changes over nested views)', async () => {
    const ops = fc.array(fc.record({ add: fc.boolean(), key: fc.constantFrom('i1', 'i2'), members: fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 3 }) }), { maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(fc.subarray(['a', 'b', 'c']), ops, async (initial, changes) => {
        const netted = new MemoryStore();
        const inTurn = new MemoryStore();
        for (const s of [netted, inTurn]) await s.commit([{ op: 'indexAdd', key: 'i1', members: initial }, { op: 'indexAdd', key: 'i2', members: initial }].filter((o) => o.members.length > 0) as never);
        const root = StateView.over(netted);
        const child = root.child();
        for (const [n, c] of changes.entries()) {
          const v = n % 2 === 0 ? root : child;
          if (c.add) v.indexAdd(c.key, c.members);
          else v.indexRemove(c.key, c.members);
        }
        child.commitTo();
        // Applied in turn, one op per change (what ops() answered before netting), in the order
        // the root holds them: its own, then the child's it took by commitTo.
        const held = [...changes.filter((_, n) => n % 2 === 0), ...changes.filter((_, n) => n % 2 === 1)];
        for (const c of held) await inTurn.commit([{ op: c.add ? 'indexAdd' : 'indexRemove', key: c.key, members: c.members }]);
        const out = root.ops();
        assert.ok(out.filter((o) => o.op === 'indexAdd' || o.op === 'indexRemove').length <= 4, 'at most one add and one remove per index');
        await netted.commit(out);
        for (const key of ['i1', 'i2']) assert.deepEqual(await netted.indexRange(key), await inTurn.indexRange(key));
        await netted.close();
        await inTurn.close();
      }),
      { numRuns: 200 },
    );
  });
});
