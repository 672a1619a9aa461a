/** Every API area's route table; the router mounts them all under /api/v0 and bare. */
import type { AppDeps } from '../deps.js';
import type { Route } from '../http/route.js';
import { adminBuyNativeRoutes } from './adminBuyNative.js';
import { adminChainRoutes } from './adminChain.js';
import { accessGroupRoutes } from './accessGroups.js';
import { adminFeedRoutes } from './adminFeed.js';
import { adminUserRoutes } from './adminUsers.js';
import { accessGroupReadRoutes } from './accessGroupReads.js';
import { creatorCoinRoutes } from './creatorCoins.js';
import { daoCoinRoutes } from './daoCoins.js';
import { derivedKeyRoutes } from './derivedKeys.js';
import { diamondRoutes } from './diamonds.js';
import { followPage } from '../chain/state/follows.js';
import { MAX_FOLLOWED_READ } from '../social/postReads.js';
import { feedRoutes } from './feed.js';
import { followRoutes } from './follows.js';
import { holderRoutes } from './holders.js';
import { identityRoutes } from './identity.js';
import { likeRoutes } from './likes.js';
import { messageRoutes } from './messages.js';
import { messageReadRoutes } from './messageReads.js';
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

export function allRoutes(deps: AppDeps): Route[][] {
  return [
    nodeRoutes(deps),
    metaRoutes(deps),
    identityRoutes(deps),
    minerRoutes(deps),
    transactionRoutes(deps),
    profileRoutes(deps),
    postRoutes(deps),
    creatorCoinRoutes(deps),
    derivedKeyRoutes(deps),
    daoCoinRoutes(deps),
    accessGroupRoutes(deps),
    messageRoutes(deps),
    accessGroupReadRoutes(deps),
    messageReadRoutes(deps),
    orderBookRoutes(deps),
    referralRoutes(deps),
    tutorialRoutes(deps),
    userRoutes(deps),
    feedRoutes(deps, (state, pk33) => followPage(state, pk33, 'following', { limit: MAX_FOLLOWED_READ })),
    diamondRoutes(deps),
    postReadRoutes(deps),
    adminUserRoutes(deps),
    adminFeedRoutes(deps),
    adminChainRoutes(deps),
    followRoutes(deps),
    likeRoutes(deps),
    holderRoutes(deps),
    notificationRoutes(deps),
    adminBuyNativeRoutes(deps),
  ];
}
