/**
 * Public-key decoding on the request path: ours against bs58check + @noble/curves.
 *
 * Last results, 2026-11-22, Node v20.20.2, AMD EPYC (2 vCPU), `npx tsx bench/keys.bench.ts`:
 *   ours: decodePublicKey                         28,500 ops/s   mean  38.0 µs
 *   baseline: bs58check.decode + Point.fromBytes   7,650 ops/s   mean 141.7 µs   → 3.73x
 *   ours: isValidCompressedPoint                  56,245 ops/s   mean  19.5 µs
 *   baseline: Point.fromBytes                     12,412 ops/s   mean  84.1 µs   → 4.53x
 * The baseline uses Point.fromBytes: Point.fromHex is hexToBytes + fromBytes in noble v2.
 * @module
 */
import { pathToFileURL } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import bs58check from 'bs58check';
import { Bench } from 'tinybench';
import { decodePublicKey, encodePublicKey, isValidCompressedPoint } from '../server/keys/index.js';
import { printResults, ratioLine, roundOptions, runRounds, type RoundResults } from './_shared.js';
import { absoluteFigure, type Figure } from './figures.js';

/** Distinct keys cycled through, so no single input's shape dominates and caches stay honest. */
const KEY_COUNT = 256;
const BENCH_OPTIONS = roundOptions({ time: 1_000, warmupTime: 250 });

/** Deterministic: secret i = sha256("keys.bench <i>"), so every run sees the same keys. */
function fixedKeys(): Uint8Array[] {
  const text = new TextEncoder();
  return Array.from({ length: KEY_COUNT }, (_, i) =>
    secp256k1.getPublicKey(sha256(text.encode(`keys.bench ${i}`)), true),
  );
}

export async function run(): Promise<Figure[]> {
  const keys = fixedKeys();
  const strings = keys.map((k) => encodePublicKey(k, 'mainnet'));
  const next = ((): (() => number) => {
    let i = 0;
    return () => (i = (i + 1) & (KEY_COUNT - 1));
  })();
  // Results feed a sink checked at the end, so no task can be optimised away or silently fail.
  let sink = 0;

  const decode = new Bench({ name: 'decode Base58Check public key', ...BENCH_OPTIONS });
  decode
    .add('ours: decodePublicKey', () => {
      sink += decodePublicKey(strings[next()]!, 'mainnet', 'PublicKeyBase58Check')[32]!;
    })
    .add('baseline: bs58check.decode + Point.fromBytes', () => {
      const bytes = bs58check.decode(strings[next()]!);
      sink += secp256k1.Point.fromBytes(bytes.subarray(3)).is0() ? 0 : 1;
    });

  const validate = new Bench({ name: 'validate compressed point', ...BENCH_OPTIONS });
  validate
    .add('ours: isValidCompressedPoint', () => {
      sink += isValidCompressedPoint(keys[next()]!) ? 1 : 0;
    })
    .add('baseline: Point.fromBytes', () => {
      sink += secp256k1.Point.fromBytes(keys[next()]!).is0() ? 0 : 1;
    });

  const rounds = new Map<Bench, RoundResults>();
  for (const bench of [decode, validate]) {
    rounds.set(bench, await runRounds(bench));
    printResults(bench.name ?? '', bench);
  }
  if (sink === 0) throw new Error('keys.bench: tasks produced no results');
  console.log('');
  const [d, v] = [rounds.get(decode)!, rounds.get(validate)!];
  return [
    ratioLine('decodePublicKey / (bs58check.decode + noble fromBytes)', 'decodeVsBs58check', d, 'ours: decodePublicKey', 'baseline: bs58check.decode + Point.fromBytes'),
    ratioLine('isValidCompressedPoint / noble fromBytes', 'validatePointVsNoble', v, 'ours: isValidCompressedPoint', 'baseline: Point.fromBytes'),
    absoluteFigure('decodeOpsPerSec', d.opsPerSec('ours: decodePublicKey'), 'ops/s'),
    absoluteFigure('validatePointOpsPerSec', v.opsPerSec('ours: isValidCompressedPoint'), 'ops/s'),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
