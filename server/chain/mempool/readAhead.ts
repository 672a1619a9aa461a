/**
 * Reads ahead for mempool admission: the state keys an arriving transaction's connect reads
 * first (its nonce, its balances) are fetched into the pending state's read cache while its
 * signature is checked, so the admission batch it joins finds them there instead of waiting a
 * store round trip. Keys of transactions arriving in the same event-loop turn go in one read.
 *
 * Only a cache warm-up: what admission answers never depends on it (a key read here is read
 * again when the pending state it went into is gone, and a failed read is simply dropped).
 * @module
 */
import type { PendingState } from './pending.js';

/**
 * Most keys read ahead for one transaction; one with more (many outputs) is read at admission
 * only. A transaction whose signature then fails has cost at most this many key reads.
 */
export const MAX_KEYS_PER_TXN = 8;

export class ReadAhead {
  private keys: string[] = [];
  private scheduled = false;
  /** Bound once: no closure is made per transaction. */
  private readonly flushSoon = (): void => this.flush();

  constructor(private readonly pending: PendingState) {}

  /** Reads `keys` ahead (in the next event-loop turn, with everything else added until then). */
  add(keys: readonly string[]): void {
    if (keys.length === 0 || keys.length > MAX_KEYS_PER_TXN) return;
    for (const k of keys) this.keys.push(k);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushSoon);
    }
  }

  private flush(): void {
    const keys = this.keys;
    this.keys = [];
    this.scheduled = false;
    this.pending
      .current()
      .then((replay) => replay.view.prefetch(keys))
      .catch(ignoreFailedReadAhead);
  }
}

/** A failed read ahead costs nothing but the round trip: admission reads the keys itself. */
function ignoreFailedReadAhead(): void {}
