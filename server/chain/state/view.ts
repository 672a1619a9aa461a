/**
 * A copy-on-write view of chain state over the store: reads fall through to the parent view
 * (and finally the store), writes stay in the view until `commitTo` folds them into the parent
 * or `ops()` turns them into one atomic store commit. Connecting a transaction runs in a child
 * view, so a transaction that breaks a rule leaves no trace.
 * @module
 */
import type { IndexRange, Store, WriteOp } from '../../store/types.js';

const DELETED = Symbol('deleted');
type Slot = unknown | typeof DELETED;

export class StateView {
  private readonly writes = new Map<string, Slot>();
  /** Pending index adds/removes, in the order they were made. */
  private indexOps: Array<{ op: 'indexAdd' | 'indexRemove'; key: string; members: string[] }> = [];
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

  /**
   * The value as it was before this view's own writes (what the parent, or the store, holds):
   * rules that weigh a transaction's effects compare it with `get`.
   */
  async getBefore<T>(key: string): Promise<T | undefined> {
    return this.parent !== null ? this.parent.get<T>(key) : this.store.get<T>(key);
  }

  set(key: string, value: unknown): void {
    this.writes.set(key, value);
  }

  delete(key: string): void {
    this.writes.set(key, DELETED);
  }

  indexAdd(key: string, members: readonly string[]): void {
    if (members.length > 0) this.indexOps.push({ op: 'indexAdd', key, members: [...members] });
  }

  indexRemove(key: string, members: readonly string[]): void {
    if (members.length > 0) this.indexOps.push({ op: 'indexRemove', key, members: [...members] });
  }

  /** Members of an index as the store would hold them once this view is committed. */
  async indexRange(key: string, range: IndexRange = {}): Promise<string[]> {
    const { limit, reverse, ...bounds } = range;
    const chain: StateView[] = [];
    for (let v: StateView | null = this; v !== null; v = v.parent) chain.unshift(v);
    const pending = chain.flatMap((v) => v.indexOps.filter((o) => o.key === key));
    let members = await this.store.indexRange(key, bounds);
    if (pending.length > 0) {
      const set = new Set(members);
      for (const o of pending) for (const m of o.members) (o.op === 'indexAdd' ? set.add(m) : set.delete(m));
      const inRange = (m: string): boolean =>
        (bounds.gte === undefined || m >= bounds.gte) && (bounds.gt === undefined || m > bounds.gt) && (bounds.lte === undefined || m <= bounds.lte) && (bounds.lt === undefined || m < bounds.lt);
      // Byte order of UTF-8, as the stores sort.
      members = [...set].filter(inRange).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    }
    if (reverse) members.reverse();
    return limit === undefined ? members : members.slice(0, limit);
  }

  /** Moves this view's writes into its parent. */
  commitTo(): void {
    if (this.parent === null) throw new Error('the root view has no parent; use ops()');
    for (const [k, v] of this.writes) this.parent.writes.set(k, v);
    this.parent.indexOps.push(...this.indexOps);
    this.writes.clear();
    this.indexOps = [];
  }

  /** Keys this view itself wrote (values and indexes), before `commitTo`: what its transaction changed. */
  writtenKeys(): string[] {
    return [...new Set([...this.writes.keys(), ...this.indexOps.map((o) => o.key)])];
  }

  /** This view's writes as store operations (for the root view: everything to persist). */
  ops(): WriteOp[] {
    const values: WriteOp[] = [...this.writes].map(([key, v]) => (v === DELETED ? { op: 'del', key } : { op: 'set', key, value: v }));
    return [...values, ...this.indexOps.map((o) => ({ ...o }))];
  }
}
