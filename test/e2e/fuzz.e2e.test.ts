/**
 * Bad input, fuzzed (issue 8): property-based tests (fast-check) that throw mutated and random
 * requests at every route the running node mounts, and at the identity WebSocket, and
 * malformed transactions and block headers at submit-transaction / submit-block.
 *
 * The route list is never written here: it is the node's own OpenAPI document
 * (GET /api/v0/openapi.json, generated from the router's mounted routes), whose example bodies
 * (each one passes its route's schema, test/unit/openapi.test.ts) seed the mutations.
 *
 * Properties of every answer:
 * - the status is below 500 (a 503 fails too: the store and the crypto pool are up);
 * - a JSON content type means a body that parses as JSON;
 * - a 4xx body is exactly `{"error": <non-empty string>}` (the identity route adds its
 *   envelope, spec §4.1), with no stack trace and none of the JWTs or seeds the test sends;
 * - a refused request changes nothing: chain tip, mempool size, the store's value keys, and no
 *   store write at all while it runs (a spy on the store's write methods; the process
 *   heartbeat, the producer lease's renewals and, for requests that pass the admin check, the audit log are exempt).
 * At the end the node still answers its health check.
 *
 * Seed: FUZZ_SEED (default below); runs: FUZZ_SCALE multiplies every run count. fast-check
 * prints the seed and the counterexample's path on failure, to replay it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { getSignedJWT, signTx } from 'deso-protocol';
import { encodeBase58Check, encodePublicKey, PUBLIC_KEY_PREFIXES } from '../../server/keys/index.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decodeTxn, encodeTxn, hashToSign, withSignature } from '../../server/chain/txn/envelope.js';
import { decodeMetadata, encodeMetadata, type UpdateProfileMetadata } from '../../server/chain/txn/metadata.js';
import { HEADER_OFFSETS } from '../../server/chain/block/header.js';
import { MAX_TXN_BYTES } from '../../server/chain/chain.js';
import { MAX_HEADERS_PER_REQUEST } from '../../server/routes/miner.js';
import { Reader, encodeUvarint } from '../../server/chain/txn/varint.js';
import type { Store } from '../../server/store/types.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { WsClient } from '../helpers/ws.js';
import { MAX_DECRYPT_GROUP_MEMBERS, MAX_DECRYPT_MESSAGES } from '../../server/identity/messages.js';
import { assertJsonDepth } from '../../server/jsonDepth.js';

// The SDK signs JWTs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240808);
const SCALE = Number(process.env['FUZZ_SCALE'] ?? 1);
const runs = (n: number): number => Math.max(1, Math.round(n * SCALE));
const fcOptions = (numRuns: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns: runs(numRuns), includeErrorInReport: true });

const superAdmin = keyPair();
const admin = keyPair();
const user = keyPair();

// --- the node and what the test sends it ------------------------------------------------------

interface RouteInfo {
  method: 'GET' | 'POST';
  /** With the /api/v0 prefix and `{Param}` placeholders. */
  path: string;
  params: string[];
  example: unknown;
  auth: 'admin' | 'superAdmin' | 'user-jwt' | undefined;
  /** Top-level body fields that are maps from client strings (ExtraData, read state, …). */
  maps: string[];
  /** The body is a multipart form (upload-image), not JSON: the JSON properties do not apply. */
  multipart: boolean;
}

/** Values the node must never echo in an error. */
const secrets: string[] = [];

let n: ChainNode;
let routes: RouteInfo[];
let spy: WriteSpy;
let adminJwt: string;
let userJwt: string;
/** The user's username and post: real values, so that mutated requests reach past the lookups. */
const USERNAME = 'fuzzer';
let postHashHex: string;

/** Reads the route table from the node's OpenAPI document (the router's mounted routes). */
async function mountedRoutes(url: string): Promise<RouteInfo[]> {
  const doc = (await (await fetch(`${url}/api/v0/openapi.json`)).json()) as { paths: Record<string, Record<string, J>> };
  const out: RouteInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const description = (op['description'] as string | undefined) ?? '';
      const media = (op['requestBody'] as J | undefined)?.['content']?.['application/json'] as J | undefined;
      const properties = (media?.['schema']?.['properties'] ?? {}) as Record<string, J>;
      const isMap = (x: J): boolean => x['type'] === 'object' && typeof x['additionalProperties'] === 'object';
      const auth = /must be a super admin/.test(description) ? 'superAdmin' : /must be an admin/.test(description) ? 'admin' : /JWT` of the user/.test(description) ? 'user-jwt' : undefined;
      out.push({
        method: method.toUpperCase() as 'GET' | 'POST',
        path,
        params: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        example: media?.['example'] ?? {},
        auth,
        maps: Object.entries(properties).filter(([, x]) => isMap(x)).map(([k]) => k),
        multipart: (op['requestBody'] as J | undefined)?.['content']?.['multipart/form-data'] !== undefined,
      });
    }
  }
  return out;
}

// --- state: what a refused request must leave alone -----------------------------------------

/**
 * Keys written in the background by design: the process registry's heartbeat, the block
 * producer's lease renewals (and, when a loaded machine let the lease lapse, its re-acquisition:
 * a new epoch and the miner status under it), the templates it announces after earlier
 * accepted changes (content-addressed records, not chain state), and the announcement of a tip
 * a block committed just before the request (the block's commit is what `waitMined` sees; its
 * announcement follows it), and the hot feed's rankings its periodic refresh rewrites after a
 * block (social/hotFeed.ts): a tip that moves during a request still fails the tip check.
 */
const BACKGROUND = /^(\(publish\) )?(node:(processes$|producer:(lease|epoch)$|miner:status$)|chain:template(:|$))|^\(publish\) chain:tip$|^social:hot:((window|scanned|rank|tags|fingerprint)$|tag(new)?:)/;
/** Written for every admin request that passes the credential check (server/admin/audit.ts). */
const AUDIT = /^node:admin:audit/;

/** Records every store write made while a request runs: keys, and `(publish) <channel>`. */
interface WriteSpy {
  take(): string[];
}

function spyOnWrites(store: Store): WriteSpy {
  let writes: string[] = [];
  const s = store as unknown as Record<string, (...args: unknown[]) => unknown>;
  const wrap = (name: string, keysOf: (...args: unknown[]) => string[]): void => {
    const original = s[name]!.bind(store);
    s[name] = (...args: unknown[]) => {
      writes.push(...keysOf(...args));
      return original(...args);
    };
  };
  for (const name of ['set', 'delete', 'incr', 'indexAdd', 'indexRemove', 'mapSet', 'mapDelete']) wrap(name, (key) => [String(key)]);
  wrap('publish', (channel) => [`(publish) ${String(channel)}`]);
  wrap('commit', (ops) => (ops as Array<{ key: string }>).map((o) => o.key));
  return {
    take() {
      const out = writes.filter((w) => !BACKGROUND.test(w));
      writes = [];
      return out;
    },
  };
}

interface Snapshot {
  tip: string;
  mempool: number;
  keys: string[];
}

async function snapshot(node: ChainNode): Promise<Snapshot> {
  const keys = (await node.deps.store.keys('')).filter((k) => !BACKGROUND.test(k)).sort();
  return { tip: (await node.deps.chain.tip()).hashHex, mempool: await node.deps.chain.mempoolSize(), keys };
}

// --- requests and the properties of every answer -------------------------------------------

interface Req {
  method: string;
  /** Path and query. */
  path: string;
  body?: string | Uint8Array;
  contentType?: string;
}

interface Res {
  status: number;
  text: string;
  contentType: string;
}

async function send(node: ChainNode, req: Req): Promise<Res> {
  const headers: Record<string, string> = {};
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  const res = await fetch(node.url + req.path, { method: req.method, headers, body: req.body });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
}

function describeReq(req: Req): string {
  const body = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : `<${req.body.length} bytes>`;
  return `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(body.slice(0, 300))}${body.length > 300 ? '…' : ''}`;
}

/** The properties of any one answer (module comment). */
function checkAnswer(req: Req, res: Res): void {
  const what = `${describeReq(req)} → ${res.status} ${res.text.slice(0, 500)}`;
  assert.ok(res.status < 500, `no 5xx: ${what}`);
  let parsed: unknown;
  if (/application\/json/.test(res.contentType) && res.text !== '') {
    try {
      parsed = JSON.parse(res.text);
    } catch {
      assert.fail(`a JSON content type carries JSON: ${what}`);
    }
  }
  if (res.status < 400) return;
  assert.match(res.contentType, /application\/json/, `an error is JSON: ${what}`);
  assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `an error body is an object: ${what}`);
  const body = parsed as J;
  const isIdentity = /^\/(api\/v0\/)?identity\/?$/.test(req.path);
  const allowed = isIdentity ? ['error', 'id', 'payload', 'service'] : ['error'];
  assert.deepEqual(Object.keys(body).filter((k) => !allowed.includes(k)), [], `error body is exactly {"error"}: ${what}`);
  checkErrorText(body['error'], what);
}

function checkErrorText(error: unknown, what: string): void {
  assert.equal(typeof error, 'string', `"error" is a string: ${what}`);
  assert.ok((error as string).trim() !== '', `"error" is not empty: ${what}`);
  assert.ok(!(error as string).includes('    at '), `no stack trace in the error: ${what}`);
  for (const s of secrets) assert.ok(!(error as string).includes(s), `no JWT or seed in the error: ${what}`);
}

/**
 * Sends `req`, checks the answer, and when it is refused, that nothing changed. `exempt`
 * lists writes a refused request may make (the audit log of authenticated admin requests).
 */
async function fuzzRequest(node: ChainNode, req: Req, opts: { exempt?: RegExp; spy?: WriteSpy } = {}): Promise<Res> {
  const writes = opts.spy ?? spy;
  const before = await snapshot(node);
  writes.take();
  const res = await send(node, req);
  checkAnswer(req, res);
  if (res.status >= 400) {
    const made = writes.take().filter((w) => !(opts.exempt?.test(w) ?? false));
    assert.deepEqual(made, [], `a refused request writes nothing: ${describeReq(req)} → ${res.status} ${res.text.slice(0, 300)}`);
    const after = await snapshot(node);
    assert.equal(after.tip, before.tip, `a refused request leaves the tip: ${describeReq(req)}`);
    assert.equal(after.mempool, before.mempool, `a refused request leaves the mempool: ${describeReq(req)}`);
    const exempt = (k: string): boolean => opts.exempt?.test(k) ?? false;
    assert.deepEqual(after.keys.filter((k) => !exempt(k)), before.keys.filter((k) => !exempt(k)), `a refused request leaves the store's keys: ${describeReq(req)}`);
  }
  return res;
}

// --- bad values -----------------------------------------------------------------------------

/** A number (or other token) written into the JSON text as is: `1e400`, `-0`, 30 digits. */
const RAW = '\u0001raw:';
const rawToken = (text: string): string => `${RAW}${text}`;

/** JSON text of `v` with its raw tokens spliced in; '' for undefined. */
function serialize(v: unknown): string {
  const text = JSON.stringify(v);
  return text === undefined ? '' : text.replace(/"\\u0001raw:([^"\\]*)"/g, '$1');
}

function nested(depth: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

/** Public keys that are wrong in one way each, derived from a valid one. */
function badKeys(valid: KeyPair): string[] {
  const prefix = PUBLIC_KEY_PREFIXES.testnet;
  const last = valid.pk.at(-1) === 'a' ? 'b' : 'a';
  return [
    valid.pk.slice(0, -1) + last, // checksum
    valid.pk.slice(0, -1),
    `${valid.pk}1`,
    encodePublicKey(valid.pk33, 'mainnet'), // other network
    encodeBase58Check(prefix, valid.pk33.subarray(1)), // 32 bytes
    encodeBase58Check(prefix, new Uint8Array([...valid.pk33, 0])), // 34 bytes
    encodeBase58Check(prefix, new Uint8Array([2, ...new Uint8Array(32).fill(0xff)])), // not on the curve
    encodeBase58Check(prefix, new Uint8Array([5, ...valid.pk33.subarray(1)])), // bad point tag
    `tBC${'0OIl'.repeat(13)}`, // not base58
    valid.pk.toLowerCase(),
    ` ${valid.pk}`,
    valid.pk.replace(/B/, 'В'), // Cyrillic
    'tBC',
    'x'.repeat(200),
  ];
}

const HUGE_NUMBERS: unknown[] = [
  1e308, -1e308, 2 ** 64, 2 ** 63, 2 ** 53 + 2, -(2 ** 53) - 2, -1, 0.5, -0.0001, Number.MAX_VALUE, Number.MIN_VALUE, 4294967296,
  rawToken('1e400'), rawToken('-1e400'), rawToken('123456789012345678901234567890'), rawToken('18446744073709551616'),
  rawToken('9007199254740993'), rawToken('-0'), rawToken('1.0'), rawToken('1E+2'), rawToken('1e-400'),
  '1e308', '18446744073709551616', '18446744073709551615', '99999999999999999999', '-1', 'NaN', 'Infinity', '-Infinity', '0x10', '1.5', ' 1', '١٢٣',
];

const BAD_HEX = ['abc', 'zz', '0x00', 'ff ', ' ff', 'f'.repeat(201), 'GG'.repeat(40), '00'.repeat(50_001), '%ff', 'ÿÿ', '\u0000\u0000'];

const ODD_STRINGS = ['', ' ', '\u0000', '\ud800', '\udfff', 'a\ud83dz', '💥'.repeat(100), '\u202e\u0301', '../../../etc/passwd', '%00', '%zz', '<script>', "'; DROP TABLE x; --", '__proto__', 'null', 'undefined', 'true', '{}', '[]', '\\', '"', '\r\n', 'x'.repeat(10_240), 'é'.repeat(5000)];

const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', '\ud800', 'a'.repeat(1000), '$', '0'];

const hexString = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength });

/** Unpaired surrogates as U+FFFD: how the node (as Go's encoding/json) reads them. */
const wellFormed = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
/** encodeURIComponent, with lone surrogates sent as U+FFFD instead of throwing. */
const pathSegment = (s: string): string => encodeURIComponent(wellFormed(s));

const DEEP = [nested(1000, 'array'), nested(1000, 'object'), nested(20, 'array'), [[[[[]]]]]];

/** Any bad value a field might get. */
function badValue(keys: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
    { weight: 3, arbitrary: fc.constantFrom(...keys) },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_HEX) },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
    { weight: 1, arbitrary: fc.constantFrom(...DEEP) },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { a: null }, [1, 'a', {}]) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: hexString(80) },
    { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((b) => rawToken(b.toString()))) },
    { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 66n }).map((b) => b.toString()) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );
}

// --- mutations of a JSON value --------------------------------------------------------------

type PathStep = string | number;
type Op =
  | { kind: 'set'; at: number; value: unknown }
  | { kind: 'drop'; at: number }
  | { kind: 'addKey'; at: number; key: string; value: unknown }
  | { kind: 'wrap'; at: number }
  | { kind: 'recase'; at: number };

/** Every path into `v` (the root first), at most 6 deep. */
function pathsOf(v: unknown, prefix: PathStep[] = [], out: PathStep[][] = []): PathStep[][] {
  out.push(prefix);
  if (prefix.length >= 6 || v === null || typeof v !== 'object') return out;
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...prefix, i], out));
  else for (const [k, x] of Object.entries(v)) pathsOf(x, [...prefix, k], out);
  return out;
}

function applyOps(seed: unknown, ops: readonly Op[]): unknown {
  let root: unknown = structuredClone(seed);
  for (const op of ops) {
    const paths = pathsOf(root);
    const path = paths[op.at % paths.length]!;
    const get = (p: PathStep[]): unknown => p.reduce<unknown>((x, k) => (x as Record<PathStep, unknown>)[k], root);
    const put = (p: PathStep[], value: unknown): void => {
      if (p.length === 0) root = value;
      else (get(p.slice(0, -1)) as Record<PathStep, unknown>)[p.at(-1)!] = value;
    };
    const target = get(path);
    switch (op.kind) {
      case 'set':
        // Cloned: constantFrom hands out shared values, which later ops must not edit.
        put(path, structuredClone(op.value));
        break;
      case 'wrap':
        put(path, [target]);
        break;
      case 'drop':
        if (path.length === 0) root = {};
        else {
          const parent = get(path.slice(0, -1));
          if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
          else delete (parent as Record<string, unknown>)[path.at(-1) as string];
        }
        break;
      case 'addKey':
        if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
          // defineProperty: a "__proto__" key becomes an own field, as JSON.parse makes it.
          Object.defineProperty(target, op.key, { value: structuredClone(op.value), enumerable: true, writable: true, configurable: true });
        }
        break;
      case 'recase':
        // Go-style field matching: the same field spelled in other case, with another value.
        if (path.length > 0 && typeof path.at(-1) === 'string') {
          const parent = get(path.slice(0, -1)) as Record<string, unknown>;
          const k = path.at(-1) as string;
          parent[k === k.toLowerCase() ? k.toUpperCase() : k.toLowerCase()] = target === null ? 'x' : [target];
        }
        break;
    }
  }
  return root;
}

function opArb(values: fc.Arbitrary<unknown>): fc.Arbitrary<Op> {
  const at = fc.nat();
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), at, value: values }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), at }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('addKey' as const), at, key: fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ maxLength: 20 })), value: values }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrap' as const), at }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('recase' as const), at }) },
  );
}

/** Bodies that are not JSON, or not quite: from random bytes to a truncated example. */
function nonJsonBody(example: string): fc.Arbitrary<string | Uint8Array> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.nat().map((i) => example.slice(0, example.length === 0 ? 0 : i % example.length)),
    fc.constantFrom(
      '',
      ' ',
      '\ufeff{}',
      '{"a":1,}',
      "{'a':1}",
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":1} {"b":2}',
      '{"a":1}garbage',
      '/* c */ {}',
      '{"a":"\\ud800"}',
      '{"a":"\\x00"}',
      '{"a":01}',
      '{"a":1e}',
      '[',
      '{',
      '"',
      '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}}}',
      '['.repeat(100_000) + ']'.repeat(100_000),
      '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
      `{"PublicKeyBase58Check":1,"publickeybase58check":2,"PUBLICKEYBASE58CHECK":3}`,
    ),
  );
}

/**
 * The property of mutated example bodies, without credentials (the examples' JWTs are empty):
 * every POST route, its example as published or naming the user or the miner.
 */
async function mutatedExamples(node: ChainNode, writes: WriteSpy, numRuns: number): Promise<void> {
  const post = routes.filter((r) => r.method === 'POST');
  const values = badValue([...badKeys(user), ...realValues()]);
  const keys = fc.constantFrom<string | null>(null, user.pk, node.miner.pk);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...post), keys, fc.array(opArb(values), { minLength: 1, maxLength: 3 }), async (r, pk, ops) => {
      const seed = pk === null ? r.example : withKey(r.example, pk);
      await fuzzRequest(node, { method: 'POST', path: r.path, body: serialize(applyOps(seed, ops)), contentType: 'application/json' }, { spy: writes });
    }),
    fcOptions(numRuns),
  );
}

// --- setup ----------------------------------------------------------------------------------

before(async () => {
  n = await startChainNode({ args: ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk] });
  spy = spyOnWrites(n.deps.store);
  routes = await mountedRoutes(n.url);
  adminJwt = await getSignedJWT(superAdmin.seedHex, 'ES256', {});
  userJwt = await getSignedJWT(user.seedHex, 'ES256', {});
  secrets.push(adminJwt, userJwt, ...[adminJwt, userJwt].map((j) => j.split('.')[2]!), ...[superAdmin, admin, user, n.miner].map((k) => k.seedHex));
  await n.fund(user.pk, 1_000_000_000);
  const fee = { MinFeeRateNanosPerKB: 1000 };
  const profile = await n.ok('update-profile', { UpdaterPublicKeyBase58Check: user.pk, NewUsername: USERNAME, NewDescription: 'fuzzed', NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500, ...fee });
  await n.submit(profile['TransactionHex'] as string, user, 'sdk');
  const post = await n.ok('submit-post', { UpdaterPublicKeyBase58Check: user.pk, BodyObj: { Body: `hello from @${USERNAME} #fuzz` }, ...fee });
  postHashHex = (await n.submit(post['TransactionHex'] as string, user, 'sdk'))['PostEntryResponse']['PostHashHex'] as string;
});

/** The example's public keys replaced by `pk` (the examples all use one key, the generator point). */
const withKey = (example: unknown, pk: string): unknown =>
  JSON.parse(JSON.stringify(example).replace(/"tBC[1-9A-HJ-NP-Za-km-z]{50,60}"/g, JSON.stringify(pk)));

/** Valid values in unexpected places: a real username, post hash and keys. */
const realValues = (): string[] => [USERNAME, USERNAME.toUpperCase(), postHashHex, user.pk, n.miner.pk, superAdmin.pk, `@${USERNAME}`];

after(async () => {
  await n?.close();
});

describe('the route list', () => {
  it('is the router\'s: every mounted route, each POST route with an example body', () => {
    assert.ok(routes.length >= 80, `the OpenAPI document lists every mounted route (got ${routes.length})`);
    const post = routes.filter((r) => r.method === 'POST');
    assert.ok(post.some((r) => r.path === '/api/v0/submit-transaction'), 'submit-transaction is mounted');
    assert.ok(post.some((r) => r.auth === 'superAdmin') && post.some((r) => r.auth === 'admin') && post.some((r) => r.auth === 'user-jwt'), 'admin, super-admin and user-JWT routes are recognized');
    assert.ok(routes.some((r) => r.params.length > 0), 'GET routes with path parameters are mounted');
  });
});

// --- every route ----------------------------------------------------------------------------

describe('every route, mutated example bodies', () => {
  it('without valid credentials: no 5xx, {"error"} refusals, and a refusal changes nothing', async () => {
    await mutatedExamples(n, spy, 350);
  });

  it('with a super admin\'s or the user\'s valid JWT: no 5xx, {"error"} refusals, a refusal changes nothing but the audit log', async () => {
    const authed = routes.filter((r) => r.auth !== undefined);
    const values = badValue([...badKeys(user), ...realValues()]);
    /** The example with its key fields naming the caller, and the caller's JWT. */
    const seedFor = (r: RouteInfo): unknown => {
      const caller = r.auth === 'user-jwt' ? { pk: user.pk, jwt: userJwt } : { pk: superAdmin.pk, jwt: adminJwt };
      return { ...(withKey(r.example, caller.pk) as J), JWT: caller.jwt };
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...authed), fc.array(opArb(values), { minLength: 1, maxLength: 2 }), async (r, ops) => {
        const body = serialize(applyOps(seedFor(r), ops));
        // node-control's update_miner would steer this node's own miner: not fuzz.
        fc.pre(!/update_miner/i.test(body));
        await fuzzRequest(n, { method: 'POST', path: r.path, body, contentType: 'application/json' }, { exempt: AUDIT });
      }),
      fcOptions(200),
    );
  });
});

describe('every route, random requests', () => {
  it('random JSON, non-JSON bodies, wrong methods and content types: no 5xx, {"error"} refusals, no state change', async () => {
    const methods = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH');
    const contentTypes = fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '');
    const arb = fc.constantFrom(...routes).chain((r) =>
      fc.record({
        r: fc.constant(r),
        method: methods,
        contentType: contentTypes,
        prefix: fc.constantFrom('', '/api/v0'),
        body: fc.oneof(fc.jsonValue({ maxDepth: 4 }).map(serialize), nonJsonBody(serialize(r.example))),
        params: fc.array(fc.string({ unit: 'binary', maxLength: 30 }), { minLength: r.params.length, maxLength: r.params.length }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ r, method, contentType, prefix, body, params }) => {
        let path = r.path.replace(/^\/api\/v0/, prefix);
        r.params.forEach((p, i) => (path = path.replace(`{${p}}`, pathSegment(params[i]!) || 'x')));
        if (path === '') path = '/';
        await fuzzRequest(n, { method, path, ...(method === 'GET' ? {} : { body, contentType }) });
      }),
      fcOptions(250),
    );
  });

  it('GET routes with fuzzed path parameters and query strings: no 5xx, {"error"} refusals', async () => {
    const get = routes.filter((r) => r.method === 'GET' && r.path !== '/api/v0/metrics');
    const param = fc.oneof(
      fc.constantFrom(...badKeys(user), ...realValues(), ...ODD_STRINGS.filter((s) => s !== '' && s.length < 1000)).map(pathSegment),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }).map(pathSegment),
      // Raw, not percent-encoded: broken escapes and reserved characters.
      fc.constantFrom('%', '%e0%a4%a', '%ED%A0%80', '%00', '%2F', '..', ';', '~', '%25', 'a%', "'", 'tBC%FF'),
    );
    const query = fc.array(fc.tuple(fc.constantFrom('fallback', 'PublicKeyBase58Check', 'limit', 'x', ''), fc.string({ unit: 'binary', maxLength: 30 })), { maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...get), fc.array(param, { minLength: 2, maxLength: 2 }), query, async (r, params, q) => {
        let path = r.path;
        r.params.forEach((p, i) => (path = path.replace(`{${p}}`, params[i]!)));
        const search = q.length === 0 ? '' : `?${q.map(([k, v]) => `${pathSegment(k)}=${pathSegment(v)}`).join('&')}`;
        await fuzzRequest(n, { method: 'GET', path: path + search });
      }),
      fcOptions(120),
    );
  });

  it('a body over --max-body-bytes is a 413 {"error"}', async () => {
    const req: Req = { method: 'POST', path: '/api/v0/get-app-state', body: JSON.stringify({ x: 'y'.repeat(2 << 20) }), contentType: 'application/json' };
    let res: Res;
    try {
      res = await send(n, req);
    } catch (err) {
      // The node may close the connection before the client finished writing the body.
      assert.match(String((err as Error).cause ?? err), /ECONNRESET|EPIPE|other side closed|SocketError/, 'only a closed connection may replace the 413');
      return;
    }
    assert.equal(res.status, 413, `oversized body: ${res.text}`);
    checkAnswer(req, res);
  });
});

// --- the identity socket ----------------------------------------------------------------------

describe('identity WebSocket', () => {
  it('answers every random or mutated frame with one envelope, errors as {"error"}, and stays open', async () => {
    const login = async (): Promise<J> => {
      const r = await n.ok('identity', { id: 'login', service: 'identity', method: 'login', payload: { seedHex: user.seedHex, accessLevelRequest: 4 } });
      return r['payload'] as J;
    };
    const session = await login();
    const other = await login();
    const gate = (s: J): J => ({ encryptedSeedHex: s['encryptedSeedHex'], accessLevel: s['accessLevel'], accessLevelHmac: s['accessLevelHmac'] });
    const unsigned = (await n.ok('send-deso', { SenderPublicKeyBase58Check: user.pk, RecipientPublicKeyOrUsername: n.miner.pk, AmountNanos: 1000, MinFeeRateNanosPerKB: 1000 }))['TransactionHex'] as string;
    const encrypted = (await n.ok('identity', { id: 'enc', service: 'identity', method: 'encrypt', payload: { ...gate(session), recipientPublicKey: n.miner.pk, message: 'hello' } }))['payload'] as J;
    const templates: Array<{ method: string; payload: J }> = [
      { method: 'login', payload: { seedHex: user.seedHex, accessLevelRequest: 4 } },
      { method: 'login', payload: { seedHex: user.seedHex, derive: true, expirationBlock: 1000, transactionSpendingLimitHex: '' } },
      { method: 'approve', payload: { encryptedSeedHex: session['encryptedSeedHex'], seedHex: user.seedHex, accessLevelRequest: 4 } },
      // A second session, so that a valid logout does not end the one the other frames use.
      { method: 'logout', payload: { encryptedSeedHex: other['encryptedSeedHex'] } },
      { method: 'sign', payload: { ...gate(session), transactionHex: unsigned } },
      { method: 'encrypt', payload: { ...gate(session), recipientPublicKey: n.miner.pk, message: 'hello' } },
      { method: 'decrypt', payload: { ...gate(session), encryptedMessages: [{ EncryptedHex: encrypted['encryptedMessage'], PublicKey: n.miner.pk, IsSender: true, Legacy: false }] } },
      { method: 'jwt', payload: gate(session) },
      // Oversized batches: over the per-request decrypt caps (messages, own group-member entries).
      // (Short stand-in ciphertexts: the caps are checked before anything is decrypted, and the
      // frame stays well under --max-body-bytes, over which uWS closes the socket.)
      { method: 'decrypt', payload: { ...gate(session), encryptedHexes: new Array<string>(MAX_DECRYPT_MESSAGES + 1).fill('ab') } },
      {
        method: 'decrypt',
        payload: {
          ...gate(session),
          encryptedMessages: [],
          // Distinct objects: a mutation of one shared entry would repeat it 1,001 times.
          accessGroups: Array.from({ length: MAX_DECRYPT_GROUP_MEMBERS + 1 }, () => ({ AccessGroupMemberEntryResponse: { AccessGroupMemberPublicKeyBase58Check: user.pk, EncryptedKey: 'ab' } })),
        },
      },
    ];
    const values = badValue([...badKeys(user), 'ff'.repeat(32), 'a'.repeat(64)]);
    const frame = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...templates), fc.array(opArb(values), { minLength: 1, maxLength: 3 })).map(([t, ops]) => serialize(applyOps({ id: `fuzz-${t.method}`, service: 'identity', method: t.method, payload: t.payload }, ops))) },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(serialize) },
      { weight: 2, arbitrary: nonJsonBody('{"id":"x","service":"identity","method":"jwt","payload":{}}').map((b) => (typeof b === 'string' ? b : Buffer.from(b))) },
    );
    const ws = await WsClient.connect(n.url.replace(/^http/, 'ws') + '/api/v0/identity');
    try {
      await fc.assert(
        fc.asyncProperty(frame, async (f) => {
          const from = ws.messages.length;
          spy.take();
          const before = await snapshot(n);
          ws.send(f);
          await ws.waitUntil(() => ws.messages.length > from, 'an answer');
          const what = `frame ${JSON.stringify(String(f).slice(0, 300))}`;
          const reply = ws.messages[from]!;
          assert.ok(!reply.isBinary, `a text answer: ${what}`);
          const body = reply.json as J;
          assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `an envelope answers: ${what} → ${reply.text.slice(0, 300)}`);
          assert.equal(body['service'], 'identity', `the envelope names the service: ${what}`);
          assert.ok(body['payload'] !== null && typeof body['payload'] === 'object', `the envelope has a payload: ${what} → ${reply.text.slice(0, 300)}`);
          if (typeof f === 'string') {
            const sent = (() => {
              try {
                // A frame nested past the depth bound is refused unread: no id to echo.
                assertJsonDepth(f);
                return JSON.parse(f) as J;
              } catch {
                return undefined;
              }
            })();
            const id = sent?.['id'];
            if (typeof id === 'string' && id.length > 0 && id.length <= 128) assert.equal(body['id'], wellFormed(id), `the id is echoed: ${what}`);
          }
          const error = (body['payload'] as J)['error'];
          if (error !== undefined) {
            checkErrorText(error, `${what} → ${reply.text.slice(0, 300)}`);
            assert.deepEqual(spy.take(), [], `a refused frame writes nothing: ${what}`);
            const after = await snapshot(n);
            assert.deepEqual(after, before, `a refused frame changes nothing: ${what}`);
          }
          assert.ok(ws.isOpen, `the socket stays open: ${what}`);
        }),
        fcOptions(180),
      );
      // Two frames at once on the same socket are answered independently.
      const a = ws.call({ id: 'last-a', service: 'identity', method: 'jwt', payload: gate(session) } as { id: string });
      const b = ws.call({ id: 'last-b', service: 'identity', method: 'nope', payload: {} } as { id: string });
      assert.equal(typeof ((await a).json as J)['payload']['jwt'], 'string', 'a valid frame is still answered');
      assert.match(((await b).json as J)['payload']['error'] as string, /method/, 'an invalid one is refused');
    } finally {
      await ws.close();
    }
  });
});

// --- proto keys and deep arrays (issue 17) ----------------------------------------------------

/** Keys that reach the prototype chain of a plain object (or, stored, never compare equal again). */
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const DEPTH_ERROR = 'request body refused: JSON nests arrays and objects more than 64 deep';
/** A marker string replaced by raw JSON text after serializing (too deep for JSON.stringify). */
const DEEP_MARK = '\u0002deep';

/** `depth` levels of arrays, objects or both around 0, as text. */
function deepText(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  const open = kind === 'array' ? '[' : kind === 'object' ? '{"a":' : '[{"a":';
  const close = kind === 'array' ? ']' : kind === 'object' ? '}' : '}]';
  const reps = kind === 'mixed' ? Math.ceil(depth / 2) : depth;
  return `${open.repeat(reps)}0${close.repeat(reps)}`;
}

/** The example body for `r` with the caller's key and JWT (the user's or the super admin's). */
function credentialed(r: RouteInfo): J {
  const caller = r.auth === 'user-jwt' || r.auth === undefined ? { pk: user.pk, jwt: userJwt } : { pk: superAdmin.pk, jwt: adminJwt };
  const body = withKey(r.example, caller.pk) as J;
  return r.auth === undefined ? body : { ...body, JWT: caller.jwt };
}

describe('proto keys and deep arrays', () => {
  it('proto keys: every map field of every route refuses __proto__, constructor and prototype with 400 {"error"}, changing nothing', async () => {
    const withMaps = routes.filter((r) => r.method === 'POST' && r.maps.length > 0);
    assert.ok(withMaps.some((r) => r.maps.includes('MessageReadStateUpdatesByContact')) && withMaps.some((r) => r.maps.includes('ExtraData')), 'the map fields are found');
    const values = badValue([...badKeys(user), ...realValues()]);
    const arb = fc.constantFrom(...withMaps).chain((r) =>
      fc.record({ r: fc.constant(r), field: fc.constantFrom(...r.maps), key: fc.constantFrom(...PROTO_KEYS), value: fc.oneof(fc.constant<unknown>(1), fc.constant<unknown>('x'), values), others: fc.dictionary(fc.string({ maxLength: 10 }).filter((k) => !(PROTO_KEYS as readonly string[]).includes(k)), fc.constant('x'), { maxKeys: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ r, field, key, value, others }) => {
        const map = { ...others };
        // defineProperty: an own "__proto__" key, as JSON.parse makes it.
        Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
        const body = serialize({ ...credentialed(r), [field]: map });
        const res = await fuzzRequest(n, { method: 'POST', path: r.path, body, contentType: 'application/json' }, { exempt: AUDIT });
        assert.equal(res.status, 400, `${r.path} ${field}.${key}: ${res.text.slice(0, 300)}`);
        // A value nested past the body's depth bound is refused before any field is read.
        let tooDeep = false;
        try {
          assertJsonDepth(body);
        } catch {
          tooDeep = true;
        }
        if (tooDeep) assert.match(JSON.parse(res.text).error as string, /^request body refused: JSON nests arrays and objects more than/, `${r.path}: a too-deep body is refused whole`);
        else assert.match(JSON.parse(res.text).error as string, new RegExp(`^${field}: the key "${key}" is not allowed`), `${r.path}: the error names the field and the key`);
      }),
      fcOptions(80),
    );
    // The user's metadata is not locked: their own update and delete-pii still answer 200.
    await n.ok('update-user-global-metadata', { UserPublicKeyBase58Check: user.pk, JWT: userJwt, Email: 'fuzz@example.com' });
    assert.equal((await n.post('delete-pii', { PublicKeyBase58Check: user.pk, JWT: userJwt })).status, 200);
  });

  it('deep arrays: nesting past 64 anywhere in any POST body is a 400 {"error"} naming the bound; nesting within it never is', async () => {
    const post = routes.filter((r) => r.method === 'POST' && !r.multipart);
    const arb = fc.record({
      r: fc.constantFrom(...post),
      at: fc.nat(),
      // 100,000 levels: up to 600 KB, under --max-body-bytes.
      depth: fc.oneof(fc.integer({ min: 65, max: 200 }), fc.constantFrom(1000, 100_000)),
      shallow: fc.integer({ min: 1, max: 50 }),
      kind: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ r, at, depth, shallow, kind }) => {
        // The marker at some path of the example (at most 6 deep), then the nesting spliced in.
        const marked = serialize(applyOps(credentialed(r), [{ kind: 'set', at, value: DEEP_MARK }]));
        // node-control's update_miner would steer this node's own miner: not fuzz.
        fc.pre(!/update_miner/i.test(marked));
        const at64 = (d: number): string => marked.replace(JSON.stringify(DEEP_MARK), deepText(d, kind));
        const deep = await fuzzRequest(n, { method: 'POST', path: r.path, body: at64(depth), contentType: 'application/json' }, { exempt: AUDIT });
        assert.equal(deep.status, 400, `${r.path} at depth ${depth}: ${deep.text.slice(0, 300)}`);
        assert.equal(JSON.parse(deep.text).error, DEPTH_ERROR);
        const ok = await fuzzRequest(n, { method: 'POST', path: r.path, body: at64(shallow), contentType: 'application/json' }, { exempt: AUDIT });
        if (ok.status === 400) assert.notEqual(JSON.parse(ok.text).error, DEPTH_ERROR, `${r.path}: ${shallow} levels are within the bound`);
      }),
      fcOptions(60),
    );
  });

  it('deep arrays: identity socket frames nested past 64 are answered with an error envelope, the socket stays open', async () => {
    const ws = await WsClient.connect(n.url.replace(/^http/, 'ws') + '/api/v0/identity');
    try {
      const arb = fc.record({
        depth: fc.oneof(fc.integer({ min: 65, max: 200 }), fc.constantFrom(1000, 100_000)),
        kind: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
        where: fc.constantFrom('payload', 'id', 'whole'),
      });
      await fc.assert(
        fc.asyncProperty(arb, async ({ depth, kind, where }) => {
          const nest = deepText(depth, kind);
          const frame = where === 'whole' ? nest : where === 'id' ? `{"id":${nest},"service":"identity","method":"jwt","payload":{}}` : `{"id":"deep","service":"identity","method":"jwt","payload":${nest}}`;
          const from = ws.messages.length;
          spy.take();
          ws.send(frame);
          await ws.waitUntil(() => ws.messages.length > from, 'an answer');
          const body = ws.messages[from]!.json as J;
          const error = (body['payload'] as J | undefined)?.['error'];
          checkErrorText(error, `deep frame (${where}, ${kind}, ${depth})`);
          assert.match(error as string, /more than 64 deep/, `the error names the bound: ${String(error)}`);
          assert.deepEqual(spy.take(), [], 'a refused frame writes nothing');
          assert.ok(ws.isOpen, 'the socket stays open');
        }),
        fcOptions(30),
      );
    } finally {
      await ws.close();
    }
  });
});

// --- malformed transactions -------------------------------------------------------------------

interface Span {
  start: number;
  end: number;
  what: string;
}

/** Where each uvarint of a transaction's envelope is (the layout of server/chain/txn/envelope.ts). */
function varintSpans(bytes: Uint8Array): Span[] {
  const r = new Reader(bytes);
  const spans: Span[] = [];
  const uv = (what: string): number => {
    const start = r.pos;
    const v = r.uvarint(what);
    spans.push({ start, end: r.pos, what });
    return Number(v);
  };
  const nIn = uv('inputs count');
  for (let i = 0; i < nIn; i++) (r.take(32, 'txid'), uv('input index'));
  const nOut = uv('outputs count');
  for (let i = 0; i < nOut; i++) (r.take(33, 'output key'), uv('output amount'));
  uv('txn type');
  r.take(uv('metadata length'), 'metadata');
  r.take(uv('public key length'), 'public key');
  const nKeys = uv('extra data count');
  for (let i = 0; i < nKeys; i++) (r.take(uv('extra data key length'), 'key'), r.take(uv('extra data value length'), 'value'));
  r.take(uv('signature length'), 'signature');
  if (r.remaining > 0) for (const f of ['version', 'fee', 'nonce expiration', 'nonce partial id']) uv(f);
  return spans;
}

const splice = (b: Uint8Array, start: number, end: number, insert: ArrayLike<number>): Uint8Array =>
  new Uint8Array([...b.subarray(0, start), ...Array.from(insert), ...b.subarray(end)]);

/** Ways to break a transaction's bytes; none can give a transaction the node should take. */
function txnMutation(bytes: Uint8Array): fc.Arbitrary<{ how: string; bytes: Uint8Array }> {
  const spans = varintSpans(bytes);
  const span = fc.constantFrom(...spans);
  return fc.oneof(
    fc.integer({ min: 0, max: bytes.length - 1 }).map((i) => ({ how: `truncated to ${i}`, bytes: bytes.subarray(0, i) })),
    fc.uint8Array({ minLength: 1, maxLength: 40 }).map((extra) => ({ how: `${extra.length} bytes appended`, bytes: new Uint8Array([...bytes, ...extra]) })),
    fc.constant({ how: `over MAX_TXN_BYTES`, bytes: new Uint8Array([...bytes, ...new Uint8Array(MAX_TXN_BYTES + 1 - bytes.length)]) }),
    span.map((s) => {
      // The continuation bit on a varint's last byte: it swallows the byte after it.
      const out = bytes.slice();
      out[s.end - 1]! |= 0x80;
      return { how: `${s.what}: continuation bit on its last byte`, bytes: out };
    }),
    fc.tuple(span, fc.integer({ min: 10, max: 14 })).map(([s, len]) => ({
      how: `${s.what}: ${len}-byte varint`,
      bytes: splice(bytes, s.start, s.end, [...new Array<number>(len - 1).fill(0xff), 0x01]),
    })),
    span.map((s) => ({ how: `${s.what}: not minimally encoded`, bytes: splice(bytes, s.start, s.end, [...Array.from(bytes.subarray(s.start, s.end - 1)), bytes[s.end - 1]! | 0x80, 0x00]) })),
    fc.tuple(span, fc.constantFrom(2n ** 64n - 1n, 2n ** 63n, 2n ** 32n, 2n ** 31n, 100_001n)).map(([s, v]) => ({ how: `${s.what}: ${v}`, bytes: splice(bytes, s.start, s.end, encodeUvarint(v)) })),
    fc.tuple(fc.integer({ min: 0, max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([i, x]) => {
      const out = bytes.slice();
      out[i]! ^= x;
      return { how: `byte ${i} ^ ${x}`, bytes: out };
    }),
  );
}

describe('malformed transactions and blocks', () => {
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

  it('truncated, extended, oversized and varint-corrupted signed transactions are refused with {"error"}; tip and mempool unchanged', async () => {
    const transfer = await n.ok('send-deso', { SenderPublicKeyBase58Check: user.pk, RecipientPublicKeyOrUsername: n.miner.pk, AmountNanos: 12_345, MinFeeRateNanosPerKB: 1000 });
    const post = await n.ok('submit-post', { UpdaterPublicKeyBase58Check: user.pk, BodyObj: { Body: 'fuzz', ImageURLs: [], VideoURLs: [] }, MinFeeRateNanosPerKB: 1000 });
    const signed = await Promise.all([transfer, post].map(async (c) => new Uint8Array(Buffer.from(await signTx(c['TransactionHex'] as string, user.seedHex), 'hex'))));
    const unsigned = [transfer, post].map((c) => new Uint8Array(Buffer.from(c['TransactionHex'] as string, 'hex')));
    const sigOf = (b: Uint8Array): Uint8Array => decodeTxn(b).signature;

    const arb = fc.constantFrom(0, 1).chain((i) =>
      fc.oneof(
        txnMutation(signed[i]!).map((m) => ({ ...m, body: { TransactionHex: hex(m.bytes) } })),
        // The unsigned + signature form: either half broken.
        txnMutation(unsigned[i]!).map((m) => ({ ...m, body: { UnsignedTransactionHex: hex(m.bytes), TransactionSignatureHex: hex(sigOf(signed[i]!)) } })),
        fc.integer({ min: 0, max: sigOf(signed[i]!).length - 1 }).map((cut) => ({ how: `signature cut to ${cut}`, bytes: new Uint8Array(), body: { UnsignedTransactionHex: hex(unsigned[i]!), TransactionSignatureHex: hex(sigOf(signed[i]!).subarray(0, cut)) } })),
      ),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ how, body }) => {
        const res = await fuzzRequest(n, { method: 'POST', path: '/api/v0/submit-transaction', body: JSON.stringify(body), contentType: 'application/json' });
        assert.equal(res.status, 400, `${how}: refused with 400 (${res.text.slice(0, 300)})`);
        assert.match(JSON.parse(res.text).error as string, /^SubmitTransaction(Request)?: /, `${how}: the error names the request`);
      }),
      fcOptions(200),
    );

    // Signed correctly but over the size limit: a huge ExtraData value.
    const env = decodeTxn(unsigned[0]!);
    const big = encodeTxn({ ...env, extraData: [...env.extraData, [new TextEncoder().encode('Fuzz'), new Uint8Array(MAX_TXN_BYTES)]] });
    const bigSigned = await signTx(hex(big), user.seedHex);
    const tooBig = await fuzzRequest(n, { method: 'POST', path: '/api/v0/submit-transaction', body: JSON.stringify({ TransactionHex: bigSigned }), contentType: 'application/json' });
    assert.equal(tooBig.status, 400, `an oversized transaction is refused: ${tooBig.text.slice(0, 300)}`);
    assert.match(JSON.parse(tooBig.text).error as string, /TxnTooBig|over the .*limit/, 'the error names the size limit');

    // The untouched transactions are still good: the refusals left nothing behind.
    spy.take();
    for (const b of signed) await n.waitMined((await n.ok('submit-transaction', { TransactionHex: hex(b) }))['TxnHashHex'] as string);
    assert.ok(spy.take().some((k) => k.startsWith('mempool:txn:')), 'the write spy sees an accepted transaction enter the mempool');
  });

  it('re-signed transactions with malformed metadata are refused with {"error"}, leaving the chain as it was', async () => {
    // Signed here, not by the SDK: its signTx parses the metadata, which is what is broken.
    const sign = (unsigned: Uint8Array): string =>
      hex(withSignature(unsigned, secp256k1.sign(hashToSign(unsigned), Buffer.from(user.seedHex, 'hex'), { prehash: false, format: 'der' })));
    const c = await n.ok('submit-post', { UpdaterPublicKeyBase58Check: user.pk, BodyObj: { Body: 'metadata fuzz' }, MinFeeRateNanosPerKB: 1000 });
    const unsigned = new Uint8Array(Buffer.from(c['TransactionHex'] as string, 'hex'));
    const env = decodeTxn(unsigned);
    const md = env.metadata;
    const arb = fc.oneof(
      fc.integer({ min: 0, max: md.length - 1 }).map((i) => ({ how: `metadata truncated to ${i}`, metadata: md.subarray(0, i) })),
      fc.uint8Array({ minLength: 1, maxLength: 20 }).map((x) => ({ how: `${x.length} bytes after the metadata`, metadata: new Uint8Array([...md, ...x]) })),
      fc.integer({ min: 0, max: md.length - 1 }).map((i) => ({ how: `metadata byte ${i}: 11-byte varint`, metadata: splice(md, i, i + 1, [...new Array<number>(10).fill(0xff), 0x01]) })),
      fc.constant({ how: 'metadata all 0xff', metadata: new Uint8Array(md.length).fill(0xff) }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ how, metadata }) => {
        const txnHex = sign(encodeTxn({ ...env, metadata }));
        const res = await fuzzRequest(n, { method: 'POST', path: '/api/v0/submit-transaction', body: JSON.stringify({ TransactionHex: txnHex }), contentType: 'application/json' });
        assert.equal(res.status, 400, `${how}: refused with 400 (${res.text.slice(0, 300)})`);
      }),
      fcOptions(60),
    );
    // The same signer on the untouched metadata: accepted, so the refusals were the metadata's.
    await n.waitMined((await n.ok('submit-transaction', { TransactionHex: sign(unsigned) }))['TxnHashHex'] as string);
  });

  it('profile pictures with header bytes or other media types are refused at submission; the picture route sends only raster types (issue 17)', async () => {
    const sign = (unsigned: Uint8Array): string =>
      hex(withSignature(unsigned, secp256k1.sign(hashToSign(unsigned), Buffer.from(user.seedHex, 'hex'), { prehash: false, format: 'der' })));
    const c = await n.ok('update-profile', { UpdaterPublicKeyBase58Check: user.pk, NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500, MinFeeRateNanosPerKB: 1000 });
    const env = decodeTxn(new Uint8Array(Buffer.from(c['TransactionHex'] as string, 'hex')));
    const md = decodeMetadata(env.txnType, env.metadata) as UpdateProfileMetadata;
    const HEADER_BYTES = ['\r\n', '\n', '\r', '\u0000', '\u000b', '\u007f', '\r\nSet-Cookie: pwn=1; Path=/\r\nX-Injected: yes', '\nX-Injected: yes', ' ', '\t'];
    const data = fc.constantFrom('AAAA', 'PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+', '', 'AAA', 'AA=A');
    const pic = fc.oneof(
      // A raster type with header bytes somewhere in the data URL.
      fc.tuple(fc.constantFrom('png', 'jpeg', 'webp', 'gif'), fc.constantFrom(...HEADER_BYTES), fc.constantFrom('type', 'base64', 'data'), data).map(([type, bytes, where, d]) =>
        where === 'type' ? `data:image/${type}${bytes};base64,${d || 'AAAA'}` : where === 'base64' ? `data:image/${type};base64${bytes},${d || 'AAAA'}` : `data:image/${type};base64,${d || 'AAAA'}${bytes}`,
      ),
      // Another media type, or a broken data URL.
      fc.tuple(fc.constantFrom('image/svg+xml', 'text/html', 'image/x-icon', 'image/PNG', 'application/octet-stream', 'image/png;charset=utf-8', 'image/'), data).map(([type, d]) => `data:${type};base64,${d}`),
      fc.constantFrom('data:image/png;base64,', 'data:image/png;base64,AAA', 'data:image/png,AAAA', 'https://example.com/a.png', '<svg onload=alert(1)>'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map((x) => `data:image/png${x};base64,AAAA`),
    );
    await fc.assert(
      fc.asyncProperty(pic, async (p) => {
        const metadata = encodeMetadata({ ...md, newProfilePic: new TextEncoder().encode(p) });
        const txnHex = sign(encodeTxn({ ...env, metadata, v1: { ...env.v1!, feeNanos: env.v1!.feeNanos + 100_000n } }));
        const res = await fuzzRequest(n, { method: 'POST', path: '/api/v0/submit-transaction', body: JSON.stringify({ TransactionHex: txnHex }), contentType: 'application/json' });
        assert.equal(res.status, 400, `${JSON.stringify(p)}: refused with 400 (${res.text.slice(0, 300)})`);
        assert.match(JSON.parse(res.text).error as string, /RuleErrorProfilePicNotImageDataURL/, JSON.stringify(p));
      }),
      fcOptions(60),
    );
    const r = await fetch(`${n.url}/api/v0/get-single-profile-picture/${user.pk}`);
    assert.equal(r.status, 404, 'the user still has no picture');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('x-injected'), null);
    assert.equal(r.headers.get('set-cookie'), null);
  });

  it('truncated, extended and corrupted block headers and bad block ids are refused with {"error"}; the tip stays', async () => {
    const t = await n.ok('get-block-template', { PublicKeyBase58Check: n.miner.pk, NumHeaders: 1, HeaderVersion: 1 });
    const header = new Uint8Array(Buffer.from((t['Headers'] as string[])[0]!, 'base64'));
    const base = { PublicKeyBase58Check: n.miner.pk, ExtraNonce: (t['ExtraNonces'] as number[])[0], BlockID: t['BlockID'] as string };
    // Fields a mutation may break and still leave a header the node must refuse (the nonce,
    // timestamp and header extra nonce are left alone: with the dev chain's easy target, a
    // changed one can be a valid block).
    const structural: Array<[string, number, number]> = [
      ['version', HEADER_OFFSETS.version, 4],
      ['previous block hash', HEADER_OFFSETS.prevBlockHash, 32],
      ['merkle root', HEADER_OFFSETS.transactionMerkleRoot, 32],
      ['height', HEADER_OFFSETS.height, 8],
    ];
    const arb = fc.oneof(
      fc.integer({ min: 0, max: header.length - 1 }).map((i) => ({ how: `header cut to ${i}`, body: { ...base, Header: Buffer.from(header.subarray(0, i)).toString('base64') } })),
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((x) => ({ how: `${x.length} bytes after the header`, body: { ...base, Header: Buffer.from([...header, ...x]).toString('base64') } })),
      fc.tuple(fc.constantFrom(...structural), fc.nat(), fc.integer({ min: 1, max: 255 })).map(([[name, off, len], i, x]) => {
        const h = header.slice();
        h[off + (i % len)]! ^= x;
        return { how: `${name} byte ${i % len} ^ ${x}`, body: { ...base, Header: Buffer.from(h).toString('hex') } };
      }),
      fc.constantFrom('tstampSecs' as const, 'height' as const).map((f) => {
        const h = header.slice();
        new DataView(h.buffer).setUint32(HEADER_OFFSETS[f], 0xffffffff);
        return { how: `${f} over 32 bits`, body: { ...base, Header: Buffer.from(h).toString('base64') } };
      }),
      fc.oneof(hexString(80), fc.constantFrom('0'.repeat(64), 'G'.repeat(64), `${base.BlockID.slice(0, 63)}`, base.BlockID.toUpperCase())).map((id) => ({ how: `BlockID ${id}`, body: { ...base, Header: Buffer.from(header).toString('base64'), BlockID: id } })),
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).filter((x) => x !== BigInt(base.ExtraNonce!)).map((x) => ({ how: `ExtraNonce ${x}`, body: { ...base, Header: Buffer.from(header).toString('base64'), ExtraNonce: x.toString() } })),
      fc.constantFrom('!!!!', 'a', '=', 'AAAA====', 'f'.repeat(199), 'f'.repeat(201), 'g'.repeat(200)).map((h) => ({ how: `Header ${JSON.stringify(h)}`, body: { ...base, Header: h } })),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ how, body }) => {
        const res = await fuzzRequest(n, { method: 'POST', path: '/api/v0/submit-block', body: JSON.stringify(body), contentType: 'application/json' });
        assert.equal(res.status, 400, `${how}: refused with 400 (${res.text.slice(0, 300)})`);
      }),
      fcOptions(120),
    );
    const tip = (await n.deps.chain.tip()).height;
    await n.mineBlock();
    assert.equal((await n.deps.chain.tip()).height, tip + 1n, 'a real block still joins the chain after the refusals');
  });
});

describe('oversized batches', () => {
  it('NumHeaders: past this node\'s cap a 400 {"error"} naming it, up to the cap that many headers (a template costs what it asks for)', async () => {
    const arb = fc.oneof(
      fc.integer({ min: MAX_HEADERS_PER_REQUEST + 1, max: Number.MAX_SAFE_INTEGER }),
      fc.constantFrom(MAX_HEADERS_PER_REQUEST + 1, 2_000, 10_000, 999_999, 1_000_000, 2 ** 53),
      fc.integer({ min: -3, max: MAX_HEADERS_PER_REQUEST }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async (num) => {
        const body = JSON.stringify({ PublicKeyBase58Check: n.miner.pk, NumHeaders: num, HeaderVersion: 1 });
        const res = await fuzzRequest(n, { method: 'POST', path: '/api/v0/get-block-template', body, contentType: 'application/json' });
        if (num > MAX_HEADERS_PER_REQUEST) {
          assert.equal(res.status, 400, `NumHeaders ${num}: refused (${res.text.slice(0, 200)})`);
          assert.match(JSON.parse(res.text).error as string, /NumHeaders/);
        } else {
          assert.equal(res.status, 200, `NumHeaders ${num}: ${res.text.slice(0, 200)}`);
          assert.equal((JSON.parse(res.text).Headers as string[]).length, Math.max(0, num));
        }
      }),
      fcOptions(40),
    );
  });
});

describe('diamond routes, around the fuzzer\'s real post', () => {
  // Mostly real values, so that many requests reach the rules and some diamonds are built.
  const key = (): fc.Arbitrary<string> => fc.oneof({ weight: 6, arbitrary: fc.constantFrom(user.pk, n.miner.pk, superAdmin.pk, '') }, { weight: 1, arbitrary: fc.constantFrom(...badKeys(user)) });
  const hash = (): fc.Arbitrary<string> => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(postHashHex, postHashHex.toUpperCase()) }, { weight: 1, arbitrary: hexString(70) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_HEX, '') });
  const count = (): fc.Arbitrary<unknown> => fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -1, max: 9 }) }, { weight: 1, arbitrary: fc.constantFrom(...HUGE_NUMBERS) });

  before(async () => {
    // One mined diamond (the miner's, on the user's post), so the reads have something to walk.
    const c = await n.ok('send-diamonds', { SenderPublicKeyBase58Check: n.miner.pk, ReceiverPublicKeyBase58Check: user.pk, DiamondPostHashHex: postHashHex, DiamondLevel: 1, MinFeeRateNanosPerKB: 1000 });
    await n.submit(c['TransactionHex'] as string, n.miner, 'sdk');
  });

  it('send-diamonds with real and bad keys, hashes and levels: no 5xx, {"error"} refusals that change nothing, and what is built pays the author', async () => {
    let built = 0;
    const body = fc.record({
      SenderPublicKeyBase58Check: key(),
      ReceiverPublicKeyBase58Check: key(),
      DiamondPostHashHex: hash(),
      DiamondLevel: count(),
      InTutorial: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      MinFeeRateNanosPerKB: fc.constant(1000),
    });
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await fuzzRequest(n, { method: 'POST', path: '/api/v0/send-diamonds', body: serialize(b), contentType: 'application/json' });
        if (res.status !== 200) return;
        built++;
        // Any key but the post's author may diamond it (construction does not weigh balances).
        const txn = decodeTxn(new Uint8Array(Buffer.from(JSON.parse(res.text).TransactionHex as string, 'hex')));
        assert.equal(txn.txnType, 2, 'a diamond is a BASIC_TRANSFER');
        assert.deepEqual(txn.outputs.map((o) => encodePublicKey(o.publicKey, 'testnet')), [user.pk], 'paying the post\'s author');
      }),
      fcOptions(120),
    );
    assert.ok(built > 0, 'some diamonds were built');
  });

  it('the diamond reads with real and bad keys, hashes and pages: no 5xx, {"error"} refusals', async () => {
    const request = fc.oneof(
      fc.record({ PublicKeyBase58Check: key(), FetchYouDiamonded: fc.boolean() }).map((b) => ['get-diamonds-for-public-key', b] as const),
      fc.record({ PostHashHex: hash(), Offset: count(), Limit: count(), ReaderPublicKeyBase58Check: key() }).map((b) => ['get-diamonds-for-post', b] as const),
      fc
        .record({ ReceiverPublicKeyBase58Check: key(), ReceiverUsername: fc.constantFrom('', USERNAME, 'nobody', '\ud800'), SenderPublicKeyBase58Check: key(), StartPostHashHex: hash(), NumToFetch: count(), ReaderPublicKeyBase58Check: key() })
        .map((b) => ['get-diamonded-posts', b] as const),
    );
    await fc.assert(
      fc.asyncProperty(request, async ([path, b]) => {
        await fuzzRequest(n, { method: 'POST', path: `/api/v0/${path}`, body: serialize(b), contentType: 'application/json' });
      }),
      fcOptions(80),
    );
  });
});

describe('regressions found by this fuzzer', () => {
  const rawPost = (path: string, text: string): Promise<Res> => send(n, { method: 'POST', path: `/api/v0/${path}`, body: text, contentType: 'application/json' });

  it('an unpaired surrogate (a \\u escape) reads as U+FFFD, as in Go: a username made of one is a 400, not a 500', async () => {
    // Both were 500s: the lone surrogate reached a store key (server/jsonText.ts).
    const cases: Array<[string, string]> = [
      ['transfer-dao-coin', `{"SenderPublicKeyBase58Check":"${user.pk}","ProfilePublicKeyBase58CheckOrUsername":"\\ud800","ReceiverPublicKeyBase58CheckOrUsername":"${n.miner.pk}","DAOCoinToTransferNanos":"1","MinFeeRateNanosPerKB":1000}`],
      ['cancel-dao-coin-limit-order', `{"TransactorPublicKeyBase58Check":"\\ud800","CancelOrderID":"","MinFeeRateNanosPerKB":0}`],
      ['get-single-profile', '{"Username":"a\\udfffb"}'],
    ];
    for (const [path, text] of cases) {
      const req: Req = { method: 'POST', path: `/api/v0/${path}`, body: text, contentType: 'application/json' };
      const res = await fuzzRequest(n, req);
      assert.ok(res.status >= 400 && res.status < 500, `${path}: refused (${res.status} ${res.text})`);
      assert.ok(!res.text.includes('\\ud800') && !res.text.includes('\\udfff'), `${path}: the error shows U+FFFD, not the surrogate: ${res.text}`);
    }
  });

  it('a surrogate pair and an escaped backslash before "u" are left alone', async () => {
    const res = await rawPost('identity', '{"id":"\\ud83d\\ude00\\\\ud800","service":"identity","method":"nope","payload":{}}');
    assert.equal(res.status, 400, res.text);
    assert.equal(JSON.parse(res.text).id, '\u{1f600}\\ud800', 'the emoji and the literal text \\ud800 are echoed unchanged');
  });

  it('an identity frame id with an unpaired surrogate is echoed as U+FFFD', async () => {
    const res = await rawPost('identity', '{"id":"x\\ud800","service":"identity","method":"nope","payload":{}}');
    assert.equal(res.status, 400, res.text);
    assert.equal(JSON.parse(res.text).id, 'x\ufffd', 'the id as Go would read it');
  });

  it('a broken UnsignedTransactionHex names the request and the field in its error', async () => {
    const c = await n.ok('send-deso', { SenderPublicKeyBase58Check: user.pk, RecipientPublicKeyOrUsername: n.miner.pk, AmountNanos: 1, MinFeeRateNanosPerKB: 1000 });
    const hex = c['TransactionHex'] as string;
    // Was the bare decoder message ("nonce partial id: unexpected end of data in uvarint").
    const res = await fuzzRequest(n, { method: 'POST', path: '/api/v0/submit-transaction', body: JSON.stringify({ UnsignedTransactionHex: hex.slice(0, -2), TransactionSignatureHex: '3000' }), contentType: 'application/json' });
    assert.equal(res.status, 400, res.text);
    assert.match(JSON.parse(res.text).error as string, /^SubmitTransactionRequest: Problem deserializing unsigned transaction from bytes: nonce partial id: /);
  });
});

describe('coin routes (issue 21): transfers, market orders, holders, username lookups', () => {
  const POST_PATHS = ['transfer-creator-coin', 'create-dao-coin-market-order', 'get-hodlers-for-public-key', 'is-hodling-public-key'];
  const GET_PATHS = ['get-public-key-for-user-name/{Username}', 'get-user-name-for-public-key/{PublicKeyBase58Check}'];
  /** Real requests naming the fuzzer's profile and keys, so mutations reach past the lookups. */
  const seeds = (): Array<[string, J]> => [
    ['transfer-creator-coin', { SenderPublicKeyBase58Check: user.pk, CreatorPublicKeyBase58Check: user.pk, ReceiverUsernameOrPublicKeyBase58Check: n.miner.pk, CreatorCoinToTransferNanos: 100, MinFeeRateNanosPerKB: 1000 }],
    ['transfer-creator-coin', { SenderPublicKeyBase58Check: n.miner.pk, CreatorPublicKeyBase58Check: user.pk, ReceiverUsernameOrPublicKeyBase58Check: USERNAME, CreatorCoinToTransferNanos: 10, MinFeeRateNanosPerKB: 1000 }],
    ['create-dao-coin-market-order', { TransactorPublicKeyBase58Check: user.pk, BuyingDAOCoinCreatorPublicKeyBase58Check: user.pk, SellingDAOCoinCreatorPublicKeyBase58Check: 'DESO', Quantity: '1', OperationType: 'BID', FillType: 'IMMEDIATE_OR_CANCEL', MinFeeRateNanosPerKB: 1000 }],
    ['get-hodlers-for-public-key', { PublicKeyBase58Check: user.pk, NumToFetch: 10, LastPublicKeyBase58Check: n.miner.pk, SortType: 'wealth', IsDAOCoin: true }],
    ['get-hodlers-for-public-key', { Username: USERNAME, FetchHodlings: true, FetchAll: true }],
    ['is-hodling-public-key', { PublicKeyBase58Check: n.miner.pk, IsHodlingPublicKeyBase58Check: user.pk, IsDAOCoin: false }],
  ];

  it('are mounted and in the OpenAPI document (so every property above covers them too)', () => {
    for (const p of POST_PATHS) assert.ok(routes.some((r) => r.method === 'POST' && r.path === `/api/v0/${p}`), `POST ${p}`);
    for (const p of GET_PATHS) assert.ok(routes.some((r) => r.method === 'GET' && r.path === `/api/v0/${p}`), `GET ${p}`);
  });

  it('mutated real requests: no 5xx, {"error"} refusals, a refusal changes nothing', async () => {
    const values = badValue([...badKeys(user), ...realValues(), 'DESO', 'FILL_OR_KILL', 'GOOD_TILL_CANCELLED', 'ASK', 'coin_balance']);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...seeds()), fc.array(opArb(values), { minLength: 1, maxLength: 3 }), async ([path, seed], ops) => {
        await fuzzRequest(n, { method: 'POST', path: `/api/v0/${path}`, body: serialize(applyOps(seed, ops)), contentType: 'application/json' });
      }),
      fcOptions(150),
    );
  });

  it('the lookups with fuzzed path parameters: a bare string or a {"error"} refusal', async () => {
    const param = fc.oneof(
      fc.constantFrom(...badKeys(user), ...realValues(), USERNAME.toUpperCase(), 'a'.repeat(26), 'a'.repeat(27), '_', ...ODD_STRINGS.filter((x) => x !== '' && x.length < 1000)).map(pathSegment),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(pathSegment),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('get-public-key-for-user-name', 'get-user-name-for-public-key'), param, async (route, value) => {
        const res = await fuzzRequest(n, { method: 'GET', path: `/api/v0/${route}/${value}` });
        if (res.status === 200) assert.equal(typeof JSON.parse(res.text), 'string', `${route}/${value}: a bare JSON string`);
      }),
      fcOptions(100),
    );
    const named = await fuzzRequest(n, { method: 'GET', path: `/api/v0/get-public-key-for-user-name/${USERNAME.toUpperCase()}` });
    assert.equal(JSON.parse(named.text), user.pk, 'the fuzzer\'s own username, any case');
  });
});

describe('on a Redis-backed node (smoke)', () => {
  let r: ChainNode;
  let writes: WriteSpy;
  before(async () => {
    r = await startChainNode({ store: 'redis', args: ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk] });
    writes = spyOnWrites(r.deps.store);
  });
  after(async () => {
    await r?.close();
  });

  it('mutated example bodies: no 5xx, {"error"} refusals, and a refusal changes nothing', async () => {
    await mutatedExamples(r, writes, 80);
    const res = await send(r, { method: 'GET', path: '/api/v0/health-check' });
    assert.equal(res.status, 200, `health-check: ${res.text}`);
  });
});

describe('the node after the fuzzing', () => {
  it('is up: health-check answers 200', async () => {
    const res = await send(n, { method: 'GET', path: '/api/v0/health-check' });
    assert.equal(res.status, 200, `health-check: ${res.text}`);
  });
});
