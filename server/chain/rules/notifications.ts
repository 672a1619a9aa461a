/**
 * Which public keys a transaction affects and which of them it notifies (reference
 * social-graph.md §6.1–6.2: core ComputeTransactionMetadata's AffectedPublicKeys, backend
 * TxnMetaIsNotification and NotificationTxnShouldBeIncluded). Connect calls
 * `indexConnectedTxn` last, in the transaction's own view, so the notification index
 * (state/notifications.ts) and the per-key transaction index (state/keyTxns.ts, every affected
 * key and the transactor) are written with the transaction's other effects: by the mempool's
 * pending replay, by a block, and recorded with them when a block applies its mempool's writes.
 *
 * Notified: a key the transaction affects in a role that notifies (below), other than the
 * transactor. Roles by type, as core names them:
 *
 * | type                | role (notifies)                                                          | category           |
 * |---------------------|--------------------------------------------------------------------------|--------------------|
 * | any                 | `BasicTransferOutput` per output (notifies on BASIC_TRANSFER only)       |                    |
 * | BASIC_TRANSFER      | —                                                                        | diamond / transfer |
 * | FOLLOW              | `FollowedPublicKeyBase58Check` (not on unfollow)                         | follow             |
 * | LIKE                | `PosterPublicKeyBase58Check` (not on unlike)                             | like               |
 * | SUBMIT_POST         | `ParentPosterPublicKeyBase58Check` (new comments), `MentionedPublicKeyBase58Check`, `RepostedPublicKeyBase58Check` | post |
 * | CREATOR_COIN        | `CreatorPublicKey` (buys only)                                           | transfer           |
 * | CREATOR_COIN_TRANSFER | `ReceiverPublicKey` (creator-coin diamonds are refused on this chain)  | transfer           |
 * | DAO_COIN            | `DAOCoin{Mint,Burn,DisableMinting}PublicKeyBase58Check`, `DAOCoinUpdateTransferRestrictionStatus` | dao coin |
 * | DAO_COIN_TRANSFER   | `ReceiverPublicKey`                                                      | dao coin           |
 * | DAO_COIN_LIMIT_ORDER| `BuyingDAOCoinCreatorPublicKey`, `SellingDAOCoinCreatorPublicKey` (never notify), `FilledOrderPublicKey` | dao coin |
 *
 * Messages (PRIVATE_MESSAGE, NEW_MESSAGE), profiles, derived keys, access groups and the rest
 * notify nobody, as in the reference. Where the reference evidently meant less than it does:
 * a limit order notifies the owners of the resting orders it filled, not every key it names
 * and its own transactor (the reference's check reads a fill list that is never nil); a repost
 * notifies the reposted author whatever the body (the reference skips it when the body is not
 * JSON).
 * @module
 */
import type { TxnEnvelope } from '../txn/envelope.js';
import { CreatorCoinOperation, DAOCoinOperation, decodeMetadata, TxnType, type TxnMetadata } from '../txn/metadata.js';
import { HASH_BYTES } from '../txn/sizes.js';
import { getBalance } from '../state/balances.js';
import { getDAOCoinBalance } from '../state/daoCoins.js';
import { daoCoinOrderKeys, getOrder, isDesoCoin } from '../state/daoCoinLimitOrders.js';
import { textBytes } from '../state/keyText.js';
import { addKeyTxns } from '../state/keyTxns.js';
import { addNotifications, type NotificationCategory } from '../state/notifications.js';
import { getPost, parsePostBody } from '../state/posts.js';
import { publicKeyForUsername } from '../state/profiles.js';
import type { StateReader } from '../state/reader.js';
import type { StateView } from '../state/view.js';
import type { ConnectContext, TxnInfo } from './connect.js';
import { DIAMOND_EXTRA_KEYS, readDiamondLevel } from './diamonds.js';
import { POST_EXTRA_KEYS } from './posts.js';

/** A key a transaction affects, and how (core AffectedPublicKey.Metadata). */
export interface AffectedKey {
  publicKey: Uint8Array;
  role: string;
}

/**
 * Most mention tags of one post looked up (first seen first): each is a read at admission, in the
 * block and when shown, and a body of a few KB could otherwise name thousands (core has no
 * bound; no frontend sends more than a handful).
 */
export const MAX_MENTIONS_RESOLVED = 100;

/** What ends a mention tag (core's terminators for `@` and `$` tags). */
const MENTION_TERMINATORS = new Set(' ,.\n&*()-+~\'"[]{}');

/**
 * The distinct `prefix` tags of `text`, first seen first: a tag starts with `prefix` at the start
 * of the text or right after a terminator and runs to the next terminator (further leading
 * prefixes dropped); an empty tag is none.
 */
export function mentionTags(prefix: '@' | '$', text: string): string[] {
  const ends = [-1];
  for (let i = 0; i < text.length; i++) if (MENTION_TERMINATORS.has(text[i]!)) ends.push(i);
  ends.push(text.length);
  const tags = new Set<string>();
  for (let i = 0; i + 1 < ends.length; i++) {
    const at = ends[i]! + 1;
    if (text[at] !== prefix) continue;
    let start = at + 1;
    while (start < ends[i + 1]! && text[start] === prefix) start++;
    const tag = text.slice(start, ends[i + 1]!);
    if (tag !== '') tags.add(tag);
  }
  return [...tags];
}

/** `@name` tags, and `$name` tags with a letter or underscore in them (core's cashtag rule). */
export function mentionedUsernames(body: string): string[] {
  const cashtags = mentionTags('$', body).filter((t) => /[A-Za-z_]/.test(t));
  return [...mentionTags('@', body), ...cashtags];
}

const extraValue = (txn: TxnEnvelope, key: string): Uint8Array | undefined => txn.extraData.find(([k]) => Buffer.from(k).toString('latin1') === key)?.[1];

/** A BASIC_TRANSFER's diamond: level and post, when both ExtraData keys are there and the level reads (core's txindex rule). */
export function diamondOf(txn: TxnEnvelope): { level: bigint; postHash: Uint8Array } | null {
  const levelBytes = extraValue(txn, DIAMOND_EXTRA_KEYS.level);
  const postHash = extraValue(txn, DIAMOND_EXTRA_KEYS.postHash);
  if (levelBytes === undefined || postHash === undefined) return null;
  const { level, bytesRead } = readDiamondLevel(levelBytes);
  return bytesRead > 0 ? { level, postHash } : null;
}

/** The post a SUBMIT_POST reposts (its `RecloutedPostHash`, as a 32-byte hash), if any. */
export function repostedHashOf(txn: TxnEnvelope): Uint8Array | null {
  const v = extraValue(txn, POST_EXTRA_KEYS.repostedPostHash);
  if (v === undefined) return null;
  const h = new Uint8Array(HASH_BYTES);
  h.set(v.subarray(0, HASH_BYTES));
  return h;
}

const DAO_COIN_ROLES: Readonly<Record<number, string>> = {
  [DAOCoinOperation.MINT]: 'DAOCoinMintPublicKeyBase58Check',
  [DAOCoinOperation.BURN]: 'DAOCoinBurnPublicKeyBase58Check',
  [DAOCoinOperation.DISABLE_MINTING]: 'DAOCoinDisableMintingPublicKeyBase58Check',
  [DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS]: 'DAOCoinUpdateTransferRestrictionStatus',
};

/** Adds a 33-byte key to `out` (an absent or malformed one is skipped). */
function addAffected(out: AffectedKey[], publicKey: Uint8Array | undefined, role: string): void {
  if (publicKey !== undefined && publicKey.length === 33) out.push({ publicKey, role });
}

/**
 * The keys `txn` affects, in core's order (outputs first), read from `state`: the state the
 * transaction connected on, or any later one (post authors never change; a mention names
 * whoever holds the username then). Limit-order fills are known at connect only
 * (`filledOrderOwners`).
 */
export async function affectedPublicKeys(state: StateReader, txn: TxnEnvelope, m: TxnMetadata): Promise<AffectedKey[]> {
  const out: AffectedKey[] = txn.outputs.map((o) => ({ publicKey: o.publicKey, role: 'BasicTransferOutput' }));
  switch (m.type) {
    case 'FOLLOW':
      addAffected(out, m.followedPublicKey, 'FollowedPublicKeyBase58Check');
      break;
    case 'LIKE':
      addAffected(out, (await getPost(state, m.likedPostHash))?.posterPublicKey, 'PosterPublicKeyBase58Check');
      break;
    case 'SUBMIT_POST': {
      if (m.postHashToModify.length === 0 && m.parentStakeId.length === HASH_BYTES) {
        addAffected(out, (await getPost(state, m.parentStakeId))?.posterPublicKey, 'ParentPosterPublicKeyBase58Check');
      }
      const body = m.body.length === 0 ? null : parsePostBody({ body: m.body });
      if (body !== null && body.Body !== '') {
        const names = mentionedUsernames(body.Body).slice(0, MAX_MENTIONS_RESOLVED);
        const keys = await Promise.all(names.map((name) => publicKeyForUsername(state, name.toLowerCase())));
        for (const k of keys) addAffected(out, k, 'MentionedPublicKeyBase58Check');
      }
      const reposted = repostedHashOf(txn);
      if (reposted !== null) addAffected(out, (await getPost(state, reposted))?.posterPublicKey, 'RepostedPublicKeyBase58Check');
      break;
    }
    case 'CREATOR_COIN':
      addAffected(out, m.profilePublicKey, 'CreatorPublicKey');
      break;
    case 'CREATOR_COIN_TRANSFER':
      addAffected(out, m.receiverPublicKey, 'ReceiverPublicKey');
      break;
    case 'DAO_COIN':
      addAffected(out, m.profilePublicKey, DAO_COIN_ROLES[m.operationType] ?? 'DAOCoinPublicKeyBase58Check');
      break;
    case 'DAO_COIN_TRANSFER':
      addAffected(out, m.receiverPublicKey, 'ReceiverPublicKey');
      break;
    case 'DAO_COIN_LIMIT_ORDER':
      if (m.cancelOrderId !== null) break;
      if (m.buyingDAOCoinCreatorPublicKey !== null && !isDesoCoin(m.buyingDAOCoinCreatorPublicKey)) addAffected(out, m.buyingDAOCoinCreatorPublicKey, 'BuyingDAOCoinCreatorPublicKey');
      if (m.sellingDAOCoinCreatorPublicKey !== null && !isDesoCoin(m.sellingDAOCoinCreatorPublicKey)) addAffected(out, m.sellingDAOCoinCreatorPublicKey, 'SellingDAOCoinCreatorPublicKey');
      break;
    default:
      break;
  }
  return out;
}

/** The notification category of a transaction, or null for types that notify nobody. */
export function notificationCategory(txn: TxnEnvelope): NotificationCategory | null {
  switch (txn.txnType) {
    case TxnType.BASIC_TRANSFER:
      return (diamondOf(txn)?.level ?? 0n) > 0n ? 'diamond' : 'transfer';
    case TxnType.CREATOR_COIN:
    case TxnType.CREATOR_COIN_TRANSFER:
      return 'transfer';
    case TxnType.SUBMIT_POST:
      return 'post';
    case TxnType.FOLLOW:
      return 'follow';
    case TxnType.LIKE:
      return 'like';
    case TxnType.DAO_COIN:
    case TxnType.DAO_COIN_TRANSFER:
    case TxnType.DAO_COIN_LIMIT_ORDER:
      return 'dao coin';
    default:
      return null;
  }
}

/** Whether an affected key in `role` is notified by a transaction of this type and metadata (the transactor never is). */
export function roleNotifies(txn: TxnEnvelope, m: TxnMetadata, role: string): boolean {
  if (role === 'BasicTransferOutput') return txn.txnType === TxnType.BASIC_TRANSFER;
  switch (m.type) {
    case 'FOLLOW':
      return !m.isUnfollow;
    case 'LIKE':
      return !m.isUnlike;
    case 'CREATOR_COIN':
      return m.operationType === CreatorCoinOperation.BUY;
    case 'SUBMIT_POST':
    case 'CREATOR_COIN_TRANSFER':
    case 'DAO_COIN':
    case 'DAO_COIN_TRANSFER':
      return true;
    case 'DAO_COIN_LIMIT_ORDER':
      return role === 'FilledOrderPublicKey';
    default:
      return false;
  }
}

/** The distinct keys of `affected` that `txn` notifies. */
export function notifiedKeys(txn: TxnEnvelope, m: TxnMetadata, affected: readonly AffectedKey[]): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  const transactor = Buffer.from(txn.publicKey).toString('hex');
  for (const a of affected) {
    const hex = Buffer.from(a.publicKey).toString('hex');
    if (hex === transactor || seen.has(hex) || !roleNotifies(txn, m, a.role)) continue;
    seen.add(hex);
    out.push(a.publicKey);
  }
  return out;
}

/**
 * Owners of the resting orders a limit order filled, read from its own view after it connected:
 * an order record it changed or removed that existed before, whose owner's balance of the coin
 * that order sells changed (a resting order removed because its owner could no longer pay
 * moved nothing, and notifies nobody).
 */
export async function filledOrderOwners(view: StateView, txn: TxnEnvelope): Promise<AffectedKey[]> {
  const before: StateReader = { get: (k) => view.getBefore(k) };
  const prefix = daoCoinOrderKeys.order(new Uint8Array(0));
  const owners = new Map<string, Uint8Array>();
  for (const key of view.writtenKeys()) {
    if (!key.startsWith(prefix)) continue;
    const order = await getOrder(before, textBytes(key.slice(prefix.length)));
    if (order === undefined || Buffer.compare(order.transactor, txn.publicKey) === 0) continue;
    const coin = order.sellingCreator;
    const balance = (state: StateReader): Promise<bigint> => (isDesoCoin(coin) ? getBalance(state, order.transactor) : getDAOCoinBalance(state, order.transactor, coin));
    const [was, is] = await Promise.all([balance(before), balance(view)]);
    if (was !== is) owners.set(Buffer.from(order.transactor).toString('hex'), order.transactor);
  }
  return [...owners.values()].map((publicKey) => ({ publicKey, role: 'FilledOrderPublicKey' }));
}

/**
 * Writes the indexes of a transaction that just connected in `view` (its own view, with every
 * effect in it) at its place, (ctx.height, info.indexInBlock): the per-key transaction index
 * (state/keyTxns.ts: the transactor and every affected key) and its notifications. The affected
 * keys are computed once for both. A connect with no place (a simulation) writes none.
 */
export async function indexConnectedTxn(view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext): Promise<void> {
  if (info.indexInBlock === undefined) return;
  const m = decodeMetadata(txn.txnType, txn.metadata);
  const affected = await affectedPublicKeys(view, txn, m);
  if (m.type === 'DAO_COIN_LIMIT_ORDER' && m.cancelOrderId === null) affected.push(...(await filledOrderOwners(view, txn)));
  addKeyTxns(view, ctx.height, info.indexInBlock, [txn.publicKey, ...affected.map((a) => a.publicKey)]);
  const category = notificationCategory(txn);
  if (category === null) return;
  const keys = notifiedKeys(txn, m, affected);
  if (keys.length > 0) addNotifications(view, ctx.height, info.indexInBlock, category, keys);
}
