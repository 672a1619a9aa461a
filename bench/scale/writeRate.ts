/**
 * Write throughput against signature-check capacity. Writes: pre-signed native transfers
 * (plain users paying their ring partner) submitted for a fixed time with 1, 8 and 32 requests
 * in flight; accepted tx/s is over the submission, and what a level admitted must then be mined
 * (mempool back to 0) before the next level starts. Capacity: the crypto pool the node would
 * start (its worker count, server/node.ts `cryptoThreads`), verifying 64-item batches (the
 * micro-batcher's cap), two per worker in flight, measured in the same run. Their ratio says
 * how far admission is from the bound every accepted transaction pays: one signature check.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_BATCH_ITEMS } from '../../server/crypto/batcher.js';
import { CryptoPool } from '../../server/crypto/pool.js';
import { signedItems } from '../pool.bench.js';
import { isPlainUser, ringPartner } from './dataset.js';
import type { DataSet } from './populate.js';
import { submitAll, WINDOW_MS } from './submit.js';
import { chainGauges } from './node.js';
import type { TxnFactory } from './txns.js';
import { waitQuiet } from '../load/node.js';

export const IN_FLIGHT_LEVELS = [1, 8, 32] as const;
const TRANSFER_NANOS = 1000n;
/** How long a batch may take to be mined after its submission. */
const MINE_TIMEOUT_MS = 300_000;
const VERIFY_MS = 2000;

export interface WriteLevel {
  inFlight: number;
  submitted: number;
  accepted: number;
  errors: number;
  errorSamples: string[];
  /** Resends after a full or busy mempool (bench/scale/submit.ts). */
  retries: number;
  /** accepted ÷ submission time. */
  acceptedPerSec: number;
  /** accepted ÷ time until the mempool was empty again. */
  minedPerSec: number;
  /** Submit-to-visible: from a request to its 200 (the transaction is then in every read's pending state). */
  latencyMs: { p50: number; p99: number };
  /** Wall time of the submission. */
  seconds: number;
  /**
   * Accepted tx/s in the slowest and the fastest full WINDOW_MS of the submission: a level whose
   * rate is low from a stall has a slowest window far below the rest; a uniformly slow one not.
   */
  windowPerSec: { min: number; max: number };
}

/** Transfers of plain users to their ring partners, signed now, `count` of them from `offset` on. */
async function signTransfers(data: DataSet, factory: TxnFactory, offset: number, count: number): Promise<Uint8Array[]> {
  const senders = data.users.filter((u) => isPlainUser(u.index));
  const signed: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const from = senders[(offset + i) % senders.length]!;
    signed.push(await factory.transfer(from, [{ publicKey: data.users[ringPartner(from.index)]!.pk33, amountNanos: TRANSFER_NANOS }]));
  }
  return signed;
}

/** Submits with `inFlight` requests in flight (for at most `forMs`), then waits until all are mined. */
async function writeLevel(port: number, signed: readonly Uint8Array[], inFlight: number, forMs?: number): Promise<WriteLevel> {
  const t0 = performance.now();
  const s = await submitAll(port, signed.map((b) => () => b), inFlight, { forMs });
  for (;;) {
    if ((await chainGauges(port)).mempool === 0) break;
    if (performance.now() - t0 > MINE_TIMEOUT_MS) throw new Error(`writes at ${inFlight} in flight: mempool not empty ${MINE_TIMEOUT_MS} ms after submission`);
    await sleep(20);
  }
  const minedMs = performance.now() - t0;
  await waitQuiet(port, MINE_TIMEOUT_MS);
  return {
    inFlight,
    submitted: s.submitted,
    accepted: s.accepted,
    errors: s.errors,
    errorSamples: s.errorSamples,
    retries: s.retries,
    acceptedPerSec: (s.accepted / s.elapsedMs) * 1000,
    minedPerSec: (s.accepted / minedMs) * 1000,
    latencyMs: s.latencyMs,
    seconds: s.elapsedMs / 1000,
    windowPerSec: windowRates(s.acceptedPerWindow, s.elapsedMs),
  };
}

/** Slowest and fastest rate over the full windows of a run (all of them when none is full). */
function windowRates(perWindow: readonly number[], elapsedMs: number): { min: number; max: number } {
  const full = perWindow.slice(0, Math.max(1, Math.floor(elapsedMs / WINDOW_MS)));
  const perSec = (n: number): number => (n * 1000) / WINDOW_MS;
  return full.length === 0 ? { min: 0, max: 0 } : { min: perSec(Math.min(...full)), max: perSec(Math.max(...full)) };
}

/**
 * Most sustained-run transfers per plain user. A user whose ring partner pays nothing back
 * (its payer is not a plain user) spends ~1,170 nanos a transfer from FUND_NANOS: at 3,000
 * profiles, 20 s at 4,500 a second (~33 each, after the levels' ~9) drained a few to 26 nanos.
 * A small data set's sustained run may then run dry, and is measured over the time it ran.
 */
const SUSTAINED_PER_SENDER = 15;

/**
 * Writes sustained for `seconds` at `inFlight` in flight: enough transfers for `maxPerSec`
 * (at most SUSTAINED_PER_SENDER per plain user) are signed first (so signing does not share
 * the run's cores), and whatever was not sent when the time is up is left.
 */
export async function measureSustained(port: number, data: DataSet, factory: TxnFactory, seconds: number, inFlight: number, maxPerSec: number): Promise<WriteLevel> {
  factory.setTip((await chainGauges(port)).tip);
  const senders = data.users.filter((u) => isPlainUser(u.index)).length;
  const signed = await signTransfers(data, factory, 7_919, Math.min(seconds * maxPerSec, SUSTAINED_PER_SENDER * senders));
  return writeLevel(port, signed, inFlight, seconds * 1000);
}

/** Where the warm-up's senders start, apart from the levels'. */
const WARMUP_OFFSET = 104_729;
/** Transfers of the unmeasured warm-up. */
const WARMUP_TRANSFERS = 1500;
/**
 * Transfers signed per second of a level, by requests in flight: above what the node takes
 * (here 500-700, 1,400-2,000 and 2,200-3,900 tx/s at 1, 8 and 32), so a level runs its whole
 * time; one that runs dry is measured over the time it ran.
 */
const LEVEL_MAX_PER_SEC: Readonly<Record<(typeof IN_FLIGHT_LEVELS)[number], number>> = { 1: 1500, 8: 4000, 32: 6000 };

/**
 * Runs each in-flight level for `seconds` (transfers signed before the level starts; the rest
 * left unsent). `round` varies the senders between calls. First, unmeasured, a batch at the
 * highest level warms the write path: the bench restarts the node before its reads, and a
 * freshly started node's first few thousand writes run its code cold (measured 2026-11-26 on a
 * 100k-profile store: 1,472 tx/s at 32 in flight in the first burst after a restart, at 900 µs
 * of node CPU per write, against 2,956-3,663 tx/s at 333-400 µs once warm). The pool's verify
 * rate is measured warm too (poolVerifyRate).
 *
 * Each level runs for a time rather than a count: a rate over 1,500 transfers at 32 in flight
 * was ~0.5 s, and one GC pause or slow spell of the machine moved it by a fifth.
 */
export async function measureWrites(port: number, data: DataSet, factory: TxnFactory, seconds: number, round: number): Promise<WriteLevel[]> {
  factory.setTip((await chainGauges(port)).tip);
  const warm = await writeLevel(port, await signTransfers(data, factory, WARMUP_OFFSET + round * WARMUP_TRANSFERS, WARMUP_TRANSFERS), IN_FLIGHT_LEVELS[IN_FLIGHT_LEVELS.length - 1]!);
  if (warm.errors > 0) throw new Error(`write warm-up: ${warm.errors} of ${warm.submitted} refused: ${warm.errorSamples.join(' | ')}`);
  const perRound = IN_FLIGHT_LEVELS.reduce((n, l) => n + LEVEL_MAX_PER_SEC[l] * seconds, 0);
  let offset = round * perRound;
  const out: WriteLevel[] = [];
  for (const inFlight of IN_FLIGHT_LEVELS) {
    factory.setTip((await chainGauges(port)).tip);
    const count = LEVEL_MAX_PER_SEC[inFlight] * seconds;
    out.push(await writeLevel(port, await signTransfers(data, factory, offset, count), inFlight, seconds * 1000));
    offset += count;
  }
  return out;
}

/** Signature verifications per second of a whole pool of `threads` workers. */
export async function poolVerifyRate(threads: number): Promise<number> {
  const pool = new CryptoPool({ threads }, { metrics: null, log: null });
  try {
    const items = signedItems();
    const batches = Array.from({ length: Math.floor(items.length / MAX_BATCH_ITEMS) }, (_, i) => items.slice(i * MAX_BATCH_ITEMS, (i + 1) * MAX_BATCH_ITEMS));
    // Workers start slowly (tsx + WASM): let each answer once first.
    await Promise.all(Array.from({ length: threads }, () => pool.verifySignatures(batches[0]!)));
    let verified = 0;
    let next = 0;
    const t0 = performance.now();
    const end = t0 + VERIFY_MS;
    const lane = async (): Promise<void> => {
      while (performance.now() < end) {
        const r = await pool.verifySignatures(batches[next++ % batches.length]!);
        if (!r.every((x) => x.ok && x.value === true)) throw new Error('poolVerifyRate: a signature did not verify');
        verified += r.length;
      }
    };
    await Promise.all(Array.from({ length: 2 * threads }, lane));
    return (verified / (performance.now() - t0)) * 1000;
  } finally {
    await pool.close();
  }
}
