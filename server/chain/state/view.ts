/**
 * A copy-on-write view of chain state over the store: reads fall through to the parent view
 * (and finally the store), writes stay in the view until `commitTo` folds them into the parent
 * or `ops()` turns them into one atomic store commit. Connecting a transaction runs in a child
 * view, so a transaction that breaks a rule leaves no trace.
 * @module
 */
import type { Store, WriteOp } from '../../store/types.js';

const DELETED = Symbol('deleted');
type Slot = unknown | typeof DELETED;

export class StateView {
  private readonly writes = new Map<string, Slot>();
  /** Store reads of the root view, so a key is fetched once per view. */
  private readonly cache: Map<string, unknown> | null;

  private constructor(
    private readonly store: Store,
    private readonly parent: StateView | null,
  ) {
    this.cache = parent === null ? new Map() : null;
  }

  static over(store: Store): StateView {
    return new StateView(store, null);
  }

  child(): StateView {
    return new StateView(this.store, this);
  }

  async get<T>(key: string): Promise<T | undefined> {
    if (this.writes.has(key)) {
      const v = this.writes.get(key);
      return v === DELETED ? undefined : (v as T);
    }
    if (this.parent !== null) return this.parent.get<T>(key);
    if (this.cache!.has(key)) return this.cache!.get(key) as T | undefined;
    const v = await this.store.get<T>(key);
    this.cache!.set(key, v);
    return v;
  }

  set(key: string, value: unknown): void {
    this.writes.set(key, value);
  }

  delete(key: string): void {
    this.writes.set(key, DELETED);
  }

  /** Moves this view's writes into its parent. */
  commitTo(): void {
    if (this.parent === null) throw new Error('the root view has no parent; use ops()');
    for (const [k, v] of this.writes) this.parent.writes.set(k, v);
    this.writes.clear();
  }

  /** This view's writes as store operations (for the root view: everything to persist). */
  ops(): WriteOp[] {
    return [...this.writes].map(([key, v]) => (v === DELETED ? { op: 'del', key } : { op: 'set', key, value: v }));
  }
}
