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
import { requireUserJwt } from '../http/adminAuth.js';
import { cachedRoute, unrecordedChainReads } from '../http/readCache.js';
import { empty, json, route, type Route } from '../http/route.js';
import { v } from '../http/schema.js';
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

export function notificationRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-notifications',
      summary:
        "A page of a user's notifications (follows, likes, diamonds, replies, mentions, reposts, transfers, creator-coin buys, DAO coin transfers and fills), mined and in the mempool, newest first from FetchStartIndex (inclusive), with the profiles and posts they name",
      body: getNotificationsBody,
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
