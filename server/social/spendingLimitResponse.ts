/**
 * A derived key's remaining TransactionSpendingLimit as the backend's
 * TransactionSpendingLimitResponse (routes/transaction.go TransactionSpendingLimitToResponse):
 * type numbers and operation numbers as core's strings, creator PKIDs as Base58Check public
 * keys ("" for the zero PKID = any creator; "DESO" on either side of a limit-order pair),
 * post hashes as hex. Maps are null when empty, as Go encodes nil maps and slices. Lists come in
 * the byte order of their keys' encodings (Go iterates its maps randomly; this is one fixed
 * order). PKIDs equal public keys on this chain (no identity swaps are recorded).
 * @module
 */
import { toHex } from '../hex.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import type { TransactionSpendingLimit } from '../chain/txn/spendingLimit.js';

/** Core's TxnType numbers → TxnString (lib/network.go GetTxnString). */
const TXN_STRINGS: Readonly<Record<number, string>> = {
  0: 'UNSET',
  1: 'BLOCK_REWARD',
  2: 'BASIC_TRANSFER',
  3: 'BITCOIN_EXCHANGE',
  4: 'PRIVATE_MESSAGE',
  5: 'SUBMIT_POST',
  6: 'UPDATE_PROFILE',
  8: 'UPDATE_BITCOIN_USD_EXCHANGE_RATE',
  9: 'FOLLOW',
  10: 'LIKE',
  11: 'CREATOR_COIN',
  12: 'SWAP_IDENTITY',
  13: 'UPDATE_GLOBAL_PARAMS',
  14: 'CREATOR_COIN_TRANSFER',
  15: 'CREATE_NFT',
  16: 'UPDATE_NFT',
  17: 'ACCEPT_NFT_BID',
  18: 'NFT_BID',
  19: 'NFT_TRANSFER',
  20: 'ACCEPT_NFT_TRANSFER',
  21: 'BURN_NFT',
  22: 'AUTHORIZE_DERIVED_KEY',
  23: 'MESSAGING_GROUP',
  24: 'DAO_COIN',
  25: 'DAO_COIN_TRANSFER',
  26: 'DAO_COIN_LIMIT_ORDER',
  27: 'CREATE_USER_ASSOCIATION',
  28: 'DELETE_USER_ASSOCIATION',
  29: 'CREATE_POST_ASSOCIATION',
  30: 'DELETE_POST_ASSOCIATION',
  31: 'ACCESS_GROUP',
  32: 'ACCESS_GROUP_MEMBERS',
  33: 'NEW_MESSAGE',
  34: 'REGISTER_AS_VALIDATOR',
  35: 'UNREGISTER_AS_VALIDATOR',
  36: 'STAKE',
  37: 'UNSTAKE',
  38: 'UNLOCK_STAKE',
  39: 'UNJAIL_VALIDATOR',
  40: 'COIN_LOCKUP',
  41: 'UPDATE_COIN_LOCKUP_PARAMS',
  42: 'COIN_LOCKUP_TRANSFER',
  43: 'COIN_UNLOCK',
  44: 'ATOMIC_TXNS_WRAPPER',
};

export const txnString = (t: number): string => TXN_STRINGS[t] ?? 'TXN_UNDEFINED';

const pick = (table: readonly string[], n: number, fallback: string): string => table[n] ?? fallback;
// Core's operation and scope strings by number (lib/network.go, lib/block_view_lockups.go);
// spendingLimitRequest.ts reads them back.
export const CREATOR_COIN_OPS = ['any', 'buy', 'sell', 'transfer'];
export const DAO_COIN_OPS = ['any', 'mint', 'burn', 'disable_minting', 'update_transfer_restriction_status', 'transfer'];
export const NFT_OPS = ['any', 'update', 'accept_nft_bid', 'nft_bid', 'transfer', 'burn', 'accept_nft_transfer'];
export const ASSOCIATION_CLASSES = ['Undefined', 'User', 'Post'];
export const ASSOCIATION_APP_SCOPES = ['Undefined', 'Any', 'Scoped'];
export const ASSOCIATION_OPS = ['Undefined', 'Any', 'Create', 'Delete'];
export const ACCESS_GROUP_SCOPES = ['Any', 'Scoped'];
export const ACCESS_GROUP_OPS = ['Unknown', 'Any', 'Create', 'Update'];
export const ACCESS_GROUP_MEMBER_OPS = ['Unknown', 'Any', 'Add', 'Remove', 'Update'];
export const LOCKUP_SCOPES = ['Undefined', 'AnyCoins', 'ScopedCoins'];
export const LOCKUP_OPS = ['Any', 'CoinLockup', 'UpdateCoinLockupYieldCurve', 'UpdateCoinLockupTransferRestrictions', 'CoinLockupTransferOperationString', 'CoinLockupUnlock'];

const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0);

/** Ascending by the map's key ids (hex of the key encodings). */
function sortedEntries<K, V>(m: Map<string, { key: K; value: V }>): Array<{ key: K; value: V }> {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

const nonEmpty = <T>(list: T[]): T[] | null => (list.length === 0 ? null : list);

/** JSON object with keys in Go's order (sorted) from [key, value] pairs. */
function sortedObject<V>(pairs: Array<[string, V]>): Record<string, V> {
  return Object.fromEntries(pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Go's JSON of a `*uint256.Int`: minimal lowercase hex, null for nil. */
const u256 = (v: bigint | null): string | null => (v === null ? null : `0x${v.toString(16)}`);

export function transactionSpendingLimitResponse(l: TransactionSpendingLimit, network: Network): Record<string, unknown> {
  const pk = (pkid: Uint8Array): string => (isZero(pkid) ? '' : encodePublicKey(pkid, network));

  const counts = [...l.transactionCounts.entries()].map(([t, n]): [string, bigint] => [txnString(t), n]);

  const nested = <V>(entries: Array<[string, string, V]>): Record<string, Record<string, V>> | null => {
    if (entries.length === 0) return null;
    const outer = new Map<string, Array<[string, V]>>();
    for (const [a, b, value] of entries) {
      if (!outer.has(a)) outer.set(a, []);
      outer.get(a)!.push([b, value]);
    }
    return sortedObject([...outer].map(([a, inner]) => [a, sortedObject(inner)]));
  };

  const creatorCoins = nested(sortedEntries(l.creatorCoinOperations).map((e) => [pk(e.key.creatorPKID), pick(CREATOR_COIN_OPS, e.key.operation, 'undefined'), e.value]));
  const daoCoins = nested(sortedEntries(l.daoCoinOperations).map((e) => [pk(e.key.creatorPKID), pick(DAO_COIN_OPS, e.key.operation, 'undefined'), e.value]));
  const limitOrders = nested(
    sortedEntries(l.daoCoinLimitOrders).map((e) => {
      const side = (pkid: Uint8Array): string => (isZero(pkid) ? 'DESO' : encodePublicKey(pkid, network));
      return [side(e.key.buyingCreatorPKID), side(e.key.sellingCreatorPKID), e.value];
    }),
  );

  let nfts: Record<string, Record<string, Record<string, bigint>>> | null = null;
  if (l.nftOperations.size > 0) {
    const byPost = new Map<string, Array<[string, string, bigint]>>();
    for (const e of sortedEntries(l.nftOperations)) {
      const post = isZero(e.key.postHash) ? '' : toHex(e.key.postHash);
      if (!byPost.has(post)) byPost.set(post, []);
      byPost.get(post)!.push([e.key.serialNumber.toString(), pick(NFT_OPS, e.key.operation, 'undefined'), e.value]);
    }
    nfts = sortedObject([...byPost].map(([post, rows]) => [post, nested(rows)!]));
  }

  const groupName = (name: Uint8Array): string => {
    let end = name.length;
    while (end > 0 && name[end - 1] === 0) end--;
    return Buffer.from(name.subarray(0, end)).toString('utf8');
  };

  return {
    GlobalDESOLimit: l.globalDESOLimit,
    TransactionCountLimitMap: counts.length === 0 ? null : sortedObject(counts),
    CreatorCoinOperationLimitMap: creatorCoins,
    DAOCoinOperationLimitMap: daoCoins,
    NFTOperationLimitMap: nfts,
    DAOCoinLimitOrderLimitMap: limitOrders,
    AssociationLimitMap: nonEmpty(
      sortedEntries(l.associations).map((e) => ({
        AssociationClass: pick(ASSOCIATION_CLASSES, e.key.associationClass, 'Undefined'),
        AssociationType: Buffer.from(e.key.associationType).toString('utf8'),
        AppScopeType: pick(ASSOCIATION_APP_SCOPES, e.key.appScopeType, 'Undefined'),
        AppPublicKeyBase58Check: pk(e.key.appPKID),
        AssociationOperation: pick(ASSOCIATION_OPS, e.key.operation, 'Undefined'),
        OpCount: e.value,
      })),
    ),
    AccessGroupLimitMap: nonEmpty(
      sortedEntries(l.accessGroups).map((e) => ({
        AccessGroupOwnerPublicKeyBase58Check: encodePublicKey(e.key.ownerPublicKey, network),
        ScopeType: pick(ACCESS_GROUP_SCOPES, e.key.scopeType, 'Unknown'),
        AccessGroupKeyName: groupName(e.key.groupKeyName),
        OperationType: pick(ACCESS_GROUP_OPS, e.key.operation, 'Unknown'),
        OpCount: e.value,
      })),
    ),
    AccessGroupMemberLimitMap: nonEmpty(
      sortedEntries(l.accessGroupMembers).map((e) => ({
        AccessGroupOwnerPublicKeyBase58Check: encodePublicKey(e.key.ownerPublicKey, network),
        ScopeType: pick(ACCESS_GROUP_SCOPES, e.key.scopeType, 'Unknown'),
        AccessGroupKeyName: groupName(e.key.groupKeyName),
        OperationType: pick(ACCESS_GROUP_MEMBER_OPS, e.key.operation, 'Unknown'),
        OpCount: e.value,
      })),
    ),
    StakeLimitMap: nonEmpty(sortedEntries(l.stakes).map((e) => ({ ValidatorPublicKeyBase58Check: pk(e.key.validatorPKID), StakeLimit: u256(e.value) }))),
    UnstakeLimitMap: nonEmpty(sortedEntries(l.unstakes).map((e) => ({ ValidatorPublicKeyBase58Check: pk(e.key.validatorPKID), UnstakeLimit: u256(e.value) }))),
    UnlockStakeLimitMap: nonEmpty(sortedEntries(l.unlockStakes).map((e) => ({ ValidatorPublicKeyBase58Check: pk(e.key.validatorPKID), OpCount: e.value }))),
    LockupLimitMap: nonEmpty(
      sortedEntries(l.lockups).map((e) => ({
        ProfilePublicKeyBase58Check: pk(e.key.profilePKID),
        ScopeType: pick(LOCKUP_SCOPES, e.key.scopeType, 'Undefined'),
        Operation: pick(LOCKUP_OPS, e.key.operation, 'Undefined'),
        OpCount: e.value,
      })),
    ),
    IsUnlimited: l.isUnlimited,
  };
}
