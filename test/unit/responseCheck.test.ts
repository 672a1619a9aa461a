/**
 * Response schemas (server/schema.ts `out`), the checker that holds answers to them
 * (server/http/responseCheck.ts), and the router's `--check-responses` mode: a 200 answer that
 * its route's schema does not describe becomes a 500 naming the field; off, answers pass as
 * they are.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { empty, json, raw, route, type Route } from '../../server/http/route.js';
import { ResponseChecker, schemaViolation } from '../../server/http/responseCheck.js';
import { schemaWithNames } from '../../server/http/responseNames.js';
import { Router } from '../../server/http/router.js';
import { out, responseComponents } from '../../server/schema.js';
import type { IncomingRequest } from '../../server/http/uws.js';

const log = pino({ level: 'silent' });

describe('schemaViolation', () => {
  const entry = out.object({
    Name: out.string(),
    Count: out.uint64(),
    Price: out.number(),
    Tags: out.array(out.string()),
    Parent: out.nullable(out.object({ Id: out.hex() })),
    Side: out.enum(['ASK', 'BID']),
    Extra: out.optional(out.boolean()),
    ByKey: out.record(out.int()),
  });
  const good = { Name: 'a', Count: 3, Price: 1.5, Tags: ['x'], Parent: null, Side: 'ASK', ByKey: { k: 1 } };

  it('accepts a conforming value, with and without optional fields', () => {
    assert.equal(schemaViolation(entry.json, good, { closed: true }), null);
    assert.equal(schemaViolation(entry.json, { ...good, Extra: true, Parent: { Id: 'ab' } }, { closed: true }), null);
  });

  it('names the field and what it expected', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ ...good, Name: 1 }, /^\$\.Name: expected string, got integer 1$/],
      [{ ...good, Count: -1 }, /^\$\.Count: -1 is below the minimum 0$/],
      [{ ...good, Count: 1.5 }, /^\$\.Count: expected integer, got number 1\.5$/],
      [{ ...good, Tags: ['x', 2] }, /^\$\.Tags\[1\]: expected string/],
      [{ ...good, Parent: { Id: 'XYZ' } }, /\$\.Parent\.Id: a string of length 3 does not match/],
      [{ ...good, Side: 'BUY' }, /^\$\.Side: expected one of \["ASK","BID"\]/],
      [{ ...good, ByKey: { k: 'one' } }, /^\$\.ByKey\.k: expected integer/],
      [(({ Name: _, ...rest }) => rest)(good), /^\$: missing required field Name$/],
    ];
    for (const [value, re] of cases) assert.match(schemaViolation(entry.json, value, { closed: true }) ?? 'conforms', re);
  });

  it('closes objects with properties only when asked: an undocumented field fails the node’s own check', () => {
    assert.match(schemaViolation(entry.json, { ...good, Surprise: 1 }, { closed: true }) ?? 'conforms', /^\$: field Surprise is not in the schema$/);
    assert.equal(schemaViolation(entry.json, { ...good, Surprise: 1 }), null, 'the published reading leaves objects open');
    assert.equal(schemaViolation(out.freeObject('anything').json, { any: [1, { deep: true }] }, { closed: true }), null, 'a free-form object takes anything');
  });

  it('resolves $ref in the given root, and reads anyOf as at least one branch', () => {
    const root = { components: { schemas: { Node: { type: 'object', properties: { Next: { anyOf: [{ $ref: '#/components/schemas/Node' }, { type: 'null' }] } }, required: ['Next'] } } } };
    const list = { $ref: '#/components/schemas/Node' };
    assert.equal(schemaViolation(list, { Next: { Next: { Next: null } } }, { root, closed: true }), null, 'a recursive schema');
    assert.match(schemaViolation(list, { Next: { Next: 3 } }, { root, closed: true }) ?? '', /matches none of anyOf/);
    assert.throws(() => schemaViolation({ $ref: '#/components/schemas/Missing' }, 1, { root }), /does not resolve/);
  });

  it('publishes named schemas once, as $refs', () => {
    const named = out.named('ResponseCheckTestThing', out.object({ A: out.int() }));
    assert.deepEqual(named.json, { $ref: '#/components/schemas/ResponseCheckTestThing' });
    assert.deepEqual(responseComponents().get('ResponseCheckTestThing'), out.object({ A: out.int() }).json);
    assert.doesNotThrow(() => out.named('ResponseCheckTestThing', out.object({ A: out.int() })), 'the same definition again is the same schema');
    assert.throws(() => out.named('ResponseCheckTestThing', out.object({ B: out.int() })), /defined twice/);
  });

  it('renames fields and required names under --response-names reference', () => {
    const s = schemaWithNames(out.object({ NativeBalanceNanos: out.uint64(), Other: out.int() }).json, 'reference') as Record<string, any>;
    assert.deepEqual(Object.keys(s['properties']), ['DESOBalanceNanos', 'Other']);
    assert.deepEqual(s['required'], ['DESOBalanceNanos', 'Other']);
  });
});

describe('ResponseChecker', () => {
  const checker = new ResponseChecker('spec');
  const answer = (body: string, status = 200, type = 'application/json') => ({ status, headers: [['Content-Type', type]] as Array<[string, string]>, body });

  it('checks 200 JSON answers only', () => {
    const s = out.object({ A: out.int() });
    assert.equal(checker.violation(s, answer('{"A":1}\n')), null);
    assert.match(checker.violation(s, answer('{"A":"1"}')) ?? '', /\$\.A: expected integer/);
    assert.equal(checker.violation(s, answer('{"error":"x"}', 400)), null, 'errors are not the 200 schema’s');
    assert.match(checker.violation(s, answer('hello', 200, 'text/plain')) ?? '', /expected application\/json/);
    assert.match(checker.violation(s, answer('{"A":')) ?? '', /not JSON/);
  });

  it('holds empty answers to out.empty() and out.orEmpty()', () => {
    assert.equal(checker.violation(out.empty(), answer('')), null);
    assert.match(checker.violation(out.empty(), answer('{}')) ?? '', /expected an empty body/);
    const either = out.orEmpty(out.object({ A: out.int() }));
    assert.equal(checker.violation(either, answer('')), null);
    assert.equal(checker.violation(either, answer('{"A":2}')), null);
  });

  it('checks reference-named answers against the renamed schema', () => {
    const s = out.object({ NativeBalanceNanos: out.uint64() });
    assert.equal(new ResponseChecker('reference').violation(s, answer('{"DESOBalanceNanos":1}')), null);
    assert.match(new ResponseChecker('reference').violation(s, answer('{"NativeBalanceNanos":1}')) ?? '', /missing required field DESOBalanceNanos/);
  });
});

describe('Router with checkResponses', () => {
  const routes: Route[] = [
    route({ method: 'GET', path: '/good', summary: 'g', response: out.object({ A: out.int() }), handle: () => json({ A: 1 }) }),
    route({ method: 'GET', path: '/extra', summary: 'e', response: out.object({ A: out.int() }), handle: () => json({ A: 1, B: 2 }) }),
    route({ method: 'GET', path: '/bigint', summary: 'b', response: out.object({ N: out.uint64() }), handle: () => json({ N: 2n ** 60n }) }),
    route({ method: 'GET', path: '/cached', summary: 'c', response: out.object({ A: out.int() }), handle: () => raw('{"A":"x"}\n', 'application/json') }),
    route({ method: 'GET', path: '/empty', summary: 'e', response: out.empty(), handle: () => empty() }),
    route({ method: 'GET', path: '/undescribed', summary: 'u', handle: () => json({ anything: true }) }),
  ];
  const request = (url: string): IncomingRequest => ({ method: 'GET', url, query: '', headers: {}, remoteAddress: '127.0.0.1', body: null });
  const call = async (router: Router, url: string) => {
    const r = await router.dispatch(request(url));
    const text = typeof r.body === 'string' ? r.body : Buffer.from(r.body).toString();
    return { status: r.status, text };
  };

  it('answers 500 naming the route and the field when an answer does not conform', async () => {
    const router = new Router([routes], { network: 'testnet', corsOrigins: [], log, checkResponses: true });
    assert.equal((await call(router, '/good')).status, 200);
    assert.equal((await call(router, '/bigint')).status, 200, 'a bigint is a JSON integer');
    assert.equal((await call(router, '/empty')).status, 200);
    assert.equal((await call(router, '/undescribed')).status, 200, 'a route without a schema is not checked');
    const extra = await call(router, '/extra');
    assert.equal(extra.status, 500);
    assert.match(JSON.parse(extra.text).error, /^response check: GET \/extra answered what its response schema does not describe: \$: field B is not in the schema$/);
    const cached = await call(router, '/cached');
    assert.equal(cached.status, 500, 'serialized answers (the read cache’s) are checked too');
    assert.match(JSON.parse(cached.text).error, /\$\.A: expected integer/);
  });

  it('lets every answer through as it is when off (the default)', async () => {
    const router = new Router([routes], { network: 'testnet', corsOrigins: [], log });
    const extra = await call(router, '/extra');
    assert.equal(extra.status, 200);
    assert.equal(extra.text, '{"A":1,"B":2}\n');
  });
});
