/**
 * The chain of one node: the dev chain's genesis, the mempool, block templates and connecting
 * blocks, all in the store (so every server process on one Redis sees one chain). Plain methods
 * over the store and the crypto service; routes and the miner call them.
 *
 * Consistency across processes rests on guarded commits: a block connects only if the tip is
 * still the parent it was validated against, and a transaction enters the mempool only if the
 * mempool did not change while it was validated. Losers of a race retry or report.
 *
 * Not yet: reorganisations. A valid block on a side branch is stored and answered
 * `IsMainChain: false`, but a longer side branch does not replace the main chain.
 * @module
 */
import type { Logger } from 'pino';
import type { CryptoService } from '../crypto/service.js';
import { isStoreUnavailable, type Guard, type Store, type WriteOp } from '../store/types.js';
import { sha256d } from '../../wasm/hash.js';
import { encodeHeader, decodeHeader, HEADER_BYTES, type BlockHeader } from './block/header.js';
import { merkleRoot, rootFromFirstLeafPath } from './block/merkle.js';
import { nextTarget } from './block/difficulty.js';
import { blockRewardNanos } from './block/reward.js';
import type { ChainParams } from './block/params.js';
import { decodeTxn, encodeTxn, txnHash, type TxnEnvelope } from './txn/envelope.js';
import { TxnDecodeError } from './txn/errors.js';
import { encodeMetadata, TxnType } from './txn/metadata.js';
import { encodeUvarint } from './txn/varint.js';
import { commonReads, connectBlockReward, connectTransaction, type ConnectContext, type ConnectRules } from './rules/connect.js';
import { RuleError } from './rules/errors.js';
import { checkSignatures } from './rules/signatures.js';
import { BatchQueue, type Settled } from './batchQueue.js';
import { chainKeys, LAYOUT_VERSION, txnLocation, type BlockRecord, type BlockWritesRecord, type TipRecord } from './state/keys.js';
import { expiredNonceOps } from './state/nonces.js';
import { StateView } from './state/view.js';
import type { StateReader } from './state/reader.js';
import { getGlobalParams, globalParamsDefaults, type GlobalParams } from './state/globalParams.js';
import { randomU64 } from './random.js';
import type { WatchedRead } from '../store/watchedRead.js';
import { toHex, fromHex } from '../hex.js';

/** Pub/sub channels: a new tip, a changed mempool. */
export const CHANNEL_TIP = 'chain:tip';
export const CHANNEL_MEMPOOL = 'chain:mempool';
/** The block producer's newest template: `{ BlockId }` (the record is in the store). */
export const CHANNEL_TEMPLATE = 'chain:template';

/** Bytes a signature adds at most (as construct.ts's fee estimate). */
const MAX_DER_SIGNATURE_BYTES = 74;
/** Largest transaction accepted, bytes. */
export const MAX_TXN_BYTES = 100_000;
/** How long a block template stays valid for submit-block. */
const TEMPLATE_TTL_MS = 10 * 60_000;
/**
 * How long an announced template stays valid: shorter, because the producer announces one per
 * mempool change whether or not anyone mines it; it re-announces well within this while
 * quiet (blockProducer.ts), so a template a miner holds never expires under it.
 */
export const PUBLISHED_TEMPLATE_TTL_MS = 2 * 60_000;

const MEMPOOL_ORDER = 'mempool:order';
const MEMPOOL_VERSION = 'mempool:version';
const mempoolTxnKey = (hashHex: string): string => `mempool:txn:${hashHex}`;
const templateKey = (blockId: string): string => `chain:template:${blockId}`;
/** A template record this process stored this recently is not stored again (`storeTemplateRecord`). */
const TEMPLATE_REWRITE_AFTER_MS = 1_000;

interface MempoolEntry {
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

interface MempoolTxn extends MempoolEntry {
  hashHex: string;
  version: number;
}

/** A mempool transaction that connected in a replay, with the fee it pays. */
interface AcceptedTxn extends MempoolTxn {
  feeNanos: bigint;
}

/**
 * The state keys each admission of a replay lineage wrote (a full replay and the admissions
 * layered on it share one). `all` may hold more than one replay of the lineage wrote (a later
 * extension's keys), never less: callers use it as a bound.
 */
interface ReplayWrites {
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
const MAX_BLOCKS_BETWEEN_POINTS = 32n;
/**
 * Most keys a block's written-key list names (chainKeys.blockWrites); a block that wrote more
 * stores no list, and caches across it start over. With the lists of the last
 * MAX_BLOCKS_BETWEEN_POINTS blocks kept, that bounds them by size whatever the write rate.
 */
const MAX_BLOCK_WRITES_LISTED = 20_000;

export interface ChainPosition {
  tip: TipRecord;
  /** The mempool admission counter; undefined before the first admission. */
  mempoolVersion: number | undefined;
}

interface MempoolReplay {
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
  /** Admissions of other processes layered on a full replay (see extendReplay). */
  extensions: number;
  writes: ReplayWrites;
}

/** Layers of other processes' admissions on one full replay before it is rebuilt flat. */
const MAX_REPLAY_EXTENSIONS = 64;
/** An admission's mempool order member: the version it created, then its hash. */
const orderMember = (version: number, hashHex: string): string => `${String(version).padStart(15, '0')}:${hashHex}`;
const parseOrderMember = (member: string): { version: number; hashHex: string } => {
  const colon = member.indexOf(':');
  return { version: Number(member.slice(0, colon)), hashHex: member.slice(colon + 1) };
};

function recordWrites(writes: ReplayWrites, version: number, keys: readonly string[]): void {
  writes.byVersion.set(version, keys);
  for (const k of keys) writes.all.add(k);
}

interface TemplateRecord {
  prevHashHex: string;
  height: bigint;
  tstampSecs: bigint;
  targetHex: string;
  /**
   * The block's user transactions, by reference rather than by value (a record stays a few
   * hundred bytes whatever the block's size): the mempool's transactions with versions up to
   * `throughVersion`, less `skipped` (those that did not connect), in mempool order. The store
   * keeps them until a block mines them, and then this template is for an old tip anyway.
   * Absent in records of older versions (treated as expired).
   */
  throughVersion?: number;
  skipped: string[];
  txnCount: number;
  /**
   * The merkle path of the reward (leaf 0) over the transactions (merklePath task): each
   * header's root is then one hash per level.
   */
  merklePath: Uint8Array[];
  feesNanos: bigint;
  /** The first mempool transaction left out, if any (for LatestBlockTemplateStats). */
  failing: { hashHex: string; error: string; addedAtMs: number } | null;
}

export interface TemplateStats {
  TxnCount: number;
  FailingTxnError: string;
  FailingTxnHash: string;
  FailingTxnMinutesSinceAdded: number;
  FailingTxnOriginalTimeAdded: string;
}

export interface BlockTemplate {
  blockId: string;
  /** 32-byte target, big-endian. */
  target: Uint8Array;
  height: bigint;
  /** Headers for the reward key, one per extra nonce (nonce 0, extra nonce 0 in the header). */
  headers: Uint8Array[];
  extraNonces: bigint[];
  stats: TemplateStats;
}

export interface ProcessResult {
  isMainChain: boolean;
  isOrphan: boolean;
  hashHex: string;
}

export interface SubmittedTxn {
  hashHex: string;
  txn: TxnEnvelope;
}

export interface ChainOptions {
  store: Store;
  crypto: CryptoService;
  params: ChainParams;
  log: Logger;
  /** Burned on profile creation (ConnectRules.createProfileFeeNanos) until global params set it. @default 0n */
  createProfileFeeNanos?: bigint;
  /** Keys that may send UPDATE_GLOBAL_PARAMS and SWAP_IDENTITY (33 bytes each). @default none */
  paramUpdaterPublicKeys?: readonly Uint8Array[];
  now?: () => number;
}

/** Options of a block write. */
export interface BlockWriteOptions {
  /**
   * The block producer's lease guard (ProducerLease.fence): the block is written only while
   * the lease still holds this term, else nothing is written and FencedError is thrown.
   */
  fence?: Guard;
}

/** A producer's block write refused because its lease term is over (another process leads). */
export class FencedError extends Error {
  override readonly name = 'FencedError';
  constructor() {
    super('block producer lease lost: the block was not written (another process produces blocks now)');
  }
}

/** A block or template request refused for what it asks (answered 400). */
export class ChainRequestError extends Error {
  override readonly name = 'ChainRequestError';
}

/** The transaction is fine but could not be admitted against a mempool that kept changing: retry. */
export class MempoolBusyError extends Error {
  override readonly name = 'MempoolBusyError';
}

/** Guarded admission attempts before giving up with MempoolBusyError. */
const ADMISSION_ATTEMPTS = 16;
/** Most transactions admitted in one batch (one guarded commit). */
const MAX_ADMISSION_BATCH = 256;

/** A submitted transaction waiting for admission: decoded and hashed once, on arrival. */
interface Admission {
  bytes: Uint8Array;
  txn: TxnEnvelope;
  hash: Uint8Array;
  hashHex: string;
  /** The key whose signature verified (owner or derived key). */
  signer: Uint8Array;
}

const hex = toHex;

export class Chain {
  private readonly store: Store;
  private readonly crypto: CryptoService;
  readonly params: ChainParams;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly createProfileFeeNanos: bigint;
  private readonly paramUpdaterPublicKeys: ReadonlySet<string>;
  /**
   * The last full mempool replay. Valid while the tip and the mempool version are the ones it
   * was built on; an admission through this process extends it in place, so admitting a
   * transaction costs one connect instead of a replay of the whole mempool.
   */
  private replayCache: MempoolReplay | null = null;

  constructor(opts: ChainOptions) {
    this.store = opts.store;
    this.positionRead = this.store.watchedRead(() => this.readPosition());
    this.crypto = opts.crypto;
    this.params = opts.params;
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.createProfileFeeNanos = opts.createProfileFeeNanos ?? 0n;
    this.paramUpdaterPublicKeys = new Set((opts.paramUpdaterPublicKeys ?? []).map((k) => hex(k)));
  }

  private get rules(): ConnectRules {
    return {
      maxNonceExpirationBlockHeightOffset: BigInt(this.params.maxNonceExpirationBlockHeightOffset),
      minNetworkFeeNanosPerKB: BigInt(this.params.minNetworkFeeNanosPerKB),
      createProfileFeeNanos: this.createProfileFeeNanos,
      paramUpdaterPublicKeys: this.paramUpdaterPublicKeys,
    };
  }

  /**
   * The global params in force at `state` (default: the pending view, i.e. for the next
   * block): values set on chain over this node's defaults.
   */
  async globalParams(state?: StateReader): Promise<GlobalParams> {
    return getGlobalParams(state ?? (await this.pendingView()), globalParamsDefaults(this.rules));
  }

  private context(height: bigint): ConnectContext {
    return { height, rules: this.rules, crypto: this.crypto };
  }

  /**
   * A view of the state the next block would build on: the tip plus every mempool transaction
   * that still connects. Read routes that should show unmined writes read through it.
   */
  async pendingView(): Promise<StateView> {
    // A child, so what a caller writes (a simulated order, say) never reaches the cached replay.
    return (await this.replayMempool()).view.child();
  }

  /**
   * Brings the pending view up to date and says which state keys may differ from what they
   * were at `since` (a point this method answered before, or null): caches of answers derived
   * from the pending state (social/readCache.ts) drop only answers that read one of them.
   * `changed` is null when that cannot be bounded (the first call, a reorganisation, too many
   * blocks in between, a block whose key list expired): then anything may have changed.
   *
   * The bound: the pending state at a point is the mined state plus what the mempool replay on
   * it wrote. Between two points on one tip only admissions or prunes happen, so a key neither
   * replay wrote holds the store's value in both; with admissions alone, exactly the keys the
   * new admissions wrote changed. Across blocks, add every key the blocks' commits wrote.
   *
   * `view` is the pending state at `point` (its mempool part is fixed; keys it does not hold
   * are read from the store, so they are of `point` only while the tip is still `point`'s).
   */
  async pendingChanges(since: PendingPoint | null): Promise<{ point: PendingPoint; changed: ReadonlySet<string> | null; view: StateView }> {
    const replay = await this.replayMempool();
    const point: PendingPoint = { tipHashHex: replay.tip.hashHex, height: replay.tip.height, version: replay.version, writes: replay.writes };
    return { point, changed: since === null ? null : await this.keysChangedBetween(since, point), view: replay.view.child() };
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
    const hashes = await this.store.getMany<string>(heights.map((h) => chainKeys.hashAtHeight(h)));
    if (hashes[0] !== from.tipHashHex || hashes[hashes.length - 1] !== to.tipHashHex) return null;
    const lists = await this.store.getMany<BlockWritesRecord>(heights.slice(1).map((h) => chainKeys.blockWrites(h)));
    if (lists.some((w, i) => w === undefined || w.hashHex !== hashes[i + 1] || w.keys === null)) return null;
    return new Set([...from.writes.all, ...to.writes.all, ...lists.flatMap((w) => w!.keys!)]);
  }

  /**
   * Connects an unsigned transaction, as if `signer` had signed it, on a throw-away child of
   * `base` (default: the pending view) and returns that child: construction routes read the
   * expected outcome (coins returned, orders filled) from it. Sized with a maximal signature.
   * @throws {RuleError} when the transaction would not connect
   */
  async simulate(unsignedBytes: Uint8Array, signer: Uint8Array, base?: StateView): Promise<StateView> {
    const view = (base ?? (await this.pendingView())).child();
    const height = (await this.tip()).height + 1n;
    const info = { hash: txnHash(unsignedBytes), size: unsignedBytes.length + MAX_DER_SIGNATURE_BYTES, signer };
    await connectTransaction(view, decodeTxn(unsignedBytes), info, this.context(height));
    return view;
  }

  // --- genesis and tip ----------------------------------------------------------------------

  /** Writes the dev chain's genesis block unless the store already holds a chain. */
  async init(): Promise<TipRecord> {
    const existing = await this.store.get<TipRecord>(chainKeys.tip);
    if (existing) return existing;
    const reward = encodeTxn({
      inputs: [],
      outputs: [{ publicKey: new Uint8Array(33).fill(2, 0, 1), amountNanos: 0n }],
      txnType: TxnType.BLOCK_REWARD,
      metadata: encodeMetadata({ type: 'BLOCK_REWARD', extraData: new TextEncoder().encode('social-node dev chain') }),
      publicKey: new Uint8Array(0),
      extraData: [],
      signature: new Uint8Array(0),
      v1: null,
    });
    const header: BlockHeader = {
      version: 1,
      prevBlockHash: new Uint8Array(32),
      transactionMerkleRoot: merkleRoot([txnHash(reward)]),
      tstampSecs: BigInt(this.params.genesisTstampSecs),
      height: 0n,
      nonce: 0n,
      extraNonce: 0n,
    };
    const headerBytes = encodeHeader(header);
    const [hash] = await this.crypto.hashHeaders([headerBytes]);
    const hashHex = hex(hash!);
    const tip: TipRecord = { hashHex, height: 0n, tstampSecs: header.tstampSecs, targetHex: this.params.minDifficultyTargetHex };
    const block: BlockRecord = { header: headerBytes, txns: [reward], height: 0n, targetHex: tip.targetHex, mainChain: true };
    // Set-if-absent: of processes starting together on one Redis, one genesis wins (they are identical anyway).
    await this.store.commit(
      [
        { op: 'set', key: chainKeys.block(hashHex), value: block },
        { op: 'set', key: chainKeys.hashAtHeight(0n), value: hashHex },
        { op: 'set', key: chainKeys.tip, value: tip },
        { op: 'set', key: chainKeys.layout, value: LAYOUT_VERSION },
      ],
      [{ key: chainKeys.tip, equals: undefined }],
    );
    return (await this.store.get<TipRecord>(chainKeys.tip))!;
  }

  /**
   * Where the chain is now: the tip and the mempool's admission counter (undefined before the
   * first admission). Never staler than a read of one's own, though usually not a read of its
   * own: the store remembers it until a commit (store/watchedRead.ts), and concurrent callers
   * share one read. Anything derived only from chain state is still valid while both are
   * unchanged.
   */
  position(): Promise<ChainPosition> {
    return this.positionRead.get();
  }

  private readonly positionRead: WatchedRead<ChainPosition>;

  private async readPosition(): Promise<ChainPosition> {
    const [tip, mempoolVersion] = await this.store.getMany<unknown>([chainKeys.tip, MEMPOOL_VERSION]);
    if (!tip) throw new Error('chain not initialised: call init() first');
    return { tip: tip as TipRecord, mempoolVersion: mempoolVersion as number | undefined };
  }

  async tip(): Promise<TipRecord> {
    const tip = await this.store.get<TipRecord>(chainKeys.tip);
    if (!tip) throw new Error('chain not initialised: call init() first');
    return tip;
  }

  async balance(pk33: Uint8Array): Promise<bigint> {
    return (await this.store.get<bigint>(chainKeys.balance(pk33))) ?? 0n;
  }

  // --- mempool ------------------------------------------------------------------------------

  /**
   * Validates a signed transaction against the tip plus the mempool and adds it. Concurrent
   * submissions are admitted in batches (admitBatch): the answer is the same as one at a time,
   * in arrival order.
   * @throws {TxnDecodeError} malformed bytes; {RuleError} a broken rule (duplicate, signature,
   *   nonce, balance, …); {MempoolBusyError} the mempool kept changing under it
   */
  async submitTransaction(bytes: Uint8Array): Promise<SubmittedTxn> {
    if (bytes.length > MAX_TXN_BYTES) throw new RuleError('RuleErrorTxnTooBig', `${bytes.length} bytes is over the ${MAX_TXN_BYTES}-byte limit`);
    const txn = decodeTxn(bytes);
    const hash = txnHash(bytes);
    if (txn.txnType === TxnType.BLOCK_REWARD) throw new RuleError('RuleErrorBlockRewardNotFirst', 'block rewards are only valid inside blocks');
    // Checked before queueing, so signatures are verified (batched by the crypto service) while
    // the admission batch before this one commits.
    const [verdict] = await checkSignatures(this.crypto, [{ bytes, txn }]);
    if (verdict!.error) throw verdict!.error;
    return this.admissions.add({ bytes, txn, hash, hashHex: hex(hash), signer: verdict!.signer });
  }

  private readonly admissions = new BatchQueue<Admission, SubmittedTxn>((items) => this.admitBatch(items), MAX_ADMISSION_BATCH);

  /**
   * Admits a batch of transactions (signatures already checked) in arrival order: their
   * duplicate checks and common state reads in one store round trip, each connected on the
   * pending state plus the ones before it, then all accepted ones in one guarded commit and one
   * publish. A transaction that breaks a rule is refused alone; when another process changed
   * the mempool meanwhile, the accepted ones are connected again on the new mempool and retried.
   */
  private async admitBatch(items: readonly Admission[]): Promise<Array<Settled<SubmittedTxn>>> {
    const results: Array<Settled<SubmittedTxn> | undefined> = new Array(items.length);
    const fail = (i: number, error: unknown): void => {
      results[i] = { ok: false, error };
    };
    let pending = items.map((_, i) => i);

    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === ADMISSION_ATTEMPTS) {
        for (const i of pending) fail(i, new MempoolBusyError(`the mempool changed during each of ${ADMISSION_ATTEMPTS} attempts to add this transaction; retry`));
        break;
      }
      // Another admission or a block won the race: back off a little, growing and jittered, so
      // contending processes stop colliding (a busy miner changes the mempool every block).
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 50)));
      try {
        pending = await this.admitOnce(items, pending, fail, results);
      } catch (error) {
        // The store failed (a rule error never reaches here): nothing more was admitted.
        for (const i of pending) if (results[i] === undefined) fail(i, error);
        break;
      }
    }
    return results.map((r) => r ?? { ok: false, error: new Error('admission left a transaction unanswered') });
  }

  /**
   * One guarded attempt of admitBatch for the `pending` items: settles the refused and, when the
   * commit holds, the admitted ones; returns those to try again (the commit lost a race).
   */
  private async admitOnce(
    items: readonly Admission[],
    pending: readonly number[],
    fail: (i: number, error: unknown) => void,
    results: Array<Settled<SubmittedTxn> | undefined>,
  ): Promise<number[]> {
    const replay = await this.replayMempool();
    // Read before connecting: a replay of this process may move on while this batch awaits,
    // and then the commit must lose its guard and retry.
    const baseVersion = replay.version;
    // One round trip: whether each is already known, and the state keys every one reads.
    const dupKeys = pending.flatMap((i) => [mempoolTxnKey(items[i]!.hashHex), chainKeys.txn(items[i]!.hashHex)]);
    const [known] = await Promise.all([this.store.getMany<unknown>(dupKeys), replay.view.prefetch(pending.flatMap((i) => commonReads(items[i]!.txn, items[i]!.signer)))]);
    const batchView = replay.view.child();
    const admitted: Array<{ i: number; entry: MempoolTxn; writes: string[]; feeNanos: bigint }> = [];
    const inBatch = new Set<string>();
    // The limit is checked against the mempool the guard below pins (version baseVersion), so
    // with any number of processes admitting at once it is never passed. A rule error (400), as
    // the reference answers every mempool refusal, rather than a 503: a full mempool stays full
    // until a block, so an immediate retry would not help.
    let held = replay.mempoolBytes;
    for (const [n, i] of pending.entries()) {
      const { bytes, txn, hash, hashHex } = items[i]!;
      const [existing, mined] = [known[2 * n], known[2 * n + 1]];
      if (existing !== undefined || mined !== undefined || inBatch.has(hashHex)) {
        fail(i, new RuleError('RuleErrorDuplicateTxn', `transaction ${hashHex} is already ${mined !== undefined ? 'mined' : 'in the mempool'}`));
        continue;
      }
      if (held + bytes.length > this.params.mempoolMaxSizeBytes) {
        fail(
          i,
          new RuleError(
            'RuleErrorMempoolFull',
            `the mempool holds ${held} bytes and this ${bytes.length}-byte transaction would pass its limit of ${this.params.mempoolMaxSizeBytes} bytes (--mempool-max-size-bytes); retry after the next block`,
          ),
        );
        continue;
      }
      const view = batchView.child();
      const signer = items[i]!.signer;
      let feeNanos: bigint;
      try {
        feeNanos = (await connectTransaction(view, txn, { hash, size: bytes.length, signer }, this.context(replay.height))).feeNanos;
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        fail(i, error);
        continue;
      }
      const version = (baseVersion ?? 0) + admitted.length + 1;
      admitted.push({ i, entry: { hashHex, version, bytes, addedAtMs: this.now(), signer }, writes: view.writtenKeys(), feeNanos });
      view.commitTo();
      inBatch.add(hashHex);
      held += bytes.length;
    }
    if (admitted.length === 0) return [];
    const lastVersion = (baseVersion ?? 0) + admitted.length;
    const ok = await this.store.commit(
      [
        ...admitted.map(({ entry: { hashHex, ...stored } }) => ({ op: 'set' as const, key: mempoolTxnKey(hashHex), value: stored satisfies MempoolEntry })),
        // Ordered by the version each admission creates: strictly increasing across every
        // process (the commit is guarded on the previous one), so the mempool replays in
        // exactly the order its transactions were validated in.
        { op: 'indexAdd', key: MEMPOOL_ORDER, members: admitted.map((a) => orderMember(a.entry.version, a.entry.hashHex)) },
        { op: 'set', key: MEMPOOL_VERSION, value: lastVersion },
      ],
      [{ key: MEMPOOL_VERSION, equals: baseVersion }],
    );
    if (!ok) return admitted.map((a) => a.i);
    // The store now holds exactly the replay plus this batch: extend the cache in place, unless
    // a replay is being built meanwhile (a read that saw this commit extending the cache with
    // it from the store): it would then connect this batch a second time, over its own writes.
    if (this.replayCache === replay && replay.version === baseVersion && this.replaysInFlight.size === 0) {
      for (const a of admitted) {
        recordWrites(replay.writes, a.entry.version, a.writes);
        replay.accepted.push({ ...a.entry, feeNanos: a.feeNanos });
        replay.bytes += a.entry.bytes.length;
        replay.mempoolBytes += a.entry.bytes.length;
        replay.feesNanos += a.feeNanos;
      }
      batchView.commitTo();
      replay.version = lastVersion;
    }
    for (const a of admitted) results[a.i] = { ok: true, value: { hashHex: a.entry.hashHex, txn: items[a.i]!.txn } };
    // Not awaited, and admitted whatever the publish does: a lost announcement delays the next
    // template until the producer's refresh, it loses no transaction.
    void this.store.publish(CHANNEL_MEMPOOL, { added: admitted.map((a) => a.entry.hashHex) }).catch((err: unknown) => {
      this.log.warn({ err: (err as Error).message }, 'mempool: could not announce admitted transactions');
    });
    return [];
  }

  /** How many transactions wait in the mempool (one store call; metrics read it per scrape). */
  async mempoolSize(): Promise<number> {
    return this.store.indexSize(MEMPOOL_ORDER);
  }

  /** Mempool transactions in arrival order (those admitted up to a mempool version, if given). */
  async mempool(throughVersion?: number): Promise<MempoolTxn[]> {
    const range = throughVersion === undefined ? {} : { lt: orderMember(throughVersion + 1, '') };
    const members = (await this.store.indexRange(MEMPOOL_ORDER, range)).map(parseOrderMember);
    const entries = await this.store.getMany<MempoolEntry>(members.map((m) => mempoolTxnKey(m.hashHex)));
    const out: MempoolTxn[] = [];
    entries.forEach((e, i) => {
      if (e) out.push({ ...members[i]!, ...e });
    });
    return out;
  }

  /**
   * Replays the mempool on the tip, for a block at height tip+1: the state with every
   * transaction that still connects applied (in arrival order), those
   * transactions and their fees, and the ones that failed with why.
   */
  private async replayMempool(): Promise<MempoolReplay> {
    const { tip, mempoolVersion: version } = await this.position();
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

  /** Replays being built, by (tip, mempool version). */
  private readonly replaysInFlight = new Map<string, Promise<MempoolReplay>>();

  /**
   * The merkle path of the newest template's transactions, by (tip, mempool version, count):
   * every template request between two mempool changes shares one computation.
   */
  private templatePath: { key: string; path: Promise<Uint8Array[]> } | null = null;

  /** The template record this process stored last (`storeTemplateRecord`). */
  private storedTemplate: { blockId: string; ttlMs: number; atMs: number; written: Promise<void> } | null = null;

  /**
   * The cached replay brought up to `version` by connecting only what was admitted since
   * (usually through another process), instead of replaying the whole mempool: without this,
   * a process whose cache another process's admission invalidated needs a full replay per
   * attempt and keeps losing the admission race to the process that admitted last.
   *
   * Valid only when nothing but admissions happened in between: same tip, and one new order
   * member per version step (a prune or a block also moves the version but adds no member).
   * Returns null when a full replay is needed. The cached replay is not changed: the new one
   * is a child view over it.
   */
  private async extendReplay(cached: MempoolReplay, tip: TipRecord, version: number | undefined): Promise<MempoolReplay | null> {
    if (cached.tip.hashHex !== tip.hashHex || version === undefined || cached.extensions >= MAX_REPLAY_EXTENSIONS) return null;
    const from = cached.version ?? 0;
    if (version <= from) return null;
    const members = (await this.store.indexRange(MEMPOOL_ORDER, { gte: orderMember(from + 1, ''), lt: orderMember(version + 1, '') })).map(parseOrderMember);
    if (members.length !== version - from) return null;
    const entries = await this.store.getMany<MempoolEntry>(members.map((m) => mempoolTxnKey(m.hashHex)));
    if (entries.some((e) => e === undefined)) return null;
    const replay: MempoolReplay = {
      ...cached,
      version,
      view: cached.view.child(),
      accepted: [...cached.accepted],
      failures: [...cached.failures],
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
    const view = replay.view.child();
    try {
      if (txn instanceof Error) throw txn;
      const info = { hash: fromHex(m.hashHex), size: m.bytes.length, signer: m.signer };
      const r = await connectTransaction(view, txn, info, this.context(replay.height));
      recordWrites(replay.writes, m.version, view.writtenKeys());
      view.commitTo();
      replay.accepted.push({ ...m, feeNanos: r.feeNanos });
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

  private async buildReplay(tip: TipRecord, version: number | undefined): Promise<MempoolReplay> {
    const replay: MempoolReplay = {
      tip,
      version,
      height: tip.height + 1n,
      view: StateView.over(this.store),
      accepted: [],
      bytes: 0,
      mempoolBytes: 0,
      feesNanos: 0n,
      failures: [],
      extensions: 0,
      writes: { byVersion: new Map(), all: new Set() },
    };
    // Only what was admitted up to the version this replay is of: an admission committed since
    // is not in it, or a later extension to that version would connect it a second time.
    await this.replayAll(replay, await this.mempool(version ?? 0));
    return replay;
  }

  // --- templates ----------------------------------------------------------------------------

  /**
   * A block template paying `rewardPk33`: the mempool transactions that connect on the tip,
   * `numHeaders` headers each with its own extra nonce (reference §5.6).
   */
  async blockTemplate(rewardPk33: Uint8Array, numHeaders: number): Promise<BlockTemplate> {
    const { blockId, record } = await this.buildTemplateRecord();
    return this.templateFor(blockId, record, rewardPk33, numHeaders);
  }

  /**
   * Builds the current template once, for every reward key, and announces it on
   * CHANNEL_TEMPLATE: the block producer calls this on every tip or mempool change, and every
   * process's miner feed turns it into headers for its own miners (`publishedTemplate`)
   * without replaying the mempool itself.
   */
  async publishTemplate(): Promise<string> {
    const { blockId } = await this.buildTemplateRecord(PUBLISHED_TEMPLATE_TTL_MS);
    await this.store.publish(CHANNEL_TEMPLATE, { BlockId: blockId });
    return blockId;
  }

  /**
   * A template built by `publishTemplate` (on any process), with headers for `rewardPk33`;
   * undefined once it expired.
   */
  async publishedTemplate(blockId: string, rewardPk33: Uint8Array, numHeaders: number): Promise<BlockTemplate | undefined> {
    return (await this.publishedTemplates(blockId, [{ rewardPk33, numHeaders }]))?.[0];
  }

  /**
   * `publishedTemplate` for several (reward key, header count) pairs from one read of the
   * record: the miner feed's subscribers share it, whatever keys they mine to.
   */
  async publishedTemplates(blockId: string, wants: ReadonlyArray<{ rewardPk33: Uint8Array; numHeaders: number }>): Promise<BlockTemplate[] | undefined> {
    const record = await this.store.get<TemplateRecord>(templateKey(blockId));
    // A record without a version bound is an older version's: a fresh announcement follows.
    if (record?.throughVersion === undefined) return undefined;
    return wants.map((w) => this.templateFor(blockId, record, w.rewardPk33, w.numHeaders));
  }

  /**
   * The current template from the pending state (no replay of its own): the accepted mempool
   * transactions in arrival order while they fit in a block, stored under its content id. A
   * prefix of the replay is a valid block: each transaction connected on those before it.
   */
  private async buildTemplateRecord(ttlMs = TEMPLATE_TTL_MS): Promise<{ blockId: string; record: TemplateRecord }> {
    const { tip, version, height, accepted, failures } = await this.replayMempool();
    let count = 0;
    let bytes = 0;
    let feesNanos = 0n;
    for (const m of accepted) {
      if (bytes + m.bytes.length > this.params.minerMaxBlockSizeBytes) break;
      bytes += m.bytes.length;
      feesNanos += m.feeNanos;
      count++;
    }
    const included = accepted.slice(0, count);
    const throughVersion = included.at(-1)?.version ?? 0;
    // Hashed once, at admission: a template never hashes its transactions again.
    const hashes = included.map((m) => fromHex(m.hashHex));
    const first = failures[0];
    const failing = first ? { hashHex: first.entry.hashHex, error: (first.error as Error).message, addedAtMs: first.entry.addedAtMs } : null;
    const nowSecs = BigInt(Math.floor(this.now() / 1000));
    const tstampSecs = nowSecs > tip.tstampSecs ? nowSecs : tip.tstampSecs + 1n;
    const target = await this.targetAfter(tip);
    const merklePath = await this.merklePathFor(`${tip.hashHex}:${version}:${hashes.length}`, hashes);
    const record: TemplateRecord = {
      prevHashHex: tip.hashHex,
      height,
      tstampSecs,
      targetHex: hex(target),
      throughVersion,
      skipped: failures.filter((f) => f.entry.version <= throughVersion).map((f) => f.entry.hashHex),
      txnCount: count,
      merklePath,
      feesNanos,
      failing,
    };
    // The id names the template's contents: the same tip, time and transactions give the same id.
    const idInput = Buffer.concat([fromHex(tip.hashHex), encodeUvarint(height), encodeUvarint(tstampSecs), ...hashes]);
    const blockId = hex(sha256d(idInput));
    await this.storeTemplateRecord(blockId, record, ttlMs);
    return { blockId, record };
  }

  /**
   * A template's transactions, read back from the mempool.
   * @throws {ChainRequestError} when a block mined some of them since (the template is stale)
   */
  private async templateTxns(record: TemplateRecord & { throughVersion: number }): Promise<Uint8Array[]> {
    const skipped = new Set(record.skipped);
    const members = (await this.store.indexRange(MEMPOOL_ORDER, { lt: orderMember(record.throughVersion + 1, '') }))
      .map(parseOrderMember)
      .filter((m) => !skipped.has(m.hashHex));
    const entries = members.length === record.txnCount ? await this.store.getMany<MempoolEntry>(members.map((m) => mempoolTxnKey(m.hashHex))) : [undefined];
    if (entries.some((e) => e === undefined)) {
      throw new ChainRequestError('this template is stale: a block mined since took some of its transactions; get a new template');
    }
    return entries.map((e) => e!.bytes);
  }

  /**
   * Stores a template record unless this process stored the same one (same id, so the same
   * contents) with at least this lifetime less than a second ago: the id changes with the
   * header's time every second, so a flood of template requests writes the record (up to a
   * block's size) once a second, not once a request.
   */
  private async storeTemplateRecord(blockId: string, record: TemplateRecord, ttlMs: number): Promise<void> {
    const last = this.storedTemplate;
    if (last !== null && last.blockId === blockId && last.ttlMs >= ttlMs && this.now() - last.atMs < TEMPLATE_REWRITE_AFTER_MS) {
      await last.written;
      return;
    }
    const written = this.store.set(templateKey(blockId), record, { ttlMs });
    const entry = { blockId, ttlMs, atMs: this.now(), written };
    this.storedTemplate = entry;
    try {
      await written;
    } catch (err) {
      if (this.storedTemplate === entry) this.storedTemplate = null;
      throw err;
    }
  }

  /**
   * The reward's merkle path over a template's transaction hashes, computed in the crypto pool
   * once per mempool state (`key`), however many templates and headers are built from it.
   */
  private merklePathFor(key: string, hashes: Uint8Array[]): Promise<Uint8Array[]> {
    if (this.templatePath?.key !== key) {
      const path = this.crypto.merklePath(hashes);
      const entry = { key, path };
      this.templatePath = entry;
      // A failed computation (pool busy, say) is not kept: the next template tries again.
      path.catch(() => {
        if (this.templatePath === entry) this.templatePath = null;
      });
    }
    return this.templatePath!.path;
  }

  /**
   * Headers of a stored template for one reward key (no store access). Per header only what
   * differs is hashed: the reward transaction with its extra nonce, and the merkle root from
   * the record's path (one hash per level).
   */
  private templateFor(blockId: string, record: TemplateRecord, rewardPk33: Uint8Array, numHeaders: number): BlockTemplate {
    const headers: Uint8Array[] = [];
    const extraNonces: bigint[] = [];
    for (let i = 0; i < numHeaders; i++) {
      // Below 2^53: the value travels as a JSON number, and JavaScript miners would round a
      // full 64-bit one (then their block's merkle root never matches).
      const extraNonce = randomU64() >> 11n;
      const reward = encodeTxn(this.rewardTxn(rewardPk33, extraNonce, record.height, record.feesNanos));
      headers.push(encodeHeader(this.headerFor(record, sha256d(reward))));
      extraNonces.push(extraNonce);
    }
    const { failing } = record;
    const added = failing ? new Date(failing.addedAtMs) : new Date(0);
    return {
      blockId,
      target: fromHex(record.targetHex),
      height: record.height,
      headers,
      extraNonces,
      stats: {
        TxnCount: record.txnCount,
        FailingTxnError: failing?.error ?? 'You good',
        FailingTxnHash: failing?.hashHex ?? 'Nada',
        FailingTxnMinutesSinceAdded: failing ? (this.now() - failing.addedAtMs) / 60_000 : 0,
        FailingTxnOriginalTimeAdded: added.toISOString(),
      },
    };
  }

  /**
   * A miner's solution for a template: rebuilds the block (reward to `rewardPk33` with
   * `extraNonce`), checks the header against it, and processes it.
   * @throws {ChainRequestError} unknown template or a header that is not for it
   */
  async submitBlock(rewardPk33: Uint8Array, headerBytes: Uint8Array, extraNonce: bigint, blockId: string, opts: BlockWriteOptions = {}): Promise<ProcessResult> {
    if (!/^[0-9a-f]{64}$/.test(blockId)) throw new ChainRequestError(`Invalid blockID: expected 64 hex characters`);
    const record = await this.store.get<TemplateRecord>(templateKey(blockId));
    if (record?.throughVersion === undefined) throw new ChainRequestError(`Block with blockID ${blockId} not found (templates expire after ${PUBLISHED_TEMPLATE_TTL_MS / 60_000} to ${TEMPLATE_TTL_MS / 60_000} minutes)`);
    const header = decodeHeaderOr400(headerBytes);
    if (hex(header.prevBlockHash) !== record.prevHashHex || header.height !== record.height) {
      throw new ChainRequestError('the header is not for this template (previous block hash or height differ)');
    }
    const reward = encodeTxn(this.rewardTxn(rewardPk33, extraNonce, record.height, record.feesNanos));
    // The template's merkle path checks the root in one hash per level, before processBlock
    // hashes every transaction: a header made up for this template costs no more than that.
    if (hex(rootFromFirstLeafPath(sha256d(reward), record.merklePath)) !== hex(header.transactionMerkleRoot)) {
      throw new ChainRequestError('the header\'s merkle root does not match the block\'s transactions (this template with this reward key and extra nonce)');
    }
    return this.processBlock(headerBytes, [reward, ...(await this.templateTxns({ ...record, throughVersion: record.throughVersion }))], opts);
  }

  // --- blocks -------------------------------------------------------------------------------

  /**
   * Validates a block and, when it extends the tip, connects it atomically.
   * @throws {RuleError} / {ChainRequestError} for an invalid block (nothing is written)
   * @throws {FencedError} when `opts.fence` no longer holds (nothing is written)
   */
  async processBlock(headerBytes: Uint8Array, txnBytes: readonly Uint8Array[], opts: BlockWriteOptions = {}): Promise<ProcessResult> {
    const fence = opts.fence ? [opts.fence] : [];
    const header = decodeHeaderOr400(headerBytes);
    const [hashBytes] = await this.crypto.hashHeaders([headerBytes]);
    const hashHex = hex(hashBytes!);
    const parent = await this.store.get<BlockRecord>(chainKeys.block(hex(header.prevBlockHash)));
    if (!parent) return { isMainChain: false, isOrphan: true, hashHex };
    if (await this.store.get(chainKeys.block(hashHex))) throw new ChainRequestError(`block ${hashHex} is already known`);

    if (header.height !== parent.height + 1n) throw new ChainRequestError(`block height ${header.height} is not its parent's ${parent.height} + 1`);
    const parentHeader = decodeHeader(parent.header);
    if (header.tstampSecs <= parentHeader.tstampSecs) throw new ChainRequestError('block timestamp is not after its parent\'s');
    if (header.tstampSecs > BigInt(Math.floor(this.now() / 1000)) + BigInt(this.params.maxTimestampFutureSecs)) {
      throw new ChainRequestError('block timestamp is too far in the future');
    }
    const parentTip: TipRecord = { hashHex: hex(header.prevBlockHash), height: parent.height, tstampSecs: parentHeader.tstampSecs, targetHex: parent.targetHex };
    const target = await this.targetAfter(parentTip);
    if (BigInt(`0x${hashHex}`) > BigInt(`0x${hex(target)}`)) throw new ChainRequestError('block hash does not meet the difficulty target (bad proof of work)');
    if (txnBytes.length === 0) throw new ChainRequestError('a block needs its block reward transaction');
    const hashes = txnBytes.map((b) => txnHash(b));
    if (hex(merkleRoot(hashes)) !== hex(header.transactionMerkleRoot)) throw new ChainRequestError('the header\'s merkle root does not match the block\'s transactions');

    const txns = txnBytes.map((bytes) => ({ bytes, txn: decodeTxn(bytes) }));
    const hashHexes = hashes.map(hex);
    // A transaction still in the mempool had its signature checked at admission, and its entry
    // is of these very bytes (same hash): its signer is known. Only the others are verified.
    const entries = await this.store.getMany<MempoolEntry>(hashHexes.slice(1).map(mempoolTxnKey));
    const unknown = txns.slice(1).flatMap((t, i) => (entries[i] === undefined ? [t] : []));
    const checked = await checkSignatures(this.crypto, unknown);
    const bad = checked.find((v) => v.error !== null);
    if (bad) throw bad.error;
    let next = 0;
    const verdicts = entries.map((e) => (e === undefined ? checked[next++]! : { error: null, signer: e.signer }));

    const view = StateView.over(this.store);
    // The keys every transaction reads, in one round trip (type handlers read the rest).
    await view.prefetch(txns.slice(1).flatMap(({ txn }, i) => commonReads(txn, verdicts[i]!.signer)));
    const ctx = this.context(header.height);
    let fees = 0n;
    for (const [i, { bytes, txn }] of txns.slice(1).entries()) {
      fees += (await connectTransaction(view, txn, { hash: hashes[i + 1]!, size: bytes.length, signer: verdicts[i]!.signer }, ctx)).feeNanos;
    }
    await connectBlockReward(view, txns[0]!.txn, blockRewardNanos(header.height, this.params) + fees, this.params.maxBlockRewardExtraDataBytes);

    const tip = await this.tip();
    const extendsTip = tip.hashHex === parentTip.hashHex;
    const block: BlockRecord = { header: headerBytes, txns: [...txnBytes], height: header.height, targetHex: hex(target), mainChain: extendsTip };
    if (!extendsTip) {
      await this.storeSideBlock(hashHex, block, fence);
      return { isMainChain: false, isOrphan: false, hashHex };
    }
    const newTip: TipRecord = { hashHex, height: header.height, tstampSecs: header.tstampSecs, targetHex: hex(target) };
    const minedMembers = await this.mempoolMembers(hashHexes.slice(1), entries);
    const ops: WriteOp[] = [
      ...view.ops(),
      { op: 'set', key: chainKeys.block(hashHex), value: block },
      { op: 'set', key: chainKeys.hashAtHeight(header.height), value: hashHex },
      { op: 'set', key: chainKeys.tip, value: newTip },
      ...hashHexes.map((h, index) => ({ op: 'set' as const, key: chainKeys.txn(h), value: txnLocation(header.height, index) })),
      ...(await expiredNonceOps(this.store, header.height)),
      ...hashHexes.map((h) => ({ op: 'del' as const, key: mempoolTxnKey(h) })),
      ...(minedMembers.length > 0 ? [{ op: 'indexRemove' as const, key: MEMPOOL_ORDER, members: minedMembers }] : []),
    ];
    const writtenKeys = [...new Set(ops.map((o) => o.key))];
    const writes: BlockWritesRecord = { hashHex, keys: writtenKeys.length <= MAX_BLOCK_WRITES_LISTED ? writtenKeys : null };
    // Only the lists pendingChanges can use are kept: the oldest goes as this one comes.
    const lists: WriteOp[] = [{ op: 'set', key: chainKeys.blockWrites(header.height), value: writes }];
    if (header.height > MAX_BLOCKS_BETWEEN_POINTS) lists.push({ op: 'del', key: chainKeys.blockWrites(header.height - MAX_BLOCKS_BETWEEN_POINTS - 1n) });
    if (!(await this.commitOnTip(tip, [...ops, ...lists], fence))) {
      // Another process moved the tip meanwhile (this block is now on a side branch), or the
      // fence fell (then storeSideBlock refuses too).
      await this.storeSideBlock(hashHex, block, fence);
      return { isMainChain: false, isOrphan: false, hashHex };
    }
    this.log.info({ height: Number(header.height), hash: hashHex, txns: txnBytes.length - 1 }, 'block connected');
    await this.store.publish(CHANNEL_TIP, { hashHex, height: header.height.toString() });
    await this.pruneMempool();
    return { isMainChain: true, isOrphan: false, hashHex };
  }

  /**
   * Commits a block's writes while the tip is still `tip`, moving the mempool version too (so
   * every admission validated on the old tip loses its guard and connects again). Guarded on
   * the version it moves: an admission committing in between is retried over, never written
   * over with a stale version. False when the tip moved or the fence fell.
   */
  private async commitOnTip(tip: TipRecord, ops: readonly WriteOp[], fence: readonly Guard[]): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      const version = await this.store.get<number>(MEMPOOL_VERSION);
      const bump: WriteOp = { op: 'set', key: MEMPOOL_VERSION, value: (version ?? 0) + 1 };
      if (await this.store.commit([...ops, bump], [{ key: chainKeys.tip, equals: tip }, { key: MEMPOOL_VERSION, equals: version }, ...fence])) return true;
      const now = await this.store.get<TipRecord>(chainKeys.tip);
      if (now?.hashHex !== tip.hashHex || attempt === ADMISSION_ATTEMPTS) return false;
    }
  }

  /**
   * The mempool order members of these transactions (those in the mempool), from their
   * entries (as read for them, undefined when not in the mempool) and the versions they hold;
   * entries of older versions lack one, and then the order is read whole.
   */
  private async mempoolMembers(hashHexes: readonly string[], entries: ReadonlyArray<MempoolEntry | undefined>): Promise<string[]> {
    if (entries.every((e) => e === undefined || e.version !== undefined)) {
      return entries.flatMap((e, i) => (e === undefined ? [] : [orderMember(e.version!, hashHexes[i]!)]));
    }
    const wanted = new Set(hashHexes);
    return (await this.store.indexRange(MEMPOOL_ORDER)).filter((m) => wanted.has(parseOrderMember(m).hashHex));
  }

  /** Keeps a valid block that does not extend the tip; under a fence only while it holds. */
  private async storeSideBlock(hashHex: string, block: BlockRecord, fence: Guard[]): Promise<void> {
    const ok = await this.store.commit([{ op: 'set', key: chainKeys.block(hashHex), value: { ...block, mainChain: false } }], fence);
    if (!ok) throw new FencedError();
  }

  /** Drops mempool transactions that can never connect again (nonce expired or reused). */
  private async pruneMempool(): Promise<void> {
    const { failures, version } = await this.replayMempool();
    const dead = failures
      .filter(({ error: e }) => (e instanceof RuleError && ['RuleErrorNonceExpired', 'RuleErrorReusedNonce'].includes(e.code)) || e instanceof TxnDecodeError)
      .map(({ entry }) => entry);
    if (dead.length === 0) return;
    // Guarded like an admission (on the version the replay was built at), so a cached replay
    // never outlives the entries it replayed.
    const ok = await this.store.commit(
      [
        ...dead.map((e) => ({ op: 'del' as const, key: mempoolTxnKey(e.hashHex) })),
        { op: 'indexRemove', key: MEMPOOL_ORDER, members: dead.map((e) => orderMember(e.version, e.hashHex)) },
        { op: 'set', key: MEMPOOL_VERSION, value: (version ?? 0) + 1 },
      ],
      [{ key: MEMPOOL_VERSION, equals: version }],
    );
    // A lost race leaves the dead entries for the next block's prune.
    if (ok) this.log.info({ dropped: dead.length }, 'mempool: dropped transactions that can no longer be mined');
  }

  /** Target of the block after `tip` (reference §5.7). */
  private async targetAfter(tip: TipRecord): Promise<Uint8Array> {
    return nextTarget(this.params, { height: tip.height, target: fromHex(tip.targetHex), tstampSecs: tip.tstampSecs }, async (height) => {
      const hashHex = await this.store.get<string>(chainKeys.hashAtHeight(height));
      const block = hashHex ? await this.store.get<BlockRecord>(chainKeys.block(hashHex)) : undefined;
      if (!block) throw new Error(`no main-chain block at height ${height}`);
      return decodeHeader(block.header).tstampSecs;
    });
  }

  private rewardTxn(rewardPk33: Uint8Array, extraNonce: bigint, height: bigint, fees: bigint) {
    return {
      inputs: [],
      outputs: [{ publicKey: rewardPk33, amountNanos: blockRewardNanos(height, this.params) + fees }],
      txnType: TxnType.BLOCK_REWARD,
      metadata: encodeMetadata({ type: 'BLOCK_REWARD', extraData: encodeUvarint(extraNonce) }),
      publicKey: new Uint8Array(0),
      extraData: [],
      signature: new Uint8Array(0),
      v1: null,
    };
  }

  /** The header of a template whose reward transaction hashes to `rewardHash`. */
  private headerFor(record: TemplateRecord, rewardHash: Uint8Array): BlockHeader {
    return {
      version: 1,
      prevBlockHash: fromHex(record.prevHashHex),
      transactionMerkleRoot: rootFromFirstLeafPath(rewardHash, record.merklePath),
      tstampSecs: record.tstampSecs,
      height: record.height,
      nonce: 0n,
      extraNonce: 0n,
    };
  }

  /**
   * Whether the mempool holds the transaction with this hash (64 lower-case hex characters):
   * one read. A block removes what it mines in the commit that records it as mined
   * (state/minedTxns.ts), so a caller that looks here first and there second misses nothing.
   */
  async inMempool(hashHex: string): Promise<boolean> {
    return (await this.store.get(mempoolTxnKey(hashHex))) !== undefined;
  }
}

function decodeHeaderOr400(bytes: Uint8Array): BlockHeader {
  if (bytes.length !== HEADER_BYTES) throw new ChainRequestError(`header: expected ${HEADER_BYTES} bytes, got ${bytes.length}`);
  try {
    return decodeHeader(bytes);
  } catch (e) {
    throw new ChainRequestError(`header: ${(e as Error).message}`);
  }
}
