/**
 * Issue 17, items 4, 6 and 12 (sockets): the attacks of the review, against a real node with
 * loopback limited (`--rate-limit-loopback`), each client on its own loopback address
 * (127.0.0.x) so that each test has its own buckets.
 * - sockets per address capped (429 on upgrade), browser origins checked (403);
 * - identity and miner socket messages rate limited like HTTP, a flooding socket closed;
 * - logins capped by their own class, over the socket and over POST;
 * - per-key buckets taken only after authentication: junk JWTs naming the admin's key, and
 *   constructions naming a victim's updater key, no longer lock the owner out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { issueJwt } from '../../server/identity/jwt.js';
import { keyPair, profileBody, startChainNode, type ChainNode, type J } from '../helpers/chainNode.js';
import { until } from '../helpers/until.js';
import { WsClient } from '../helpers/ws.js';

/** Buckets small enough to exhaust in a test, refilling too slowly to matter within it. */
const CAP = { identity: 20, miner: 5, login: 3, write: 10, admin: 10 };
const RATE_LIMITS = Object.entries(CAP)
  .map(([cls, n]) => `${cls}=${n}/0.01`)
  .join(',');
const MAX_SOCKETS = 3;
const APP_ORIGIN = 'https://app.example';

/** One POST over node:http from `localAddress`: status, Retry-After and the JSON answer. */
function post(base: string, path: string, body: unknown, localAddress: string): Promise<{ status: number; retryAfter: string | undefined; json: J }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, json: text === '' ? {} : (JSON.parse(text) as J) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const identityFrame = (id: string, method: string, payload: J = {}) => ({ id, service: 'identity', method, payload });
const payloadError = (m: J | undefined): string => String((m?.['payload'] as J | undefined)?.['error'] ?? '');

describe('socket and login limits, per-key buckets after authentication', () => {
  let n: ChainNode;
  let wsBase: string;
  const admin = keyPair();
  const open: WsClient[] = [];
  const connect = async (path: string, localAddress: string, headers: Record<string, string> = {}): Promise<WsClient> => {
    const c = await WsClient.connect(`${wsBase}${path}`, 5_000, { localAddress, headers });
    open.push(c);
    return c;
  };

  before(async () => {
    n = await startChainNode({
      args: [
        '--rate-limit-loopback',
        '--rate-limits', RATE_LIMITS,
        '--max-sockets-per-address', String(MAX_SOCKETS),
        '--cors-origins', APP_ORIGIN,
        '--admin-public-keys', admin.pk,
      ],
    });
    wsBase = n.url.replace(/^http/, 'ws');
  });
  after(async () => {
    for (const c of open) await c.close();
    await n?.close();
  });

  it('refuses the socket over --max-sockets-per-address from one address (429), not from another, and again once one closed', async () => {
    const mine = [
      await connect('/api/v0/identity', '127.0.0.2'),
      await connect('/api/v0/miner', '127.0.0.2'),
      await connect('/identity', '127.0.0.2'),
    ];
    await assert.rejects(connect('/api/v0/identity', '127.0.0.2'), /upgrade refused with HTTP 429/);
    await assert.rejects(connect('/api/v0/miner', '127.0.0.2'), /upgrade refused with HTTP 429/);
    await connect('/api/v0/identity', '127.0.0.3');
    await mine[0]!.close();
    // The node counts the socket closed when its close callback ran, shortly after ours.
    await until(async () => {
      try {
        await connect('/api/v0/identity', '127.0.0.2');
        return true;
      } catch {
        return false;
      }
    }, 'a socket slot freed by a close');
  });

  it('refuses an upgrade from an Origin not in --cors-origins (403); admits the listed one and none', async () => {
    await assert.rejects(connect('/api/v0/identity', '127.0.0.4', { Origin: 'https://evil.example' }), /upgrade refused with HTTP 403/);
    await assert.rejects(connect('/api/v0/miner', '127.0.0.4', { Origin: 'https://evil.example' }), /upgrade refused with HTTP 403/);
    const ok = await connect('/api/v0/identity', '127.0.0.4', { Origin: APP_ORIGIN });
    assert.equal(ok.isOpen, true);
    await connect('/api/v0/miner', '127.0.0.4');
  });

  it('answers a flood of identity frames over the identity limit with rate-limited error envelopes, unrun', async () => {
    const c = await connect('/api/v0/identity', '127.0.0.5');
    const total = CAP.identity + 10;
    // `logout` without a handle is refused by the service itself: "run" answers differ from rate-limited ones.
    for (let i = 0; i < total; i++) c.sendJson(identityFrame(`f-${i}`, 'logout'));
    await c.waitUntil(() => c.messages.length >= total, `${total} answers`);
    const limited = c.messages.filter((m) => /^too many identity requests from this address .*retry in \d+ s$/.test(payloadError(m.json as J)));
    assert.equal(limited.length, total - CAP.identity, 'every frame over the bucket is refused');
    for (const m of limited) assert.match(String((m.json as J)['id']), /^f-\d+$/, 'a refusal carries the frame id');
    const run = c.messages.filter((m) => !limited.includes(m));
    assert.equal(run.length, CAP.identity);
    for (const m of run) assert.doesNotMatch(payloadError(m.json as J), /too many/);
    assert.equal(c.isOpen, true, 'a burst alone does not close the socket');
  });

  it('closes a socket that keeps sending after being refused (1008)', async () => {
    const c = await connect('/api/v0/identity', '127.0.0.6');
    for (let i = 0; i < CAP.identity + 150; i++) c.sendJson(identityFrame(`x-${i}`, 'logout'));
    await c.waitUntil(() => !c.isOpen, 'the node closing the socket');
    const closed = await c.closed;
    assert.equal(closed.code, 1008);
    assert.match(closed.reason, /rate limited/);
  });

  it('caps logins over the socket by the login class, and over POST from the same address', async () => {
    const c = await connect('/api/v0/identity', '127.0.0.7');
    const total = CAP.login + 3;
    for (let i = 0; i < total; i++) c.sendJson(identityFrame(`login-${i}`, 'login', { seedHex: keyPair().seedHex, accessLevelRequest: 2 }));
    await c.waitUntil(() => c.messages.length >= total, `${total} login answers`);
    const sessions = c.messages.filter((m) => typeof ((m.json as J)['payload'] as J)['encryptedSeedHex'] === 'string');
    const refused = c.messages.filter((m) => /^too many login requests from this address .*retry in \d+ s$/.test(payloadError(m.json as J)));
    assert.equal(sessions.length, CAP.login);
    assert.equal(refused.length, total - CAP.login);
    // The same address's bucket, over POST: 429 with Retry-After and the envelope.
    const r = await post(n.url, '/api/v0/identity', identityFrame('http-login', 'login', {}), '127.0.0.7');
    assert.equal(r.status, 429);
    assert.ok(Number(r.retryAfter) >= 1, 'Retry-After in whole seconds');
    assert.match(String(r.json['error']), /^too many login requests from this address/);
    assert.equal(r.json['id'], 'http-login');
  });

  it('caps logins over POST (the login class, tighter than identity frames)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < CAP.login + 2; i++) statuses.push((await post(n.url, '/api/v0/identity', identityFrame(`l-${i}`, 'login', {}), '127.0.0.8')).status);
    assert.deepEqual(statuses, [...Array(CAP.login).fill(200), 429, 429]);
    // Other identity frames from that address are not refused by the login bucket.
    const other = await post(n.url, '/api/v0/identity', identityFrame('after', 'logout'), '127.0.0.8');
    assert.notEqual(other.status, 429);
  });

  it('rate limits miner socket messages by the miner class: {id, error, status: 429}', async () => {
    const c = await connect('/api/v0/miner', '127.0.0.9');
    const total = CAP.miner + 2;
    for (let i = 0; i < total; i++) c.sendJson({ id: i, method: 'unsubscribe' });
    await c.waitUntil(() => c.messages.length >= total, `${total} answers`);
    const limited = c.messages.map((m) => m.json as J).filter((j) => j['status'] === 429);
    assert.equal(limited.length, total - CAP.miner);
    for (const j of limited) assert.match(String(j['error']), /^too many miner requests from this address .*retry in \d+ s$/);
    assert.equal(c.messages.filter((m) => (m.json as J)['result'] !== undefined).length, CAP.miner);
  });

  it("junk JWTs naming the admin's key do not lock the admin out (issue: 62 requests with the default bucket of 60)", async () => {
    const attack = { AdminPublicKey: admin.pk, JWT: 'junk.junk.junk' };
    const statuses = new Set<number>();
    for (let i = 0; i < CAP.admin + 2; i++) statuses.add((await post(n.url, '/api/v0/admin/get-mempool-stats', attack, '127.0.0.10')).status);
    // The attacker meets only their own address's bucket.
    assert.deepEqual([...statuses].sort(), [401, 429]);
    const jwt = await issueJwt(n.deps.crypto, new Uint8Array(Buffer.from(admin.seedHex, 'hex')));
    const real = await post(n.url, '/api/v0/admin/get-mempool-stats', { AdminPublicKey: admin.pk, JWT: jwt }, '127.0.0.11');
    assert.equal(real.status, 200, JSON.stringify(real.json));
  });

  it("constructions naming a victim's UpdaterPublicKeyBase58Check do not lock the victim out", async () => {
    const victim = keyPair();
    const body = { ...profileBody(victim.pk, 'victim'), MinFeeRateNanosPerKB: 1000 };
    for (let i = 0; i < CAP.write + 2; i++) await post(n.url, '/api/v0/update-profile', body, '127.0.0.12');
    const own = await post(n.url, '/api/v0/update-profile', body, '127.0.0.13');
    assert.notEqual(own.status, 429, JSON.stringify(own.json));
  });

  it("an authenticated key's bucket still limits it across addresses", async () => {
    const user = keyPair();
    const other = keyPair();
    const jwt = await issueJwt(n.deps.crypto, new Uint8Array(Buffer.from(user.seedHex, 'hex')));
    const block = (addr: string) => post(n.url, '/api/v0/block-public-key', { PublicKeyBase58Check: user.pk, JWT: jwt, BlockPublicKeyBase58Check: other.pk, Unblock: false }, addr);
    const statuses: number[] = [];
    // A new address each time: only the key's bucket can refuse.
    for (let i = 0; i < CAP.write + 1; i++) statuses.push((await block(`127.0.1.${i + 1}`)).status);
    assert.deepEqual(statuses, [...Array(CAP.write).fill(200), 429]);
  });
});
