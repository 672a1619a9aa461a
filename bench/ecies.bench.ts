/**
 * Message ECIES decrypt (identity-and-crypto.md §3.1) of a 100-byte message: the WASM core
 * (one call does ECDH, KDF, MAC and AES-CTR) against an all-node:crypto implementation
 * (bench/baselines/eciesNodeCrypto.ts) measured in the same run; plus the batch form.
 *
 * Last results: see the closing note of issue 3 (the figures depend on the machine's load).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { decrypt, decryptBatch, encrypt } from '../wasm/ecies.js';
import { getPublicKey } from '../wasm/secp256k1.js';
import { eciesDecryptNode } from './baselines/eciesNodeCrypto.js';
import { printFigure, printResults, ratioLine, roundOptions, runRounds } from './_shared.js';
import { absoluteFigure, ratioFigure, type Figure } from './figures.js';

const BENCH_OPTIONS = roundOptions({ time: 1_000, warmupTime: 250 });
/** Messages per batch call: a typical page of a DM thread. */
const BATCH = 64;

export async function run(): Promise<Figure[]> {
  const priv = randomBytes(32);
  const pub = getPublicKey(priv, true);
  const cts = Array.from({ length: BATCH }, () => encrypt(pub, randomBytes(100)));
  let i = 0;
  let sink = 0;
  const bench = new Bench({ name: 'ecies', ...BENCH_OPTIONS });
  bench
    .add('wasm decrypt (100 B)', () => {
      sink += decrypt(priv, cts[i++ % BATCH]!).length;
    })
    .add('baseline: node:crypto decrypt (100 B)', () => {
      sink += eciesDecryptNode(priv, cts[i++ % BATCH]!).length;
    })
    .add(`wasm decryptBatch (${BATCH} × 100 B)`, () => {
      sink += decryptBatch(priv, cts).length;
    });
  const rounds = await runRounds(bench);
  if (sink === 0) throw new Error('benchmark tasks produced nothing');
  printResults('ECIES decrypt, single thread', bench);
  const ours = rounds.opsPerSec('wasm decrypt (100 B)');
  const batchPerMsg = rounds.opsPerSec(`wasm decryptBatch (${BATCH} × 100 B)`).map((x) => x * BATCH);
  const vsNode = ratioLine('ecies decrypt wasm/node:crypto', 'eciesDecryptVsNodeCrypto', rounds, 'wasm decrypt (100 B)', 'baseline: node:crypto decrypt (100 B)');
  const batchVsSingle = ratioFigure('eciesBatchVsSingle', batchPerMsg, ours);
  printFigure('ecies decryptBatch per message/single', batchVsSingle);
  return [
    vsNode,
    batchVsSingle,
    absoluteFigure('eciesDecryptOpsPerSec', ours, 'ops/s'),
    absoluteFigure('eciesBatchDecryptOpsPerSec', batchPerMsg, 'msgs/s'),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
