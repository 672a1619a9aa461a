/** Every API area's route table; the router mounts them all under /api/v0 and bare. */
import type { AppDeps } from '../deps.js';
import { area, type Route } from '../http/route.js';
import { adminBuyNativeRoutes } from './adminBuyNative.js';
import { adminChainRoutes } from './adminChain.js';
import { apiV1Routes } from './apiV1.js';
import { accessGroupRoutes } from './accessGroups.js';
import { adminFeedRoutes } from './adminFeed.js';
import { adminHotFeedRoutes } from './adminHotFeed.js';
import { adminUserRoutes } from './adminUsers.js';
import { accessGroupReadRoutes } from './accessGroupReads.js';
import { atomicRoutes } from './atomic.js';
import { creatorCoinRoutes } from './creatorCoins.js';
import { daoCoinRoutes } from './daoCoins.js';
import { derivedKeyRoutes } from './derivedKeys.js';
import { diamondRoutes } from './diamonds.js';
import { followPage } from '../chain/state/follows.js';
import { MAX_FOLLOWED_READ } from '../social/postReads.js';
import { feedRoutes } from './feed.js';
import { followRoutes } from './follows.js';
import { holderRoutes } from './holders.js';
import { hotFeedRoutes } from './hotFeed.js';
import { identityRoutes } from './identity.js';
import { likeRoutes } from './likes.js';
import { mediaRoutes } from './media.js';
import { messageRoutes } from './messages.js';
import { messageReadRoutes } from './messageReads.js';
import { messagingGroupRoutes } from './messagingGroups.js';
import { metaRoutes } from './meta.js';
import { minerRoutes } from './miner.js';
import { nodeRoutes } from './node.js';
import { notificationRoutes } from './notifications.js';
import { orderBookRoutes } from './orderBook.js';
import { postRoutes } from './posts.js';
import { postReadRoutes } from './postReads.js';
import { profileRoutes } from './profiles.js';
import { referralRoutes } from './referrals.js';
import { transactionRoutes } from './transactions.js';
import { tutorialRoutes } from './tutorial.js';
import { userRoutes } from './users.js';
import { wyreRoutes } from './wyre.js';

/** The API areas (OpenAPI tags), in the order the document lists them. */
export const AREAS = [
  { name: 'Node', description: 'Node state, probes, app state and exchange rate, metrics, and this document' },
  { name: 'Identity', description: 'The identity frame API (also a WebSocket: see x-websockets)' },
  { name: 'Transactions', description: 'Submit signed transactions, find them, send the native coin' },
  { name: 'Mining', description: 'Block templates and solved headers (also a WebSocket feed: see x-websockets)' },
  { name: 'Users', description: 'Users, profiles, profile pictures, coin holders, node-local user metadata and blocking' },
  { name: 'Posts', description: 'Posts, comments, reposts, feeds' },
  { name: 'Follows', description: 'Follow and unfollow, followers and followed keys' },
  { name: 'Likes', description: 'Likes and likers' },
  { name: 'Diamonds', description: 'Diamonds sent and received' },
  { name: 'Creator coins', description: 'Buying and selling creator coins' },
  { name: 'DAO coins', description: 'DAO coins, transfers and the limit-order book' },
  { name: 'Derived keys', description: 'Derived keys and their spending limits' },
  { name: 'Access groups', description: 'Access groups and their members' },
  { name: 'Messages', description: 'Direct and group-chat messages' },
  { name: 'Referrals', description: 'Referral codes' },
  { name: 'Tutorial', description: 'The onboarding tutorial' },
  { name: 'Notifications', description: 'A user’s notifications and their read state' },
  { name: 'Media', description: 'Images uploaded to this node and served by it; TikTok short links resolved' },
  { name: 'Card buys', description: 'Buying the native coin with a card through Wyre (needs the --wyre-* options)' },
  { name: 'Admin', description: 'Node administration: credentials of an admin of this node in the body' },
] as const;
export type AreaName = (typeof AREAS)[number]['name'];

export function allRoutes(deps: AppDeps): Route[][] {
  const tag = (name: AreaName, routes: Route[]): Route[] => area(name, routes);
  return [
    tag('Node', nodeRoutes(deps)),
    tag('Node', metaRoutes(deps)),
    tag('Identity', identityRoutes(deps)),
    tag('Mining', minerRoutes(deps)),
    tag('Transactions', transactionRoutes(deps)),
    tag('Transactions', atomicRoutes(deps)),
    tag('Transactions', apiV1Routes(deps)),
    tag('Users', profileRoutes(deps)),
    tag('Posts', postRoutes(deps)),
    tag('Creator coins', creatorCoinRoutes(deps)),
    tag('Derived keys', derivedKeyRoutes(deps)),
    tag('DAO coins', daoCoinRoutes(deps)),
    tag('Access groups', accessGroupRoutes(deps)),
    tag('Messages', messageRoutes(deps)),
    tag('Access groups', accessGroupReadRoutes(deps)),
    tag('Messages', messageReadRoutes(deps)),
    tag('Messages', messagingGroupRoutes(deps)),
    tag('DAO coins', orderBookRoutes(deps)),
    tag('Referrals', referralRoutes(deps)),
    tag('Tutorial', tutorialRoutes(deps)),
    tag('Users', userRoutes(deps)),
    tag('Posts', feedRoutes(deps, (state, pk33) => followPage(state, pk33, 'following', { limit: MAX_FOLLOWED_READ }))),
    tag('Diamonds', diamondRoutes(deps)),
    tag('Posts', postReadRoutes(deps)),
    tag('Admin', adminUserRoutes(deps)),
    tag('Admin', adminFeedRoutes(deps)),
    tag('Admin', adminChainRoutes(deps)),
    tag('Follows', followRoutes(deps)),
    tag('Likes', likeRoutes(deps)),
    tag('Users', holderRoutes(deps)),
    tag('Notifications', notificationRoutes(deps)),
    tag('Admin', adminBuyNativeRoutes(deps)),
    tag('Media', mediaRoutes(deps)),
    tag('Card buys', wyreRoutes(deps)),
    tag('Posts', hotFeedRoutes(deps)),
    tag('Admin', adminHotFeedRoutes(deps)),
  ];
}
