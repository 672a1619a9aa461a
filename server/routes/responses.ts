/**
 * Response schemas shared by several areas (schema.ts `out`): the reference's entry
 * responses (ProfileEntryResponse, PostEntryResponse, …) as the social services build them,
 * each published once under `components.schemas` and checked against every answer that embeds
 * it under `--check-responses`. A route's own response schema sits next to its body schema in
 * its route file.
 *
 * Amounts are Go uint64 (JSON numbers); byte arrays of transactions are base64, as Go's
 * encoding/json writes []byte; Go nil maps and slices are null.
 * @module
 */
import { TRANSFER_RESTRICTION_STATUS_NAMES } from '../chain/state/daoCoins.js';
import { out, type ResponseSchema } from '../schema.js';

const ref = (name: string): ResponseSchema => ({ json: { $ref: `#/components/schemas/${name}` } });

/** Transaction and profile ExtraData as text (typed keys decoded); null when empty where so noted. */
export const extraDataTextSchema = out.record(out.string(), 'ExtraData: keys and values as UTF-8 text (typed keys such as DerivedPublicKey decoded)');

// --- transactions -----------------------------------------------------------------------------

/** MsgDeSoTxn as Go's encoding/json writes it (chain/json.ts txnJson). */
export const transactionSchema = out.named(
  'Transaction',
  out.object(
    {
      TxInputs: out.array(out.object({ TxID: out.array(out.int(), '32 bytes as numbers (a Go [32]byte)'), Index: out.int() })),
      TxOutputs: out.array(out.object({ PublicKey: out.base64('33-byte public key'), AmountNanos: out.uint64() })),
      TxnMeta: out.freeObject("The type's metadata with Go's field names (byte slices as base64); {} unless the route fills it: the transaction hex is authoritative"),
      PublicKey: out.base64("The transactor's 33-byte public key"),
      ExtraData: out.nullable(out.record(out.base64(), 'ExtraData values as base64 bytes')),
      Signature: out.nullable(out.object({ Sign: out.base64('DER signature') })),
      TxnVersion: out.int(),
      TxnFeeNanos: out.uint64(),
      TxnNonce: out.nullable(out.object({ ExpirationBlockHeight: out.uint64(), PartialID: out.uint64() })),
      TxnTypeJSON: out.int('Core TxnType number'),
    },
    'A transaction as MsgDeSoTxn JSON',
  ),
);

// --- profiles and balances --------------------------------------------------------------------

/** Core's creator coin entry of a profile. */
const coinEntry = out.object({
  CreatorBasisPoints: out.uint64(),
  NativeLockedNanos: out.uint64(),
  NumberOfHolders: out.uint64(),
  CoinsInCirculationNanos: out.uint64(),
  CoinWatermarkNanos: out.uint64(),
  LegacyLockedNanos: out.uint64('Same as NativeLockedNanos (older name)'),
});

const daoCoinEntry = out.object({
  NumberOfHolders: out.uint64(),
  CoinsInCirculationNanos: out.pattern(/^0x[0-9a-f]+$/, 'uint256 as 0x hex'),
  MintingDisabled: out.boolean(),
  TransferRestrictionStatus: out.enum(Object.values(TRANSFER_RESTRICTION_STATUS_NAMES)),
});

/** social/profileEntry.ts profileRecordResponse (Comments, Posts, UsersThatHODL filled by some routes). */
export const profileEntrySchema = out.named(
  'ProfileEntryResponse',
  out.object({
    PublicKeyBase58Check: out.publicKey(),
    Username: out.string(),
    Description: out.string(),
    IsHidden: out.boolean(),
    IsReserved: out.boolean(),
    IsVerified: out.boolean(),
    Comments: out.nullable(out.array(ref('PostEntryResponse'))),
    Posts: out.nullable(out.array(ref('PostEntryResponse'), "The profile's newest top-level posts (get-profiles with NumToFetch 1); null elsewhere")),
    CoinEntry: coinEntry,
    DAOCoinEntry: daoCoinEntry,
    CoinPriceNativeNanos: out.uint64(),
    CoinPriceLegacyNanos: out.uint64('Same as CoinPriceNativeNanos (older name)'),
    UsersThatHODL: out.nullable(out.array(ref('BalanceEntryResponse'), 'The coin holders (get-profiles with NumToFetch 1); null elsewhere')),
    IsFeaturedTutorialWellKnownCreator: out.boolean(),
    IsFeaturedTutorialUpAndComingCreator: out.boolean(),
    ExtraData: extraDataTextSchema,
    NativeBalanceNanos: out.uint64(),
    BestExchangeRateNativePerDAOCoin: out.number('Native coins per DAO coin of the best open sell order; 0 when none'),
  }),
);

/** A creator-coin holding (social/users.ts creatorCoinBalanceEntry). */
export const balanceEntrySchema = out.named(
  'BalanceEntryResponse',
  out.object({
    HODLerPublicKeyBase58Check: out.publicKey(),
    CreatorPublicKeyBase58Check: out.publicKey(),
    HasPurchased: out.boolean(),
    BalanceNanos: out.uint64(),
    BalanceNanosUint256: out.pattern(/^0x[0-9a-f]+$/, 'The balance as uint256 0x hex'),
    NetBalanceInMempool: out.int('Pending balance minus mined balance'),
    ProfileEntryResponse: out.optional(out.describe(ref('ProfileEntryResponse'), 'The other side’s profile; absent when it has none')),
    HodlerNativeBalanceNanos: out.uint64(),
  }),
);

/** Profiles keyed by Base58Check public key; null for a key without a profile. */
export const profileEntryMapSchema = out.record(out.nullable(profileEntrySchema), 'ProfileEntryResponse by Base58Check public key (null: no profile)');

// --- posts ------------------------------------------------------------------------------------

export const postEntryReaderStateSchema = out.named(
  'PostEntryReaderState',
  out.object({
    LikedByReader: out.boolean(),
    DiamondLevelBestowed: out.int(),
    RepostedByReader: out.boolean(),
    RepostPostHashHex: out.hex('The reader’s repost of this post; "" for none'),
  }),
);

/** social/postEntry.ts postEntryResponse, with what the read routes add. */
export const postEntrySchema = out.named(
  'PostEntryResponse',
  out.object({
    PostHashHex: out.hex(),
    PosterPublicKeyBase58Check: out.publicKey(),
    ParentStakeID: out.hex('The parent post hash of a comment; "" for a top-level post'),
    Body: out.string(),
    ImageURLs: out.array(out.string()),
    VideoURLs: out.array(out.string()),
    RepostedPostEntryResponse: out.nullable(ref('PostEntryResponse')),
    CreatorBasisPoints: out.uint64(),
    StakeMultipleBasisPoints: out.uint64(),
    TimestampNanos: out.uint64(),
    IsHidden: out.boolean(),
    ConfirmationBlockHeight: out.uint64(),
    InMempool: out.boolean(),
    ProfileEntryResponse: out.nullable(profileEntrySchema),
    Comments: out.nullable(out.array(ref('PostEntryResponse'))),
    LikeCount: out.uint64(),
    DiamondCount: out.uint64(),
    PostEntryReaderState: out.nullable(postEntryReaderStateSchema),
    IsPinned: out.boolean(),
    PostExtraData: extraDataTextSchema,
    CommentCount: out.uint64(),
    RepostCount: out.uint64(),
    QuoteRepostCount: out.uint64(),
    ParentPosts: out.nullable(out.array(ref('PostEntryResponse'))),
    IsNFT: out.boolean(),
    NumNFTCopies: out.int(),
    NumNFTCopiesForSale: out.int(),
    NumNFTCopiesBurned: out.int(),
    HasUnlockable: out.boolean(),
    NFTRoyaltyToCreatorBasisPoints: out.int(),
    NFTRoyaltyToCoinBasisPoints: out.int(),
    DiamondsFromSender: out.int(),
    IsFrozen: out.boolean(),
    InGlobalFeed: out.optional(out.boolean('Present when the request set AddGlobalFeedBool')),
    HotnessScore: out.optional(out.int('Hot feed pages only: the post’s score in the ranking served (0 for a pinned post)')),
    PostMultiplier: out.optional(out.number('admin/get-unfiltered-hot-feed only: the post’s hot feed multiplier (1 when none is set)')),
  }),
);

// --- access groups and messages ---------------------------------------------------------------

export const accessGroupMemberEntrySchema = out.named(
  'AccessGroupMemberEntryResponse',
  out.object({
    AccessGroupMemberPublicKeyBase58Check: out.publicKey(),
    AccessGroupMemberKeyName: out.string(),
    EncryptedKey: out.string(),
    ExtraData: out.nullable(extraDataTextSchema),
  }),
);

export const accessGroupEntrySchema = out.named(
  'AccessGroupEntryResponse',
  out.object({
    AccessGroupOwnerPublicKeyBase58Check: out.publicKey(),
    AccessGroupKeyName: out.string('"" for the base group'),
    AccessGroupPublicKeyBase58Check: out.publicKey(),
    ExtraData: out.nullable(extraDataTextSchema),
    AccessGroupMemberEntryResponse: out.nullable(accessGroupMemberEntrySchema),
  }),
);

const accessGroupInfo = out.object({
  OwnerPublicKeyBase58Check: out.publicKey(),
  AccessGroupPublicKeyBase58Check: out.publicKey(),
  AccessGroupKeyName: out.string(),
});

/** social/messages.ts newMessageEntryResponse. */
export const newMessageEntrySchema = out.named(
  'NewMessageEntryResponse',
  out.object({
    ChatType: out.enum(['DM', 'GroupChat']),
    SenderInfo: accessGroupInfo,
    RecipientInfo: accessGroupInfo,
    MessageInfo: out.object({
      EncryptedText: out.hex(),
      TimestampNanos: out.uint64(),
      TimestampNanosString: out.pattern(/^[0-9]+$/, 'TimestampNanos as a decimal string (exact above 2^53)'),
      ExtraData: out.nullable(extraDataTextSchema),
    }),
  }),
);

// --- DAO coin orders ----------------------------------------------------------------------------

/** chain/daoCoinPrices.ts orderResponse. */
export const daoCoinLimitOrderEntrySchema = out.named(
  'DAOCoinLimitOrderEntryResponse',
  out.object({
    TransactorPublicKeyBase58Check: out.publicKey(),
    BuyingDAOCoinCreatorPublicKeyBase58Check: out.string('Creator public key; "" (or "DESO") for the native coin'),
    SellingDAOCoinCreatorPublicKeyBase58Check: out.string('Creator public key; "" (or "DESO") for the native coin'),
    Price: out.string('Decimal price'),
    Quantity: out.string('Decimal quantity'),
    ExchangeRateCoinsToSellPerCoinToBuy: out.number(),
    QuantityToFill: out.number(),
    OperationType: out.enum(['ASK', 'BID']),
    OrderID: out.hex(),
  }),
);

// --- derived keys -----------------------------------------------------------------------------

const opCounts = out.record(out.uint64());
const nestedOpCounts = out.nullable(out.record(opCounts));
/** AccessGroupLimitMap and AccessGroupMemberLimitMap entries share one shape. */
const accessGroupLimits = out.nullable(
  out.array(
    out.object({
      AccessGroupOwnerPublicKeyBase58Check: out.publicKey(),
      ScopeType: out.string(),
      AccessGroupKeyName: out.string(),
      OperationType: out.string(),
      OpCount: out.uint64(),
    }),
  ),
);

/** social/spendingLimitResponse.ts transactionSpendingLimitResponse. */
export const transactionSpendingLimitSchema = out.named(
  'TransactionSpendingLimitResponse',
  out.object({
    GlobalDESOLimit: out.uint64(),
    TransactionCountLimitMap: out.nullable(out.record(out.uint64(), 'Transactions allowed by type name')),
    CreatorCoinOperationLimitMap: nestedOpCounts,
    DAOCoinOperationLimitMap: nestedOpCounts,
    NFTOperationLimitMap: out.nullable(out.record(out.record(opCounts))),
    DAOCoinLimitOrderLimitMap: nestedOpCounts,
    AssociationLimitMap: out.nullable(
      out.array(
        out.object({
          AssociationClass: out.string(),
          AssociationType: out.string(),
          AppScopeType: out.string(),
          AppPublicKeyBase58Check: out.string(),
          AssociationOperation: out.string(),
          OpCount: out.uint64(),
        }),
      ),
    ),
    AccessGroupLimitMap: accessGroupLimits,
    AccessGroupMemberLimitMap: accessGroupLimits,
    StakeLimitMap: out.nullable(out.array(out.object({ ValidatorPublicKeyBase58Check: out.string(), StakeLimit: out.nullable(out.string('uint256 as 0x hex')) }))),
    UnstakeLimitMap: out.nullable(out.array(out.object({ ValidatorPublicKeyBase58Check: out.string(), UnstakeLimit: out.nullable(out.string('uint256 as 0x hex')) }))),
    UnlockStakeLimitMap: out.nullable(out.array(out.object({ ValidatorPublicKeyBase58Check: out.string(), OpCount: out.uint64() }))),
    LockupLimitMap: out.nullable(
      out.array(out.object({ ProfilePublicKeyBase58Check: out.string(), ScopeType: out.string(), Operation: out.string(), OpCount: out.uint64() })),
    ),
    IsUnlimited: out.boolean(),
  }),
);

/** social/users.ts userDerivedKeyResponse (the backend's UserDerivedKey). */
export const userDerivedKeySchema = out.named(
  'UserDerivedKey',
  out.object({
    OwnerPublicKeyBase58Check: out.publicKey(),
    DerivedPublicKeyBase58Check: out.publicKey(),
    ExpirationBlock: out.uint64(),
    IsValid: out.boolean(),
    ExtraData: out.nullable(extraDataTextSchema),
    TransactionSpendingLimit: out.nullable(transactionSpendingLimitSchema),
    Memo: out.string(),
  }),
);
