/**
 * Mempool admission: a submitted transaction is decoded, hashed and its signature checked on
 * arrival, then admitted in a batch with whatever else arrived meanwhile (BatchQueue): one
 * common-key prefetch, duplicates found in the pending state (which holds exactly the mempool
 * the commit is guarded on), each transaction connected in arrival order on the pending state
 * plus the ones before it, one guarded commit that announces it. Answers are those of one at a
 * time.
 * @module
 */
import { BatchQueue, type Settled } from '../batchQueue.js';
import { CHANNEL_MEMPOOL, type ChainContext } from '../context.js';
import { MempoolBusyError } from '../errors.js';
import { commonReads, connectTransaction } from '../rules/connect.js';
import { RuleError } from '../rules/errors.js';
import { checkSignatures } from '../rules/signatures.js';
import { chainKeys } from '../state/keys.js';
import { isMinedTxn } from '../state/minedTxns.js';
import { decodeTxn, txnHash, type TxnEnvelope } from '../txn/envelope.js';
import { TxnType } from '../txn/metadata.js';
import { toHex as hex } from '../../hex.js';
import { MEMPOOL_ORDER, MEMPOOL_VERSION, mempoolTxnKey, orderMember, type MempoolEntry } from './entries.js';
import type { AdoptedAdmission, PendingState } from './pending.js';
import { ReadAhead } from './readAhead.js';

/** Largest transaction accepted, bytes. */
export const MAX_TXN_BYTES = 100_000;
/** Guarded admission attempts before giving up with MempoolBusyError. */
export const ADMISSION_ATTEMPTS = 16;
/** Most transactions admitted in one batch (one guarded commit). */
const MAX_ADMISSION_BATCH = 256;

export interface SubmittedTxn {
  hashHex: string;
  txn: TxnEnvelope;
}

/** A submitted transaction waiting for admission: decoded and hashed once, on arrival. */
interface Admission {
  bytes: Uint8Array;
  txn: TxnEnvelope;
  hash: Uint8Array;
  hashHex: string;
  /** The key whose signature verified (owner or derived key). */
  signer: Uint8Array;
}

export class Admissions {
  private readonly queue = new BatchQueue<Admission, SubmittedTxn>((items) => this.admitBatch(items), MAX_ADMISSION_BATCH);

  private readonly readAhead: ReadAhead;

  constructor(
    private readonly ctx: ChainContext,
    private readonly pending: PendingState,
  ) {
    this.readAhead = new ReadAhead(pending);
  }

  /**
   * Validates a signed transaction against the tip plus the mempool and adds it. Concurrent
   * submissions are admitted in batches (admitBatch): the answer is the same as one at a time,
   * in arrival order. `decoded` is `decodeTxn(bytes)` when the caller has it already.
   * @throws {TxnDecodeError} malformed bytes; {RuleError} a broken rule (duplicate, signature,
   *   nonce, balance, …); {MempoolBusyError} the mempool kept changing under it
   */
  async submit(bytes: Uint8Array, decoded?: TxnEnvelope): Promise<SubmittedTxn> {
    if (bytes.length > MAX_TXN_BYTES) throw new RuleError('RuleErrorTxnTooBig', `${bytes.length} bytes is over the ${MAX_TXN_BYTES}-byte limit`);
    const txn = decoded ?? decodeTxn(bytes);
    const hash = txnHash(bytes, txn);
    if (txn.txnType === TxnType.BLOCK_REWARD) throw new RuleError('RuleErrorBlockRewardNotFirst', 'block rewards are only valid inside blocks');
    // Checked before queueing, so signatures are verified (batched by the crypto service) while
    // the admission batch before this one commits; meanwhile its first state reads are fetched,
    // assuming the common case of a transaction signed by its owner's key (an atomic wrapper's
    // inner signers are known only after the check).
    if (txn.txnType !== TxnType.ATOMIC_TXNS_WRAPPER) this.readAhead.add(commonReads(txn, txn.publicKey));
    const [verdict] = await checkSignatures(this.ctx.crypto, [{ bytes, txn }]);
    if (verdict!.error) throw verdict!.error;
    return this.queue.add({ bytes, txn, hash, hashHex: hex(hash), signer: verdict!.signer });
  }

  /**
   * Admits a batch of transactions (signatures already checked) in arrival order: their
   * common state reads in one store round trip, each connected on the pending state plus the
   * ones before it, then all accepted ones in one guarded commit that announces them. A transaction
   * that breaks a rule is refused alone; when another process changed the mempool meanwhile,
   * the accepted ones are connected again on the new mempool and retried.
   */
  private async admitBatch(items: readonly Admission[]): Promise<Array<Settled<SubmittedTxn>>> {
    const results: Array<Settled<SubmittedTxn> | undefined> = new Array(items.length);
    const fail = (i: number, error: unknown): void => {
      results[i] = { ok: false, error };
    };
    let pending = items.map((_, i) => i);

    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === ADMISSION_ATTEMPTS) {
        for (const i of pending) fail(i, new MempoolBusyError(`the mempool changed during each of ${ADMISSION_ATTEMPTS} attempts to add this transaction; retry`));
        break;
      }
      // Another admission or a block won the race: back off a little, growing and jittered, so
      // contending processes stop colliding (a busy miner changes the mempool every block).
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 50)));
      try {
        pending = await this.admitOnce(items, pending, fail, results);
      } catch (error) {
        // The store failed (a rule error never reaches here): nothing more was admitted.
        for (const i of pending) if (results[i] === undefined) fail(i, error);
        break;
      }
    }
    return results.map((r) => r ?? { ok: false, error: new Error('admission left a transaction unanswered') });
  }

  /**
   * One guarded attempt of admitBatch for the `pending` items: settles the refused and, when the
   * commit holds, the admitted ones; returns those to try again (the commit lost a race).
   */
  private async admitOnce(
    items: readonly Admission[],
    pending: readonly number[],
    fail: (i: number, error: unknown) => void,
    results: Array<Settled<SubmittedTxn> | undefined>,
  ): Promise<number[]> {
    const blockCommit = this.pending.blockCommitSettled();
    if (blockCommit !== null) await blockCommit;
    const replay = await this.pending.current();
    // Read before connecting: a replay of this process may move on while this batch awaits,
    // and then the commit must lose its guard and retry.
    const baseVersion = replay.version;
    // The state keys every one reads, in one round trip.
    await replay.view.prefetch(pending.flatMap((i) => commonReads(items[i]!.txn, items[i]!.signer)));
    // Whether a refused one is mined already is asked after the refusal, not of every one: a
    // mined transaction's nonce is spent (or has expired), so it can never connect again, and
    // only refusals need the location read that says "already mined" instead.
    const refused: Array<{ i: number; error: RuleError }> = [];
    const batchView = replay.view.child();
    // Every transaction of the batch goes into the same next block.
    const connectContext = this.ctx.connectContext(replay.height);
    const admitted: Array<AdoptedAdmission & { i: number }> = [];
    const inBatch = new Set<string>();
    // The limit is checked against the mempool the guard below pins (version baseVersion), so
    // with any number of processes admitting at once it is never passed. A rule error (400), as
    // the reference answers every mempool refusal, rather than a 503: a full mempool stays full
    // until a block, so an immediate retry would not help.
    let held = replay.mempoolBytes;
    for (const i of pending) {
      const { bytes, txn, hash, hashHex } = items[i]!;
      // The replay holds exactly the mempool at baseVersion, which the commit is guarded on.
      if (replay.hashes.has(hashHex) || inBatch.has(hashHex)) {
        fail(i, new RuleError('RuleErrorDuplicateTxn', `transaction ${hashHex} is already in the mempool`));
        continue;
      }
      if (held + bytes.length > this.ctx.params.mempoolMaxSizeBytes) {
        refused.push({
          i,
          error: new RuleError(
            'RuleErrorMempoolFull',
            `the mempool holds ${held} bytes and this ${bytes.length}-byte transaction would pass its limit of ${this.ctx.params.mempoolMaxSizeBytes} bytes (--mempool-max-size-bytes); retry after the next block`,
          ),
        });
        continue;
      }
      const view = batchView.child();
      const signer = items[i]!.signer;
      let feeNanos: bigint;
      try {
        // After the replay's accepted transactions and this batch's (as adopt appends them).
        const indexInBlock = replay.accepted.length + admitted.length + 1;
        feeNanos = (await connectTransaction(view, txn, { hash, size: bytes.length, signer, indexInBlock }, connectContext)).feeNanos;
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        refused.push({ i, error });
        continue;
      }
      const version = (baseVersion ?? 0) + admitted.length + 1;
      const writes = view.writtenKeys();
      admitted.push({ i, entry: { hashHex, version, bytes, addedAtMs: this.ctx.now(), signer }, writes, delta: view.commitTo(), feeNanos });
      inBatch.add(hashHex);
      held += bytes.length;
    }
    const mined = await Promise.all(refused.map(({ i }) => isMinedTxn(this.ctx.store, items[i]!.hashHex)));
    for (const [k, { i, error }] of refused.entries()) {
      fail(i, mined[k] ? new RuleError('RuleErrorDuplicateTxn', `transaction ${items[i]!.hashHex} is already mined`) : error);
    }
    if (admitted.length === 0) return [];
    const lastVersion = (baseVersion ?? 0) + admitted.length;
    const ok = await this.ctx.commitMovingTo(
      [
        ...admitted.map(({ entry: { hashHex, ...stored } }) => ({ op: 'set' as const, key: mempoolTxnKey(hashHex), value: stored satisfies MempoolEntry })),
        // Ordered by the version each admission creates: strictly increasing across every
        // process (the commit is guarded on the previous one), so the mempool replays in
        // exactly the order its transactions were validated in.
        { op: 'indexAdd', key: MEMPOOL_ORDER, members: admitted.map((a) => orderMember(a.entry.version, a.entry.hashHex)) },
        { op: 'set', key: MEMPOOL_VERSION, value: lastVersion },
      ],
      // The tip too: a block does not move the mempool version, and an admission validated on
      // the tip before it must connect again on the new one.
      [
        { key: MEMPOOL_VERSION, equals: baseVersion },
        { key: chainKeys.tip, equals: replay.tip },
      ],
      { tip: replay.tip, mempoolVersion: lastVersion },
      // Announced by the commit itself (on Redis, in the same script): one round trip, and no
      // admission the block producer could fail to hear of.
      { channel: CHANNEL_MEMPOOL, message: { added: admitted.map((a) => a.entry.hashHex) } },
    );
    if (!ok) return admitted.map((a) => a.i);
    this.pending.adopt(replay, baseVersion, batchView, admitted);
    for (const a of admitted) results[a.i] = { ok: true, value: { hashHex: a.entry.hashHex, txn: items[a.i]!.txn } };
    return [];
  }
}
