/**
 * Every transaction type this node connects, by TxnType number: one table assembled from the
 * rule modules (one per area). A type missing here is refused with RuleErrorTxnTypeNotSupported.
 * @module
 */
import { TxnType } from '../txn/metadata.js';
import type { TypeHandler } from './connect.js';
import { RuleError } from './errors.js';
import { accessGroupHandlers } from './accessGroups.js';
import { creatorCoinHandlers } from './creatorCoins.js';
import { daoCoinHandlers } from './daoCoins.js';
import { daoCoinLimitOrderHandlers } from './daoCoinLimitOrders.js';
import { derivedKeyHandlers } from './derivedKeys.js';
import { connectDiamond } from './diamonds.js';
import { globalParamsHandlers } from './globalParams.js';
import { messageHandlers } from './messages.js';
import { messagingGroupHandlers } from './messagingGroups.js';
import { postHandlers } from './posts.js';
import { profileHandlers } from './profiles.js';
import { swapIdentityHandlers } from './swapIdentity.js';
import { followHandlers } from './follows.js';
import { likeHandlers } from './likes.js';

/** A rule module's contribution: handlers for the types it owns. */
export type HandlerEntry = readonly [txnType: number, handler: TypeHandler];

const basicTransfer: HandlerEntry = [
  TxnType.BASIC_TRANSFER,
  async (view, txn) => {
    if (txn.metadata.length !== 0) throw new RuleError('RuleErrorBasicTransferMetadataNotEmpty', `metadata has ${txn.metadata.length} bytes`);
    // A transfer with ExtraData DiamondPostHash is a diamond (rules/diamonds.ts).
    await connectDiamond(view, txn);
  },
];

export const TYPE_HANDLERS: ReadonlyMap<number, TypeHandler> = new Map<number, TypeHandler>([
  basicTransfer,
  ...profileHandlers,
  ...postHandlers,
  ...creatorCoinHandlers,
  ...derivedKeyHandlers,
  ...daoCoinHandlers,
  ...daoCoinLimitOrderHandlers,
  ...accessGroupHandlers,
  ...messageHandlers,
  ...messagingGroupHandlers,
  ...globalParamsHandlers,
  ...swapIdentityHandlers,
  ...followHandlers,
  ...likeHandlers,
]);
