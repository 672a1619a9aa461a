/**
 * Grows the data set of bench/scale/dataset.ts to a size through the write path: signed
 * transactions (bench/scale/txns.ts) through submit-transaction (bench/scale/submit.ts), mined
 * by the node's built-in miner. Users are added in chunks; within a chunk, each phase's
 * transactions depend only on earlier phases' (admission checks against tip + mempool, so a
 * phase may start as soon as the previous one was accepted, mined or not):
 *   1. funding: transfers of FUND_NANOS from the funder, FUND_OUTPUTS_PER_TXN users each;
 *   2. every profile, every ring DM and the long threads' messages;
 *   3. DAO coin mints (their creators' profiles exist now);
 *   4. coins to the askers;
 *   5. the asks and bids.
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  askerRank,
  bidderRank,
  COINS_MINTED,
  COINS_PER_ASKER,
  coinCreatorOf,
  DM_TEXT_BYTES,
  FUND_NANOS,
  isCoinCreator,
  LONG_THREAD_MESSAGES,
  longThreadsIn,
  makeUser,
  ringPartner,
  type ScaleUser,
} from './dataset.js';
import { assertAllAccepted, submitAll, type TxnSource } from './submit.js';
import type { Signer, TxnFactory } from './txns.js';
import { chainGauges } from './node.js';

/** Recipients per funding transfer (a ~3.6 KB transaction). */
const FUND_OUTPUTS_PER_TXN = 100;
/** Users added per chunk: large enough that the phase barriers cost little. */
const CHUNK_USERS = 5000;

export interface LongThread {
  a: ScaleUser;
  b: ScaleUser;
  /** TimestampNanos of its messages, oldest first. */
  stamps: bigint[];
}

export interface PopulateContext {
  port: number;
  factory: TxnFactory;
  funder: Signer;
  seed: string;
  inFlight: number;
  log: (line: string) => void;
}

/** What exists so far; `grow` adds to it. */
export interface DataSet {
  users: ScaleUser[];
  longThreads: LongThread[];
  /** Transactions accepted while populating, and the time their submission took. */
  txns: number;
  submitMs: number;
  /** Per kind of write, transactions accepted. */
  byKind: Record<string, number>;
}

export function emptyDataSet(): DataSet {
  return { users: [], longThreads: [], txns: 0, submitMs: 0, byKind: {} };
}

/** Grows `data` to `size` users with everything they write. */
export async function grow(ctx: PopulateContext, data: DataSet, size: number): Promise<void> {
  while (data.users.length < size) {
    const from = data.users.length;
    const to = Math.min(size, from + CHUNK_USERS);
    const t0 = performance.now();
    const before = data.txns;
    for (let i = from; i < to; i++) data.users.push(makeUser(ctx.seed, i));
    ctx.factory.setTip((await chainGauges(ctx.port)).tip);
    const rates: string[] = [];
    for (const [kind, txns] of phases(ctx, data, from, to)) {
      const s = await submitAll(ctx.port, txns, ctx.inFlight);
      assertAllAccepted(`populate ${kind}`, s);
      data.txns += s.accepted;
      data.submitMs += s.elapsedMs;
      data.byKind[kind] = (data.byKind[kind] ?? 0) + s.accepted;
      rates.push(`${kind} ${((s.accepted / s.elapsedMs) * 1000).toFixed(0)}${s.retries > 0 ? ` (${s.retries} resent)` : ''}`);
    }
    const s = (performance.now() - t0) / 1000;
    ctx.log(`${to.toLocaleString('en-US')} users: +${(data.txns - before).toLocaleString('en-US')} transactions in ${s.toFixed(1)} s (${((data.txns - before) / s).toFixed(0)} tx/s; by phase: ${rates.join(', ')} tx/s)`);
  }
}

/**
 * The chunk's transactions, phase by phase. Lazily built: each phase is signed as it is sent.
 * A generator, so a phase is built only after the previous one was accepted.
 */
function* phases(ctx: PopulateContext, data: DataSet, from: number, to: number): Generator<[string, TxnSource[]]> {
  const { factory, funder } = ctx;
  const users = data.users;
  const range = users.slice(from, to);

  const funding: TxnSource[] = [];
  for (let i = 0; i < range.length; i += FUND_OUTPUTS_PER_TXN) {
    const outputs = range.slice(i, i + FUND_OUTPUTS_PER_TXN).map((u) => ({ publicKey: u.pk33, amountNanos: FUND_NANOS }));
    funding.push(() => factory.transfer(funder, outputs));
  }
  yield ['funding', funding];

  const social: TxnSource[] = [];
  for (const u of range) {
    social.push(() => factory.profile(u, u.username, u.description));
    social.push(() => factory.dm(u, users[ringPartner(u.index)]!.pk33, randomBytes(DM_TEXT_BYTES), factory.nextStampNanos()));
  }
  for (const [a, b] of longThreadsIn(from, to)) {
    const thread: LongThread = { a: users[a]!, b: users[b]!, stamps: [] };
    data.longThreads.push(thread);
    for (let m = 0; m < LONG_THREAD_MESSAGES; m++) {
      const [sender, recipient] = m % 2 === 0 ? [thread.a, thread.b] : [thread.b, thread.a];
      // Sources run in list order, so the stamps come out ascending.
      social.push(() => {
        const stamp = factory.nextStampNanos();
        thread.stamps.push(stamp);
        return factory.dm(sender, recipient.pk33, randomBytes(DM_TEXT_BYTES), stamp);
      });
    }
  }
  yield ['profiles and DMs', social];

  const creators = range.filter((u) => isCoinCreator(u.index));
  yield ['DAO coin mints', creators.map((c) => () => factory.mintDaoCoin(c, COINS_MINTED))];

  const askers = range.filter((u) => askerRank(u.index) > 0);
  yield ['DAO coin transfers', askers.map((a) => () => factory.transferDaoCoin(users[coinCreatorOf(a.index)]!, a.pk33, COINS_PER_ASKER))];

  // Asks at 0.0011–0.0020, bids at 0.000001–0.000010 native coins per coin: nothing crosses.
  const orders: TxnSource[] = [];
  for (const u of range) {
    const coin = users[coinCreatorOf(u.index)]!.pk33;
    const ask = askerRank(u.index);
    const bid = bidderRank(u.index);
    if (ask > 0) orders.push(() => factory.limitOrder(u, coin, 'ASK', (0.001 + 0.0001 * ask).toFixed(4), '1'));
    if (bid > 0) orders.push(() => factory.limitOrder(u, coin, 'BID', (0.000001 * bid).toFixed(6), '1'));
  }
  yield ['DAO coin orders', orders];
}
