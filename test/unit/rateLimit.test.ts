import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { ApiError } from '../../server/http/errors.js';
import { DEFAULT_RATE_LIMITS, parseRateLimits } from '../../server/http/rateClasses.js';
import { clientKey, isLoopback, RateLimiter, rateClassOf, type RateLimiterOptions } from '../../server/http/rateLimit.js';
import { json, route, type Route } from '../../server/http/route.js';
import { Router } from '../../server/http/router.js';
import { v } from '../../server/schema.js';
import type { IncomingRequest } from '../../server/http/uws.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import { createRateLimiter } from '../../server/app.js';
import { MemoryStore } from '../../server/store/memory.js';
import { StoreError, type Store } from '../../server/store/types.js';

const log = pino({ level: 'silent' });
const PK_A = 'tBCKVERmG9nZpHTk2AVPqknWc1Mw9HHAnqrTpW1RnXpXMQ4PsQgnmV';
const PK_B = 'tBCKW665XZnvVZcCfcEmyeecSZGKAdaxwV2SH9UFab6PpSRikg4EJ2';

const r = (method: 'GET' | 'POST', path: string): Route => route({ method, path, summary: path, handle: () => json({}) });

describe('parseRateLimits (--rate-limits)', () => {
  it('has a default bucket for every class', () => {
    const d = parseRateLimits(DEFAULT_RATE_LIMITS);
    assert.deepEqual(d.read, { capacity: 300, refillPerSec: 30 });
    assert.deepEqual(d.write, { capacity: 60, refillPerSec: 2 });
    for (const cls of ['identity', 'miner', 'admin', 'login'] as const) assert.ok(d[cls] !== null, `${cls} limited by default`);
    // Each login stores a session for days: a much tighter bucket than identity frames.
    assert.ok(d.login!.refillPerSec <= d.identity!.refillPerSec / 10 && d.login!.capacity <= 10);
  });

  it('overrides the named classes only; class=off and off turn limits off', () => {
    const p = parseRateLimits(' read = 10/0.5 , admin=off ');
    assert.deepEqual(p.read, { capacity: 10, refillPerSec: 0.5 });
    assert.equal(p.admin, null);
    assert.deepEqual(p.write, parseRateLimits('').write);
    const off = parseRateLimits('OFF');
    for (const cls of ['read', 'write', 'identity', 'miner', 'admin', 'login'] as const) assert.equal(off[cls], null, cls);
  });

  it('names the bad item', () => {
    assert.throws(() => parseRateLimits('reads=1/1'), /unknown rate limit class "reads"; classes are read, write/);
    assert.throws(() => parseRateLimits('read=0/1'), /read: expected capacity\/refillPerSec/);
    assert.throws(() => parseRateLimits('read=5/0'), /read: expected/);
    assert.throws(() => parseRateLimits('read=5'), /read: expected/);
    assert.throws(() => parseRateLimits('read=1.5/1'), /read: expected/);
    assert.throws(() => parseRateLimits('read=1/1,read=2/2'), /given twice/);
    assert.throws(() => parseRateLimits('read'), /expected class=capacity\/refillPerSec or class=off/);
  });

  it('is checked by loadConfig, which names the option', () => {
    assert.equal(loadConfig([], {}).rateLimits, DEFAULT_RATE_LIMITS);
    assert.equal(loadConfig([], {}).rateLimitLoopback, false);
    assert.equal(loadConfig([], {}).metrics, true);
    assert.equal(loadConfig(['--no-metrics'], {}).metrics, false);
    assert.equal(loadConfig(['--rate-limits', 'write=5/1'], {}).rateLimits, 'write=5/1');
    assert.throws(() => loadConfig([], { RATE_LIMITS: 'write=5' }), (e: unknown) => e instanceof ConfigError && /--rate-limits \(RATE_LIMITS\): write: expected/.test(e.message));
  });
});

describe('rateClassOf', () => {
  it('classes routes by path and method; health-check and metrics are never limited', () => {
    const cases: Array<[Route, string | null]> = [
      [r('GET', '/get-exchange-rate'), 'read'],
      [r('GET', '/get-single-profile-picture/:PublicKeyBase58Check'), 'read'],
      [r('POST', '/get-users-stateless'), 'read'],
      [r('POST', '/check-party-access-groups'), 'read'],
      [r('POST', '/api/v1/transaction-info'), 'read'],
      [r('POST', '/submit-transaction'), 'write'],
      [r('POST', '/send-deso'), 'write'],
      [r('POST', '/update-user-global-metadata'), 'write'],
      [r('POST', '/identity'), 'identity'],
      [r('POST', '/get-block-template'), 'miner'],
      [r('POST', '/submit-block'), 'miner'],
      [r('POST', '/admin/get-all-referral-info-for-user'), 'admin'],
      [r('GET', '/health-check'), null],
      [r('GET', '/health-live'), null],
      [r('GET', '/metrics'), null],
    ];
    for (const [rt, cls] of cases) assert.equal(rateClassOf(rt), cls, rt.path);
  });
});

describe('clientKey', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as IPv4, IPv6 by /64, and knows loopback', () => {
    const cases: Array<[string, string | null]> = [
      ['203.0.113.9', '203.0.113.9'],
      // uWS writes IPv6 peers as eight padded hextets.
      ['0000:0000:0000:0000:0000:ffff:7f00:0001', '127.0.0.1'],
      ['0000:0000:0000:0000:0000:0000:0000:0001', '::1'],
      ['::1', '::1'],
      ['::ffff:198.51.100.7', '198.51.100.7'],
      ['2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
      ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['', null],
      ['not-an-address', null],
      ['1:2:3', null],
      ['::ffff:999.1.1.1', null],
    ];
    for (const [addr, key] of cases) assert.equal(clientKey(addr), key, addr);
    assert.equal(isLoopback('127.0.0.1'), true);
    assert.equal(isLoopback('127.8.9.10'), true);
    assert.equal(isLoopback('::1'), true);
    assert.equal(isLoopback('10.0.0.1'), false);
  });
});

/** A limiter on a memory store with a clock the test moves. */
function limiter(opts: Partial<Omit<RateLimiterOptions, 'limits'>> & { limits?: string } = {}) {
  const clock = { now: 1_000_000 };
  const store = opts.store ?? new MemoryStore();
  const counts = { rejected: [] as string[], storeErrors: 0 };
  const warnings: string[] = [];
  const l = new RateLimiter({
    limits: parseRateLimits(opts.limits ?? 'read=3/1,write=2/0.5'),
    limitLoopback: opts.limitLoopback ?? false,
    store,
    log: { warn: (_o: object, msg?: string) => void warnings.push(String(msg)), info: () => undefined } as never,
    metrics: { rejected: (c, s) => void counts.rejected.push(`${c}/${s}`), storeError: () => void counts.storeErrors++ },
    nowMs: () => clock.now,
  });
  return { l, clock, counts, warnings, store };
}

async function refusal(p: Promise<void>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  return assert.fail('expected a 429');
}

describe('RateLimiter', () => {
  const read = r('GET', '/get-exchange-rate');
  const write = r('POST', '/send-deso');

  it('refuses a burst over capacity with 429 and Retry-After, then lets requests through as the bucket refills', async () => {
    const { l, clock, counts } = limiter();
    for (let i = 0; i < 3; i++) await l.checkAddress(read, '203.0.113.1');
    const e = await refusal(l.checkAddress(read, '203.0.113.1'));
    assert.equal(e.status, 429);
    assert.match(e.message, /too many read requests from this address/);
    assert.equal(e.headers['Retry-After'], '1');
    // Another address has its own bucket.
    await l.checkAddress(read, '203.0.113.2');
    clock.now += 1000;
    await l.checkAddress(read, '203.0.113.1');
    await refusal(l.checkAddress(read, '203.0.113.1'));
    clock.now += 3000;
    for (let i = 0; i < 3; i++) await l.checkAddress(read, '203.0.113.1');
    assert.deepEqual(counts.rejected, ['read/ip', 'read/ip']);
  });

  it('rounds Retry-After up to whole seconds', async () => {
    const { l } = limiter({ limits: 'write=1/0.25' });
    await l.checkAddress(write, '203.0.113.1');
    const e = await refusal(l.checkAddress(write, '203.0.113.1'));
    assert.equal(e.headers['Retry-After'], '4');
  });

  it('limits an authenticated public key on non-read classes across addresses', async () => {
    const { l, counts } = limiter();
    await l.checkCaller(write, '203.0.113.1', PK_A);
    await l.checkCaller(write, '203.0.113.2', PK_A);
    const e = await refusal(l.checkCaller(write, '203.0.113.3', PK_A));
    assert.match(e.message, /too many write requests from this public key/);
    await l.checkCaller(write, '203.0.113.3', PK_B);
    assert.deepEqual(counts.rejected, ['write/key']);
  });

  it('never limits a public key on reads (there it is usually the key looked up)', async () => {
    const { l } = limiter();
    const getSingle = r('POST', '/get-single-profile');
    for (let i = 0; i < 10; i++) await l.checkCaller(getSingle, `203.0.113.${i}`, PK_A);
  });

  it('checkClass takes from a named class by address (sockets, logins)', async () => {
    const { l, counts } = limiter({ limits: 'login=2/0.1' });
    await l.checkClass('login', '203.0.113.1');
    await l.checkClass('login', '203.0.113.1');
    const e = await refusal(l.checkClass('login', '203.0.113.1'));
    assert.match(e.message, /^too many login requests from this address .*retry in 10 s$/);
    assert.equal(e.headers['Retry-After'], '10');
    await l.checkClass('login', '203.0.113.2');
    await l.checkClass('login', '127.0.0.1');
    await l.checkClass('login', '127.0.0.1');
    await l.checkClass('login', '127.0.0.1');
    assert.deepEqual(counts.rejected, ['login/ip']);
  });

  it('exempts loopback clients unless limitLoopback is set', async () => {
    const open = limiter();
    for (let i = 0; i < 10; i++) {
      await open.l.checkAddress(read, '127.0.0.1');
      await open.l.checkAddress(read, '0000:0000:0000:0000:0000:0000:0000:0001');
      await open.l.checkCaller(write, '127.0.0.1', PK_A);
    }
    assert.equal(open.l.limitedClient('127.0.0.1'), null);
    const strict = limiter({ limitLoopback: true });
    for (let i = 0; i < 3; i++) await strict.l.checkAddress(read, '127.0.0.1');
    await refusal(strict.l.checkAddress(read, '0000:0000:0000:0000:0000:ffff:7f00:0001'));
    assert.equal(strict.l.limitedClient('127.0.0.1'), '127.0.0.1');
  });

  it('exempts loopback in a node only while no proxy is trusted (createRateLimiter)', () => {
    const of = (argv: string[]) => createRateLimiter({ config: loadConfig(argv, {}), store: new MemoryStore(), log }).limitedClient('127.0.0.1');
    assert.equal(of([]), null);
    assert.equal(of(['--rate-limit-loopback']), '127.0.0.1');
    assert.equal(of(['--trust-proxy', '10.0.0.0/8']), '127.0.0.1', 'behind a proxy on this host, loopback is the proxy: exempting it would exempt everyone');
  });

  it('does not limit classes that are off, nor health-check', async () => {
    const { l } = limiter({ limits: 'read=off,write=1/1' });
    for (let i = 0; i < 10; i++) {
      await l.checkAddress(read, '203.0.113.1');
      await l.checkAddress(r('GET', '/health-check'), '203.0.113.1');
    }
  });

  it('fails open when the store fails: logs once, counts each failure, and limits again once it answers', async () => {
    const memory = new MemoryStore();
    let down = true;
    const flaky: Pick<Store, 'takeTokens'> = {
      takeTokens: (key, o) => (down ? Promise.reject(new StoreError('STORE_UNAVAILABLE', 'redis down')) : memory.takeTokens(key, o)),
    };
    const { l, counts, warnings } = limiter({ store: flaky as Store, limits: 'read=1/1' });
    for (let i = 0; i < 5; i++) await l.checkAddress(read, '203.0.113.1');
    assert.equal(counts.storeErrors, 5);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /letting requests through/);
    down = false;
    await l.checkAddress(read, '203.0.113.1');
    await refusal(l.checkAddress(read, '203.0.113.1'));
  });
});

describe('Router with a RateLimiter', () => {
  const echo = v.object({ SenderPublicKeyBase58Check: v.string({ maxLength: 100 }), JWT: v.optional(v.string(), '') });
  const routes: Route[] = [
    route({ method: 'POST', path: '/send-thing', summary: 'write', body: echo, handle: (ctx) => json(ctx.body) }),
    route({ method: 'GET', path: '/get-thing', summary: 'read', handle: () => json({ ok: true }) }),
    // Stands for a JWT route: requireUserJwt calls caller.authenticated() once a token verified.
    route({
      method: 'POST',
      path: '/update-thing',
      summary: 'write, authenticated',
      body: echo,
      async handle({ body, caller }) {
        if (body.JWT !== 'good') return json({ error: 'bad token' }, 401);
        await caller.authenticated(body.SenderPublicKeyBase58Check);
        return json({});
      },
    }),
  ];
  const build = () => {
    const { l, clock } = limiter({ limits: 'read=2/1,write=5/1' });
    return { router: new Router([routes], { network: 'testnet', corsOrigins: ['*'], log, rateLimiter: l }), clock };
  };
  const req = (method: string, url: string, body: Promise<Buffer> | null, addr = '198.51.100.1'): IncomingRequest => ({
    method,
    url,
    query: '',
    headers: { 'content-type': 'application/json' },
    remoteAddress: addr,
    body,
  });

  it('answers 429 {"error"} with Retry-After, before reading the body', async () => {
    const { router, clock } = build();
    for (let i = 0; i < 2; i++) assert.equal((await router.dispatch(req('GET', '/api/v0/get-thing', null))).status, 200);
    const out = await router.dispatch(req('GET', '/api/v0/get-thing', null));
    assert.equal(out.status, 429);
    assert.equal(new Map(out.headers).get('Retry-After'), '1');
    assert.match(JSON.parse(String(out.body)).error, /^too many read requests/);
    clock.now += 1000;
    assert.equal((await router.dispatch(req('GET', '/get-thing', null))).status, 200);

    // Write bucket: 5; the sixth is refused without its body ever being read.
    const body = Promise.resolve(Buffer.from(JSON.stringify({ SenderPublicKeyBase58Check: 'someone' })));
    for (let i = 0; i < 5; i++) assert.equal((await router.dispatch(req('POST', '/send-thing', body))).status, 200);
    const never = new Promise<Buffer>(() => undefined);
    assert.equal((await router.dispatch(req('POST', '/send-thing', never))).status, 429);
  });

  it('takes from the caller key bucket only once the request authenticated as that key', async () => {
    const { router } = build();
    const body = (JWT: string, pk = PK_A) => Promise.resolve(Buffer.from(JSON.stringify({ SenderPublicKeyBase58Check: pk, JWT })));
    const statuses: number[] = [];
    // The attack: many requests naming PK_A with a junk token, each from a new address (so only
    // a key bucket could refuse them). They must not drain PK_A's bucket (5).
    for (let i = 0; i < 8; i++) statuses.push((await router.dispatch(req('POST', '/update-thing', body('junk'), `198.51.100.${10 + i}`))).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 401, 401, 401]);
    // The owner still has a full bucket; proven requests take from it across addresses.
    const owner: number[] = [];
    for (let i = 0; i < 6; i++) owner.push((await router.dispatch(req('POST', '/update-thing', body('good'), `198.51.100.${30 + i}`))).status);
    assert.deepEqual(owner, [200, 200, 200, 200, 200, 429]);
    // A route without authentication names a key but takes no bucket of it.
    for (let i = 0; i < 8; i++) assert.equal((await router.dispatch(req('POST', '/send-thing', body('', PK_B), `198.51.100.${50 + i}`))).status, 200);
  });
});
