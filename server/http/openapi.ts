/**
 * The OpenAPI 3.1 document of the API, generated from the routes the router mounts, the
 * request schemas it validates with and the response schemas it checks answers against under
 * `--check-responses` (server/schema.ts `v` and `out`, JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1). Nothing here is written by hand per route: paths, path parameters, summaries,
 * tags, request bodies and 200 answers come from the route tables (named response schemas
 * become `components.schemas` and `$ref`s); the error answers from what the router, the rate
 * limiter and the credential checks can answer; other media types (text, images, redirects)
 * from `Route.responses`. The two WebSocket APIs, which OpenAPI 3.1 cannot describe, are under
 * the top-level extension `x-websockets`, their messages in `components.schemas`.
 *
 * Every POST route with a schema gets an example body built from that schema (a value for every
 * field: a real public key of the node's network for public-key fields, the minimum for
 * numbers, a string matching the pattern, …). test/unit/openapi.test.ts checks that each
 * example passes the route's own `parse`, which keeps the published schemas honest.
 * @module
 */
import { encodePublicKey, type Network } from '../keys/index.js';
import type { Method, ResponseDoc, Route, RouteAuth } from './route.js';
import { PUBLIC_KEY_FORMAT, responseComponents, type JsonSchema } from '../schema.js';
import { rateClassOf } from './rateLimit.js';
import type { RateClass, RateLimits } from './rateClasses.js';

/** The prefix every documented path carries (the router serves each path bare as well). */
const PREFIX = '/api/v0';

export interface OpenApiInfo {
  title: string;
  version: string;
  /** The node's network: example public keys are of this network. */
  network: Network;
  description?: string;
  /** The limits in force (`--rate-limits`): 429 is documented on routes whose class is limited. Absent: every class is. */
  rateLimits?: RateLimits;
  /** Descriptions of the tags (API areas), in the order the document lists them. */
  tags?: ReadonlyArray<{ name: string; description: string }>;
  /** The WebSocket APIs, published under `x-websockets`. */
  websockets?: readonly WebSocketDoc[];
}

/** One message kind of a WebSocket API. */
export interface WebSocketMessageDoc {
  summary: string;
  schema: JsonSchema;
}

/**
 * A WebSocket API: OpenAPI 3.1 has no operation for one, so the document lists them under the
 * top-level extension `x-websockets` keyed by path, each with the JSON text messages a client
 * sends and those the node sends, their schemas in `components.schemas`.
 */
export interface WebSocketDoc {
  /** Path without /api/v0 (served with and without it, as the routes). */
  path: string;
  summary: string;
  description: string;
  tags?: readonly string[];
  /** The rate-limit class each message takes from (rateClasses.ts). */
  rateLimitClass: RateClass;
  /** Largest message the node accepts, bytes. */
  maxMessageBytes: number;
  clientMessages: Readonly<Record<string, WebSocketMessageDoc>>;
  serverMessages: Readonly<Record<string, WebSocketMessageDoc>>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  tags?: string[];
  description?: string;
  parameters?: Array<Record<string, unknown>>;
  requestBody?: { required: boolean; description?: string; content: Record<string, { schema: JsonSchema; example?: unknown }> };
  responses: Record<string, unknown>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Partial<Record<Lowercase<Method>, OpenApiOperation>>>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, unknown> };
  'x-websockets'?: Record<string, unknown>;
}

const ERROR_REF = '#/components/schemas/Error';
const errorContent = { 'application/json': { schema: { $ref: ERROR_REF } } };
/** Every 429 carries it (rateLimit.ts). */
const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before retrying (at least 1)', required: true, schema: { type: 'integer', minimum: 1 } },
};
/** 503s of an unavailable store, busy workers or mempool, a node not ready carry it; admin/node-control's shutdown refusal does not. */
const retryAfterUnavailable = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
};

/** Error answers shared by the operations, referenced as `#/components/responses/<name>`. */
const ERROR_RESPONSES = {
  BadRequest: {
    description:
      'Invalid request: Content-Type is not application/json, the body is empty or malformed JSON, or a field fails validation (the message names the field), or the handler rejects the values',
    content: errorContent,
  },
  Unauthorized: { description: 'No JWT, or one that is malformed, expired or verifies under no key', content: errorContent },
  Forbidden: {
    description: 'A valid JWT for another public key, or an authenticated caller who lacks the required admin level',
    content: errorContent,
  },
  PayloadTooLarge: { description: "The body exceeds the node's --max-body-bytes; the connection is closed", content: errorContent },
  TooManyRequests: {
    description:
      "Rate limited: the client address (or, once authenticated, the public key) used up its token bucket of this route's class (--rate-limits; `x-rate-limit-class` names the class). Retry after Retry-After seconds",
    headers: retryAfter,
    content: errorContent,
  },
  InternalError: { description: "An unexpected failure; the details are only in the node's log", content: errorContent },
  ServiceUnavailable: {
    description:
      'The state store or the crypto workers are unavailable, the mempool is busy, or the node is not ready or shutting down; retry after Retry-After seconds',
    headers: retryAfterUnavailable,
    content: errorContent,
  },
  OtherError: {
    description: 'Any other error the route answers, e.g. 404 for something that does not exist; always {"error": message}',
    content: errorContent,
  },
} as const;
type ErrorResponseName = keyof typeof ERROR_RESPONSES;
const ref = (name: ErrorResponseName): { $ref: string } => ({ $ref: `#/components/responses/${name}` });

const DESCRIPTION = [
  'Every path is served with and without the /api/v0 prefix, and a trailing slash is ignored.',
  'POST bodies are JSON (Content-Type: application/json), but for upload-image (multipart/form-data). Field names match as in Go: the exact name first, then case-insensitively; unknown fields are ignored and null counts as absent.',
  'Unsigned 64-bit integers are accepted as JSON numbers or decimal strings and answered as JSON numbers.',
  'Every error is answered as {"error": message}; a method a path does not serve gets 405 with an Allow header.',
  'Response objects list every field the node sends (the node checks its answers against these schemas in its tests); they are left open to fields added later.',
  'The identity and miner WebSocket APIs are described under the extension `x-websockets` (OpenAPI 3.1 has no WebSocket operations); their message schemas are in components.schemas.',
].join('\n\n');

const AUTH_DESCRIPTION: Record<RouteAuth, string> = {
  admin: 'Requires `AdminPublicKey` and `JWT` (a JWT of that key) in the body; the key must be an admin or super admin of this node. Credentials are checked before the other fields.',
  superAdmin: 'Requires `AdminPublicKey` and `JWT` (a JWT of that key) in the body; the key must be a super admin of this node. Credentials are checked before the other fields.',
  'user-jwt': 'Requires a `JWT` of the user the request is for in the body.',
};

/** The route's credential requirement: declared, or recognized by the admin routes' summary suffix. */
export function routeAuth(r: Route): RouteAuth | undefined {
  if (r.auth !== undefined) return r.auth;
  if (r.summary.endsWith('(super admin only)')) return 'superAdmin';
  if (r.summary.endsWith('(admin only)')) return 'admin';
  return undefined;
}

/** `/get-user-metadata/:PublicKeyBase58Check` → `/api/v0/get-user-metadata/{PublicKeyBase58Check}`. */
export function openApiPath(path: string): string {
  // A route mounted at its own /api/… path (API v1) is published as it is.
  return (path.startsWith('/api/') ? '' : PREFIX) + path.replace(/\/:([^/]+)/g, '/{$1}');
}

function operationIdOf(method: Method, path: string): string {
  const words = path
    .split('/')
    .filter((s) => s !== '')
    .flatMap((s) => (s.startsWith(':') ? ['by', s.slice(1)] : s.split(/[^A-Za-z0-9]+/)))
    .filter((w) => w !== '');
  const tail = words.length === 0 ? 'Root' : words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return method.toLowerCase() + tail;
}

function responseObject(doc: ResponseDoc): Record<string, unknown> {
  const contentType = doc.contentType ?? 'application/json';
  const out: Record<string, unknown> = { description: doc.description };
  if (doc.headers !== undefined) {
    out['headers'] = Object.fromEntries(
      Object.entries(doc.headers).map(([name, h]) => [name, { description: h.description, ...(h.required ? { required: true } : {}), schema: { type: 'string' } }]),
    );
  }
  // A redirect or an empty answer has no body to describe.
  if (contentType !== '') out['content'] = { [contentType]: doc.schema === undefined ? {} : { schema: doc.schema } };
  return out;
}

/** The 200 of a route that declares no response: a documented free-form object. */
const UNDESCRIBED = {
  description: 'Success: a JSON object this document does not describe yet',
  content: { 'application/json': { schema: { type: 'object', additionalProperties: true, description: 'Not described yet: any JSON object' } } },
};

function successResponse(r: Route): Record<string, unknown> {
  if (r.response === undefined) return UNDESCRIBED;
  if (r.response.empty) return { description: 'Success: an empty body' };
  const content = { 'application/json': { schema: r.response.json } };
  // OpenAPI has no "this JSON or nothing": the extension says so (the schema's description says when).
  if (r.response.orEmpty) return { description: 'Success: this JSON body, or an empty body (see the schema’s description)', 'x-or-empty-body': true, content };
  return { description: 'Success', content };
}

function responsesFor(r: Route, auth: RouteAuth | undefined, limited: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { '200': successResponse(r) };
  if (r.method === 'POST' || r.path.includes('/:')) out['400'] = ref('BadRequest');
  if (auth !== undefined) {
    out['401'] = ref('Unauthorized');
    out['403'] = ref('Forbidden');
  }
  for (const [status, description] of Object.entries(r.errors ?? {})) out[status] = { description, content: errorContent };
  if (r.method === 'POST') out['413'] = ref('PayloadTooLarge');
  if (limited) out['429'] = ref('TooManyRequests');
  out['500'] = ref('InternalError');
  out['503'] = ref('ServiceUnavailable');
  out['default'] = ref('OtherError');
  for (const [status, doc] of Object.entries(r.responses ?? {})) out[status] = responseObject(doc);
  return out;
}

/** Names of the response components `x` refers to, and those they refer to, in first-use order. */
function componentsUsed(roots: readonly unknown[]): Map<string, JsonSchema> {
  const all = responseComponents();
  const used = new Map<string, JsonSchema>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (typeof x === 'object' && x !== null) {
      for (const [k, y] of Object.entries(x)) {
        if (k === '$ref' && typeof y === 'string' && y.startsWith('#/components/schemas/')) {
          const name = y.slice('#/components/schemas/'.length);
          const schema = all.get(name);
          if (schema !== undefined && !used.has(name)) {
            used.set(name, schema);
            walk(schema);
          }
        } else walk(y);
      }
    }
  };
  roots.forEach(walk);
  return used;
}

function websocketsObject(docs: readonly WebSocketDoc[]): Record<string, unknown> {
  const messages = (m: Readonly<Record<string, WebSocketMessageDoc>>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(m).map(([name, d]) => [name, { summary: d.summary, schema: d.schema }]));
  return Object.fromEntries(
    docs.map((d) => [
      openApiPath(d.path),
      {
        summary: d.summary,
        description: d.description,
        ...(d.tags ? { tags: [...d.tags] } : {}),
        'x-rate-limit-class': d.rateLimitClass,
        maxMessageBytes: d.maxMessageBytes,
        clientMessages: messages(d.clientMessages),
        serverMessages: messages(d.serverMessages),
      },
    ]),
  );
}

/**
 * The OpenAPI 3.1 document of `routes` (the router's `routes`, in mount order). Pure: the same
 * routes give the same document.
 * @throws {Error} when two routes map to the same method and path
 */
export function openApiDocument(routes: readonly Route[], info: OpenApiInfo): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  for (const r of routes) {
    const path = openApiPath(r.path);
    const item = (paths[path] ??= {});
    const method = r.method.toLowerCase() as Lowercase<Method>;
    if (item[method] !== undefined) throw new Error(`two routes for ${r.method} ${path}`);
    const auth = routeAuth(r);
    let operationId = operationIdOf(r.method, r.path);
    for (let n = 2; operationIds.has(operationId); n++) operationId = `${operationIdOf(r.method, r.path)}${n}`;
    operationIds.add(operationId);
    const rateClass = rateClassOf(r);
    const limited = rateClass !== null && (info.rateLimits === undefined || info.rateLimits[rateClass] !== null);
    const op: OpenApiOperation = { operationId, summary: r.summary, responses: responsesFor(r, auth, limited) };
    if (r.tags !== undefined) op.tags = [...r.tags];
    if (auth !== undefined) op.description = AUTH_DESCRIPTION[auth];
    if (limited) (op as OpenApiOperation & Record<string, unknown>)['x-rate-limit-class'] = rateClass;
    const params = [...r.path.matchAll(/\/:([^/]+)/g)].map((m) => m[1]!);
    if (params.length > 0) {
      op.parameters = params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    }
    if (r.method === 'POST') {
      if (r.body === undefined) {
        op.requestBody = {
          required: true,
          description: 'Any JSON value; the route reads it itself',
          content: { 'application/json': { schema: {} } },
        };
      } else if (r.bodyType === 'multipart') {
        // A form: its fields as properties, a file as a binary string (no example: a file is not JSON).
        op.requestBody = { required: true, content: { 'multipart/form-data': { schema: r.body.json } } };
      } else {
        const media: { schema: JsonSchema; example?: unknown } = { schema: r.body.json };
        const example = exampleFor(r.body.json, info.network);
        if (example.ok) media.example = example.value;
        op.requestBody = { required: true, content: { 'application/json': media } };
      }
    }
    item[method] = op;
  }
  const websockets = info.websockets ?? [];
  const used = componentsUsed([
    ...routes.map((r) => r.body?.json),
    ...routes.map((r) => r.response?.json),
    ...routes.map((r) => r.responses),
    ...websockets.map((w) => [w.clientMessages, w.serverMessages]),
  ]);
  const tagNames = [...new Set([...routes.flatMap((r) => r.tags ?? []), ...websockets.flatMap((w) => w.tags ?? [])])];
  const tagDescriptions = new Map((info.tags ?? []).map((t) => [t.name, t.description]));
  const order = (info.tags ?? []).map((t) => t.name);
  tagNames.sort((a, b) => (order.indexOf(a) === -1 ? Infinity : order.indexOf(a)) - (order.indexOf(b) === -1 ? Infinity : order.indexOf(b)));
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description ?? DESCRIPTION },
    ...(tagNames.length > 0 ? { tags: tagNames.map((name) => (tagDescriptions.has(name) ? { name, description: tagDescriptions.get(name)! } : { name })) } : {}),
    paths,
    components: {
      schemas: {
        Error: {
          type: 'object',
          properties: { error: { type: 'string', description: 'What went wrong, for people' } },
          required: ['error'],
        },
        ...Object.fromEntries(used),
      },
      responses: ERROR_RESPONSES,
    },
  };
  if (websockets.length > 0) doc['x-websockets'] = websocketsObject(websockets);
  return doc;
}

// ---------------------------------------------------------------------------------------------
// Examples from schemas

class NoExample extends Error {}

export type ExampleResult = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * A value `schema` accepts: its first `examples` entry or its `default` when it has one, else
 * one built from its keywords, every object property filled. Fails (with the reason) on a
 * schema it cannot build a value for, such as a pattern beyond the supported regex subset.
 */
export function exampleFor(schema: JsonSchema, network: Network): ExampleResult {
  try {
    return { ok: true, value: example(schema, network, '') };
  } catch (err) {
    if (err instanceof NoExample) return { ok: false, reason: err.message };
    throw err;
  }
}

/** A real compressed public key: the secp256k1 generator point G (private key 1). */
const EXAMPLE_KEY = Uint8Array.from(Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex'));

/** Free-form string fields that carry a public key by their reference name. */
const KEY_FIELD = /PublicKeys?(Base58Check)?(OrUsername)?$/;

function example(s: JsonSchema, network: Network, name: string): unknown {
  if (typeof s['$ref'] === 'string') {
    const target = responseComponents().get(s['$ref'].replace('#/components/schemas/', ''));
    if (target === undefined) throw new NoExample(`${s['$ref']} is not a component`);
    return example(target, network, name);
  }
  if (Array.isArray(s['examples']) && s['examples'].length > 0) return s['examples'][0];
  // A number or boolean default is the natural example. An empty-string, array or object
  // default (absent means empty) says nothing; a built value shows the field's form.
  const fallback = s['default'];
  if (typeof fallback === 'number' || typeof fallback === 'boolean' || (typeof fallback === 'string' && fallback !== '')) return fallback;
  if ('const' in s) return s['const'];
  if (Array.isArray(s['enum']) && s['enum'].length > 0) return s['enum'][0];
  const branches = s['oneOf'] ?? s['anyOf'];
  if (Array.isArray(branches) && branches.length > 0) return example(branches[0] as JsonSchema, network, name);
  if (s['format'] === PUBLIC_KEY_FORMAT) return encodePublicKey(EXAMPLE_KEY, network);
  const type = Array.isArray(s['type']) ? s['type'][0] : s['type'];
  switch (type) {
    case 'string':
      return exampleString(s, network, name);
    case 'integer':
    case 'number':
      return exampleNumber(s, type === 'integer');
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const min = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
      const max = typeof s['maxItems'] === 'number' ? s['maxItems'] : Infinity;
      const items = (s['items'] ?? {}) as JsonSchema;
      // One item (when allowed) so that the item schema is exercised too.
      return Array.from({ length: Math.min(Math.max(min, 1), max) }, () => example(items, network, name));
    }
    case 'object': {
      const properties = (s['properties'] ?? {}) as Record<string, JsonSchema>;
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(properties)) out[k] = example(p, network, k);
      for (const k of (s['required'] ?? []) as string[]) {
        if (!(k in out)) throw new NoExample(`required field ${k} has no schema`);
      }
      return out;
    }
    default:
      throw new NoExample(`no type to build an example from in ${JSON.stringify(s).slice(0, 200)}`);
  }
}

function exampleString(s: JsonSchema, network: Network, name: string): string {
  const minLength = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
  const maxLength = typeof s['maxLength'] === 'number' ? s['maxLength'] : Infinity;
  let out: string;
  if (typeof s['pattern'] === 'string') out = stringMatching(s['pattern']);
  else if (KEY_FIELD.test(name) && maxLength >= 60) out = encodePublicKey(EXAMPLE_KEY, network);
  else out = 'x'.repeat(minLength);
  if (out.length < minLength || out.length > maxLength) {
    throw new NoExample(`no string of ${minLength} to ${maxLength} characters for ${name || 'a field'}`);
  }
  return out;
}

function exampleNumber(s: JsonSchema, integer: boolean): number {
  const num = (k: string): number | undefined => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  const step = integer ? 1 : 0.5;
  // 0 when allowed, else the bound nearest to it.
  const min = num('minimum') ?? (num('exclusiveMinimum') !== undefined ? num('exclusiveMinimum')! + step : -Infinity);
  let x = Math.max(0, integer ? Math.ceil(min) : min);
  const max = num('maximum');
  const exclusiveMax = num('exclusiveMaximum');
  if (max !== undefined && x > max) x = integer ? Math.floor(max) : max;
  if (exclusiveMax !== undefined && x >= exclusiveMax) x = integer ? Math.ceil(exclusiveMax) - 1 : exclusiveMax - step;
  return x;
}

/** Candidates for a single-character atom, tried in this order. */
const CHAR_CANDIDATES = '0a1A_-. ' + Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

/**
 * The shortest string the regex subset describes: literals, escapes, `.`, classes, groups,
 * alternation (first branch) and quantifiers (their minimum). Checked against the pattern.
 */
export function stringMatching(pattern: string): string {
  let i = 0;
  const fail = (why: string): never => {
    throw new NoExample(`pattern ${pattern}: ${why}`);
  };
  const oneChar = (source: string): string => {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${source})$`, 'u');
    } catch {
      return fail(`cannot read ${source}`);
    }
    for (const c of CHAR_CANDIDATES) if (re.test(c)) return c;
    return fail(`no character matches ${source}`);
  };
  const alternation = (): string => {
    const first = sequence();
    while (pattern[i] === '|') {
      i++;
      sequence();
    }
    return first;
  };
  const sequence = (): string => {
    let out = '';
    while (i < pattern.length && pattern[i] !== '|' && pattern[i] !== ')') {
      const a = atom();
      out += a.repeat(quantifierMin());
    }
    return out;
  };
  const atom = (): string => {
    const c = pattern[i]!;
    if (c === '^' || c === '$') {
      i++;
      return '';
    }
    if (c === '(') {
      i++;
      if (pattern.startsWith('?:', i)) i += 2;
      else if (pattern[i] === '?') fail('lookarounds and named groups are not supported');
      const inner = alternation();
      if (pattern[i] !== ')') fail('unbalanced (');
      i++;
      return inner;
    }
    if (c === '[') {
      const start = i;
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      if (i >= pattern.length) fail('unbalanced [');
      i++;
      return oneChar(pattern.slice(start, i));
    }
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === undefined) fail('trailing backslash');
      if (/[1-9kbBpPuxc]/.test(e!)) fail(`escape \\${e} is not supported`);
      i += 2;
      return oneChar(`\\${e}`);
    }
    if (c === '.') {
      i++;
      return oneChar('.');
    }
    if ('*+?{'.includes(c)) fail(`quantifier ${c} without an atom`);
    i++;
    return c;
  };
  const quantifierMin = (): number => {
    const c = pattern[i];
    let min = 1;
    if (c === '*' || c === '?') {
      min = 0;
      i++;
    } else if (c === '+') {
      i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,\d*)?\}/.exec(pattern.slice(i));
      if (!m) return 1;
      min = Number(m[1]);
      i += m[0].length;
    } else {
      return 1;
    }
    if (pattern[i] === '?') i++;
    return min;
  };
  const out = alternation();
  if (i !== pattern.length) fail(`unexpected ${pattern[i]} at ${i}`);
  if (!new RegExp(pattern, 'u').test(out)) fail(`built ${JSON.stringify(out)}, which does not match`);
  return out;
}
