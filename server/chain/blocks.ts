/**
 * Connecting blocks: a block is validated against its parent (height, time, proof of work,
 * merkle root, signatures, every transaction's rules) and, when it extends the tip, written in
 * one commit guarded on the tip; a valid block that does not is kept on a side branch. After a
 * block, the mempool drops what can never connect again.
 * @module
 */
import type { Guard, WriteOp } from '../store/types.js';
import { packBlockBody } from './block/body.js';
import { decodeHeader, HEADER_BYTES, type BlockHeader } from './block/header.js';
import { merkleRoot } from './block/merkle.js';
import { secondsPastFutureLimit } from './block/params.js';
import { blockRewardNanos } from './block/reward.js';
import { CHANNEL_TIP, type ChainContext } from './context.js';
import { ChainRequestError, FencedError } from './errors.js';
import { MEMPOOL_ORDER, MEMPOOL_VERSION, mempoolMembers, mempoolTxnKey, orderMember, type MempoolEntry } from './mempool/entries.js';
import { MAX_BLOCKS_BETWEEN_POINTS, type PendingState } from './mempool/pending.js';
import { commonReads, connectBlockReward, connectTransaction } from './rules/connect.js';
import { RuleError } from './rules/errors.js';
import { checkSignatures } from './rules/signatures.js';
import { chainKeys, type BlockRecord, type BlockWritesRecord, type TipRecord } from './state/keys.js';
import { minedTxnOps } from './state/minedTxns.js';
import { expiredNonceOps } from './state/nonces.js';
import { StateView } from './state/view.js';
import type { Targets } from './targets.js';
import { decodeTxn, txnHash } from './txn/envelope.js';
import { TxnDecodeError } from './txn/errors.js';
import { fromHex, toHex as hex } from '../hex.js';

/**
 * Most keys a block's written-key list names (chainKeys.blockWrites); a block that wrote more
 * stores no list, and caches across it start over. With the lists of the last
 * MAX_BLOCKS_BETWEEN_POINTS blocks kept, that bounds them by size whatever the write rate.
 */
const MAX_BLOCK_WRITES_LISTED = 20_000;

export interface ProcessResult {
  isMainChain: boolean;
  isOrphan: boolean;
  hashHex: string;
}

/** Options of a block write. */
export interface BlockWriteOptions {
  /**
   * The block producer's lease guard (ProducerLease.fence): the block is written only while
   * the lease still holds this term, else nothing is written and FencedError is thrown.
   */
  fence?: Guard;
}

export class Blocks {
  constructor(
    private readonly ctx: ChainContext,
    private readonly pending: PendingState,
    private readonly targets: Targets,
  ) {}

  /**
   * Validates a block and, when it extends the tip, connects it atomically. `knownHashHexes[i]`,
   * where given, is the hash this node computed from the very bytes `txnBytes[i]` when it
   * admitted them (a block of its own template, Chain.submitBlock); never a hash from outside.
   * @throws {RuleError} / {ChainRequestError} for an invalid block (nothing is written)
   * @throws {FencedError} when `opts.fence` no longer holds (nothing is written)
   */
  async process(headerBytes: Uint8Array, txnBytes: readonly Uint8Array[], opts: BlockWriteOptions = {}, knownHashHexes: ReadonlyArray<string | undefined> = []): Promise<ProcessResult> {
    const started = performance.now();
    const fence = opts.fence ? [opts.fence] : [];
    const header = decodeHeaderOr400(headerBytes);
    const [hashBytes] = await this.ctx.crypto.hashHeaders([headerBytes]);
    const hashHex = hex(hashBytes!);
    // One round trip for the parent, this block and the tip (the commit is guarded on the tip
    // read here: a tip that moves meanwhile makes this a side block, as reading it later would).
    const [parentRecord, known, tipRecord] = await this.ctx.store.getMany<unknown>([chainKeys.block(hex(header.prevBlockHash)), chainKeys.block(hashHex), chainKeys.tip]);
    const parent = parentRecord as BlockRecord | undefined;
    if (!parent) return { isMainChain: false, isOrphan: true, hashHex };
    if (known !== undefined) throw new ChainRequestError(`block ${hashHex} is already known`);

    if (header.height !== parent.height + 1n) throw new ChainRequestError(`block height ${header.height} is not its parent's ${parent.height} + 1`);
    const parentHeader = decodeHeader(parent.header);
    if (header.tstampSecs < parentHeader.tstampSecs + this.ctx.params.minSecsAfterParent) {
      throw new ChainRequestError(this.ctx.params.minSecsAfterParent > 0n ? 'block timestamp is not after its parent\'s' : 'block timestamp is before its parent\'s');
    }
    if (secondsPastFutureLimit(this.ctx.params, header.tstampSecs, this.ctx.now()) > 0n) {
      throw new ChainRequestError('block timestamp is too far in the future');
    }
    const parentTip: TipRecord = { hashHex: hex(header.prevBlockHash), height: parent.height, tstampSecs: parentHeader.tstampSecs, targetHex: parent.targetHex };
    const target = await this.targets.after(parentTip);
    if (BigInt(`0x${hashHex}`) > BigInt(`0x${hex(target)}`)) throw new ChainRequestError('block hash does not meet the difficulty target (bad proof of work)');
    if (txnBytes.length === 0) throw new ChainRequestError('a block needs its block reward transaction');
    // Compressed on the thread pool while the transactions are hashed and connected (and only
    // after the proof of work held: a header anyone can make costs no compression), and the
    // expired nonces read meanwhile. Awaited below unless the block is refused first: then
    // nothing may report them unhandled.
    const body = packBlockBody(txnBytes);
    body.catch(() => undefined);
    // The merkle root is checked against these either way: a known hash spares only the hashing.
    const hashes = txnBytes.map((b, i) => {
      const known = knownHashHexes[i];
      return known === undefined ? txnHash(b) : fromHex(known);
    });
    if (hex(merkleRoot(hashes)) !== hex(header.transactionMerkleRoot)) throw new ChainRequestError('the header\'s merkle root does not match the block\'s transactions');

    const hashHexes = hashes.map((h, i) => knownHashHexes[i] ?? hex(h));
    const nonceOps = expiredNonceOps(this.ctx.store, header.height);
    nonceOps.catch(() => undefined);
    const { view, fees, minedMembers, fromPending } = await this.connectTxns(parentTip.hashHex, header.height, txnBytes, hashes, hashHexes.slice(1));
    await connectBlockReward(view, decodeTxn(txnBytes[0]!), blockRewardNanos(header.height, this.ctx.params) + fees, this.ctx.params.maxBlockRewardExtraDataBytes, header.height);

    const tip = tipRecord as TipRecord | undefined;
    if (!tip) throw new Error('chain not initialised: call init() first');
    const extendsTip = tip.hashHex === parentTip.hashHex;
    const block: BlockRecord = { header: headerBytes, body: await body, height: header.height, targetHex: hex(target), mainChain: extendsTip };
    if (!extendsTip) {
      await this.storeSideBlock(hashHex, block, fence);
      return { isMainChain: false, isOrphan: false, hashHex };
    }
    const newTip: TipRecord = { hashHex, height: header.height, tstampSecs: header.tstampSecs, targetHex: hex(target) };
    const ops: WriteOp[] = [
      ...view.ops(),
      { op: 'set', key: chainKeys.block(hashHex), value: block },
      { op: 'set', key: chainKeys.hashAtHeight(header.height), value: hashHex },
      { op: 'set', key: chainKeys.tip, value: newTip },
      ...minedTxnOps(header.height, hashHexes),
      ...(await nonceOps),
      ...hashHexes.map((h) => ({ op: 'del' as const, key: mempoolTxnKey(h) })),
      ...(minedMembers.length > 0 ? [{ op: 'indexRemove' as const, key: MEMPOOL_ORDER, members: minedMembers }] : []),
    ];
    const writtenKeys = [...new Set(ops.map((o) => o.key))];
    const writes: BlockWritesRecord = { hashHex, keys: writtenKeys.length <= MAX_BLOCK_WRITES_LISTED ? writtenKeys : null };
    // Only the lists pendingChanges can use are kept: the oldest goes as this one comes.
    const lists: WriteOp[] = [{ op: 'set', key: chainKeys.blockWrites(header.height), value: writes }];
    if (header.height > MAX_BLOCKS_BETWEEN_POINTS) lists.push({ op: 'del', key: chainKeys.blockWrites(header.height - MAX_BLOCKS_BETWEEN_POINTS - 1n) });
    const committing = this.commitOnTip(tip, [...ops, ...lists], fence);
    // While the store commits: the pending state after this block, when the block is the
    // pending state's own first transactions (then admissions wait on the block's commit only,
    // not on a replay of the rest of the mempool after it).
    const after = fromPending ? this.pending.replayAfterBlock(parentTip.hashHex, hashHexes.slice(1), newTip, view) : null;
    const committed = await committing.catch(async (e: unknown) => {
      await after?.settle(false);
      throw e;
    });
    if (!committed) {
      await after?.settle(false);
      // Another process moved the tip meanwhile (this block is now on a side branch), or the
      // fence fell (then storeSideBlock refuses too).
      await this.storeSideBlock(hashHex, block, fence);
      return { isMainChain: false, isOrphan: false, hashHex };
    }
    const connectedMs = performance.now() - started;
    // Readers of this process that see the new tip meanwhile wait for the replay in flight.
    await Promise.all([this.ctx.store.publish(CHANNEL_TIP, { hashHex, height: header.height.toString() }), after?.settle(true)]);
    await this.prune();
    const ms = (x: number): number => Math.round(x * 10) / 10;
    this.ctx.log.info({ height: Number(header.height), hash: hashHex, txns: txnBytes.length - 1, connectedMs: ms(connectedMs), prunedMs: ms(performance.now() - started - connectedMs) }, 'block connected');
    return { isMainChain: true, isOrphan: false, hashHex };
  }

  /**
   * Connects a block's transactions (all but its reward) on its parent's state, in a view over
   * the store: their writes, the fees they pay, and the mempool order members of those the
   * mempool holds. When they are the first transactions the pending state connected on this
   * very parent, in order (a block of this node's own template, usually), their connects are
   * not run again: each one's recorded writes are applied. Otherwise each is connected, its
   * signature verified unless the mempool holds it (then it was checked at admission).
   * @throws {RuleError} a transaction that does not connect, or a bad signature
   */
  private async connectTxns(
    parentHashHex: string,
    height: bigint,
    txnBytes: readonly Uint8Array[],
    hashes: readonly Uint8Array[],
    /** The hex hashes of all but the reward (the order hashes[1..] have). */
    hashHexes: readonly string[],
  ): Promise<{ view: StateView; fees: bigint; minedMembers: string[]; fromPending: boolean }> {
    const view = StateView.over(this.ctx.store);
    const connected = this.pending.connectedPrefix(parentHashHex, hashHexes);
    if (connected !== null) {
      let fees = 0n;
      for (const a of connected) {
        view.apply(a.delta);
        fees += a.feeNanos;
      }
      return { view, fees, minedMembers: connected.map((a) => orderMember(a.version, a.hashHex)), fromPending: true };
    }
    const txns = txnBytes.slice(1).map((bytes) => ({ bytes, txn: decodeTxn(bytes) }));
    // A transaction still in the mempool had its signature checked at admission, and its entry
    // is of these very bytes (same hash): its signer is known. Only the others are verified.
    const entries = await this.ctx.store.getMany<MempoolEntry>(hashHexes.map(mempoolTxnKey));
    const unknown = txns.flatMap((t, i) => (entries[i] === undefined ? [t] : []));
    const checked = await checkSignatures(this.ctx.crypto, unknown);
    const bad = checked.find((v) => v.error !== null);
    if (bad) throw bad.error;
    let next = 0;
    const verdicts = entries.map((e) => (e === undefined ? checked[next++]! : { error: null, signer: e.signer }));
    // The keys every transaction reads, in one round trip (type handlers read the rest).
    await view.prefetch(txns.flatMap(({ txn }, i) => commonReads(txn, verdicts[i]!.signer)));
    const ctx = this.ctx.connectContext(height);
    let fees = 0n;
    for (const [i, { bytes, txn }] of txns.entries()) {
      fees += (await connectTransaction(view, txn, { hash: hashes[i + 1]!, size: bytes.length, signer: verdicts[i]!.signer, indexInBlock: i + 1 }, ctx)).feeNanos;
    }
    return { view, fees, minedMembers: await mempoolMembers(this.ctx.store, hashHexes, entries), fromPending: false };
  }

  /**
   * Commits a block's writes while the tip is still `tip`. Not guarded on the mempool version
   * (admissions move it every few milliseconds under load, and a block's commit of thousands of
   * writes would keep losing to them): admissions are guarded on the tip as well, so one
   * validated on the old tip loses its guard and connects again on the new one. False when the
   * tip moved or the fence fell.
   */
  private async commitOnTip(tip: TipRecord, ops: readonly WriteOp[], fence: readonly Guard[]): Promise<boolean> {
    return this.ctx.store.commit(ops, [{ key: chainKeys.tip, equals: tip }, ...fence]);
  }

  /** Keeps a valid block that does not extend the tip; under a fence only while it holds. */
  private async storeSideBlock(hashHex: string, block: BlockRecord, fence: Guard[]): Promise<void> {
    const ok = await this.ctx.store.commit([{ op: 'set', key: chainKeys.block(hashHex), value: { ...block, mainChain: false } }], fence);
    if (!ok) throw new FencedError();
  }

  /** Drops mempool transactions that can never connect again (nonce expired or reused). */
  private async prune(): Promise<void> {
    const { failures, version } = await this.pending.current();
    const dead = failures
      .filter(({ error: e }) => (e instanceof RuleError && ['RuleErrorNonceExpired', 'RuleErrorReusedNonce'].includes(e.code)) || e instanceof TxnDecodeError)
      .map(({ entry }) => entry);
    if (dead.length === 0) return;
    // Guarded like an admission (on the version the replay was built at), so a cached replay
    // never outlives the entries it replayed.
    const ok = await this.ctx.store.commit(
      [
        ...dead.map((e) => ({ op: 'del' as const, key: mempoolTxnKey(e.hashHex) })),
        { op: 'indexRemove', key: MEMPOOL_ORDER, members: dead.map((e) => orderMember(e.version, e.hashHex)) },
        { op: 'set', key: MEMPOOL_VERSION, value: (version ?? 0) + 1 },
      ],
      [{ key: MEMPOOL_VERSION, equals: version }],
    );
    // A lost race leaves the dead entries for the next block's prune.
    if (ok) this.ctx.log.info({ dropped: dead.length }, 'mempool: dropped transactions that can no longer be mined');
  }
}

export function decodeHeaderOr400(bytes: Uint8Array): BlockHeader {
  if (bytes.length !== HEADER_BYTES) throw new ChainRequestError(`header: expected ${HEADER_BYTES} bytes, got ${bytes.length}`);
  try {
    return decodeHeader(bytes);
  } catch (e) {
    throw new ChainRequestError(`header: ${(e as Error).message}`);
  }
}
