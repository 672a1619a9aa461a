// The crypto worker pool with real worker threads: same results as inline for every task,
// per-item errors, backpressure, worker death and retry, close. Robustness cases use
// test/fixtures/faultyCryptoWorker.ts, whose hashHeaders misbehaves on request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { isPoolError, type PoolErrorCode } from '../../server/crypto/errors.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { CryptoPool, type PoolMetrics } from '../../server/crypto/pool.js';
import type { VerifyItem } from '../../server/crypto/pack.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { desoHashV1 } from '../../wasm/hash.js';
import { verifySignatures as verifyTask } from '../../workers/tasks/verifySignatures.js';
import { ITEM_ERROR_MESSAGES, ItemStatus, VERIFY_ITEM_BYTES, type TaskName } from '../../workers/types.js';
import { CRASH_ONCE, HOG, POISON, SLOW, THROW } from '../fixtures/faultyCryptoWorker.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';
import { until } from '../helpers/until.js';

const FAULTY_WORKER = fileURLToPath(new URL('../fixtures/faultyCryptoWorker.ts', import.meta.url));

/** Deterministic header i: bytes (i × 31 + k × 7) mod 256, first byte forced when given. */
function header(i: number, first?: number, second = 0): Uint8Array {
  const h = Uint8Array.from({ length: 100 }, (_, k) => (i * 31 + k * 7) & 0xff);
  if (first !== undefined) {
    h[0] = first;
    h[1] = second;
  }
  return h;
}

const text = new TextEncoder();
/** Deterministic secret i and a message hash j, so every run signs the same things. */
const secretKey = (i: number): Uint8Array => sha256(text.encode(`pool.e2e key ${i}`));
const msgHash = (j: number): Uint8Array => sha256(text.encode(`pool.e2e message ${j}`));
const CURVE_N = secp256k1.Point.CURVE().n;

function bigToBytes(v: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(64, '0'), 'hex'));
}

/** The same signature with s replaced by n - s: valid ECDSA, but high-S. */
function highS(sig: Uint8Array): Uint8Array {
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).toString('hex')}`);
  const out = sig.slice();
  out.set(bigToBytes(CURVE_N - s), 32);
  return out;
}

function rejectsWith(p: Promise<unknown>, code: PoolErrorCode): Promise<void> {
  return assert.rejects(p, (e: unknown) => {
    assert.ok(isPoolError(e), `expected a PoolError ${code}, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

/** Counts every metrics call, by hook and task. */
function countingMetrics(): PoolMetrics & { counts: Map<string, number>; depths: number[] } {
  const counts = new Map<string, number>();
  const bump = (key: string): void => void counts.set(key, (counts.get(key) ?? 0) + 1);
  const depths: number[] = [];
  return {
    counts,
    depths,
    queueDepth: (d) => void depths.push(d),
    taskTime: (task: TaskName, ms: number) => {
      assert.ok(ms >= 0 && Number.isFinite(ms), `task time ${ms}`);
      bump(`time:${task}`);
    },
    workerDied: (task) => bump(`died:${task}`),
    rejected: (task) => bump(`rejected:${task}`),
  };
}

describe('CryptoPool and InlineCrypto give the same results', () => {
  let pool: CryptoPool;
  const inline = new InlineCrypto();
  before(() => {
    pool = new CryptoPool({ threads: 2 }, { metrics: null, log: null });
  });
  after(() => pool.close());

  const both = (): Array<[string, CryptoService]> => [
    ['inline', inline],
    ['pool', pool],
  ];

  it('hashHeaders: DeSoHashV1 of each header, in order, for a batch larger than the WASM I/O region', async () => {
    // 3000 × 100 bytes > the 256 KiB input region: the task must split it.
    const headers = Array.from({ length: 3000 }, (_, i) => header(i));
    const expected = headers.map((h) => desoHashV1(h));
    for (const [name, impl] of both()) {
      assert.deepEqual(await impl.hashHeaders(headers), expected, name);
      assert.deepEqual(await impl.hashHeaders([]), [], `${name}: empty batch`);
    }
  });

  it('verifySignatures: matches @noble/curves; a bad item fails alone, with its reason', async () => {
    const items: VerifyItem[] = [];
    const expected: Array<boolean | string> = [];
    const add = (item: VerifyItem, want: boolean | string): void => {
      items.push(item);
      expected.push(want);
    };
    for (let i = 0; i < 40; i++) {
      const publicKey = secp256k1.getPublicKey(secretKey(i), true);
      const signature = secp256k1.sign(msgHash(i), secretKey(i), { prehash: false });
      add({ publicKey, hash: msgHash(i), signature }, true);
      if (i % 8 === 0) add({ publicKey, hash: msgHash(i + 1), signature }, false); // another message
      if (i % 8 === 1) add({ publicKey, hash: msgHash(i), signature: highS(signature) }, false); // high-S refused by default
      if (i % 8 === 2) add({ publicKey, hash: msgHash(i), signature: highS(signature), lowS: false }, true);
    }
    const sig0 = secp256k1.sign(msgHash(0), secretKey(0), { prehash: false });
    const pub0 = secp256k1.getPublicKey(secretKey(0), true);
    const offCurve = Uint8Array.of(0x02, ...new Uint8Array(32).fill(0xff)); // x >= p
    add({ publicKey: offCurve, hash: msgHash(0), signature: sig0 }, ITEM_ERROR_MESSAGES[ItemStatus.BadPublicKey]!);
    add({ publicKey: Uint8Array.of(0x05, ...pub0.subarray(1)), hash: msgHash(0), signature: sig0 }, ITEM_ERROR_MESSAGES[ItemStatus.BadPublicKey]!);
    add({ publicKey: pub0, hash: msgHash(0), signature: Uint8Array.of(...new Uint8Array(32), ...sig0.subarray(32)) }, ITEM_ERROR_MESSAGES[ItemStatus.BadSignature]!);
    add({ publicKey: pub0, hash: msgHash(0), signature: Uint8Array.of(...sig0.subarray(0, 32), ...bigToBytes(CURVE_N)) }, ITEM_ERROR_MESSAGES[ItemStatus.BadSignature]!);
    add({ publicKey: pub0.subarray(1), hash: msgHash(0), signature: sig0 }, '"publicKey" expected 33 bytes, got 32');
    // Noble agrees on every well-formed item.
    items.forEach((it, k) => {
      if (typeof expected[k] === 'boolean') {
        const ref = secp256k1.verify(it.signature, it.hash, it.publicKey, { prehash: false, lowS: it.lowS !== false });
        assert.equal(ref, expected[k], `noble on item ${k}`);
      }
    });
    const want = expected.map((e) => (typeof e === 'boolean' ? { ok: true, value: e } : { ok: false, error: e }));
    for (const [name, impl] of both()) {
      assert.deepEqual(await impl.verifySignatures(items), want, name);
      assert.deepEqual(await impl.verifySignatures([]), [], `${name}: empty batch`);
    }
  });

  it('verifySignatures task: an item with unknown flag bits is BadFlags, its neighbours unaffected', () => {
    const request = new Uint8Array(2 * VERIFY_ITEM_BYTES);
    for (let k = 0; k < 2; k++) {
      const at = k * VERIFY_ITEM_BYTES;
      request.set(secp256k1.getPublicKey(secretKey(k), true), at);
      request.set(msgHash(k), at + 33);
      request.set(secp256k1.sign(msgHash(k), secretKey(k), { prehash: false }), at + 65);
    }
    request[VERIFY_ITEM_BYTES - 1] = 0x80;
    assert.deepEqual([...verifyTask(request)], [ItemStatus.BadFlags, ItemStatus.Ok]);
  });

  it('sign: RFC 6979 signatures and recovery ids equal to @noble/curves; a bad key fails alone', async () => {
    const good = Array.from({ length: 20 }, (_, i) => ({ privateKey: secretKey(i), hash: msgHash(i) }));
    const items = [...good, { privateKey: new Uint8Array(32), hash: msgHash(0) }, { privateKey: bigToBytes(CURVE_N), hash: msgHash(0) }];
    const want = [
      ...good.map(({ privateKey, hash }) => {
        const rec = secp256k1.sign(hash, privateKey, { prehash: false, format: 'recovered' });
        return { ok: true, value: { signature: rec.subarray(1), recovery: rec[0]! } };
      }),
      { ok: false, error: ITEM_ERROR_MESSAGES[ItemStatus.BadPrivateKey] },
      { ok: false, error: ITEM_ERROR_MESSAGES[ItemStatus.BadPrivateKey] },
    ];
    for (const [name, impl] of both()) {
      const keysBefore = items.map((it) => it.privateKey.slice());
      assert.deepEqual(await impl.sign(items), want, name);
      assert.deepEqual(items.map((it) => it.privateKey), keysBefore, `${name}: the caller's keys are left as they were`);
    }
  });

  it('ecdh: shared x coordinates equal to @noble/curves, symmetric; bad keys fail alone', async () => {
    const pairs = Array.from({ length: 12 }, (_, i) => [secretKey(i), secretKey(i + 50)] as const);
    const items = pairs.map(([a, b]) => ({ privateKey: a, publicKey: secp256k1.getPublicKey(b, true) }));
    const mirrored = pairs.map(([a, b]) => ({ privateKey: b, publicKey: secp256k1.getPublicKey(a, true) }));
    const want = pairs.map(([a, b]) => ({ ok: true, value: secp256k1.getSharedSecret(a, secp256k1.getPublicKey(b, true)).subarray(1) }));
    const offCurve = Uint8Array.of(0x03, ...new Uint8Array(32).fill(0xff));
    const bad = [
      { privateKey: secretKey(0), publicKey: offCurve },
      { privateKey: new Uint8Array(32), publicKey: items[0]!.publicKey },
    ];
    for (const [name, impl] of both()) {
      assert.deepEqual(await impl.ecdh([...items, ...bad]), [
        ...want,
        { ok: false, error: ITEM_ERROR_MESSAGES[ItemStatus.BadPublicKey] },
        { ok: false, error: ITEM_ERROR_MESSAGES[ItemStatus.BadPrivateKey] },
      ], name);
      assert.deepEqual(await impl.ecdh(mirrored), want, `${name}: a·B = b·A`);
    }
  });

  it('mine: finds the same first nonce under an easy target, and none under target 0', async () => {
    const target = new Uint8Array(32).fill(0xff);
    target[0] = 0x00;
    target[1] = 0x3f; // about 1 in 1024 hashes qualify
    const req = { header: header(9), startNonce: 1_000n, count: 200_000, target };
    const results = await Promise.all(both().map(([, impl]) => impl.mine(req)));
    assert.deepEqual(results[1], results[0]);
    const found = results[0]!;
    assert.ok(found.found, 'a nonce qualifies within 200k tries');
    const solved = header(9);
    new DataView(solved.buffer).setBigUint64(84, found.nonce);
    assert.deepEqual(found.hash, desoHashV1(solved), 'reply hash is the hash of the header with that nonce');
    assert.ok(Buffer.compare(found.hash, target) <= 0, 'hash <= target');
    for (const [name, impl] of both()) {
      assert.deepEqual(await impl.mine({ ...req, count: 50, target: new Uint8Array(32) }), { found: false }, name);
    }
  });

  it('mine: a scan aborted while it runs rejects, and the pool keeps serving', async () => {
    const controller = new AbortController();
    const scan = pool.mine({ header: header(1), startNonce: 0n, count: 0xffff_ffff, target: new Uint8Array(32) }, controller.signal);
    await sleep(100);
    controller.abort();
    await assert.rejects(scan, { name: 'AbortError' });
    assert.equal((await pool.hashHeaders([header(3)]))[0]!.length, 32);
  });
});

describe('CryptoPool backpressure', () => {
  it('rejects at once with POOL_BUSY past maxQueue, and recovers when the queue drains', async () => {
    const metrics = countingMetrics();
    const pool = new CryptoPool({ threads: 1, maxQueue: 2, filename: FAULTY_WORKER }, { metrics, log: null });
    try {
      const slow = pool.hashHeaders([header(0, SLOW, 30)]); // holds the only worker ~300 ms
      const queued = [pool.hashHeaders([header(1)]), pool.hashHeaders([header(2)])];
      assert.equal(pool.queueSize, 2);
      assert.equal(pool.canAcceptWork(), false);
      const t0 = performance.now();
      await rejectsWith(pool.hashHeaders([header(3)]), 'POOL_BUSY');
      await rejectsWith(pool.verifySignatures([{ publicKey: new Uint8Array(33), hash: new Uint8Array(32), signature: new Uint8Array(64) }]), 'POOL_BUSY');
      assert.ok(performance.now() - t0 < 100, 'refused without waiting for the queue');
      assert.equal(metrics.counts.get('rejected:hashHeaders'), 1);
      assert.deepEqual(await Promise.all([slow, ...queued]), [header(0, SLOW, 30), header(1), header(2)].map((h) => [desoHashV1(h)]));
      assert.equal(pool.canAcceptWork(), true);
      assert.equal(metrics.counts.get('time:hashHeaders'), 3);
      assert.ok(metrics.depths.includes(2), `queue depth sampled: ${metrics.depths.join(',')}`);
    } finally {
      await pool.close();
    }
  });

  it('refuses options it cannot honour, naming them', () => {
    const make = (opts: object): CryptoPool => new CryptoPool(opts, { metrics: null, log: null });
    assert.throws(() => make({ threads: 0 }), /"threads" expected an integer >= 1, got 0/);
    assert.throws(() => make({ maxQueue: 0 }), /"maxQueue" expected an integer >= 1, got 0/);
    assert.throws(() => make({ threads: 1, minThreads: 2 }), /"minThreads" expected at most threads \(1\), got 2/);
  });
});

describe('CryptoPool worker failures', () => {
  const marker = join(tmpdir(), `pool-e2e-crash-once-${process.pid}-${Date.now()}`);
  let pool: CryptoPool;
  let metrics: ReturnType<typeof countingMetrics>;
  const warnings: string[] = [];
  before(() => {
    // Read by the fixture from its copy of process.env, taken when each worker starts.
    process.env.CRASH_ONCE_MARKER = marker;
    metrics = countingMetrics();
    pool = new CryptoPool(
      { threads: 2, filename: FAULTY_WORKER, workerHeapMb: 64 },
      { metrics, log: { warn: (_obj, msg) => void warnings.push(msg) } },
    );
  });
  after(async () => {
    await pool.close();
    delete process.env.CRASH_ONCE_MARKER;
    rmSync(marker, { force: true });
  });

  it('retries a batch whose worker died once; fails one that kills every worker; others are not lost', async () => {
    const normal = Array.from({ length: 8 }, (_, i) => pool.hashHeaders([header(i), header(i + 100)]));
    const once = pool.hashHeaders([header(7, CRASH_ONCE)]);
    const poison = pool.hashHeaders([header(8, POISON)]);
    const normalAfter = Array.from({ length: 4 }, (_, i) => pool.hashHeaders([header(i + 200)]));

    await rejectsWith(poison, 'POOL_WORKER_DIED');
    assert.deepEqual(await once, [desoHashV1(header(7, CRASH_ONCE))], 'the retry succeeded');
    assert.deepEqual(await Promise.all(normal), Array.from({ length: 8 }, (_, i) => [desoHashV1(header(i)), desoHashV1(header(i + 100))]));
    assert.deepEqual(await Promise.all(normalAfter), Array.from({ length: 4 }, (_, i) => [desoHashV1(header(i + 200))]));
    assert.equal(metrics.counts.get('died:hashHeaders'), 3, 'one crash-once death + two poison deaths');
    assert.ok(warnings.some((w) => /retrying/.test(w)), `warned: ${warnings.join('; ')}`);
  });

  it('replaces dead workers and keeps serving', async () => {
    await until(() => pool.threadCount === 2, 'two live workers again');
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.hashHeaders([header(300 + i)])));
    assert.deepEqual(results, Array.from({ length: 6 }, (_, i) => [desoHashV1(header(300 + i))]));
  });

  it('a worker that runs out of heap counts as a death: retried once, then POOL_WORKER_DIED', async () => {
    await rejectsWith(pool.hashHeaders([header(0, HOG)]), 'POOL_WORKER_DIED');
    assert.deepEqual(await pool.hashHeaders([header(5)]), [desoHashV1(header(5))]);
  });

  it('a task that throws is a bug, not a death: POOL_TASK_FAILED at once, no retry', async () => {
    const before = metrics.counts.get('died:hashHeaders');
    await rejectsWith(pool.hashHeaders([header(0, THROW)]), 'POOL_TASK_FAILED');
    assert.equal(metrics.counts.get('died:hashHeaders'), before);
  });
});

describe('CryptoPool.close', () => {
  it('rejects queued and running work with POOL_CLOSED, refuses new work, and is idempotent', async () => {
    const pool = new CryptoPool({ threads: 1, closeTimeout: 50, filename: FAULTY_WORKER }, { metrics: null, log: null });
    await pool.hashHeaders([header(1)]); // the worker is up
    const running = pool.hashHeaders([header(0, SLOW, 100)]); // 1 s, past closeTimeout
    const queued = [pool.hashHeaders([header(2)]), pool.hashHeaders([header(3)])];
    const closing = pool.close();
    assert.equal(pool.canAcceptWork(), false);
    await rejectsWith(pool.hashHeaders([header(4)]), 'POOL_CLOSED');
    for (const p of queued) await rejectsWith(p, 'POOL_CLOSED');
    await rejectsWith(running, 'POOL_CLOSED');
    await closing;
    await pool.close();
    assert.equal(pool.threadCount, 0);
  });

  it('lets the process exit on its own afterwards (no handle left open)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/poolExit.ts'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = await Promise.race([
      new Promise<number | null>((r) => child.once('exit', (code) => r(code))),
      // Unref'd: the child keeps this process alive while it runs; the timer must not outlive it.
      sleep(20_000, undefined, { ref: false }).then(() => 'timeout' as const),
    ]);
    if (exit === 'timeout') child.kill('SIGKILL');
    assert.equal(exit, 0, `child exit; output:\n${out}`);
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { hashBytes: 32, slow: 'POOL_CLOSED', queued: 'POOL_CLOSED' });
  });
});
