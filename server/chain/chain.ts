/**
 * The chain of one node: the dev chain's genesis, the mempool, block templates and connecting
 * blocks, all in the store (so every server process on one Redis sees one chain). A facade over
 * its parts, each in its own module: admission (mempool/admission.ts), the pending state
 * (mempool/pending.ts), templates (templates.ts) and blocks (blocks.ts); routes and the miner
 * call this class only.
 *
 * Consistency across processes rests on guarded commits: a block connects only if the tip is
 * still the parent it was validated against, and a transaction enters the mempool only if the
 * mempool and the tip did not change while it was validated. Losers of a race retry or report.
 *
 * Not yet: reorganisations. A valid block on a side branch is stored and answered
 * `IsMainChain: false`, but a longer side branch does not replace the main chain.
 * @module
 */
import type { Logger } from 'pino';
import type { CryptoService } from '../crypto/service.js';
import type { Store } from '../store/types.js';
import type { WatchedRead } from '../store/watchedRead.js';
import { packBlockBody } from './block/body.js';
import { encodeHeader, type BlockHeader } from './block/header.js';
import { merkleRoot } from './block/merkle.js';
import type { ChainParams } from './block/params.js';
import { Blocks, type BlockWriteOptions, type ProcessResult } from './blocks.js';
import type { ChainContext, ChainPosition } from './context.js';
import { Admissions, type SubmittedTxn } from './mempool/admission.js';
import { MEMPOOL_ORDER, MEMPOOL_VERSION, mempoolTxnKey, readMempool, type MempoolTxn } from './mempool/entries.js';
import { PendingState, type PendingPoint } from './mempool/pending.js';
import { connectTransaction, type ConnectContext, type ConnectRules } from './rules/connect.js';
import { getGlobalParams, globalParamsDefaults, type GlobalParams } from './state/globalParams.js';
import { chainKeys, LAYOUT_VERSION, type BlockRecord, type TipRecord } from './state/keys.js';
import type { StateIndexReader, StateReader } from './state/reader.js';
import type { StateView } from './state/view.js';
import { Targets } from './targets.js';
import { Templates, type BlockTemplate } from './templates.js';
import { decodeTxn, encodeTxn, txnHash, type TxnEnvelope } from './txn/envelope.js';
import { encodeMetadata, TxnType } from './txn/metadata.js';
import { toHex as hex } from '../hex.js';

export { CHANNEL_MEMPOOL, CHANNEL_TEMPLATE, CHANNEL_TIP, type ChainPosition } from './context.js';
export { ChainRequestError, FencedError, MempoolBusyError } from './errors.js';
export { MAX_TXN_BYTES, type SubmittedTxn } from './mempool/admission.js';
export type { PendingPoint } from './mempool/pending.js';
export { PUBLISHED_TEMPLATE_TTL_MS, type BlockTemplate, type TemplateStats } from './templates.js';
export type { BlockWriteOptions, ProcessResult } from './blocks.js';

/**
 * The pending state with the places of its mempool part (Chain.pendingPlaces): `view` is the
 * state the next block would build on, `height` that block's height, and `txnAt(i)` the signed
 * bytes of the accepted transaction at place i (1-based) of it.
 */
export interface PendingPlaces<V extends StateIndexReader = StateView> {
  view: V;
  height: bigint;
  txnAt(index: number): Uint8Array | undefined;
}

/** Bytes a signature adds at most (as construct.ts's fee estimate). */
const MAX_DER_SIGNATURE_BYTES = 74;

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

export class Chain {
  private readonly store: Store;
  private readonly crypto: CryptoService;
  readonly params: ChainParams;
  /** The clock blocks are checked against (ms since the epoch). */
  readonly now: () => number;
  private readonly createProfileFeeNanos: bigint;
  private readonly paramUpdaterPublicKeys: ReadonlySet<string>;
  private readonly pending: PendingState;
  private readonly admissions: Admissions;
  private readonly templates: Templates;
  private readonly blocks: Blocks;

  constructor(opts: ChainOptions) {
    this.store = opts.store;
    this.positionRead = this.store.watchedRead(() => this.readPosition());
    this.crypto = opts.crypto;
    this.params = opts.params;
    this.now = opts.now ?? Date.now;
    this.createProfileFeeNanos = opts.createProfileFeeNanos ?? 0n;
    this.paramUpdaterPublicKeys = new Set((opts.paramUpdaterPublicKeys ?? []).map((k) => hex(k)));
    const ctx: ChainContext = {
      store: opts.store,
      crypto: opts.crypto,
      params: opts.params,
      log: opts.log,
      now: this.now,
      connectContext: (height) => this.context(height),
      position: () => this.position(),
      commitMovingTo: (ops, guards, position, announce) => this.positionRead.commitLeaving(() => this.store.commit(ops, guards, announce), position),
    };
    const targets = new Targets(opts.store, opts.params);
    this.pending = new PendingState(ctx);
    this.admissions = new Admissions(ctx, this.pending);
    this.templates = new Templates(ctx, this.pending, targets);
    this.blocks = new Blocks(ctx, this.pending, targets);
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

  // --- pending state ------------------------------------------------------------------------

  /**
   * A view of the state the next block would build on: the tip plus every mempool transaction
   * that still connects. Read routes that should show unmined writes read through it.
   */
  async pendingView(): Promise<StateView> {
    // A child, so what a caller writes (a simulated order, say) never reaches the cached replay.
    return (await this.pending.current()).view.child();
  }

  /**
   * The pending view with the mempool transactions it holds by place: `txnAt(i)` is the signed
   * bytes of the accepted transaction at place i (1-based) of the next block, at `height`, as
   * its connect saw it (TxnInfo.indexInBlock). Reads of what the notification index names use
   * it for places above the tip; one array lookup each, whatever the mempool's size.
   */
  async pendingPlaces(): Promise<PendingPlaces> {
    const replay = await this.pending.current();
    const accepted = replay.accepted;
    return { view: replay.view.child(), height: replay.height, txnAt: (index) => accepted[index - 1]?.bytes };
  }

  /**
   * The mempool transactions the pending state connected, in its order (place i + 1 of the next
   * block): this process's replay, in memory, no store read.
   */
  async pendingTxns(): Promise<ReadonlyArray<{ hashHex: string; bytes: Uint8Array }>> {
    return (await this.pending.current()).accepted;
  }

  /**
   * Brings the pending view up to date and says which state keys may differ from what they
   * were at `since` (a point this method answered before, or null): caches of answers derived
   * from the pending state (http/readCache.ts) drop only answers that read one of them.
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
    return this.pending.changes(since);
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
    const block: BlockRecord = { header: headerBytes, body: await packBlockBody([reward]), height: 0n, targetHex: tip.targetHex, mainChain: true };
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
   * submissions are admitted in batches (mempool/admission.ts): the answer is the same as one
   * at a time, in arrival order.
   * @throws {TxnDecodeError} malformed bytes; {RuleError} a broken rule (duplicate, signature,
   *   nonce, balance, …); {MempoolBusyError} the mempool kept changing under it
   */
  submitTransaction(bytes: Uint8Array, decoded?: TxnEnvelope): Promise<SubmittedTxn> {
    return this.admissions.submit(bytes, decoded);
  }

  /** How many transactions wait in the mempool (one store call; metrics read it per scrape). */
  async mempoolSize(): Promise<number> {
    return this.store.indexSize(MEMPOOL_ORDER);
  }

  /** Mempool transactions in arrival order (those admitted up to a mempool version, if given). */
  mempool(throughVersion?: number): Promise<MempoolTxn[]> {
    return readMempool(this.store, throughVersion);
  }

  // --- templates and blocks -----------------------------------------------------------------

  /**
   * A block template paying `rewardPk33`: the mempool transactions that connect on the tip,
   * `numHeaders` headers each with its own extra nonce (reference §5.6).
   */
  blockTemplate(rewardPk33: Uint8Array, numHeaders: number): Promise<BlockTemplate> {
    return this.templates.build(rewardPk33, numHeaders);
  }

  /**
   * Builds the current template once, for every reward key, and announces it on
   * CHANNEL_TEMPLATE: the block producer calls this on every tip or mempool change, and every
   * process's miner feed turns it into headers for its own miners (`publishedTemplate`)
   * without replaying the mempool itself.
   */
  publishTemplate(): Promise<string> {
    return this.templates.publish();
  }

  /**
   * A template built by `publishTemplate` (on any process), with headers for `rewardPk33`;
   * undefined once it expired.
   */
  publishedTemplate(blockId: string, rewardPk33: Uint8Array, numHeaders: number): Promise<BlockTemplate | undefined> {
    return this.templates.published(blockId, rewardPk33, numHeaders);
  }

  /**
   * `publishedTemplate` for several (reward key, header count) pairs from one read of the
   * record: the miner feed's subscribers share it, whatever keys they mine to.
   */
  publishedTemplates(blockId: string, wants: ReadonlyArray<{ rewardPk33: Uint8Array; numHeaders: number }>): Promise<BlockTemplate[] | undefined> {
    return this.templates.publishedFor(blockId, wants);
  }

  /**
   * A miner's solution for a template: rebuilds the block (reward to `rewardPk33` with
   * `extraNonce`), checks the header against it, and processes it.
   * @throws {ChainRequestError} unknown template or a header that is not for it
   */
  async submitBlock(rewardPk33: Uint8Array, headerBytes: Uint8Array, extraNonce: bigint, blockId: string, opts: BlockWriteOptions = {}): Promise<ProcessResult> {
    const block = await this.templates.blockFor(rewardPk33, headerBytes, extraNonce, blockId);
    return this.blocks.process(headerBytes, block.txnBytes, opts, block.txnHashHexes);
  }

  /**
   * Validates a block and, when it extends the tip, connects it atomically.
   * @throws {RuleError} / {ChainRequestError} for an invalid block (nothing is written)
   * @throws {FencedError} when `opts.fence` no longer holds (nothing is written)
   */
  processBlock(headerBytes: Uint8Array, txnBytes: readonly Uint8Array[], opts: BlockWriteOptions = {}): Promise<ProcessResult> {
    return this.blocks.process(headerBytes, txnBytes, opts);
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
