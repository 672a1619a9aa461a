/**
 * The read path's two sharing primitives: FreshRead (one store read shared by concurrent
 * callers, never older than the call) and ReadCache (serialized answers per state version),
 * plus cachedRoute's keying and what it refuses to keep.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FreshRead } from '../../server/chain/freshRead.js';
import { json, type Reply, type Route, type RouteContext } from '../../server/http/route.js';
import { ReadCache } from '../../server/social/readCache.js';

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
  const versioned = (): { cache: ReadCache; set: (v: string) => void } => {
    let version = 'v1';
    return { cache: new ReadCache(async () => version, 1 << 20), set: (v) => (version = v) };
  };

  it('serves a stored answer while the version holds', async () => {
    const { cache } = versioned();
    const miss = await cache.lookup('k');
    assert.equal(miss.text, undefined, 'nothing cached at first');
    cache.store(miss.version, 'k', '{"a":1}\n');
    assert.equal((await cache.lookup('k')).text, '{"a":1}\n');
    assert.deepEqual({ hits: cache.stats().hits, misses: cache.stats().misses }, { hits: 1, misses: 1 });
  });

  it('drops every entry when the version changes', async () => {
    const { cache, set } = versioned();
    const { version } = await cache.lookup('k');
    cache.store(version, 'k', 'old');
    set('v2');
    const after = await cache.lookup('k');
    assert.equal(after.text, undefined, 'an answer of the old state is never served');
    assert.equal(after.version, 'v2');
    assert.equal(cache.stats().entries, 0, 'the old entries are gone');
  });

  it('does not keep an answer computed while the version moved on', async () => {
    const { cache, set } = versioned();
    const { version } = await cache.lookup('k');
    set('v2');
    await cache.lookup('other'); // a later request saw v2
    cache.store(version, 'k', 'computed on v1');
    assert.equal((await cache.lookup('k')).text, undefined, 'the v1 answer was not stored under v2');
  });

  it('stays within its byte budget, oldest entries out first', async () => {
    const cache = new ReadCache(async () => 'v', 4000);
    const { version } = await cache.lookup('x');
    for (let i = 0; i < 30; i++) cache.store(version, `key${i}`, 'x'.repeat(90));
    const s = cache.stats();
    assert.ok(s.bytes <= 4000, `${s.bytes} bytes held`);
    assert.equal((await cache.lookup('key29')).text?.length, 90, 'the newest entry is kept');
    assert.equal((await cache.lookup('key0')).text, undefined, 'the oldest entry was evicted');
  });

  it('refuses answers larger than a quarter of the budget', async () => {
    const cache = new ReadCache(async () => 'v', 4000);
    const { version } = await cache.lookup('big');
    cache.store(version, 'big', 'y'.repeat(1000));
    assert.equal(cache.stats().entries, 0, 'one answer may not take the whole cache');
  });
});

describe('cachedRoute', () => {
  // Imported lazily: readCache.ts pulls the router, which is fine, but keep the table small.
  const makeRoute = async (replies: Reply[]): Promise<{ route: Route; calls: () => number; bump: () => void }> => {
    const { cachedRoute } = await import('../../server/social/readCache.js');
    let calls = 0;
    let mempoolVersion = 1;
    const deps = {
      config: { readCacheMb: 1 },
      store: { getCounter: async () => 0 },
      chain: { position: async () => ({ tip: { hashHex: 'aa' }, mempoolVersion }) },
    } as unknown as Parameters<typeof cachedRoute>[0];
    const inner: Route = { method: 'POST', path: '/r', summary: 's', handle: () => replies[Math.min(calls++, replies.length - 1)]! };
    return { route: cachedRoute(deps, inner), calls: () => calls, bump: () => mempoolVersion++ };
  };
  const ctx = (body: unknown): RouteContext<unknown> =>
    ({ body, params: {}, query: new URLSearchParams(), headers: {}, remoteAddress: '127.0.0.1', log: undefined }) as unknown as RouteContext<unknown>;

  it('answers a repeated request from the cache, serialized once, until the chain moves', async () => {
    const { route, calls, bump } = await makeRoute([json({ n: 1n }), json({ n: 2n })]);
    const first = await route.handle(ctx({ a: 1 }));
    const second = await route.handle(ctx({ a: 1 }));
    assert.deepEqual(first, { kind: 'raw', status: 200, body: '{"n":1}\n', contentType: 'application/json' });
    assert.deepEqual(second, first, 'the same bytes');
    assert.equal(calls(), 1, 'the handler ran once');
    await route.handle(ctx({ a: 2 }));
    assert.equal(calls(), 2, 'another body is another entry');
    bump();
    assert.equal(((await route.handle(ctx({ a: 1 }))) as { body: string }).body, '{"n":2}\n', 'a new mempool version recomputes');
  });

  it('never caches an error answer', async () => {
    const { route, calls } = await makeRoute([json({ error: 'x' }, 404), json({ ok: true })]);
    assert.equal((await route.handle(ctx({}))).status, 404);
    assert.equal((await route.handle(ctx({}))).status, 200, 'the 404 was not kept');
    assert.equal(calls(), 2);
  });
});
