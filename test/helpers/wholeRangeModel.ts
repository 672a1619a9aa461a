/**
 * The former StateView.indexRange, kept as the reference the new one is checked (tests) and
 * measured (bench/viewIndexPage) against: the whole range from the store, the pending index
 * changes applied, then sorted, reversed and cut.
 */
import type { IndexRange, Store, WriteOp } from '../../server/store/types.js';

export type PendingIndexOp = Extract<WriteOp, { op: 'indexAdd' | 'indexRemove' }>;

/** The index ops among a view's ops (`StateView.ops()` also holds value writes). */
export const indexOpsOf = (ops: readonly WriteOp[]): PendingIndexOp[] => ops.filter((o): o is PendingIndexOp => o.op === 'indexAdd' || o.op === 'indexRemove');

export async function wholeRangeModel(store: Store, pending: readonly PendingIndexOp[], key: string, range: IndexRange = {}): Promise<string[]> {
  const { limit, reverse, ...bounds } = range;
  const ops = pending.filter((o) => o.key === key);
  let members = await store.indexRange(key, bounds);
  if (ops.length > 0) {
    const set = new Set(members);
    for (const o of ops) for (const m of o.members) (o.op === 'indexAdd' ? set.add(m) : set.delete(m));
    const inRange = (m: string): boolean =>
      (bounds.gte === undefined || m >= bounds.gte) && (bounds.gt === undefined || m > bounds.gt) && (bounds.lte === undefined || m <= bounds.lte) && (bounds.lt === undefined || m < bounds.lt);
    members = [...set].filter(inRange).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }
  if (reverse) members.reverse();
  return limit === undefined ? members : members.slice(0, limit);
}
