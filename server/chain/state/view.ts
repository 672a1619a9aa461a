/**
 * A copy-on-write view of chain state over the store: reads fall through to the parent view
 * (and finally the store), writes stay in the view until `commitTo` folds them into the parent
 * or `ops()` turns them into one atomic store commit. Connecting a transaction runs in a child
 * view, so a transaction that breaks a rule leaves no trace.
 * @module
 */
import { compareUtf8 } from '../../store/memory.js';
import type { IndexRange, Store, WriteOp } from '../../store/types.js';
import { LruMap } from '../../lru.js';

/**
 * Most store reads a root view keeps. Enough for every key one block's connect or a burst of
 * read routes touches more than once (a block reads a few keys per transaction); a decoded
 * profile is ~1.5 KB, so the bound is ~15 MB where reading 20k profiles kept ~30 MB until the
 * next block, and an idle node kept everything it was ever asked.
 */
export const MAX_CACHED_READS = 10_000;

const DELETED = Symbol('deleted');
type Slot = unknown | typeof DELETED;
type IndexOp = { op: 'indexAdd' | 'indexRemove'; key: string; members: string[] };

/**
 * What one view wrote, as `commitTo` moved it into its parent: kept per mempool transaction, so
 * a block of transactions the pending state already connected is applied (`apply`) instead of
 * connected again.
 */
export interface ViewDelta {
  readonly writes: ReadonlyMap<string, Slot>;
  readonly indexOps: readonly IndexOp[];
}

export class StateView {
  private writes = new Map<string, Slot>();
  /** Pending index adds/removes, in the order they were made. */
  private indexOps: IndexOp[] = [];
  /** The same ops by index key, so a range read looks at its own index's changes only. */
  private indexOpsByKey = new Map<string, IndexOp[]>();
  /**
   * Store reads of the root view, least recently used first, so a hot key is fetched once per
   * view; at most MAX_CACHED_READS of them (a pending view lives until the next block and
   * serves every read route meanwhile).
   */
  private readonly cache: LruMap<string, unknown> | null;

  private constructor(
    private readonly store: Store,
    private readonly parent: StateView | null,
  ) {
    this.cache = parent === null ? new LruMap(MAX_CACHED_READS) : null;
  }

  static over(store: Store): StateView {
    return new StateView(store, null);
  }

  child(): StateView {
    return new StateView(this.store, this);
  }

  get<T>(key: string): Promise<T | undefined> {
    // Down the chain of parents in a loop, not an async call per level: a replay's view sits
    // under its extensions', a batch's and a transaction's, and every level was a promise.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let view: StateView = this;
    for (;;) {
      if (view.writes.has(key)) {
        const v = view.writes.get(key);
        return Promise.resolve(v === DELETED ? undefined : (v as T));
      }
      if (view.parent === null) break;
      view = view.parent;
    }
    const cache = view.cache!;
    // `has` first: a key the store does not hold is cached as undefined.
    if (cache.has(key)) return Promise.resolve(cache.get(key) as T | undefined);
    return view.readThrough<T>(key);
  }

  private async readThrough<T>(key: string): Promise<T | undefined> {
    const v = await this.store.get<T>(key);
    this.remember(key, v);
    return v;
  }

  /** Keeps a store read in the root's cache, dropping the least recently used past the bound. */
  private remember(key: string, value: unknown): void {
    this.cache!.set(key, value);
  }

  /**
   * Reads these keys into the root view's read cache in one store round trip (keys it already
   * holds are skipped), so connecting a batch of transactions finds the keys every transaction
   * reads (balances, nonces) without a round trip each. Never changes what `get` answers.
   */
  async prefetch(keys: readonly string[]): Promise<void> {
    if (this.parent !== null) return this.parent.prefetch(keys);
    const cache = this.cache!;
    const missing = [...new Set(keys)].filter((k) => !cache.has(k));
    if (missing.length === 0) return;
    const values = await this.store.getMany(missing);
    missing.forEach((k, i) => {
      // A read that finished meanwhile is as fresh; keep it.
      if (!cache.has(k)) this.remember(k, values[i]);
    });
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
    if (members.length > 0) this.pushIndexOp({ op: 'indexAdd', key, members: [...members] });
  }

  indexRemove(key: string, members: readonly string[]): void {
    if (members.length > 0) this.pushIndexOp({ op: 'indexRemove', key, members: [...members] });
  }

  private pushIndexOp(o: IndexOp): void {
    this.indexOps.push(o);
    const ofKey = this.indexOpsByKey.get(o.key);
    if (ofKey === undefined) this.indexOpsByKey.set(o.key, [o]);
    else ofKey.push(o);
  }

  /**
   * Members of an index as the store would hold them once this view is committed. Costs the
   * page plus this index's pending changes, not the whole range: the store is asked for
   * `limit` members plus one per pending removal in the range (each can drop at most one of
   * them), and the pending additions in the range are merged in.
   */
  async indexRange(key: string, range: IndexRange = {}): Promise<string[]> {
    const changes = this.pendingIndexChanges(key);
    if (changes.size === 0) return this.store.indexRange(key, range);
    const { limit, reverse, ...bounds } = range;
    const inRange = (m: string): boolean =>
      (bounds.gte === undefined || compareUtf8(m, bounds.gte) >= 0) &&
      (bounds.gt === undefined || compareUtf8(m, bounds.gt) > 0) &&
      (bounds.lte === undefined || compareUtf8(m, bounds.lte) <= 0) &&
      (bounds.lt === undefined || compareUtf8(m, bounds.lt) < 0);
    const added: string[] = [];
    const removed = new Set<string>();
    for (const [m, present] of changes) if (inRange(m)) (present ? added.push(m) : removed.add(m));
    // An invalid limit reaches the store as is, which rejects it as it would without changes.
    const fetch = limit === undefined || !Number.isSafeInteger(limit) || limit < 0 ? limit : limit + removed.size;
    const base = await this.store.indexRange(key, { ...bounds, reverse, limit: fetch });
    // Both lists in the requested order (the store's: UTF-8 byte order), merged without duplicates.
    const order = reverse ? (a: string, b: string) => compareUtf8(b, a) : compareUtf8;
    added.sort(order);
    const max = limit ?? Infinity;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    while (out.length < max && (i < base.length || j < added.length)) {
      if (i < base.length && removed.has(base[i]!)) {
        i++;
        continue;
      }
      const c = i === base.length ? 1 : j === added.length ? -1 : order(base[i]!, added[j]!);
      if (c <= 0) out.push(base[i++]!);
      else out.push(added[j++]!);
      if (c === 0) j++;
    }
    return out;
  }

  /**
   * Members of an index once this view is committed: the store's count, corrected by this
   * index's pending changes (each looked up in the store, all at once). Costs the pending
   * changes, not the index.
   */
  async indexSize(key: string): Promise<number> {
    const changes = this.pendingIndexChanges(key);
    const [base, stored] = await Promise.all([
      this.store.indexSize(key),
      Promise.all([...changes.keys()].map(async (m) => (await this.store.indexRange(key, { gte: m, lte: m, limit: 1 })).length === 1)),
    ]);
    let size = base;
    [...changes.values()].forEach((present, i) => {
      if (present && !stored[i]) size++;
      else if (!present && stored[i]) size--;
    });
    return size;
  }

  /** This index's pending changes through the view chain: each member touched, and whether it ends up present. */
  private pendingIndexChanges(key: string): Map<string, boolean> {
    const chain: StateView[] = [];
    for (let v: StateView | null = this; v !== null; v = v.parent) chain.unshift(v);
    const changes = new Map<string, boolean>();
    for (const v of chain) for (const o of v.indexOpsByKey.get(key) ?? []) for (const m of o.members) changes.set(m, o.op === 'indexAdd');
    return changes;
  }

  /** Moves this view's writes into its parent, and answers them (the view is then empty). */
  commitTo(): ViewDelta {
    if (this.parent === null) throw new Error('the root view has no parent; use ops()');
    const delta: ViewDelta = { writes: this.writes, indexOps: this.indexOps };
    this.parent.apply(delta);
    this.writes = new Map();
    this.indexOps = [];
    this.indexOpsByKey = new Map();
    return delta;
  }

  /**
   * Writes what another view wrote (its `commitTo` answer) into this one, as if the same
   * writes were made here in the same order. Index ops are shared, never mutated.
   */
  apply(delta: ViewDelta): void {
    for (const [k, v] of delta.writes) this.writes.set(k, v);
    for (const o of delta.indexOps) this.pushIndexOp(o);
  }

  /** Keys this view itself wrote (values and indexes), before `commitTo`: what its transaction changed. */
  writtenKeys(): string[] {
    return [...new Set([...this.writes.keys(), ...this.indexOpsByKey.keys()])];
  }

  /**
   * This view's writes as store operations (for the root view: everything to persist). Index
   * changes are netted per index (each member's last change decides), the same end state as
   * applying them in turn: a block's thousands of one-member changes become at most two ops
   * per index, one store call each.
   */
  ops(): WriteOp[] {
    const values: WriteOp[] = [...this.writes].map(([key, v]) => (v === DELETED ? { op: 'del', key } : { op: 'set', key, value: v }));
    const net = new Map<string, Map<string, boolean>>();
    for (const o of this.indexOps) {
      let members = net.get(o.key);
      if (members === undefined) net.set(o.key, (members = new Map()));
      for (const m of o.members) members.set(m, o.op === 'indexAdd');
    }
    const indexes: WriteOp[] = [];
    for (const [key, members] of net) {
      const removed: string[] = [];
      const added: string[] = [];
      for (const [m, present] of members) (present ? added : removed).push(m);
      if (removed.length > 0) indexes.push({ op: 'indexRemove', key, members: removed });
      if (added.length > 0) indexes.push({ op: 'indexAdd', key, members: added });
    }
    return [...values, ...indexes];
  }
}
