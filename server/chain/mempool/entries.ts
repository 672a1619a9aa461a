/**
 * The mempool as the store holds it: one entry per transaction (its bytes, when it arrived, who
 * signed it) and an order index whose members are `<version>:<hash>`, the version being the
 * mempool version its admission created, so the mempool replays in exactly the order its
 * transactions were validated in. `mempool:version` counts admissions and prunes (a block moves
 * the tip instead); commits guarded on both keep every process's view of the mempool consistent.
 * @module
 */
import type { Store } from '../../store/types.js';
import type { ViewDelta } from '../state/view.js';

export const MEMPOOL_ORDER = 'mempool:order';
export const MEMPOOL_VERSION = 'mempool:version';
export const mempoolTxnKey = (hashHex: string): string => `mempool:txn:${hashHex}`;

export interface MempoolEntry {
  bytes: Uint8Array;
  addedAtMs: number;
  /** The key whose signature verified at admission (owner or derived key). */
  signer: Uint8Array;
  /**
   * The mempool version its admission created (its order member's prefix), so a block finds
   * the members of what it mined without reading the whole order. Absent in older entries.
   */
  version?: number;
}

export interface MempoolTxn extends MempoolEntry {
  hashHex: string;
  version: number;
}

/** A mempool transaction that connected in a replay, with the fee it pays. */
export interface AcceptedTxn extends MempoolTxn {
  feeNanos: bigint;
  /** What its connect wrote over the ones before it (this process's memory only, never stored). */
  delta: ViewDelta;
}

/** An admission's mempool order member: the version it created, then its hash. */
export const orderMember = (version: number, hashHex: string): string => `${String(version).padStart(15, '0')}:${hashHex}`;
export const parseOrderMember = (member: string): { version: number; hashHex: string } => {
  const colon = member.indexOf(':');
  return { version: Number(member.slice(0, colon)), hashHex: member.slice(colon + 1) };
};

/** Mempool transactions in arrival order (those admitted up to a mempool version, if given). */
export async function readMempool(store: Store, throughVersion?: number): Promise<MempoolTxn[]> {
  const range = throughVersion === undefined ? {} : { lt: orderMember(throughVersion + 1, '') };
  const members = (await store.indexRange(MEMPOOL_ORDER, range)).map(parseOrderMember);
  const entries = await store.getMany<MempoolEntry>(members.map((m) => mempoolTxnKey(m.hashHex)));
  const out: MempoolTxn[] = [];
  entries.forEach((e, i) => {
    if (e) out.push({ ...members[i]!, ...e });
  });
  return out;
}

/**
 * The mempool order members of these transactions (those in the mempool), from their
 * entries (as read for them, undefined when not in the mempool) and the versions they hold;
 * entries of older versions lack one, and then the order is read whole.
 */
export async function mempoolMembers(store: Store, hashHexes: readonly string[], entries: ReadonlyArray<MempoolEntry | undefined>): Promise<string[]> {
  if (entries.every((e) => e === undefined || e.version !== undefined)) {
    return entries.flatMap((e, i) => (e === undefined ? [] : [orderMember(e.version!, hashHexes[i]!)]));
  }
  const wanted = new Set(hashHexes);
  return (await store.indexRange(MEMPOOL_ORDER)).filter((m) => wanted.has(parseOrderMember(m).hashHex));
}
