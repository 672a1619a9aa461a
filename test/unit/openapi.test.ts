/**
 * GET /api/v0/openapi.json and its generator (server/http/openapi.ts): the document lists
 * exactly the routes the node mounts, its example request bodies pass the routes' own
 * validation, every route's 200 answer is described from the route's own response schema
 * (the one the router checks answers against), the error answers, media types, tags and the
 * WebSocket APIs are there, and it is well-formed OpenAPI 3.1 whose schemas are JSON Schema
 * 2020-12. (test/unit/openapiClient.test.ts generates a typed client from it.)
 *
 * No OpenAPI or JSON Schema validator is installed, so this file carries a small one for the
 * keywords the generator emits; a keyword outside that set fails the test instead of going
 * unchecked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRouter } from '../../server/app.js';
import { exampleFor, openApiDocument, openApiPath, stringMatching, type OpenApiDocument } from '../../server/http/openapi.js';
import { rateClassOf } from '../../server/http/rateLimit.js';
import { json, route, type Route } from '../../server/http/route.js';
import { out, v, type JsonSchema, type Schema } from '../../server/schema.js';
import { schemaWithNames } from '../../server/http/responseNames.js';
import { AREAS } from '../../server/routes/index.js';
import { startChainNode, type ChainNode } from '../helpers/chainNode.js';
import { request } from '../helpers/http.js';

type J = Record<string, any>;
const METHODS = ['get', 'post'] as const;

// ---------------------------------------------------------------------------------------------
// A JSON Schema 2020-12 checker and validator for the keywords the generator emits.

const TYPES = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array', 'null']);
const isObj = (x: unknown): x is J => typeof x === 'object' && x !== null && !Array.isArray(x);
const isCount = (x: unknown): boolean => Number.isInteger(x) && (x as number) >= 0;

/** What each supported keyword's value must be (JSON Schema 2020-12 meta-schema, this subset). */
const KEYWORDS: Record<string, (x: unknown, at: string, visit: (s: unknown, at: string) => void) => void> = {
  $ref: (x, at) => assert.equal(typeof x, 'string', `${at}: $ref is a string`),
  type: (x, at) => {
    const types = Array.isArray(x) ? x : [x];
    assert.ok(types.length > 0 && types.every((t) => TYPES.has(t as string)), `${at}: type ${JSON.stringify(x)} is a JSON Schema type`);
  },
  properties: (x, at, visit) => {
    assert.ok(isObj(x), `${at}: properties is an object`);
    for (const [k, s] of Object.entries(x)) visit(s, `${at}.properties.${k}`);
  },
  required: (x, at) => {
    assert.ok(Array.isArray(x) && x.every((k) => typeof k === 'string'), `${at}: required is an array of strings`);
    assert.equal(new Set(x).size, x.length, `${at}: required names are unique`);
  },
  additionalProperties: (x, at, visit) => (typeof x === 'boolean' ? undefined : visit(x, `${at}.additionalProperties`)),
  items: (x, at, visit) => visit(x, `${at}.items`),
  oneOf: (x, at, visit) => {
    assert.ok(Array.isArray(x) && x.length > 0, `${at}: oneOf is a non-empty array`);
    x.forEach((s, i) => visit(s, `${at}.oneOf[${i}]`));
  },
  anyOf: (x, at, visit) => {
    assert.ok(Array.isArray(x) && x.length > 0, `${at}: anyOf is a non-empty array`);
    x.forEach((s, i) => visit(s, `${at}.anyOf[${i}]`));
  },
  enum: (x, at) => assert.ok(Array.isArray(x) && x.length > 0, `${at}: enum is a non-empty array`),
  const: () => undefined,
  pattern: (x, at) => {
    assert.equal(typeof x, 'string', `${at}: pattern is a string`);
    assert.doesNotThrow(() => new RegExp(x as string, 'u'), `${at}: pattern ${String(x)} is an ECMA-262 regex`);
  },
  maxLength: (x, at) => assert.ok(isCount(x), `${at}: maxLength is a non-negative integer`),
  minLength: (x, at) => assert.ok(isCount(x), `${at}: minLength is a non-negative integer`),
  maxItems: (x, at) => assert.ok(isCount(x), `${at}: maxItems is a non-negative integer`),
  minItems: (x, at) => assert.ok(isCount(x), `${at}: minItems is a non-negative integer`),
  maxProperties: (x, at) => assert.ok(isCount(x), `${at}: maxProperties is a non-negative integer`),
  minimum: (x, at) => assert.ok(Number.isFinite(x), `${at}: minimum is a number`),
  maximum: (x, at) => assert.ok(Number.isFinite(x), `${at}: maximum is a number`),
  exclusiveMinimum: (x, at) => assert.ok(Number.isFinite(x), `${at}: exclusiveMinimum is a number (2020-12, not a boolean)`),
  exclusiveMaximum: (x, at) => assert.ok(Number.isFinite(x), `${at}: exclusiveMaximum is a number (2020-12, not a boolean)`),
  // Annotations.
  description: (x, at) => assert.equal(typeof x, 'string', `${at}: description is a string`),
  format: (x, at) => assert.equal(typeof x, 'string', `${at}: format is a string`),
  default: () => undefined,
  examples: (x, at) => assert.ok(Array.isArray(x), `${at}: examples is an array`),
  contentEncoding: (x, at) => assert.equal(x, 'base64', `${at}: contentEncoding is base64`),
  contentMediaType: (x, at) => assert.equal(typeof x, 'string', `${at}: contentMediaType is a media type`),
};

/** Asserts `schema` (and every subschema) uses only supported keywords, each well-formed. */
function checkSchema(schema: unknown, at: string): void {
  assert.ok(isObj(schema) || typeof schema === 'boolean', `${at}: a schema is an object or a boolean`);
  if (!isObj(schema)) return;
  for (const [k, x] of Object.entries(schema)) {
    const check = KEYWORDS[k];
    assert.ok(check, `${at}: keyword ${k} is JSON Schema 2020-12 and known to this test`);
    check(x, at, checkSchema);
  }
  if (Array.isArray(schema['required']) && isObj(schema['properties'])) {
    for (const k of schema['required'] as string[]) assert.ok(k in schema['properties'], `${at}: required field ${k} has a schema`);
  }
}

function typeOf(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
}

/** JSON Schema validation of `x` (the keywords of KEYWORDS); returns the first violation. */
function violation(schema: unknown, x: unknown, root: J, at = '$'): string | null {
  if (schema === true) return null;
  if (schema === false) return `${at}: nothing is allowed`;
  const s = schema as J;
  if (s['$ref'] !== undefined) return violation(resolve(root, s['$ref']), x, root, at);
  if (s['type'] !== undefined) {
    const types: string[] = Array.isArray(s['type']) ? s['type'] : [s['type']];
    const t = typeOf(x);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) return `${at}: ${t} is not ${types.join('|')}`;
  }
  if (s['enum'] !== undefined && !s['enum'].some((e: unknown) => JSON.stringify(e) === JSON.stringify(x))) return `${at}: not in enum`;
  if ('const' in s && JSON.stringify(s['const']) !== JSON.stringify(x)) return `${at}: not the const`;
  if (s['oneOf'] !== undefined && s['oneOf'].filter((b: unknown) => violation(b, x, root, at) === null).length !== 1) return `${at}: not exactly one of oneOf`;
  if (s['anyOf'] !== undefined && !s['anyOf'].some((b: unknown) => violation(b, x, root, at) === null)) return `${at}: none of anyOf`;
  if (typeof x === 'string') {
    if (s['maxLength'] !== undefined && [...x].length > s['maxLength']) return `${at}: longer than ${s['maxLength']}`;
    if (s['minLength'] !== undefined && [...x].length < s['minLength']) return `${at}: shorter than ${s['minLength']}`;
    if (s['pattern'] !== undefined && !new RegExp(s['pattern'], 'u').test(x)) return `${at}: does not match ${s['pattern']}`;
  }
  if (typeof x === 'number') {
    if (s['minimum'] !== undefined && x < s['minimum']) return `${at}: below ${s['minimum']}`;
    if (s['maximum'] !== undefined && x > s['maximum']) return `${at}: above ${s['maximum']}`;
    if (s['exclusiveMinimum'] !== undefined && x <= s['exclusiveMinimum']) return `${at}: not above ${s['exclusiveMinimum']}`;
    if (s['exclusiveMaximum'] !== undefined && x >= s['exclusiveMaximum']) return `${at}: not below ${s['exclusiveMaximum']}`;
  }
  if (Array.isArray(x)) {
    if (s['maxItems'] !== undefined && x.length > s['maxItems']) return `${at}: more than ${s['maxItems']} items`;
    if (s['minItems'] !== undefined && x.length < s['minItems']) return `${at}: fewer than ${s['minItems']} items`;
    if (s['items'] !== undefined) {
      for (let i = 0; i < x.length; i++) {
        const e = violation(s['items'], x[i], root, `${at}[${i}]`);
        if (e) return e;
      }
    }
  }
  if (isObj(x)) {
    const props: J = s['properties'] ?? {};
    if (s['maxProperties'] !== undefined && Object.keys(x).length > s['maxProperties']) return `${at}: too many properties`;
    for (const k of s['required'] ?? []) if (!(k in x)) return `${at}: missing required ${k}`;
    for (const [k, y] of Object.entries(x)) {
      const sub = k in props ? props[k] : s['additionalProperties'];
      if (sub === undefined) continue;
      const e = violation(sub, y, root, `${at}.${k}`);
      if (e) return e;
    }
  }
  return null;
}

function resolve(root: J, ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `$ref ${ref} is local`);
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) at = isObj(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return at;
}

/** Every `$ref` in `x`, with where it is. */
function refs(x: unknown, at = '$', out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(x)) x.forEach((y, i) => refs(y, `${at}[${i}]`, out));
  else if (isObj(x)) {
    for (const [k, y] of Object.entries(x)) {
      if (k === '$ref' && typeof y === 'string') out.push([at, y]);
      else refs(y, `${at}.${k}`, out);
    }
  }
  return out;
}

/** Every schema of the document: request bodies, responses, parameters, components. */
function schemasOf(doc: J): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const content = (c: J | undefined, at: string): void => {
    for (const [type, media] of Object.entries(c ?? {})) if ((media as J)['schema'] !== undefined) out.push([`${at}[${type}]`, (media as J)['schema']]);
  };
  for (const [path, item] of Object.entries(doc['paths'] as J)) {
    for (const [method, op] of Object.entries(item as J)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const p of (op as J)['parameters'] ?? []) out.push([`${at} parameter ${p.name}`, p.schema]);
      content((op as J)['requestBody']?.content, `${at} requestBody`);
      for (const [status, r] of Object.entries((op as J)['responses'] as J)) content((r as J)['content'], `${at} ${status}`);
    }
  }
  for (const [name, s] of Object.entries(doc['components']['schemas'] as J)) out.push([`components.schemas.${name}`, s]);
  for (const [name, r] of Object.entries(doc['components']['responses'] as J)) content((r as J)['content'], `components.responses.${name}`);
  return out;
}

// ---------------------------------------------------------------------------------------------

describe('GET /api/v0/openapi.json', () => {
  let node: ChainNode;
  let routes: readonly Route[];
  let doc: J;
  let text: string;

  before(async () => {
    node = await startChainNode();
    // The node's own composition: the same createRouter over the same deps.
    routes = createRouter(node.deps).routes;
    const r = await request(node.url, '/api/v0/openapi.json');
    assert.equal(r.status, 200, `openapi.json answers 200: ${r.text.slice(0, 200)}`);
    assert.equal(r.headers.get('content-type'), 'application/json', 'openapi.json is application/json');
    text = r.text;
    doc = r.json as J;
  });
  after(() => node?.close());

  it('answers the same document with and without the /api/v0 prefix', async () => {
    const bare = await request(node.url, '/openapi.json');
    assert.equal(bare.status, 200, 'bare /openapi.json answers 200');
    assert.equal(bare.text, text, 'the same bytes under both paths');
  });

  it('lists every mounted route (method and path, itself included) and nothing else', () => {
    const mounted = routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    assert.ok(mounted.includes('GET /api/v0/openapi.json'), 'the document route itself is mounted');
    assert.equal(new Set(mounted).size, mounted.length, 'no two mounted routes share method and path');
    const documented = Object.entries(doc['paths'] as J)
      .flatMap(([path, item]) => Object.keys(item as J).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(documented, mounted, 'documented operations equal the mounted routes');
  });

  it('carries each route’s summary, its :Name segments as {Name} path parameters, and a POST body', () => {
    for (const r of routes) {
      const op = doc['paths'][openApiPath(r.path)][r.method.toLowerCase()] as J;
      const at = `${r.method} ${r.path}`;
      assert.equal(op['summary'], r.summary, `${at}: summary`);
      const names = [...r.path.matchAll(/:([^/]+)/g)].map((m) => m[1]);
      const params = (op['parameters'] ?? []) as J[];
      assert.deepEqual(params.map((p) => p['name']), names, `${at}: one parameter per :Name segment`);
      for (const p of params) assert.ok(p['in'] === 'path' && p['required'] === true, `${at}: ${p['name']} is a required path parameter`);
      if (r.method === 'POST') {
        const type = r.bodyType === 'multipart' ? 'multipart/form-data' : 'application/json';
        const media = op['requestBody']?.['content']?.[type] as J | undefined;
        assert.ok(media, `${at}: ${type} request body`);
        assert.deepEqual(media['schema'], r.body?.json ?? {}, `${at}: the body schema is the route's validator schema`);
      } else {
        assert.equal(op['requestBody'], undefined, `${at}: a GET has no request body`);
      }
    }
  });

  it('gives every POST route with a schema an example body that the route’s own parse accepts', () => {
    // A multipart form (upload-image) carries a file: no JSON example.
    const posts = routes.filter((r) => r.method === 'POST' && r.body !== undefined && r.bodyType !== 'multipart');
    assert.ok(posts.length > 30, `the node mounts POST routes with schemas (${posts.length})`);
    for (const r of posts) {
      const media = doc['paths'][openApiPath(r.path)]['post']['requestBody']['content']['application/json'] as J;
      assert.ok('example' in media, `POST ${r.path}: has an example body`);
      assert.doesNotThrow(() => r.body!.parse(media['example'], '', { network: 'testnet' }), `POST ${r.path}: example ${JSON.stringify(media['example'])} passes the route's parse`);
      assert.equal(violation(media['schema'], media['example'], doc), null, `POST ${r.path}: example conforms to the published schema`);
    }
  });

  it('fills public-key fields with a real key of the node’s network', () => {
    const example = doc['paths']['/api/v0/send-deso']['post']['requestBody']['content']['application/json']['example'] as J;
    assert.match(example['SenderPublicKeyBase58Check'], /^tBC[1-9A-HJ-NP-Za-km-z]{51}$/, 'a testnet public key');
  });

  it('is OpenAPI 3.1: version, info, paths, unique operationIds, responses, resolving $refs', () => {
    assert.match(doc['openapi'], /^3\.1\.\d+$/, 'openapi 3.1.x');
    assert.ok(typeof doc['info']?.['title'] === 'string' && typeof doc['info']?.['version'] === 'string', 'info has title and version');
    assert.ok(isObj(doc['paths']), 'paths is an object');
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc['paths'] as J)) {
      // API v1 (the exchange reads) is mounted at its own paths, as the reference serves it.
      assert.match(path, /^\/api\/v[01]\//, `${path}: starts with /api/v0/ or /api/v1/`);
      for (const [method, op] of Object.entries(item as J)) {
        const at = `${method} ${path}`;
        assert.ok((METHODS as readonly string[]).includes(method), `${at}: a method the router serves`);
        assert.equal(typeof op['operationId'], 'string', `${at}: operationId`);
        ids.push(op['operationId']);
        assert.ok(isObj(op['responses']) && '200' in op['responses'], `${at}: documents its 200 answer`);
        for (const [status, r] of Object.entries(op['responses'] as J)) {
          assert.ok(status === 'default' || /^[1-5]\d\d$/.test(status), `${at}: response key ${status}`);
          const resp = (r as J)['$ref'] !== undefined ? (resolve(doc, (r as J)['$ref']) as J) : (r as J);
          assert.equal(typeof resp?.['description'], 'string', `${at} ${status}: a response object with a description`);
        }
        // Every {Name} of the path is declared as a parameter, and only those.
        const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        const declared = ((op['parameters'] ?? []) as J[]).filter((p) => p['in'] === 'path').map((p) => p['name']).sort();
        assert.deepEqual(declared, inPath, `${at}: path template parameters are declared`);
      }
    }
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    const all = refs(doc);
    assert.ok(all.length > 0, 'the document uses $ref');
    for (const [at, ref] of all) assert.notEqual(resolve(doc, ref), undefined, `${at}: $ref ${ref} resolves`);
  });

  it('publishes only well-formed JSON Schema 2020-12', () => {
    const schemas = schemasOf(doc);
    assert.ok(schemas.length > routes.length, `schemas collected (${schemas.length})`);
    for (const [at, s] of schemas) checkSchema(s, at);
  });

  it('describes every route’s 200 answer from the route’s own response schema: none undescribed, none `{}`', () => {
    for (const r of routes) {
      const at = `${r.method} ${r.path}`;
      assert.ok(r.response !== undefined || r.responses?.[200] !== undefined, `${at}: declares its 200 answer`);
      const ok = doc['paths'][openApiPath(r.path)][r.method.toLowerCase()]['responses']['200'] as J;
      if (r.response?.empty) {
        assert.equal(ok['content'], undefined, `${at}: an empty 200 has no content`);
        continue;
      }
      const content = ok['content'] as J;
      assert.ok(isObj(content) && Object.keys(content).length === 1, `${at}: one media type`);
      const [type, media] = Object.entries(content)[0]!;
      if (r.response !== undefined) {
        assert.equal(type, 'application/json', `${at}: JSON`);
        assert.deepEqual(media['schema'], r.response.json, `${at}: the published schema is the route's response schema`);
      }
      assert.ok(isObj(media['schema']) && Object.keys(media['schema']).length > 0, `${at}: the 200 schema is not {}`);
      assert.doesNotMatch(ok['description'], /does not describe/, `${at}: not the placeholder of an undescribed route`);
    }
  });

  it('publishes the shared entities once, as components the answers refer to', () => {
    const schemas = doc['components']['schemas'] as J;
    for (const name of ['ProfileEntryResponse', 'PostEntryResponse', 'BalanceEntryResponse', 'Transaction', 'AccessGroupEntryResponse', 'NewMessageEntryResponse', 'DAOCoinLimitOrderEntryResponse', 'UserDerivedKey', 'TransactionSpendingLimitResponse']) {
      assert.ok(isObj(schemas[name]), `components.schemas.${name}`);
    }
    const single = doc['paths']['/api/v0/get-single-profile']['post']['responses']['200']['content']['application/json']['schema'] as J;
    assert.deepEqual(single, { $ref: '#/components/schemas/GetSingleProfileResponse' });
    assert.deepEqual(schemas['GetSingleProfileResponse']['properties']['Profile']['anyOf'][0]['$ref'], '#/components/schemas/ProfileEntryResponse');
    const used = new Set(refs(doc).map(([, ref]) => ref.replace('#/components/schemas/', '')));
    for (const name of Object.keys(schemas)) assert.ok(used.has(name), `components.schemas.${name} is used`);
  });

  it('answers 429 with Retry-After on every rate-limited route, and names its class; never on the probes and metrics', () => {
    const limited = routes.filter((r) => rateClassOf(r) !== null);
    assert.ok(limited.length > 50, `rate-limited routes (${limited.length})`);
    for (const r of routes) {
      const op = doc['paths'][openApiPath(r.path)][r.method.toLowerCase()] as J;
      const at = `${r.method} ${r.path}`;
      if (rateClassOf(r) === null) {
        assert.ok(!('429' in op['responses']), `${at}: never limited, no 429`);
        continue;
      }
      assert.equal(op['x-rate-limit-class'], rateClassOf(r), `${at}: x-rate-limit-class`);
      const tooMany = resolve(doc, op['responses']['429']['$ref']) as J;
      assert.equal(tooMany['headers']['Retry-After']['required'], true, `${at}: 429 carries Retry-After`);
      assert.deepEqual(tooMany['content']['application/json']['schema'], { $ref: '#/components/schemas/Error' });
    }
    const unavailable = resolve(doc, '#/components/responses/ServiceUnavailable') as J;
    assert.equal(unavailable['headers']['Retry-After']['schema']['type'], 'integer', '503 carries Retry-After');
  });

  it('documents 404 where a route answers it, and 400 on GET routes with path parameters', () => {
    const notFound = routes.filter((r) => r.errors?.[404] !== undefined);
    assert.ok(notFound.length >= 5, `routes that answer 404 (${notFound.length})`);
    for (const r of notFound) {
      const resp = doc['paths'][openApiPath(r.path)][r.method.toLowerCase()]['responses']['404'] as J;
      assert.equal(resp['description'], r.errors![404], `${r.method} ${r.path}: its 404 description`);
      assert.deepEqual(resp['content']['application/json']['schema'], { $ref: '#/components/schemas/Error' });
    }
    for (const r of routes.filter((x) => x.method === 'GET' && x.path.includes('/:'))) {
      assert.ok('400' in doc['paths'][openApiPath(r.path)]['get']['responses'], `GET ${r.path}: 400 for a bad path parameter`);
    }
  });

  it('gives text, image and redirect answers their media types', () => {
    const ok = (path: string): J => doc['paths'][path]['get']['responses'] as J;
    assert.deepEqual(Object.keys(ok('/api/v0/')['200']['content']), ['text/plain; charset=utf-8'], '/ is text');
    assert.match(Object.keys(ok('/api/v0/metrics')['200']['content'])[0]!, /^text\/plain; version=0\.0\.4/, '/metrics is the Prometheus text format');
    const picture = ok('/api/v0/get-single-profile-picture/{PublicKeyBase58Check}');
    assert.deepEqual(Object.keys(picture['200']['content']), ['image/*'], 'the picture is an image');
    assert.equal(picture['302']['content'], undefined, 'the redirect has no body');
    assert.equal(picture['302']['headers']['Location']['required'], true, 'the redirect names its Location');
    assert.ok('404' in picture, 'no picture and no fallback: 404');
  });

  it('tags every operation with its API area, listed at the top with descriptions', () => {
    const listed: string[] = (doc['tags'] as J[]).map((t) => t['name']);
    assert.deepEqual([...listed], AREAS.map((a) => a.name).filter((n) => listed.includes(n)), 'in the areas’ order');
    for (const t of doc['tags'] as J[]) assert.equal(typeof t['description'], 'string', `tag ${t['name']} is described`);
    for (const [path, item] of Object.entries(doc['paths'] as J)) {
      for (const [method, op] of Object.entries(item as J)) {
        const tags = (op as J)['tags'] as string[];
        assert.ok(Array.isArray(tags) && tags.length > 0 && tags.every((t) => listed.includes(t)), `${method} ${path}: tagged with listed areas`);
        if (path.startsWith('/api/v0/admin/')) assert.ok(tags.includes('Admin'), `${path}: an admin route is tagged Admin`);
      }
    }
  });

  it('describes the identity and miner WebSocket APIs under x-websockets, their messages as components', () => {
    const sockets = doc['x-websockets'] as J;
    assert.deepEqual(Object.keys(sockets).sort(), ['/api/v0/identity', '/api/v0/miner']);
    const identity = sockets['/api/v0/identity'] as J;
    assert.equal(identity['x-rate-limit-class'], 'identity');
    assert.deepEqual(identity['clientMessages']['request']['schema'], { $ref: '#/components/schemas/IdentityRequestFrame' });
    const miner = sockets['/api/v0/miner'] as J;
    assert.deepEqual(Object.keys(miner['clientMessages']), ['subscribe', 'submit', 'unsubscribe']);
    assert.deepEqual(Object.keys(miner['serverMessages']), ['subscribed', 'submitted', 'unsubscribed', 'error', 'template']);
    for (const [path, s] of Object.entries(sockets)) {
      for (const side of ['clientMessages', 'serverMessages']) {
        for (const [name, m] of Object.entries((s as J)[side] as J)) {
          assert.equal(typeof (m as J)['summary'], 'string', `${path} ${name}: summary`);
          assert.notEqual(resolve(doc, (m as J)['schema']['$ref']), undefined, `${path} ${name}: its schema is a component`);
        }
      }
    }
    // The miner's subscribe params are the parser's own schema.
    const subscribe = doc['components']['schemas']['MinerSubscribeMessage'] as J;
    assert.deepEqual(subscribe['properties']['params']['required'], ['PublicKeyBase58Check']);
  });

  it('documents the errors: {error} for 400/413 on POST routes, 401/403 on admin routes, 500/503 everywhere', () => {
    const errorSchema = doc['components']['schemas']['Error'] as J;
    assert.deepEqual(errorSchema['required'], ['error'], 'the error body is {error: string}');
    let admins = 0;
    for (const r of routes) {
      const responses = doc['paths'][openApiPath(r.path)][r.method.toLowerCase()]['responses'] as J;
      const at = `${r.method} ${r.path}`;
      for (const s of ['500', '503', 'default']) assert.ok(s in responses, `${at}: documents ${s}`);
      if (r.method === 'POST') for (const s of ['400', '413']) assert.ok(s in responses, `${at}: documents ${s}`);
      const isAdmin = / \((super )?admin only\)$/.test(r.summary);
      if (isAdmin) admins++;
      if (isAdmin || r.auth !== undefined) for (const s of ['401', '403']) assert.ok(s in responses, `${at}: documents ${s}`);
      const err = resolve(doc, responses['500']['$ref']) as J;
      assert.deepEqual(err['content']['application/json']['schema'], { $ref: '#/components/schemas/Error' }, `${at}: errors are {error}`);
    }
    assert.ok(admins > 0, 'the node mounts admin routes');
  });
});

describe('openApiDocument', () => {
  const noop = (): ReturnType<typeof json> => json({});

  it('publishes a route’s response schema, an empty answer, and a free-form object for a route without one', () => {
    const d = openApiDocument(
      [
        route({ method: 'GET', path: '/a', summary: 'a', response: out.object({ A: out.int() }), handle: noop }),
        route({ method: 'POST', path: '/b', summary: 'b', response: out.empty(), handle: noop }),
        route({ method: 'GET', path: '/c', summary: 'c', handle: noop }),
      ],
      { title: 't', version: '1', network: 'testnet', rateLimits: { read: null, write: { capacity: 1, refillPerSec: 1 }, identity: null, miner: null, admin: null, login: null } },
    );
    assert.deepEqual(d.paths['/api/v0/a']!.get!.responses['200'], { description: 'Success', content: { 'application/json': { schema: { type: 'object', properties: { A: { type: 'integer' } }, required: ['A'] } } } });
    assert.deepEqual(d.paths['/api/v0/b']!.post!.responses['200'], { description: 'Success: an empty body' });
    const free = (d.paths['/api/v0/c']!.get!.responses['200'] as J)['content']['application/json']['schema'] as J;
    assert.equal(free['type'], 'object');
    assert.equal(free['additionalProperties'], true, 'documented as free-form, not {}');
    assert.ok(!('429' in d.paths['/api/v0/a']!.get!.responses), 'read is off in these limits: no 429');
    assert.ok('429' in d.paths['/api/v0/b']!.post!.responses, 'write is limited: 429');
  });

  it('renames response fields and their required names for --response-names reference', () => {
    const d = schemaWithNames(
      openApiDocument([route({ method: 'GET', path: '/n', summary: 'n', response: out.object({ NativeBalanceNanos: out.uint64() }), handle: noop })], { title: 't', version: '1', network: 'testnet' }),
      'reference',
    );
    const s = (d.paths['/api/v0/n']!.get!.responses['200'] as J)['content']['application/json']['schema'] as J;
    assert.deepEqual(Object.keys(s['properties']), ['DESOBalanceNanos']);
    assert.deepEqual(s['required'], ['DESOBalanceNanos']);
  });
  const doc = (routes: Route[]): OpenApiDocument => openApiDocument(routes, { title: 't', version: '1', network: 'testnet' });

  it('declares what a route declares: auth, extra responses', () => {
    const d = doc([
      route({ method: 'POST', path: '/mine', summary: 'mine', auth: 'user-jwt', body: v.object({ JWT: v.string() }), handle: noop }),
      route({ method: 'GET', path: '/', summary: 'banner', responses: { 200: { description: 'banner', contentType: 'text/plain' } }, handle: noop }),
    ]);
    const mine = d.paths['/api/v0/mine']!.post!;
    assert.ok('401' in mine.responses && '403' in mine.responses, 'a user-jwt route documents 401 and 403');
    assert.match(mine.description ?? '', /JWT/, 'and says what it requires');
    assert.deepEqual(d.paths['/api/v0/']!.get!.responses['200'], { description: 'banner', content: { 'text/plain': {} } }, 'a declared 200 replaces the generic one');
  });

  it('refuses two routes with one method and path', () => {
    const r = route({ method: 'GET', path: '/x/:A', summary: 'x', handle: noop });
    assert.throws(() => doc([r, { ...r, path: '/x/:A' }]), /two routes for GET \/api\/v0\/x\/\{A\}/);
  });

  it('keeps operationIds unique when two paths spell the same words', () => {
    const d = doc([route({ method: 'GET', path: '/a-b', summary: 'x', handle: noop }), route({ method: 'GET', path: '/a/b', summary: 'y', handle: noop })]);
    assert.notEqual(d.paths['/api/v0/a-b']!.get!.operationId, d.paths['/api/v0/a/b']!.get!.operationId, 'distinct ids');
  });
});

describe('example bodies from schemas (each v.* kind)', () => {
  const hex = /^[0-9a-f]{64}$/;
  const kinds: Array<[string, Schema<unknown>]> = [
    ['string', v.string({ maxLength: 10 })],
    ['patterned string', v.string({ pattern: hex, patternName: 'hex' })],
    ['boolean', v.boolean()],
    ['int', v.int(5, 9)],
    ['uint64', v.uint64()],
    ['publicKey', v.publicKey()],
    ['array', v.array(v.publicKey(), 3)],
    ['record', v.record(v.uint64())],
    [
      'object with required, optional and defaulted fields',
      v.object({
        Owner: v.publicKey(),
        Count: v.optional(v.int(1, 50), 20),
        Start: v.optional(v.uint64(), 7n),
        Name: v.optional(v.string({ maxLength: 5 }), ''),
        Nested: v.object({ Keys: v.array(v.string({ pattern: /^[a-z]{3}$/ })) }),
      }),
    ],
  ];
  for (const network of ['testnet', 'mainnet'] as const) {
    it(`builds a value each kind’s parse accepts (${network})`, () => {
      for (const [name, schema] of kinds) {
        const ex = exampleFor(schema.json, network);
        assert.ok(ex.ok, `${name}: an example (${ex.ok ? '' : ex.reason})`);
        assert.doesNotThrow(() => schema.parse(ex.value, '', { network }), `${name}: ${JSON.stringify(ex.value)} parses`);
      }
    });
  }

  it('uses defaults for optional fields and fills every field', () => {
    const ex = exampleFor(kinds.at(-1)![1].json, 'testnet');
    assert.ok(ex.ok, 'an example');
    const value = ex.value as J;
    assert.equal(value['Count'], 20, 'the default of Count');
    assert.equal(value['Start'], 7, 'the default of Start (uint64 as a number)');
    assert.deepEqual(value['Nested'], { Keys: ['aaa'] }, 'nested required fields, one array item');
  });

  it('publishes optional fields’ fallbacks as JSON default, and no flags in patterns', () => {
    const o = v.object({ A: v.optional(v.uint64(), 0n), B: v.optional(v.boolean()), C: v.optional(v.publicKey()) }).json as J;
    assert.equal(o['properties']['A']['default'], 0, 'bigint fallback as a number');
    assert.ok(!('default' in o['properties']['B']), 'no default without a fallback');
    assert.equal(o['properties']['C']['format'], 'base58check-public-key', 'public keys carry their format');
    assert.throws(() => v.string({ pattern: /^a$/i }), /flags/, 'a flagged pattern has no JSON Schema form');
  });

  it('builds strings for the regex subset and refuses what it cannot build', () => {
    const patterns = ['^[0-9a-fA-F]{64}$', '^(0[xX](0|[1-9a-fA-F][0-9a-fA-F]{0,63})|[0-9]{1,78})$', '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', '^\\d+(\\.\\d+)?$', 'a|b', '^x*y+?$'];
    for (const p of patterns) assert.match(stringMatching(p), new RegExp(p, 'u'), `a string for ${p}`);
    const unsupported = exampleFor({ type: 'string', pattern: '^(?=a)b$' }, 'testnet');
    assert.equal(unsupported.ok, false, 'a lookahead is beyond the subset; the example is left out');
    const untyped = exampleFor({ description: 'anything' } satisfies JsonSchema, 'testnet');
    assert.equal(untyped.ok, false, 'an untyped custom schema gets no invented example');
  });
});
