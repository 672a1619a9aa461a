import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { RedisStore } from '../../server/store/redis.js';
import { LEASE_MS } from '../../server/store/readLeases.js';
import { performance } from 'node:perf_hooks';
import { isStoreError, type StoreErrorCode } from '../../server/store/types.js';
import { freePort } from '../helpers/ports.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { redisFixture } from './redisFixture.js';
import { storeSuite } from './store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function assertStoreError(err: unknown, code: StoreErrorCode): asserts err is Error {
  assert.ok(isStoreError(err), `expected a StoreError, got ${inspect(err)}`);
  assert.equal(err.code, code, err.message);
}

/** Retries an async check until it passes or the deadline passes. */
async function eventually(check: () => Promise<void>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
}

describe('RedisStore', () => {
  let server: RedisServer | undefined;
  let raw: Redis | undefined;
  let namespace = 0;

  // No skip path: if redis-server cannot start, this hook throws and every test below fails.
  before(async () => {
    server = await startRedisServer();
    raw = new Redis(server.url, { lazyConnect: true });
    await raw.connect();
  });

  after(async () => {
    await raw?.quit().catch(() => {});
    await server?.stop();
  });

  const url = () => {
    assert.ok(server, 'redis-server is not running');
    return server.url;
  };

  // Each test gets a fresh key prefix, which also keeps channels apart.
  storeSuite('contract', async () => {
    return redisFixture(url(), `t${++namespace}:`);
  });

  describe('read leases (watched reads across processes)', () => {
    /** Two clients of one prefix; `watcher` holds a watched read of 'w' and is remembering it. */
    const pair = async (prefix: string) => {
      const watcher = await RedisStore.connect({ url: url(), keyPrefix: prefix });
      const writer = await RedisStore.connect({ url: url(), keyPrefix: prefix });
      await writer.commit([{ op: 'set', key: 'w', value: 0 }]);
      let reads = 0;
      const w = watcher.watchedRead(async () => {
        reads++;
        return watcher.get<number>('w');
      });
      await eventually(async () => {
        const before = reads;
        for (let i = 0; i < 10; i++) await w.get();
        assert.equal(reads, before, 'the watcher remembers');
      }, 5000);
      return { watcher, writer, w, reads: () => reads, close: () => Promise.all([watcher.close(), writer.close()]) };
    };

    it('lists a watching process as a holder, and a commit waits for its acknowledgement only', async () => {
      const p = await pair('lease-ack:');
      try {
        assert.equal(await raw!.scard('lease-ack:leases:holders'), 1, 'the watcher holds a lease; the writer, not watching, does not');
        await p.writer.commit([{ op: 'set', key: 'w', value: 1 }]);
        assert.equal(await p.w.get(), 1);
        assert.equal(await raw!.scard('lease-ack:leases:holders'), 1, 'the watcher acknowledged and stays');
      } finally {
        await p.close();
      }
      assert.equal(await raw!.scard('lease-ack:leases:holders'), 0, 'closing leaves the holders set');
    });

    it('a holder that never acknowledges holds a commit back a whole lease, then is dropped', async () => {
      const p = await pair('lease-ghost:');
      try {
        await raw!.sadd('lease-ghost:leases:holders', 'ghost');
        const started = performance.now();
        await p.writer.commit([{ op: 'set', key: 'w', value: 1 }]);
        const waited = performance.now() - started;
        assert.ok(waited >= LEASE_MS - 20, `the commit waited ${waited.toFixed(0)} ms for the silent holder's trust to run out (lease ${LEASE_MS} ms)`);
        assert.equal(await raw!.sismember('lease-ghost:leases:holders', 'ghost'), 0, 'the silent holder is dropped');
        assert.equal(await p.w.get(), 1);
      } finally {
        await p.close();
      }
    });

    it('a watcher whose subscription is cut never answers what it remembered before a commit', async () => {
      const p = await pair('lease-cut:');
      try {
        for (let round = 1; round <= 3; round++) {
          await raw!.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
          await p.writer.commit([{ op: 'set', key: 'w', value: round }]);
          assert.equal(await p.w.get(), round, `round ${round}: the commit after the cut is seen`);
        }
      } finally {
        await p.close();
      }
    });

    it('a commit with nobody watching publishes its notice and waits for nothing', async () => {
      const store = await RedisStore.connect({ url: url(), keyPrefix: 'lease-none:' });
      const sub = new Redis(url());
      try {
        const notices: string[] = [];
        await sub.subscribe('lease-none:leases:notices');
        sub.on('message', (_channel: string, m: string) => notices.push(m));
        assert.equal(await store.commit([{ op: 'set', key: 'k', value: 1 }]), true);
        assert.equal(await store.commit([{ op: 'set', key: 'k', value: 2 }], [{ key: 'k', equals: 5 }]), false);
        await eventually(async () => assert.equal(notices.length, 1, 'one notice, for the applied commit only'), 2000);
        assert.match(notices[0]!, /^n [0-9a-f]{16} \d+$/);
      } finally {
        sub.disconnect();
        await store.close();
      }
    });
  });

  describe('redis specifics', () => {
    it('keeps values, counters and indexes in per-kind namespaces under keyPrefix', async () => {
      const store = await RedisStore.connect({ url: url(), keyPrefix: 'layout:' });
      try {
        await store.set('k', 'v');
        await store.incr('k', 3);
        await store.indexAdd('k', ['m']);
        assert.equal(await raw!.type('layout:v:k'), 'string');
        assert.equal(await raw!.get('layout:c:k'), '3');
        assert.equal(await raw!.type('layout:x:k'), 'zset');
        assert.equal(await store.delete('k'), true);
        assert.equal(await raw!.exists('layout:v:k', 'layout:c:k', 'layout:x:k'), 0);
      } finally {
        await store.close();
      }
    });

    it('keeps an expiring map in a hash and a sorted set of expiry times, both gone with its last entry', async () => {
      const store = await RedisStore.connect({ url: url(), keyPrefix: 'maps:' });
      try {
        await store.mapSet('m', 'a', 1, 150);
        await store.mapSet('m', 'b', 2, 60_000);
        assert.equal(await raw!.type('maps:m:m'), 'hash');
        assert.equal(await raw!.type('maps:mt:m'), 'zset');
        assert.equal(await raw!.hlen('maps:m:m'), 2);
        const ttl = await raw!.pttl('maps:m:m');
        assert.ok(ttl > 59_000 && ttl <= 60_000, `the map lives as long as its last entry: pttl ${ttl}`);
        await sleep(250);
        // A set drops the entries that expired (no read needed).
        await store.mapSet('m', 'b', 3, 150);
        assert.deepEqual(await raw!.hkeys('maps:m:m'), ['b']);
        assert.deepEqual(await raw!.zrange('maps:mt:m', '0', '-1'), ['b']);
        await sleep(250);
        assert.equal(await raw!.exists('maps:m:m', 'maps:mt:m'), 0, 'both keys expired with the last entry');
        await store.mapSet('m', 'c', 4, 60_000);
        assert.equal(await store.mapDelete('m', 'c'), true);
        assert.equal(await raw!.exists('maps:m:m', 'maps:mt:m'), 0, 'deleting the last entry leaves nothing');
      } finally {
        await store.close();
      }
    });

    it('uses sn: as the default key prefix', async () => {
      const store = await RedisStore.connect({ url: url() });
      try {
        await store.set('default-prefix-probe', 1);
        assert.equal(await raw!.exists('sn:v:default-prefix-probe'), 1);
        await store.delete('default-prefix-probe');
      } finally {
        await store.close();
      }
    });

    it('shares state and messages between store instances with the same prefix only', async () => {
      const a = await RedisStore.connect({ url: url(), keyPrefix: 'shared:' });
      const b = await RedisStore.connect({ url: url(), keyPrefix: 'shared:' });
      const other = await RedisStore.connect({ url: url(), keyPrefix: 'elsewhere:' });
      try {
        await a.set('k', { from: 'a' });
        assert.deepEqual(await b.get('k'), { from: 'a' });
        assert.equal(await other.get('k'), undefined);
        const gotB: unknown[] = [];
        const gotOther: unknown[] = [];
        await b.subscribe('news', (m) => gotB.push(m));
        await other.subscribe('news', (m) => gotOther.push(m));
        await a.publish('news', 42n);
        await eventually(async () => assert.deepEqual(gotB, [42n]), 2000);
        await sleep(50);
        assert.deepEqual(gotOther, []);
      } finally {
        await Promise.all([a.close(), b.close(), other.close()]);
      }
    });

    it('escapes glob characters in keyPrefix as well as in the keys() prefix', async () => {
      const globby = await RedisStore.connect({ url: url(), keyPrefix: 'g*[x]?:' });
      const lookalike = await RedisStore.connect({ url: url(), keyPrefix: 'gZxQ:' });
      try {
        await globby.set('a', 1);
        await lookalike.set('a', 2);
        assert.deepEqual(await globby.keys(''), ['a']);
        assert.deepEqual(await globby.keys('a'), ['a']);
      } finally {
        await Promise.all([globby.close(), lookalike.close()]);
      }
    });

    it('keeps a token bucket at <prefix>b:<key>, expiring when it would be full again', async () => {
      const store = await RedisStore.connect({ url: url(), keyPrefix: 'bucket:' });
      try {
        await store.takeTokens('ip:1', { capacity: 10, refillPerSec: 2, cost: 4 });
        assert.equal(await raw!.type('bucket:b:ip:1'), 'hash');
        const ttl = await raw!.pttl('bucket:b:ip:1');
        // 4 tokens missing at 2 per second: gone within 2 s.
        assert.ok(ttl > 0 && ttl <= 2000, `PTTL ${ttl}`);
        assert.equal(await store.get('ip:1'), undefined);
      } finally {
        await store.close();
      }
    });

    it('stores sharing a prefix (the processes of one node) share each bucket', async () => {
      const a = await RedisStore.connect({ url: url(), keyPrefix: 'sharedbucket:' });
      const b = await RedisStore.connect({ url: url(), keyPrefix: 'sharedbucket:' });
      const other = await RedisStore.connect({ url: url(), keyPrefix: 'otherbucket:' });
      try {
        const opts = { capacity: 4, refillPerSec: 0.001 };
        const takes = await Promise.all([a, b, a, b, a, b].map((s) => s.takeTokens('k', opts)));
        assert.equal(takes.filter((t) => t.allowed).length, 4);
        assert.equal((await other.takeTokens('k', opts)).allowed, true, 'another prefix has its own bucket');
      } finally {
        await Promise.all([a.close(), b.close(), other.close()]);
      }
    });

    it('re-loads the commit and token scripts after SCRIPT FLUSH', async () => {
      const store = await RedisStore.connect({ url: url(), keyPrefix: 'flush:' });
      try {
        assert.equal(await store.commit([{ op: 'set', key: 'a', value: 1 }]), true);
        assert.equal((await store.takeTokens('t', { capacity: 2, refillPerSec: 1 })).allowed, true);
        await raw!.script('FLUSH');
        assert.equal(await store.commit([{ op: 'set', key: 'a', value: 2 }], [{ key: 'a', equals: 1 }]), true);
        assert.equal(await store.get('a'), 2);
        assert.deepEqual(await store.takeTokens('t', { capacity: 2, refillPerSec: 0.001 }), { allowed: true, remaining: 0, retryAfterMs: 0 });
      } finally {
        await store.close();
      }
    });

    it('reports subscriber callback failures to onError and keeps delivering', async () => {
      const errors: unknown[] = [];
      const store = await RedisStore.connect({
        url: url(),
        keyPrefix: 'cb:',
        onError: (err) => errors.push(err),
      });
      try {
        const got: unknown[] = [];
        await store.subscribe('ch', () => {
          throw new Error('sync boom');
        });
        await store.subscribe('ch', async () => {
          throw new Error('async boom');
        });
        await store.subscribe('ch', (m) => got.push(m));
        await store.publish('ch', 'one');
        await store.publish('ch', 'two');
        await eventually(async () => assert.deepEqual(got, ['one', 'two']), 2000);
        await eventually(async () => assert.equal(errors.length, 4), 2000);
      } finally {
        await store.close();
      }
    });

    it('fails fast while Redis is down and recovers after a restart on the same port', async () => {
      const own = await startRedisServer();
      const backgroundErrors: unknown[] = [];
      const store = await RedisStore.connect({
        url: own.url,
        keyPrefix: 'restart:',
        onError: (err) => backgroundErrors.push(err),
      });
      let restarted: RedisServer | undefined;
      try {
        const received: unknown[] = [];
        await store.subscribe('ch', (m) => received.push(m));
        await store.set('k', 1);
        await own.stop();

        const calls: [string, () => Promise<unknown>][] = [
          ['get', () => store.get('k')],
          ['set', () => store.set('k', 2)],
          ['incr', () => store.incr('n')],
          ['commit', () => store.commit([{ op: 'set', key: 'k', value: 3 }], [{ key: 'k', equals: 1 }])],
          ['indexRange', () => store.indexRange('i')],
          ['keys', () => store.keys('')],
          ['publish', () => store.publish('ch', 'lost')],
          ['ping', () => store.ping()],
        ];
        for (const [method, call] of calls) {
          const started = Date.now();
          await assert.rejects(call(), (err: unknown) => {
            assertStoreError(err, 'STORE_UNAVAILABLE');
            assert.match(err.message, /127\.0\.0\.1/, method);
            return true;
          });
          const elapsed = Date.now() - started;
          assert.ok(elapsed < 3000, `${method} took ${elapsed} ms to fail`);
        }
        // Failed reconnect attempts reach onError, credential-free, as StoreErrors.
        await eventually(async () => assert.ok(backgroundErrors.length > 0, 'no background error'), 3000);
        for (const err of backgroundErrors) assertStoreError(err, 'STORE_UNAVAILABLE');

        restarted = await startRedisServer({ port: own.port });
        // The same store object reconnects by itself (backoff is capped at 1 s).
        await eventually(async () => {
          await store.ping();
        }, 10_000);
        assert.equal(await store.get('k'), undefined); // a fresh server without persistence
        await store.set('k', 'back');
        assert.equal(await store.get('k'), 'back');
        assert.equal(await store.incr('n'), 1);
        // The subscription is restored on the new connection too.
        await eventually(async () => {
          await store.publish('ch', 'after restart');
          assert.ok(received.includes('after restart'), `not delivered yet: ${inspect(received)}`);
        }, 10_000);
        assert.ok(!received.includes('lost'), 'a message published while down was delivered');
      } finally {
        await store.close();
        await restarted?.stop();
        await own.stop();
      }
    });

    it('connect to a closed port rejects with STORE_UNAVAILABLE, naming --redis, hiding the password', async () => {
      const port = await freePort(); // released again at once: nothing listens there
      const started = Date.now();
      const err = await RedisStore.connect({ url: `redis://:secretpw@127.0.0.1:${port}` }).then(
        () => assert.fail('connect should have failed'),
        (e: unknown) => e,
      );
      assertStoreError(err, 'STORE_UNAVAILABLE');
      assert.ok(Date.now() - started < 5000, 'fails well within connectTimeoutMs');
      assert.match(err.message, /--redis/);
      assert.match(err.message, /REDIS_URL/);
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.match(err.message, /ECONNREFUSED/);
      assert.doesNotMatch(err.message, /secretpw/);
      assert.doesNotMatch(inspect(err, { depth: 10 }), /secretpw/);
      assert.doesNotMatch(JSON.stringify(err), /secretpw/);
    });

    it('connect gives up after connectTimeoutMs when the server never answers', async () => {
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket); // accept, then say nothing
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const address = silent.address();
      assert.ok(address && typeof address === 'object', 'silent server has no address');
      try {
        const started = Date.now();
        await assert.rejects(
          RedisStore.connect({ url: `redis://127.0.0.1:${address.port}`, connectTimeoutMs: 300 }),
          (err: unknown) => {
            assertStoreError(err, 'STORE_UNAVAILABLE');
            assert.match(err.message, /connectTimeoutMs/);
            assert.match(err.message, /--redis/);
            return true;
          },
        );
        assert.ok(Date.now() - started < 2000, 'connect did not honour connectTimeoutMs');
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('rejects bad URLs and options without echoing them', async () => {
      for (const bad of ['not a url secretpw', 'http://:secretpw@127.0.0.1:6379']) {
        await assert.rejects(RedisStore.connect({ url: bad }), (err: unknown) => {
          assertStoreError(err, 'STORE_INVALID_ARGUMENT');
          assert.doesNotMatch(err.message, /secretpw/);
          assert.match(err.message, /REDIS_URL/);
          return true;
        });
      }
      await assert.rejects(RedisStore.connect({ url: url(), commandTimeoutMs: 0 }), (err: unknown) => {
        assertStoreError(err, 'STORE_INVALID_ARGUMENT');
        return true;
      });
    });
  });
});
