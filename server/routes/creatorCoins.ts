/**
 * Routes of this area: buy-or-sell-creator-coin (reference backend `BuyOrSellCreatorCoin`).
 * The expected amounts come from connecting the constructed transaction to the pending state
 * (tip + mempool) with the chain's own rules, as the reference does, and reading what changed.
 *
 * Request fields keep the reference's names (`DeSoToSellNanos`, …); the spec's `Native`
 * spellings are accepted too. Response fields use the spec's spelling (`ExpectedNativeReturnedNanos`).
 * @module
 */
import type { AppDeps } from '../app.js';
import { RuleError } from '../chain/rules/errors.js';
import { getBalance } from '../chain/state/balances.js';
import { creatorCoinBalance } from '../chain/state/creatorCoins.js';
import { CreatorCoinOperation } from '../chain/txn/metadata.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../http/schema.js';
import type { Constructed } from '../chain/construct.js';
import { CONSTRUCTED_WITH_SPEND, constructedResponse, constructFields, constructForRequest } from './constructed.js';
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

const either = (reference: bigint, spec: bigint): bigint => (spec > 0n ? spec : reference);

interface Expected {
  nativeReturnedNanos: bigint;
  creatorCoinReturnedNanos: bigint;
  /** Creator coin minted to the creator by someone else's buy (core's coin founder reward). */
  founderRewardCoinNanos: bigint;
}

/**
 * Connects the unsigned transaction to the pending state and measures the trade: coins the
 * transactor and the creator gained (buy), or native the transactor received (sell: its
 * balance change plus what the transaction paid in fee and to others).
 */
async function expectedOutcome(deps: AppDeps, c: Constructed, updater: Uint8Array, creator: Uint8Array): Promise<Expected> {
  const pending = await deps.chain.pendingView();
  const coinsBefore = await creatorCoinBalance(pending, updater, creator);
  const creatorCoinsBefore = await creatorCoinBalance(pending, creator, creator);
  const nativeBefore = await getBalance(pending, updater);
  const view = await deps.chain.simulate(c.bytes, updater, pending);
  const paidOut = c.fields.outputs.filter((o) => Buffer.compare(o.publicKey, updater) !== 0).reduce((sum, o) => sum + o.amountNanos, 0n);
  const nativeChange = (await getBalance(view, updater)) - nativeBefore + c.feeNanos + paidOut;
  const selfTrade = Buffer.compare(updater, creator) === 0;
  return {
    nativeReturnedNanos: nativeChange > 0n ? nativeChange : 0n,
    creatorCoinReturnedNanos: (await creatorCoinBalance(view, updater, creator)) - coinsBefore,
    founderRewardCoinNanos: selfTrade ? 0n : (await creatorCoinBalance(view, creator, creator)) - creatorCoinsBefore,
  };
}

export function creatorCoinRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/buy-or-sell-creator-coin',
      summary: 'Construct a CREATOR_COIN buy or sell with its expected outcome (reference backend BuyOrSellCreatorCoin); sign and submit it',
      body: buyOrSellCreatorCoinBody,
      response: buyOrSellCreatorCoinResponse,
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
        let expected: Expected;
        try {
          expected = await expectedOutcome(deps, constructed, updater, creator);
        } catch (e) {
          if (e instanceof RuleError) throw badRequest(`BuyOrSellCreatorCoin: Problem connecting ${op} transaction: ${e.message}`);
          throw e;
        }
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
  ];
}
