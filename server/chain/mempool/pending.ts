/**
 * The pending state: the tip plus every mempool transaction that still connects, replayed in
 * arrival order and cached per (tip, mempool version). An admission of this process extends
 * the cached replay in place (`adopt`); other processes' admissions extend it from the store
 * (`extendReplay`); anything else (a block, a prune) rebuilds it. Read routes, templates and
 * admission all read through it, so the mempool is replayed once per change, not per request.
 * @module
 */
import { isStoreUnavailable } from '../../store/types.js';
import type { ChainContext } from '../context.js';
import { commonReads, connectTransaction } from '../rules/connect.js';
import { chainKeys, type BlockWritesRecord, type TipRecord } from '../state/keys.js';
import { StateView, type ViewDelta } from '../state/view.js';
import { decodeTxn, type TxnEnvelope } from '../txn/envelope.js';
import { fromHex } from '../../hex.js';
import { MEMPOOL_ORDER, mempoolTxnKey, orderMember, parseOrderMember, readMempool, type AcceptedTxn, type MempoolEntry, type MempoolTxn } from './entries.js';

/**
 * The state keys each admission of a replay lineage wrote (a full replay and the admissions
 * layered on it share one). `all` may hold more than one replay of the lineage wrote (a later
 * extension's keys), never less: callers use it as a bound.
 */
export interface ReplayWrites {
  byVersion: Map<number, readonly string[]>;
  all: Set<string>;
}

/**
 * A point of the pending state (Chain.pendingChanges): the tip, the mempool version, and what
 * the replay at that point had written (opaque to callers; used to bound later changes).
 */
export interface PendingPoint {
  tipHashHex: string;
  height: bigint;
  version: number | undefined;
  readonly writes: ReplayWrites;
}

/** Blocks between two points past which pendingChanges stops listing keys (answers null). */
export const MAX_BLOCKS_BETWEEN_POINTS = 32n;

export interface MempoolReplay {
  tip: TipRecord;
  /** The mempool version read before the mempool was (guards admissions built on this replay). */
  version: number | undefined;
  height: bigint;
  view: StateView;
  accepted: AcceptedTxn[];
  /** Bytes of the accepted transactions. */
  bytes: number;
  /** Bytes of every transaction replayed, failed ones included: what the mempool holds. */
  mempoolBytes: number;
  feesNanos: bigint;
  failures: Array<{ entry: MempoolTxn; error: unknown }>;
  /**
   * Hashes (hex) of every transaction replayed, accepted or failed: the mempool at `version`,
   * so admission guarded on that version finds duplicates here instead of in the store.
   */
  hashes: Set<string>;
  /** Admissions of other processes layered on a full replay (see extendReplay). */
  extensions: number;
  writes: ReplayWrites;
}

/** One admitted transaction of a batch, as `PendingState.adopt` takes it. */
export interface AdoptedAdmission {
  entry: MempoolTxn;
  /** The state keys its connect wrote. */
  writes: readonly string[];
  /** What its connect wrote (its view's `commitTo` answer). */
  delta: ViewDelta;
  feeNanos: bigint;
}

/** Layers of other processes' admissions on one full replay before it is rebuilt flat. */
const MAX_REPLAY_EXTENSIONS = 64;

function recordWrites(writes: ReplayWrites, version: number, keys: readonly string[]): void {
  writes.byVersion.set(version, keys);
  for (const k of keys) writes.all.add(k);
}

/** Whether `replay` is on `parentHashHex` and its first accepted transactions are these, in order. */
function startsWith(replay: MempoolReplay, parentHashHex: string, hashHexes: readonly string[]): boolean {
  if (replay.tip.hashHex !== parentHashHex || replay.accepted.length < hashHexes.length) return false;
  for (let i = 0; i < hashHexes.length; i++) if (replay.accepted[i]!.hashHex !== hashHexes[i]) return false;
  return true;
}

export class PendingState {
  /**
   * The last replay. Valid while the tip and the mempool version are the ones it was built on;
   * an admission through this process extends it in place, so admitting a transaction costs
   * one connect instead of a replay of the whole mempool.
   */
  private replayCache: MempoolReplay | null = null;
  /** Replays being built, by (tip, mempool version). */
  private readonly replaysInFlight = new Map<string, Promise<MempoolReplay>>();
  /**
   * Settles once the block this process is committing (replayAfterBlock) is back and its
   * pending state installed; null when no block commit is in flight.
   */
  private blockCommit: Promise<void> | null = null;

  constructor(private readonly ctx: ChainContext) {}

  /**
   * The pending state: the mempool replayed on the tip, for a block at height tip+1: the state with every
   * transaction that still connects applied (in arrival order), those
   * transactions and their fees, and the ones that failed with why.
   */
  async current(): Promise<MempoolReplay> {
    const { tip, mempoolVersion: version } = await this.ctx.position();
    const cached = this.replayCache;
    if (cached && cached.tip.hashHex === tip.hashHex && cached.version === version) return cached;
    // Requests arriving together after a change share one replay instead of each building one
    // (under a stream of writes, dozens of reads would otherwise replay the same mempool at once).
    const key = `${tip.hashHex}:${version}`;
    let building = this.replaysInFlight.get(key);
    if (building === undefined) {
      building = (async () => {
        const replay = (cached && (await this.extendReplay(cached, tip, version))) || (await this.buildReplay(tip, version));
        this.replayCache = replay;
        return replay;
      })().finally(() => this.replaysInFlight.delete(key));
      this.replaysInFlight.set(key, building);
    }
    return building;
  }

  /**
   * The pending state at `point`, a point of it, and which state keys may differ from what
   * they were at `since` (Chain.pendingChanges says how that is bounded).
   */
  async changes(since: PendingPoint | null): Promise<{ point: PendingPoint; changed: ReadonlySet<string> | null; view: StateView }> {
    const replay = await this.current();
    const point: PendingPoint = { tipHashHex: replay.tip.hashHex, height: replay.tip.height, version: replay.version, writes: replay.writes };
    return { point, changed: since === null ? null : await this.keysChangedBetween(since, point), view: replay.view.child() };
  }

  /**
   * Takes an admission batch this process just committed (guarded on `baseVersion`) into the
   * cached replay it was connected on: `batchView`, a child of the replay's view, holds its
   * writes. The store then holds exactly the replay plus the batch, so the cache is extended in
   * place, unless a replay is being built meanwhile (a read that saw the commit, extending the
   * cache with the batch from the store): it would then connect the batch a second time, over
   * its own writes. Then the next read extends or rebuilds instead.
   */
  adopt(replay: MempoolReplay, baseVersion: number | undefined, batchView: StateView, admitted: readonly AdoptedAdmission[]): void {
    if (this.replayCache !== replay || replay.version !== baseVersion || this.replaysInFlight.size > 0) return;
    for (const a of admitted) {
      recordWrites(replay.writes, a.entry.version, a.writes);
      replay.accepted.push({ ...a.entry, feeNanos: a.feeNanos, delta: a.delta });
      replay.hashes.add(a.entry.hashHex);
      replay.bytes += a.entry.bytes.length;
      replay.mempoolBytes += a.entry.bytes.length;
      replay.feesNanos += a.feeNanos;
    }
    batchView.commitTo();
    replay.version = (baseVersion ?? 0) + admitted.length;
  }

  /**
   * The accepted transactions a block on `parentHashHex` holds, when they are exactly the first
   * ones the cached replay connected, in the same order, on that very tip: then each one's
   * delta is what connecting it in the block would write (the same state before it, the same
   * height), and the block applies them instead of connecting them again. Null otherwise
   * (another tip, another order, a replay rebuilt or never cached in this process).
   */
  connectedPrefix(parentHashHex: string, hashHexes: readonly string[]): readonly AcceptedTxn[] | null {
    const replay = this.replayCache;
    return replay !== null && startsWith(replay, parentHashHex, hashHexes) ? replay.accepted.slice(0, hashHexes.length) : null;
  }

  /**
   * The first `count` transactions the pending state accepted, when it is on tip `tipHashHex`
   * and the last of them is the one admitted at mempool version `throughVersion`: a template
   * built on this tip through that version holds exactly these (a replay on one tip only grows,
   * and connects the same transactions the same way whenever it is rebuilt). Null otherwise:
   * the tip moved on (the template is stale), or some of them are no longer pending.
   */
  async acceptedThrough(tipHashHex: string, throughVersion: number, count: number): Promise<readonly AcceptedTxn[] | null> {
    if (count === 0) return null;
    const replay = await this.current();
    if (replay.tip.hashHex !== tipHashHex || replay.accepted.length < count) return null;
    return replay.accepted[count - 1]!.version === throughVersion ? replay.accepted.slice(0, count) : null;
  }

  /**
   * The pending state a block leaves when it mined the first `minedHashHexes.length` of the
   * transactions the cached replay accepted on its parent (Blocks.process, for a block of this
   * node's own template), built while the block commits instead of after: the rest of the
   * replayed mempool (accepted and failed, in arrival order) connected again at the next height
   * on `blockView`, the parent's state plus the block's writes, which the store holds once the
   * commit lands. Reads of keys the block did not write find the same values in the store
   * before and after it. Null when the cache is not that replay (then `current` rebuilds).
   *
   * Readers that see the new tip while it is still being built (the commit landed first) wait
   * for it rather than build their own; it becomes the cached replay only through `settle`,
   * with whether the block was committed.
   */
  replayAfterBlock(parentHashHex: string, minedHashHexes: readonly string[], tip: TipRecord, blockView: StateView): { settle(committed: boolean): Promise<void> } | null {
    const old = this.replayCache;
    if (old === null || !startsWith(old, parentHashHex, minedHashHexes)) return null;
    // Read together, before any await: admissions adopted meanwhile extend `old` in place.
    const version = old.version;
    const entry = ({ hashHex, version: v, bytes, addedAtMs, signer }: MempoolTxn): MempoolTxn => ({ hashHex, version: v, bytes, addedAtMs, signer });
    const rest = [...old.accepted.slice(minedHashHexes.length).map(entry), ...old.failures.map((f) => entry(f.entry))].sort((a, b) => a.version - b.version);
    const replay = this.emptyReplay(tip, version, blockView.child());
    const building = this.replayAll(replay, rest).then(() => replay);
    // Awaited only once the block's commit is back (by `settle`, or a reader): a store that fails
    // meanwhile must not leave a rejection no one handles yet (Node reports it unhandled: an
    // error in main.ts's log, a failed file under node:test).
    building.catch(() => undefined);
    // Keyed by the new tip, which no reader sees before the commit lands.
    const key = `${tip.hashHex}:${version}`;
    this.replaysInFlight.set(key, building);
    let settled!: () => void;
    const blockCommit = new Promise<void>((resolve) => (settled = resolve));
    this.blockCommit = blockCommit;
    return {
      settle: async (committed) => {
        try {
          const built = await building;
          if (committed) this.install(built);
        } catch {
          // A store that failed mid-build: readers rebuild on their own.
        } finally {
          if (this.replaysInFlight.get(key) === building) this.replaysInFlight.delete(key);
          if (this.blockCommit === blockCommit) this.blockCommit = null;
          settled();
        }
      },
    };
  }

  /**
   * Settles when the block commit this process has in flight, if any, is back and the pending
   * state after it is installed. An admission batch that began now would be connected on the
   * old tip and sent behind the block's commit, whose tip guard it would then fail: it waits
   * instead, and connects once, on the new tip.
   */
  blockCommitSettled(): Promise<void> | null {
    return this.blockCommit;
  }

  /** Makes a replay the cached one, unless the cache already holds one on its tip at least as recent. */
  private install(replay: MempoolReplay): void {
    const c = this.replayCache;
    if (c !== null && c.tip.hashHex === replay.tip.hashHex && (c.version ?? 0) >= (replay.version ?? 0)) return;
    this.replayCache = replay;
  }

  private async keysChangedBetween(from: PendingPoint, to: PendingPoint): Promise<ReadonlySet<string> | null> {
    if (from.tipHashHex === to.tipHashHex) {
      const [a, b] = [from.version ?? 0, to.version ?? 0];
      if (b < a) return null;
      if (from.writes === to.writes) {
        // One lineage: the admissions in between, if every version in between was one.
        const changed = new Set<string>();
        let complete = true;
        for (let v = a + 1; v <= b && complete; v++) {
          const keys = to.writes.byVersion.get(v);
          if (keys === undefined) complete = false;
          else for (const k of keys) changed.add(k);
        }
        if (complete) return changed;
      }
      return new Set([...from.writes.all, ...to.writes.all]);
    }
    const blocks = to.height - from.height;
    if (blocks <= 0n || blocks > MAX_BLOCKS_BETWEEN_POINTS) return null;
    const heights = Array.from({ length: Number(blocks) + 1 }, (_, i) => from.height + BigInt(i));
    const hashes = await this.ctx.store.getMany<string>(heights.map((h) => chainKeys.hashAtHeight(h)));
    if (hashes[0] !== from.tipHashHex || hashes[hashes.length - 1] !== to.tipHashHex) return null;
    const lists = await this.ctx.store.getMany<BlockWritesRecord>(heights.slice(1).map((h) => chainKeys.blockWrites(h)));
    if (lists.some((w, i) => w === undefined || w.hashHex !== hashes[i + 1] || w.keys === null)) return null;
    return new Set([...from.writes.all, ...to.writes.all, ...lists.flatMap((w) => w!.keys!)]);
  }

  /**
   * The cached replay brought up to `version` by connecting only what was admitted since
   * (usually through another process), instead of replaying the whole mempool: without this,
   * a process whose cache another process's admission invalidated needs a full replay per
   * attempt and keeps losing the admission race to the process that admitted last.
   *
   * Valid only when nothing but admissions happened in between: same tip, and one new order
   * member per version step (a prune also moves the version but adds no member).
   * Returns null when a full replay is needed. The cached replay is not changed: the new one
   * is a child view over it.
   */
  private async extendReplay(cached: MempoolReplay, tip: TipRecord, version: number | undefined): Promise<MempoolReplay | null> {
    if (cached.tip.hashHex !== tip.hashHex || version === undefined || cached.extensions >= MAX_REPLAY_EXTENSIONS) return null;
    const from = cached.version ?? 0;
    if (version <= from) return null;
    const members = (await this.ctx.store.indexRange(MEMPOOL_ORDER, { gte: orderMember(from + 1, ''), lt: orderMember(version + 1, '') })).map(parseOrderMember);
    if (members.length !== version - from) return null;
    const entries = await this.ctx.store.getMany<MempoolEntry>(members.map((m) => mempoolTxnKey(m.hashHex)));
    if (entries.some((e) => e === undefined)) return null;
    const replay: MempoolReplay = {
      ...cached,
      version,
      view: cached.view.child(),
      accepted: [...cached.accepted],
      failures: [...cached.failures],
      hashes: new Set(cached.hashes),
      extensions: cached.extensions + 1,
    };
    await this.replayAll(replay, entries.map((e, i) => ({ ...members[i]!, ...e! })));
    return replay;
  }

  /**
   * Connects mempool transactions onto a replay in order, each decoded once, with the keys
   * every one reads fetched in one round trip first (a replay after a block connects what the
   * block left, which would otherwise cost a few sequential reads per transaction).
   */
  private async replayAll(replay: MempoolReplay, txns: readonly MempoolTxn[]): Promise<void> {
    const decoded = txns.map((m) => {
      try {
        return decodeTxn(m.bytes);
      } catch (error) {
        return error as Error;
      }
    });
    await replay.view.prefetch(decoded.flatMap((txn, i) => (txn instanceof Error ? [] : commonReads(txn, txns[i]!.signer))));
    for (const [i, m] of txns.entries()) await this.replayOne(replay, m, decoded[i]!);
  }

  /** Connects one mempool transaction onto a replay: accepted with its fee, or a failure with why. */
  private async replayOne(replay: MempoolReplay, m: MempoolTxn, txn: TxnEnvelope | Error): Promise<void> {
    replay.mempoolBytes += m.bytes.length;
    replay.hashes.add(m.hashHex);
    const view = replay.view.child();
    try {
      if (txn instanceof Error) throw txn;
      // Its place in the block that would mine the accepted transactions in order.
      const info = { hash: fromHex(m.hashHex), size: m.bytes.length, signer: m.signer, indexInBlock: replay.accepted.length + 1 };
      const r = await connectTransaction(view, txn, info, this.ctx.connectContext(replay.height));
      recordWrites(replay.writes, m.version, view.writtenKeys());
      replay.accepted.push({ ...m, feeNanos: r.feeNanos, delta: view.commitTo() });
      replay.feesNanos += r.feeNanos;
      replay.bytes += m.bytes.length;
    } catch (error) {
      // A store that cannot answer says nothing about the transaction: the replay fails (and
      // is not cached) rather than leave it out of every later read and template.
      if (isStoreUnavailable(error)) throw error;
      recordWrites(replay.writes, m.version, []);
      replay.failures.push({ entry: m, error });
    }
  }

  private emptyReplay(tip: TipRecord, version: number | undefined, view: StateView): MempoolReplay {
    return {
      tip,
      version,
      height: tip.height + 1n,
      view,
      accepted: [],
      bytes: 0,
      mempoolBytes: 0,
      feesNanos: 0n,
      failures: [],
      hashes: new Set(),
      extensions: 0,
      writes: { byVersion: new Map(), all: new Set() },
    };
  }

  private async buildReplay(tip: TipRecord, version: number | undefined): Promise<MempoolReplay> {
    const replay = this.emptyReplay(tip, version, StateView.over(this.ctx.store));
    // Only what was admitted up to the version this replay is of: an admission committed since
    // is not in it, or a later extension to that version would connect it a second time.
    await this.replayAll(replay, await readMempool(this.ctx.store, version ?? 0));
    return replay;
  }
}
