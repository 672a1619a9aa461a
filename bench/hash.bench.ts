/**
 * Hashing and AES-128-CTR of the WASM core (wasm/hash.ts, wasm/aes.ts) against node:crypto,
 * @noble/hashes and the straightforward DeSoHashV1 port in bench/baselines/desoHashV1.ts.
 *
 * Last results, 2026-11-22, Node v20.20.2, AMD EPYC (2-core sandbox, shared with other jobs: load
 * average ~2, so single-run numbers move ±10%), `npx tsx bench/hash.bench.ts`:
 *   SHA-256d 100 B        ours 831,720 ops/s  node:crypto 385,459  @noble/hashes 240,103   → 2.16x / 3.46x
 *   SHA-256d 1024 × 100 B ours batch 2,542 calls/s (0.39 µs/item, 4-way SIMD)
 *                         vs ours single ×1024 604 → 4.21x; vs node:crypto ×1024 276       → 9.22x
 *   HMAC-SHA-256 100 B    ours 455,205 ops/s  node:crypto 288,846  @noble/hashes 132,964   → 1.58x / 3.42x
 *   DeSoHashV1 header     ours 799,620 ops/s  JS port 40,112                               → 19.93x (target >= 3x)
 *   DeSoHashV1 1024 hdrs  ours batch 1,887 calls/s (0.53 µs/header, 2-way SIMD)
 *                         vs ours single ×1024 875 → 2.16x; vs JS port ×1024 30            → 62.59x
 *   mining                1,778 × 1024 nonces/s ≈ 1.8 M nonces/s on one core
 *   AES-128-CTR 100 B     ours 683,466 ops/s  node:crypto 256,469                          → 2.66x
 *   AES-128-CTR 16 KiB    ours 5,939 ops/s (~97 MB/s)  node:crypto 125,453 (AES-NI)        → 0.05x
 * node:crypto's small-input numbers are dominated by its per-call object setup; at 16 KiB its
 * AES-NI wins, as expected of a constant-time software AES (see wasm/assembly/cipher/aes.ts).
 * @module
 */
import { createCipheriv, createHash, createHmac } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { Bench } from 'tinybench';
import { aes128CtrInto } from '../wasm/aes.js';
import {
  desoHashV1BatchInto,
  desoHashV1Into,
  hmacSha256Into,
  mineDesoHashV1,
  sha256dBatchInto,
  sha256dInto,
} from '../wasm/hash.js';
import { printResults, ratioLine, roundOptions, runRounds, type RoundResults } from './_shared.js';
import { absoluteFigure, type Figure } from './figures.js';
import { desoHashV1 as desoHashV1Port } from './baselines/desoHashV1.js';

/** Distinct inputs cycled through, so no single input's shape dominates. */
const INPUT_COUNT = 64;
/** Items per batch call (headers for DeSoHashV1, 100-byte items for SHA-256d). */
const BATCH = 1024;
/** Nonces per mining call; the target is impossible, so every nonce is hashed. */
const MINE_COUNT = 1024;
const BENCH_OPTIONS = roundOptions({ time: 1_000, warmupTime: 250 });

/** Deterministic pseudo-random bytes (xorshift32), so every run sees the same inputs. */
function fixedBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export async function run(): Promise<Figure[]> {
  const msgs = Array.from({ length: INPUT_COUNT }, (_, i) => fixedBytes(100, i + 1));
  const keys = Array.from({ length: INPUT_COUNT }, (_, i) => fixedBytes(32, 1000 + i));
  const aesKeys = Array.from({ length: INPUT_COUNT }, (_, i) => fixedBytes(16, 2000 + i));
  const ivs = Array.from({ length: INPUT_COUNT }, (_, i) => fixedBytes(16, 3000 + i));
  const big = fixedBytes(16 * 1024, 4000);
  const headers = fixedBytes(BATCH * 100, 5000);
  const digest = new Uint8Array(32);
  const hashes = new Uint8Array(BATCH * 32);
  const aesOut100 = new Uint8Array(100);
  const aesOutBig = new Uint8Array(big.length);
  const impossible = new Uint8Array(32);
  const next = ((): (() => number) => {
    let i = 0;
    return () => (i = (i + 1) & (INPUT_COUNT - 1));
  })();
  // Results feed a sink checked at the end, so no task can be optimised away or silently fail.
  let sink = 0;

  const sha = new Bench({ name: 'SHA-256d of 100 bytes', ...BENCH_OPTIONS });
  sha
    .add('ours: sha256dInto', () => {
      sink += sha256dInto(msgs[next()]!, digest)[0]!;
    })
    .add('node:crypto: createHash ×2', () => {
      const first = createHash('sha256').update(msgs[next()]!).digest();
      sink += createHash('sha256').update(first).digest()[0]!;
    })
    .add('@noble/hashes: sha256 ×2', () => {
      sink += nobleSha256(nobleSha256(msgs[next()]!))[0]!;
    });

  const shaBatch = new Bench({ name: `SHA-256d of ${BATCH} 100-byte items per call`, ...BENCH_OPTIONS });
  shaBatch
    .add(`ours: sha256dBatchInto ×${BATCH}`, () => {
      sink += sha256dBatchInto(headers, 100, hashes)[0]!;
    })
    .add(`ours: sha256dInto ×${BATCH}`, () => {
      for (let i = 0; i < BATCH; i++) sha256dInto(headers.subarray(i * 100, (i + 1) * 100), hashes.subarray(i * 32, (i + 1) * 32));
      sink += hashes[0]!;
    })
    .add(`node:crypto: createHash ×2 ×${BATCH}`, () => {
      for (let i = 0; i < BATCH; i++) {
        const first = createHash('sha256').update(headers.subarray(i * 100, (i + 1) * 100)).digest();
        sink += createHash('sha256').update(first).digest()[0]!;
      }
    });

  const mac = new Bench({ name: 'HMAC-SHA-256 of 100 bytes, 32-byte key', ...BENCH_OPTIONS });
  mac
    .add('ours: hmacSha256Into', () => {
      const i = next();
      sink += hmacSha256Into(keys[i]!, msgs[i]!, digest)[0]!;
    })
    .add('node:crypto: createHmac', () => {
      const i = next();
      sink += createHmac('sha256', keys[i]!).update(msgs[i]!).digest()[0]!;
    })
    .add('@noble/hashes: hmac', () => {
      const i = next();
      sink += hmac(nobleSha256, keys[i]!, msgs[i]!)[0]!;
    });

  const deso = new Bench({ name: 'DeSoHashV1 of a 100-byte header', ...BENCH_OPTIONS });
  deso
    .add('ours: desoHashV1Into', () => {
      sink += desoHashV1Into(msgs[next()]!, digest)[0]!;
    })
    .add('baseline: JS port', () => {
      sink += desoHashV1Port(msgs[next()]!)[0]!;
    });

  const batch = new Bench({ name: `DeSoHashV1 of ${BATCH} headers per call`, ...BENCH_OPTIONS });
  batch
    .add(`ours: desoHashV1BatchInto ×${BATCH}`, () => {
      sink += desoHashV1BatchInto(headers, hashes)[0]!;
    })
    .add(`ours: desoHashV1Into ×${BATCH}`, () => {
      for (let i = 0; i < BATCH; i++) desoHashV1Into(headers.subarray(i * 100, (i + 1) * 100), hashes.subarray(i * 32, (i + 1) * 32));
      sink += hashes[0]!;
    })
    .add(`ours: mineDesoHashV1 ×${MINE_COUNT} nonces`, () => {
      sink += mineDesoHashV1(headers.subarray(0, 100), 0n, MINE_COUNT, impossible) === null ? 1 : 0;
    })
    .add(`baseline: JS port ×${BATCH}`, () => {
      for (let i = 0; i < BATCH; i++) sink += desoHashV1Port(headers.subarray(i * 100, (i + 1) * 100))[0]!;
    });

  const aes = new Bench({ name: 'AES-128-CTR', ...BENCH_OPTIONS });
  aes
    .add('ours: aes128CtrInto 100 B', () => {
      const i = next();
      sink += aes128CtrInto(aesKeys[i]!, ivs[i]!, msgs[i]!, aesOut100)[0]!;
    })
    .add('node:crypto: aes-128-ctr 100 B', () => {
      const i = next();
      const c = createCipheriv('aes-128-ctr', aesKeys[i]!, ivs[i]!);
      sink += c.update(msgs[i]!)[0]! + c.final().length;
    })
    .add('ours: aes128CtrInto 16 KiB', () => {
      const i = next();
      sink += aes128CtrInto(aesKeys[i]!, ivs[i]!, big, aesOutBig)[0]!;
    })
    .add('node:crypto: aes-128-ctr 16 KiB', () => {
      const i = next();
      const c = createCipheriv('aes-128-ctr', aesKeys[i]!, ivs[i]!);
      sink += c.update(big)[0]! + c.final().length;
    });

  const rounds = new Map<Bench, RoundResults>();
  for (const bench of [sha, shaBatch, mac, deso, batch, aes]) {
    rounds.set(bench, await runRounds(bench));
    printResults(bench.name ?? '', bench);
  }
  if (sink === 0) throw new Error('hash.bench: tasks produced no results');
  console.log('');
  const of = (bench: Bench): RoundResults => rounds.get(bench)!;
  const figures = [
    ratioLine('sha256d / node:crypto', 'sha256dVsNodeCrypto', of(sha), 'ours: sha256dInto', 'node:crypto: createHash ×2'),
    ratioLine('sha256d / @noble/hashes', 'sha256dVsNoble', of(sha), 'ours: sha256dInto', '@noble/hashes: sha256 ×2'),
    ratioLine(`sha256dBatch / node:crypto, per ${BATCH} items`, 'sha256dBatchVsNodeCrypto', of(shaBatch), `ours: sha256dBatchInto ×${BATCH}`, `node:crypto: createHash ×2 ×${BATCH}`),
    ratioLine(`sha256dBatch / single calls, per ${BATCH} items`, 'sha256dBatchVsSingle', of(shaBatch), `ours: sha256dBatchInto ×${BATCH}`, `ours: sha256dInto ×${BATCH}`),
    ratioLine('hmacSha256 / node:crypto', 'hmacSha256VsNodeCrypto', of(mac), 'ours: hmacSha256Into', 'node:crypto: createHmac'),
    ratioLine('hmacSha256 / @noble/hashes', 'hmacSha256VsNoble', of(mac), 'ours: hmacSha256Into', '@noble/hashes: hmac'),
    ratioLine('desoHashV1 / JS port (target >= 3x)', 'desoHashV1VsJsPort', of(deso), 'ours: desoHashV1Into', 'baseline: JS port'),
    ratioLine(`desoHashV1Batch / JS port, per ${BATCH} headers`, 'desoHashV1BatchVsJsPort', of(batch), `ours: desoHashV1BatchInto ×${BATCH}`, `baseline: JS port ×${BATCH}`),
    ratioLine(`desoHashV1Batch / single calls, per ${BATCH} headers`, 'desoHashV1BatchVsSingle', of(batch), `ours: desoHashV1BatchInto ×${BATCH}`, `ours: desoHashV1Into ×${BATCH}`),
    ratioLine('aes128Ctr 100 B / node:crypto', 'aes128Ctr100VsNodeCrypto', of(aes), 'ours: aes128CtrInto 100 B', 'node:crypto: aes-128-ctr 100 B'),
    ratioLine('aes128Ctr 16 KiB / node:crypto', 'aes128Ctr16KiBVsNodeCrypto', of(aes), 'ours: aes128CtrInto 16 KiB', 'node:crypto: aes-128-ctr 16 KiB'),
  ];
  const ops = (name: string, bench: Bench, task: string): Figure => absoluteFigure(name, of(bench).opsPerSec(task), 'ops/s');
  return [
    ...figures,
    ops('sha256dOpsPerSec', sha, 'ours: sha256dInto'),
    absoluteFigure('sha256dBatchItemsPerSec', of(shaBatch).opsPerSec(`ours: sha256dBatchInto ×${BATCH}`).map((x) => x * BATCH), 'items/s'),
    ops('hmacSha256OpsPerSec', mac, 'ours: hmacSha256Into'),
    ops('desoHashV1PerSec', deso, 'ours: desoHashV1Into'),
    absoluteFigure('desoHashV1BatchHeadersPerSec', of(batch).opsPerSec(`ours: desoHashV1BatchInto ×${BATCH}`).map((x) => x * BATCH), 'headers/s'),
    absoluteFigure('miningNoncesPerSec', of(batch).opsPerSec(`ours: mineDesoHashV1 ×${MINE_COUNT} nonces`).map((x) => x * MINE_COUNT), 'nonces/s'),
    ops('aes128Ctr100OpsPerSec', aes, 'ours: aes128CtrInto 100 B'),
    ops('aes128Ctr16KiBOpsPerSec', aes, 'ours: aes128CtrInto 16 KiB'),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
