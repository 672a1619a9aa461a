// Transaction metadata codecs (node-api.md §5.2–5.3) against the official deso-protocol SDK
// transcoders in both directions, against the SDK-built vector transactions, and under fuzzing.
//
// The SDK's Uvarint64 transcoder goes through JS numbers, so it cannot carry uint64 values above
// 2^53-1; SDK cross-checks therefore draw amounts ≤ 2^53-1, and the full 64-bit range (and 256-bit
// DAO amounts) is covered by our own round trip plus hand-built bytes. The SDK also writes
// ACCESS_GROUP / ACCESS_GROUP_MEMBERS / NEW_MESSAGE operation enums as one raw byte where core
// writes a uvarint: identical below 128, so SDK cross-checks keep those enums < 128.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  AccessGroupMemberRecord,
  DeSoInputsByTransactorRecord,
  TransactionExtraData,
  TransactionExtraDataKV,
  TransactionInput,
  TransactionMetadataAccessGroup,
  TransactionMetadataAccessGroupMembers,
  TransactionMetadataAuthorizeDerivedKey,
  TransactionMetadataBasicTransfer,
  TransactionMetadataBlockReward,
  TransactionMetadataCreatorCoin,
  TransactionMetadataCreatorCoinTransfer,
  TransactionMetadataDAOCoin,
  TransactionMetadataDAOCoinLimitOrder,
  TransactionMetadataFollow,
  TransactionMetadataLike,
  TransactionMetadataMessagingGroup,
  MessagingGroupMemberRecord,
  TransactionMetadataNewMessage,
  TransactionMetadataSubmitPost,
  TransactionMetadataSwapIdentity,
  TransactionMetadataTransferDAOCoin,
  TransactionMetadataUpdateGlobalParams,
  TransactionMetadataUpdateProfile,
  bs58PublicKeyToCompressedBytes,
} from 'deso-protocol';
import { isTxnDecodeError } from '../../server/chain/txn/errors.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import {
  MAX_METADATA_BYTES,
  TxnType,
  decodeMetadata,
  encodeMetadata,
  txnTypeName,
  type TxnMetadata,
  type TxnMetadataOf,
  type TxnMetadataType,
} from '../../server/chain/txn/metadata.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';
import { mulberry32 } from '../helpers/seededRandom.js';

const U64_MAX = (1n << 64n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
const U32_MAX = (1n << 32n) - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const EMPTY = new Uint8Array(0);
const FF9 = 'ffffffffffffffffff01'; // uvarint(2^64-1)

/** Every type but the atomic wrapper, whose inner transactions are tested in their own block below. */
type FuzzedType = Exclude<TxnMetadataType, 'ATOMIC_TXNS_WRAPPER'>;

const TYPES: FuzzedType[] = [
  'BLOCK_REWARD',
  'BASIC_TRANSFER',
  'SUBMIT_POST',
  'UPDATE_PROFILE',
  'FOLLOW',
  'LIKE',
  'CREATOR_COIN',
  'CREATOR_COIN_TRANSFER',
  'AUTHORIZE_DERIVED_KEY',
  'DAO_COIN',
  'DAO_COIN_TRANSFER',
  'DAO_COIN_LIMIT_ORDER',
  'ACCESS_GROUP',
  'ACCESS_GROUP_MEMBERS',
  'MESSAGING_GROUP',
  'NEW_MESSAGE',
  'SWAP_IDENTITY',
  'UPDATE_GLOBAL_PARAMS',
];

// ---------------------------------------------------------------------------------------------
// Helpers

const hex = bytesToHex;
const cat = (...parts: Array<Uint8Array | string>): Uint8Array =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? hexToBytes(p) : p))));
const uv = (v: bigint | number): string => hex(encodeUvarint(v));
const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

function bigintOf(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${hex(b)}`);
}
function bytesOf(v: bigint, width = 0): Uint8Array {
  let h = v === 0n ? '' : v.toString(16);
  if (h.length % 2 === 1) h = `0${h}`;
  return hexToBytes(h.padStart(width * 2, '0'));
}
function num(v: bigint): number {
  assert.ok(v <= MAX_SAFE, `SDK Uvarint64 cannot carry ${v} exactly`);
  return Number(v);
}
function pad32(name: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(name);
  return out;
}
function unpad(name: Uint8Array): Uint8Array {
  let end = name.length;
  while (end > 0 && name[end - 1] === 0) end--;
  return name.slice(0, end);
}

function assertDecodeError(type: number, bytes: Uint8Array, expected: string | RegExp): void {
  assert.throws(
    () => decodeMetadata(type, bytes),
    (e: unknown) => {
      assert.ok(isTxnDecodeError(e), `expected a TxnDecodeError, got ${String(e)}`);
      if (typeof expected === 'string') assert.equal(e.message, expected);
      else assert.match(e.message, expected);
      return true;
    },
  );
}

/** Draws from mulberry32, so every run draws the same instances. */
class Rand {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(n: number): number {
    return this.next() % n;
  }
  bool(): boolean {
    return (this.next() & 1) === 1;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  bytes(n: number): Uint8Array {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = this.next() & 0xff;
    return b;
  }
  bits(n: number): bigint {
    let v = 0n;
    for (let i = 0; i < n; i += 32) v = (v << 32n) | BigInt(this.next());
    return v & ((1n << BigInt(n)) - 1n);
  }
}

/** 'sdk': values the SDK transcoders carry exactly; 'full': the whole range core allows. */
type Mode = 'sdk' | 'full';

interface Gen {
  r: Rand;
  mode: Mode;
  /** Whether free-length fields may be long (tens of KB). */
  long: boolean;
}

function amount({ r, mode }: Gen): bigint {
  const top = mode === 'full' ? U64_MAX : MAX_SAFE;
  switch (r.int(4)) {
    case 0:
      return r.pick(mode === 'full' ? [0n, 1n, 127n, 128n, MAX_SAFE, MAX_SAFE + 1n, 1n << 63n, U64_MAX] : [0n, 1n, 127n, 128n, 16383n, 16384n, MAX_SAFE]);
    case 1:
      return BigInt(r.int(1 << 16));
    default:
      return (r.bits(64) % (top + 1n)) >> BigInt(r.int(64));
  }
}
function u256({ r }: Gen): bigint {
  return r.bool() ? r.pick([0n, 1n, 255n, 256n, U64_MAX, 1n << 64n, U256_MAX]) : r.bits(8 * (1 + r.int(32)));
}
function varBytes({ r, long }: Gen): Uint8Array {
  if (long && r.int(12) === 0) return r.bytes(20_000 + r.int(1000));
  return r.bytes(r.pick([0, 1, r.int(64), r.int(300)]));
}
function pk({ r }: Gen): Uint8Array {
  const b = r.bytes(33);
  b[0] = 2 + r.int(2);
  return b;
}
/** A group key name of min..32 bytes; without a trailing zero when it will be padded. */
function keyName({ r }: Gen, min: number, noTrailingZero: boolean): Uint8Array {
  const b = r.bytes(min + r.int(33 - min));
  if (noTrailingZero && b.length > 0 && b[b.length - 1] === 0) b[b.length - 1] = 1;
  return b;
}
/** A small enum: usually a plausible value, sometimes anything that fits a byte. */
function smallEnum({ r }: Gen, common: number, max = 255): number {
  return r.bool() ? r.int(common) : r.int(max + 1);
}

function generate(type: FuzzedType, g: Gen): TxnMetadata {
  const { r } = g;
  // Enums core writes as uvarints but the SDK as a raw byte: keep them < 128 for the SDK.
  const uvEnumMax = g.mode === 'sdk' ? 127 : 255;
  switch (type) {
    case 'BLOCK_REWARD':
      return { type, extraData: r.bytes(r.pick([0, 1, 8, r.int(251), 250])) };
    case 'BASIC_TRANSFER':
      return { type };
    case 'SUBMIT_POST':
      return {
        type,
        postHashToModify: r.bool() ? EMPTY : r.bytes(32),
        parentStakeId: r.pick([EMPTY, r.bytes(32), pk(g)]),
        body: varBytes(g),
        creatorBasisPoints: amount(g),
        stakeMultipleBasisPoints: amount(g),
        timestampNanos: amount(g),
        isHidden: r.bool(),
      };
    case 'UPDATE_PROFILE':
      return {
        type,
        profilePublicKey: r.bool() ? EMPTY : pk(g),
        newUsername: varBytes(g),
        newDescription: varBytes(g),
        newProfilePic: varBytes(g),
        newCreatorBasisPoints: amount(g),
        newStakeMultipleBasisPoints: amount(g),
        isHidden: r.bool(),
      };
    case 'FOLLOW':
      return { type, followedPublicKey: pk(g), isUnfollow: r.bool() };
    case 'LIKE':
      return { type, likedPostHash: r.bytes(32), isUnlike: r.bool() };
    case 'CREATOR_COIN':
      return {
        type,
        profilePublicKey: pk(g),
        operationType: smallEnum(g, 3),
        desoToSellNanos: amount(g),
        creatorCoinToSellNanos: amount(g),
        desoToAddNanos: amount(g),
        minDesoExpectedNanos: amount(g),
        minCreatorCoinExpectedNanos: amount(g),
      };
    case 'CREATOR_COIN_TRANSFER':
      return { type, profilePublicKey: pk(g), creatorCoinToTransferNanos: amount(g), receiverPublicKey: pk(g) };
    case 'AUTHORIZE_DERIVED_KEY':
      return {
        type,
        derivedPublicKey: pk(g),
        expirationBlock: amount(g),
        operationType: smallEnum(g, 2),
        accessSignature: r.bool() ? r.bytes(70 + r.int(3)) : varBytes(g),
      };
    case 'DAO_COIN':
      return {
        type,
        profilePublicKey: pk(g),
        operationType: smallEnum(g, 4),
        coinsToMintNanos: u256(g),
        coinsToBurnNanos: u256(g),
        transferRestrictionStatus: smallEnum(g, 4),
      };
    case 'DAO_COIN_TRANSFER':
      return { type, profilePublicKey: pk(g), daoCoinToTransferNanos: u256(g), receiverPublicKey: pk(g) };
    case 'DAO_COIN_LIMIT_ORDER': {
      const optPk = (): Uint8Array | null => r.pick([null, pk(g), new Uint8Array(33)]);
      return {
        type,
        buyingDAOCoinCreatorPublicKey: optPk(),
        sellingDAOCoinCreatorPublicKey: optPk(),
        scaledExchangeRateCoinsToSellPerCoinToBuy: r.bool() ? null : u256(g),
        quantityToFillInBaseUnits: r.bool() ? null : u256(g),
        operationType: smallEnum(g, 3),
        fillType: smallEnum(g, 4),
        cancelOrderId: r.bool() ? null : r.bytes(32),
        bidderInputs: Array.from({ length: r.int(3) }, () => ({
          transactorPublicKey: pk(g),
          inputs: Array.from({ length: r.int(3) }, () => ({ txid: r.bytes(32), index: r.pick([0n, 1n, U32_MAX, BigInt(r.next())]) })),
        })),
        feeNanos: amount(g),
      };
    }
    case 'ACCESS_GROUP':
      return {
        type,
        ownerPublicKey: pk(g),
        accessGroupPublicKey: pk(g),
        keyName: keyName(g, 0, false),
        operationType: smallEnum(g, 4, uvEnumMax),
      };
    case 'ACCESS_GROUP_MEMBERS':
      return {
        type,
        ownerPublicKey: pk(g),
        keyName: keyName(g, 0, false),
        members: Array.from({ length: r.int(4) }, () => {
          const keys = new Map<string, Uint8Array>();
          for (let i = r.int(4); i > 0; i--) {
            const k = r.bytes(r.int(12));
            keys.set(hex(k), k);
          }
          const extraData = [...keys.values()]
            .sort((a, b) => Buffer.compare(a, b))
            .map((k): [Uint8Array, Uint8Array] => [k, r.bytes(r.int(40))]);
          return { memberPublicKey: pk(g), memberKeyName: keyName(g, 0, false), encryptedKey: varBytes(g), extraData };
        }),
        operationType: smallEnum(g, 5, uvEnumMax),
      };
    case 'MESSAGING_GROUP':
      // The key, name and signature are any bytes on the wire (connect checks them).
      return {
        type,
        messagingPublicKey: r.int(6) === 0 ? varBytes(g) : pk(g),
        messagingGroupKeyName: r.int(6) === 0 ? varBytes(g) : keyName(g, 1, false),
        groupOwnerSignature: r.int(3) === 0 ? EMPTY : varBytes(g),
        members: Array.from({ length: r.int(4) }, () => ({ groupMemberPublicKey: pk(g), groupMemberKeyName: keyName(g, 0, true), encryptedKey: varBytes(g) })),
      };
    case 'SWAP_IDENTITY':
      // Core checks the keys' length at connect; the codec carries 0..33 bytes.
      return { type, fromPublicKey: r.int(8) === 0 ? EMPTY : pk(g), toPublicKey: r.int(8) === 0 ? EMPTY : pk(g) };
    case 'UPDATE_GLOBAL_PARAMS':
      return { type };
    case 'NEW_MESSAGE':
      return {
        type,
        senderAccessGroupOwnerPublicKey: pk(g),
        senderAccessGroupKeyName: r.int(8) === 0 ? EMPTY : keyName(g, 1, true),
        senderAccessGroupPublicKey: pk(g),
        recipientAccessGroupOwnerPublicKey: pk(g),
        recipientAccessGroupKeyName: r.int(8) === 0 ? EMPTY : keyName(g, 1, true),
        recipientAccessGroupPublicKey: pk(g),
        encryptedText: varBytes(g),
        timestampNanos: amount(g),
        newMessageType: smallEnum(g, 2, uvEnumMax),
        newMessageOperation: smallEnum(g, 2, uvEnumMax),
      };
  }
}

// ---------------------------------------------------------------------------------------------
// SDK mapping (SDK field names and number/bytes representations)

interface SdkRecord {
  toBytes(): Uint8Array;
}
interface SdkClass {
  fromBytes(bytes: Uint8Array): [unknown, Uint8Array];
}

const SDK_CLASS: Record<FuzzedType, SdkClass> = {
  BLOCK_REWARD: TransactionMetadataBlockReward,
  BASIC_TRANSFER: TransactionMetadataBasicTransfer,
  SUBMIT_POST: TransactionMetadataSubmitPost,
  UPDATE_PROFILE: TransactionMetadataUpdateProfile,
  FOLLOW: TransactionMetadataFollow,
  LIKE: TransactionMetadataLike,
  CREATOR_COIN: TransactionMetadataCreatorCoin,
  CREATOR_COIN_TRANSFER: TransactionMetadataCreatorCoinTransfer,
  AUTHORIZE_DERIVED_KEY: TransactionMetadataAuthorizeDerivedKey,
  DAO_COIN: TransactionMetadataDAOCoin,
  DAO_COIN_TRANSFER: TransactionMetadataTransferDAOCoin,
  DAO_COIN_LIMIT_ORDER: TransactionMetadataDAOCoinLimitOrder,
  ACCESS_GROUP: TransactionMetadataAccessGroup,
  ACCESS_GROUP_MEMBERS: TransactionMetadataAccessGroupMembers,
  MESSAGING_GROUP: TransactionMetadataMessagingGroup,
  NEW_MESSAGE: TransactionMetadataNewMessage,
  SWAP_IDENTITY: TransactionMetadataSwapIdentity,
  UPDATE_GLOBAL_PARAMS: TransactionMetadataUpdateGlobalParams,
};

function toSdk(m: TxnMetadata): SdkRecord {
  switch (m.type) {
    case 'BLOCK_REWARD':
      return Object.assign(new TransactionMetadataBlockReward(), { extraData: m.extraData });
    case 'BASIC_TRANSFER':
      return new TransactionMetadataBasicTransfer();
    case 'SUBMIT_POST':
      return Object.assign(new TransactionMetadataSubmitPost(), {
        postHashToModify: m.postHashToModify,
        parentStakeId: m.parentStakeId,
        body: m.body,
        creatorBasisPoints: num(m.creatorBasisPoints),
        stakeMultipleBasisPoints: num(m.stakeMultipleBasisPoints),
        timestampNanos: num(m.timestampNanos),
        isHidden: m.isHidden,
      });
    case 'UPDATE_PROFILE':
      return Object.assign(new TransactionMetadataUpdateProfile(), {
        profilePublicKey: m.profilePublicKey,
        newUsername: m.newUsername,
        newDescription: m.newDescription,
        newProfilePic: m.newProfilePic,
        newCreatorBasisPoints: num(m.newCreatorBasisPoints),
        newStakeMultipleBasisPoints: num(m.newStakeMultipleBasisPoints),
        isHidden: m.isHidden,
      });
    case 'FOLLOW':
      return Object.assign(new TransactionMetadataFollow(), { followedPublicKey: m.followedPublicKey, isUnfollow: m.isUnfollow });
    case 'LIKE':
      return Object.assign(new TransactionMetadataLike(), { likedPostHash: m.likedPostHash, isUnlike: m.isUnlike });
    case 'CREATOR_COIN':
      return Object.assign(new TransactionMetadataCreatorCoin(), {
        profilePublicKey: m.profilePublicKey,
        operationType: m.operationType,
        desoToSellNanos: num(m.desoToSellNanos),
        creatorCoinToSellNanos: num(m.creatorCoinToSellNanos),
        desoToAddNanos: num(m.desoToAddNanos),
        minDeSoExpectedNanos: num(m.minDesoExpectedNanos),
        minCreatorCoinExpectedNanos: num(m.minCreatorCoinExpectedNanos),
      });
    case 'CREATOR_COIN_TRANSFER':
      return Object.assign(new TransactionMetadataCreatorCoinTransfer(), {
        profilePublicKey: m.profilePublicKey,
        creatorCoinToTransferNanos: num(m.creatorCoinToTransferNanos),
        receiverPublicKey: m.receiverPublicKey,
      });
    case 'AUTHORIZE_DERIVED_KEY':
      return Object.assign(new TransactionMetadataAuthorizeDerivedKey(), {
        derivedPublicKey: m.derivedPublicKey,
        expirationBlock: num(m.expirationBlock),
        operationType: m.operationType,
        accessSignature: m.accessSignature,
      });
    case 'DAO_COIN':
      return Object.assign(new TransactionMetadataDAOCoin(), {
        profilePublicKey: m.profilePublicKey,
        operationType: m.operationType,
        coinsToMintNanos: bytesOf(m.coinsToMintNanos),
        coinsToBurnNanos: bytesOf(m.coinsToBurnNanos),
        transferRestrictionStatus: m.transferRestrictionStatus,
      });
    case 'DAO_COIN_TRANSFER':
      return Object.assign(new TransactionMetadataTransferDAOCoin(), {
        profilePublicKey: m.profilePublicKey,
        daoCoinToTransferNanos: bytesOf(m.daoCoinToTransferNanos),
        receiverPublicKey: m.receiverPublicKey,
      });
    case 'DAO_COIN_LIMIT_ORDER':
      return Object.assign(new TransactionMetadataDAOCoinLimitOrder(), {
        buyingDAOCoinCreatorPublicKey: m.buyingDAOCoinCreatorPublicKey ?? EMPTY,
        sellingDAOCoinCreatorPublicKey: m.sellingDAOCoinCreatorPublicKey ?? EMPTY,
        scaledExchangeRateCoinsToSellPerCoinToBuy: m.scaledExchangeRateCoinsToSellPerCoinToBuy === null ? EMPTY : bytesOf(m.scaledExchangeRateCoinsToSellPerCoinToBuy, 32),
        quantityToFillInBaseUnits: m.quantityToFillInBaseUnits === null ? EMPTY : bytesOf(m.quantityToFillInBaseUnits, 32),
        operationType: m.operationType,
        fillType: m.fillType,
        cancelOrderID: m.cancelOrderId ?? EMPTY,
        bidderInputs: m.bidderInputs.map((b) =>
          Object.assign(new DeSoInputsByTransactorRecord(), {
            transactorPublicKey: b.transactorPublicKey,
            inputs: b.inputs.map((i) => Object.assign(new TransactionInput(), { id: i.txid, index: num(i.index) })),
          }),
        ),
        feeNanos: num(m.feeNanos),
      });
    case 'ACCESS_GROUP':
      return Object.assign(new TransactionMetadataAccessGroup(), {
        accessGroupOwnerPublicKey: m.ownerPublicKey,
        accessGroupPublicKey: m.accessGroupPublicKey,
        accessGroupKeyName: m.keyName,
        accessGroupOperationType: m.operationType,
      });
    case 'ACCESS_GROUP_MEMBERS':
      return Object.assign(new TransactionMetadataAccessGroupMembers(), {
        accessGroupOwnerPublicKey: m.ownerPublicKey,
        accessGroupKeyName: m.keyName,
        accessGroupMembersList: m.members.map((x) =>
          Object.assign(new AccessGroupMemberRecord(), {
            accessGroupMemberPublicKey: x.memberPublicKey,
            accessGroupMemberKeyName: x.memberKeyName,
            encryptedKey: x.encryptedKey,
            extraData: Object.assign(new TransactionExtraData(), { kvs: x.extraData.map(([k, v]) => new TransactionExtraDataKV(k, v)) }),
          }),
        ),
        accessGroupMemberOperationType: m.operationType,
      });
    case 'MESSAGING_GROUP':
      return Object.assign(new TransactionMetadataMessagingGroup(), {
        messagingPublicKey: m.messagingPublicKey,
        messagingGroupKeyName: m.messagingGroupKeyName,
        groupOwnerSignature: m.groupOwnerSignature,
        MessagingGroupMemberRecords: m.members.map((x) =>
          Object.assign(new MessagingGroupMemberRecord(), { groupMemberPublicKey: x.groupMemberPublicKey, groupMemberKeyName: pad32(x.groupMemberKeyName), encryptedKey: x.encryptedKey }),
        ),
      });
    case 'NEW_MESSAGE':
      return Object.assign(new TransactionMetadataNewMessage(), {
        senderAccessGroupOwnerPublicKey: m.senderAccessGroupOwnerPublicKey,
        senderAccessGroupKeyName: pad32(m.senderAccessGroupKeyName),
        senderAccessGroupPublicKey: m.senderAccessGroupPublicKey,
        recipientAccessGroupOwnerPublicKey: m.recipientAccessGroupOwnerPublicKey,
        recipientAccessGroupKeyname: pad32(m.recipientAccessGroupKeyName),
        recipientAccessGroupPublicKey: m.recipientAccessGroupPublicKey,
        encryptedText: m.encryptedText,
        timestampNanos: num(m.timestampNanos),
        newMessageType: m.newMessageType,
        newMessageOperation: m.newMessageOperation,
      });
    case 'SWAP_IDENTITY':
      return Object.assign(new TransactionMetadataSwapIdentity(), { fromPublicKey: m.fromPublicKey, toPublicKey: m.toPublicKey });
    case 'UPDATE_GLOBAL_PARAMS':
      return new TransactionMetadataUpdateGlobalParams();
    case 'ATOMIC_TXNS_WRAPPER':
      throw new Error('the atomic wrapper is cross-checked in its own block');
  }
}

const orNull = (b: Uint8Array): Uint8Array | null => (b.length === 0 ? null : b);

function fromSdk(type: FuzzedType, o: unknown): TxnMetadata {
  switch (type) {
    case 'BLOCK_REWARD':
      return { type, extraData: (o as TransactionMetadataBlockReward).extraData };
    case 'BASIC_TRANSFER':
      return { type };
    case 'SUBMIT_POST': {
      const s = o as TransactionMetadataSubmitPost;
      return {
        type,
        postHashToModify: s.postHashToModify,
        parentStakeId: s.parentStakeId,
        body: s.body,
        creatorBasisPoints: BigInt(s.creatorBasisPoints),
        stakeMultipleBasisPoints: BigInt(s.stakeMultipleBasisPoints),
        timestampNanos: BigInt(s.timestampNanos),
        isHidden: s.isHidden,
      };
    }
    case 'UPDATE_PROFILE': {
      const s = o as TransactionMetadataUpdateProfile;
      return {
        type,
        profilePublicKey: s.profilePublicKey,
        newUsername: s.newUsername,
        newDescription: s.newDescription,
        newProfilePic: s.newProfilePic,
        newCreatorBasisPoints: BigInt(s.newCreatorBasisPoints),
        newStakeMultipleBasisPoints: BigInt(s.newStakeMultipleBasisPoints),
        isHidden: s.isHidden,
      };
    }
    case 'FOLLOW': {
      const s = o as TransactionMetadataFollow;
      return { type, followedPublicKey: s.followedPublicKey, isUnfollow: s.isUnfollow };
    }
    case 'LIKE': {
      const s = o as TransactionMetadataLike;
      return { type, likedPostHash: s.likedPostHash, isUnlike: s.isUnlike };
    }
    case 'CREATOR_COIN': {
      const s = o as TransactionMetadataCreatorCoin;
      return {
        type,
        profilePublicKey: s.profilePublicKey,
        operationType: s.operationType,
        desoToSellNanos: BigInt(s.desoToSellNanos),
        creatorCoinToSellNanos: BigInt(s.creatorCoinToSellNanos),
        desoToAddNanos: BigInt(s.desoToAddNanos),
        minDesoExpectedNanos: BigInt(s.minDeSoExpectedNanos),
        minCreatorCoinExpectedNanos: BigInt(s.minCreatorCoinExpectedNanos),
      };
    }
    case 'CREATOR_COIN_TRANSFER': {
      const s = o as TransactionMetadataCreatorCoinTransfer;
      return { type, profilePublicKey: s.profilePublicKey, creatorCoinToTransferNanos: BigInt(s.creatorCoinToTransferNanos), receiverPublicKey: s.receiverPublicKey };
    }
    case 'AUTHORIZE_DERIVED_KEY': {
      const s = o as TransactionMetadataAuthorizeDerivedKey;
      return {
        type,
        derivedPublicKey: s.derivedPublicKey,
        expirationBlock: BigInt(s.expirationBlock),
        operationType: s.operationType,
        accessSignature: s.accessSignature,
      };
    }
    case 'DAO_COIN': {
      const s = o as TransactionMetadataDAOCoin;
      return {
        type,
        profilePublicKey: s.profilePublicKey,
        operationType: s.operationType,
        coinsToMintNanos: bigintOf(s.coinsToMintNanos),
        coinsToBurnNanos: bigintOf(s.coinsToBurnNanos),
        transferRestrictionStatus: s.transferRestrictionStatus,
      };
    }
    case 'DAO_COIN_TRANSFER': {
      const s = o as TransactionMetadataTransferDAOCoin;
      return { type, profilePublicKey: s.profilePublicKey, daoCoinToTransferNanos: bigintOf(s.daoCoinToTransferNanos), receiverPublicKey: s.receiverPublicKey };
    }
    case 'DAO_COIN_LIMIT_ORDER': {
      const s = o as TransactionMetadataDAOCoinLimitOrder;
      const rate = orNull(s.scaledExchangeRateCoinsToSellPerCoinToBuy);
      const quantity = orNull(s.quantityToFillInBaseUnits);
      return {
        type,
        buyingDAOCoinCreatorPublicKey: orNull(s.buyingDAOCoinCreatorPublicKey),
        sellingDAOCoinCreatorPublicKey: orNull(s.sellingDAOCoinCreatorPublicKey),
        scaledExchangeRateCoinsToSellPerCoinToBuy: rate === null ? null : bigintOf(rate),
        quantityToFillInBaseUnits: quantity === null ? null : bigintOf(quantity),
        operationType: s.operationType,
        fillType: s.fillType,
        cancelOrderId: orNull(s.cancelOrderID),
        bidderInputs: s.bidderInputs.map((b) => ({
          transactorPublicKey: b.transactorPublicKey,
          inputs: b.inputs.map((i) => ({ txid: i.id, index: BigInt(i.index) })),
        })),
        feeNanos: BigInt(s.feeNanos),
      };
    }
    case 'ACCESS_GROUP': {
      const s = o as TransactionMetadataAccessGroup;
      return {
        type,
        ownerPublicKey: s.accessGroupOwnerPublicKey,
        accessGroupPublicKey: s.accessGroupPublicKey,
        keyName: s.accessGroupKeyName,
        operationType: s.accessGroupOperationType,
      };
    }
    case 'ACCESS_GROUP_MEMBERS': {
      const s = o as TransactionMetadataAccessGroupMembers;
      return {
        type,
        ownerPublicKey: s.accessGroupOwnerPublicKey,
        keyName: s.accessGroupKeyName,
        members: s.accessGroupMembersList.map((x) => ({
          memberPublicKey: x.accessGroupMemberPublicKey,
          memberKeyName: x.accessGroupMemberKeyName,
          encryptedKey: x.encryptedKey,
          extraData: (x.extraData?.kvs ?? []).map((kv): [Uint8Array, Uint8Array] => [kv.key, kv.value]),
        })),
        operationType: s.accessGroupMemberOperationType,
      };
    }
    case 'MESSAGING_GROUP': {
      const s = o as TransactionMetadataMessagingGroup;
      return {
        type,
        messagingPublicKey: s.messagingPublicKey,
        messagingGroupKeyName: s.messagingGroupKeyName,
        groupOwnerSignature: s.groupOwnerSignature,
        members: s.MessagingGroupMemberRecords.map((x) => ({ groupMemberPublicKey: x.groupMemberPublicKey, groupMemberKeyName: unpad(x.groupMemberKeyName), encryptedKey: x.encryptedKey })),
      };
    }
    case 'NEW_MESSAGE': {
      const s = o as TransactionMetadataNewMessage;
      return {
        type,
        senderAccessGroupOwnerPublicKey: s.senderAccessGroupOwnerPublicKey,
        senderAccessGroupKeyName: unpad(s.senderAccessGroupKeyName),
        senderAccessGroupPublicKey: s.senderAccessGroupPublicKey,
        recipientAccessGroupOwnerPublicKey: s.recipientAccessGroupOwnerPublicKey,
        recipientAccessGroupKeyName: unpad(s.recipientAccessGroupKeyname),
        recipientAccessGroupPublicKey: s.recipientAccessGroupPublicKey,
        encryptedText: s.encryptedText,
        timestampNanos: BigInt(s.timestampNanos),
        newMessageType: s.newMessageType,
        newMessageOperation: s.newMessageOperation,
      };
    }
    case 'SWAP_IDENTITY': {
      const s = o as TransactionMetadataSwapIdentity;
      return { type, fromPublicKey: s.fromPublicKey, toPublicKey: s.toPublicKey };
    }
    case 'UPDATE_GLOBAL_PARAMS':
      return { type };
  }
}

function sdkDecode(type: FuzzedType, bytes: Uint8Array): TxnMetadata {
  const [o, rest] = SDK_CLASS[type].fromBytes(bytes);
  assert.equal(rest.length, 0, `${type}: the SDK left ${rest.length} bytes unread`);
  return fromSdk(type, o);
}

// ---------------------------------------------------------------------------------------------

describe('TxnType', () => {
  it('numbers the types as §5.2 does and names them', () => {
    assert.deepEqual(
      { ...TxnType },
      {
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
      },
    );
    for (const [name, n] of Object.entries(TxnType)) assert.equal(txnTypeName(n), name);
    assert.equal(txnTypeName(3), 'UNKNOWN(3)');
    assert.equal(txnTypeName(0), 'UNKNOWN(0)');
  });
});

describe('metadata codecs agree with the deso-protocol SDK transcoders', () => {
  const INSTANCES = 50;
  TYPES.forEach((type, t) => {
    it(`${type}: SDK bytes → decode → encode is the identity, ${INSTANCES} random instances`, () => {
      const g: Gen = { r: new Rand(0x5d0 + t), mode: 'sdk', long: true };
      for (let i = 0; i < INSTANCES; i++) {
        const m = generate(type, g);
        const sdkBytes = toSdk(m).toBytes();
        const decoded = decodeMetadata(TxnType[type], sdkBytes);
        assert.deepEqual(decoded, m, `${type} #${i}: decoded fields`);
        assert.equal(hex(encodeMetadata(decoded)), hex(sdkBytes), `${type} #${i}: re-encoded bytes`);
      }
    });
    it(`${type}: encode → SDK fromBytes gives the same fields and bytes, ${INSTANCES} random instances`, () => {
      const g: Gen = { r: new Rand(0xa11 + t), mode: 'sdk', long: true };
      for (let i = 0; i < INSTANCES; i++) {
        const m = generate(type, g);
        const ours = encodeMetadata(m);
        assert.deepEqual(sdkDecode(type, ours), m, `${type} #${i}: SDK-decoded fields`);
        assert.equal(hex(toSdk(m).toBytes()), hex(ours), `${type} #${i}: SDK bytes`);
      }
    });
    it(`${type}: full-range values (2^64-1, 2^256-1, enums to 255) round-trip, ${INSTANCES} random instances`, () => {
      const g: Gen = { r: new Rand(0xf00 + t), mode: 'full', long: true };
      for (let i = 0; i < INSTANCES; i++) {
        const m = generate(type, g);
        const bytes = encodeMetadata(m);
        assert.deepEqual(decodeMetadata(TxnType[type], bytes), m, `${type} #${i}: round trip`);
      }
    });
  });
});

describe('metadata layouts, byte for byte', () => {
  const P = `02${'11'.repeat(32)}`;
  const Q = `03${'22'.repeat(32)}`;
  const H = 'ab'.repeat(32);

  function check(m: TxnMetadata, expectedHex: string): void {
    assert.equal(hex(encodeMetadata(m)), expectedHex, `${m.type}: encoding`);
    assert.deepEqual(decodeMetadata(TxnType[m.type], hexToBytes(expectedHex)), m, `${m.type}: decoding`);
  }

  it('BASIC_TRANSFER is empty; BLOCK_REWARD is bytes(extraData)', () => {
    check({ type: 'BASIC_TRANSFER' }, '');
    check({ type: 'BLOCK_REWARD', extraData: hexToBytes(uv(123456789)) }, `04${uv(123456789)}`);
    check({ type: 'BLOCK_REWARD', extraData: new Uint8Array(250).fill(7) }, `fa01${'07'.repeat(250)}`);
  });

  it('SUBMIT_POST and UPDATE_PROFILE with every uint64 at 2^64-1', () => {
    check(
      {
        type: 'SUBMIT_POST',
        postHashToModify: hexToBytes(H),
        parentStakeId: EMPTY,
        body: utf8('{"Body":"hi"}'),
        creatorBasisPoints: U64_MAX,
        stakeMultipleBasisPoints: U64_MAX,
        timestampNanos: U64_MAX,
        isHidden: true,
      },
      `20${H}00${'0d'}${hex(Buffer.from('{"Body":"hi"}'))}${FF9}${FF9}${FF9}01`,
    );
    check(
      {
        type: 'UPDATE_PROFILE',
        profilePublicKey: EMPTY,
        newUsername: utf8('bob'),
        newDescription: EMPTY,
        newProfilePic: EMPTY,
        newCreatorBasisPoints: 1000n,
        newStakeMultipleBasisPoints: U64_MAX,
        isHidden: false,
      },
      `0003${hex(Buffer.from('bob'))}0000${uv(1000)}${FF9}00`,
    );
  });

  it('FOLLOW and LIKE are raw fixed-size key/hash then a bool byte', () => {
    check({ type: 'FOLLOW', followedPublicKey: hexToBytes(P), isUnfollow: true }, `${P}01`);
    check({ type: 'LIKE', likedPostHash: hexToBytes(H), isUnlike: false }, `${H}00`);
  });

  it('CREATOR_COIN and AUTHORIZE_DERIVED_KEY carry their operation type as one raw byte', () => {
    check(
      {
        type: 'CREATOR_COIN',
        profilePublicKey: hexToBytes(P),
        operationType: 2,
        desoToSellNanos: 0n,
        creatorCoinToSellNanos: 1n,
        desoToAddNanos: U64_MAX,
        minDesoExpectedNanos: 300n,
        minCreatorCoinExpectedNanos: 0n,
      },
      `21${P}020001${FF9}${uv(300)}00`,
    );
    // 200 as a uvarint would be c801; here it is the single byte c8.
    check(
      { type: 'AUTHORIZE_DERIVED_KEY', derivedPublicKey: hexToBytes(P), expirationBlock: 300n, operationType: 200, accessSignature: hexToBytes('3006020101020101') },
      `21${P}${uv(300)}c8083006020101020101`,
    );
  });

  it('CREATOR_COIN_TRANSFER is bytes(creator) ‖ uvarint amount ‖ bytes(receiver), type 14', () => {
    check({ type: 'CREATOR_COIN_TRANSFER', profilePublicKey: hexToBytes(P), creatorCoinToTransferNanos: 300n, receiverPublicKey: hexToBytes(Q) }, `21${P}${uv(300)}21${Q}`);
    check({ type: 'CREATOR_COIN_TRANSFER', profilePublicKey: hexToBytes(P), creatorCoinToTransferNanos: U64_MAX, receiverPublicKey: hexToBytes(Q) }, `21${P}${FF9}21${Q}`);
    assertDecodeError(TxnType.CREATOR_COIN_TRANSFER, hexToBytes(`21${P}0a20${'11'.repeat(32)}`), 'CREATOR_COIN_TRANSFER.receiverPublicKey: expected 33 bytes, got 32');
  });

  it('DAO_COIN / DAO_COIN_TRANSFER write uint256 amounts as bytes(minimal big-endian)', () => {
    check(
      {
        type: 'DAO_COIN',
        profilePublicKey: hexToBytes(P),
        operationType: 0,
        coinsToMintNanos: U256_MAX,
        coinsToBurnNanos: 0n,
        transferRestrictionStatus: 3,
      },
      `21${P}0020${'ff'.repeat(32)}0003`,
    );
    check(
      { type: 'DAO_COIN_TRANSFER', profilePublicKey: hexToBytes(P), daoCoinToTransferNanos: 10n ** 18n, receiverPublicKey: hexToBytes(Q) },
      `21${P}080de0b6b3a764000021${Q}`,
    );
  });

  it('DAO_COIN_LIMIT_ORDER: optPk / u256 / optHash, uvarint op and fill, bidder inputs, fee', () => {
    // A cancel: both pks nil, rate and quantity nil, op/fill 0.
    check(
      {
        type: 'DAO_COIN_LIMIT_ORDER',
        buyingDAOCoinCreatorPublicKey: null,
        sellingDAOCoinCreatorPublicKey: null,
        scaledExchangeRateCoinsToSellPerCoinToBuy: null,
        quantityToFillInBaseUnits: null,
        operationType: 0,
        fillType: 0,
        cancelOrderId: hexToBytes(H),
        bidderInputs: [],
        feeNanos: 1000n,
      },
      `00000000000020${H}00${uv(1000)}`,
    );
    // A BID buying DESO (33 zero bytes), op 200 as a uvarint, one bidder with one input.
    check(
      {
        type: 'DAO_COIN_LIMIT_ORDER',
        buyingDAOCoinCreatorPublicKey: new Uint8Array(33),
        sellingDAOCoinCreatorPublicKey: hexToBytes(P),
        scaledExchangeRateCoinsToSellPerCoinToBuy: 10n ** 38n,
        quantityToFillInBaseUnits: 1n,
        operationType: 200,
        fillType: 3,
        cancelOrderId: null,
        bidderInputs: [{ transactorPublicKey: hexToBytes(Q), inputs: [{ txid: hexToBytes(H), index: U32_MAX }] }],
        feeNanos: U64_MAX,
      },
      `21${'00'.repeat(33)}21${P}20${hex(bytesOf(10n ** 38n, 32))}20${hex(bytesOf(1n, 32))}c8010300` +
        `01${Q}01${H}${uv(U32_MAX)}${FF9}`,
    );
  });

  it('ACCESS_GROUP / ACCESS_GROUP_MEMBERS: raw names, uvarint operation types, member ExtraData', () => {
    const name = hex(Buffer.from('friends'));
    check(
      { type: 'ACCESS_GROUP', ownerPublicKey: hexToBytes(P), accessGroupPublicKey: hexToBytes(Q), keyName: utf8('friends'), operationType: 2 },
      `21${P}21${Q}07${name}02`,
    );
    check(
      { type: 'ACCESS_GROUP', ownerPublicKey: hexToBytes(P), accessGroupPublicKey: hexToBytes(Q), keyName: utf8('friends'), operationType: 130 },
      `21${P}21${Q}07${name}8201`,
    );
    check(
      {
        type: 'ACCESS_GROUP_MEMBERS',
        ownerPublicKey: hexToBytes(P),
        keyName: utf8('friends'),
        members: [
          { memberPublicKey: hexToBytes(Q), memberKeyName: utf8('default-key'), encryptedKey: hexToBytes('beef'), extraData: [[utf8('a'), utf8('1')], [utf8('b'), EMPTY]] },
        ],
        operationType: 2,
      },
      `21${P}07${name}01` + `21${Q}0b${hex(Buffer.from('default-key'))}02beef` + `02016101310162` + `00` + `02`,
    );
  });

  it('MESSAGING_GROUP: raw key, name and signature, members with 32-byte padded key names (core MessagingGroupMetadata.ToBytes)', () => {
    const pad = (s: string): string => hex(pad32(Buffer.from(s)));
    check(
      {
        type: 'MESSAGING_GROUP',
        messagingPublicKey: hexToBytes(Q),
        messagingGroupKeyName: utf8('default-key'),
        groupOwnerSignature: hexToBytes('3006020101020101'),
        members: [
          { groupMemberPublicKey: hexToBytes(P), groupMemberKeyName: EMPTY, encryptedKey: hexToBytes('ab'.repeat(32)) },
          { groupMemberPublicKey: hexToBytes(Q), groupMemberKeyName: utf8('default-key'), encryptedKey: EMPTY },
        ],
      },
      `21${Q}0b${hex(Buffer.from('default-key'))}083006020101020101` + `02` + `21${P}20${'00'.repeat(32)}20${'ab'.repeat(32)}` + `21${Q}20${pad('default-key')}00`,
    );
    check({ type: 'MESSAGING_GROUP', messagingPublicKey: EMPTY, messagingGroupKeyName: EMPTY, groupOwnerSignature: EMPTY, members: [] }, '00000000');
    // A member name not padded to 32 bytes re-serializes differently in core: refused.
    assertDecodeError(TxnType.MESSAGING_GROUP, hexToBytes(`000000` + `01` + `21${P}02${hex(Buffer.from('ab'))}28${'ab'.repeat(40)}`), 'MESSAGING_GROUP.members[0].groupMemberKeyName: expected 32 bytes, got 2');
    assertDecodeError(TxnType.MESSAGING_GROUP, hexToBytes(`000000` + `01` + `20${P.slice(2)}20${'00'.repeat(32)}00${'00'.repeat(8)}`), 'MESSAGING_GROUP.members[0].groupMemberPublicKey: expected 33 bytes, got 32');
  });

  it('NEW_MESSAGE pads key names to 32 bytes on the wire and strips the padding when decoding', () => {
    const pad = (s: string): string => hex(pad32(Buffer.from(s)));
    const m: TxnMetadataOf<'NEW_MESSAGE'> = {
      type: 'NEW_MESSAGE',
      senderAccessGroupOwnerPublicKey: hexToBytes(P),
      senderAccessGroupKeyName: utf8('default-key'),
      senderAccessGroupPublicKey: hexToBytes(Q),
      recipientAccessGroupOwnerPublicKey: hexToBytes(Q),
      recipientAccessGroupKeyName: EMPTY, // the base group: 32 zero bytes
      recipientAccessGroupPublicKey: hexToBytes(P),
      encryptedText: hexToBytes('00112233'),
      timestampNanos: 1_700_000_000_000_000_000n,
      newMessageType: 1,
      newMessageOperation: 0,
    };
    check(m, `21${P}20${pad('default-key')}21${Q}21${Q}20${'00'.repeat(32)}21${P}0400112233${uv(1_700_000_000_000_000_000n)}0100`);
    // Trailing zero bytes of a name are padding: they do not survive a round trip.
    const withZero = { ...m, senderAccessGroupKeyName: Buffer.from('default-key\0') };
    assert.equal(hex(encodeMetadata(withZero)), hex(encodeMetadata(m)), 'a trailing zero is indistinguishable from padding');
  });
});

describe('metadata of the SDK vector transactions', () => {
  interface TxnVector {
    description: string;
    txnType: string;
    unsignedTxHex: string;
    signedTxHex: string;
    signerPublicKeyCompressedHex: string;
  }
  interface DerivedKeyAuthorization {
    derivedPublicKeyBase58Check: string;
    expirationBlock: number;
    accessSignatureDerHex: string;
  }
  const V = readSharedVectors<{ transactions: TxnVector[]; derivedKeyAuthorization: DerivedKeyAuthorization }>('sdk-vectors.json');

  for (const v of V.transactions) {
    it(`${v.description}: decodes as ${v.txnType} and re-encodes to the same bytes`, () => {
      for (const txHex of [v.unsignedTxHex, v.signedTxHex]) {
        const txn = decodeTxn(hexToBytes(txHex));
        assert.equal(txnTypeName(txn.txnType), v.txnType);
        const m = decodeMetadata(txn.txnType, txn.metadata);
        assert.equal(m.type, v.txnType);
        assert.equal(hex(encodeMetadata(m)), hex(txn.metadata));
        assert.notEqual(m.type, 'ATOMIC_TXNS_WRAPPER', 'the vectors hold no atomic wrapper');
        if (m.type !== 'ATOMIC_TXNS_WRAPPER') assert.deepEqual(m, sdkDecode(m.type, txn.metadata), 'the SDK reads the same fields');
      }
    });
  }

  it('the AUTHORIZE_DERIVED_KEY metadata carries the derivedKeyAuthorization fields', () => {
    const v = V.transactions.find((t) => t.txnType === 'AUTHORIZE_DERIVED_KEY');
    assert.ok(v !== undefined, 'the vectors include an AUTHORIZE_DERIVED_KEY transaction');
    const txn = decodeTxn(hexToBytes(v.unsignedTxHex));
    const m = decodeMetadata(txn.txnType, txn.metadata);
    assert.equal(m.type, 'AUTHORIZE_DERIVED_KEY');
    if (m.type !== 'AUTHORIZE_DERIVED_KEY') return;
    const dka = V.derivedKeyAuthorization;
    assert.equal(hex(m.derivedPublicKey), hex(bs58PublicKeyToCompressedBytes(dka.derivedPublicKeyBase58Check)));
    assert.equal(hex(m.derivedPublicKey), v.signerPublicKeyCompressedHex, 'signed by the key it authorizes');
    assert.equal(m.expirationBlock, BigInt(dka.expirationBlock));
    assert.equal(m.operationType, 1, 'operation: valid');
    assert.equal(hex(m.accessSignature), dka.accessSignatureDerHex);
  });

  it('the FOLLOW metadata names the followed key', () => {
    const v = V.transactions.find((t) => t.txnType === 'FOLLOW');
    assert.ok(v !== undefined, 'the vectors include a FOLLOW transaction');
    const m = decodeMetadata(TxnType.FOLLOW, decodeTxn(hexToBytes(v.unsignedTxHex)).metadata);
    assert.deepEqual(m, { type: 'FOLLOW', followedPublicKey: hexToBytes('036c1636dbe977c1dc5d2e05aadc8759b6fad7441262220f8439e57342c9ca66f1'), isUnfollow: false });
  });
});

describe('decodeMetadata refuses malformed metadata with a TxnDecodeError naming the field', () => {
  const P = `02${'11'.repeat(32)}`;
  const H = 'ab'.repeat(32);
  const sample = (type: FuzzedType, seed: number): Uint8Array => encodeMetadata(generate(type, { r: new Rand(seed), mode: 'full', long: false }));

  it('at every truncation point of random instances of every type', () => {
    TYPES.forEach((type, t) => {
      for (let k = 0; k < 5; k++) {
        const bytes = sample(type, 0x7c0 + 16 * t + k);
        for (let n = 0; n < bytes.length; n++) assertDecodeError(TxnType[type], bytes.subarray(0, n), new RegExp(`^${type}\\.`));
      }
    });
  });

  it('with trailing bytes', () => {
    for (const type of TYPES) assertDecodeError(TxnType[type], cat(sample(type, 0x99), '00'), `${type}: 1 trailing bytes`);
    assertDecodeError(TxnType.BASIC_TRANSFER, hexToBytes('0102'), 'BASIC_TRANSFER: 2 trailing bytes');
  });

  it('NEW_MESSAGE key names that are not padded to 32 bytes (as the SDK builds them locally)', () => {
    const sdk = Object.assign(new TransactionMetadataNewMessage(), {
      senderAccessGroupOwnerPublicKey: hexToBytes(P),
      senderAccessGroupKeyName: utf8('alice'),
      senderAccessGroupPublicKey: hexToBytes(P),
      recipientAccessGroupOwnerPublicKey: hexToBytes(P),
      recipientAccessGroupKeyname: pad32(utf8('bob')),
      recipientAccessGroupPublicKey: hexToBytes(P),
      encryptedText: hexToBytes('00'),
      timestampNanos: 1,
    });
    assertDecodeError(TxnType.NEW_MESSAGE, sdk.toBytes(), 'NEW_MESSAGE.senderAccessGroupKeyName: expected 32 bytes, got 5');
    sdk.senderAccessGroupKeyName = pad32(utf8('alice'));
    sdk.recipientAccessGroupKeyname = new Uint8Array(33);
    assertDecodeError(TxnType.NEW_MESSAGE, sdk.toBytes(), 'NEW_MESSAGE.recipientAccessGroupKeyName: expected 32 bytes, got 33');
    sdk.recipientAccessGroupKeyname = EMPTY;
    assertDecodeError(TxnType.NEW_MESSAGE, sdk.toBytes(), 'NEW_MESSAGE.recipientAccessGroupKeyName: expected 32 bytes, got 0');
    sdk.recipientAccessGroupKeyname = pad32(EMPTY);
    assert.equal(decodeMetadata(TxnType.NEW_MESSAGE, sdk.toBytes()).type, 'NEW_MESSAGE', 'padded names decode');
  });

  it('lengths beyond the data or beyond the field maximum', () => {
    assertDecodeError(TxnType.SUBMIT_POST, hexToBytes(FF9), /^SUBMIT_POST\.postHashToModify: length 18446744073709551615 exceeds the maximum of \d+$/);
    assertDecodeError(TxnType.SUBMIT_POST, hexToBytes('0000' + '64' + '010203'), 'SUBMIT_POST.body: length 100 exceeds the 3 bytes left');
    assertDecodeError(TxnType.BLOCK_REWARD, cat('fb01', new Uint8Array(251)), 'BLOCK_REWARD.extraData: length 251 exceeds the maximum of 250');
    assertDecodeError(TxnType.ACCESS_GROUP, hexToBytes(`21${P}21${P}21${'61'.repeat(33)}02`), 'ACCESS_GROUP.keyName: length 33 exceeds the maximum of 32');
    assertDecodeError(TxnType.ACCESS_GROUP_MEMBERS, hexToBytes(`21${P}00ffff0302`), /^ACCESS_GROUP_MEMBERS\.members: count 65535 exceeds the 1 bytes left$/);
    assertDecodeError(TxnType.DAO_COIN_LIMIT_ORDER, hexToBytes(`00000000010100 05 00`.replaceAll(' ', '')), /^DAO_COIN_LIMIT_ORDER\.bidderInputs: count 5 exceeds/);
    assertDecodeError(TxnType.DAO_COIN, hexToBytes(`21${P}0021${'01'.repeat(33)}0000`), 'DAO_COIN.coinsToMintNanos: length 33 exceeds the maximum of 32');
    const big = new Uint8Array(MAX_METADATA_BYTES + 1);
    assertDecodeError(TxnType.SUBMIT_POST, big, `SUBMIT_POST: ${MAX_METADATA_BYTES + 1} bytes exceeds MAX_METADATA_BYTES`);
  });

  it('public keys of the wrong length; UPDATE_PROFILE alone may leave its key empty', () => {
    assertDecodeError(TxnType.CREATOR_COIN, hexToBytes(`20${'11'.repeat(32)}00` + '0000000000'), 'CREATOR_COIN.profilePublicKey: expected 33 bytes, got 32');
    assertDecodeError(TxnType.AUTHORIZE_DERIVED_KEY, hexToBytes('00' + '01' + '01' + '00'), 'AUTHORIZE_DERIVED_KEY.derivedPublicKey: expected 33 bytes, got 0');
    assertDecodeError(TxnType.ACCESS_GROUP, hexToBytes(`21${P}00020102`), 'ACCESS_GROUP.accessGroupPublicKey: expected 33 bytes, got 0');
    assertDecodeError(TxnType.DAO_COIN_TRANSFER, hexToBytes(`21${P}0101` + `22${'11'.repeat(34)}`), 'DAO_COIN_TRANSFER.receiverPublicKey: expected 33 bytes, got 34');
    assertDecodeError(TxnType.UPDATE_PROFILE, hexToBytes(`20${'11'.repeat(32)}000000000000`), 'UPDATE_PROFILE.profilePublicKey: expected 0 or 33 bytes, got 32');
    const self = decodeMetadata(TxnType.UPDATE_PROFILE, hexToBytes('00000000000000'));
    assert.equal(self.type === 'UPDATE_PROFILE' && self.profilePublicKey.length, 0, 'empty profile key means the transactor');
  });

  it('non-canonical spellings core would re-serialize differently', () => {
    // Non-minimal uvarint: 0 written as 80 00.
    assertDecodeError(TxnType.SUBMIT_POST, hexToBytes('8000'), 'SUBMIT_POST.postHashToModify: uvarint is not minimally encoded');
    assertDecodeError(TxnType.FOLLOW, hexToBytes(`${P}02`), 'FOLLOW.isUnfollow: expected a bool byte 0 or 1, got 2');
    assertDecodeError(TxnType.LIKE, hexToBytes(`${H}ff`), 'LIKE.isUnlike: expected a bool byte 0 or 1, got 255');
    assertDecodeError(TxnType.DAO_COIN, hexToBytes(`21${P}00020001` + '00' + '00'), 'DAO_COIN.coinsToMintNanos: uint256 has a leading zero byte (not minimal)');
    assertDecodeError(TxnType.DAO_COIN_LIMIT_ORDER, hexToBytes(`20${'00'.repeat(32)}`), 'DAO_COIN_LIMIT_ORDER.buyingDAOCoinCreatorPublicKey: expected a length of 0 or 33, got 32');
    assertDecodeError(TxnType.DAO_COIN_LIMIT_ORDER, hexToBytes(`000001ff`), 'DAO_COIN_LIMIT_ORDER.scaledExchangeRateCoinsToSellPerCoinToBuy: expected a length of 0 or 32, got 1');
    assertDecodeError(TxnType.DAO_COIN_LIMIT_ORDER, hexToBytes(`000000000101${'21'}${'00'.repeat(33)}`), 'DAO_COIN_LIMIT_ORDER.cancelOrderId: expected a length of 0 or 32, got 33');
    assertDecodeError(TxnType.DAO_COIN_LIMIT_ORDER, EMPTY, /^DAO_COIN_LIMIT_ORDER\.buyingDAOCoinCreatorPublicKey: unexpected end/);
    assertDecodeError(TxnType.ACCESS_GROUP, hexToBytes(`21${P}21${P}00${uv(256)}`), 'ACCESS_GROUP.operationType: 256 exceeds 255');
    const message = { ...(generate('NEW_MESSAGE', { r: new Rand(1), mode: 'full', long: false }) as TxnMetadataOf<'NEW_MESSAGE'>), newMessageOperation: 0 };
    assertDecodeError(TxnType.NEW_MESSAGE, cat(encodeMetadata(message).subarray(0, -1), uv(300)), 'NEW_MESSAGE.newMessageOperation: 300 exceeds 255');
    assertDecodeError(
      TxnType.DAO_COIN_LIMIT_ORDER,
      hexToBytes(`00000000010100` + `01${P}01${H}${uv(1n << 32n)}` + `01`),
      'DAO_COIN_LIMIT_ORDER.bidderInputs[0].inputs[0].index: 4294967296 exceeds 2^32-1',
    );
    const member = (kvs: string): Uint8Array => hexToBytes(`21${P}00` + `01` + `21${P}0000${kvs}` + `02`);
    assert.equal(decodeMetadata(TxnType.ACCESS_GROUP_MEMBERS, member('02016100016200')).type, 'ACCESS_GROUP_MEMBERS', 'ascending keys decode');
    assertDecodeError(TxnType.ACCESS_GROUP_MEMBERS, member('02016200016100'), 'ACCESS_GROUP_MEMBERS.members[0].extraData[1].key: keys are not in strictly ascending byte order');
    assertDecodeError(TxnType.ACCESS_GROUP_MEMBERS, member('02016100016100'), 'ACCESS_GROUP_MEMBERS.members[0].extraData[1].key: keys are not in strictly ascending byte order');
  });

  it('unknown and unsupported transaction types', () => {
    assertDecodeError(0, EMPTY, 'txn type 0: not a known transaction type');
    assertDecodeError(3, EMPTY, 'txn type 3: not a known transaction type');
    assertDecodeError(99, EMPTY, 'txn type 99: not a known transaction type');
    assertDecodeError(-1, EMPTY, 'txn type -1: not a known transaction type');
    assertDecodeError(1.5, EMPTY, 'txn type 1.5: not a known transaction type');
    assertDecodeError(Number.NaN, EMPTY, 'txn type NaN: not a known transaction type');
    for (const name of ['PRIVATE_MESSAGE'] as const) {
      assertDecodeError(TxnType[name], EMPTY, `txn type ${name} (${TxnType[name]}): decoding its metadata is not supported`);
    }
    assertDecodeError(TxnType.BASIC_TRANSFER, 'not bytes' as unknown as Uint8Array, 'BASIC_TRANSFER: metadata must be a Uint8Array');
  });
});

describe('encodeMetadata refuses values with no wire form (RangeError naming the field)', () => {
  const g = (seed: number): Gen => ({ r: new Rand(seed), mode: 'full', long: false });
  const base = <T extends FuzzedType>(type: T): TxnMetadataOf<T> => generate(type, g(7)) as TxnMetadataOf<T>;

  function assertRange(m: unknown, re: RegExp): void {
    assert.throws(() => encodeMetadata(m as TxnMetadata), (e: unknown) => {
      assert.ok(e instanceof RangeError, `expected a RangeError, got ${String(e)}`);
      assert.match(e.message, re);
      return true;
    });
  }

  it('wrong key and hash lengths', () => {
    assertRange({ ...base('FOLLOW'), followedPublicKey: new Uint8Array(32) }, /^FOLLOW\.followedPublicKey: expected 33 bytes, got 32$/);
    assertRange({ ...base('LIKE'), likedPostHash: new Uint8Array(33) }, /^LIKE\.likedPostHash: expected 32 bytes, got 33$/);
    assertRange({ ...base('UPDATE_PROFILE'), profilePublicKey: new Uint8Array(20) }, /^UPDATE_PROFILE\.profilePublicKey: expected 0 or 33 bytes, got 20$/);
    assertRange({ ...base('CREATOR_COIN'), profilePublicKey: EMPTY }, /^CREATOR_COIN\.profilePublicKey: expected 33 bytes, got 0$/);
    assertRange({ ...base('DAO_COIN_LIMIT_ORDER'), cancelOrderId: new Uint8Array(31) }, /^DAO_COIN_LIMIT_ORDER\.cancelOrderId: expected 32 bytes, got 31$/);
    assertRange({ ...base('NEW_MESSAGE'), senderAccessGroupKeyName: new Uint8Array(33).fill(97) }, /^NEW_MESSAGE\.senderAccessGroupKeyName: 33 bytes exceeds the maximum of 32$/);
    assertRange({ ...base('ACCESS_GROUP'), keyName: 'friends' }, /^ACCESS_GROUP\.keyName: expected a Uint8Array$/);
    assertRange({ ...base('BLOCK_REWARD'), extraData: new Uint8Array(251) }, /^BLOCK_REWARD\.extraData: 251 bytes exceeds the maximum of 250$/);
  });

  it('amounts and enums out of range', () => {
    assertRange({ ...base('SUBMIT_POST'), timestampNanos: U64_MAX + 1n }, /^SUBMIT_POST\.timestampNanos: expected a bigint 0\.\.18446744073709551615/);
    assertRange({ ...base('SUBMIT_POST'), timestampNanos: 5 }, /^SUBMIT_POST\.timestampNanos: expected a bigint/);
    assertRange({ ...base('SUBMIT_POST'), isHidden: 1 }, /^SUBMIT_POST\.isHidden: expected a boolean/);
    assertRange({ ...base('DAO_COIN'), coinsToBurnNanos: U256_MAX + 1n }, /^DAO_COIN\.coinsToBurnNanos: expected a bigint 0\.\.2\^256-1/);
    assertRange({ ...base('DAO_COIN_TRANSFER'), daoCoinToTransferNanos: -1n }, /^DAO_COIN_TRANSFER\.daoCoinToTransferNanos: expected a bigint/);
    assertRange({ ...base('CREATOR_COIN'), operationType: 256 }, /^CREATOR_COIN\.operationType: expected an integer 0\.\.255, got 256$/);
    assertRange({ ...base('ACCESS_GROUP_MEMBERS'), operationType: 1.5 }, /^ACCESS_GROUP_MEMBERS\.operationType: expected an integer 0\.\.255/);
    const order = base('DAO_COIN_LIMIT_ORDER');
    assertRange(
      { ...order, bidderInputs: [{ transactorPublicKey: new Uint8Array(33), inputs: [{ txid: new Uint8Array(32), index: 1n << 32n }] }] },
      /^DAO_COIN_LIMIT_ORDER\.bidderInputs\[0\]\.inputs\[0\]\.index: expected a bigint 0\.\.4294967295/,
    );
    assertRange({ type: 'PRIVATE_MESSAGE' }, /^metadata type: PRIVATE_MESSAGE is not supported$/);
    assertRange(null, /^metadata type: undefined is not supported$/);
  });

  it('member ExtraData: written sorted by key bytes, duplicates refused', () => {
    const m = base('ACCESS_GROUP_MEMBERS');
    const member = { memberPublicKey: new Uint8Array(33).fill(2), memberKeyName: EMPTY, encryptedKey: EMPTY };
    const a: [Uint8Array, Uint8Array] = [Buffer.from('a'), Buffer.from('1')];
    const b: [Uint8Array, Uint8Array] = [Buffer.from('b'), Buffer.from('2')];
    const sorted = encodeMetadata({ ...m, members: [{ ...member, extraData: [a, b] }] });
    assert.equal(hex(encodeMetadata({ ...m, members: [{ ...member, extraData: [b, a] }] })), hex(sorted), 'unsorted input is written in key order');
    assertRange({ ...m, members: [{ ...member, extraData: [a, b, [Buffer.from('a'), EMPTY]] }] }, /^ACCESS_GROUP_MEMBERS\.members\[0\]\.extraData: duplicate key 61$/);
  });
});

describe('decodeMetadata under fuzzing throws nothing but TxnDecodeError', () => {
  const PER_TYPE = 5000;
  const INTERESTING = [0x00, 0x01, 0x02, 0x20, 0x21, 0x7f, 0x80, 0xfe, 0xff];

  function mutate(r: Rand, corpus: Uint8Array[]): Uint8Array {
    const src = r.pick(corpus);
    const b = Uint8Array.from(src);
    const at = (): number => r.int(Math.max(1, b.length));
    switch (r.int(8)) {
      case 0:
        return r.bytes(r.int(80));
      case 1: {
        for (let k = 1 + r.int(3); k > 0 && b.length > 0; k--) {
          const i = at();
          b[i] = (b[i] ?? 0) ^ (1 << r.int(8));
        }
        return b;
      }
      case 2:
        return b.subarray(0, r.int(b.length + 1));
      case 3:
        return cat(b, r.bytes(1 + r.int(8)));
      case 4: {
        const i = r.int(b.length + 1);
        return cat(b.subarray(0, i), r.bytes(1 + r.int(12)), b.subarray(i));
      }
      case 5: {
        if (b.length > 0) b[at()] = r.pick(INTERESTING);
        return b;
      }
      case 6: {
        const i = at();
        return cat(b.subarray(0, i), b.subarray(i + 1 + r.int(4)));
      }
      default: {
        // A huge or awkward uvarint spliced in where a length might be.
        const i = r.int(b.length + 1);
        return cat(b.subarray(0, i), r.pick(['ffffffffffffffffff01', 'ffffffffffffffffff7f', '8080808080808080808001', '80', 'ff7f', '8000']), b.subarray(i));
      }
    }
  }

  TYPES.forEach((type, t) => {
    it(`${type}: ${PER_TYPE} random and mutated inputs; whatever decodes re-encodes to the same bytes`, () => {
      const r = new Rand(0xf22 + t);
      const corpus = Array.from({ length: 24 }, (_, i) => encodeMetadata(generate(type, { r: new Rand(0xc0 + 64 * t + i), mode: 'full', long: false })));
      let decoded = 0;
      for (let i = 0; i < PER_TYPE; i++) {
        const input = mutate(r, corpus);
        let m: TxnMetadata;
        try {
          m = decodeMetadata(TxnType[type], input);
        } catch (e) {
          if (!isTxnDecodeError(e)) assert.fail(`${type} fuzz #${i} input ${hex(input)} threw ${String(e)}`);
          continue;
        }
        decoded++;
        assert.equal(hex(encodeMetadata(m)), hex(input), `${type} fuzz #${i}: accepted bytes are canonical`);
      }
      assert.ok(decoded > 0 || type === 'BASIC_TRANSFER', `${type}: some mutated inputs still decode (got ${decoded})`);
    });
  });

  it('random bytes under every type number 0..300 and odd numbers', () => {
    const r = new Rand(0xabc);
    const types = [...Array.from({ length: 301 }, (_, i) => i), -1, 2 ** 53, Number.NaN, Infinity, 0.5];
    for (const n of types) {
      for (let k = 0; k < 8; k++) {
        const input = r.bytes(r.int(48));
        try {
          decodeMetadata(n, input);
        } catch (e) {
          if (!isTxnDecodeError(e)) assert.fail(`type ${n} input ${hex(input)} threw ${String(e)}`);
        }
      }
    }
  });
});
