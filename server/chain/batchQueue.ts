/**
 * Work that callers hand in one item at a time but that is cheaper done in batches (mempool
 * admission: one replay step, one guarded commit and one publish per batch). One batch runs at
 * a time; items that arrive meanwhile wait and form the next batch, so with one caller every
 * item runs at once, and with many callers a batch holds what arrived during the previous one.
 * @module
 */

/** What a batch answers for one of its items. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export class BatchQueue<I, R> {
  private waiting: Array<Waiting<I, R>> = [];
  private running = false;

  /**
   * @param run settles every item of one batch, in order; a rejection fails the whole batch
   * @param maxItems most items in one batch
   */
  constructor(
    private readonly run: (items: readonly I[]) => Promise<Array<Settled<R>>>,
    private readonly maxItems: number,
  ) {
    if (!Number.isSafeInteger(maxItems) || maxItems < 1) throw new RangeError(`"maxItems" expected a positive integer, got ${maxItems}`);
  }

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        // A microtask later, so items handed in by the same tick share the first batch.
        queueMicrotask(() => void this.drain());
      }
    });
  }

  /** Items waiting for a batch (not counting the one running). */
  get queued(): number {
    return this.waiting.length;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxItems);
        let results: Array<Settled<R>>;
        try {
          results = await this.run(batch.map((w) => w.item));
        } catch (error) {
          for (const w of batch) w.reject(error);
          continue;
        }
        batch.forEach((w, i) => {
          const r = results[i];
          if (r === undefined) w.reject(new Error('batch left an item unsettled'));
          else if (r.ok) w.resolve(r.value);
          else w.reject(r.error);
        });
      }
    } finally {
      this.running = false;
    }
  }
}
