/**
 * Routes of this area: buy-or-sell-creator-coin (reference backend `BuyOrSellCreatorCoin`) and
 * transfer-creator-coin (`TransferCreatorCoin`, social-graph.md §7.3). A trade's expected
 * amounts come from connecting the constructed transaction to the pending state (tip +
 * mempool) with the chain's own rules, as the reference does, and reading what changed
 * (services/creatorCoins.ts); a transfer is only built (its rules run when the signed
 * transaction is submitted).
 *
 * Request fields keep the reference's names (`DeSoToSellNanos`, …); the spec's `Native`
 * spellings are accepted too. Response fields use the spec's spelling (`ExpectedNativeReturnedNanos`).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { CREATOR_COIN_PARAMS } from '../chain/rules/creatorCoins.js';
import { RuleError } from '../chain/rules/errors.js';
import { getBalance } from '../chain/state/balances.js';
import { creatorCoinBalance } from '../chain/state/creatorCoins.js';
import { publicKeyForUsername } from '../chain/state/profiles.js';
import { CreatorCoinOperation } from '../chain/txn/metadata.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { CONSTRUCTED_WITH_SPEND, constructedResponse, constructFields, constructForRequest } from './constructed.js';
import { out, v } from '../schema.js';
import { expectedTrade } from '../services/creatorCoins.js';
import { decodeKeyOr400 } from './requestKeys.js';

export const buyOrSellCreatorCoinBody = v.object({
  UpdaterPublicKeyBase58Check: v.string({ maxLength: 200 }),
  CreatorPublicKeyBase58Check: v.string({ maxLength: 200 }),
  /** "buy" or "sell". */
  OperationType: v.optional(v.string({ maxLength: 100 }), ''),
  DeSoToSellNanos: v.optional(v.uint64(), 0n),
  NativeToSellNanos: v.optional(v.uint64(), 0n),
  CreatorCoinToSellNanos: v.optional(v.uint64(), 0n),
  DeSoToAddNanos: v.optional(v.uint64(), 0n),
  NativeToAddNanos: v.optional(v.uint64(), 0n),
  /** Slippage bounds: 0 turns the check off. */
  MinDeSoExpectedNanos: v.optional(v.uint64(), 0n),
  MinNativeExpectedNanos: v.optional(v.uint64(), 0n),
  MinCreatorCoinExpectedNanos: v.optional(v.uint64(), 0n),
  ...constructFields,
});

export const buyOrSellCreatorCoinResponse = constructedResponse('BuyOrSellCreatorCoinResponse', CONSTRUCTED_WITH_SPEND, {
  ExpectedNativeReturnedNanos: out.uint64('A sell: the native coin it returns now; 0 for a buy'),
  ExpectedCreatorCoinReturnedNanos: out.uint64('A buy: the creator coin it returns now; 0 for a sell'),
  FounderRewardGeneratedNanos: out.uint64('A buy: creator coin minted to the creator (0 under the current rules)'),
});

export const transferCreatorCoinBody = v.object({
  SenderPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  CreatorPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  /** A username when at most MAX_USERNAME_LENGTH characters, else a public key (reference). */
  ReceiverUsernameOrPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  CreatorCoinToTransferNanos: v.optional(v.uint64(), 0n),
  ...constructFields,
});

export const transferCreatorCoinResponse = constructedResponse('TransferCreatorCoinResponse', CONSTRUCTED_WITH_SPEND);

/** Core's MaxUsernameLengthBytes: a shorter receiver string cannot be a public key. */
const MAX_USERNAME_LENGTH = 25;

const either = (reference: bigint, spec: bigint): bigint => (spec > 0n ? spec : reference);

export function creatorCoinRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/buy-or-sell-creator-coin',
      summary: 'Construct a CREATOR_COIN buy or sell with its expected outcome (reference backend BuyOrSellCreatorCoin); sign and submit it',
      body: buyOrSellCreatorCoinBody,
      response: buyOrSellCreatorCoinResponse,
      errorPrefixes: { CREATOR_COIN_TRADE_REFUSED: 'BuyOrSellCreatorCoin: ' },
      async handle({ body }) {
        const updater = decodeKeyOr400(body.UpdaterPublicKeyBase58Check, network, 'UpdaterPublicKeyBase58Check', 'BuyOrSellCreatorCoin: Problem decoding updater public key');
        const creator = decodeKeyOr400(body.CreatorPublicKeyBase58Check, network, 'CreatorPublicKeyBase58Check', 'BuyOrSellCreatorCoin: Problem decoding creator public key');
        const desoToSell = either(body.DeSoToSellNanos, body.NativeToSellNanos);
        const desoToAdd = either(body.DeSoToAddNanos, body.NativeToAddNanos);
        if (desoToSell === 0n && body.CreatorCoinToSellNanos === 0n) {
          throw badRequest('BuyOrSellCreatorCoin: One of the following is required: {DeSoToSellNanos, CreatorCoinToSellNanos}');
        }
        if (desoToAdd !== 0n) throw badRequest('BuyOrSellCreatorCoin: DeSoToAddNanos not yet supported');
        const op = body.OperationType;
        if (op !== 'buy' && op !== 'sell') throw badRequest(`BuyOrSellCreatorCoin: OperationType "${op}" not supported`);

        const { constructed, fields } = await constructForRequest(deps, {
          publicKey: updater,
          metadata: {
            type: 'CREATOR_COIN',
            profilePublicKey: creator,
            operationType: op === 'buy' ? CreatorCoinOperation.BUY : CreatorCoinOperation.SELL,
            desoToSellNanos: desoToSell,
            creatorCoinToSellNanos: body.CreatorCoinToSellNanos,
            desoToAddNanos: desoToAdd,
            minDesoExpectedNanos: either(body.MinDeSoExpectedNanos, body.MinNativeExpectedNanos),
            minCreatorCoinExpectedNanos: body.MinCreatorCoinExpectedNanos,
          },
          fields: body,
          // A buy spends the native it sells on top of fee and outputs.
          extraSpendNanos: op === 'buy' ? desoToSell : 0n,
        });
        const expected = await expectedTrade(deps, constructed, { updater, creator, op });
        return json({
          ExpectedNativeReturnedNanos: op === 'sell' ? expected.nativeReturnedNanos : 0n,
          ExpectedCreatorCoinReturnedNanos: op === 'buy' ? expected.creatorCoinReturnedNanos : 0n,
          // As the reference: the founder reward minted in creator coin, which core stopped
          // minting when founder rewards moved to native coin (so 0 under the current rules).
          FounderRewardGeneratedNanos: op === 'buy' ? expected.founderRewardCoinNanos : 0n,
          SpendAmountNanos: fields.SpendAmountNanos,
          TotalInputNanos: fields.TotalInputNanos,
          ChangeAmountNanos: fields.ChangeAmountNanos,
          FeeNanos: fields.FeeNanos,
          Transaction: fields.Transaction,
          TransactionHex: fields.TransactionHex,
          TxnHashHex: fields.TxnHashHex,
        });
      },
    }),
    route({
      method: 'POST',
      path: '/transfer-creator-coin',
      summary: 'Construct a CREATOR_COIN_TRANSFER: creator coin from the sender to a receiver (a username or a public key); sign and submit it',
      body: transferCreatorCoinBody,
      response: transferCreatorCoinResponse,
      async handle({ body }) {
        if (body.SenderPublicKeyBase58Check === '' || body.CreatorPublicKeyBase58Check === '' || body.ReceiverUsernameOrPublicKeyBase58Check === '') {
          throw badRequest('TransferCreatorCoin: Must provide a sender, a creator, and a receiver.');
        }
        const sender = decodeKeyOr400(body.SenderPublicKeyBase58Check, network, 'SenderPublicKeyBase58Check', 'TransferCreatorCoin: Problem decoding sender public key');
        const creator = decodeKeyOr400(body.CreatorPublicKeyBase58Check, network, 'CreatorPublicKeyBase58Check', 'TransferCreatorCoin: Problem decoding creator public key');
        const given = body.ReceiverUsernameOrPublicKeyBase58Check;
        let receiver: Uint8Array;
        if (given.length <= MAX_USERNAME_LENGTH) {
          const pk = await publicKeyForUsername(await deps.chain.pendingView(), given);
          if (pk === undefined) throw badRequest(`TransferCreatorCoin: Problem getting profile for username: <nil> : ${given}`);
          receiver = pk;
        } else {
          receiver = decodeKeyOr400(given, network, 'ReceiverUsernameOrPublicKeyBase58Check', 'TransferCreatorCoin: Problem decoding receiver public key');
        }
        if (Buffer.compare(sender, receiver) === 0) throw badRequest('TransferCreatorCoin: Sender and receiver cannot be the same.');
        const threshold = CREATOR_COIN_PARAMS.autoSellThresholdNanos;
        // "greater than" in the reference's words; the threshold itself passes (as core's rule).
        if (body.CreatorCoinToTransferNanos < threshold) throw badRequest(`TransferCreatorCoin: CreatorCoinToTransferNanos must be greater than ${threshold} nanos`);
        const { fields } = await constructForRequest(deps, {
          publicKey: sender,
          metadata: { type: 'CREATOR_COIN_TRANSFER', profilePublicKey: creator, creatorCoinToTransferNanos: body.CreatorCoinToTransferNanos, receiverPublicKey: receiver },
          fields: body,
        });
        return json({
          SpendAmountNanos: fields.SpendAmountNanos,
          TotalInputNanos: fields.TotalInputNanos,
          ChangeAmountNanos: fields.ChangeAmountNanos,
          FeeNanos: fields.FeeNanos,
          Transaction: fields.Transaction,
          TransactionHex: fields.TransactionHex,
          TxnHashHex: fields.TxnHashHex,
        });
      },
    }),
  ];
}
