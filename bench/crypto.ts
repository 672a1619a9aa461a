/**
 * `npm run bench:crypto`: the WASM crypto core against its peers, single thread, then the
 * worker pool with 1 and 2 workers. Each bench prints its own tables and ratios; this runner
 * merges the figures each returns (name → value, the median over the rounds) and prints them as
 * one JSON object on the last line.
 *
 * Last result, 2026-11-22, Node v20.20.2, 2-core sandbox shared with other jobs (load ~1-2):
 *   {"verifyOpsPerSec":7542,"verifyVsNoble":10.93,"verifyVsTinySecp":2.06,"signOpsPerSec":19530,
 *    "signVsTinySecp":2.52,"ecdhOpsPerSec":8934,"ecdhVsTinySecp":2.34,"eciesDecryptOpsPerSec":8690,
 *    "eciesDecryptVsNodeCrypto":13.52,"eciesBatchDecryptOpsPerSec":9177,"desoHashV1PerSec":1088023,
 *    "desoHashV1VsJsPort":30.41,"sha256dOpsPerSec":852322,"sha256dVsNodeCrypto":2.09,"pool2vs1":1.51}
 * pool2vs1 moves most with the machine's load: 1.51-1.83 at batch 64 across runs (1.72-2.01 at
 * other batch sizes in the same run); the two workers share the cores with everything else.
 */
import { run as runEcies } from './ecies.bench.js';
import { run as runHash } from './hash.bench.js';
import { run as runPool } from './pool.bench.js';
import { run as runSecp } from './secp256k1.bench.js';
import { benchSettings } from './_shared.js';

const figures: Record<string, number> = {};
for (const [name, run] of [
  ['secp256k1', runSecp],
  ['ecies', runEcies],
  ['hash', runHash],
  ['pool', runPool],
] as const) {
  console.log(`\n=== ${name} ===`);
  for (const f of await run()) figures[f.name] = f.value;
}
// Quick runs (BENCH_QUICK) measure no second pool, hence no pool2vs1 (pool.bench.ts).
const REQUIRED = ['verifyOpsPerSec', 'verifyVsNoble', 'verifyVsTinySecp', 'signVsTinySecp', 'ecdhVsTinySecp', 'eciesDecryptOpsPerSec', 'desoHashV1PerSec', ...(benchSettings().quick ? [] : ['pool2vs1'])];
const missing = REQUIRED.filter((k) => typeof figures[k] !== 'number' || !Number.isFinite(figures[k]));
if (missing.length > 0) throw new Error(`bench:crypto: no figure for ${missing.join(', ')}`);
const rounded = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Number.isInteger(v) ? v : Number(v.toFixed(2))]));
console.log(JSON.stringify(rounded));
