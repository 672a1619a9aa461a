/**
 * Routes of this area (reference node-api.md §4.2, §7.3, social-graph.md §9; backend
 * routes/transaction.go and routes/dao_coin_exchange.go): dao-coin, transfer-dao-coin,
 * create-/cancel-dao-coin-limit-order, create-dao-coin-market-order.
 * Each validates what the reference validates, builds the unsigned transaction and answers the
 * reference's fields; the consensus rules run again when the signed transaction is submitted.
 * The limit orders' prechecks, fee fixpoint and simulation are services/daoCoinOrders.ts.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { formatFloatAsString, floatToScaledExchangeRate, priceToScaledExchangeRate, quantityToBaseUnits, type OrderSide } from '../chain/daoCoinPrices.js';
import { TRANSFER_RESTRICTION_STATUS_NAMES, TransferRestrictionStatus } from '../chain/state/daoCoins.js';
import { DESO_COIN } from '../chain/state/daoCoinLimitOrders.js';
import { DAOCoinLimitOrderFill, DAOCoinOperation } from '../chain/txn/metadata.js';
import { ApiError, badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { CONSTRUCTED_WITH_HASH, CONSTRUCTED_WITH_SPEND, constructedResponse, constructFields, constructForRequest, type ConstructRequest } from './constructed.js';
import { out, v, ValidationError, type Schema } from '../schema.js';
import { encodePublicKey } from '../keys/index.js';
import { cancelLimitOrder, createLimitOrder, createMarketOrder, type SimulatedExecution } from '../services/daoCoinOrders.js';
import type { ConstructedResponse } from '../services/construct.js';
import type { StateView } from '../chain/state/view.js';
import { resolvePublicKeyOrUsername } from '../social/keyOrUsername.js';
import { decodeKeyOr400 } from './requestKeys.js';

const MAX_UINT256 = (1n << 256n) - 1n;
const KEY = { maxLength: 200 } as const;

/**
 * A uint256 as Go's uint256.Int decodes JSON: a quoted 0x-hex (no leading zeros) or decimal
 * string, or a bare integer.
 */
function uint256(): Schema<bigint> {
  return {
    json: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^(0[xX](0|[1-9a-fA-F][0-9a-fA-F]{0,63})|[0-9]{1,78})$' }] },
    parse(x, path) {
      let n: bigint | null = null;
      if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) n = BigInt(x);
      else if (typeof x === 'string' && /^0[xX](0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/.test(x)) n = BigInt(`0x${x.slice(2)}`);
      else if (typeof x === 'string' && /^[0-9]{1,78}$/.test(x)) n = BigInt(x);
      if (n === null || n > MAX_UINT256) throw new ValidationError(path, 'a uint256 (0x-prefixed hex or decimal)', x);
      return n;
    },
  };
}

/** Any JSON number (the legacy float fields of limit orders). */
function float(): Schema<number> {
  return {
    json: { type: 'number' },
    parse(x, path) {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw new ValidationError(path, 'a number', x);
      return x;
    },
  };
}

const daoCoinBody = v.object({
  UpdaterPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  ProfilePublicKeyBase58CheckOrUsername: v.optional(v.string(KEY), ''),
  OperationType: v.optional(v.string({ maxLength: 100 }), ''),
  CoinsToMintNanos: v.optional(uint256(), 0n),
  CoinsToBurnNanos: v.optional(uint256(), 0n),
  TransferRestrictionStatus: v.optional(v.string({ maxLength: 100 }), ''),
  ...constructFields,
});

const transferDaoCoinBody = v.object({
  SenderPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  ProfilePublicKeyBase58CheckOrUsername: v.optional(v.string(KEY), ''),
  ReceiverPublicKeyBase58CheckOrUsername: v.optional(v.string(KEY), ''),
  DAOCoinToTransferNanos: v.optional(uint256(), 0n),
  ...constructFields,
});

const createOrderBody = v.object({
  TransactorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  BuyingDAOCoinCreatorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  SellingDAOCoinCreatorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  Price: v.optional(v.string({ maxLength: 200 }), ''),
  Quantity: v.optional(v.string({ maxLength: 200 }), ''),
  OperationType: v.optional(v.string({ maxLength: 100 }), ''),
  FillType: v.optional(v.string({ maxLength: 100 }), ''),
  ExchangeRateCoinsToSellPerCoinToBuy: v.optional(float(), 0),
  QuantityToFill: v.optional(float(), 0),
  ...constructFields,
});

/** A limit order's request without a price: a market order takes the book's resting rates. */
const createMarketOrderBody = v.object({
  TransactorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  BuyingDAOCoinCreatorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  SellingDAOCoinCreatorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  Quantity: v.optional(v.string({ maxLength: 200 }), ''),
  OperationType: v.optional(v.string({ maxLength: 100 }), ''),
  FillType: v.optional(v.string({ maxLength: 100 }), ''),
  QuantityToFill: v.optional(float(), 0),
  ...constructFields,
});

const cancelOrderBody = v.object({
  TransactorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  CancelOrderID: v.optional(v.string({ maxLength: 200 }), ''),
  ...constructFields,
});

export const daoCoinTxnResponse = constructedResponse('DAOCoinResponse', CONSTRUCTED_WITH_HASH);
export const transferDaoCoinResponse = constructedResponse('TransferDAOCoinResponse', CONSTRUCTED_WITH_HASH);
export const daoCoinLimitOrderResponse = constructedResponse('DAOCoinLimitOrderResponse', CONSTRUCTED_WITH_SPEND, {
  SimulatedExecutionResult: out.nullable(
    out.object(
      { BuyingCoinQuantityFilled: out.string('Decimal'), SellingCoinQuantityFilled: out.string('Decimal') },
      'What the order would fill now against the book (tip plus mempool); null for a cancellation',
    ),
  ),
});

/** A lookup table for client strings: no prototype, so "constructor" or "__proto__" find nothing. */
const nameTable = (entries: Record<string, number>): Readonly<Record<string, number>> => Object.freeze(Object.assign(Object.create(null) as Record<string, number>, entries));

const DAO_COIN_OPERATIONS = nameTable({
  mint: DAOCoinOperation.MINT,
  burn: DAOCoinOperation.BURN,
  disable_minting: DAOCoinOperation.DISABLE_MINTING,
  update_transfer_restriction_status: DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS,
});

const TRANSFER_RESTRICTION_BY_NAME = nameTable(
  Object.fromEntries(Object.entries(TRANSFER_RESTRICTION_STATUS_NAMES).map(([n, name]) => [name, Number(n)])),
);

const FILL_TYPES = nameTable({
  GOOD_TILL_CANCELLED: DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED,
  IMMEDIATE_OR_CANCEL: DAOCoinLimitOrderFill.IMMEDIATE_OR_CANCEL,
  FILL_OR_KILL: DAOCoinLimitOrderFill.FILL_OR_KILL,
});

/** The backend's DESO identifiers for a coin field: "DESO", the zero key on either network, or (create) "". */
function isDesoIdentifier(s: string): boolean {
  return s === '' || s === 'DESO' || s === encodePublicKey(DESO_COIN, 'mainnet') || s === encodePublicKey(DESO_COIN, 'testnet');
}

/** A market order's DESO identifiers: "DESO" or the zero key on either network; "" is not DESO (backend). */
function isMarketDesoIdentifier(s: string): boolean {
  return s !== '' && isDesoIdentifier(s);
}

/** The response fields DAOCoinResponse / TransferDAOCoinResponse carry. */
function daoCoinResponse(f: Awaited<ReturnType<typeof constructForRequest>>['fields']): Record<string, unknown> {
  return { TotalInputNanos: f.TotalInputNanos, ChangeAmountNanos: f.ChangeAmountNanos, FeeNanos: f.FeeNanos, Transaction: f.Transaction, TransactionHex: f.TransactionHex, TxnHashHex: f.TxnHashHex };
}

/** The backend's helpers prefix their errors and the handlers prefix them again (quirk). */
const LIMIT_PREFIX = 'CreateDAOCoinLimitOrder: CreateDAOCoinLimitOrder: ';
const MARKET_PREFIX = 'CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: ';

/** The fields limit and market orders share (their bodies' common part). */
interface OrderBody {
  TransactorPublicKeyBase58Check: string;
  BuyingDAOCoinCreatorPublicKeyBase58Check: string;
  SellingDAOCoinCreatorPublicKeyBase58Check: string;
  OperationType: string;
  Quantity: string;
  QuantityToFill: number;
}

/**
 * The checks both order routes make in the backend's order: transactor given, side known; then
 * (`quantity`, after the route's own fill-type and price checks) the quantity; then (`resolve`)
 * the coins, not both DESO, and the transactor's key, on the pending state.
 */
function orderRequest(deps: Pick<AppDeps, 'chain' | 'config'>, body: OrderBody, prefix: string, isDeso: (s: string) => boolean) {
  const network = deps.config.network;
  const fail = (msg: string): ApiError => badRequest(`${prefix}${msg}`);
  if (body.TransactorPublicKeyBase58Check === '') throw fail('must provide a TransactorPublicKeyBase58Check');
  if (body.OperationType !== 'ASK' && body.OperationType !== 'BID') throw fail(`Unknown string value for DAOCoinLimitOrderOperationType ${body.OperationType}`);
  const side: OrderSide = body.OperationType;
  const sides = { buyingIsDeso: isDeso(body.BuyingDAOCoinCreatorPublicKeyBase58Check), sellingIsDeso: isDeso(body.SellingDAOCoinCreatorPublicKeyBase58Check) };
  return {
    fail,
    side,
    sides,
    /** A quantity the conversion refuses is a DAO_COIN_PRICE_INVALID (the route's errorPrefixes). */
    quantity(): bigint {
      if (body.Quantity !== '') return quantityToBaseUnits(sides, side, body.Quantity);
      if (body.QuantityToFill > 0) return quantityToBaseUnits(sides, side, formatFloatAsString(body.QuantityToFill));
      throw fail('Quantity must be provided as a valid decimal string (ex: 1.23)');
    },
    async resolve(quantity: bigint): Promise<{ state: StateView; order: { transactor: Uint8Array; buying: Uint8Array; selling: Uint8Array; quantity: bigint; side: OrderSide } }> {
      if (sides.buyingIsDeso && sides.sellingIsDeso) {
        throw fail("'DESO' specified for both the coin to buy and the coin to sell. At least one must specify a valid DAO public key whose coin will be bought or sold");
      }
      const transactor = decodeKeyOr400(body.TransactorPublicKeyBase58Check, network, 'TransactorPublicKeyBase58Check', `${prefix}Invalid TransactorPublicKeyBase58Check`);
      const state = await deps.chain.pendingView();
      const coin = (s: string, deso: boolean, field: string): Promise<Uint8Array> =>
        deso ? Promise.resolve(DESO_COIN) : resolvePublicKeyOrUsername(state, s, network, field, `${prefix}Invalid ${field}: `);
      const buying = await coin(body.BuyingDAOCoinCreatorPublicKeyBase58Check, sides.buyingIsDeso, 'BuyingDAOCoinCreatorPublicKeyBase58Check');
      const selling = await coin(body.SellingDAOCoinCreatorPublicKeyBase58Check, sides.sellingIsDeso, 'SellingDAOCoinCreatorPublicKeyBase58Check');
      return { state, order: { transactor, buying, selling, quantity, side } };
    },
  };
}

/**
 * The reference's answer to an order: the constructed transaction's fields and its simulated
 * execution (null for a cancellation, which the reference does not simulate).
 */
function orderResponse({ built, simulated }: { built: ConstructedResponse; simulated: SimulatedExecution | null }) {
  const f = built.fields;
  return json({
    SpendAmountNanos: f.SpendAmountNanos,
    TotalInputNanos: f.TotalInputNanos,
    ChangeAmountNanos: f.ChangeAmountNanos,
    FeeNanos: f.FeeNanos,
    Transaction: f.Transaction,
    TransactionHex: f.TransactionHex,
    TxnHashHex: f.TxnHashHex,
    SimulatedExecutionResult: simulated,
  });
}

export function daoCoinRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/dao-coin',
      summary: 'Construct a DAO_COIN transaction: mint, burn, disable minting or update the transfer restriction (reference §4.2)',
      body: daoCoinBody,
      response: daoCoinTxnResponse,
      async handle({ body }) {
        const updater = decodeKeyOr400(body.UpdaterPublicKeyBase58Check, network, 'UpdaterPublicKeyBase58Check', 'DAOCoin: Problem decoding updater public key');
        const state = await deps.chain.pendingView();
        const creator = await resolvePublicKeyOrUsername(state, body.ProfilePublicKeyBase58CheckOrUsername, network, 'ProfilePublicKeyBase58CheckOrUsername', 'DAOCoin: Problem getting profile for ProfilePublicKeyBase58CheckOrUsername: ');
        const operationType = DAO_COIN_OPERATIONS[body.OperationType];
        if (operationType === undefined) throw badRequest(`DAOCoin: Invalid OperationType ${JSON.stringify(body.OperationType)}: expected one of ${Object.keys(DAO_COIN_OPERATIONS).join(', ')}`);
        let status: number = TransferRestrictionStatus.UNRESTRICTED;
        if (operationType === DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS) {
          const named = TRANSFER_RESTRICTION_BY_NAME[body.TransferRestrictionStatus];
          if (named === undefined) throw badRequest(`DAOCoin: Invalid TransferRestrictionStatus ${JSON.stringify(body.TransferRestrictionStatus)}: expected one of ${Object.keys(TRANSFER_RESTRICTION_BY_NAME).join(', ')}`);
          status = named;
        }
        const built = await constructForRequest(deps, {
          publicKey: updater,
          metadata: {
            type: 'DAO_COIN',
            profilePublicKey: creator,
            operationType,
            coinsToMintNanos: operationType === DAOCoinOperation.MINT ? body.CoinsToMintNanos : 0n,
            coinsToBurnNanos: operationType === DAOCoinOperation.BURN ? body.CoinsToBurnNanos : 0n,
            transferRestrictionStatus: status,
          },
          fields: body,
        });
        return json(daoCoinResponse(built.fields));
      },
    }),
    route({
      method: 'POST',
      path: '/transfer-dao-coin',
      summary: 'Construct a DAO_COIN_TRANSFER transaction (reference §4.2)',
      body: transferDaoCoinBody,
      response: transferDaoCoinResponse,
      async handle({ body }) {
        const sender = decodeKeyOr400(body.SenderPublicKeyBase58Check, network, 'SenderPublicKeyBase58Check', 'TransferDAOCoin: Problem decoding sender public key');
        const state = await deps.chain.pendingView();
        const creator = await resolvePublicKeyOrUsername(state, body.ProfilePublicKeyBase58CheckOrUsername, network, 'ProfilePublicKeyBase58CheckOrUsername', 'TransferDAOCoin: Problem getting profile for ProfilePublicKeyBase58CheckOrUsername: ');
        const receiver = await resolvePublicKeyOrUsername(state, body.ReceiverPublicKeyBase58CheckOrUsername, network, 'ReceiverPublicKeyBase58CheckOrUsername', 'TransferDAOCoin: Problem getting receiver for ReceiverPublicKeyBase58CheckOrUsername: ');
        const built = await constructForRequest(deps, {
          publicKey: sender,
          metadata: { type: 'DAO_COIN_TRANSFER', profilePublicKey: creator, daoCoinToTransferNanos: body.DAOCoinToTransferNanos, receiverPublicKey: receiver },
          fields: body,
        });
        return json(daoCoinResponse(built.fields));
      },
    }),
    route({
      method: 'POST',
      path: '/create-dao-coin-limit-order',
      summary: 'Construct a DAO coin limit order from Price/Quantity strings, with its simulated execution (reference §4.2, §7.3)',
      body: createOrderBody,
      response: daoCoinLimitOrderResponse,
      errorPrefixes: { DAO_COIN_PRICE_INVALID: LIMIT_PREFIX, DAO_COIN_ORDER_INVALID: LIMIT_PREFIX },
      async handle({ body }) {
        const o = orderRequest(deps, body, LIMIT_PREFIX, isDesoIdentifier);
        const fillType = body.FillType === '' ? DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED : FILL_TYPES[body.FillType];
        if (fillType === undefined) throw o.fail(`Unknown DAO coin limit order fill type ${body.FillType}`);
        // A price the conversions refuse is a DAO_COIN_PRICE_INVALID (errorPrefixes).
        let rate: bigint;
        if (body.Price !== '') rate = priceToScaledExchangeRate(o.sides, body.Price, o.side);
        else if (body.ExchangeRateCoinsToSellPerCoinToBuy > 0) rate = floatToScaledExchangeRate(o.sides, body.ExchangeRateCoinsToSellPerCoinToBuy);
        else throw o.fail('Price must be provided as a valid decimal string (ex: 1.23)');
        const { state, order } = await o.resolve(o.quantity());
        return orderResponse(await createLimitOrder(deps, state, { ...order, rate, fillType }, body));
      },
    }),
    route({
      method: 'POST',
      path: '/create-dao-coin-market-order',
      summary: 'Construct an immediate-or-cancel or fill-or-kill DAO coin order from a Quantity without a price (exchange rate 0: it fills at the resting orders\' rates, best first), with its simulated execution (reference social-graph.md §9)',
      body: createMarketOrderBody,
      response: daoCoinLimitOrderResponse,
      errorPrefixes: { DAO_COIN_PRICE_INVALID: MARKET_PREFIX, DAO_COIN_ORDER_INVALID: MARKET_PREFIX },
      async handle({ body }) {
        const o = orderRequest(deps, body, MARKET_PREFIX, isMarketDesoIdentifier);
        if (body.FillType === 'GOOD_TILL_CANCELLED') throw o.fail('GoodTillCancelled fill type not supported for market orders');
        const fillType = body.FillType === 'IMMEDIATE_OR_CANCEL' || body.FillType === 'FILL_OR_KILL' ? FILL_TYPES[body.FillType]! : undefined;
        if (fillType === undefined) throw o.fail(`Unknown DAO coin limit order fill type ${body.FillType}`);
        // BID: the amount of the coin bought; ASK: of the coin sold (×1e9 for DESO, ×1e18 for a DAO coin).
        const { state, order } = await o.resolve(o.quantity());
        return orderResponse(await createMarketOrder(deps, state, { ...order, fillType }, body));
      },
    }),
    route({
      method: 'POST',
      path: '/cancel-dao-coin-limit-order',
      summary: 'Construct the cancellation of one of the transactor’s open DAO coin limit orders (reference §4.2)',
      body: cancelOrderBody,
      response: daoCoinLimitOrderResponse,
      async handle({ body }) {
        if (body.TransactorPublicKeyBase58Check === '') throw badRequest('CancelDAOCoinLimitOrder: must provide a TransactorPublicKeyBase58Check');
        const state = await deps.chain.pendingView();
        const transactor = await resolvePublicKeyOrUsername(state, body.TransactorPublicKeyBase58Check, network, 'TransactorPublicKeyBase58Check', 'CancelDAOCoinLimitOrder: Invalid TransactorPublicKeyBase58Check: ');
        const orderId = parseOrderId(body.CancelOrderID);
        if (typeof orderId === 'string') throw badRequest(`CancelDAOCoinLimitOrder: CancelOrderID param is not a valid order id: ${orderId}`);
        return orderResponse({ built: await cancelLimitOrder(deps, transactor, orderId, body), simulated: null });
      },
    }),
  ];
}

/** 64 hex digits, or why not (Go encoding/hex and BlockHash length wording). */
function parseOrderId(s: string): Uint8Array | string {
  const bad = /[^0-9a-fA-F]/.exec(s);
  if (bad) return `encoding/hex: invalid byte: U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(bad[0]).replace(/"/g, "'")}`;
  if (s.length % 2 !== 0) return 'encoding/hex: odd length hex string';
  if (s.length !== 64) return `expected a 32-byte hash, got ${s.length / 2} bytes`;
  return new Uint8Array(Buffer.from(s, 'hex'));
}
