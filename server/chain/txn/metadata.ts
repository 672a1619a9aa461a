/**
 * Typed codecs for transaction metadata: the bytes after `uvarint txnType ‖ uvarint len` in a
 * MsgDeSoTxn (reference node-api.md §5.2–5.3). Layouts §5.3 does not spell out (SUBMIT_POST,
 * UPDATE_PROFILE, FOLLOW, LIKE, CREATOR_COIN, CREATOR_COIN_TRANSFER, DAO_COIN, DAO_COIN_TRANSFER,
 * BLOCK_REWARD) follow DeSo core's `ToBytes` and agree with the deso-protocol SDK transcoders.
 *
 * Decoding accepts exactly the bytes core's own `ToBytes` would write for the value it parses. Core
 * hashes and checks signatures over a re-serialization of the parsed transaction, so any other
 * spelling core's lenient readers let through could never carry a valid signature: trailing bytes,
 * non-minimal uvarints, bool bytes other than 0/1, uint256 amounts with leading zero bytes, optional
 * fields whose length prefix is not exactly 0/32/33, unsorted or duplicate ExtraData keys, unpadded
 * NewMessage key names, enum uvarints above 255 (core truncates them to uint8).
 *
 * Decoding throws only TxnDecodeError (message `TYPE.field: problem`); encoding a value that has no
 * wire form (wrong key length, amount out of range, …) throws RangeError naming the field.
 */
import { decodeTxn, type TxnInput } from './envelope.js';
import { TxnDecodeError } from './errors.js';
import { encodeUvarint, Reader } from './varint.js';
import { GROUP_KEY_NAME_BYTES, HASH_BYTES, PUBLIC_KEY_BYTES, U256_BYTES } from './sizes.js';

export const TxnType = {
  BLOCK_REWARD: 1,
  BASIC_TRANSFER: 2,
  PRIVATE_MESSAGE: 4,
  SUBMIT_POST: 5,
  UPDATE_PROFILE: 6,
  FOLLOW: 9,
  LIKE: 10,
  CREATOR_COIN: 11,
  SWAP_IDENTITY: 12,
  UPDATE_GLOBAL_PARAMS: 13,
  CREATOR_COIN_TRANSFER: 14,
  AUTHORIZE_DERIVED_KEY: 22,
  MESSAGING_GROUP: 23,
  DAO_COIN: 24,
  DAO_COIN_TRANSFER: 25,
  DAO_COIN_LIMIT_ORDER: 26,
  ACCESS_GROUP: 31,
  ACCESS_GROUP_MEMBERS: 32,
  NEW_MESSAGE: 33,
  ATOMIC_TXNS_WRAPPER: 44,
} as const;

export type TxnTypeName = keyof typeof TxnType;

const NAME_OF = new Map<number, TxnTypeName>(
  (Object.entries(TxnType) as Array<[TxnTypeName, number]>).map(([name, n]) => [n, name]),
);

/** `'NEW_MESSAGE'` for 33; `'UNKNOWN(n)'` for a number that is not in {@link TxnType}. */
export function txnTypeName(n: number): string {
  return NAME_OF.get(n) ?? `UNKNOWN(${n})`;
}

// Small enums, as core numbers them (§5.3, §7.1; core lib/network.go).
export const CreatorCoinOperation = { BUY: 0, SELL: 1, ADD_DESO: 2 } as const;
export const AuthorizeDerivedKeyOperation = { NOT_VALID: 0, VALID: 1 } as const;
export const DAOCoinOperation = { MINT: 0, BURN: 1, DISABLE_MINTING: 2, UPDATE_TRANSFER_RESTRICTION_STATUS: 3 } as const;
export const DAOCoinLimitOrderOperation = { ASK: 1, BID: 2 } as const;
export const DAOCoinLimitOrderFill = { GOOD_TILL_CANCELLED: 1, IMMEDIATE_OR_CANCEL: 2, FILL_OR_KILL: 3 } as const;
export const AccessGroupOperation = { UNKNOWN: 0, ANY: 1, CREATE: 2, UPDATE: 3 } as const;
export const AccessGroupMemberOperation = { ADD: 2, REMOVE: 3, UPDATE: 4 } as const;
export const NewMessageType = { DM: 0, GROUP_CHAT: 1 } as const;
export const NewMessageOperation = { CREATE: 0, UPDATE: 1 } as const;

export interface BlockRewardMetadata {
  type: 'BLOCK_REWARD';
  /** ≤ 250 bytes; miners put `uvarint(extraNonce)` here. */
  extraData: Uint8Array;
}
export interface BasicTransferMetadata {
  type: 'BASIC_TRANSFER';
}
export interface SubmitPostMetadata {
  type: 'SUBMIT_POST';
  /** Empty for a new post. */
  postHashToModify: Uint8Array;
  /** Empty, a post hash (32) or a profile public key (33). */
  parentStakeId: Uint8Array;
  body: Uint8Array;
  creatorBasisPoints: bigint;
  stakeMultipleBasisPoints: bigint;
  timestampNanos: bigint;
  isHidden: boolean;
}
export interface UpdateProfileMetadata {
  type: 'UPDATE_PROFILE';
  /** 33 bytes, or empty for "the transactor". */
  profilePublicKey: Uint8Array;
  newUsername: Uint8Array;
  newDescription: Uint8Array;
  newProfilePic: Uint8Array;
  newCreatorBasisPoints: bigint;
  newStakeMultipleBasisPoints: bigint;
  isHidden: boolean;
}
export interface FollowMetadata {
  type: 'FOLLOW';
  followedPublicKey: Uint8Array;
  isUnfollow: boolean;
}
export interface LikeMetadata {
  type: 'LIKE';
  likedPostHash: Uint8Array;
  isUnlike: boolean;
}
export interface CreatorCoinMetadata {
  type: 'CREATOR_COIN';
  profilePublicKey: Uint8Array;
  /** {@link CreatorCoinOperation}; one raw byte on the wire. */
  operationType: number;
  desoToSellNanos: bigint;
  creatorCoinToSellNanos: bigint;
  desoToAddNanos: bigint;
  minDesoExpectedNanos: bigint;
  minCreatorCoinExpectedNanos: bigint;
}
/** Core's CreatorCoinTransferMetadataa: `bytes(profile) ‖ uvarint amount ‖ bytes(receiver)`. */
export interface CreatorCoinTransferMetadata {
  type: 'CREATOR_COIN_TRANSFER';
  profilePublicKey: Uint8Array;
  creatorCoinToTransferNanos: bigint;
  receiverPublicKey: Uint8Array;
}
export interface AuthorizeDerivedKeyMetadata {
  type: 'AUTHORIZE_DERIVED_KEY';
  derivedPublicKey: Uint8Array;
  expirationBlock: bigint;
  /** {@link AuthorizeDerivedKeyOperation}; one raw byte on the wire. */
  operationType: number;
  /** DER signature by the owner over the access bytes. */
  accessSignature: Uint8Array;
}
export interface DAOCoinMetadata {
  type: 'DAO_COIN';
  profilePublicKey: Uint8Array;
  /** {@link DAOCoinOperation}; one raw byte on the wire. */
  operationType: number;
  coinsToMintNanos: bigint;
  coinsToBurnNanos: bigint;
  /** One raw byte on the wire. */
  transferRestrictionStatus: number;
}
export interface DAOCoinTransferMetadata {
  type: 'DAO_COIN_TRANSFER';
  profilePublicKey: Uint8Array;
  daoCoinToTransferNanos: bigint;
  receiverPublicKey: Uint8Array;
}
export interface DeSoInputsByTransactor {
  transactorPublicKey: Uint8Array;
  /** `index` ≤ 2^32-1. */
  inputs: TxnInput[];
}
export interface DAOCoinLimitOrderMetadata {
  type: 'DAO_COIN_LIMIT_ORDER';
  /** Null when unset (cancel orders); DESO is 33 zero bytes. */
  buyingDAOCoinCreatorPublicKey: Uint8Array | null;
  sellingDAOCoinCreatorPublicKey: Uint8Array | null;
  scaledExchangeRateCoinsToSellPerCoinToBuy: bigint | null;
  quantityToFillInBaseUnits: bigint | null;
  /** {@link DAOCoinLimitOrderOperation}; 0 on a cancel. */
  operationType: number;
  /** {@link DAOCoinLimitOrderFill}; 0 on a cancel. */
  fillType: number;
  cancelOrderId: Uint8Array | null;
  bidderInputs: DeSoInputsByTransactor[];
  feeNanos: bigint;
}
export interface AccessGroupMetadata {
  type: 'ACCESS_GROUP';
  ownerPublicKey: Uint8Array;
  accessGroupPublicKey: Uint8Array;
  /** Raw, unpadded on the wire; ≤ 32 bytes. */
  keyName: Uint8Array;
  /** {@link AccessGroupOperation}. */
  operationType: number;
}
export interface AccessGroupMember {
  memberPublicKey: Uint8Array;
  /** Raw, ≤ 32 bytes. */
  memberKeyName: Uint8Array;
  encryptedKey: Uint8Array;
  /** Keys in ascending byte order, no duplicates (the encoder sorts). */
  extraData: Array<[Uint8Array, Uint8Array]>;
}
export interface AccessGroupMembersMetadata {
  type: 'ACCESS_GROUP_MEMBERS';
  ownerPublicKey: Uint8Array;
  /** Raw, unpadded on the wire; ≤ 32 bytes. */
  keyName: Uint8Array;
  members: AccessGroupMember[];
  /** {@link AccessGroupMemberOperation}. */
  operationType: number;
}
/** A member of a legacy messaging group (core MessagingGroupMember). */
export interface MessagingGroupMember {
  /** The member's owner key (33 bytes). */
  groupMemberPublicKey: Uint8Array;
  /** The member's messaging key the encrypted key is addressed to; without the zero padding the wire carries (32 bytes). */
  groupMemberKeyName: Uint8Array;
  /** The group's messaging private key, encrypted to that member key. */
  encryptedKey: Uint8Array;
}
/**
 * Core's MessagingGroupMetadata (MESSAGING_GROUP, type 23; the messaging keys before access
 * groups): `bytes(MessagingPublicKey) ‖ bytes(MessagingGroupKeyName) ‖ bytes(GroupOwnerSignature)
 * ‖ uvarint n ‖ n × (bytes(member pk) ‖ bytes(member key name, 32 padded) ‖ bytes(encrypted key))`.
 * The key and name are any length on the wire; connect checks them.
 */
export interface MessagingGroupMetadata {
  type: 'MESSAGING_GROUP';
  messagingPublicKey: Uint8Array;
  /** Raw (unpadded on the wire). */
  messagingGroupKeyName: Uint8Array;
  /** DER signature by the transactor over sha256d(messagingPublicKey ‖ name); empty when not given. */
  groupOwnerSignature: Uint8Array;
  members: MessagingGroupMember[];
}
/** Core's SwapIdentityMetadataa: `bytes(FromPublicKey) ‖ bytes(ToPublicKey)` (33 bytes each when valid; connect checks). */
export interface SwapIdentityMetadata {
  type: 'SWAP_IDENTITY';
  fromPublicKey: Uint8Array;
  toPublicKey: Uint8Array;
}
/**
 * Core's AtomicTxnsWrapperMetadata: `uvarint n ‖ (uvarint len ‖ MsgDeSoTxn bytes)*`, each inner
 * transaction serialized whole (signature included: core's MsgDeSoTxn.ToBytes writes metadata
 * with preSignature false). Each must decode as a transaction; the chain rules that link them
 * are rules/atomicTxns.ts.
 */
export interface AtomicTxnsWrapperMetadata {
  type: 'ATOMIC_TXNS_WRAPPER';
  /** The inner transactions' bytes, in execution order. */
  txns: Uint8Array[];
}
/** Empty: an UPDATE_GLOBAL_PARAMS carries its values in the transaction's ExtraData. */
export interface UpdateGlobalParamsMetadata {
  type: 'UPDATE_GLOBAL_PARAMS';
}
export interface NewMessageMetadata {
  type: 'NEW_MESSAGE';
  senderAccessGroupOwnerPublicKey: Uint8Array;
  /** Without the zero padding the wire carries (≤ 32 bytes; empty is the base group). */
  senderAccessGroupKeyName: Uint8Array;
  senderAccessGroupPublicKey: Uint8Array;
  recipientAccessGroupOwnerPublicKey: Uint8Array;
  recipientAccessGroupKeyName: Uint8Array;
  recipientAccessGroupPublicKey: Uint8Array;
  encryptedText: Uint8Array;
  timestampNanos: bigint;
  /** {@link NewMessageType}. */
  newMessageType: number;
  /** {@link NewMessageOperation}. */
  newMessageOperation: number;
}

export type TxnMetadata =
  | BlockRewardMetadata
  | BasicTransferMetadata
  | SubmitPostMetadata
  | UpdateProfileMetadata
  | FollowMetadata
  | LikeMetadata
  | CreatorCoinMetadata
  | CreatorCoinTransferMetadata
  | AuthorizeDerivedKeyMetadata
  | DAOCoinMetadata
  | DAOCoinTransferMetadata
  | DAOCoinLimitOrderMetadata
  | AccessGroupMetadata
  | AccessGroupMembersMetadata
  | MessagingGroupMetadata
  | NewMessageMetadata
  | SwapIdentityMetadata
  | UpdateGlobalParamsMetadata
  | AtomicTxnsWrapperMetadata;

export type TxnMetadataType = TxnMetadata['type'];
export type TxnMetadataOf<T extends TxnMetadataType> = Extract<TxnMetadata, { type: T }>;

/** Sanity cap on metadata length, far above anything a block could carry. */
export const MAX_METADATA_BYTES = 16 * 1024 * 1024;

const MAX_BLOCK_REWARD_EXTRA_DATA = 250;
const U64_MAX = (1n << 64n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
const U32_MAX = (1n << 32n) - 1n;

function uvarintSize(v: bigint): number {
  let n = 1;
  for (; v >= 0x80n; v >>= 7n) n++;
  return n;
}

function hexOf(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

function bigintOf(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${hexOf(b)}`);
}

/** Big-endian; minimal (0 ⇒ empty) unless `width` is given. */
function bytesOf(v: bigint, width = 0): Uint8Array {
  let hex = v === 0n ? '' : v.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return new Uint8Array(Buffer.from(hex.padStart(width * 2, '0'), 'hex'));
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

class MetaReader {
  private readonly r: Reader;
  constructor(readonly type: TxnMetadataType, bytes: Uint8Array) {
    this.r = new Reader(bytes);
  }

  fail(field: string, problem: string): never {
    throw new TxnDecodeError(`${this.type}.${field}: ${problem}`);
  }

  u64(field: string): bigint {
    const start = this.r.pos;
    const v = this.r.uvarint(`${this.type}.${field}`);
    if (this.r.pos - start !== uvarintSize(v)) this.fail(field, 'uvarint is not minimally encoded');
    return v;
  }

  /** A count of items of at least `minItemBytes` each, bounded by the bytes left. */
  count(field: string, minItemBytes: number): number {
    const n = this.u64(field);
    if (n * BigInt(minItemBytes) > BigInt(this.r.remaining)) this.fail(field, `count ${n} exceeds the ${this.r.remaining} bytes left`);
    return Number(n);
  }

  /** A copy, so decoded values never alias the caller's buffer. */
  fixed(field: string, n: number): Uint8Array {
    return new Uint8Array(this.r.take(n, `${this.type}.${field}`));
  }

  /** `uvarint len ‖ bytes`, len ≤ max. */
  bytes(field: string, max = MAX_METADATA_BYTES): Uint8Array {
    const n = this.u64(field);
    if (n > BigInt(max)) this.fail(field, `length ${n} exceeds the maximum of ${max}`);
    if (n > BigInt(this.r.remaining)) this.fail(field, `length ${n} exceeds the ${this.r.remaining} bytes left`);
    return this.fixed(field, Number(n));
  }

  /** `uvarint len ‖ bytes` whose length must be one of `allowed`. */
  sized(field: string, ...allowed: number[]): Uint8Array {
    const n = this.u64(field);
    if (!allowed.some((a) => BigInt(a) === n)) this.fail(field, `expected ${allowed.join(' or ')} bytes, got ${n}`);
    return this.fixed(field, Number(n));
  }

  pk(field: string): Uint8Array {
    return this.sized(field, PUBLIC_KEY_BYTES);
  }

  /** Core's optional encodings: `00` for nil, else `uvarint(size) ‖ size bytes`. */
  optional(field: string, size: number): Uint8Array | null {
    const n = this.u64(field);
    if (n === 0n) return null;
    if (n !== BigInt(size)) this.fail(field, `expected a length of 0 or ${size}, got ${n}`);
    return this.fixed(field, size);
  }

  optU256(field: string): bigint | null {
    const b = this.optional(field, U256_BYTES);
    return b === null ? null : bigintOf(b);
  }

  /** `uvarint len ‖ minimal big-endian`, as core writes `uint256.Int.Bytes()`. */
  u256(field: string): bigint {
    const b = this.bytes(field, U256_BYTES);
    if (b.length > 0 && b[0] === 0) this.fail(field, 'uint256 has a leading zero byte (not minimal)');
    return bigintOf(b);
  }

  byte(field: string): number {
    return this.fixed(field, 1)[0]!;
  }

  bool(field: string): boolean {
    const b = this.byte(field);
    if (b > 1) this.fail(field, `expected a bool byte 0 or 1, got ${b}`);
    return b === 1;
  }

  /** A uvarint core stores in a uint8. */
  enumUvarint(field: string): number {
    const v = this.u64(field);
    if (v > 255n) this.fail(field, `${v} exceeds 255`);
    return Number(v);
  }

  /** A 32-byte zero-padded group key name; returns it without the padding. */
  paddedName(field: string): Uint8Array {
    const b = this.sized(field, GROUP_KEY_NAME_BYTES);
    let end = b.length;
    while (end > 0 && b[end - 1] === 0) end--;
    return b.slice(0, end);
  }

  /** `uvarint n ‖ (bytes key ‖ bytes value)*`, keys strictly ascending. */
  extraData(field: string): Array<[Uint8Array, Uint8Array]> {
    const n = this.count(field, 2);
    const out: Array<[Uint8Array, Uint8Array]> = [];
    for (let i = 0; i < n; i++) {
      const key = this.bytes(`${field}[${i}].key`);
      const value = this.bytes(`${field}[${i}].value`);
      const prev = out[i - 1];
      if (prev !== undefined && compareBytes(prev[0], key) >= 0) this.fail(`${field}[${i}].key`, 'keys are not in strictly ascending byte order');
      out.push([key, value]);
    }
    return out;
  }

  end(): void {
    if (this.r.remaining > 0) throw new TxnDecodeError(`${this.type}: ${this.r.remaining} trailing bytes`);
  }
}

class MetaWriter {
  private readonly parts: Uint8Array[] = [];
  private size = 0;
  constructor(readonly type: TxnMetadataType) {}

  private fail(field: string, problem: string): never {
    throw new RangeError(`${this.type}.${field}: ${problem}`);
  }

  private push(b: Uint8Array): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }

  private check(field: string, b: unknown): Uint8Array {
    if (!(b instanceof Uint8Array)) this.fail(field, 'expected a Uint8Array');
    return b;
  }

  private small(field: string, v: unknown): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) this.fail(field, `expected an integer 0..255, got ${String(v)}`);
    return v;
  }

  u64(field: string, v: bigint, max = U64_MAX): this {
    if (typeof v !== 'bigint' || v < 0n || v > max) this.fail(field, `expected a bigint 0..${max}, got ${String(v)}`);
    return this.push(encodeUvarint(v));
  }

  fixed(field: string, b: Uint8Array, n: number): this {
    if (this.check(field, b).length !== n) this.fail(field, `expected ${n} bytes, got ${b.length}`);
    return this.push(b);
  }

  bytes(field: string, b: Uint8Array, max = MAX_METADATA_BYTES): this {
    if (this.check(field, b).length > max) this.fail(field, `${b.length} bytes exceeds the maximum of ${max}`);
    return this.push(encodeUvarint(b.length)).push(b);
  }

  sized(field: string, b: Uint8Array, ...allowed: number[]): this {
    if (!allowed.includes(this.check(field, b).length)) this.fail(field, `expected ${allowed.join(' or ')} bytes, got ${b.length}`);
    return this.push(encodeUvarint(b.length)).push(b);
  }

  pk(field: string, b: Uint8Array): this {
    return this.sized(field, b, PUBLIC_KEY_BYTES);
  }

  optional(field: string, b: Uint8Array | null, size: number): this {
    return b === null ? this.push(encodeUvarint(0)) : this.sized(field, b, size);
  }

  private u256Value(field: string, v: bigint): bigint {
    if (typeof v !== 'bigint' || v < 0n || v > U256_MAX) this.fail(field, `expected a bigint 0..2^256-1, got ${String(v)}`);
    return v;
  }

  optU256(field: string, v: bigint | null): this {
    return v === null ? this.push(encodeUvarint(0)) : this.sized(field, bytesOf(this.u256Value(field, v), U256_BYTES), U256_BYTES);
  }

  u256(field: string, v: bigint): this {
    return this.bytes(field, bytesOf(this.u256Value(field, v)));
  }

  byte(field: string, v: number): this {
    return this.push(Uint8Array.of(this.small(field, v)));
  }

  bool(field: string, v: boolean): this {
    if (typeof v !== 'boolean') this.fail(field, `expected a boolean, got ${String(v)}`);
    return this.push(Uint8Array.of(v ? 1 : 0));
  }

  enumUvarint(field: string, v: number): this {
    return this.push(encodeUvarint(this.small(field, v)));
  }

  paddedName(field: string, name: Uint8Array): this {
    if (this.check(field, name).length > GROUP_KEY_NAME_BYTES) this.fail(field, `${name.length} bytes exceeds the maximum of ${GROUP_KEY_NAME_BYTES}`);
    const padded = new Uint8Array(GROUP_KEY_NAME_BYTES);
    padded.set(name);
    return this.push(encodeUvarint(GROUP_KEY_NAME_BYTES)).push(padded);
  }

  /** Sorted by key bytes, as core's EncodeExtraData writes its map. */
  extraData(field: string, kvs: Array<[Uint8Array, Uint8Array]>): this {
    if (!Array.isArray(kvs)) this.fail(field, 'expected an array of [key, value]');
    const sorted = kvs
      .map(([k, v], i) => [this.check(`${field}[${i}].key`, k), this.check(`${field}[${i}].value`, v)] as const)
      .sort((a, b) => compareBytes(a[0], b[0]));
    this.push(encodeUvarint(sorted.length));
    sorted.forEach(([k, v], i) => {
      if (i > 0 && compareBytes(sorted[i - 1]![0], k) === 0) this.fail(field, `duplicate key ${hexOf(k)}`);
      this.push(encodeUvarint(k.length)).push(k).push(encodeUvarint(v.length)).push(v);
    });
    return this;
  }

  array<T>(field: string, items: T[], each: (item: T, at: string) => void): this {
    if (!Array.isArray(items)) this.fail(field, 'expected an array');
    this.push(encodeUvarint(items.length));
    items.forEach((item, i) => each(item, `${field}[${i}]`));
    return this;
  }

  finish(): Uint8Array {
    if (this.size > MAX_METADATA_BYTES) throw new RangeError(`${this.type}: ${this.size} bytes exceeds MAX_METADATA_BYTES`);
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

interface Codec<T extends TxnMetadataType> {
  encode(w: MetaWriter, m: TxnMetadataOf<T>): void;
  decode(r: MetaReader): TxnMetadataOf<T>;
}

const CODECS: { [T in TxnMetadataType]: Codec<T> } = {
  BLOCK_REWARD: {
    encode: (w, m) => w.bytes('extraData', m.extraData, MAX_BLOCK_REWARD_EXTRA_DATA),
    decode: (r) => ({ type: 'BLOCK_REWARD', extraData: r.bytes('extraData', MAX_BLOCK_REWARD_EXTRA_DATA) }),
  },
  BASIC_TRANSFER: {
    encode: () => {},
    decode: () => ({ type: 'BASIC_TRANSFER' }),
  },
  SUBMIT_POST: {
    encode: (w, m) =>
      w
        .bytes('postHashToModify', m.postHashToModify)
        .bytes('parentStakeId', m.parentStakeId)
        .bytes('body', m.body)
        .u64('creatorBasisPoints', m.creatorBasisPoints)
        .u64('stakeMultipleBasisPoints', m.stakeMultipleBasisPoints)
        .u64('timestampNanos', m.timestampNanos)
        .bool('isHidden', m.isHidden),
    decode: (r) => ({
      type: 'SUBMIT_POST',
      postHashToModify: r.bytes('postHashToModify'),
      parentStakeId: r.bytes('parentStakeId'),
      body: r.bytes('body'),
      creatorBasisPoints: r.u64('creatorBasisPoints'),
      stakeMultipleBasisPoints: r.u64('stakeMultipleBasisPoints'),
      timestampNanos: r.u64('timestampNanos'),
      isHidden: r.bool('isHidden'),
    }),
  },
  UPDATE_PROFILE: {
    encode: (w, m) =>
      w
        .sized('profilePublicKey', m.profilePublicKey, 0, PUBLIC_KEY_BYTES)
        .bytes('newUsername', m.newUsername)
        .bytes('newDescription', m.newDescription)
        .bytes('newProfilePic', m.newProfilePic)
        .u64('newCreatorBasisPoints', m.newCreatorBasisPoints)
        .u64('newStakeMultipleBasisPoints', m.newStakeMultipleBasisPoints)
        .bool('isHidden', m.isHidden),
    decode: (r) => ({
      type: 'UPDATE_PROFILE',
      profilePublicKey: r.sized('profilePublicKey', 0, PUBLIC_KEY_BYTES),
      newUsername: r.bytes('newUsername'),
      newDescription: r.bytes('newDescription'),
      newProfilePic: r.bytes('newProfilePic'),
      newCreatorBasisPoints: r.u64('newCreatorBasisPoints'),
      newStakeMultipleBasisPoints: r.u64('newStakeMultipleBasisPoints'),
      isHidden: r.bool('isHidden'),
    }),
  },
  FOLLOW: {
    encode: (w, m) => w.fixed('followedPublicKey', m.followedPublicKey, PUBLIC_KEY_BYTES).bool('isUnfollow', m.isUnfollow),
    decode: (r) => ({ type: 'FOLLOW', followedPublicKey: r.fixed('followedPublicKey', PUBLIC_KEY_BYTES), isUnfollow: r.bool('isUnfollow') }),
  },
  LIKE: {
    encode: (w, m) => w.fixed('likedPostHash', m.likedPostHash, HASH_BYTES).bool('isUnlike', m.isUnlike),
    decode: (r) => ({ type: 'LIKE', likedPostHash: r.fixed('likedPostHash', HASH_BYTES), isUnlike: r.bool('isUnlike') }),
  },
  CREATOR_COIN: {
    encode: (w, m) =>
      w
        .pk('profilePublicKey', m.profilePublicKey)
        .byte('operationType', m.operationType)
        .u64('desoToSellNanos', m.desoToSellNanos)
        .u64('creatorCoinToSellNanos', m.creatorCoinToSellNanos)
        .u64('desoToAddNanos', m.desoToAddNanos)
        .u64('minDesoExpectedNanos', m.minDesoExpectedNanos)
        .u64('minCreatorCoinExpectedNanos', m.minCreatorCoinExpectedNanos),
    decode: (r) => ({
      type: 'CREATOR_COIN',
      profilePublicKey: r.pk('profilePublicKey'),
      operationType: r.byte('operationType'),
      desoToSellNanos: r.u64('desoToSellNanos'),
      creatorCoinToSellNanos: r.u64('creatorCoinToSellNanos'),
      desoToAddNanos: r.u64('desoToAddNanos'),
      minDesoExpectedNanos: r.u64('minDesoExpectedNanos'),
      minCreatorCoinExpectedNanos: r.u64('minCreatorCoinExpectedNanos'),
    }),
  },
  CREATOR_COIN_TRANSFER: {
    encode: (w, m) =>
      w
        .pk('profilePublicKey', m.profilePublicKey)
        .u64('creatorCoinToTransferNanos', m.creatorCoinToTransferNanos)
        .pk('receiverPublicKey', m.receiverPublicKey),
    decode: (r) => ({
      type: 'CREATOR_COIN_TRANSFER',
      profilePublicKey: r.pk('profilePublicKey'),
      creatorCoinToTransferNanos: r.u64('creatorCoinToTransferNanos'),
      receiverPublicKey: r.pk('receiverPublicKey'),
    }),
  },
  AUTHORIZE_DERIVED_KEY: {
    encode: (w, m) =>
      w
        .pk('derivedPublicKey', m.derivedPublicKey)
        .u64('expirationBlock', m.expirationBlock)
        .byte('operationType', m.operationType)
        .bytes('accessSignature', m.accessSignature),
    decode: (r) => ({
      type: 'AUTHORIZE_DERIVED_KEY',
      derivedPublicKey: r.pk('derivedPublicKey'),
      expirationBlock: r.u64('expirationBlock'),
      operationType: r.byte('operationType'),
      accessSignature: r.bytes('accessSignature'),
    }),
  },
  DAO_COIN: {
    encode: (w, m) =>
      w
        .pk('profilePublicKey', m.profilePublicKey)
        .byte('operationType', m.operationType)
        .u256('coinsToMintNanos', m.coinsToMintNanos)
        .u256('coinsToBurnNanos', m.coinsToBurnNanos)
        .byte('transferRestrictionStatus', m.transferRestrictionStatus),
    decode: (r) => ({
      type: 'DAO_COIN',
      profilePublicKey: r.pk('profilePublicKey'),
      operationType: r.byte('operationType'),
      coinsToMintNanos: r.u256('coinsToMintNanos'),
      coinsToBurnNanos: r.u256('coinsToBurnNanos'),
      transferRestrictionStatus: r.byte('transferRestrictionStatus'),
    }),
  },
  DAO_COIN_TRANSFER: {
    encode: (w, m) =>
      w
        .pk('profilePublicKey', m.profilePublicKey)
        .u256('daoCoinToTransferNanos', m.daoCoinToTransferNanos)
        .pk('receiverPublicKey', m.receiverPublicKey),
    decode: (r) => ({
      type: 'DAO_COIN_TRANSFER',
      profilePublicKey: r.pk('profilePublicKey'),
      daoCoinToTransferNanos: r.u256('daoCoinToTransferNanos'),
      receiverPublicKey: r.pk('receiverPublicKey'),
    }),
  },
  DAO_COIN_LIMIT_ORDER: {
    encode: (w, m) =>
      w
        .optional('buyingDAOCoinCreatorPublicKey', m.buyingDAOCoinCreatorPublicKey, PUBLIC_KEY_BYTES)
        .optional('sellingDAOCoinCreatorPublicKey', m.sellingDAOCoinCreatorPublicKey, PUBLIC_KEY_BYTES)
        .optU256('scaledExchangeRateCoinsToSellPerCoinToBuy', m.scaledExchangeRateCoinsToSellPerCoinToBuy)
        .optU256('quantityToFillInBaseUnits', m.quantityToFillInBaseUnits)
        .enumUvarint('operationType', m.operationType)
        .enumUvarint('fillType', m.fillType)
        .optional('cancelOrderId', m.cancelOrderId, HASH_BYTES)
        .array('bidderInputs', m.bidderInputs, (b, at) => {
          w.fixed(`${at}.transactorPublicKey`, b.transactorPublicKey, PUBLIC_KEY_BYTES).array(`${at}.inputs`, b.inputs, (input, at2) => {
            w.fixed(`${at2}.txid`, input.txid, HASH_BYTES).u64(`${at2}.index`, input.index, U32_MAX);
          });
        })
        .u64('feeNanos', m.feeNanos),
    decode: (r) => {
      const buying = r.optional('buyingDAOCoinCreatorPublicKey', PUBLIC_KEY_BYTES);
      const selling = r.optional('sellingDAOCoinCreatorPublicKey', PUBLIC_KEY_BYTES);
      const rate = r.optU256('scaledExchangeRateCoinsToSellPerCoinToBuy');
      const quantity = r.optU256('quantityToFillInBaseUnits');
      const operationType = r.enumUvarint('operationType');
      const fillType = r.enumUvarint('fillType');
      const cancelOrderId = r.optional('cancelOrderId', HASH_BYTES);
      const bidderInputs: DeSoInputsByTransactor[] = [];
      // Each transactor is at least pk 33 ‖ count 1; each input at least txid 32 ‖ index 1.
      const nBidders = r.count('bidderInputs', PUBLIC_KEY_BYTES + 1);
      for (let i = 0; i < nBidders; i++) {
        const transactorPublicKey = r.fixed(`bidderInputs[${i}].transactorPublicKey`, PUBLIC_KEY_BYTES);
        const inputs: TxnInput[] = [];
        const nInputs = r.count(`bidderInputs[${i}].inputs`, HASH_BYTES + 1);
        for (let j = 0; j < nInputs; j++) {
          const at = `bidderInputs[${i}].inputs[${j}]`;
          const txid = r.fixed(`${at}.txid`, HASH_BYTES);
          const index = r.u64(`${at}.index`);
          if (index > U32_MAX) r.fail(`${at}.index`, `${index} exceeds 2^32-1`);
          inputs.push({ txid, index });
        }
        bidderInputs.push({ transactorPublicKey, inputs });
      }
      return {
        type: 'DAO_COIN_LIMIT_ORDER',
        buyingDAOCoinCreatorPublicKey: buying,
        sellingDAOCoinCreatorPublicKey: selling,
        scaledExchangeRateCoinsToSellPerCoinToBuy: rate,
        quantityToFillInBaseUnits: quantity,
        operationType,
        fillType,
        cancelOrderId,
        bidderInputs,
        feeNanos: r.u64('feeNanos'),
      };
    },
  },
  ACCESS_GROUP: {
    encode: (w, m) =>
      w
        .pk('ownerPublicKey', m.ownerPublicKey)
        .pk('accessGroupPublicKey', m.accessGroupPublicKey)
        .bytes('keyName', m.keyName, GROUP_KEY_NAME_BYTES)
        .enumUvarint('operationType', m.operationType),
    decode: (r) => ({
      type: 'ACCESS_GROUP',
      ownerPublicKey: r.pk('ownerPublicKey'),
      accessGroupPublicKey: r.pk('accessGroupPublicKey'),
      keyName: r.bytes('keyName', GROUP_KEY_NAME_BYTES),
      operationType: r.enumUvarint('operationType'),
    }),
  },
  ACCESS_GROUP_MEMBERS: {
    encode: (w, m) =>
      w
        .pk('ownerPublicKey', m.ownerPublicKey)
        .bytes('keyName', m.keyName, GROUP_KEY_NAME_BYTES)
        .array('members', m.members, (member, at) => {
          w.pk(`${at}.memberPublicKey`, member.memberPublicKey)
            .bytes(`${at}.memberKeyName`, member.memberKeyName, GROUP_KEY_NAME_BYTES)
            .bytes(`${at}.encryptedKey`, member.encryptedKey)
            .extraData(`${at}.extraData`, member.extraData);
        })
        .enumUvarint('operationType', m.operationType),
    decode: (r) => {
      const ownerPublicKey = r.pk('ownerPublicKey');
      const keyName = r.bytes('keyName', GROUP_KEY_NAME_BYTES);
      const members: AccessGroupMember[] = [];
      // A member is at least (1 + 33) + 1 + 1 + 1 bytes.
      const n = r.count('members', PUBLIC_KEY_BYTES + 4);
      for (let i = 0; i < n; i++) {
        members.push({
          memberPublicKey: r.pk(`members[${i}].memberPublicKey`),
          memberKeyName: r.bytes(`members[${i}].memberKeyName`, GROUP_KEY_NAME_BYTES),
          encryptedKey: r.bytes(`members[${i}].encryptedKey`),
          extraData: r.extraData(`members[${i}].extraData`),
        });
      }
      return { type: 'ACCESS_GROUP_MEMBERS', ownerPublicKey, keyName, members, operationType: r.enumUvarint('operationType') };
    },
  },
  MESSAGING_GROUP: {
    encode: (w, m) =>
      w
        .bytes('messagingPublicKey', m.messagingPublicKey)
        .bytes('messagingGroupKeyName', m.messagingGroupKeyName)
        .bytes('groupOwnerSignature', m.groupOwnerSignature)
        .array('members', m.members, (member, at) => {
          // Core writes the member's name as its 32-byte GroupKeyName, the key as its 33 bytes.
          w.pk(`${at}.groupMemberPublicKey`, member.groupMemberPublicKey)
            .paddedName(`${at}.groupMemberKeyName`, member.groupMemberKeyName)
            .bytes(`${at}.encryptedKey`, member.encryptedKey);
        }),
    decode: (r) => {
      const messagingPublicKey = r.bytes('messagingPublicKey');
      const messagingGroupKeyName = r.bytes('messagingGroupKeyName');
      const groupOwnerSignature = r.bytes('groupOwnerSignature');
      const members: MessagingGroupMember[] = [];
      // A member is at least (1 + 33) + (1 + 32) + 1 bytes.
      const n = r.count('members', PUBLIC_KEY_BYTES + GROUP_KEY_NAME_BYTES + 3);
      for (let i = 0; i < n; i++) {
        members.push({
          groupMemberPublicKey: r.pk(`members[${i}].groupMemberPublicKey`),
          groupMemberKeyName: r.paddedName(`members[${i}].groupMemberKeyName`),
          encryptedKey: r.bytes(`members[${i}].encryptedKey`),
        });
      }
      return { type: 'MESSAGING_GROUP', messagingPublicKey, messagingGroupKeyName, groupOwnerSignature, members };
    },
  },
  NEW_MESSAGE: {
    encode: (w, m) =>
      w
        .pk('senderAccessGroupOwnerPublicKey', m.senderAccessGroupOwnerPublicKey)
        .paddedName('senderAccessGroupKeyName', m.senderAccessGroupKeyName)
        .pk('senderAccessGroupPublicKey', m.senderAccessGroupPublicKey)
        .pk('recipientAccessGroupOwnerPublicKey', m.recipientAccessGroupOwnerPublicKey)
        .paddedName('recipientAccessGroupKeyName', m.recipientAccessGroupKeyName)
        .pk('recipientAccessGroupPublicKey', m.recipientAccessGroupPublicKey)
        .bytes('encryptedText', m.encryptedText)
        .u64('timestampNanos', m.timestampNanos)
        .enumUvarint('newMessageType', m.newMessageType)
        .enumUvarint('newMessageOperation', m.newMessageOperation),
    decode: (r) => ({
      type: 'NEW_MESSAGE',
      senderAccessGroupOwnerPublicKey: r.pk('senderAccessGroupOwnerPublicKey'),
      senderAccessGroupKeyName: r.paddedName('senderAccessGroupKeyName'),
      senderAccessGroupPublicKey: r.pk('senderAccessGroupPublicKey'),
      recipientAccessGroupOwnerPublicKey: r.pk('recipientAccessGroupOwnerPublicKey'),
      recipientAccessGroupKeyName: r.paddedName('recipientAccessGroupKeyName'),
      recipientAccessGroupPublicKey: r.pk('recipientAccessGroupPublicKey'),
      encryptedText: r.bytes('encryptedText'),
      timestampNanos: r.u64('timestampNanos'),
      newMessageType: r.enumUvarint('newMessageType'),
      newMessageOperation: r.enumUvarint('newMessageOperation'),
    }),
  },
  SWAP_IDENTITY: {
    encode: (w, m) => w.bytes('fromPublicKey', m.fromPublicKey, PUBLIC_KEY_BYTES).bytes('toPublicKey', m.toPublicKey, PUBLIC_KEY_BYTES),
    decode: (r) => ({ type: 'SWAP_IDENTITY', fromPublicKey: r.bytes('fromPublicKey', PUBLIC_KEY_BYTES), toPublicKey: r.bytes('toPublicKey', PUBLIC_KEY_BYTES) }),
  },
  UPDATE_GLOBAL_PARAMS: {
    encode: () => {},
    decode: () => ({ type: 'UPDATE_GLOBAL_PARAMS' }),
  },
  ATOMIC_TXNS_WRAPPER: {
    encode: (w, m) => w.array('txns', m.txns, (t, at) => w.bytes(at, t)),
    decode: (r) => {
      // An inner transaction is at least its length byte and a few one-byte fields.
      const n = r.count('txns', 2);
      const txns: Uint8Array[] = [];
      for (let i = 0; i < n; i++) {
        const bytes = r.bytes(`txns[${i}]`);
        try {
          decodeTxn(bytes);
        } catch (e) {
          if (e instanceof TxnDecodeError) r.fail(`txns[${i}]`, e.message);
          throw e;
        }
        txns.push(bytes);
      }
      return { type: 'ATOMIC_TXNS_WRAPPER', txns };
    },
  },
};

function isSupported(name: string): name is TxnMetadataType {
  return Object.hasOwn(CODECS, name);
}

export function encodeMetadata(m: TxnMetadata): Uint8Array {
  const type: unknown = (m as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !isSupported(type)) throw new RangeError(`metadata type: ${String(type)} is not supported`);
  const w = new MetaWriter(type);
  (CODECS[type] as Codec<TxnMetadataType>).encode(w, m as never);
  return w.finish();
}

/** Decodes the metadata of a transaction of type `txnType`; every byte must be consumed. */
export function decodeMetadata(txnType: number, bytes: Uint8Array): TxnMetadata {
  const name = NAME_OF.get(txnType);
  if (name === undefined) throw new TxnDecodeError(`txn type ${String(txnType)}: not a known transaction type`);
  if (!isSupported(name)) throw new TxnDecodeError(`txn type ${name} (${txnType}): decoding its metadata is not supported`);
  if (!(bytes instanceof Uint8Array)) throw new TxnDecodeError(`${name}: metadata must be a Uint8Array`);
  if (bytes.length > MAX_METADATA_BYTES) throw new TxnDecodeError(`${name}: ${bytes.length} bytes exceeds MAX_METADATA_BYTES`);
  const r = new MetaReader(name, bytes);
  const m = (CODECS[name] as Codec<TxnMetadataType>).decode(r);
  r.end();
  return m;
}
