import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { json, route, type Route } from '../../server/http/route.js';
import { Router, stringifyJson } from '../../server/http/router.js';
import { v } from '../../server/schema.js';
import type { IncomingRequest } from '../../server/http/uws.js';
import { StoreError } from '../../server/store/types.js';
import { DomainError } from '../../server/errors.js';
import { ApiError } from '../../server/http/errors.js';

const log = pino({ level: 'silent' });

const echoBody = v.object({
  StartTimestamp: v.optional(v.uint64()),
  Name: v.string({ maxLength: 10 }),
  NumToFetch: v.optional(v.int(1, 99), 20),
});

const routes: Route[] = [
  route({ method: 'POST', path: '/echo', summary: 'echo', body: echoBody, handle: (ctx) => json(ctx.body) }),
  route({ method: 'POST', path: '/map', summary: 'map', body: v.object({ M: v.record(v.int(0, 9)) }), handle: (ctx) => json({ keys: Object.keys(ctx.body.M) }) }),
  route({ method: 'GET', path: '/thing/:Id', summary: 'param', handle: (ctx) => json({ id: ctx.params.Id }) }),
  route({ method: 'GET', path: '/store-down', summary: 'fails', handle: () => Promise.reject(new StoreError('STORE_UNAVAILABLE', 'ECONNREFUSED secret-host')) }),
  route({ method: 'GET', path: '/bug', summary: 'fails', handle: () => { throw new Error('leaky internal detail'); } }),
  route({
    method: 'GET',
    path: '/prefixed/:Code',
    summary: 'fails with a domain error of the code given',
    errorPrefixes: { 'RuleError*': 'Area: Problem processing: ', RuleErrorExact: 'Area: exact: ', 'RuleErrorLong*': 'Area: longer: ', BUSY: 'Area: ' },
    handle: ({ params }) => {
      const code = params['Code']!;
      if (code === 'api') throw new ApiError(400, 'an ApiError keeps its message');
      throw new DomainError(code, code === 'BUSY' ? 'busy' : 'invalid', 'detail');
    },
  }),
];
const router = new Router([routes], { network: 'testnet', corsOrigins: ['*'], log });

function req(method: string, url: string, body?: string, headers: Record<string, string> = {}): IncomingRequest {
  return {
    method,
    url,
    query: '',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    remoteAddress: '127.0.0.1',
    body: body === undefined ? null : Promise.resolve(Buffer.from(body)),
  };
}

async function call(r: IncomingRequest): Promise<{ status: number; body: any; headers: Map<string, string> }> {
  const out = await router.dispatch(r);
  const text = typeof out.body === 'string' ? out.body : Buffer.from(out.body).toString();
  return { status: out.status, body: text ? JSON.parse(text) : undefined, headers: new Map(out.headers) };
}

describe('Router.dispatch', () => {
  it('matches exact names first, then case-insensitively, and fills defaults', async () => {
    const r = await call(req('POST', '/api/v0/echo', '{"name":"lower","Name":"exact","numtofetch":5,"extra":1}'));
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { Name: 'exact', NumToFetch: 5 });
    const d = await call(req('POST', '/echo', '{"NAME":"x"}'));
    assert.equal(d.body.NumToFetch, 20);
  });

  it('keeps uint64 precision from decimal strings and writes bigint as a JSON number', async () => {
    const out = await router.dispatch(req('POST', '/echo', '{"Name":"t","StartTimestamp":"18446744073709551615"}'));
    assert.match(String(out.body), /"StartTimestamp":18446744073709551615/);
  });

  it('names the field and the expectation in validation errors', async () => {
    const cases: Array<[string, RegExp]> = [
      ['{}', /^Name: is required$/],
      ['{"Name":5}', /^Name: expected a string, got number 5$/],
      ['{"Name":"12345678901"}', /^Name: expected at most 10 characters/],
      ['{"Name":"a","NumToFetch":100}', /^NumToFetch: expected an integer from 1 to 99, got number 100$/],
      ['{"Name":"a","NumToFetch":1.5}', /^NumToFetch: expected an integer/],
      ['{"Name":"a","StartTimestamp":-1}', /^StartTimestamp: expected an unsigned 64-bit integer/],
      ['{"Name":"a","StartTimestamp":"18446744073709551616"}', /^StartTimestamp: expected an unsigned 64-bit integer/],
      ['null', /request body: expected a JSON object, got null/],
    ];
    for (const [body, re] of cases) {
      const r = await call(req('POST', '/echo', body));
      assert.equal(r.status, 400, body);
      assert.match(r.body.error, re, body);
    }
  });

  it('treats null as absent, as Go does', async () => {
    const r = await call(req('POST', '/echo', '{"Name":"a","NumToFetch":null}'));
    assert.equal(r.body.NumToFetch, 20);
  });

  it('is not fooled by prototype keys', async () => {
    const r = await call(req('POST', '/echo', '{"Name":"a","__proto__":{"x":1},"constructor":1,"toString":2}'));
    assert.equal(r.status, 200);
  });

  it('refuses __proto__, constructor and prototype as keys of a client map', async () => {
    for (const k of ['__proto__', 'constructor', 'prototype']) {
      const r = await call(req('POST', '/map', `{"M":{"a":1,${JSON.stringify(k)}:1}}`));
      assert.equal(r.status, 400, k);
      assert.match(r.body.error, new RegExp(`^M: the key "${k}" is not allowed`), k);
    }
    // Look-alikes are ordinary keys.
    const ok = await call(req('POST', '/map', '{"M":{"__proto_":1,"Constructor":2,"toString":3,"a":4}}'));
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.keys, ['__proto_', 'Constructor', 'toString', 'a']);
  });

  it('refuses a body nested deeper than 64 arrays or objects with 400 {"error"}, before JSON.parse', async () => {
    for (const body of ['['.repeat(1 << 20) + ']'.repeat(1 << 20), `{"Name":"a","x":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`, '['.repeat(100)]) {
      const r = await call(req('POST', '/echo', body));
      assert.equal(r.status, 400, body.slice(0, 20));
      assert.equal(r.body.error, 'request body refused: JSON nests arrays and objects more than 64 deep');
    }
    // Brackets in strings are text.
    const ok = await call(req('POST', '/echo', JSON.stringify({ Name: '[[[[', x: '['.repeat(1000) })));
    assert.equal(ok.status, 200);
  });

  it('decodes path parameters', async () => {
    const r = await call(req('GET', '/api/v0/thing/a%20b'));
    assert.deepEqual(r.body, { id: 'a b' });
    assert.equal((await call(req('GET', '/api/v0/thing/'))).status, 404);
  });

  it('maps an unavailable store to 503 without its message', async () => {
    const r = await call(req('GET', '/store-down'));
    assert.equal(r.status, 503);
    assert.doesNotMatch(r.body.error, /secret-host/);
    assert.equal(r.headers.get('Retry-After'), '1');
  });

  it('maps an unexpected error to a bare 500', async () => {
    const r = await call(req('GET', '/bug'));
    assert.equal(r.status, 500);
    assert.equal(r.body.error, 'internal server error');
  });

  it("puts the route's errorPrefixes before a domain error's message, by its code", async () => {
    const cases: Array<[string, number, string]> = [
      ['RuleErrorInsufficientBalance', 400, 'Area: Problem processing: detail'],
      ['RuleErrorExact', 400, 'Area: exact: detail'],
      ['RuleErrorLongerName', 400, 'Area: longer: detail'],
      ['BUSY', 503, 'Area: detail'],
      ['OTHER_CODE', 400, 'detail'],
      ['api', 400, 'an ApiError keeps its message'],
    ];
    for (const [code, status, error] of cases) {
      const r = await call(req('GET', `/prefixed/${code}`));
      assert.equal(r.status, status, code);
      assert.deepEqual(r.body, { error }, code);
    }
    assert.equal((await call(req('GET', '/prefixed/BUSY'))).headers.get('Retry-After'), '1');
  });

  it('answers a wrong method with 405 and Allow, an unknown path with 404', async () => {
    const r = await call(req('GET', '/echo'));
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('Allow'), 'POST, OPTIONS');
    assert.equal((await call(req('POST', '/thing/x', '{}'))).status, 405);
    assert.equal((await call(req('GET', '/api/v0/nope'))).status, 404);
  });

  it('refuses duplicate routes and prefixed paths at construction', () => {
    assert.throws(() => new Router([routes, routes], { network: 'testnet', corsOrigins: [], log }), /duplicate route/);
    const bad = [route({ method: 'GET', path: '/api/v0/x', summary: '', handle: () => json({}) })];
    assert.throws(() => new Router([bad], { network: 'testnet', corsOrigins: [], log }), /omit \/api\/v0/);
  });
});

describe('stringifyJson', () => {
  it('writes plain JSON unchanged and bigint as numbers, even beside look-alike strings', () => {
    assert.equal(stringifyJson({ a: 1, b: 'x' }), '{"a":1,"b":"x"}');
    assert.equal(stringifyJson({ n: 2n ** 64n, s: '\u0000bigint:5', m: [-3n] }), '{"n":18446744073709551616,"s":"\\u0000bigint:5","m":[-3]}');
  });

  it('with a hint, learns that bodies hold bigints and answers the same either way', () => {
    const hint = { bigint: false };
    assert.equal(stringifyJson({ a: 1 }, hint), '{"a":1}');
    assert.equal(hint.bigint, false);
    assert.equal(stringifyJson({ a: 1n }, hint), '{"a":1}');
    assert.equal(hint.bigint, true, 'a bigint was seen');
    assert.equal(stringifyJson({ a: 2, b: [3n] }, hint), '{"a":2,"b":[3]}');
    assert.equal(stringifyJson({ a: 'x' }, hint), '{"a":"x"}', 'a body without one is the same through the replacer');
  });
});

// Issue 17, item 12: with the default `--cors-origins *` every origin used to be echoed with
// Access-Control-Allow-Credentials, so any site could make credentialed reads as the visitor.
describe('CORS', () => {
  const headersFor = async (corsOrigins: string[], origin: string | undefined, method = 'GET'): Promise<Map<string, string>> => {
    const r = new Router([routes], { network: 'testnet', corsOrigins, log });
    const out = await r.dispatch(req(method, '/thing/1', undefined, origin === undefined ? {} : { origin }));
    return new Map(out.headers.filter(([k]) => /^(access-control-allow-(origin|credentials)|vary)$/i.test(k)).map(([k, v]) => [k.toLowerCase(), v]));
  };
  const LISTED = ['https://app.example.com', 'https://*.frontend.test'];
  /** [--cors-origins, Origin, the CORS headers expected (allow-origin, allow-credentials, vary)]. */
  const cases: Array<[string[], string | undefined, Record<string, string>]> = [
    [['*'], 'https://evil.example', { 'access-control-allow-origin': '*' }],
    [['*'], 'null', { 'access-control-allow-origin': '*' }],
    [['*'], undefined, { 'access-control-allow-origin': '*' }],
    [LISTED, 'https://app.example.com', { 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-credentials': 'true', vary: 'Origin' }],
    [LISTED, 'https://a.frontend.test', { 'access-control-allow-origin': 'https://a.frontend.test', 'access-control-allow-credentials': 'true', vary: 'Origin' }],
    [LISTED, 'https://evil.example', { vary: 'Origin' }],
    [LISTED, 'https://app.example.com.evil.example', { vary: 'Origin' }],
    [LISTED, 'https://frontend.test', { vary: 'Origin' }],
    [LISTED, undefined, { vary: 'Origin' }],
    [['*', ...LISTED], 'https://app.example.com', { 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-credentials': 'true', vary: 'Origin' }],
    [['*', ...LISTED], 'https://evil.example', { 'access-control-allow-origin': '*', vary: 'Origin' }],
  ];

  it('echoes only listed origins, with credentials; `*` answers * without credentials', async () => {
    for (const [corsOrigins, origin, want] of cases) {
      for (const method of ['GET', 'OPTIONS']) {
        assert.deepEqual(Object.fromEntries(await headersFor(corsOrigins, origin, method)), want, `${method} ${corsOrigins.join(',')} with Origin ${String(origin)}`);
      }
    }
  });
});

describe('request log', () => {
  /** A router whose log lines are kept: level, fields and message of each. */
  function logged(slowRequestMs: number, level = 'debug'): { router: Router; lines: Array<{ level: number; obj: Record<string, unknown> }> } {
    const lines: Array<{ level: number; obj: Record<string, unknown> }> = [];
    const stream = { write: (s: string) => void lines.push({ level: JSON.parse(s).level, obj: JSON.parse(s) }) };
    return { router: new Router([routes], { network: 'testnet', corsOrigins: ['*'], log: pino({ level }, stream), slowRequestMs }), lines };
  }
  const requestLines = (lines: Array<{ level: number; obj: Record<string, unknown> }>) => lines.filter((l) => ['request', 'slow request', 'request failed'].includes(l.obj['msg'] as string));

  it('logs every request at debug: method, route pattern, status, ms; never the URL or the body', async () => {
    const { router: r, lines } = logged(60_000);
    await r.dispatch(req('GET', '/api/v0/thing/tBCsecretlookingkey'));
    await r.dispatch(req('POST', '/api/v0/echo', '{"Name":"seedwords"}'));
    const got = requestLines(lines);
    assert.equal(got.length, 2);
    assert.deepEqual(got.map((l) => [l.level, l.obj['method'], l.obj['route'], l.obj['status']]), [
      [20, 'GET', '/thing/:Id', 200],
      [20, 'POST', '/echo', 200],
    ]);
    assert.equal(typeof got[0]!.obj['ms'], 'number');
    const text = JSON.stringify(lines);
    assert.ok(!text.includes('tBCsecretlookingkey') && !text.includes('seedwords'), 'neither the URL nor the body is logged');
  });

  it('logs a 5xx and a slow request at info, so they show at the default level', async () => {
    const quiet = logged(60_000, 'info');
    await quiet.router.dispatch(req('GET', '/api/v0/thing/1'));
    await quiet.router.dispatch(req('GET', '/api/v0/bug'));
    assert.deepEqual(requestLines(quiet.lines).map((l) => [l.obj['msg'], l.obj['status']]), [['request failed', 500]]);
    const slow = logged(0, 'info');
    await slow.router.dispatch(req('GET', '/api/v0/thing/1'));
    assert.deepEqual(requestLines(slow.lines).map((l) => [l.obj['msg'], l.obj['route']]), [['slow request', '/thing/:Id']]);
  });
});
