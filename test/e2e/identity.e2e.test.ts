// The identity frame API (spec §4.1) against real node processes: POST /api/v0/identity, the
// WebSocket at the same path (and /identity), and sessions shared by two nodes on one Redis.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { postJson, type HttpResult } from '../helpers/http.js';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { hexToBytes, readSharedVectors } from '../helpers/vectors.js';
import { WsClient, type WsMessage } from '../helpers/ws.js';

// --- vectors --------------------------------------------------------------------------------

interface SdkVectors {
  keys: Array<{ seedHex: string; mainnetBase58Check: string; publicKeyCompressedHex: string }>;
  transactions: Array<{
    txnType: string;
    unsignedTxHex: string;
    signerSeedHex: string;
    signerPublicKeyBase58Check: string;
    signerPublicKeyCompressedHex: string;
    deterministicRfc6979Reference: { signedHex: string };
  }>;
  v2SharedSecret: Array<{
    senderSeedHex: string;
    senderPublicKeyBase58Check: string;
    recipientSeedHex: string;
    recipientPublicKeyBase58Check: string;
    messages: Array<{ plaintext: string; plaintextUtf8Hex: string; ciphertextHex: string }>;
  }>;
  identityFrame: { accessLevelHmac: Array<{ seedHex: string; accessLevel: number; accessLevelHmac: string }> };
}

const V = readSharedVectors<SdkVectors>('sdk-vectors.json');
const TXN = V.transactions[0]!;
assert.equal(TXN.txnType, 'BASIC_TRANSFER', 'transactions[0] is the BASIC_TRANSFER the tests rely on (level 4)');
const SIGNED_REFERENCE = TXN.deterministicRfc6979Reference.signedHex;
const V2 = V.v2SharedSecret[0]!;
const V2_MESSAGE = V2.messages[0]!;
/** A recipient for `encrypt` that is not the signer. */
const RECIPIENT = V.keys[1]!.mainnetBase58Check;

function vectorHmac(seedHex: string, level: number): string {
  const v = V.identityFrame.accessLevelHmac.find((x) => x.seedHex === seedHex && x.accessLevel === level);
  assert.ok(v, `vector accessLevelHmac for ${seedHex.slice(0, 8)}… at level ${level} exists`);
  return v.accessLevelHmac;
}

// --- envelopes ------------------------------------------------------------------------------

const IDENTITY_PATH = '/api/v0/identity';
const MAINNET = ['--network', 'mainnet'];

let seq = 0;
const nextId = (prefix: string): string => `${prefix}-${++seq}`;

type Payload = Record<string, unknown>;

interface Envelope {
  id: string | null;
  service: string;
  payload: Payload;
  method?: unknown;
  error?: unknown;
}

interface Session {
  publicKeyBase58Check: string;
  encryptedSeedHex: string;
  accessLevel: number;
  accessLevelHmac: string;
  network: string;
  loginMethod: string;
  mnemonic?: string;
}

const request = (method: string, payload: Payload, id = nextId(method)) => ({ id, service: 'identity', method, payload });

/** What a gated method needs from the session. */
const gate = (s: Session): Payload => ({
  encryptedSeedHex: s.encryptedSeedHex,
  accessLevel: s.accessLevel,
  accessLevelHmac: s.accessLevelHmac,
});

async function post(base: string, method: string, payload: Payload, id = nextId(method)): Promise<{ r: HttpResult; id: string; body: Envelope }> {
  const r = await postJson(base, IDENTITY_PATH, request(method, payload, id));
  assert.ok(r.json !== undefined && typeof r.json === 'object', `${method}: JSON body (got ${JSON.stringify(r.text.slice(0, 200))})`);
  return { r, id, body: r.json as Envelope };
}

/** A 200 answer: the response envelope echoing the id, and its payload. */
async function postOk(base: string, method: string, payload: Payload): Promise<Payload> {
  const { r, id, body } = await post(base, method, payload);
  assert.equal(r.status, 200, `${method}: 200 (body ${r.text.slice(0, 300)})`);
  assert.equal(body.id, id, `${method}: id echoed`);
  assert.equal(body.service, 'identity');
  assert.ok(!('method' in body), `${method}: a response envelope carries no method`);
  assert.ok(body.payload !== null && typeof body.payload === 'object', `${method}: payload is an object`);
  assert.ok(!('error' in body.payload), `${method}: no error (got ${JSON.stringify(body.payload)})`);
  return body.payload;
}

/** A refusal over POST: 400, `{error, id, service, payload: {error}}`. */
function assertRefused(r: HttpResult, id: string | null, re?: RegExp): string {
  assert.equal(r.status, 400, `refused with 400 (body ${r.text.slice(0, 300)})`);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  const body = r.json as Envelope;
  assert.ok(body !== undefined && typeof body === 'object', 'refusal body is JSON');
  assert.equal(typeof body.error, 'string', 'top-level error for plain {error} clients');
  if (re) assert.match(body.error as string, re);
  assert.equal(body.id, id, 'id echoed when it was readable, else null');
  assert.equal(body.service, 'identity');
  assert.deepEqual(body.payload, { error: body.error }, 'payload carries the same error');
  return body.error as string;
}

async function login(base: string, payload: Payload): Promise<Session> {
  const p = (await postOk(base, 'login', payload)) as unknown as Session;
  assert.match(p.encryptedSeedHex, /^[0-9a-f]+$/, 'encryptedSeedHex is hex');
  assert.match(p.accessLevelHmac, /^[0-9a-f]{64}$/, 'accessLevelHmac is 32 bytes of hex');
  return p;
}

const loginSigner = (base: string, level: 2 | 3 | 4 = 4): Promise<Session> =>
  login(base, { seedHex: TXN.signerSeedHex, accessLevelRequest: level });

/** Checks a token's shape, lifetime and ES256 signature by `publicKeyHex`; returns its claims. */
function checkJwt(token: unknown, publicKeyHex: string): { iat: number; exp: number } {
  assert.equal(typeof token, 'string', 'jwt is a string');
  const parts = (token as string).split('.');
  assert.equal(parts.length, 3, 'jwt has three parts');
  const [h, p, s] = parts as [string, string, string];
  assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url').toString('utf8')), { alg: 'ES256', typ: 'JWT' });
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { iat: number; exp: number };
  assert.ok(Number.isSafeInteger(claims.iat), 'iat is an integer');
  assert.equal(claims.exp - claims.iat, 600, 'exp - iat is 10 minutes');
  const sig = new Uint8Array(Buffer.from(s, 'base64url'));
  assert.equal(sig.length, 64, 'signature is r ‖ s');
  const digest = sha256(new Uint8Array(Buffer.from(`${h}.${p}`, 'latin1')));
  assert.ok(secp256k1.verify(sig, digest, hexToBytes(publicKeyHex), { prehash: false }), 'jwt signature verifies under the signer key');
  return claims;
}

async function stopAll(nodes: Array<NodeProcess | undefined>): Promise<void> {
  await Promise.allSettled(nodes.map((n) => n?.stop()));
}

// --- POST -----------------------------------------------------------------------------------

describe('identity over POST /api/v0/identity', () => {
  let node: NodeProcess | undefined;
  before(async () => {
    node = await startNodeProcess({ args: MAINNET });
  });
  after(async () => {
    await stopAll([node]);
  });
  const url = (): string => node!.url;

  it('logs in with seedHex at level 4: the frame’s user info, HMAC as the frame computes it', async () => {
    const s = await loginSigner(url(), 4);
    assert.equal(s.publicKeyBase58Check, TXN.signerPublicKeyBase58Check);
    assert.equal(s.accessLevel, 4);
    assert.equal(s.accessLevelHmac, vectorHmac(TXN.signerSeedHex, 4));
    assert.equal(s.network, 'mainnet');
    assert.equal(s.loginMethod, 'DESO');
    assert.ok(!('mnemonic' in s), 'no mnemonic for an imported seed');
  });

  it('logs in without credentials: a new key and its mnemonic, returned once', async () => {
    const s = await login(url(), {});
    assert.equal(typeof s.mnemonic, 'string', 'mnemonic returned');
    assert.equal(s.mnemonic!.split(' ').length, 12, '12 words');
    assert.equal(s.accessLevel, 2, 'default level 2');
    // The same mnemonic logs in to the same key.
    const again = await login(url(), { mnemonic: s.mnemonic });
    assert.equal(again.publicKeyBase58Check, s.publicKeyBase58Check);
    assert.ok(!('mnemonic' in again), 'an imported mnemonic is not echoed');
  });

  it('signs the vector transaction with the deterministic (RFC 6979) reference signature', async () => {
    const s = await loginSigner(url(), 4);
    const p = await postOk(url(), 'sign', { ...gate(s), transactionHex: TXN.unsignedTxHex });
    assert.equal(p['signedTransactionHex'], SIGNED_REFERENCE);
  });

  it('issues a 10-minute ES256 jwt signed by the account key', async () => {
    const s = await loginSigner(url(), 2);
    const p = await postOk(url(), 'jwt', gate(s));
    const { iat } = checkJwt(p['jwt'], TXN.signerPublicKeyCompressedHex);
    assert.ok(Math.abs(iat - Date.now() / 1000) < 3600, 'iat is about now');
  });

  it('decrypts the V2 vector message, and what encrypt sends the recipient decrypts', async () => {
    const recipient = await login(url(), { seedHex: V2.recipientSeedHex });
    const vector = await postOk(url(), 'decrypt', {
      ...gate(recipient),
      encryptedMessages: [{ EncryptedHex: V2_MESSAGE.ciphertextHex, PublicKey: V2.senderPublicKeyBase58Check, IsSender: false, Legacy: false }],
    });
    assert.deepEqual(vector['decryptedHexes'], { [V2_MESSAGE.ciphertextHex]: V2_MESSAGE.plaintext });

    const sender = await login(url(), { seedHex: V2.senderSeedHex });
    const enc = await postOk(url(), 'encrypt', { ...gate(sender), recipientPublicKey: V2.recipientPublicKeyBase58Check, message: 'round trip' });
    assert.match(enc['encryptedMessage'] as string, /^[0-9a-f]+$/, 'ciphertext hex');
    const dec = await postOk(url(), 'decrypt', {
      ...gate(recipient),
      encryptedMessages: [{ EncryptedHex: enc['encryptedMessage'], PublicKey: V2.senderPublicKeyBase58Check, IsSender: false, Legacy: false }],
    });
    assert.deepEqual(dec['decryptedHexes'], { [enc['encryptedMessage'] as string]: 'round trip' });
  });

  it('answers approvalRequired (200) for a transfer on a level-2 session; jwt still works there', async () => {
    const s = await loginSigner(url(), 2);
    assert.equal(s.accessLevel, 2);
    assert.equal(s.accessLevelHmac, vectorHmac(TXN.signerSeedHex, 2));
    const p = await postOk(url(), 'sign', { ...gate(s), transactionHex: TXN.unsignedTxHex });
    assert.deepEqual(p, { approvalRequired: true });
    checkJwt((await postOk(url(), 'jwt', gate(s)))['jwt'], TXN.signerPublicKeyCompressedHex);
  });

  it('refuses a level above the one granted, even with that level’s genuine HMAC', async () => {
    const s = await loginSigner(url(), 2);
    // The HMAC is a function of seed and level only, so the vector gives a valid level-4 HMAC.
    const { r, id } = await post(url(), 'sign', {
      ...gate(s),
      accessLevel: 4,
      accessLevelHmac: vectorHmac(TXN.signerSeedHex, 4),
      transactionHex: TXN.unsignedTxHex,
    });
    assertRefused(r, id, /above the level granted/);
  });

  it('refuses a tampered accessLevelHmac or encryptedSeedHex with 400 and the id', async () => {
    const s = await loginSigner(url(), 4);
    const flip = (h: string): string => (h[0] === '0' ? '1' : '0') + h.slice(1);
    const badHmac = await post(url(), 'sign', { ...gate(s), accessLevelHmac: flip(s.accessLevelHmac), transactionHex: TXN.unsignedTxHex });
    assertRefused(badHmac.r, badHmac.id, /accessLevelHmac/);
    // A level-2 HMAC claimed as level 4.
    const otherLevel = await post(url(), 'jwt', { ...gate(s), accessLevelHmac: vectorHmac(TXN.signerSeedHex, 2) });
    assertRefused(otherLevel.r, otherLevel.id, /accessLevelHmac/);
    const tail = s.encryptedSeedHex.length - 1;
    const badHandle = s.encryptedSeedHex.slice(0, tail) + (s.encryptedSeedHex[tail] === '0' ? '1' : '0');
    const handle = await post(url(), 'jwt', { ...gate(s), encryptedSeedHex: badHandle });
    assertRefused(handle.r, handle.id, /encryptedSeedHex/);
    const missing = await post(url(), 'encrypt', { recipientPublicKey: RECIPIENT, message: 'x' });
    assertRefused(missing.r, missing.id, /encryptedSeedHex/);
  });

  it('refuses malformed envelopes with 400, echoing the id only when it is a valid string', async () => {
    const base = { service: 'identity', method: 'login', payload: {} };
    const cases: Array<{ what: string; body: unknown; id: string | null; re: RegExp }> = [
      { what: 'missing id', body: base, id: null, re: /"id"/ },
      { what: 'numeric id', body: { ...base, id: 7 }, id: null, re: /"id"/ },
      { what: 'empty id', body: { ...base, id: '' }, id: null, re: /"id"/ },
      { what: 'id over 128 characters', body: { ...base, id: 'x'.repeat(129) }, id: null, re: /128/ },
      { what: 'wrong service', body: { ...base, id: 'm-service', service: 'nope' }, id: 'm-service', re: /"service"/ },
      { what: 'missing service', body: { id: 'm-noservice', method: 'login', payload: {} }, id: 'm-noservice', re: /"service"/ },
      { what: 'unknown method', body: { ...base, id: 'm-method', method: 'steal' }, id: 'm-method', re: /"method"/ },
      { what: 'payload an array', body: { ...base, id: 'm-array', payload: [] }, id: 'm-array', re: /"payload"/ },
      { what: 'payload a string', body: { ...base, id: 'm-string', payload: 'x' }, id: 'm-string', re: /"payload"/ },
      { what: 'envelope an array', body: [base], id: null, re: /JSON object/ },
    ];
    for (const c of cases) {
      const r = await postJson(url(), IDENTITY_PATH, c.body);
      await it_(c.what, () => assertRefused(r, c.id, c.re));
    }
  });

  it('refuses a body that is not JSON with 400 {error}', async () => {
    const r = await postJson(url(), IDENTITY_PATH, '{"id":"x",');
    assert.equal(r.status, 400);
    const body = r.json as { error?: unknown; id?: unknown };
    assert.equal(typeof body?.error, 'string', 'body is {"error": "..."}');
    assert.match(body.error as string, /malformed JSON/);
    assert.ok(body.id === undefined || body.id === null, 'no id could be read');
  });

  // A JSON string body is not envelope text: it must not be parsed a second time.
  it('refuses a body that is a JSON string, even one holding an envelope', async () => {
    const inner = JSON.stringify(request('login', { seedHex: TXN.signerSeedHex }, 'wrapped'));
    const r = await postJson(url(), IDENTITY_PATH, JSON.stringify(inner));
    assertRefused(r, null, /JSON object/);
  });

  it('logs out: the handle is refused afterwards, by every method and by logout itself', async () => {
    const s = await loginSigner(url(), 4);
    const other = await loginSigner(url(), 4);
    assert.deepEqual(await postOk(url(), 'logout', { encryptedSeedHex: s.encryptedSeedHex }), { loggedOut: true });
    for (const [method, extra] of [
      ['jwt', {}],
      ['sign', { transactionHex: TXN.unsignedTxHex }],
      ['encrypt', { recipientPublicKey: RECIPIENT, message: 'x' }],
    ] as const) {
      const { r, id } = await post(url(), method, { ...gate(s), ...extra });
      assertRefused(r, id, /session has ended|encryptedSeedHex/);
    }
    const again = await post(url(), 'logout', { encryptedSeedHex: s.encryptedSeedHex });
    assertRefused(again.r, again.id, /encryptedSeedHex/);
    // Another session of the same key is untouched.
    checkJwt((await postOk(url(), 'jwt', gate(other)))['jwt'], TXN.signerPublicKeyCompressedHex);
  });
});

/** Names a case in an assertion failure (a loop of cases inside one `it`). */
async function it_(what: string, fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof Error) err.message = `${what}: ${err.message}`;
    throw err;
  }
}

// --- WebSocket ------------------------------------------------------------------------------

const payloadOf = (m: WsMessage): Payload => {
  const env = m.json as Envelope | undefined;
  assert.ok(env !== undefined && typeof env === 'object', `reply is a JSON envelope (got ${JSON.stringify(m.text.slice(0, 200))})`);
  assert.equal(env.service, 'identity');
  return env.payload;
};

describe('identity over the WebSocket', () => {
  let node: NodeProcess | undefined;
  const clients: WsClient[] = [];
  const open = async (path: string): Promise<WsClient> => {
    const c = await WsClient.connect(`ws://127.0.0.1:${node!.port}${path}`);
    clients.push(c);
    return c;
  };
  let session: Session;
  let ws: WsClient;

  before(async () => {
    node = await startNodeProcess({ args: MAINNET });
    ws = await open(IDENTITY_PATH);
    const reply = await ws.call(request('login', { seedHex: TXN.signerSeedHex, accessLevelRequest: 4 }, 'ws-login'));
    session = payloadOf(reply) as unknown as Session;
    assert.equal(session.publicKeyBase58Check, TXN.signerPublicKeyBase58Check, `login over the socket (got ${reply.text})`);
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await stopAll([node]);
  });

  /**
   * Sends `n` requests (jwt, encrypt, sign in turn, ids `<prefix>-<i>`) keeping at most `window`
   * unanswered, collects every reply, then makes one more round trip so that a duplicate answer
   * would already be in. Returns what a test asserts on.
   */
  async function bulk(prefix: string, n: number, window: number): Promise<{ replies: number; missing: string[]; duplicated: string[]; wrong: string[] }> {
    const methods = ['jwt', 'encrypt', 'sign'] as const;
    const sent = new Map<string, (typeof methods)[number]>();
    const from = ws.messages.length;
    const answered = (): number => ws.messages.length - from;
    for (let i = 0; i < n; i++) {
      if (i >= window) await ws.waitUntil(() => answered() > i - window, `a free slot for request ${i}`, 20_000);
      const method = methods[i % methods.length]!;
      const id = `${prefix}-${i}`;
      sent.set(id, method);
      const extra: Payload =
        method === 'sign' ? { transactionHex: TXN.unsignedTxHex } : method === 'encrypt' ? { recipientPublicKey: RECIPIENT, message: `message ${i}` } : {};
      ws.sendJson(request(method, { ...gate(session), ...extra }, id));
    }
    await ws.waitUntil(() => answered() >= n, `${n} replies`, 25_000);
    payloadOf(await ws.call(request('jwt', gate(session), `${prefix}-after`)));

    const seen = new Map<string, number>();
    const wrong: string[] = [];
    let replies = 0;
    let checkedJwt = false;
    for (const m of ws.messages.slice(from)) {
      const env = m.json as Envelope | undefined;
      const id = env?.id;
      if (typeof id !== 'string' || !id.startsWith(`${prefix}-`) || id === `${prefix}-after`) continue;
      replies++;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const method = sent.get(id);
      const p = env!.payload;
      if (method === undefined) wrong.push(`${id}: never sent`);
      else if (method === 'jwt' && typeof p['jwt'] !== 'string') wrong.push(`${id} jwt: ${JSON.stringify(p)}`);
      else if (method === 'encrypt' && !/^[0-9a-f]+$/.test(String(p['encryptedMessage']))) wrong.push(`${id} encrypt: ${JSON.stringify(p)}`);
      else if (method === 'sign' && p['signedTransactionHex'] !== SIGNED_REFERENCE) wrong.push(`${id} sign: ${JSON.stringify(p).slice(0, 200)}`);
      else if (method === 'jwt' && !checkedJwt) {
        checkJwt(p['jwt'], TXN.signerPublicKeyCompressedHex);
        checkedJwt = true;
      }
    }
    const missing = [...sent.keys()].filter((id) => !seen.has(id));
    const duplicated = [...seen].filter(([, k]) => k > 1).map(([id]) => id);
    return { replies, missing, duplicated, wrong };
  }

  const describeWrong = (wrong: string[]): string =>
    `every reply carries its method's result; ${wrong.length} do not, e.g.\n${wrong.slice(0, 5).join('\n')}`;

  let pipelined: Awaited<ReturnType<typeof bulk>> | undefined;

  it('answers 1,000 requests sent without waiting: every id exactly once', async () => {
    pipelined = await bulk('bulk', 1000, Infinity);
    assert.deepEqual(pipelined.missing, [], 'every id answered');
    assert.deepEqual(pipelined.duplicated, [], 'no id answered twice');
    assert.equal(pipelined.replies, 1000, 'exactly one reply per request');
  });

  // Per-item crypto of concurrent requests is micro-batched (server/crypto/batching.ts), so a
  // burst the socket admits is served, not shed as "server busy".
  it('gives each of those 1,000 its method’s result, not "server busy"', () => {
    assert.ok(pipelined, 'the pipelined run above completed');
    assert.equal(pipelined.wrong.length, 0, describeWrong(pipelined.wrong));
  });

  it('answers 1,000 requests with 32 in flight: every id exactly once, each with its method’s result', async () => {
    const r = await bulk('paced', 1000, 32);
    assert.deepEqual(r.missing, [], 'every id answered');
    assert.deepEqual(r.duplicated, [], 'no id answered twice');
    assert.equal(r.replies, 1000, 'exactly one reply per request');
    assert.equal(r.wrong.length, 0, describeWrong(r.wrong));
  });

  it('answers malformed text messages with errors and keeps the socket open', async () => {
    const bad = await ws.call({ id: 'm1', service: 'nope' } as { id: string });
    assert.equal(typeof payloadOf(bad)['error'], 'string', 'error payload for a wrong service');
    assert.equal((bad.json as Envelope).id, 'm1');

    const from = ws.messages.length;
    ws.send('not json');
    const notJson = await ws.next((m) => (m.json as Envelope | undefined)?.id === null, 'reply to "not json"', from);
    assert.match(payloadOf(notJson)['error'] as string, /malformed JSON/);

    const refused = await ws.call(request('jwt', { ...gate(session), accessLevelHmac: '00'.repeat(32) }, 'm-hmac'));
    assert.match(payloadOf(refused)['error'] as string, /accessLevelHmac/);

    assert.ok(ws.isOpen, 'socket still open after the errors');
    const ok = await ws.call(request('sign', { ...gate(session), transactionHex: TXN.unsignedTxHex }, 'after-malformed'));
    assert.equal(payloadOf(ok)['signedTransactionHex'], SIGNED_REFERENCE);
  });

  it('answers a binary frame with an error (id null) and keeps the socket open', async () => {
    const from = ws.messages.length;
    ws.send(Buffer.from(JSON.stringify(request('jwt', gate(session), 'binary-1'))), { binary: true });
    const reply = await ws.next(() => true, 'reply to a binary frame', from);
    assert.equal(reply.isBinary, false, 'the reply is a text frame');
    assert.equal((reply.json as Envelope).id, null);
    assert.match(payloadOf(reply)['error'] as string, /binary/);
    assert.ok(ws.isOpen, 'socket still open after a binary frame');
    checkJwt(payloadOf(await ws.call(request('jwt', gate(session), 'after-binary')))['jwt'], TXN.signerPublicKeyCompressedHex);
  });

  it('also upgrades at /identity, where a session from POST works', async () => {
    const alias = await open('/identity');
    const posted = await loginSigner(node!.url, 3);
    const reply = await alias.call(request('jwt', gate(posted), 'alias-jwt'));
    checkJwt(payloadOf(reply)['jwt'], TXN.signerPublicKeyCompressedHex);
    // Level 3 does not cover a transfer.
    const sign = await alias.call(request('sign', { ...gate(posted), transactionHex: TXN.unsignedTxHex }, 'alias-sign'));
    assert.deepEqual(payloadOf(sign), { approvalRequired: true });
    const out = await alias.call(request('logout', { encryptedSeedHex: posted.encryptedSeedHex }, 'alias-logout'));
    assert.deepEqual(payloadOf(out), { loggedOut: true });
    const afterLogout = await postJson(node!.url, IDENTITY_PATH, request('jwt', gate(posted), 'alias-after'));
    assertRefused(afterLogout, 'alias-after', /encryptedSeedHex/);
  });
});

// --- sessions across processes (Redis) ------------------------------------------------------

describe('identity sessions shared by two nodes on one Redis', () => {
  let redis: RedisServer | undefined;
  let a: NodeProcess | undefined;
  let b: NodeProcess | undefined;
  let other: NodeProcess | undefined;

  before(async () => {
    redis = await startRedisServer();
    const args = (prefix: string): string[] => [...MAINNET, '--processes', '1', '--redis', redis!.url, '--redis-key-prefix', prefix];
    // No --identity-secret(-file): the first node creates the secret in Redis, the others read it.
    [a, b, other] = await Promise.all([
      startNodeProcess({ args: args('identity-e2e:') }),
      startNodeProcess({ args: args('identity-e2e:') }),
      startNodeProcess({ args: args('other:') }),
    ]);
  });
  after(async () => {
    await stopAll([a, b, other]);
    await redis?.stop();
  });

  it('keeps the node secret in Redis when none is configured', () => {
    for (const [name, n] of [['A', a], ['B', b], ['other', other]] as const) {
      assert.ok(
        n!.output.some((l) => /identity node secret is kept in Redis/.test(l)),
        `node ${name} took its identity secret from Redis`,
      );
    }
  });

  it('serves a session logged in on node A from node B, and a logout on B ends it on A', async () => {
    assert.notEqual(a!.port, b!.port, 'two separate nodes');
    const s = await loginSigner(a!.url, 4);
    checkJwt((await postOk(b!.url, 'jwt', gate(s)))['jwt'], TXN.signerPublicKeyCompressedHex);
    assert.equal((await postOk(b!.url, 'sign', { ...gate(s), transactionHex: TXN.unsignedTxHex }))['signedTransactionHex'], SIGNED_REFERENCE);
    // And the other way round.
    checkJwt((await postOk(a!.url, 'jwt', gate(s)))['jwt'], TXN.signerPublicKeyCompressedHex);

    assert.deepEqual(await postOk(b!.url, 'logout', { encryptedSeedHex: s.encryptedSeedHex }), { loggedOut: true });
    const onA = await post(a!.url, 'jwt', gate(s));
    assertRefused(onA.r, onA.id, /encryptedSeedHex/);
    const onB = await post(b!.url, 'sign', { ...gate(s), transactionHex: TXN.unsignedTxHex });
    assertRefused(onB.r, onB.id, /encryptedSeedHex/);
  });

  it('refuses handles across Redis key prefixes (another secret, other sessions), both ways', async () => {
    const s = await loginSigner(a!.url, 4);
    const there = await post(other!.url, 'jwt', gate(s));
    assertRefused(there.r, there.id, /encryptedSeedHex/);
    const logoutThere = await post(other!.url, 'logout', { encryptedSeedHex: s.encryptedSeedHex });
    assertRefused(logoutThere.r, logoutThere.id, /encryptedSeedHex/);
    // Still alive where it was issued.
    checkJwt((await postOk(b!.url, 'jwt', gate(s)))['jwt'], TXN.signerPublicKeyCompressedHex);

    const o = await loginSigner(other!.url, 4);
    checkJwt((await postOk(other!.url, 'jwt', gate(o)))['jwt'], TXN.signerPublicKeyCompressedHex);
    for (const n of [a!, b!]) {
      const back = await post(n.url, 'jwt', gate(o));
      assertRefused(back.r, back.id, /encryptedSeedHex/);
    }
  });
});
