/**
 * TransactionSpendingLimit: what a derived key may do on its owner's behalf, in core's binary
 * form (deso-protocol/core lib/network.go `TransactionSpendingLimit.ToBytes/FromBytes`). It
 * travels in an AUTHORIZE_DERIVED_KEY transaction's ExtraData `TransactionSpendingLimit`, is
 * signed by the owner as part of the access bytes, and the remaining limit is kept in state.
 *
 * Layout at the current version (every integer a uvarint unless said otherwise):
 *
 *   GlobalDESOLimit
 *   TransactionCountLimitMap      n ‖ (txnType ‖ count)*            sorted by txnType
 *   CreatorCoinOperationLimitMap  n ‖ (key ‖ count)*                sorted by hex(key bytes)
 *   DAOCoinOperationLimitMap      n ‖ (key ‖ count)*                  "
 *   NFTOperationLimitMap          n ‖ (key ‖ count)*                  "
 *   DAOCoinLimitOrderLimitMap     n ‖ (key ‖ count)*                  "
 *   IsUnlimited                   1 byte                            (UnlimitedDerivedKeysMigration)
 *   AssociationLimitMap           n ‖ (key ‖ count)*                (AssociationsAndAccessGroupsMigration)
 *   AccessGroupMap                n ‖ (key ‖ count)*                  "   (deterministic order: BalanceModelMigration)
 *   AccessGroupMemberMap          n ‖ (key ‖ count)*                  "
 *   LockupLimitMap                n ‖ (key ‖ count)*                (ProofOfStake1StateSetupMigration)
 *   StakeLimitMap                 n ‖ (key ‖ uint256)*                "
 *   UnstakeLimitMap               n ‖ (key ‖ uint256)*                "
 *   UnlockStakeLimitMap           n ‖ (key ‖ count)*                  "
 *
 * Keys are written as core's `…LimitKey.Encode()`; see LIMIT_KEYS. The dev chain runs with every
 * fork active, so the chain reads and writes the current version only; the earlier versions
 * exist for the SDK's transcoder, which still writes the original five maps.
 *
 * Decoding is stricter than core's: trailing bytes, non-minimal varints, duplicate keys,
 * booleans other than 0/1 and keys of the wrong width are refused (TxnDecodeError), so every
 * accepted encoding is the one its own re-encoding gives back.
 * @module
 */
import { toHex } from '../../hex.js';
import { TxnDecodeError } from './errors.js';
import { encodeUvarint, Reader } from './varint.js';
import { GROUP_KEY_NAME_BYTES, HASH_BYTES, PUBLIC_KEY_BYTES, U256_BYTES } from './sizes.js';

/** Core's encoder migrations that changed this layout, in order. */
export const SpendingLimitVersion = {
  /** GlobalDESOLimit and the five original maps: what the SDK's TransactionSpendingLimitRecord writes. */
  Original: 0,
  /** + IsUnlimited. */
  UnlimitedDerivedKeys: 1,
  /** + association, access group and access group member maps. */
  AssociationsAndAccessGroups: 2,
  /** + lockup, stake, unstake and unlock-stake maps. */
  ProofOfStake: 3,
} as const;
export type SpendingLimitVersion = (typeof SpendingLimitVersion)[keyof typeof SpendingLimitVersion];
export const CURRENT_SPENDING_LIMIT_VERSION: SpendingLimitVersion = SpendingLimitVersion.ProofOfStake;

const U8_MAX = 255;

// --- keys ----------------------------------------------------------------------------------
// PKIDs are 33 bytes; the zero PKID means "any creator" (and DESO in limit-order keys).

export interface CoinOperationLimitKey {
  creatorPKID: Uint8Array;
  /** CreatorCoinLimitOperation / DAOCoinLimitOperation (0 = any). */
  operation: number;
}
export interface NftOperationLimitKey {
  /** 32 bytes; zero = any post. */
  postHash: Uint8Array;
  /** 0 = any serial number. */
  serialNumber: bigint;
  /** NFTLimitOperation (0 = any). */
  operation: number;
}
export interface LimitOrderLimitKey {
  buyingCreatorPKID: Uint8Array;
  sellingCreatorPKID: Uint8Array;
}
export interface AssociationLimitKey {
  /** AssociationClass: 1 user, 2 post. */
  associationClass: number;
  /** Empty = any type. */
  associationType: Uint8Array;
  appPKID: Uint8Array;
  /** AssociationAppScopeType: 1 any, 2 scoped. */
  appScopeType: number;
  /** AssociationOperation: 1 any, 2 create, 3 delete. */
  operation: number;
}
export interface AccessGroupLimitKey {
  ownerPublicKey: Uint8Array;
  /** AccessGroupScopeType: 0 any, 1 scoped. */
  scopeType: number;
  /** 32 bytes, zero-padded (all zeros with scope "any"). */
  groupKeyName: Uint8Array;
  /** AccessGroupOperationType or AccessGroupMemberOperationType (1 = any). */
  operation: number;
}
export interface LockupLimitKey {
  profilePKID: Uint8Array;
  /** One raw byte. */
  scopeType: number;
  /** One raw byte. */
  operation: number;
}
export interface StakeLimitKey {
  /** Zero = any validator. */
  validatorPKID: Uint8Array;
}

/** Core's `Encode()` / `Decode()` of one kind of limit key. */
export interface LimitKeyCodec<K> {
  encode(key: K): Uint8Array;
  decode(r: Reader, what: string): K;
}

/** Core's CreatorCoinOperationLimitKey and DAOCoinOperationLimitKey: bytes(PKID) ‖ operation. */
const coinOperation: LimitKeyCodec<CoinOperationLimitKey> = {
  encode: (k) => concat([varBytes(fixed(k.creatorPKID, PUBLIC_KEY_BYTES, 'creatorPKID')), uvarint(byteValue(k.operation, 'operation'))]),
  decode: (r, what) => ({ creatorPKID: exactly(r.varBytes(`${what}.creatorPKID`), PUBLIC_KEY_BYTES, `${what}.creatorPKID`), operation: u8(r, `${what}.operation`) }),
};

/** Core's NFTOperationLimitKey: bytes(post hash) ‖ serial number ‖ operation. */
const nftOperation: LimitKeyCodec<NftOperationLimitKey> = {
  encode: (k) => concat([varBytes(fixed(k.postHash, HASH_BYTES, 'postHash')), uvarint(k.serialNumber), uvarint(byteValue(k.operation, 'operation'))]),
  decode: (r, what) => ({
    postHash: exactly(r.varBytes(`${what}.postHash`), HASH_BYTES, `${what}.postHash`),
    serialNumber: r.uvarint(`${what}.serialNumber`),
    operation: u8(r, `${what}.operation`),
  }),
};

/** Core's DAOCoinLimitOrderLimitKey: the two PKIDs raw, no length prefixes. */
const limitOrder: LimitKeyCodec<LimitOrderLimitKey> = {
  encode: (k) => concat([fixed(k.buyingCreatorPKID, PUBLIC_KEY_BYTES, 'buyingCreatorPKID'), fixed(k.sellingCreatorPKID, PUBLIC_KEY_BYTES, 'sellingCreatorPKID')]),
  decode: (r, what) => ({ buyingCreatorPKID: r.take(PUBLIC_KEY_BYTES, `${what}.buyingCreatorPKID`).slice(), sellingCreatorPKID: r.take(PUBLIC_KEY_BYTES, `${what}.sellingCreatorPKID`).slice() }),
};

/** Core's AssociationLimitKey: class ‖ bytes(type) ‖ PKID raw ‖ scope ‖ operation. */
const association: LimitKeyCodec<AssociationLimitKey> = {
  encode: (k) =>
    concat([
      uvarint(byteValue(k.associationClass, 'associationClass')),
      varBytes(k.associationType),
      fixed(k.appPKID, PUBLIC_KEY_BYTES, 'appPKID'),
      uvarint(byteValue(k.appScopeType, 'appScopeType')),
      uvarint(byteValue(k.operation, 'operation')),
    ]),
  decode: (r, what) => ({
    associationClass: u8(r, `${what}.associationClass`),
    associationType: r.varBytes(`${what}.associationType`).slice(),
    appPKID: r.take(PUBLIC_KEY_BYTES, `${what}.appPKID`).slice(),
    appScopeType: u8(r, `${what}.appScopeType`),
    operation: u8(r, `${what}.operation`),
  }),
};

/** Core's AccessGroupLimitKey and AccessGroupMemberLimitKey: bytes(owner) ‖ scope ‖ bytes(name32) ‖ operation. */
const accessGroup: LimitKeyCodec<AccessGroupLimitKey> = {
  encode: (k) =>
    concat([
      varBytes(fixed(k.ownerPublicKey, PUBLIC_KEY_BYTES, 'ownerPublicKey')),
      uvarint(byteValue(k.scopeType, 'scopeType')),
      varBytes(fixed(k.groupKeyName, GROUP_KEY_NAME_BYTES, 'groupKeyName')),
      uvarint(byteValue(k.operation, 'operation')),
    ]),
  decode: (r, what) => ({
    ownerPublicKey: exactly(r.varBytes(`${what}.ownerPublicKey`), PUBLIC_KEY_BYTES, `${what}.ownerPublicKey`),
    scopeType: u8(r, `${what}.scopeType`),
    // Core pads a shorter name when it decodes, and always writes 32 bytes: only that form round-trips.
    groupKeyName: exactly(r.varBytes(`${what}.groupKeyName`), GROUP_KEY_NAME_BYTES, `${what}.groupKeyName`),
    operation: u8(r, `${what}.operation`),
  }),
};

/** Core's LockupLimitKey: PKID raw ‖ scope byte ‖ operation byte. */
const lockup: LimitKeyCodec<LockupLimitKey> = {
  encode: (k) => concat([fixed(k.profilePKID, PUBLIC_KEY_BYTES, 'profilePKID'), Uint8Array.of(byteValue(k.scopeType, 'scopeType'), byteValue(k.operation, 'operation'))]),
  decode: (r, what) => ({
    profilePKID: r.take(PUBLIC_KEY_BYTES, `${what}.profilePKID`).slice(),
    scopeType: r.take(1, `${what}.scopeType`)[0]!,
    operation: r.take(1, `${what}.operation`)[0]!,
  }),
};

/** Core's StakeLimitKey (lib/block_view_stake.go): the validator PKID raw, nothing else. */
const stake: LimitKeyCodec<StakeLimitKey> = {
  encode: (k) => fixed(k.validatorPKID, PUBLIC_KEY_BYTES, 'validatorPKID'),
  decode: (r, what) => ({ validatorPKID: r.take(PUBLIC_KEY_BYTES, `${what}.validatorPKID`).slice() }),
};

export const LIMIT_KEYS = { coinOperation, nftOperation, limitOrder, association, accessGroup, lockup, stake } as const;

// --- the limit -----------------------------------------------------------------------------

/** One map entry: the key and what is left of its limit. */
export interface LimitEntry<K, V> {
  key: K;
  value: V;
}

/**
 * A limit map keyed by the lower-case hex of the key's encoding: core sorts keys by exactly
 * that string, and equal keys have equal encodings.
 */
export type LimitMap<K, V = bigint> = Map<string, LimitEntry<K, V>>;

export interface TransactionSpendingLimit {
  /** Nanos of native coin the key may still spend (fees included). */
  globalDESOLimit: bigint;
  /** Transactions left per TxnType number, for types without a finer map. */
  transactionCounts: Map<number, bigint>;
  creatorCoinOperations: LimitMap<CoinOperationLimitKey>;
  daoCoinOperations: LimitMap<CoinOperationLimitKey>;
  nftOperations: LimitMap<NftOperationLimitKey>;
  daoCoinLimitOrders: LimitMap<LimitOrderLimitKey>;
  /** Anything goes; valid only with every other field empty (core CheckIfValidUnlimitedSpendingLimit). */
  isUnlimited: boolean;
  associations: LimitMap<AssociationLimitKey>;
  accessGroups: LimitMap<AccessGroupLimitKey>;
  accessGroupMembers: LimitMap<AccessGroupLimitKey>;
  lockups: LimitMap<LockupLimitKey>;
  /** Nanos that may be staked (uint256; null is core's nil). */
  stakes: LimitMap<StakeLimitKey, bigint | null>;
  unstakes: LimitMap<StakeLimitKey, bigint | null>;
  unlockStakes: LimitMap<StakeLimitKey>;
}

export function emptySpendingLimit(): TransactionSpendingLimit {
  return {
    globalDESOLimit: 0n,
    transactionCounts: new Map(),
    creatorCoinOperations: new Map(),
    daoCoinOperations: new Map(),
    nftOperations: new Map(),
    daoCoinLimitOrders: new Map(),
    isUnlimited: false,
    associations: new Map(),
    accessGroups: new Map(),
    accessGroupMembers: new Map(),
    lockups: new Map(),
    stakes: new Map(),
    unstakes: new Map(),
    unlockStakes: new Map(),
  };
}

/** The map id of `key`: hex of its encoding. */
export function limitKeyId<K>(codec: LimitKeyCodec<K>, key: K): string {
  return toHex(codec.encode(key));
}

/** Sets `key`'s limit (replacing an equal key's). */
export function setLimit<K, V>(map: LimitMap<K, V>, codec: LimitKeyCodec<K>, key: K, value: V): void {
  map.set(limitKeyId(codec, key), { key, value });
}

/** The limit left for `key`, or undefined when the map has no such key. */
export function getLimit<K, V>(map: LimitMap<K, V>, codec: LimitKeyCodec<K>, key: K): V | undefined {
  return map.get(limitKeyId(codec, key))?.value;
}

/** Lengths of every map, for "is anything set" checks. */
export function limitMapSizes(l: TransactionSpendingLimit): number[] {
  return [
    l.transactionCounts.size,
    l.creatorCoinOperations.size,
    l.daoCoinOperations.size,
    l.nftOperations.size,
    l.daoCoinLimitOrders.size,
    l.associations.size,
    l.accessGroups.size,
    l.accessGroupMembers.size,
    l.lockups.size,
    l.stakes.size,
    l.unstakes.size,
    l.unlockStakes.size,
  ];
}

/** A deep copy (entries are replaced, never mutated, so sharing keys is safe). */
export function copySpendingLimit(l: TransactionSpendingLimit): TransactionSpendingLimit {
  return {
    ...l,
    transactionCounts: new Map(l.transactionCounts),
    creatorCoinOperations: new Map(l.creatorCoinOperations),
    daoCoinOperations: new Map(l.daoCoinOperations),
    nftOperations: new Map(l.nftOperations),
    daoCoinLimitOrders: new Map(l.daoCoinLimitOrders),
    associations: new Map(l.associations),
    accessGroups: new Map(l.accessGroups),
    accessGroupMembers: new Map(l.accessGroupMembers),
    lockups: new Map(l.lockups),
    stakes: new Map(l.stakes),
    unstakes: new Map(l.unstakes),
    unlockStakes: new Map(l.unlockStakes),
  };
}

// --- encoding ------------------------------------------------------------------------------

/**
 * Core's `ToBytes` at `version` (default: the current one). Fields a version does not carry
 * must be empty.
 * @throws {RangeError} a field out of its wire range, or set where `version` has no room for it
 */
export function encodeSpendingLimit(l: TransactionSpendingLimit, version: SpendingLimitVersion = CURRENT_SPENDING_LIMIT_VERSION): Uint8Array {
  const parts: Uint8Array[] = [uvarint(l.globalDESOLimit)];
  const counts = [...l.transactionCounts].sort(([a], [b]) => a - b);
  parts.push(uvarint(counts.length));
  for (const [txnType, count] of counts) parts.push(uvarint(byteValue(txnType, 'txnType')), uvarint(count));
  const countMap = <K>(map: LimitMap<K>, codec: LimitKeyCodec<K>): void => writeMap(parts, map, codec, uvarint);
  countMap(l.creatorCoinOperations, coinOperation);
  countMap(l.daoCoinOperations, coinOperation);
  countMap(l.nftOperations, nftOperation);
  countMap(l.daoCoinLimitOrders, limitOrder);

  const unset = (what: string, isSet: boolean, needs: SpendingLimitVersion): void => {
    if (isSet && version < needs) throw new RangeError(`"${what}" is not part of spending limit version ${version}`);
  };
  unset('isUnlimited', l.isUnlimited, SpendingLimitVersion.UnlimitedDerivedKeys);
  if (version >= SpendingLimitVersion.UnlimitedDerivedKeys) parts.push(Uint8Array.of(l.isUnlimited ? 1 : 0));

  unset('associations', l.associations.size > 0, SpendingLimitVersion.AssociationsAndAccessGroups);
  unset('accessGroups', l.accessGroups.size > 0, SpendingLimitVersion.AssociationsAndAccessGroups);
  unset('accessGroupMembers', l.accessGroupMembers.size > 0, SpendingLimitVersion.AssociationsAndAccessGroups);
  if (version >= SpendingLimitVersion.AssociationsAndAccessGroups) {
    countMap(l.associations, association);
    countMap(l.accessGroups, accessGroup);
    countMap(l.accessGroupMembers, accessGroup);
  }

  for (const [what, map] of [['lockups', l.lockups], ['stakes', l.stakes], ['unstakes', l.unstakes], ['unlockStakes', l.unlockStakes]] as const) {
    unset(what, map.size > 0, SpendingLimitVersion.ProofOfStake);
  }
  if (version >= SpendingLimitVersion.ProofOfStake) {
    countMap(l.lockups, lockup);
    writeMap(parts, l.stakes, stake, encodeU256);
    writeMap(parts, l.unstakes, stake, encodeU256);
    countMap(l.unlockStakes, stake);
  }
  return concat(parts);
}

function writeMap<K, V>(parts: Uint8Array[], map: LimitMap<K, V>, codec: LimitKeyCodec<K>, value: (v: V) => Uint8Array): void {
  const entries = [...map.values()].map((e) => ({ bytes: codec.encode(e.key), value: e.value }));
  // Core: sort.Slice by hex.EncodeToString(key.Encode()), i.e. byte order of the encodings.
  entries.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  parts.push(uvarint(entries.length));
  for (const e of entries) parts.push(e.bytes, value(e.value));
}

/** Core's VariableEncodeUint256: existence byte, then bytes(minimal big-endian). */
function encodeU256(v: bigint | null): Uint8Array {
  if (v === null) return Uint8Array.of(0);
  if (v < 0n || v >= 1n << 256n) throw new RangeError(`uint256 expected 0..2^256-1, got ${v}`);
  const hex = v === 0n ? '' : v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0');
  return concat([Uint8Array.of(1), varBytes(new Uint8Array(Buffer.from(hex, 'hex')))]);
}

// --- decoding ------------------------------------------------------------------------------

/**
 * Core's `FromBytes` at `version` (default: the current one), requiring every byte to be used.
 * @throws {TxnDecodeError} naming the field that is malformed
 */
export function decodeSpendingLimit(bytes: Uint8Array, version: SpendingLimitVersion = CURRENT_SPENDING_LIMIT_VERSION): TransactionSpendingLimit {
  const r = new Reader(bytes);
  const l = emptySpendingLimit();
  l.globalDESOLimit = r.uvarint('GlobalDESOLimit');
  const countEntries = r.length('TransactionCountLimitMap', 2);
  for (let i = 0; i < countEntries; i++) {
    const txnType = u8(r, `TransactionCountLimitMap[${i}].txnType`);
    if (l.transactionCounts.has(txnType)) throw new TxnDecodeError(`TransactionCountLimitMap: txn type ${txnType} appears twice`);
    l.transactionCounts.set(txnType, r.uvarint(`TransactionCountLimitMap[${i}].count`));
  }
  const countMap = <K>(what: string, map: LimitMap<K>, codec: LimitKeyCodec<K>): void => readMap(r, what, map, codec, (w) => r.uvarint(w));
  countMap('CreatorCoinOperationLimitMap', l.creatorCoinOperations, coinOperation);
  countMap('DAOCoinOperationLimitMap', l.daoCoinOperations, coinOperation);
  countMap('NFTOperationLimitMap', l.nftOperations, nftOperation);
  countMap('DAOCoinLimitOrderLimitMap', l.daoCoinLimitOrders, limitOrder);
  if (version >= SpendingLimitVersion.UnlimitedDerivedKeys) l.isUnlimited = bool(r, 'IsUnlimited');
  if (version >= SpendingLimitVersion.AssociationsAndAccessGroups) {
    countMap('AssociationLimitMap', l.associations, association);
    countMap('AccessGroupMap', l.accessGroups, accessGroup);
    countMap('AccessGroupMemberMap', l.accessGroupMembers, accessGroup);
  }
  if (version >= SpendingLimitVersion.ProofOfStake) {
    countMap('LockupLimitMap', l.lockups, lockup);
    readMap(r, 'StakeLimitMap', l.stakes, stake, (w) => decodeU256(r, w));
    readMap(r, 'UnstakeLimitMap', l.unstakes, stake, (w) => decodeU256(r, w));
    countMap('UnlockStakeLimitMap', l.unlockStakes, stake);
  }
  if (r.remaining !== 0) throw new TxnDecodeError(`TransactionSpendingLimit: ${r.remaining} bytes after the last field`);
  return l;
}

function readMap<K, V>(r: Reader, what: string, map: LimitMap<K, V>, codec: LimitKeyCodec<K>, value: (what: string) => V): void {
  // Every entry takes at least two bytes, so a count the bytes cannot hold is refused up front.
  const n = r.length(what, 2);
  for (let i = 0; i < n; i++) {
    const start = r.pos;
    const key = codec.decode(r, `${what}[${i}]`);
    const id = toHex(r.bytes.subarray(start, r.pos));
    if (map.has(id)) throw new TxnDecodeError(`${what}: key ${i} appears twice`);
    map.set(id, { key, value: value(`${what}[${i}].value`) });
  }
}

function decodeU256(r: Reader, what: string): bigint | null {
  if (!bool(r, `${what} existence byte`)) return null;
  const b = r.varBytes(what);
  if (b.length > U256_BYTES) throw new TxnDecodeError(`${what}: ${b.length} bytes is over the 32 of a uint256`);
  if (b.length > 0 && b[0] === 0) throw new TxnDecodeError(`${what}: uint256 is not minimally encoded`);
  return b.length === 0 ? 0n : BigInt(`0x${toHex(b)}`);
}

function bool(r: Reader, what: string): boolean {
  const b = r.take(1, what)[0]!;
  if (b > 1) throw new TxnDecodeError(`${what}: expected a boolean byte 0 or 1, got ${b}`);
  return b === 1;
}

/** A uvarint that core casts to a uint8 enum: larger values would silently wrap there. */
function u8(r: Reader, what: string): number {
  const v = r.uvarint(what);
  if (v > BigInt(U8_MAX)) throw new TxnDecodeError(`${what}: ${v} is over ${U8_MAX}`);
  return Number(v);
}

function exactly(b: Uint8Array, n: number, what: string): Uint8Array {
  if (b.length !== n) throw new TxnDecodeError(`${what}: expected ${n} bytes, got ${b.length}`);
  return b.slice();
}

// --- small writers -------------------------------------------------------------------------

function uvarint(v: bigint | number): Uint8Array {
  return encodeUvarint(v);
}

function varBytes(b: Uint8Array): Uint8Array {
  return concat([encodeUvarint(b.length), b]);
}

function fixed(b: Uint8Array, n: number, what: string): Uint8Array {
  if (!(b instanceof Uint8Array) || b.length !== n) throw new RangeError(`"${what}" expected ${n} bytes, got ${b instanceof Uint8Array ? b.length : typeof b}`);
  return b;
}

function byteValue(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > U8_MAX) throw new RangeError(`"${what}" expected an integer 0..${U8_MAX}, got ${v}`);
  return v;
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
