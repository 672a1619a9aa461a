/**
 * Mempool admission (`Chain.submitTransaction`: signature in the pool, rules against tip +
 * mempool, guarded commit) as the mempool fills to MEMPOOL transfers: with the cached replay
 * (the node's path: each admission connects one transaction on the cached mempool state)
 * against the same admissions by a Chain with no cache (each one replays the whole mempool
 * first, as the node did before), measured in the same run on fresh memory stores, one pair per
 * round (BENCH_ROUNDS).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../server/chain/block/params.js';
import { Chain } from '../server/chain/chain.js';
import { constructTxn } from '../server/chain/construct.js';
import { CryptoPool } from '../server/crypto/pool.js';
import { signTransaction } from '../server/identity/signTxn.js';
import { openStore } from '../server/store/index.js';
import { getPublicKey } from '../wasm/secp256k1.js';
import { benchSettings } from './_shared.js';
import { absoluteFigure, formatRatio, median, ratioFigure, type Figure } from './figures.js';

const MEMPOOL = 400;
const log = pino({ level: 'silent' });

async function admissionsPerSec(crypto: CryptoPool, cached: boolean): Promise<number> {
  const store = await openStore({});
  const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
  await chain.init();
  const secret = new Uint8Array(randomBytes(32));
  const pk = getPublicKey(secret, true);
  // Coins: one block to our key.
  const t = await chain.blockTemplate(pk, 1);
  const header = t.headers[0]!;
  for (let s = 0n; ; s += 100_000n) {
    const r = await crypto.mine({ header, startNonce: s, count: 100_000, target: t.target });
    if (r.found) {
      new DataView(header.buffer).setBigUint64(84, r.nonce);
      break;
    }
  }
  await chain.submitBlock(pk, header, t.extraNonces[0]!, t.blockId);
  const to = getPublicKey(new Uint8Array(randomBytes(32)), true);
  const signed: Uint8Array[] = [];
  for (let i = 0; i < MEMPOOL; i++) {
    const c = constructTxn({
      publicKey: pk,
      metadata: { type: 'BASIC_TRANSFER' },
      outputs: [{ publicKey: to, amountNanos: BigInt(1000 + i) }],
      minFeeRateNanosPerKB: 1000n,
      networkMinFeeRateNanosPerKB: 0n,
      tipHeight: 1n,
      maxNonceExpirationBlockHeightOffset: DEV_CHAIN_PARAMS.maxNonceExpirationBlockHeightOffset,
    });
    signed.push(await signTransaction(crypto, c.bytes, secret, { derived: false }));
  }
  const t0 = performance.now();
  for (const bytes of signed) {
    // Without the cache: a fresh Chain per admission has nothing cached and replays it all.
    const admitting = cached ? chain : new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
    await admitting.submitTransaction(bytes);
  }
  const secs = (performance.now() - t0) / 1000;
  await store.close();
  return MEMPOOL / secs;
}

export async function run(): Promise<Figure[]> {
  const crypto = new CryptoPool({ threads: 2 }, { metrics: null, log: null });
  try {
    await admissionsPerSec(crypto, true); // warm the workers and the JIT
    const cached: number[] = [];
    const replaying: number[] = [];
    for (let round = 0; round < benchSettings().rounds; round++) {
      cached.push(await admissionsPerSec(crypto, true));
      replaying.push(await admissionsPerSec(crypto, false));
    }
    const ratio = ratioFigure('cachedVsReplay', cached, replaying);
    console.log(`admission, mempool filling to ${MEMPOOL}: cached replay ${median(cached).toFixed(0)}/s`);
    console.log(`baseline: full mempool replay per admission    ${median(replaying).toFixed(0)}/s`);
    console.log(`ratio: ${formatRatio(ratio)}`);
    console.log(JSON.stringify({ cachedPerSec: Math.round(median(cached)), replayPerSec: Math.round(median(replaying)), ratio: +ratio.value.toFixed(2) }));
    return [ratio, absoluteFigure('cachedAdmissionsPerSec', cached, 'txns/s'), absoluteFigure('replayAdmissionsPerSec', replaying, 'txns/s')];
  } finally {
    await crypto.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
