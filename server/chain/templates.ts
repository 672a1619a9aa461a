/**
 * Block templates (reference §5.6): cut from the pending state (the accepted mempool
 * transactions in arrival order while they fit a block), stored by reference under a content
 * id, announced to the miner feeds, and turned back into a block when a miner solves one.
 * @module
 */
import { sha256d } from '../../wasm/hash.js';
import { encodeHeader, type BlockHeader } from './block/header.js';
import { rootFromFirstLeafPath } from './block/merkle.js';
import { blockRewardNanos } from './block/reward.js';
import { CHANNEL_TEMPLATE, type ChainContext } from './context.js';
import { ChainRequestError } from './errors.js';
import { MEMPOOL_ORDER, mempoolTxnKey, orderMember, parseOrderMember, type MempoolEntry } from './mempool/entries.js';
import type { PendingState } from './mempool/pending.js';
import { randomU64 } from './random.js';
import type { Targets } from './targets.js';
import { encodeTxn } from './txn/envelope.js';
import { encodeMetadata, TxnType } from './txn/metadata.js';
import { encodeUvarint } from './txn/varint.js';
import { decodeHeaderOr400 } from './blocks.js';
import { fromHex, toHex as hex } from '../hex.js';

/** How long a block template stays valid for submit-block. */
const TEMPLATE_TTL_MS = 10 * 60_000;
/**
 * How long an announced template stays valid: shorter, because the producer announces one per
 * mempool change whether or not anyone mines it; it re-announces well within this while
 * quiet (blockProducer.ts), so a template a miner holds never expires under it.
 */
export const PUBLISHED_TEMPLATE_TTL_MS = 2 * 60_000;
const templateKey = (blockId: string): string => `chain:template:${blockId}`;
/** A template record this process stored this recently is not stored again (`storeTemplateRecord`). */
const TEMPLATE_REWRITE_AFTER_MS = 1_000;

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

/**
 * A block rebuilt from one of this node's templates: its transactions, the reward first, and
 * the hash of each that this node computed from those very bytes when it admitted them
 * (undefined where not known, as for the new reward).
 */
export interface TemplateBlock {
  txnBytes: Uint8Array[];
  txnHashHexes: Array<string | undefined>;
}

export class Templates {
  /**
   * The merkle path of the newest template's transactions, by (tip, mempool version, count):
   * every template request between two mempool changes shares one computation.
   */
  private templatePath: { key: string; path: Promise<Uint8Array[]> } | null = null;
  /** The template record this process stored last (`storeTemplateRecord`). */
  private storedTemplate: { blockId: string; ttlMs: number; atMs: number; written: Promise<void> } | null = null;

  constructor(
    private readonly ctx: ChainContext,
    private readonly pending: PendingState,
    private readonly targets: Targets,
  ) {}

  /**
   * A block template paying `rewardPk33`: the mempool transactions that connect on the tip,
   * `numHeaders` headers each with its own extra nonce (reference §5.6).
   */
  async build(rewardPk33: Uint8Array, numHeaders: number): Promise<BlockTemplate> {
    const { blockId, record } = await this.buildTemplateRecord();
    return this.templateFor(blockId, record, rewardPk33, numHeaders);
  }

  /**
   * Builds the current template once, for every reward key, and announces it on
   * CHANNEL_TEMPLATE: the block producer calls this on every tip or mempool change, and every
   * process's miner feed turns it into headers for its own miners (`publishedTemplate`)
   * without replaying the mempool itself.
   */
  async publish(): Promise<string> {
    const { blockId } = await this.buildTemplateRecord(PUBLISHED_TEMPLATE_TTL_MS);
    await this.ctx.store.publish(CHANNEL_TEMPLATE, { BlockId: blockId });
    return blockId;
  }

  /**
   * A template built by `publishTemplate` (on any process), with headers for `rewardPk33`;
   * undefined once it expired.
   */
  async published(blockId: string, rewardPk33: Uint8Array, numHeaders: number): Promise<BlockTemplate | undefined> {
    return (await this.publishedFor(blockId, [{ rewardPk33, numHeaders }]))?.[0];
  }

  /**
   * `publishedTemplate` for several (reward key, header count) pairs from one read of the
   * record: the miner feed's subscribers share it, whatever keys they mine to.
   */
  async publishedFor(blockId: string, wants: ReadonlyArray<{ rewardPk33: Uint8Array; numHeaders: number }>): Promise<BlockTemplate[] | undefined> {
    const record = await this.ctx.store.get<TemplateRecord>(templateKey(blockId));
    // A record without a version bound is an older version's: a fresh announcement follows.
    if (record?.throughVersion === undefined) return undefined;
    return wants.map((w) => this.templateFor(blockId, record, w.rewardPk33, w.numHeaders));
  }

  /**
   * The block a miner's solution for a template stands for: the reward to `rewardPk33` with
   * `extraNonce`, then the template's transactions, with the header checked against them.
   * @throws {ChainRequestError} unknown template, a header that is not for it, or a template a
   *   block made stale
   */
  async blockFor(rewardPk33: Uint8Array, headerBytes: Uint8Array, extraNonce: bigint, blockId: string): Promise<TemplateBlock> {
    if (!/^[0-9a-f]{64}$/.test(blockId)) throw new ChainRequestError(`Invalid blockID: expected 64 hex characters`);
    const record = await this.ctx.store.get<TemplateRecord>(templateKey(blockId));
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
    const txns = await this.templateTxns({ ...record, throughVersion: record.throughVersion });
    return { txnBytes: [reward, ...txns.bytes], txnHashHexes: [undefined, ...txns.hashHexes] };
  }

  /**
   * The current template from the pending state (no replay of its own): the accepted mempool
   * transactions in arrival order while they fit in a block, stored under its content id. A
   * prefix of the replay is a valid block: each transaction connected on those before it.
   */
  private async buildTemplateRecord(ttlMs = TEMPLATE_TTL_MS): Promise<{ blockId: string; record: TemplateRecord }> {
    const { tip, version, height, accepted, failures } = await this.pending.current();
    let count = 0;
    let bytes = 0;
    let feesNanos = 0n;
    for (const m of accepted) {
      if (bytes + m.bytes.length > this.ctx.params.minerMaxBlockSizeBytes) break;
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
    const nowSecs = BigInt(Math.floor(this.ctx.now() / 1000));
    // The clock, unless the parent's timestamp (plus the step the chain requires) is later.
    const earliest = tip.tstampSecs + this.ctx.params.minSecsAfterParent;
    const tstampSecs = nowSecs > earliest ? nowSecs : earliest;
    const target = await this.targets.after(tip);
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
   * A template's transactions, from this process's pending state or read back from the
   * mempool, with the hashes this process computed from those bytes where it did.
   * @throws {ChainRequestError} when a block mined some of them since (the template is stale)
   */
  private async templateTxns(record: TemplateRecord & { throughVersion: number }): Promise<{ bytes: Uint8Array[]; hashHexes: Array<string | undefined> }> {
    // This process's pending state holds them when it built the template (the block producer,
    // whose own miner solved it): no read of a block's worth of mempool entries back.
    const held = await this.pending.acceptedThrough(record.prevHashHex, record.throughVersion, record.txnCount);
    if (held !== null) return { bytes: held.map((a) => a.bytes), hashHexes: held.map((a) => a.hashHex) };
    const skipped = new Set(record.skipped);
    const members = (await this.ctx.store.indexRange(MEMPOOL_ORDER, { lt: orderMember(record.throughVersion + 1, '') }))
      .map(parseOrderMember)
      .filter((m) => !skipped.has(m.hashHex));
    const entries = members.length === record.txnCount ? await this.ctx.store.getMany<MempoolEntry>(members.map((m) => mempoolTxnKey(m.hashHex))) : [undefined];
    if (entries.some((e) => e === undefined)) {
      throw new ChainRequestError('this template is stale: a block mined since took some of its transactions; get a new template');
    }
    // Hashed again by the block: the store's entries are checked, not trusted.
    return { bytes: entries.map((e) => e!.bytes), hashHexes: entries.map(() => undefined) };
  }

  /**
   * Stores a template record unless this process stored the same one (same id, so the same
   * contents) with at least this lifetime less than a second ago: the id changes with the
   * header's time every second, so a flood of template requests writes the record (up to a
   * block's size) once a second, not once a request.
   */
  private async storeTemplateRecord(blockId: string, record: TemplateRecord, ttlMs: number): Promise<void> {
    const last = this.storedTemplate;
    if (last !== null && last.blockId === blockId && last.ttlMs >= ttlMs && this.ctx.now() - last.atMs < TEMPLATE_REWRITE_AFTER_MS) {
      await last.written;
      return;
    }
    const written = this.ctx.store.set(templateKey(blockId), record, { ttlMs });
    const entry = { blockId, ttlMs, atMs: this.ctx.now(), written };
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
      const path = this.ctx.crypto.merklePath(hashes);
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
        FailingTxnMinutesSinceAdded: failing ? (this.ctx.now() - failing.addedAtMs) / 60_000 : 0,
        FailingTxnOriginalTimeAdded: added.toISOString(),
      },
    };
  }

  private rewardTxn(rewardPk33: Uint8Array, extraNonce: bigint, height: bigint, fees: bigint) {
    return {
      inputs: [],
      outputs: [{ publicKey: rewardPk33, amountNanos: blockRewardNanos(height, this.ctx.params) + fees }],
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
}
