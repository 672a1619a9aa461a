/**
 * Signature checks of submitted transactions, sent to the crypto pool in cohorts paced by
 * admission: while an admission batch runs, arrivals wait, and everything that arrived goes to
 * the pool as one check when the batch ends, to be verified while the next batch runs; while no
 * batch runs, arrivals go at the next turn of the event loop, as single requests always did.
 *
 * Why: a pool task costs the event loop ~0.5 ms of dispatch and thread wake-up on a 2-core
 * machine whatever its size, about what verifying ten signatures costs a worker, and requests
 * checked as they arrived went in tasks of 4-5 (issue 18: ~250 tasks a second at 1,000 tx/s).
 * Paced by admission batches, a task holds what one batch admits.
 * @module
 */
import type { CryptoService } from '../../crypto/service.js';
import { checkSignatures, type SignatureVerdict, type SignedTxn } from '../rules/signatures.js';

interface Waiting {
  txn: SignedTxn;
  resolve(verdict: SignatureVerdict): void;
  reject(error: unknown): void;
}

export class SignatureCohorts {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Immediate | null = null;

  /**
   * @param admitting whether an admission batch runs now (then `dispatch` is called when it ends)
   */
  constructor(
    private readonly crypto: CryptoService,
    private readonly admitting: () => boolean,
  ) {}

  /** The verdict on one transaction's signature (checkSignatures), checked with its cohort. */
  check(txn: SignedTxn): Promise<SignatureVerdict> {
    return new Promise<SignatureVerdict>((resolve, reject) => {
      this.waiting.push({ txn, resolve, reject });
      if (!this.admitting() && this.timer === null) {
        this.timer = setImmediate(() => {
          this.timer = null;
          this.dispatch();
        });
      }
    });
  }

  /** Sends everything waiting as one check (the crypto service splits it into pool batches). */
  dispatch(): void {
    if (this.timer !== null) {
      clearImmediate(this.timer);
      this.timer = null;
    }
    if (this.waiting.length === 0) return;
    const cohort = this.waiting;
    this.waiting = [];
    let checking: Promise<SignatureVerdict[]>;
    try {
      checking = checkSignatures(this.crypto, cohort.map((w) => w.txn));
    } catch (error) {
      checking = Promise.reject(error);
    }
    checking.then(
      (verdicts) => cohort.forEach((w, i) => w.resolve(verdicts[i]!)),
      (error: unknown) => cohort.forEach((w) => w.reject(error)),
    );
  }
}
