/**
 * RedisStore through Redis Sentinel (`redis-sentinel://` URLs): URL parsing and redaction, the
 * generic store contract against a master/replica pair behind one sentinel, failovers (manual
 * SENTINEL FAILOVER, then a crashed master) and credential hygiene. Every process is private:
 * free ports, own temp dirs, all stopped in `after` (also when a test fails).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { RedisStore } from '../../server/store/redis.js';
import { parseRedisUrl, redactRedisUrl, redisUrlProblem, redisUrlSecrets } from '../../server/store/redisUrl.js';
import { isStoreError, type StoreErrorCode } from '../../server/store/types.js';
import { freePort } from '../helpers/ports.js';
import { startRedisSentinel, startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { redisFixture } from './redisFixture.js';
import { storeSuite } from './store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const MASTER_NAME = 'snmaster';
/** requirepass/masterauth of master and replica; the store's URL password. */
const PASSWORD = 'masterPw-Secret1';
/** requirepass of the sentinel; the store's sentinelPassword. */
const SENTINEL_PASSWORD = 'sentinelPw-Secret2';

function assertStoreError(err: unknown, code: StoreErrorCode): asserts err is Error {
  assert.ok(isStoreError(err), `expected a StoreError, got ${inspect(err)}`);
  assert.equal(err.code, code, err.message);
}

function assertNoSecrets(err: unknown, secrets: readonly string[]): void {
  const views = [
    err instanceof Error ? err.message : String(err),
    inspect(err, { depth: 10 }),
    JSON.stringify(err),
  ];
  for (const secret of secrets) {
    for (const view of views) assert.ok(!view.includes(secret), `a secret leaked: ${view}`);
  }
}

/** Retries an async check until it passes or the deadline passes; returns the errors seen. */
async function eventually(check: () => Promise<void>, timeoutMs: number, pauseMs = 100): Promise<unknown[]> {
  const seen: unknown[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return seen;
    } catch (err) {
      seen.push(err);
      if (Date.now() > deadline) throw err;
      await sleep(pauseMs);
    }
  }
}

function rawClient(url: string): Redis {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 200 });
  client.on('error', () => {}); // a server stopped under it; commands report it
  return client;
}

/** `field:value` lines of an INFO section. */
function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(.*)\\r?$`, 'm').exec(info)?.[1]?.trim();
}

describe('URL syntax redis-sentinel://', () => {
  it('parses hosts (default port 26379, IPv6), master name, credentials and db', () => {
    assert.deepEqual(
      parseRedisUrl('redis-sentinel://app:p%40ss@10.0.0.1:26380,sentinel-b,[::1]:5000/my%2Dmaster?db=3&sentinelPassword=s%26p'),
      {
        kind: 'sentinel',
        sentinels: [
          { host: '10.0.0.1', port: 26380 },
          { host: 'sentinel-b', port: 26379 },
          { host: '::1', port: 5000 },
        ],
        name: 'my-master',
        username: 'app',
        password: 'p@ss',
        db: 3,
        sentinelPassword: 's&p',
      },
    );
    assert.deepEqual(parseRedisUrl('REDIS-SENTINEL://h/m'), {
      kind: 'sentinel',
      sentinels: [{ host: 'h', port: 26379 }],
      name: 'm',
      db: 0,
    });
    assert.deepEqual(parseRedisUrl('redis-sentinel://:pw@h:1/m?sentinelUsername=su'), {
      kind: 'sentinel',
      sentinels: [{ host: 'h', port: 1 }],
      name: 'm',
      password: 'pw',
      db: 0,
      sentinelUsername: 'su',
    });
    assert.deepEqual(parseRedisUrl('redis://:pw@127.0.0.1:6379/2'), { kind: 'direct', url: 'redis://:pw@127.0.0.1:6379/2' });
  });

  it('rejects malformed Sentinel URLs without echoing any part of them', () => {
    const bad = [
      'redis-sentinel:h:26379/m', // no //
      'redis-sentinel://h:26379', // no master name
      'redis-sentinel://h:26379/', // empty master name
      'redis-sentinel://h:26379/m/1', // two path segments
      'redis-sentinel://:secretpw@/m', // no host
      'redis-sentinel://h:26379,,h2/m', // empty host
      'redis-sentinel://h:99999/m', // port out of range
      'redis-sentinel://user:secretpw/x@h/m', // unencoded / in the password
      'redis-sentinel://:secretpw#x@h/m', // unencoded # in the password
      'redis-sentinel://h/m?db=x',
      'redis-sentinel://h/m?db=-1',
      'redis-sentinel://h/m?secretpw=1',
      'redis-sentinel://h/m?tls=true',
      'redis-sentinel://h/m?db=1&db=2',
      'redis-sentinel://:%E0%A4%A@h/m', // broken percent-encoding
    ];
    for (const url of bad) {
      assert.throws(() => parseRedisUrl(url), (err: Error) => {
        assert.ok(!err.message.includes('secretpw'), `echoed: ${err.message}`);
        return true;
      }, url);
      const problem = redisUrlProblem(url);
      assert.ok(problem !== undefined && !problem.includes('secretpw'), `${url}: ${problem}`);
      assert.equal(redactRedisUrl(url), '(unparseable URL)', url);
    }
    assert.match(redisUrlProblem('redis-sentinel://h/m?tls=true') ?? '', /unknown query parameter "tls"/);
    assert.equal(redisUrlProblem('redis-sentinel://h1,h2:26380/m?db=1'), undefined);
    assert.equal(redisUrlProblem('rediss://h:6380'), undefined);
  });

  it('redacts every password and lists them as secrets', () => {
    const url = 'redis-sentinel://app:secret%2Fpw@h1:26379,h2/mymaster?db=2&sentinelPassword=sentsecret';
    assert.equal(redactRedisUrl(url), 'redis-sentinel://app:***@h1:26379,h2/mymaster?db=2&sentinelPassword=***');
    assert.deepEqual(redisUrlSecrets(url).sort(), ['secret%2Fpw', 'secret/pw', 'sentsecret'].sort());
    assert.equal(redactRedisUrl('redis-sentinel://h/m'), 'redis-sentinel://h/m');
    assert.equal(redactRedisUrl('redis://:pw@127.0.0.1:6379/0'), 'redis://:***@127.0.0.1:6379/0');
  });
});

describe('RedisStore through Redis Sentinel', () => {
  let master: RedisServer | undefined;
  let replica: RedisServer | undefined;
  let sentinel: RedisServer | undefined;
  let sentinelRaw: Redis | undefined;
  const started: RedisServer[] = [];
  let namespace = 0;

  const storeUrl = (query = '') => {
    assert.ok(sentinel, 'sentinel is not running');
    const sep = query ? '&' : '';
    return `redis-sentinel://:${PASSWORD}@127.0.0.1:${sentinel.port}/${MASTER_NAME}?sentinelPassword=${SENTINEL_PASSWORD}${sep}${query}`;
  };

  /** The master's port as the sentinel announces it. */
  const announcedMasterPort = async () => {
    const addr = (await sentinelRaw!.call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME)) as [string, string];
    return Number(addr[1]);
  };

  /** Waits until `server` replicates from a master with the link up (a full sync done). */
  const waitReplicating = async (server: RedisServer, masterPort: number, timeoutMs: number) => {
    const raw = rawClient(server.url);
    try {
      await raw.connect();
      await eventually(async () => {
        const info = await raw.info('replication');
        assert.equal(infoField(info, 'role'), 'slave', `role of :${server.port}`);
        assert.equal(infoField(info, 'master_port'), String(masterPort), `master of :${server.port}`);
        assert.equal(infoField(info, 'master_link_status'), 'up', `link of :${server.port}`);
      }, timeoutMs);
    } finally {
      raw.disconnect();
    }
  };

  // No skip path: if a server cannot start, this hook throws and every test below fails.
  before(async () => {
    master = await startRedisServer({ password: PASSWORD });
    started.push(master);
    replica = await startRedisServer({ password: PASSWORD, replicaOf: { port: master.port } });
    started.push(replica);
    // The sentinel learns of replicas from the master's INFO, sent when it connects: start it
    // only once the replica is attached, or it would wait for the next INFO (10 s).
    await waitReplicating(replica, master.port, 10_000);
    sentinel = await startRedisSentinel({
      masterName: MASTER_NAME,
      masterPort: master.port,
      masterPassword: PASSWORD,
      password: SENTINEL_PASSWORD,
      quorum: 1,
      downAfterMs: 1000,
      failoverTimeoutMs: 2000,
    });
    started.push(sentinel);
    sentinelRaw = rawClient(sentinel.url);
    await sentinelRaw.connect();
    await eventually(async () => {
      const replicas = (await sentinelRaw!.call('SENTINEL', 'replicas', MASTER_NAME)) as string[][];
      const ok = replicas.filter((r) => {
        const fields = new Map<string, string>();
        for (let i = 0; i + 1 < r.length; i += 2) fields.set(r[i]!, r[i + 1]!);
        return fields.get('port') === String(replica!.port) && !/s_down|disconnected/.test(fields.get('flags') ?? '');
      });
      assert.equal(ok.length, 1, `sentinel does not list the replica yet: ${inspect(replicas)}`);
    }, 10_000);
  });

  after(async () => {
    sentinelRaw?.disconnect();
    await Promise.allSettled(started.map((server) => server.stop()));
  });

  // Each test gets a fresh key prefix, which also keeps channels apart.
  storeSuite('contract', async () => {
    return redisFixture(storeUrl(), `s${++namespace}:`);
  });

  describe('sentinel specifics', () => {
    it('writes to the master in the ?db= database, under the key prefix', async () => {
      const store = await RedisStore.connect({ url: storeUrl('db=3'), keyPrefix: 'dbsel:' });
      const raw = rawClient(master!.url);
      try {
        await store.set('k', 'v');
        await raw.connect();
        await raw.select(3);
        assert.equal(await raw.exists('dbsel:v:k'), 1, 'key is in db 3 of the master');
        await raw.select(0);
        assert.equal(await raw.exists('dbsel:v:k'), 0, 'key is not in db 0');
      } finally {
        raw.disconnect();
        await store.close();
      }
    });

    it('names the sentinels, never the passwords, when nothing listens there', async () => {
      const [deadA, deadB] = [await freePort(), await freePort()];
      const url = `redis-sentinel://app:secretpw@127.0.0.1:${deadA},127.0.0.1:${deadB}/${MASTER_NAME}?sentinelPassword=sentinelsecret`;
      const err = await RedisStore.connect({ url }).then(
        () => assert.fail('connect should have failed'),
        (e: unknown) => e,
      );
      assertStoreError(err, 'STORE_UNAVAILABLE');
      assert.match(err.message, /--redis/);
      assert.match(err.message, /REDIS_URL/);
      assert.match(err.message, new RegExp(`cannot reach sentinel 127\\.0\\.0\\.1:(${deadA}|${deadB})`));
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${deadA},127\\.0\\.0\\.1:${deadB}/${MASTER_NAME}`));
      assert.match(err.message, /app:\*\*\*@/);
      assert.match(err.message, /sentinelPassword=\*\*\*/);
      assertNoSecrets(err, ['secretpw', 'sentinelsecret']);
    });

    it('hides wrong passwords and says when the sentinel knows no such master', async () => {
      const wrongMaster = `redis-sentinel://:wrongMasterPw9@127.0.0.1:${sentinel!.port}/${MASTER_NAME}?sentinelPassword=${SENTINEL_PASSWORD}`;
      const wrongSentinel = `redis-sentinel://:${PASSWORD}@127.0.0.1:${sentinel!.port}/${MASTER_NAME}?sentinelPassword=wrongSentinelPw9`;
      const unknownMaster = `redis-sentinel://:${PASSWORD}@127.0.0.1:${sentinel!.port}/nosuchmaster?sentinelPassword=${SENTINEL_PASSWORD}`;
      for (const [url, pattern] of [
        [wrongMaster, /WRONGPASS|invalid password|NOAUTH/i],
        [wrongSentinel, /WRONGPASS|invalid password|NOAUTH/i],
        [unknownMaster, /No such master|monitors no master of that name/],
      ] as const) {
        const err = await RedisStore.connect({ url, connectTimeoutMs: 3000 }).then(
          () => assert.fail('connect should have failed'),
          (e: unknown) => e,
        );
        assertStoreError(err, 'STORE_UNAVAILABLE');
        assert.match(err.message, pattern);
        assertNoSecrets(err, ['wrongMasterPw9', 'wrongSentinelPw9', PASSWORD, SENTINEL_PASSWORD]);
      }
    });

    it('skips a dead sentinel in the list and reports it through onError, not stderr', async () => {
      const dead = await freePort();
      const url = `redis-sentinel://:${PASSWORD}@127.0.0.1:${dead},127.0.0.1:${sentinel!.port}/${MASTER_NAME}?sentinelPassword=${SENTINEL_PASSWORD}`;
      const errors: unknown[] = [];
      const printed: unknown[][] = [];
      const consoleError = console.error;
      console.error = (...args: unknown[]) => {
        printed.push(args);
      };
      try {
        const store = await RedisStore.connect({ url, keyPrefix: 'deadsentinel:', onError: (err) => errors.push(err) });
        try {
          await store.set('k', 1);
          assert.equal(await store.get('k'), 1);
          await store.subscribe('ch', () => {}); // a second connection, with its own failover watch
          await eventually(async () => {
            const watch = errors.filter((e) => isStoreError(e) && e.message.includes(`sentinel 127.0.0.1:${dead}, watched for failovers`));
            assert.ok(watch.length >= 1, `no failover-watch error reported: ${inspect(errors)}`);
          }, 5000);
          for (const err of errors) {
            assertStoreError(err, 'STORE_UNAVAILABLE');
            assertNoSecrets(err, [PASSWORD, SENTINEL_PASSWORD]);
          }
        } finally {
          await store.close();
        }
      } finally {
        console.error = consoleError;
      }
      assert.deepEqual(printed, [], 'nothing printed to stderr by ioredis');
    });

    it('follows a manual failover and then a crashed master; the subscription keeps delivering', async () => {
      const backgroundErrors: unknown[] = [];
      const store = await RedisStore.connect({
        url: storeUrl(),
        keyPrefix: 'failover:',
        onError: (err) => backgroundErrors.push(err),
      });
      const received: unknown[] = [];
      try {
        await store.subscribe('ch', (m) => received.push(m));
        await store.set('before', 1);
        await store.publish('ch', 'before');
        await eventually(async () => assert.ok(received.includes('before'), 'first message not delivered'), 2000);

        /**
         * After a switch to `newMaster`: within a few seconds a write then read succeeds and the
         * value is on that server (only STORE_UNAVAILABLE on the way), and pub/sub delivers.
         * Until Sentinel announces the switch (+switch-master), writes still reach the old
         * master, which nothing has told yet: that is Sentinel's asynchronous replication, so
         * the loop waits for a write that lands on the new master.
         */
        const expectServedBy = async (newMaster: RedisServer, tag: string) => {
          const raw = rawClient(newMaster.url);
          const unexpected: unknown[] = [];
          try {
            await raw.connect();
            let attempt = 0;
            await eventually(async () => {
              const key = `${tag}-${++attempt}`;
              try {
                await store.set(key, attempt);
                assert.equal(await store.get(key), attempt, 'read back');
              } catch (err) {
                if (!isStoreError(err) || err.code !== 'STORE_UNAVAILABLE') unexpected.push(err);
                throw err;
              }
              assert.equal(await raw.exists(`failover:v:${key}`), 1, `the write of ${key} is not on :${newMaster.port}`);
            }, 15_000);
            assert.deepEqual(unexpected, [], 'only STORE_UNAVAILABLE while switching');
            assert.equal(infoField(await raw.info('replication'), 'role'), 'master', `:${newMaster.port} is master`);
          } finally {
            raw.disconnect();
          }
          assert.equal(await store.get('before'), 1, 'data written before the failovers survives');
          await eventually(async () => {
            await store.publish('ch', tag).catch(() => {});
            assert.ok(received.includes(tag), `message ${tag} not delivered: ${inspect(received)}`);
          }, 10_000, 200);
        };

        // 1. Manual failover: the replica is promoted, the old master becomes its replica.
        assert.equal(await sentinelRaw!.call('SENTINEL', 'failover', MASTER_NAME), 'OK');
        await eventually(async () => assert.equal(await announcedMasterPort(), replica!.port, 'replica promoted'), 10_000);
        await expectServedBy(replica!, 'after-manual');

        // 2. Crash of the new master: the old one (now its replica, once synced) takes over.
        await waitReplicating(master!, replica!.port, 15_000);
        await replica!.kill();
        await eventually(async () => assert.equal(await announcedMasterPort(), master!.port, 'old master promoted back'), 15_000, 200);
        await expectServedBy(master!, 'after-crash');

        assert.ok(!received.includes(undefined), 'no undecodable message');
        for (const err of backgroundErrors) {
          assertStoreError(err, 'STORE_UNAVAILABLE');
          assertNoSecrets(err, [PASSWORD, SENTINEL_PASSWORD]);
        }
      } finally {
        await store.close();
      }
    });
  });
});
