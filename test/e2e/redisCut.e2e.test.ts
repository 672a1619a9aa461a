/**
 * A node process cut from its Redis (issue 17, fault): the node reaches its own redis-server
 * through a TCP proxy the test controls (test/helpers/tcpProxy.ts), under a steady stream of
 * get-users-stateless (for a user with a profile and a balance) and health-check requests. The
 * link is cut, silently (nothing closes: the case where every call used to wait) and then by
 * resets, and restored. Throughout, every answer is a 200 with exactly the data answered
 * before the cut, or a 503 with Retry-After; the first 503 comes within 1.5 s of the cut; and
 * the node answers 200 again by itself soon after the link is back.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it, type TestContext } from 'node:test';
import { keyPair, profileBody, startChainNode, type KeyPair } from '../helpers/chainNode.js';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { startTcpProxy, type CutMode, type TcpProxy } from '../helpers/tcpProxy.js';

/** Recovery after the link's return, loosely: the target is about 1 s (measured values are reported). */
const RECOVERY_BOUND_MS = 2500;
const FIRST_503_BOUND_MS = 1500;
/** health-check answers from a probe every 250 ms, each failing within 1 s: about 1.25 s at worst, loosely. */
const HEALTH_503_BOUND_MS = 2000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let redis: RedisServer;
let proxy: TcpProxy;
let node: NodeProcess;
let user: KeyPair;
/** get-users-stateless for `user`, as answered before any cut. */
let baseline: unknown;

const usersBody = (): string => JSON.stringify({ PublicKeysBase58Check: [user.pk] });

before(async () => {
  redis = await startRedisServer();
  // Real data first, written by an in-process node straight to Redis: a funded user with a profile.
  const writer = await startChainNode({ redisUrl: redis.url });
  try {
    user = keyPair();
    await writer.fund(user.pk, 0.05 * 1e9);
    const c = await writer.ok('update-profile', { ...profileBody(user.pk, `cut${Date.now() % 1e8}`, 'cut from redis'), MinFeeRateNanosPerKB: 1000 });
    await writer.submit(c['TransactionHex'] as string, user, 'sdk');
  } finally {
    await writer.close();
  }
  proxy = await startTcpProxy({ port: redis.port });
  node = await startNodeProcess({ args: ['--redis', `redis://127.0.0.1:${proxy.port}`, '--network', 'testnet', '--miner', 'off', '--crypto-threads', '1'] });
  const r = await fetch(`${node.url}/api/v0/get-users-stateless`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: usersBody() });
  assert.equal(r.status, 200);
  baseline = await r.json();
  const u = (baseline as { UserList: Array<Record<string, any>> }).UserList[0]!;
  assert.match(String(u['ProfileEntryResponse']?.['Username']), /^cut/, 'the user has a profile');
  assert.ok(Number(u['BalanceNanos']) > 0, 'and a balance');
  assert.deepEqual(u['UsersYouHODL'], [], 'and the fields a half-filled user lost');
  assert.deepEqual(u['BlockedPubKeys'], {});
});

after(async () => {
  await node?.stop();
  await proxy?.close();
  await redis?.stop();
});

interface Answer {
  route: 'users' | 'health';
  start: number;
  end: number;
  status: number;
  retryAfter: string | null;
  body: unknown;
}

/** Loops of requests until `stop()`: three of get-users-stateless, one of health-check. */
function traffic(): { answers: Answer[]; stop: () => Promise<void> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = async (route: Answer['route'], pauseMs: number): Promise<void> => {
    while (running) {
      const start = performance.now();
      const r =
        route === 'users'
          ? await fetch(`${node.url}/api/v0/get-users-stateless`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: usersBody() })
          : await fetch(`${node.url}/api/v0/health-check`);
      const text = await r.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // health-check's 200 may be plain text
      }
      answers.push({ route, start, end: performance.now(), status: r.status, retryAfter: r.headers.get('retry-after'), body });
      await sleep(pauseMs);
    }
  };
  const loops = [loop('users', 20), loop('users', 20), loop('users', 20), loop('health', 25)];
  return {
    answers,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Cuts the link for `cutMs` under traffic, restores it, and checks every answer and the timings. */
async function cutAndRestore(t: TestContext, mode: CutMode, cutMs: number): Promise<void> {
  const load = traffic();
  // Cut once both routes have answered 200 under this traffic (a loaded machine may take longer than a fixed pause).
  const warm = (): boolean => (['users', 'health'] as const).every((r) => load.answers.some((a) => a.route === r && a.status === 200));
  for (const deadline = performance.now() + 15_000; !warm() && performance.now() < deadline; ) await sleep(50);
  await sleep(200);
  const cutAt = performance.now();
  proxy.cut(mode);
  await sleep(cutMs);
  const restoredAt = performance.now();
  proxy.restore();
  await sleep(2500);
  await load.stop();
  const { answers } = load;

  for (const a of answers) {
    const when = `${a.route} sent ${Math.round(a.start - cutAt)} ms after the cut`;
    if (a.status === 200) {
      if (a.route === 'users') assert.deepEqual(a.body, baseline, `${when}: a 200 answers exactly the data of before the cut`);
      continue;
    }
    assert.equal(a.status, 503, `${when}: only 200 or 503 (${JSON.stringify(a.body)})`);
    assert.equal(a.retryAfter, '1', `${when}: the 503 says when to retry`);
    assert.match(String((a.body as { error?: string }).error), /unavailable|unreachable/, `${when}: a 503 says why`);
  }
  for (const route of ['users', 'health'] as const) {
    const mine = answers.filter((a) => a.route === route);
    assert.ok(mine.some((a) => a.end < cutAt && a.status === 200), `${route}: 200s before the cut`);
  }

  // The first 503, of any route, within 1.5 s of the cut.
  const first503 = (route?: Answer['route']): number => {
    const ends = answers.filter((a) => a.status === 503 && (route === undefined || a.route === route)).map((a) => a.end - cutAt);
    assert.ok(ends.length > 0, `${route ?? 'any'}: a 503 during the cut`);
    return Math.min(...ends);
  };
  const anyFirst = first503();
  assert.ok(anyFirst <= FIRST_503_BOUND_MS, `the first 503 came ${Math.round(anyFirst)} ms after the cut`);
  const usersFirst = first503('users');
  const healthFirst = first503('health');
  assert.ok(healthFirst <= HEALTH_503_BOUND_MS, `health-check turned 503 ${Math.round(healthFirst)} ms after the cut`);

  // Back by itself: from the first 200 of each route sent after the link's return, only 200s.
  const recovery = (route: Answer['route']): number => {
    const after = answers.filter((a) => a.route === route && a.start >= restoredAt);
    const firstOk = after.findIndex((a) => a.status === 200);
    assert.ok(firstOk >= 0, `${route}: answers 200 again after the link's return`);
    const later = after.slice(firstOk).filter((a) => a.status !== 200);
    assert.deepEqual(later.map((a) => a.status), [], `${route}: only 200s once recovered`);
    return after[firstOk]!.end - restoredAt;
  };
  const usersBack = recovery('users');
  const healthBack = recovery('health');
  for (const [what, ms] of [['users', usersBack], ['health-check', healthBack]] as const) {
    assert.ok(ms <= RECOVERY_BOUND_MS, `${what} answered 200 again ${Math.round(ms)} ms after the link's return`);
  }
  t.diagnostic(
    `${mode}: ${answers.length} answers (${answers.filter((a) => a.status === 503).length} 503); first 503 after the cut: get-users-stateless ${Math.round(usersFirst)} ms, ` +
      `health-check ${Math.round(healthFirst)} ms; 200 again after the link's return: get-users-stateless ${Math.round(usersBack)} ms, health-check ${Math.round(healthBack)} ms`,
  );
}

describe('a node process cut from its Redis', () => {
  it('a silent cut (packets dropped, nothing closed): 200 with the same data or 503, a 503 within 1.5 s, back within ~1 s', async (t) => {
    await cutAndRestore(t, 'blackhole', 3000);
  });

  it('a cut that resets the connections: the same', async (t) => {
    await cutAndRestore(t, 'reset', 2000);
  });
});
