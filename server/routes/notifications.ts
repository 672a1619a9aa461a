/**
 * Routes of this area (reference social-graph.md §6.3–6.5): `get-notifications`,
 * `get-unread-notifications-count` and `set-notification-metadata` (JWT of the user), thin
 * handlers over server/social/notifications.ts. get-notifications is cached (http/readCache.ts):
 * it reads chain state through its `ChainReads` only (the tip too, when a page shows something
 * unmined), and what it reads of node-local state (the reader's blocks, the blacklist, profile
 * flags) bumps the flags counter when written. The unread count reads the node-local read state,
 * which does not: it is not cached.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import { requireUserJwt } from './adminAuth.js';
import { cachedRoute, unrecordedChainReads } from '../http/readCache.js';
import { empty, json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { postEntrySchema, profileEntryMapSchema } from './responses.js';
import { isKeyError } from '../keys/index.js';
import { MAX_NOTIFICATION_INDEX } from '../chain/state/notifications.js';
import { MAX_NOTIFICATIONS_TO_FETCH, notifications, setNotificationReadState, unreadNotificationsCount } from '../social/notifications.js';
import { decodeKeyOr400 } from './requestKeys.js';

/** An Index field: any JSON integer a client keeps exactly (negative: none). */
const index = (): ReturnType<typeof v.int> => v.int(-MAX_NOTIFICATION_INDEX, MAX_NOTIFICATION_INDEX);

export const getNotificationsBody = v.object({
  PublicKeyBase58Check: v.string({ maxLength: 200 }),
  /** Newest first from this Index (inclusive); negative: from the newest. Go's zero value when absent, as the reference. */
  FetchStartIndex: v.optional(index(), 0),
  /** 1..MAX_NOTIFICATIONS_TO_FETCH. */
  NumToFetch: v.optional(v.int(0, 2 ** 31 - 1), 0),
  /** Category name → true to leave it out: like, diamond, follow, transfer, post, dao coin (nft and associations have none here). */
  FilteredOutNotificationCategories: v.optional(v.record(v.boolean(), 64), {}),
});

export const unreadNotificationsCountBody = v.object({
  PublicKeyBase58Check: v.string({ maxLength: 200 }),
});

export const setNotificationMetadataBody = v.object({
  PublicKeyBase58Check: v.string({ maxLength: 200 }),
  /** Raises the stored last-seen Index (when above it and above 0). */
  LastSeenIndex: v.optional(index(), 0),
  /** The last Index counted as unread (get-unread-notifications-count's answer). */
  LastUnreadNotificationIndex: v.optional(index(), 0),
  UnreadNotifications: v.optional(v.int(0, MAX_NOTIFICATION_INDEX), 0),
  JWT: v.optional(v.string({ maxLength: 4096 }), ''),
});

const u256 = (description: string) => out.pattern(/^0x[0-9a-f]+$/, `${description} (uint256 as 0x hex)`);
const output = out.object({ PublicKeyBase58Check: out.publicKey(), AmountNanos: out.uint64() });

/** Core's TransactionMetadata of a notification (social/notifications.ts transactionMetadata). */
export const notificationMetadataSchema = out.named(
  'NotificationTransactionMetadata',
  out.object({
    BlockHashHex: out.hex('"" while the transaction is in the mempool'),
    TxnIndexInBlock: out.int(),
    TxnType: out.string('Core TxnString, e.g. FOLLOW'),
    TransactorPublicKeyBase58Check: out.publicKey(),
    AffectedPublicKeys: out.array(out.object({ PublicKeyBase58Check: out.publicKey(), Metadata: out.string('The key’s role, e.g. FollowedPublicKeyBase58Check') })),
    TxnOutputs: out.array(out.object({ PublicKey: out.base64(), AmountNanos: out.uint64() })),
    BasicTransferTxindexMetadata: out.object({
      TotalInputNanos: out.uint64(),
      TotalOutputNanos: out.uint64(),
      FeeNanos: out.uint64(),
      UtxoOpsDump: out.literal(''),
      UtxoOps: out.null(),
      DiamondLevel: out.int(),
      PostHashHex: out.hex(),
    }),
    FollowTxindexMetadata: out.optional(out.object({ IsUnfollow: out.boolean() })),
    LikeTxindexMetadata: out.optional(out.object({ IsUnlike: out.boolean(), PostHashHex: out.hex() })),
    SubmitPostTxindexMetadata: out.optional(out.object({ PostHashBeingModifiedHex: out.hex(), ParentPostHashHex: out.hex() })),
    CreatorCoinTxindexMetadata: out.optional(
      out.object({
        OperationType: out.enum(['buy', 'sell', 'add']),
        NativeToSellNanos: out.uint64(),
        CreatorCoinToSellNanos: out.uint64(),
        NativeToAddNanos: out.uint64(),
        NativeLockedNanosDiff: out.int(),
      }),
    ),
    CreatorCoinTransferTxindexMetadata: out.optional(
      out.object({ CreatorUsername: out.string(), CreatorCoinToTransferNanos: out.uint64(), DiamondLevel: out.int(), PostHashHex: out.hex() }),
    ),
    DAOCoinTxindexMetadata: out.optional(
      out.object({
        CreatorUsername: out.string(),
        OperationType: out.string(),
        CoinsToMintNanos: u256('Minted'),
        CoinsToBurnNanos: u256('Burned'),
        TransferRestrictionStatus: out.string(),
      }),
    ),
    DAOCoinTransferTxindexMetadata: out.optional(out.object({ CreatorUsername: out.string(), DAOCoinToTransferNanos: u256('Transferred') })),
    DAOCoinLimitOrderTxindexMetadata: out.optional(
      out.object({
        BuyingDAOCoinCreatorPublicKey: out.string('"" for the native coin'),
        SellingDAOCoinCreatorPublicKey: out.string('"" for the native coin'),
        ScaledExchangeRateCoinsToSellPerCoinToBuy: u256('Rate'),
        QuantityToFillInBaseUnits: u256('Quantity'),
        FilledDAOCoinLimitOrdersMetadata: out.null('Always null: fills are not kept per transaction'),
      }),
    ),
  }),
);

export const getNotificationsResponse = out.named(
  'GetNotificationsResponse',
  out.object({
    Notifications: out.array(
      out.object({
        Metadata: notificationMetadataSchema,
        TxnOutputResponses: out.nullable(out.array(output, 'The transfer outputs; null for posts, likes and creator-coin transfers')),
        InnerTxnOutputResponses: out.null(),
        Txn: out.null(),
        Index: out.int('The notification’s place: FetchStartIndex for paging, LastSeenIndex for read state'),
      }),
      'Newest first',
    ),
    ProfilesByPublicKey: profileEntryMapSchema,
    PostsByHash: out.record(out.nullable(postEntrySchema), 'The posts the notifications name, by hash (null: not found), with the reader’s state'),
    LastSeenIndex: out.int('The newest Index on a first page (FetchStartIndex < 0); -1 otherwise'),
  }),
);

export const unreadNotificationsCountResponse = out.object({
  NotificationsCount: out.int(),
  LastUnreadNotificationIndex: out.int(),
  UpdateMetadata: out.boolean('Whether to write the answer back with set-notification-metadata'),
});

export function notificationRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-notifications',
      summary:
        "A page of a user's notifications (follows, likes, diamonds, replies, mentions, reposts, transfers, creator-coin buys, DAO coin transfers and fills), mined and in the mempool, newest first from FetchStartIndex (inclusive), with the profiles and posts they name",
      body: getNotificationsBody,
      response: getNotificationsResponse,
      async handle({ body }, chainState) {
        const publicKey = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'GetNotifications: Problem parsing public key');
        if (body.NumToFetch > MAX_NOTIFICATIONS_TO_FETCH) throw badRequest(`GetNotifications: NumToFetch is ${body.NumToFetch}; this node answers at most ${MAX_NOTIFICATIONS_TO_FETCH} a page`);
        return json(await notifications(deps, chainState, { publicKey, fetchStartIndex: body.FetchStartIndex, numToFetch: body.NumToFetch, filteredOut: body.FilteredOutNotificationCategories }));
      },
    }),
    route({
      method: 'POST',
      path: '/get-unread-notifications-count',
      summary: "How many notifications arrived since the user's last counted (or last seen) one, at most 100 new ones plus the stored count, and whether to write the answer back",
      body: unreadNotificationsCountBody,
      response: unreadNotificationsCountResponse,
      async handle({ body }) {
        const publicKey = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'GetNotificationsCount: Problem decoding public key');
        return json(await unreadNotificationsCount(deps, unrecordedChainReads(deps), publicKey));
      },
    }),
    route({
      method: 'POST',
      path: '/set-notification-metadata',
      auth: 'user-jwt',
      summary: "Stores the user's notification read state on this node: last seen Index (only raised), last counted Index, unread count (JWT of the user); 200 with an empty body",
      body: setNotificationMetadataBody,
      response: out.empty(),
      async handle({ body, caller }) {
        const P = 'SetNotificationMetadata';
        const publicKey = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', `${P}: Problem decoding updater public key`);
        try {
          await requireUserJwt(deps, caller, body.PublicKeyBase58Check, body.JWT, `${P}: Error validating JWT: `);
        } catch (e) {
          if (isKeyError(e)) throw badRequest(`${P}: Error validating JWT: ${e.message}`);
          throw e;
        }
        await setNotificationReadState(deps.store, publicKey, {
          lastSeenIndex: body.LastSeenIndex,
          latestUnreadIndex: body.LastUnreadNotificationIndex,
          unread: body.UnreadNotifications,
        });
        return empty();
      },
    }),
  ];
}
