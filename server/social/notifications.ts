/**
 * Notifications (reference social-graph.md §6.3–6.5; backend GetNotifications,
 * GetNotificationsCount, SetNotificationMetadata) over the notification index
 * (chain/state/notifications.ts), read through the pending state: mined transactions and the
 * mempool's, newest first, as the reference merges its mempool's before its txindex's.
 *
 * A notification's `Index` is its transaction's place, height × 2^24 + index in block (a mempool
 * transaction's: the next height and its place in the pending replay), not the reference's
 * per-key count of every transaction touching the key. Clients only compare, page (inclusive
 * `FetchStartIndex`, the last Index − 1 for the next page) and store Indexes, which works the
 * same with gaps; an Index of one node means nothing to another, as the reference's.
 *
 * A page reads, per category asked for, at most the page's worth of index members, then each
 * transaction once (its block, read once per height, or the mempool list), so it costs the page,
 * never the key's history. Notifications the reference drops when reading are dropped here too:
 * a transactor the reader blocked or the node blacklisted, a post since hidden or gone. Such
 * skipped members are read past, up to MAX_NOTIFICATIONS_SCANNED per request.
 *
 * What a page shows changes with the tip in two ways only, and then it reads the tip (mined
 * state), so that a cached page (http/readCache.ts) goes with the next block: a notification at
 * the pending replay's places (unmined; a block fills its place, maybe with another
 * transaction) or above them, and a post it shows as still in the mempool. Pages of mined
 * notifications and posts stay valid across blocks.
 *
 * The read state (`NotificationLastSeenIndex`, `LatestUnreadNotificationIndex`,
 * `UnreadNotifications`: the reference's global-state UserMetadata fields) is node-local, one
 * record per key under `social:notifications:<pk hex>`, written compare-and-set.
 * @module
 */
import type { PendingPlaces } from '../chain/chain.js';
import { CREATOR_COIN_PARAMS } from '../chain/rules/creatorCoins.js';
import { affectedPublicKeys, diamondOf, notifiedKeys, type AffectedKey } from '../chain/rules/notifications.js';
import { transferRestrictionStatusName } from '../chain/state/daoCoins.js';
import { MainChainBlocks } from '../chain/state/blockTxns.js';
import { chainKeys, type TxnLocation } from '../chain/state/keys.js';
import { memberPosition, NOTIFICATION_CATEGORIES, notificationIndex, notificationMembers, type NotificationCategory } from '../chain/state/notifications.js';
import { getPost } from '../chain/state/posts.js';
import { getProfile } from '../chain/state/profiles.js';
import type { StateIndexReader, StateReader } from '../chain/state/reader.js';
import { decodeTxn, txnHash, type TxnEnvelope } from '../chain/txn/envelope.js';
import { CreatorCoinOperation, DAOCoinOperation, decodeMetadata, TxnType, txnTypeName, type TxnMetadata } from '../chain/txn/metadata.js';
import { HASH_BYTES } from '../chain/txn/sizes.js';
import { DomainError } from '../errors.js';
import { toHex } from '../hex.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { indexHas } from '../store/indexHas.js';
import type { Store } from '../store/types.js';
import { postEntryResponse } from './postEntry.js';
import { profileEntryMap, type ProfileDeps } from './profileEntry.js';
import { isBlockedBy, userMetadataKeys } from './userMetadata.js';

/** Most notifications one get-notifications page holds (the reference has no bound; frontends ask 50 or so). */
export const MAX_NOTIFICATIONS_TO_FETCH = 200;
/** Index members one request looks at, skipped ones (blocked, blacklisted, hidden) included. */
export const MAX_NOTIFICATIONS_SCANNED = 2_000;
/** Notifications get-unread-notifications-count counts past the last one counted (the reference's; frontends show "99+"). */
export const UNREAD_NOTIFICATIONS_COUNTED = 100;

/**
 * The chain as notifications read it: the pending state with its mempool's places, and mined
 * state (blocks, the tip). A cached route passes its recording ChainReads (http/readCache.ts);
 * a stand-in serves a plain reader (bench/http/readBaselines.ts).
 */
export interface NotificationChain {
  pendingPlaces(): Promise<PendingPlaces<StateIndexReader>>;
  mined(): StateReader;
}

/** A notification request refused (invalid), or a read state that kept changing under a write (busy). */
export class NotificationError extends DomainError {
  override readonly name = 'NotificationError';
}

// --- the transactions an index names -----------------------------------------------------------

/** One notification of `reader`, resolved and checked. */
interface Resolved {
  place: TxnLocation;
  /** "" while unmined. */
  blockHashHex: string;
  txn: TxnEnvelope;
  hash: Uint8Array;
  m: TxnMetadata;
  affected: AffectedKey[];
}

/** What one request reads once, whatever the number of notifications naming it. */
class NotificationReads {
  /**
   * Mined blocks, read from mined state: a block never changes, and the pending view's read
   * cache (kept until the next block, bounded by entries, not bytes) is no place for whole blocks.
   */
  private readonly blocks: MainChainBlocks;
  private readonly hidden = new Map<string, Promise<boolean>>();
  private tipRead: Promise<unknown> | undefined;
  readonly state: StateIndexReader;
  /** Height of the next block: places at it are the pending replay's. */
  readonly pendingHeight: number;

  constructor(
    readonly deps: ProfileDeps,
    private readonly places: PendingPlaces<StateIndexReader>,
    private readonly mined: StateReader,
    readonly reader: Uint8Array,
  ) {
    this.state = places.view;
    this.pendingHeight = Number(places.height);
    this.blocks = new MainChainBlocks(mined);
  }

  /** Notes that the page depends on the tip: reads it (once), a read a cached page records. */
  async dependsOnTip(): Promise<void> {
    await (this.tipRead ??= this.mined.get(chainKeys.tip));
  }

  /** Whether the reader hides what `transactor` does: blocked by the reader, or blacklisted on this node. */
  private hides(transactor: Uint8Array): Promise<boolean> {
    const hex = toHex(transactor);
    let h = this.hidden.get(hex);
    if (h === undefined) {
      h = Promise.all([isBlockedBy(this.deps.store, this.reader, transactor), indexHas(this.deps.store, userMetadataKeys.blacklist, hex)]).then(([a, b]) => a || b);
      this.hidden.set(hex, h);
    }
    return h;
  }

  /**
   * The transaction at a member's place, when it notifies the reader still: null for a place
   * that no longer holds a transaction notifying the reader (a pending place a block has since
   * filled otherwise), a transactor the reader hides, or a post since hidden or gone.
   */
  async resolve(member: string): Promise<Resolved | null> {
    const place = memberPosition(member);
    const [height, index] = place;
    let bytes: Uint8Array | undefined;
    let blockHashHex = '';
    if (height < this.pendingHeight) {
      const b = await this.blocks.at(height);
      bytes = b?.txns[index];
      blockHashHex = b?.hashHex ?? '';
    } else {
      // At the next block's height: unmined, at a place of the pending replay. Above it: of a
      // block the replay does not build on yet. Either way the page changes with the tip.
      await this.dependsOnTip();
      if (height === this.pendingHeight) bytes = this.places.txnAt(index);
    }
    if (bytes === undefined) return null;
    const txn = decodeTxn(bytes);
    const m = decodeMetadata(txn.txnType, txn.metadata);
    const affected = await affectedPublicKeys(this.state, txn, m);
    // Fills are known at connect only: the index says the reader's order was one.
    if (m.type === 'DAO_COIN_LIMIT_ORDER') affected.push({ publicKey: this.reader, role: 'FilledOrderPublicKey' });
    if (!notifiedKeys(txn, m, affected).some((k) => Buffer.compare(k, this.reader) === 0)) return null;
    if (await this.hides(txn.publicKey)) return null;
    const hash = txnHash(bytes);
    if (m.type === 'SUBMIT_POST') {
      const post = await getPost(this.state, m.postHashToModify.length === HASH_BYTES ? m.postHashToModify : hash);
      if (post === undefined || post.isHidden) return null;
    }
    return { place, blockHashHex, txn, hash, m, affected };
  }
}

export interface ScanOptions {
  categories: readonly NotificationCategory[];
  newestFirst: boolean;
  /** Inclusive bound in the direction of reading (an Index); absent: from the newest / oldest. */
  from?: number;
  want: number;
}

/** The reader's notifications from `from` in the direction asked, up to `want` of them. */
async function scan(reads: NotificationReads, opts: ScanOptions): Promise<Resolved[]> {
  const out: Resolved[] = [];
  let after: string | undefined;
  let scanned = 0;
  while (out.length < opts.want && scanned < MAX_NOTIFICATIONS_SCANNED) {
    const limit = Math.min(opts.want - out.length, MAX_NOTIFICATIONS_SCANNED - scanned);
    const members = await notificationMembers(reads.state, reads.reader, opts.categories, {
      newestFirst: opts.newestFirst,
      ...(opts.from !== undefined ? { from: opts.from } : {}),
      ...(after !== undefined ? { after } : {}),
      limit,
    });
    scanned += members.length;
    for (const r of await Promise.all(members.map((m) => reads.resolve(m)))) if (r !== null) out.push(r);
    if (members.length < limit) break;
    after = members.at(-1);
  }
  return out;
}

async function readsFor(deps: ProfileDeps, chain: NotificationChain, reader: Uint8Array): Promise<NotificationReads> {
  return new NotificationReads(deps, await chain.pendingPlaces(), chain.mined(), reader);
}

// --- get-notifications -------------------------------------------------------------------------

export interface NotificationsRequest {
  publicKey: Uint8Array;
  /** Newest first from this Index (inclusive); negative: from the newest. */
  fetchStartIndex: number;
  /** 1..MAX_NOTIFICATIONS_TO_FETCH. */
  numToFetch: number;
  /** Categories to leave out (`true`); any name given leaves out the uncategorised types too (none here). */
  filteredOut: Readonly<Record<string, boolean>>;
}

const u256 = (v: bigint): string => `0x${v.toString(16)}`;
const sum = (xs: readonly bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);

const DAO_COIN_OPERATIONS: Readonly<Record<number, string>> = {
  [DAOCoinOperation.MINT]: 'mint',
  [DAOCoinOperation.BURN]: 'burn',
  [DAOCoinOperation.DISABLE_MINTING]: 'disable_minting',
  [DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS]: 'update_transfer_restriction_status',
};

/** Core's TransactionMetadata of a resolved notification, as the reference serializes it (UtxoOps left out, as it does). */
async function transactionMetadata(state: StateIndexReader, r: Resolved, network: Network): Promise<Record<string, unknown>> {
  const { txn, m } = r;
  const pk = (k: Uint8Array): string => encodePublicKey(k, network);
  const totalOutput = sum(txn.outputs.map((o) => o.amountNanos));
  const fee = txn.v1?.feeNanos ?? 0n;
  const diamond = txn.txnType === TxnType.BASIC_TRANSFER ? diamondOf(txn) : null;
  const meta: Record<string, unknown> = {
    BlockHashHex: r.blockHashHex,
    TxnIndexInBlock: r.place[1],
    TxnType: txnTypeName(txn.txnType),
    TransactorPublicKeyBase58Check: pk(txn.publicKey),
    AffectedPublicKeys: r.affected.map((a) => ({ PublicKeyBase58Check: pk(a.publicKey), Metadata: a.role })),
    TxnOutputs: txn.outputs.map((o) => ({ PublicKey: Buffer.from(o.publicKey).toString('base64'), AmountNanos: o.amountNanos })),
    BasicTransferTxindexMetadata: {
      // Balance model: the transactor spends its outputs and the fee.
      TotalInputNanos: totalOutput + fee,
      TotalOutputNanos: totalOutput,
      FeeNanos: fee,
      UtxoOpsDump: '',
      UtxoOps: null,
      DiamondLevel: diamond?.level ?? 0n,
      PostHashHex: diamond === null ? '' : toHex(diamond.postHash),
    },
  };
  const username = async (creator: Uint8Array): Promise<string> => (await getProfile(state, creator))?.username ?? '';
  switch (m.type) {
    case 'FOLLOW':
      meta['FollowTxindexMetadata'] = { IsUnfollow: m.isUnfollow };
      break;
    case 'LIKE':
      meta['LikeTxindexMetadata'] = { IsUnlike: m.isUnlike, PostHashHex: toHex(m.likedPostHash) };
      break;
    case 'SUBMIT_POST':
      meta['SubmitPostTxindexMetadata'] = {
        PostHashBeingModifiedHex: toHex(m.postHashToModify.length === HASH_BYTES ? m.postHashToModify : r.hash),
        ParentPostHashHex: m.parentStakeId.length === HASH_BYTES ? toHex(m.parentStakeId) : '',
      };
      break;
    case 'CREATOR_COIN':
      meta['CreatorCoinTxindexMetadata'] = {
        OperationType: m.operationType === CreatorCoinOperation.BUY ? 'buy' : m.operationType === CreatorCoinOperation.SELL ? 'sell' : 'add',
        NativeToSellNanos: m.desoToSellNanos,
        CreatorCoinToSellNanos: m.creatorCoinToSellNanos,
        NativeToAddNanos: m.desoToAddNanos,
        NativeLockedNanosDiff: m.operationType === CreatorCoinOperation.BUY ? await boughtLockedNanos(state, txn.publicKey, m.profilePublicKey, m.desoToSellNanos) : 0n,
      };
      break;
    case 'CREATOR_COIN_TRANSFER':
      // Creator-coin diamonds are refused on this chain: never a level or a post.
      meta['CreatorCoinTransferTxindexMetadata'] = { CreatorUsername: await username(m.profilePublicKey), CreatorCoinToTransferNanos: m.creatorCoinToTransferNanos, DiamondLevel: 0, PostHashHex: '' };
      break;
    case 'DAO_COIN':
      meta['DAOCoinTxindexMetadata'] = {
        CreatorUsername: await username(m.profilePublicKey),
        OperationType: DAO_COIN_OPERATIONS[m.operationType] ?? '',
        CoinsToMintNanos: u256(m.coinsToMintNanos),
        CoinsToBurnNanos: u256(m.coinsToBurnNanos),
        TransferRestrictionStatus: transferRestrictionStatusName(m.transferRestrictionStatus),
      };
      break;
    case 'DAO_COIN_TRANSFER':
      meta['DAOCoinTransferTxindexMetadata'] = { CreatorUsername: await username(m.profilePublicKey), DAOCoinToTransferNanos: u256(m.daoCoinToTransferNanos) };
      break;
    case 'DAO_COIN_LIMIT_ORDER':
      meta['DAOCoinLimitOrderTxindexMetadata'] = {
        BuyingDAOCoinCreatorPublicKey: m.buyingDAOCoinCreatorPublicKey === null ? '' : pk(m.buyingDAOCoinCreatorPublicKey),
        SellingDAOCoinCreatorPublicKey: m.sellingDAOCoinCreatorPublicKey === null ? '' : pk(m.sellingDAOCoinCreatorPublicKey),
        ScaledExchangeRateCoinsToSellPerCoinToBuy: u256(m.scaledExchangeRateCoinsToSellPerCoinToBuy ?? 0n),
        QuantityToFillInBaseUnits: u256(m.quantityToFillInBaseUnits ?? 0n),
        // Fills are known only while the order connects and are not kept per transaction (the
        // index records whom they notified): null, as core answers an order without its fills.
        FilledDAOCoinLimitOrdersMetadata: null,
      };
      break;
    default:
      break;
  }
  return meta;
}

/**
 * What a buy added to the coin's locked native (core DESOLockedNanosDiff): the nanos sold after
 * the trade fee, less the creator's cut unless the creator bought. Core records it at connect;
 * here it is worked out again with the creator's basis points as they are now (only buys are
 * notifications, and a creator rarely changes them). Sells are never shown: they notify nobody.
 */
async function boughtLockedNanos(state: StateIndexReader, buyer: Uint8Array, creator: Uint8Array, nanosSold: bigint): Promise<bigint> {
  const afterFees = (nanosSold * (10_000n - CREATOR_COIN_PARAMS.tradeFeeBasisPoints)) / 10_000n;
  if (Buffer.compare(buyer, creator) === 0) return afterFees;
  const basisPoints = (await getProfile(state, creator))?.creatorBasisPoints ?? 0n;
  return afterFees - (afterFees * basisPoints) / 10_000n;
}

/** The posts a notification shows (backend addPostForHashForNotification): a post and its parent, a liked or diamonded post. */
function postHashesOf(r: Resolved): Uint8Array[] {
  const { m } = r;
  if (m.type === 'SUBMIT_POST') {
    const own = m.postHashToModify.length === HASH_BYTES ? m.postHashToModify : r.hash;
    return m.parentStakeId.length === HASH_BYTES ? [own, m.parentStakeId] : [own];
  }
  if (m.type === 'LIKE') return [m.likedPostHash];
  const diamond = m.type === 'BASIC_TRANSFER' ? diamondOf(r.txn) : null;
  return diamond !== null && diamond.postHash.length === HASH_BYTES ? [diamond.postHash] : [];
}

/** The transfer outputs the reference lists beside a notification: all but posts' and likes'. */
function outputResponses(r: Resolved, network: Network): Array<Record<string, unknown>> | null {
  if (r.m.type === 'SUBMIT_POST' || r.m.type === 'LIKE' || r.m.type === 'CREATOR_COIN_TRANSFER' || r.txn.outputs.length === 0) return null;
  return r.txn.outputs.map((o) => ({ PublicKeyBase58Check: encodePublicKey(o.publicKey, network), AmountNanos: o.amountNanos }));
}

/** The categories a request reads: every one but those filtered out. */
export function categoriesAsked(filteredOut: Readonly<Record<string, boolean>>): NotificationCategory[] {
  return NOTIFICATION_CATEGORIES.filter((c) => filteredOut[c] !== true);
}

/**
 * get-notifications: the reader's notifications, newest first, from FetchStartIndex (inclusive)
 * or the newest, with the profiles of every key they name and the posts they show (each with
 * the author's profile when the page names it, and the reader's PostEntryReaderState).
 */
export async function notifications(deps: ProfileDeps, chain: NotificationChain, req: NotificationsRequest): Promise<Record<string, unknown>> {
  const network = deps.config.network;
  if (req.numToFetch < 1) throw new NotificationError('NOTIFICATION_PAGE_SIZE', 'invalid', 'GetNotifications: NumToFetch must be at least 1');
  if (req.numToFetch > MAX_NOTIFICATIONS_TO_FETCH) throw new NotificationError('NOTIFICATION_PAGE_SIZE', 'invalid', `GetNotifications: NumToFetch is ${req.numToFetch}; this node answers at most ${MAX_NOTIFICATIONS_TO_FETCH} a page`);
  const reads = await readsFor(deps, chain, req.publicKey);
  const state = reads.state;
  const found = await scan(reads, {
    categories: categoriesAsked(req.filteredOut),
    newestFirst: true,
    ...(req.fetchStartIndex >= 0 ? { from: req.fetchStartIndex } : {}),
    want: req.numToFetch,
  });

  const keys = found.flatMap((r) => [r.txn.publicKey, ...r.affected.map((a) => a.publicKey)]);
  const profiles = await profileEntryMap(deps, state, keys);
  const postsByHash: Record<string, Record<string, unknown> | null> = {};
  const hashes = new Map<string, Uint8Array>();
  for (const r of found) for (const h of postHashesOf(r)) hashes.set(toHex(h), h);
  await Promise.all(
    [...hashes].map(async ([hex, h]) => {
      const post = await getPost(state, h);
      if (post === undefined) {
        postsByHash[hex] = null;
        return;
      }
      const inMempool = Number(post.confirmationBlockHeight) >= reads.pendingHeight;
      if (inMempool) await reads.dependsOnTip();
      const response = await postEntryResponse(state, post, network, { inMempool, reader: req.publicKey });
      response['ProfileEntryResponse'] = profiles[encodePublicKey(post.posterPublicKey, network)] ?? null;
      postsByHash[hex] = response;
    }),
  );
  const items = await Promise.all(
    found.map(async (r) => ({
      Metadata: await transactionMetadata(state, r, network),
      TxnOutputResponses: outputResponses(r, network),
      InnerTxnOutputResponses: null,
      Txn: null,
      Index: notificationIndex(r.place),
    })),
  );
  return {
    Notifications: items,
    ProfilesByPublicKey: profiles,
    PostsByHash: postsByHash,
    LastSeenIndex: req.fetchStartIndex < 0 && items.length > 0 ? items[0]!.Index : -1,
  };
}

// --- read state ----------------------------------------------------------------------------------

/** The reader's notification read state (reference UserMetadata fields). */
export interface NotificationReadState {
  /** NotificationLastSeenIndex: only ever raised. */
  lastSeenIndex: number;
  /** LatestUnreadNotificationIndex: the last Index counted as unread. */
  latestUnreadIndex: number;
  /** UnreadNotifications: the count the client wrote back. */
  unread: number;
}

type StoredReadState = [lastSeenIndex: number, latestUnreadIndex: number, unread: number];

export const notificationStateKey = (pk33: Uint8Array): string => `social:notifications:${toHex(pk33)}`;

export async function notificationReadState(store: Store, pk33: Uint8Array): Promise<NotificationReadState> {
  const s = await store.get<StoredReadState>(notificationStateKey(pk33));
  return s === undefined ? { lastSeenIndex: 0, latestUnreadIndex: 0, unread: 0 } : { lastSeenIndex: s[0], latestUnreadIndex: s[1], unread: s[2] };
}

/** Attempts of a compare-and-set before giving up (each loses only to another write of the same key). */
const READ_STATE_ATTEMPTS = 16;

/**
 * set-notification-metadata: `lastSeenIndex` raises NotificationLastSeenIndex (when above it
 * and above 0); the other two overwrite theirs. Compare-and-set on the stored bytes, so a
 * concurrent write of another process is never lost.
 */
export async function setNotificationReadState(store: Store, pk33: Uint8Array, update: NotificationReadState): Promise<void> {
  const key = notificationStateKey(pk33);
  for (let attempt = 0; attempt < READ_STATE_ATTEMPTS; attempt++) {
    const stored = await store.getStored<StoredReadState>(key);
    const lastSeen = stored?.value[0] ?? 0;
    const next: StoredReadState = [update.lastSeenIndex > lastSeen && update.lastSeenIndex > 0 ? update.lastSeenIndex : lastSeen, update.latestUnreadIndex, update.unread];
    if (await store.commit([{ op: 'set', key, value: next }], [{ key, bytes: stored?.bytes }])) return;
  }
  throw new NotificationError('NOTIFICATION_STATE_BUSY', 'busy', 'SetNotificationMetadata: the notification state kept changing; retry');
}

/**
 * get-unread-notifications-count: counts the notifications after the last one counted before
 * (or after the last seen), oldest first, at most UNREAD_NOTIFICATIONS_COUNTED, plus the
 * count the client stored; the client writes the answer back with set-notification-metadata
 * when `UpdateMetadata` says it changed.
 */
export async function unreadNotificationsCount(deps: ProfileDeps, chain: NotificationChain, pk33: Uint8Array): Promise<Record<string, unknown>> {
  const stored = await notificationReadState(deps.store, pk33);
  const from = stored.latestUnreadIndex > 0 ? stored.latestUnreadIndex + 1 : stored.lastSeenIndex > 0 ? stored.lastSeenIndex + 1 : 0;
  const reads = await readsFor(deps, chain, pk33);
  const found = await scan(reads, { categories: NOTIFICATION_CATEGORIES, newestFirst: false, from, want: UNREAD_NOTIFICATIONS_COUNTED });
  const last = found.at(-1);
  return {
    NotificationsCount: found.length + stored.unread,
    LastUnreadNotificationIndex: last === undefined ? stored.latestUnreadIndex : notificationIndex(last.place),
    UpdateMetadata: found.length > 0,
  };
}
