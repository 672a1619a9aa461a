/**
 * The read path's two sharing primitives: FreshRead (one store read shared by concurrent
 * callers, never older than the call) and ReadCache (serialized answers, each dropped when a
 * state key it read changes), plus cachedRoute's keying, read recording and what it refuses
 * to keep. That cached answers always equal fresh ones on a real chain: readCache.chain.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FreshRead } from '../../server/store/freshRead.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import { json, type Reply, type Route, type RouteContext } from '../../server/http/route.js';
import { fingerprint, ReadCache, type CachePoint, type ChainReads, type PointReader, type StateRead } from '../../server/http/readCache.js';

/** Reads of these keys, with nothing to compare later (as reads of mined state are kept). */
const keys = (...ks: string[]): StateRead[] => ks.map((key) => ({ key }));

/** A read whose completion the test controls; records when each read started. */
function controlledRead(): { read: () => Promise<number>; started: number[]; finish: (value: number) => void } {
  const pending: Array<(v: number) => void> = [];
  const started: number[] = [];
  let clock = 0;
  return {
    started,
    read: () => {
      started.push(++clock);
      return new Promise<number>((resolve) => pending.push(resolve));
    },
    finish: (value) => {
      const next = pending.shift();
      assert.ok(next, 'a read is in flight to finish');
      next(value);
    },
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('FreshRead', () => {
  it('a caller with no read in flight starts one of its own', async () => {
    const c = controlledRead();
    const fresh = new FreshRead(c.read);
    const p = fresh.get();
    assert.equal(c.started.length, 1, 'one read started');
    c.finish(7);
    assert.equal(await p, 7);
  });

  it('callers arriving during a read share the next one, which starts after the running one ends', async () => {
    const c = controlledRead();
    const fresh = new FreshRead(c.read);
    const first = fresh.get();
    const late = [fresh.get(), fresh.get(), fresh.get()];
    assert.equal(c.started.length, 1, 'late callers do not start reads of their own while one runs');
    c.finish(1);
    assert.equal(await first, 1, 'the first caller gets the read it started');
    await tick();
    assert.equal(c.started.length, 2, 'the queued read starts once the first settles');
    c.finish(2);
    assert.deepEqual(await Promise.all(late), [2, 2, 2], 'late callers never get the read that began before they asked');
  });

  it('a failed read fails its callers only; the queued read still runs', async () => {
    let n = 0;
    const fresh = new FreshRead(async () => {
      n++;
      if (n === 1) throw new Error('store down');
      return n;
    });
    const first = fresh.get();
    const second = fresh.get();
    await assert.rejects(first, /store down/);
    assert.equal(await second, 2, 'the next read answers the late caller');
    assert.equal(await fresh.get(), 3, 'and later callers start new reads');
  });

  it('thousands of concurrent callers cost at most two reads per round', async () => {
    let reads = 0;
    const fresh = new FreshRead(async () => {
      reads++;
      await tick();
      return reads;
    });
    const all = await Promise.all(Array.from({ length: 5000 }, () => fresh.get()));
    assert.ok(reads <= 2, `5000 callers made ${reads} reads`);
    assert.ok(all.every((v) => v >= 1), 'every caller got a value');
  });
});

describe('ReadCache', () => {
  /** A source whose point the test moves: `move(changed)` makes a new point with those keys changed (null: unknown). */
  const following = (maxBytes = 1 << 20) => {
    let n = 1;
    let changed: ReadonlySet<string> | null = null;
    let updates = 0;
    const cache = new ReadCache<CachePoint>(
      {
        currentId: async () => `p${n}`,
        update: async (since) => {
          updates++;
          return { point: { id: `p${n}` }, changed: since === null ? null : changed };
        },
      },
      maxBytes,
    );
    return {
      cache,
      updates: () => updates,
      move: (keys: string[] | null) => {
        n++;
        changed = keys === null ? null : new Set(keys);
      },
    };
  };

  it('serves a stored answer while the state holds', async () => {
    const { cache } = following();
    const miss = await cache.lookup('k');
    assert.equal(miss.body, undefined, 'nothing cached at first');
    cache.store(miss.version, 'k', Buffer.from('{"a":1}\n'), keys('chain:bal:01'));
    assert.equal((await cache.lookup('k')).body?.toString(), '{"a":1}\n');
    assert.deepEqual({ hits: cache.stats().hits, misses: cache.stats().misses }, { hits: 1, misses: 1 });
  });

  it('drops exactly the answers that read a changed key', async () => {
    const { cache, move } = following();
    const { version } = await cache.lookup('a');
    cache.store(version, 'a', Buffer.from('A'), keys('k1', 'shared'));
    cache.store(version, 'b', Buffer.from('B'), keys('k2'));
    cache.store(version, 'c', Buffer.from('C'), keys('k3', 'shared'));
    move(['shared', 'unread']);
    assert.equal((await cache.lookup('a')).body?.toString(), undefined, 'an answer that read a changed key is gone');
    assert.equal((await cache.lookup('c')).body?.toString(), undefined, 'every reader of the changed key is gone');
    assert.equal((await cache.lookup('b')).body?.toString(), 'B', 'an answer of untouched keys is still served');
    assert.equal(cache.stats().entries, 1, 'only the untouched answer is left');
  });

  it('drops every entry when what changed is unknown', async () => {
    const { cache, move } = following();
    const { version } = await cache.lookup('a');
    cache.store(version, 'a', Buffer.from('A'), keys('k1'));
    cache.store(version, 'b', Buffer.from('B'), keys());
    move(null);
    assert.equal((await cache.lookup('b')).body?.toString(), undefined, 'even an answer that read nothing is dropped');
    assert.deepEqual({ entries: cache.stats().entries, bytes: cache.stats().bytes }, { entries: 0, bytes: 0 });
  });

  it('does not keep an answer computed while the cache moved on', async () => {
    const { cache, move } = following();
    const { version } = await cache.lookup('k');
    move([]);
    await cache.lookup('other'); // a later request caught the cache up
    cache.store(version, 'k', Buffer.from('computed on p1'), keys('k1'));
    assert.equal((await cache.lookup('k')).body?.toString(), undefined, 'the p1 answer was not stored under p2');
  });

  it('catches up once for many concurrent lookups, and never serves a point older than the lookup saw', async () => {
    const { cache, move, updates } = following();
    const first = await cache.lookup('k');
    cache.store(first.version, 'k', Buffer.from('v'), keys('x'));
    move(['x']);
    const all = await Promise.all(Array.from({ length: 50 }, () => cache.lookup('k')));
    assert.ok(updates() <= 3, `50 concurrent lookups caught up ${updates()} times`);
    assert.ok(all.every((r) => r.version === 'p2' && r.body === undefined), 'every lookup is at p2 and misses the dropped answer');
  });

  it('stays within its byte budget, oldest entries out first, and forgets evicted readers', async () => {
    const { cache, move } = following(4000);
    const { version } = await cache.lookup('x');
    for (let i = 0; i < 30; i++) cache.store(version, `key${i}`, Buffer.from('x'.repeat(200)), keys(`r${i}`));
    const s = cache.stats();
    assert.ok(s.bytes <= 4000, `${s.bytes} bytes held`);
    assert.equal((await cache.lookup('key29')).body?.length, 200, 'the newest entry is kept');
    assert.equal((await cache.lookup('key0')).body?.toString(), undefined, 'the oldest entry was evicted');
    move(['r0', 'r29']);
    assert.equal((await cache.lookup('key29')).body?.toString(), undefined, 'a change drops its reader');
    assert.equal((await cache.lookup('key28')).body?.length, 200, 'and nothing else');
  });

  it('refuses answers larger than a quarter of the budget', async () => {
    const { cache } = following(4000);
    const { version } = await cache.lookup('big');
    cache.store(version, 'big', Buffer.from('y'.repeat(1000)), keys());
    assert.equal(cache.stats().entries, 0, 'one answer may not take the whole cache');
  });
});

describe('ReadCache: a second look at written keys', () => {
  /**
   * A source over a key-value state the test writes: `write(entries)` makes a new point with
   * those keys written (maybe to the values they had). The point's reader counts its reads;
   * `unsettle()` makes its next look unpinned (a block moved the tip during the reads).
   */
  const overState = () => {
    const values = new Map<string, unknown>();
    const indexes = new Map<string, string[]>();
    let n = 1;
    let written = new Set<string>();
    let settled = true;
    let reads = 0;
    let gate: Promise<void> | null = null;
    const reader: PointReader = {
      get: async <T>(key: string) => {
        reads++;
        await gate;
        return values.get(key) as T | undefined;
      },
      indexRange: async (key, range = {}) => {
        reads++;
        return (indexes.get(key) ?? []).slice(0, range.limit);
      },
      indexSize: async (key) => {
        reads++;
        return (indexes.get(key) ?? []).length;
      },
      settled: async () => settled,
    };
    const cache = new ReadCache<CachePoint>(
      { currentId: async () => `p${n}`, update: async (since) => ({ point: { id: `p${n}` }, changed: since === null ? null : written, reader }) },
      1 << 20,
    );
    /** What an answer saw of `key`, as the cache's recording reader notes it. */
    const seen = (key: string): StateRead => ({ key, seen: { value: fingerprint(values.get(key)) } });
    const seenRange = (key: string, limit: number): StateRead => ({ key, seen: { range: { limit }, value: fingerprint((indexes.get(key) ?? []).slice(0, limit)) } });
    return {
      cache,
      values,
      indexes,
      seen,
      seenRange,
      reads: () => reads,
      unsettle: () => (settled = false),
      hold: () => {
        let open!: () => void;
        gate = new Promise((r) => (open = r));
        return () => {
          gate = null;
          open();
        };
      },
      write: (entries: Record<string, unknown>, alsoWritten: string[] = []) => {
        for (const [k, v] of Object.entries(entries)) values.set(k, v);
        written = new Set([...Object.keys(entries), ...alsoWritten]);
        n++;
      },
    };
  };

  it('keeps an answer whose written keys still hold what it read, and drops one whose value changed', async () => {
    const s = overState();
    s.values.set('bal:a', 100n).set('bal:b', 7n).set('profile:a', { Username: 'a' });
    const { version } = await s.cache.lookup('x');
    s.cache.store(version, 'profile a', Buffer.from('A'), [s.seen('profile:a'), s.seen('bal:a')]);
    s.cache.store(version, 'profile b', Buffer.from('B'), [s.seen('bal:b')]);
    s.write({ 'bal:a': 100n, 'bal:b': 6n }); // a block mined a's transaction again; b paid a fee
    assert.equal((await s.cache.lookup('profile a')).body?.toString(), 'A', 'the same value written again keeps the answer');
    assert.equal((await s.cache.lookup('profile b')).body, undefined, 'a new value drops it');
    assert.deepEqual({ rechecked: s.cache.stats().rechecked, kept: s.cache.stats().kept }, { rechecked: 2, kept: 1 });
  });

  it('tells a deleted key from one that holds a value', async () => {
    const s = overState();
    s.values.set('k', 1);
    const { version } = await s.cache.lookup('x');
    s.cache.store(version, 'reads k', Buffer.from('K'), [s.seen('k'), s.seen('absent')]);
    s.values.delete('k');
    s.write({}, ['k']);
    assert.equal((await s.cache.lookup('reads k')).body, undefined, 'a key gone is a change');
    s.cache.store((await s.cache.lookup('x')).version, 'reads absent', Buffer.from('N'), [s.seen('absent')]);
    s.write({}, ['absent']);
    assert.equal((await s.cache.lookup('reads absent')).body?.toString(), 'N', 'an absent key still absent is not');
  });

  it('reads each written key once per catch-up, however many answers read it', async () => {
    const s = overState();
    s.values.set('shared', 'v');
    const { version } = await s.cache.lookup('x');
    for (let i = 0; i < 20; i++) s.cache.store(version, `a${i}`, Buffer.from(`${i}`), [s.seen('shared'), s.seen(`own${i}`)]);
    const before = s.reads();
    s.write({ shared: 'v' });
    assert.equal((await s.cache.lookup('a0')).body?.toString(), '0');
    assert.equal(s.reads() - before, 1, 'one read for twenty readers');
    assert.equal(s.cache.stats().entries, 20, 'all kept');
  });

  it('compares index reads range by range', async () => {
    const s = overState();
    s.indexes.set('thread', ['m1', 'm2']);
    const { version } = await s.cache.lookup('x');
    s.cache.store(version, 'first', Buffer.from('1'), [s.seenRange('thread', 1)]);
    s.cache.store(version, 'all', Buffer.from('2'), [s.seenRange('thread', 10)]);
    s.indexes.set('thread', ['m1', 'm2', 'm3']);
    s.write({}, ['thread']);
    assert.equal((await s.cache.lookup('first')).body?.toString(), '1', 'the first member is unchanged');
    assert.equal((await s.cache.lookup('all')).body, undefined, 'the whole range gained a member');
  });

  it('compares index counts as counts: a swapped member keeps a count, a new member drops it', async () => {
    const s = overState();
    s.indexes.set('holders', ['h1', 'h2']);
    const seenSize = (key: string): StateRead => ({ key, seen: { size: true, value: fingerprint((s.indexes.get(key) ?? []).length) } });
    const { version } = await s.cache.lookup('x');
    s.cache.store(version, 'count', Buffer.from('2'), [seenSize('holders')]);
    s.cache.store(version, 'members', Buffer.from('h1,h2'), [s.seenRange('holders', 10)]);
    s.indexes.set('holders', ['h1', 'h3']);
    s.write({}, ['holders']);
    assert.equal((await s.cache.lookup('count')).body?.toString(), '2', 'still two holders');
    assert.equal((await s.cache.lookup('members')).body, undefined, 'the members changed');
    s.indexes.set('holders', ['h1', 'h3', 'h4']);
    s.write({}, ['holders']);
    assert.equal((await s.cache.lookup('count')).body, undefined, 'three holders now');
  });

  it('drops every suspect when the second look could not be pinned to the point', async () => {
    const s = overState();
    s.values.set('k', 1);
    const { version } = await s.cache.lookup('x');
    s.cache.store(version, 'a', Buffer.from('A'), [s.seen('k')]);
    s.cache.store(version, 'b', Buffer.from('B'), [s.seen('other')]);
    s.unsettle();
    s.write({ k: 1 });
    assert.equal((await s.cache.lookup('a')).body, undefined, 'an unpinned look proves nothing');
    assert.equal((await s.cache.lookup('b')).body?.toString(), 'B', 'answers of unwritten keys stay');
  });

  it('drops an answer that read a written key with nothing to compare (mined state)', async () => {
    const s = overState();
    s.values.set('k', 1);
    const { version } = await s.cache.lookup('x');
    s.cache.store(version, 'mined', Buffer.from('M'), [{ key: 'k' }]);
    s.write({ k: 1 });
    assert.equal((await s.cache.lookup('mined')).body, undefined);
  });

  it('keeps no answer computed while it catches up', async () => {
    const s = overState();
    s.values.set('k', 1);
    const first = await s.cache.lookup('x');
    s.cache.store(first.version, 'a', Buffer.from('A'), [s.seen('k')]);
    s.write({ k: 2 });
    const release = s.hold();
    const catching = s.cache.lookup('a');
    await tick();
    s.cache.store(first.version, 'late', Buffer.from('L'), [s.seen('k')]); // looked up before the write, done now
    release();
    assert.equal((await catching).body, undefined, 'the changed answer is gone');
    assert.equal((await s.cache.lookup('late')).body, undefined, 'the answer stored during the catch-up was refused');
  });
});

describe('cachedRoute', () => {
  /**
   * A route over a stand-in chain: the handler answers from the pending state key `body.key`
   * (or the mempool transaction at place `body.place`); `write(key, value)` changes state the
   * way an admission would (new mempool version, that key changed), `block()` as a block that
   * writes nothing else would (the tip changed).
   */
  const makeRoute = async (replies?: Reply[]) => {
    const { cachedRoute } = await import('../../server/http/readCache.js');
    const values = new Map<string, number>([['a', 1], ['b', 2]]);
    let calls = 0;
    let version = 1;
    let changed = new Set<string>();
    const reader = { get: async (k: string) => values.get(k), indexRange: async () => [] };
    const deps = {
      config: { readCacheMb: 1 },
      store: { getCounter: async () => 0, get: reader.get, indexRange: reader.indexRange, watchedRead: (read: () => Promise<unknown>) => ({ get: read }) },
      chain: {
        position: async () => ({ tip: { hashHex: 'aa' }, mempoolVersion: version }),
        tip: async () => ({ hashHex: 'aa' }),
        pendingChanges: async (since: unknown) => ({ point: { tipHashHex: 'aa', height: 1n, version }, changed: since === null ? null : changed, view: reader }),
        pendingView: async () => reader,
        pendingPlaces: async () => ({ view: reader, height: 2n, txnAt: (i: number) => (i === 1 ? new Uint8Array([7]) : undefined) }),
      },
    } as unknown as Parameters<typeof cachedRoute>[0];
    const route = cachedRoute(deps, {
      method: 'POST',
      path: '/r',
      summary: 's',
      async handle({ body }, state: ChainReads) {
        calls++;
        if (replies) return replies[Math.min(calls - 1, replies.length - 1)]!;
        const { key, mined, place } = body as { key: string; mined?: boolean; place?: number };
        if (place !== undefined) return json({ txn: (await state.pendingPlaces()).txnAt(place)?.[0] ?? null });
        return json({ value: await (mined ? state.mined() : await state.pending()).get<number>(key) });
      },
    });
    return {
      route,
      calls: () => calls,
      write: (key: string, value: number) => {
        values.set(key, value);
        version++;
        changed = new Set([key]);
      },
      block: () => {
        version++;
        changed = new Set([chainKeys.tip]);
      },
    };
  };
  const ctx = (body: unknown): RouteContext<unknown> =>
    ({ body, params: {}, query: new URLSearchParams(), headers: {}, remoteAddress: '127.0.0.1', log: undefined }) as unknown as RouteContext<unknown>;
  const text = async (route: Route, body: unknown): Promise<string> => String(((await route.handle(ctx(body))) as { body: Buffer }).body);

  it('answers a repeated request from the cache, serialized once', async () => {
    const { route, calls } = await makeRoute([json({ n: 1n })]);
    const first = await route.handle(ctx({ a: 1 }));
    const second = await route.handle(ctx({ a: 1 }));
    assert.deepEqual(first, { kind: 'raw', status: 200, body: Buffer.from('{"n":1}\n'), contentType: 'application/json' });
    assert.deepEqual(second, first, 'the same bytes');
    assert.equal(calls(), 1, 'the handler ran once');
    await route.handle(ctx({ a: 2 }));
    assert.equal(calls(), 2, 'another body is another entry');
  });

  it('recomputes an answer when a key it read changes, and keeps the others', async () => {
    const { route, calls, write } = await makeRoute();
    assert.equal(await text(route, { key: 'a' }), '{"value":1}\n');
    assert.equal(await text(route, { key: 'b' }), '{"value":2}\n');
    assert.equal(calls(), 2);
    write('a', 10);
    assert.equal(await text(route, { key: 'a' }), '{"value":10}\n', 'the answer that read the written key is new');
    assert.equal(await text(route, { key: 'b' }), '{"value":2}\n', 'the other is served from the cache');
    assert.equal(calls(), 3, 'only the changed answer was recomputed');
  });

  it('keeps an answer when a write leaves the pending value it read as it was, but not one of mined state', async () => {
    const { route, calls, write } = await makeRoute();
    await text(route, { key: 'a' });
    await text(route, { key: 'a', mined: true });
    write('a', 1);
    assert.equal(await text(route, { key: 'a' }), '{"value":1}\n');
    assert.equal(calls(), 2, 'the pending read saw the same value: served from the cache');
    assert.equal(await text(route, { key: 'a', mined: true }), '{"value":1}\n');
    assert.equal(calls(), 3, 'a mined read is not compared: recomputed');
  });

  it('ties an answer that read a mempool place to the tip: kept across admissions, dropped by a block', async () => {
    const { route, calls, write, block } = await makeRoute();
    assert.equal(await text(route, { place: 1 }), '{"txn":7}\n');
    await text(route, { key: 'a' });
    write('b', 3);
    assert.equal(await text(route, { place: 1 }), '{"txn":7}\n');
    assert.equal(calls(), 2, 'an admission leaves a place its transaction: served from the cache');
    block();
    await text(route, { place: 1 });
    assert.equal(calls(), 3, 'a block may fill the place otherwise: recomputed');
    await text(route, { key: 'a' });
    assert.equal(calls(), 3, 'an answer that read no place is kept');
  });

  it('never caches an error answer', async () => {
    const { route, calls } = await makeRoute([json({ error: 'x' }, 404), json({ ok: true })]);
    assert.equal((await route.handle(ctx({}))).status, 404);
    assert.equal((await route.handle(ctx({}))).status, 200, 'the 404 was not kept');
    assert.equal(calls(), 2);
  });
});
