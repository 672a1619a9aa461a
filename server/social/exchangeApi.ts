/**
 * The exchange API's reads (backend routes/exchange.go: APIBlock, APITransactionInfo, shaped by
 * APITransactionToResponse) as plain functions over the chain: a block by height or hash with
 * its transactions, and transactions by id, by public key, or the mempool's.
 *
 * Costs: a block is one read (two by height); a transaction by id is the mined-transaction
 * location (three reads, chain/state/minedTxns.ts) or the mempool entry (one); a public key's
 * transactions are a page of the per-key index (chain/state/keyTxns.ts) read through the
 * pending state, so mempool transactions come first, newest first, then mined ones, each page
 * costing its transactions and the blocks they are in (each read once).
 *
 * Where this differs from the reference:
 * - `TransactionMetadata` is what the reference builds when its txindex has no entry (type,
 *   transactor, outputs, fee, block) plus the affected keys with core's roles
 *   (rules/notifications.ts affectedPublicKeys); the per-type txindex metadata
 *   (`…TxindexMetadata`, `UtxoOps`) and `RawTxnMetadata` are not served: `RawTransactionHex`
 *   holds everything.
 * - `LastPublicKeyTransactionIndex` is a transaction's place (height × 2^24 + index in block, as
 *   notification indexes), not the reference's per-key counter, and a page holds what is
 *   strictly older than it (the reference's seek repeats the last transaction of the previous
 *   page). Mempool transactions are in the index at the next height, so they page too (the
 *   reference lists them all, unpaged, on the first page only); a pending place can shift when
 *   a block mines around it, as the reference's mempool order does.
 * - `Limit` is capped at MAX_TRANSACTIONS_PER_PAGE (the reference's default when it is 0).
 * @module
 */
import { affectedPublicKeys, diamondOf } from '../chain/rules/notifications.js';
import { decodeHeader } from '../chain/block/header.js';
import { decodedBlock, MainChainBlocks } from '../chain/state/blockTxns.js';
import { chainKeys, type BlockRecord, type TipRecord } from '../chain/state/keys.js';
import { keyTxnMembers } from '../chain/state/keyTxns.js';
import { getBalance } from '../chain/state/balances.js';
import { minedTxnLocation } from '../chain/state/minedTxns.js';
import { indexPosition, memberPosition, notificationIndex, positionMember } from '../chain/state/notifications.js';
import { mempoolTxnKey, type MempoolEntry } from '../chain/mempool/entries.js';
import type { StateIndexReader, StateReader } from '../chain/state/reader.js';
import { decodeTxn, txnHash, type TxnEnvelope } from '../chain/txn/envelope.js';
import { decodeMetadata, txnTypeName } from '../chain/txn/metadata.js';
import { DomainError } from '../errors.js';
import { toHex } from '../hex.js';
import { decodeBase58Check, encodeBase58Check } from '../keys/base58check.js';
import { encodePublicKey, PUBLIC_KEY_PREFIXES, type Network } from '../keys/index.js';
import { extraDataOrNull } from './accessGroups.js';

/** Most transactions one transaction-info page holds (and its size when `Limit` is 0, the reference's default). */
export const MAX_TRANSACTIONS_PER_PAGE = 1000;

/** A request the exchange API refuses (400, as the reference answers every refusal). */
export class ExchangeApiError extends DomainError {
  override readonly name = 'ExchangeApiError';
}
const invalid = (message: string): ExchangeApiError => new ExchangeApiError('EXCHANGE_API_INVALID', 'invalid', message);

/** What these reads need of the chain. */
export interface ExchangeChain {
  tip(): Promise<TipRecord>;
  pendingPlaces(): Promise<{ view: StateIndexReader; height: bigint; txnAt(index: number): Uint8Array | undefined }>;
  pendingTxns(): Promise<ReadonlyArray<{ hashHex: string; bytes: Uint8Array }>>;
}

export interface ExchangeDeps {
  chain: ExchangeChain;
  /** Mined state (blocks, transaction locations, mempool entries). */
  store: StateIndexReader;
  network: Network;
}

export interface HeaderResponse {
  BlockHashHex: string;
  Version: number;
  PrevBlockHashHex: string;
  TransactionMerkleRootHex: string;
  TstampSecs: bigint;
  TstampNanoSecs: bigint;
  Height: bigint;
  Nonce: bigint;
  ExtraNonce: bigint;
}

/** Backend TransactionResponse; absent fields are the reference's `omitempty` ones left empty. */
export type TransactionResponse = Record<string, unknown>;

/** Where a transaction is: a mined block (hash, height, timestamp, index) or the mempool. */
interface Placement {
  block?: { hashHex: string; height: bigint; tstampSecs: bigint; index: number };
  /** Whether the answer shows BlockInfo (the reference's by-id answer names the block's hash only). @default true */
  blockInfo?: boolean;
}

function idBase58(hash: Uint8Array, network: Network): string {
  return encodeBase58Check(PUBLIC_KEY_PREFIXES[network], hash);
}

export function headerResponse(hashHex: string, headerBytes: Uint8Array): HeaderResponse {
  const h = decodeHeader(headerBytes);
  return {
    BlockHashHex: hashHex,
    Version: h.version,
    PrevBlockHashHex: toHex(h.prevBlockHash),
    TransactionMerkleRootHex: toHex(h.transactionMerkleRoot),
    TstampSecs: h.tstampSecs,
    // A PoW header has seconds only; core reads them as nanoseconds × 1e9.
    TstampNanoSecs: h.tstampSecs * 1_000_000_000n,
    Height: h.height,
    Nonce: h.nonce,
    ExtraNonce: h.extraNonce,
  };
}

/** The transaction as backend APITransactionToResponse writes it. */
export async function transactionResponse(state: StateReader, bytes: Uint8Array, at: Placement, network: Network): Promise<TransactionResponse> {
  const txn: TxnEnvelope = decodeTxn(bytes);
  const hash = txnHash(bytes);
  const pk = (k: Uint8Array): string => encodePublicKey(k, network);
  const outputs = txn.outputs.map((o) => ({ PublicKeyBase58Check: pk(o.publicKey), AmountNanos: o.amountNanos }));
  const totalOutput = txn.outputs.reduce((sum, o) => sum + o.amountNanos, 0n);
  const fee = txn.v1?.feeNanos ?? 0n;
  const typeName = txnTypeName(txn.txnType);
  let affected: Array<{ PublicKeyBase58Check: string; Metadata: string }> = [];
  let diamond: ReturnType<typeof diamondOf> = null;
  try {
    const m = decodeMetadata(txn.txnType, txn.metadata);
    affected = (await affectedPublicKeys(state, txn, m)).map((a) => ({ PublicKeyBase58Check: pk(a.publicKey), Metadata: a.role }));
    diamond = diamondOf(txn);
  } catch {
    // A type whose metadata this node does not decode: outputs only, as the reference's fallback.
    affected = txn.outputs.map((o) => ({ PublicKeyBase58Check: pk(o.publicKey), Metadata: 'BasicTransferOutput' }));
  }
  const blockHashHex = at.block?.hashHex ?? '';
  const r: TransactionResponse = {
    TransactionIDBase58Check: idBase58(hash, network),
    TransactionHashHex: toHex(hash),
    RawTransactionHex: toHex(bytes),
  };
  if (txn.inputs.length > 0) r['Inputs'] = txn.inputs.map((i) => ({ TransactionIDBase58Check: idBase58(i.txid, network), Index: Number(i.index) }));
  if (outputs.length > 0) r['Outputs'] = outputs;
  if (txn.signature.length > 0) r['SignatureHex'] = toHex(txn.signature);
  r['TransactionType'] = typeName;
  if (blockHashHex !== '') r['BlockHashHex'] = blockHashHex;
  if (at.block !== undefined && at.blockInfo !== false) r['BlockInfo'] = { Height: at.block.height, TimestampSecs: at.block.tstampSecs };
  r['TransactionMetadata'] = {
    BlockHashHex: blockHashHex,
    TxnIndexInBlock: at.block?.index ?? 0,
    TxnType: typeName,
    TransactorPublicKeyBase58Check: txn.publicKey.length === 33 ? pk(txn.publicKey) : '',
    AffectedPublicKeys: affected.length === 0 ? null : affected,
    TxnOutputs: txn.outputs.length === 0 ? null : txn.outputs.map((o) => ({ PublicKey: Buffer.from(o.publicKey).toString('base64'), AmountNanos: o.amountNanos })),
    BasicTransferTxindexMetadata: {
      TotalInputNanos: totalOutput + fee,
      TotalOutputNanos: totalOutput,
      FeeNanos: fee,
      DiamondLevel: diamond === null ? 0n : diamond.level,
      PostHashHex: diamond === null ? '' : toHex(diamond.postHash),
    },
  };
  const extra = extraDataOrNull(txn.extraData, network);
  if (extra !== null) r['ExtraData'] = extra;
  if (txn.v1 !== null) {
    r['TxnNonce'] = { ExpirationBlockHeight: txn.v1.nonceExpirationBlockHeight, PartialID: txn.v1.noncePartialId };
    if (txn.v1.feeNanos > 0n) r['TxnFeeNanos'] = txn.v1.feeNanos;
    if (txn.v1.version > 0n) r['TxnVersion'] = Number(txn.v1.version);
  }
  return r;
}

// --- blocks -----------------------------------------------------------------------------------

export interface BlockRequest {
  height: number;
  hashHex: string;
  fullBlock: boolean;
}

/** APIBlock: the block at `hashHex` (any stored block), else the main chain's at `height`. */
export async function apiBlock(deps: ExchangeDeps, req: BlockRequest): Promise<{ Header: HeaderResponse; Transactions: TransactionResponse[] | null }> {
  const P = 'APIBlockRequest';
  let hashHex: string;
  if (req.hashHex !== '') {
    if (!/^[0-9a-fA-F]{64}$/.test(req.hashHex)) throw invalid(`${P}: Problem parsing block hash: expected 64 hex characters`);
    hashHex = req.hashHex.toLowerCase();
  } else {
    const tip = await deps.chain.tip();
    if (req.height < 0 || BigInt(req.height) > tip.height) {
      throw invalid(`${P}: Height requested ${req.height} must be >= 0 and <= height of best block chain tip ${tip.height}`);
    }
    const atHeight = await deps.store.get<string>(chainKeys.hashAtHeight(BigInt(req.height)));
    if (atHeight === undefined) throw invalid(`${P}: Block with height ${req.height} not found`);
    hashHex = atHeight;
  }
  const block = await deps.store.get<BlockRecord>(chainKeys.block(hashHex));
  if (block === undefined) throw invalid(`${P}: Block node with hash ${hashHex} does not exist`);
  const header = headerResponse(hashHex, block.header);
  if (!req.fullBlock) return { Header: header, Transactions: null };
  const transactions = await Promise.all(
    (await decodedBlock(hashHex, block)).txns.map((bytes, index) => transactionResponse(deps.store, bytes, { block: { hashHex, height: block.height, tstampSecs: header.TstampSecs, index } }, deps.network)),
  );
  return { Header: header, Transactions: transactions };
}

// --- transactions -----------------------------------------------------------------------------

export interface TransactionInfoRequest {
  isMempool: boolean;
  transactionId: string;
  publicKey: Uint8Array | null;
  idsOnly: boolean;
  lastTransactionId: string;
  lastPublicKeyTransactionIndex: number;
  limit: number;
}

export interface TransactionInfoResponse {
  Transactions: TransactionResponse[];
  LastTransactionIDBase58Check: string;
  LastPublicKeyTransactionIndex: number;
  BalanceNanos: bigint;
}

/** A transaction id as the reference reads one: Base58Check (any prefix), else hex; 32 bytes. */
function parseTxnId(s: string, what: string): Uint8Array {
  let bytes: Uint8Array | undefined;
  try {
    bytes = decodeBase58Check(s, what).payload;
  } catch {
    if (/^(?:[0-9a-fA-F]{2})*$/.test(s)) bytes = new Uint8Array(Buffer.from(s, 'hex'));
  }
  if (bytes === undefined) throw invalid(`APITransactionInfo: Problem parsing ${what}: neither Base58Check nor hex`);
  if (bytes.length !== 32) throw invalid(`APITransactionInfo: ${what} byte length is ${bytes.length} but should be 32`);
  return bytes;
}

const idOnly = (bytes: Uint8Array, network: Network): TransactionResponse => ({ TransactionIDBase58Check: idBase58(txnHash(bytes), network) });

/** APITransactionInfo: the mempool's transactions, one transaction by id, or a public key's transactions. */
export async function apiTransactionInfo(deps: ExchangeDeps, req: TransactionInfoRequest): Promise<TransactionInfoResponse> {
  const network = deps.network;
  const limit = req.limit <= 0 ? MAX_TRANSACTIONS_PER_PAGE : Math.min(req.limit, MAX_TRANSACTIONS_PER_PAGE);
  const res: TransactionInfoResponse = { Transactions: [], LastTransactionIDBase58Check: '', LastPublicKeyTransactionIndex: 0, BalanceNanos: 0n };

  if (req.isMempool) {
    const pool = await deps.chain.pendingTxns();
    let start = 0;
    if (req.lastTransactionId !== '') {
      const last = toHex(parseTxnId(req.lastTransactionId, 'LastTransactionIDBase58Check'));
      const at = pool.findIndex((t) => t.hashHex === last);
      // The reference skips everything until it sees the last one: none seen, nothing listed.
      start = at === -1 ? pool.length : at + 1;
    }
    const page = pool.slice(start, start + limit);
    const places = await deps.chain.pendingPlaces();
    res.Transactions = await Promise.all(page.map((t) => (req.idsOnly ? idOnly(t.bytes, network) : transactionResponse(places.view, t.bytes, {}, network))));
    if (res.Transactions.length > 0) res.LastTransactionIDBase58Check = res.Transactions.at(-1)!['TransactionIDBase58Check'] as string;
    return res;
  }

  if (req.publicKey === null) {
    const hashHex = toHex(parseTxnId(req.transactionId, 'TransactionID'));
    const location = await minedTxnLocation(deps.store, hashHex);
    if (location !== undefined) {
      const [height, index] = location;
      const b = await new MainChainBlocks(deps.store).at(height);
      const bytes = b?.txns[index];
      if (b !== undefined && bytes !== undefined) {
        // The reference names the block's hash from its txindex, but no BlockInfo (it passes no block along).
        const block = { hashHex: b.hashHex, height: b.height, tstampSecs: decodeHeader(b.header).tstampSecs, index };
        res.Transactions = [await transactionResponse(deps.store, bytes, { block, blockInfo: false }, network)];
        return res;
      }
    }
    const entry = await deps.store.get<MempoolEntry>(mempoolTxnKey(hashHex));
    if (entry === undefined) throw invalid('APITransactionInfo: Could not find transaction with this TransactionIDBase58Check');
    res.Transactions = [await transactionResponse(deps.store, entry.bytes, {}, network)];
    return res;
  }

  const places = await deps.chain.pendingPlaces();
  const pendingHeight = Number(places.height);
  res.BalanceNanos = await getBalance(places.view, req.publicKey);
  const before = req.lastPublicKeyTransactionIndex > 0 ? positionMember(...indexPosition(req.lastPublicKeyTransactionIndex)) : undefined;
  const members = await keyTxnMembers(places.view, req.publicKey, { ...(before !== undefined ? { before } : {}), limit });
  const blocks = new MainChainBlocks(deps.store);
  const rows = await Promise.all(
    members.map(async (member): Promise<TransactionResponse | null> => {
      const [height, index] = memberPosition(member);
      if (height >= pendingHeight) {
        // Unmined, at a place of the pending replay (above it: a block the replay does not build on yet).
        const bytes = height === pendingHeight ? places.txnAt(index) : undefined;
        if (bytes === undefined) return null;
        return req.idsOnly ? idOnly(bytes, network) : transactionResponse(places.view, bytes, {}, network);
      }
      const b = await blocks.at(height);
      const bytes = b?.txns[index];
      if (b === undefined || bytes === undefined) return null;
      if (req.idsOnly) return idOnly(bytes, network);
      return transactionResponse(places.view, bytes, { block: { hashHex: b.hashHex, height: b.height, tstampSecs: decodeHeader(b.header).tstampSecs, index } }, network);
    }),
  );
  res.Transactions = rows.filter((r): r is TransactionResponse => r !== null);
  const oldest = members.at(-1);
  if (oldest !== undefined) res.LastPublicKeyTransactionIndex = notificationIndex(memberPosition(oldest));
  return res;
}
