/**
 * A store read remembered until something may have changed it (Store.watchedRead).
 *
 * The hot read routes first ask where the chain is (tip, mempool version, profile flags).
 * Asking Redis on every request costs a round trip per request cycle in every process, and
 * under load those round trips were most of what a second server process added. A watched
 * read answers from memory instead, as long as its store can vouch that no commit has been
 * made since the value was read: the store keeps a change epoch, bumped by every commit it
 * learns of, and says whether it can trust that it would have learnt of one (a Redis store
 * holds a read lease for that: readLeases.ts). Otherwise it reads, shared with concurrent
 * callers (FreshRead), so it is never staler than a read of one's own.
 *
 * Only for values that change through `commit` alone and never expire.
 * @module
 */
import { FreshRead } from './freshRead.js';

/** What a watched read needs from its store. */
export interface ChangeEpoch {
  /**
   * Bumped by every commit the store learns of (or anything after which it cannot tell); by
   * exactly one for each commit of its own (WatchedRead.commitLeaving relies on it).
   */
  readonly epoch: number;
  /** Whether a value remembered in the current epoch may be answered now. */
  trusted(): boolean;
  /** A watched read exists: the store starts doing what `trusted` needs. */
  watching(): void;
}

export class WatchedRead<T> {
  private remembered: { epoch: number; value: T } | null = null;
  private readonly fresh: FreshRead<T>;

  constructor(
    private readonly changes: ChangeEpoch,
    read: () => Promise<T>,
  ) {
    this.fresh = new FreshRead(async () => {
      const epoch = changes.epoch;
      const value = await read();
      // A commit learnt of while reading may or may not be in `value`: not remembered then.
      if (changes.epoch === epoch) this.remembered = { epoch, value };
      return value;
    });
    changes.watching();
  }

  get(): Promise<T> {
    const r = this.remembered;
    if (r !== null && r.epoch === this.changes.epoch && this.changes.trusted()) return Promise.resolve(r.value);
    return this.fresh.get();
  }

  /**
   * Runs `commit`, a guarded commit of this store that, when it succeeds, leaves the read's
   * value at `value`, and remembers that value unless the store learnt of any other change
   * while it ran (the epoch moved by more than the commit's own step): the writer of a change
   * need not read back what it wrote. Resolves as `commit` does.
   */
  async commitLeaving(commit: () => Promise<boolean>, value: T): Promise<boolean> {
    const before = this.changes.epoch;
    const ok = await commit();
    if (ok && this.changes.epoch === before + 1) this.remembered = { epoch: before + 1, value };
    return ok;
  }
}

/** A single process's store: it sees every commit itself, so it can always tell. */
export class LocalEpoch implements ChangeEpoch {
  epoch = 0;
  bump(): void {
    this.epoch++;
  }
  trusted(): boolean {
    return true;
  }
  watching(): void {}
}
