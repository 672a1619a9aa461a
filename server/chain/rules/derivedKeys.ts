/**
 * Derived keys (reference node-api.md §4.2, §5.4; core `_connectAuthorizeDerivedKey`,
 * `_checkAndUpdateDerivedKeySpendingLimit`):
 *
 * - AUTHORIZE_DERIVED_KEY records (owner, derived key) with an expiration, an operation (VALID,
 *   or NOT_VALID to de-authorize for good) and a spending limit taken from ExtraData
 *   `TransactionSpendingLimit`, merged into what the key had left.
 * - `checkDerivedKeySigner` runs after every transaction a derived key signed: the key must be
 *   authorized and unexpired, and unless it is unlimited the transaction's native spend and its
 *   operation are taken off the key's limit.
 *
 * The owner's access signature over `derived ‖ u64be(expiration) ‖ limit bytes` is checked, as
 * in core, when a derived key signs the authorization (it is what authorizes the key then); an
 * owner-signed authorization is authorized by the owner's own transaction signature.
 * @module
 */
import { sha256d } from '../../../wasm/hash.js';
import { decodeDerSignature } from '../txn/derSignature.js';
import { isValidCompressedPoint } from '../../keys/index.js';
import { chainKeys } from '../state/keys.js';
import { getOrder } from '../state/daoCoinLimitOrders.js';
import { getDerivedKey, isDerivedKeyValid, putDerivedKey, type DerivedKeyRecord } from '../state/derivedKeys.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { TxnDecodeError } from '../txn/errors.js';
import {
  AccessGroupMemberOperation,
  AccessGroupOperation,
  AuthorizeDerivedKeyOperation,
  CreatorCoinOperation,
  DAOCoinOperation,
  decodeMetadata,
  TxnType,
  type AccessGroupMembersMetadata,
  type AccessGroupMetadata,
  type AuthorizeDerivedKeyMetadata,
  type CreatorCoinMetadata,
  type CreatorCoinTransferMetadata,
  type DAOCoinLimitOrderMetadata,
  type DAOCoinMetadata,
  type DAOCoinTransferMetadata,
} from '../txn/metadata.js';
import {
  copySpendingLimit,
  decodeSpendingLimit,
  emptySpendingLimit,
  encodeSpendingLimit,
  getLimit,
  LIMIT_KEYS,
  limitKeyId,
  limitMapSizes,
  setLimit,
  type LimitKeyCodec,
  type LimitMap,
  type TransactionSpendingLimit,
} from '../txn/spendingLimit.js';
import type { ConnectContext, TxnInfo } from './connect.js';
import { RuleError, type RuleErrorCode } from './errors.js';
import type { HandlerEntry } from './handlers.js';
import { GROUP_KEY_NAME_BYTES } from '../txn/sizes.js';

/** ExtraData keys of an authorization (core TransactionSpendingLimitKey, DerivedKeyMemoKey). */
export const TRANSACTION_SPENDING_LIMIT_EXTRA = 'TransactionSpendingLimit';
export const DERIVED_KEY_MEMO_EXTRA = 'DerivedKeyMemo';

/** The zero PKID: "any creator" in limit keys. */
const ANY_PKID = new Uint8Array(33);

// Core's limit-operation numbers (lib/network.go CreatorCoinLimitOperation, DAOCoinLimitOperation,
// AssociationAppScopeType, AccessGroupScopeType).
const CreatorCoinLimitOperation = { ANY: 0, BUY: 1, SELL: 2, TRANSFER: 3 } as const;
const DAOCoinLimitOperation = { ANY: 0, MINT: 1, BURN: 2, DISABLE_MINTING: 3, UPDATE_TRANSFER_RESTRICTION_STATUS: 4, TRANSFER: 5 } as const;
const AssociationAppScopeType = { ANY: 1 } as const;
const AccessGroupScopeType = { ANY: 0, SCOPED: 1 } as const;
const ANY_ACCESS_GROUP_OPERATION = 1;

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;
const latin1 = (b: Uint8Array): string => Buffer.from(b).toString('latin1');
const extraValue = (txn: TxnEnvelope, key: string): Uint8Array | undefined => txn.extraData.find(([k]) => latin1(k) === key)?.[1];

/** The access bytes the owner signs: derived pk33 ‖ u64be(expiration block) ‖ spending-limit bytes. */
export function accessBytes(derivedPublicKey: Uint8Array, expirationBlock: bigint, spendingLimit: Uint8Array): Uint8Array {
  const out = new Uint8Array(33 + 8 + spendingLimit.length);
  out.set(derivedPublicKey, 0);
  new DataView(out.buffer).setBigUint64(33, expirationBlock);
  out.set(spendingLimit, 41);
  return out;
}

/** The digest of an access signature: sha256d of the access bytes (a few hundred bytes to hash). */
export function accessHash(derivedPublicKey: Uint8Array, expirationBlock: bigint, spendingLimit: Uint8Array): Uint8Array {
  return sha256d(accessBytes(derivedPublicKey, expirationBlock, spendingLimit));
}

// --- AUTHORIZE_DERIVED_KEY -----------------------------------------------------------------

async function connectAuthorizeDerivedKey(view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext): Promise<void> {
  const m = decodeMetadata(TxnType.AUTHORIZE_DERIVED_KEY, txn.metadata) as AuthorizeDerivedKeyMetadata;
  if (m.operationType !== AuthorizeDerivedKeyOperation.VALID && m.operationType !== AuthorizeDerivedKeyOperation.NOT_VALID) {
    throw new RuleError('RuleErrorAuthorizeDerivedKeyInvalidOperationType', `operation type ${m.operationType} is neither NOT_VALID (0) nor VALID (1)`);
  }
  if (m.expirationBlock <= ctx.height) {
    throw new RuleError('RuleErrorAuthorizeDerivedKeyExpiredDerivedPublicKey', `expiration block ${m.expirationBlock} is not after block height ${ctx.height}`);
  }
  if (!isValidCompressedPoint(m.derivedPublicKey)) {
    throw new RuleError('RuleErrorAuthorizeDerivedKeyInvalidDerivedPublicKey', 'the derived public key is not a secp256k1 point');
  }
  const owner = txn.publicKey;
  const prev = await getDerivedKey(view, owner, m.derivedPublicKey);
  // A de-authorized key stays dead: otherwise a key the owner revoked could sign its own revival.
  if (prev?.operationType === AuthorizeDerivedKeyOperation.NOT_VALID) {
    throw new RuleError('RuleErrorAuthorizeDerivedKeyDeletedDerivedPublicKey', 'this derived key was de-authorized and cannot be authorized again');
  }

  const limitBytes = extraValue(txn, TRANSACTION_SPENDING_LIMIT_EXTRA);
  const limit = prev ? decodeSpendingLimit(prev.spendingLimit) : emptySpendingLimit();
  if (limitBytes !== undefined) mergeSpendingLimit(limit, parseSpendingLimit(limitBytes));

  if (!sameBytes(info.signer, owner)) await checkAccessSignature(ctx, owner, m, limitBytes);

  const spend = txn.outputs.reduce((sum, o) => sum + o.amountNanos, txn.v1?.feeNanos ?? 0n);
  // A transaction that moves nothing could be replayed at no cost to anyone.
  if (spend === 0n) throw new RuleError('RuleErrorAuthorizeDerivedKeyRequiresNonZeroInput', 'an authorization must pay a fee or an output');

  putDerivedKey(view, {
    ownerPublicKey: owner,
    derivedPublicKey: m.derivedPublicKey,
    expirationBlock: m.expirationBlock,
    operationType: m.operationType,
    spendingLimit: encodeSpendingLimit(limit),
    memo: extraValue(txn, DERIVED_KEY_MEMO_EXTRA) ?? prev?.memo ?? new Uint8Array(0),
    extraData: mergeExtraData(prev?.extraData ?? [], txn.extraData),
  });
}

function parseSpendingLimit(bytes: Uint8Array): TransactionSpendingLimit {
  let limit: TransactionSpendingLimit;
  try {
    limit = decodeSpendingLimit(bytes);
  } catch (e) {
    if (e instanceof TxnDecodeError) throw new RuleError('RuleErrorAuthorizeDerivedKeyInvalidTransactionSpendingLimit', `ExtraData TransactionSpendingLimit: ${e.message}`);
    throw e;
  }
  // Core CheckIfValidUnlimitedSpendingLimit: "unlimited" comes alone.
  if (limit.isUnlimited && (limit.globalDESOLimit > 0n || limitMapSizes(limit).some((n) => n > 0))) {
    throw new RuleError('RuleErrorUnlimitedDerivedKeyNonEmptySpendingLimits', 'an unlimited spending limit must set nothing else');
  }
  for (const { key } of limit.associations.values()) {
    if (key.appScopeType === AssociationAppScopeType.ANY && !sameBytes(key.appPKID, ANY_PKID)) {
      throw new RuleError('RuleErrorAuthorizeDerivedKeyInvalidTransactionSpendingLimit', 'an association limit with app scope "any" cannot name an app');
    }
  }
  return limit;
}

/**
 * Core's merge of a new limit into what the key had: an unlimited limit just sets the flag;
 * otherwise the global limit is replaced and each given entry replaces its key's, a zero
 * removing it. Entries not given are kept.
 */
export function mergeSpendingLimit(into: TransactionSpendingLimit, given: TransactionSpendingLimit): void {
  into.isUnlimited = given.isUnlimited;
  if (given.isUnlimited) return;
  into.globalDESOLimit = given.globalDESOLimit;
  for (const [txnType, count] of given.transactionCounts) {
    if (count === 0n) into.transactionCounts.delete(txnType);
    else into.transactionCounts.set(txnType, count);
  }
  const merge = <K, V>(target: LimitMap<K, V>, source: LimitMap<K, V>, isZero: (v: V) => boolean): void => {
    for (const [id, entry] of source) {
      if (isZero(entry.value)) target.delete(id);
      else target.set(id, entry);
    }
  };
  const zeroCount = (v: bigint): boolean => v === 0n;
  const zeroAmount = (v: bigint | null): boolean => v === null || v === 0n;
  merge(into.creatorCoinOperations, given.creatorCoinOperations, zeroCount);
  merge(into.daoCoinOperations, given.daoCoinOperations, zeroCount);
  merge(into.nftOperations, given.nftOperations, zeroCount);
  merge(into.daoCoinLimitOrders, given.daoCoinLimitOrders, zeroCount);
  merge(into.associations, given.associations, zeroCount);
  merge(into.accessGroups, given.accessGroups, zeroCount);
  merge(into.accessGroupMembers, given.accessGroupMembers, zeroCount);
  merge(into.lockups, given.lockups, zeroCount);
  merge(into.stakes, given.stakes, zeroAmount);
  merge(into.unstakes, given.unstakes, zeroAmount);
  merge(into.unlockStakes, given.unlockStakes, zeroCount);
}

/** The owner's DER signature over sha256d(access bytes), verified in the crypto pool. */
async function checkAccessSignature(ctx: ConnectContext, owner: Uint8Array, m: AuthorizeDerivedKeyMetadata, limitBytes: Uint8Array | undefined): Promise<void> {
  const refuse = (why: string): never => {
    throw new RuleError('RuleErrorAuthorizeDerivedKeyAccessSignatureNotValid', why);
  };
  if (limitBytes === undefined || limitBytes.length === 0) refuse('a derived key authorizing needs ExtraData TransactionSpendingLimit, which the access signature covers');
  let compact: Uint8Array;
  try {
    const sig = decodeDerSignature(m.accessSignature);
    if (sig.recoveryId !== null) refuse('the access signature must be plain DER (header 0x30)');
    compact = sig.compact;
  } catch (e) {
    if (e instanceof TxnDecodeError) refuse(`the access signature is not DER: ${e.message.replace(/^signature: /, '')}`);
    throw e;
  }
  const hash = accessHash(m.derivedPublicKey, m.expirationBlock, limitBytes!);
  // Core verifies access signatures with btcec, which accepts high-S.
  const [result] = await ctx.crypto.verifySignatures([{ publicKey: owner, hash, signature: compact!, lowS: false }]);
  if (!result?.ok || !result.value) refuse('the access signature is not the owner\'s signature over derived key ‖ expiration block ‖ spending limit');
}

/** Core mergeExtraData: the previous map overlaid with the new one, keys in byte order. */
function mergeExtraData(prev: Array<[Uint8Array, Uint8Array]>, next: Array<[Uint8Array, Uint8Array]>): Array<[Uint8Array, Uint8Array]> {
  const merged = new Map(prev.map(([k, v]) => [latin1(k), [k, v] as [Uint8Array, Uint8Array]]));
  for (const [k, v] of next) merged.set(latin1(k), [k, v]);
  return [...merged.values()].sort(([a], [b]) => Buffer.compare(a, b));
}

export const derivedKeyHandlers: readonly HandlerEntry[] = [[TxnType.AUTHORIZE_DERIVED_KEY, connectAuthorizeDerivedKey]];

// --- a derived key signs -------------------------------------------------------------------

/**
 * Called after a transaction signed by `info.signer` (≠ its public key) connected in `view`:
 * refuses unless the owner authorized that key for it, then takes the transaction off the
 * key's remaining spending limit.
 * @throws {RuleError}
 */
export async function checkDerivedKeySigner(view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext): Promise<void> {
  const owner = txn.publicKey;
  const record = await getDerivedKey(view, owner, info.signer);
  if (record === undefined) throw new RuleError('RuleErrorDerivedKeyNotAuthorized', 'the owner has not authorized the key that signed');
  // Core lets a key sign its own authorization (or de-authorization): the handler has just
  // written that record, with the expiration it checked.
  const signsOwnAuthorization =
    txn.txnType === TxnType.AUTHORIZE_DERIVED_KEY && sameBytes((decodeMetadata(txn.txnType, txn.metadata) as AuthorizeDerivedKeyMetadata).derivedPublicKey, info.signer);
  if (!signsOwnAuthorization && !isDerivedKeyValid(record, ctx.height)) {
    const why = record.operationType !== AuthorizeDerivedKeyOperation.VALID ? 'was de-authorized' : `expired at block ${record.expirationBlock} (block height ${ctx.height})`;
    throw new RuleError('RuleErrorDerivedKeyNotAuthorized', `the derived key that signed ${why}`);
  }
  const limit = decodeSpendingLimit(record.spendingLimit);
  if (limit.isUnlimited) return;

  const spend = await nativeSpend(view, txn);
  if (spend > limit.globalDESOLimit) {
    throw new RuleError('RuleErrorDerivedKeyTxnSpendsMoreThanGlobalDESOLimit', `the transaction spends ${spend} nanos; the derived key may spend ${limit.globalDESOLimit} more`);
  }
  const next = copySpendingLimit(limit);
  next.globalDESOLimit -= spend;
  await takeOperationAllowance(view, next, txn);
  putDerivedKey(view, { ...record, spendingLimit: encodeSpendingLimit(next) } satisfies DerivedKeyRecord);
}

/**
 * Native coin the transaction takes from the owner: core's "total input minus what comes
 * back to the transactor" is fee + outputs to others + the type's own spend (a creator-coin
 * buy's DESO). The type's spend shows as the owner's balance drop beyond fee and outputs; a
 * type that pays the owner (a sale) never lowers the count below fee + outputs.
 */
async function nativeSpend(view: StateView, txn: TxnEnvelope): Promise<bigint> {
  const owner = txn.publicKey;
  let direct = txn.v1?.feeNanos ?? 0n;
  for (const o of txn.outputs) if (!sameBytes(o.publicKey, owner)) direct += o.amountNanos;
  const key = chainKeys.balance(owner);
  const drop = ((await view.getBefore<bigint>(key)) ?? 0n) - ((await view.get<bigint>(key)) ?? 0n);
  return drop > direct ? drop : direct;
}

/**
 * Takes one use of the operation-specific limit core keeps for this type (creator coin, DAO
 * coin, limit order, access group operations) or else of its type count off `limit`. `view`
 * is the transaction's view, for the coins of a cancelled order.
 * @throws {RuleError} when the key has no such allowance left
 */
export async function takeOperationAllowance(view: StateView, limit: TransactionSpendingLimit, txn: TxnEnvelope): Promise<void> {
  switch (txn.txnType) {
    case TxnType.CREATOR_COIN: {
      const m = decodeMetadata(txn.txnType, txn.metadata) as CreatorCoinMetadata;
      const op = ({ [CreatorCoinOperation.BUY]: CreatorCoinLimitOperation.BUY, [CreatorCoinOperation.SELL]: CreatorCoinLimitOperation.SELL } as Record<number, number>)[m.operationType];
      if (op === undefined) throw new RuleError('RuleErrorDerivedKeyInvalidCreatorCoinLimitOperation', `creator coin operation ${m.operationType} has no derived-key limit`);
      return consumeCoinOperation(limit.creatorCoinOperations, m.profilePublicKey, op, CreatorCoinLimitOperation.ANY, 'RuleErrorDerivedKeyCreatorCoinOperationNotAuthorized');
    }
    case TxnType.CREATOR_COIN_TRANSFER: {
      const m = decodeMetadata(txn.txnType, txn.metadata) as CreatorCoinTransferMetadata;
      return consumeCoinOperation(limit.creatorCoinOperations, m.profilePublicKey, CreatorCoinLimitOperation.TRANSFER, CreatorCoinLimitOperation.ANY, 'RuleErrorDerivedKeyCreatorCoinOperationNotAuthorized');
    }
    case TxnType.DAO_COIN: {
      const m = decodeMetadata(txn.txnType, txn.metadata) as DAOCoinMetadata;
      const op = (
        {
          [DAOCoinOperation.MINT]: DAOCoinLimitOperation.MINT,
          [DAOCoinOperation.BURN]: DAOCoinLimitOperation.BURN,
          [DAOCoinOperation.DISABLE_MINTING]: DAOCoinLimitOperation.DISABLE_MINTING,
          [DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS]: DAOCoinLimitOperation.UPDATE_TRANSFER_RESTRICTION_STATUS,
        } as Record<number, number>
      )[m.operationType];
      if (op === undefined) throw new RuleError('RuleErrorDerivedKeyInvalidDAOCoinLimitOperation', `DAO coin operation ${m.operationType} has no derived-key limit`);
      return consumeCoinOperation(limit.daoCoinOperations, m.profilePublicKey, op, DAOCoinLimitOperation.ANY, 'RuleErrorDerivedKeyDAOCoinOperationNotAuthorized');
    }
    case TxnType.DAO_COIN_TRANSFER: {
      const m = decodeMetadata(txn.txnType, txn.metadata) as DAOCoinTransferMetadata;
      return consumeCoinOperation(limit.daoCoinOperations, m.profilePublicKey, DAOCoinLimitOperation.TRANSFER, DAOCoinLimitOperation.ANY, 'RuleErrorDerivedKeyDAOCoinOperationNotAuthorized');
    }
    case TxnType.DAO_COIN_LIMIT_ORDER: {
      const m = decodeMetadata(txn.txnType, txn.metadata) as DAOCoinLimitOrderMetadata;
      let buying = m.buyingDAOCoinCreatorPublicKey;
      let selling = m.sellingDAOCoinCreatorPublicKey;
      if (m.cancelOrderId !== null) {
        // A cancel names only the order: its coins are the order's, as it stood before this
        // transaction removed it.
        const order = await getOrder({ get: (key) => view.getBefore(key) }, m.cancelOrderId);
        if (order === undefined) throw new RuleError('RuleErrorDerivedKeyInvalidDAOCoinLimitOrderOrderID', 'the order a derived key cancels does not exist');
        buying = order.buyingCreator;
        selling = order.sellingCreator;
      }
      if (buying === null || selling === null) throw new RuleError('RuleErrorDerivedKeyInvalidDAOCoinLimitOrderOrderID', 'a limit order names neither its coins nor an order to cancel');
      // PKIDs are public keys on this chain (no swap identity); DESO is the zero key.
      if (!consumeOne(limit.daoCoinLimitOrders, LIMIT_KEYS.limitOrder, { buyingCreatorPKID: buying, sellingCreatorPKID: selling })) {
        throw new RuleError('RuleErrorDerivedKeyDAOCoinLimitOrderNotAuthorized', 'the derived key has no limit-order allowance for this coin pair');
      }
      return;
    }
    case TxnType.ACCESS_GROUP: {
      const m = decodeMetadata(txn.txnType, txn.metadata) as AccessGroupMetadata;
      if (m.operationType !== AccessGroupOperation.CREATE && m.operationType !== AccessGroupOperation.UPDATE) {
        throw new RuleError('RuleErrorAccessGroupTransactionSpendingLimitInvalid', `access group operation ${m.operationType} has no derived-key limit`);
      }
      return consumeAccessGroup(limit.accessGroups, m.ownerPublicKey, m.keyName, m.operationType, 'RuleErrorAccessGroupTransactionSpendingLimitInvalid');
    }
    case TxnType.ACCESS_GROUP_MEMBERS: {
      const m = decodeMetadata(txn.txnType, txn.metadata) as AccessGroupMembersMetadata;
      const ops: number[] = [AccessGroupMemberOperation.ADD, AccessGroupMemberOperation.REMOVE, AccessGroupMemberOperation.UPDATE];
      if (!ops.includes(m.operationType)) {
        throw new RuleError('RuleErrorAccessGroupMemberSpendingLimitInvalid', `access group member operation ${m.operationType} has no derived-key limit`);
      }
      return consumeAccessGroup(limit.accessGroupMembers, m.ownerPublicKey, m.keyName, m.operationType, 'RuleErrorAccessGroupMemberSpendingLimitInvalid');
    }
    default: {
      const left = limit.transactionCounts.get(txn.txnType) ?? 0n;
      if (left === 0n) throw new RuleError('RuleErrorDerivedKeyTxnTypeNotAuthorized', `the derived key may sign no more transactions of type ${txn.txnType}`);
      if (left === 1n) limit.transactionCounts.delete(txn.txnType);
      else limit.transactionCounts.set(txn.txnType, left - 1n);
    }
  }
}

/** Takes one use off `key`'s entry (removing it at its last use); false when it has none. */
function consumeOne<K>(map: LimitMap<K>, codec: LimitKeyCodec<K>, key: K): boolean {
  const left = getLimit(map, codec, key);
  if (left === undefined || left === 0n) return false;
  if (left === 1n) map.delete(limitKeyId(codec, key));
  else setLimit(map, codec, key, left - 1n);
  return true;
}

/** Core's lookup order: (creator, op), (creator, any), (any creator, op), (any, any). */
function consumeCoinOperation(map: LimitMap<{ creatorPKID: Uint8Array; operation: number }>, creator: Uint8Array, op: number, anyOp: number, refusal: RuleErrorCode): void {
  for (const creatorPKID of [creator, ANY_PKID]) {
    for (const operation of [op, anyOp]) {
      if (consumeOne(map, LIMIT_KEYS.coinOperation, { creatorPKID, operation })) return;
    }
  }
  throw new RuleError(refusal, `the derived key has no allowance for operation ${op} on this coin`);
}

/** Core's lookup order: (scoped name, op), (scoped name, any), (any name, op), (any, any). */
function consumeAccessGroup(map: LimitMap<{ ownerPublicKey: Uint8Array; scopeType: number; groupKeyName: Uint8Array; operation: number }>, owner: Uint8Array, rawName: Uint8Array, op: number, refusal: RuleErrorCode): void {
  const padded = new Uint8Array(GROUP_KEY_NAME_BYTES);
  padded.set(rawName.subarray(0, GROUP_KEY_NAME_BYTES));
  const scopes: Array<[number, Uint8Array]> = [
    [AccessGroupScopeType.SCOPED, padded],
    [AccessGroupScopeType.ANY, new Uint8Array(GROUP_KEY_NAME_BYTES)],
  ];
  for (const [scopeType, groupKeyName] of scopes) {
    for (const operation of [op, ANY_ACCESS_GROUP_OPERATION]) {
      if (consumeOne(map, LIMIT_KEYS.accessGroup, { ownerPublicKey: owner, scopeType, groupKeyName, operation })) return;
    }
  }
  throw new RuleError(refusal, `the derived key has no allowance for access group operation ${op} on this group`);
}
