/**
 * Routes of this area (reference node-api.md §4.2, §7.3, social-graph.md §9; backend
 * routes/transaction.go and routes/dao_coin_exchange.go): dao-coin, transfer-dao-coin,
 * create-/cancel-dao-coin-limit-order, create-dao-coin-market-order.
 * Each validates what the reference validates, builds the unsigned transaction and answers the
 * reference's fields; the consensus rules run again when the signed transaction is submitted.
 * @module
 */
import type { AppDeps } from '../app.js';
import { formatFloatAsString, formatScaledDecimal, BASE_UNITS_PER_DAO_COIN, NANOS_PER_DESO, PriceConversionError, floatToScaledExchangeRate, priceToScaledExchangeRate, quantityToBaseUnits, type OrderSide } from '../chain/daoCoinPrices.js';
import type { Constructed } from '../chain/construct.js';
import { computeBaseUnitsToSell, orderBaseUnitsToSell } from '../chain/rules/daoCoinLimitOrders.js';
import { isRuleError } from '../chain/rules/errors.js';
import { getBalance } from '../chain/state/balances.js';
import { getDAOCoinBalance, getDAOCoinEntry, TRANSFER_RESTRICTION_STATUS_NAMES, TransferRestrictionStatus } from '../chain/state/daoCoins.js';
import { DESO_COIN, isDesoCoin, ordersForTransactor } from '../chain/state/daoCoinLimitOrders.js';
import { getProfile, publicKeyForUsername } from '../chain/state/profiles.js';
import type { StateView } from '../chain/state/view.js';
import { DAOCoinLimitOrderFill, DAOCoinLimitOrderOperation, DAOCoinOperation, type DAOCoinLimitOrderMetadata } from '../chain/txn/metadata.js';
import { ApiError, badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { v, ValidationError, type Schema } from '../http/schema.js';
import { decodePublicKey, encodePublicKey, isKeyError, type Network } from '../keys/index.js';
import { isStoreUnavailable } from '../store/types.js';
import { constructFields, constructForRequest, type ConstructRequest } from './constructed.js';
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

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A public key, or else a username with a profile (backend GetPubKeyAndProfileEntryForUsernameOrPublicKeyBase58Check). */
async function keyOrUsername(state: StateView, s: string, network: Network): Promise<Uint8Array | string> {
  try {
    return decodePublicKey(s, network, 'public key');
  } catch (e) {
    if (!isKeyError(e)) throw e;
    const pk = await publicKeyForUsername(state, s);
    // Not echoed: a string that is not a key could be a pasted private key.
    return pk ?? `it is not a public key (${errorText(e)}) and no profile has that username`;
  }
}

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

/**
 * Builds a limit-order transaction whose metadata FeeNanos equals its fee (core requires it).
 * The fee grows with the varint that carries it, so rebuild until it stops changing.
 */
async function constructLimitOrder(deps: AppDeps, base: Omit<ConstructRequest, 'metadata'>, metadata: DAOCoinLimitOrderMetadata) {
  let built = await constructForRequest(deps, { ...base, metadata: { ...metadata, feeNanos: 0n } });
  for (let i = 0; i < 8; i++) {
    const fee = built.constructed.feeNanos;
    built = await constructForRequest(deps, { ...base, metadata: { ...metadata, feeNanos: fee } });
    if (built.constructed.feeNanos === fee) return built;
  }
  throw new Error('the limit order fee did not settle');
}

/** A simulated order that would move coins the wrong way (the backend refuses to report it). */
class SimulationError extends Error {
  override readonly name = 'SimulationError';
}

/** A coin's balance of the transactor in base units (DESO nanos or DAO coin base units). */
async function coinBalance(state: StateView, holder: Uint8Array, coin: Uint8Array): Promise<bigint> {
  return isDesoCoin(coin) ? getBalance(state, holder) : getDAOCoinBalance(state, holder, coin);
}

/**
 * Backend getDAOCoinLimitOrderSimulatedExecutionResult: connect the unsigned order on the
 * pending state (tip + mempool) in a throw-away view and report how much of each coin changed
 * hands, the fee added back on the DESO side.
 */
async function simulateExecution(deps: AppDeps, pending: StateView, built: Constructed, transactor: Uint8Array, buying: Uint8Array, selling: Uint8Array) {
  const [buyingBefore, sellingBefore] = [await coinBalance(pending, transactor, buying), await coinBalance(pending, transactor, selling)];
  const sim = await deps.chain.simulate(built.bytes, transactor, pending);
  const fee = built.feeNanos;
  const buyingAfter = (await coinBalance(sim, transactor, buying)) + (isDesoCoin(buying) ? fee : 0n);
  const sellingAfter = (await coinBalance(sim, transactor, selling)) + (isDesoCoin(selling) ? fee : 0n);
  if (buyingAfter < buyingBefore) throw new SimulationError('Buying coin balance cannot decrease as a result of a DAO coin limit order execution');
  if (sellingAfter > sellingBefore) throw new SimulationError('Selling coin balance cannot increase as a result of a DAO coin limit order execution');
  const scale = (coin: Uint8Array): bigint => (isDesoCoin(coin) ? NANOS_PER_DESO : BASE_UNITS_PER_DAO_COIN);
  return {
    BuyingCoinQuantityFilled: formatScaledDecimal(buyingAfter - buyingBefore, scale(buying)),
    SellingCoinQuantityFilled: formatScaledDecimal(sellingBefore - sellingAfter, scale(selling)),
  };
}

export function daoCoinRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/dao-coin',
      summary: 'Construct a DAO_COIN transaction: mint, burn, disable minting or update the transfer restriction (reference §4.2)',
      body: daoCoinBody,
      async handle({ body }) {
        const updater = decodeKeyOr400(body.UpdaterPublicKeyBase58Check, network, 'UpdaterPublicKeyBase58Check', 'DAOCoin: Problem decoding updater public key');
        const state = await deps.chain.pendingView();
        const creator = await keyOrUsername(state, body.ProfilePublicKeyBase58CheckOrUsername, network);
        if (typeof creator === 'string') throw badRequest(`DAOCoin: Problem getting profile for ProfilePublicKeyBase58CheckOrUsername: ${creator}`);
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
      async handle({ body }) {
        const sender = decodeKeyOr400(body.SenderPublicKeyBase58Check, network, 'SenderPublicKeyBase58Check', 'TransferDAOCoin: Problem decoding sender public key');
        const state = await deps.chain.pendingView();
        const creator = await keyOrUsername(state, body.ProfilePublicKeyBase58CheckOrUsername, network);
        if (typeof creator === 'string') throw badRequest(`TransferDAOCoin: Problem getting profile for ProfilePublicKeyBase58CheckOrUsername: ${creator}`);
        const receiver = await keyOrUsername(state, body.ReceiverPublicKeyBase58CheckOrUsername, network);
        if (typeof receiver === 'string') throw badRequest(`TransferDAOCoin: Problem getting receiver for ReceiverPublicKeyBase58CheckOrUsername: ${receiver}`);
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
      async handle({ body }) {
        // The backend's helper prefixes its errors and the handler prefixes them again (quirk).
        const fail = (msg: string): ApiError => badRequest(`CreateDAOCoinLimitOrder: CreateDAOCoinLimitOrder: ${msg}`);
        if (body.TransactorPublicKeyBase58Check === '') throw fail('must provide a TransactorPublicKeyBase58Check');
        if (body.OperationType !== 'ASK' && body.OperationType !== 'BID') throw fail(`Unknown string value for DAOCoinLimitOrderOperationType ${body.OperationType}`);
        const side: OrderSide = body.OperationType;
        const fillType = body.FillType === '' ? DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED : FILL_TYPES[body.FillType];
        if (fillType === undefined) throw fail(`Unknown DAO coin limit order fill type ${body.FillType}`);
        const buyingIsDeso = isDesoIdentifier(body.BuyingDAOCoinCreatorPublicKeyBase58Check);
        const sellingIsDeso = isDesoIdentifier(body.SellingDAOCoinCreatorPublicKeyBase58Check);
        const sides = { buyingIsDeso, sellingIsDeso };
        let rate: bigint;
        let quantity: bigint;
        try {
          if (body.Price !== '') rate = priceToScaledExchangeRate(sides, body.Price, side);
          else if (body.ExchangeRateCoinsToSellPerCoinToBuy > 0) rate = floatToScaledExchangeRate(sides, body.ExchangeRateCoinsToSellPerCoinToBuy);
          else throw fail('Price must be provided as a valid decimal string (ex: 1.23)');
          if (body.Quantity !== '') quantity = quantityToBaseUnits(sides, side, body.Quantity);
          else if (body.QuantityToFill > 0) quantity = quantityToBaseUnits(sides, side, formatFloatAsString(body.QuantityToFill));
          else throw fail('Quantity must be provided as a valid decimal string (ex: 1.23)');
        } catch (e) {
          if (e instanceof PriceConversionError) throw fail(e.message);
          throw e;
        }
        if (buyingIsDeso && sellingIsDeso) {
          throw fail("'DESO' specified for both the coin to buy and the coin to sell. At least one must specify a valid DAO public key whose coin will be bought or sold");
        }
        const transactor = decodeKeyOr400(body.TransactorPublicKeyBase58Check, network, 'TransactorPublicKeyBase58Check', 'CreateDAOCoinLimitOrder: CreateDAOCoinLimitOrder: Invalid TransactorPublicKeyBase58Check');
        const state = await deps.chain.pendingView();
        const coin = async (s: string, isDeso: boolean, field: string): Promise<Uint8Array> => {
          if (isDeso) return DESO_COIN;
          const k = await keyOrUsername(state, s, network);
          if (typeof k === 'string') throw fail(`Invalid ${field}: ${k}`);
          return k;
        };
        const buying = await coin(body.BuyingDAOCoinCreatorPublicKeyBase58Check, buyingIsDeso, 'BuyingDAOCoinCreatorPublicKeyBase58Check');
        const selling = await coin(body.SellingDAOCoinCreatorPublicKeyBase58Check, sellingIsDeso, 'SellingDAOCoinCreatorPublicKeyBase58Check');
        await precheckTransferRestriction(state, transactor, buying, fail);
        await precheckSellingBalance(state, { transactor, buying, selling, rate, quantity, side }, fail);

        const metadata: DAOCoinLimitOrderMetadata = {
          type: 'DAO_COIN_LIMIT_ORDER',
          buyingDAOCoinCreatorPublicKey: buying,
          sellingDAOCoinCreatorPublicKey: selling,
          scaledExchangeRateCoinsToSellPerCoinToBuy: rate,
          quantityToFillInBaseUnits: quantity,
          operationType: side === 'ASK' ? DAOCoinLimitOrderOperation.ASK : DAOCoinLimitOrderOperation.BID,
          fillType,
          cancelOrderId: null,
          bidderInputs: [],
          feeNanos: 0n,
        };
        const built = await constructLimitOrder(deps, { publicKey: transactor, fields: body }, metadata);
        let simulated;
        try {
          simulated = await simulateExecution(deps, state, built.constructed, transactor, buying, selling);
        } catch (e) {
          if (isRuleError(e) || e instanceof SimulationError) throw fail(`Problem simulating DAO coin limit order execution: ${e.message}`);
          throw e;
        }
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
      },
    }),
    route({
      method: 'POST',
      path: '/create-dao-coin-market-order',
      summary: 'Construct an immediate-or-cancel or fill-or-kill DAO coin order from a Quantity without a price (exchange rate 0: it fills at the resting orders\' rates, best first), with its simulated execution (reference social-graph.md §9)',
      body: createMarketOrderBody,
      async handle({ body }) {
        // The backend's helper prefixes its errors and the handler prefixes them again (quirk).
        const fail = (msg: string): ApiError => badRequest(`CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: ${msg}`);
        if (body.TransactorPublicKeyBase58Check === '') throw fail('must provide a TransactorPublicKeyBase58Check');
        if (body.OperationType !== 'ASK' && body.OperationType !== 'BID') throw fail(`Unknown string value for DAOCoinLimitOrderOperationType ${body.OperationType}`);
        const side: OrderSide = body.OperationType;
        if (body.FillType === 'GOOD_TILL_CANCELLED') throw fail('GoodTillCancelled fill type not supported for market orders');
        const fillType = body.FillType === 'IMMEDIATE_OR_CANCEL' || body.FillType === 'FILL_OR_KILL' ? FILL_TYPES[body.FillType]! : undefined;
        if (fillType === undefined) throw fail(`Unknown DAO coin limit order fill type ${body.FillType}`);
        const buyingIsDeso = isMarketDesoIdentifier(body.BuyingDAOCoinCreatorPublicKeyBase58Check);
        const sellingIsDeso = isMarketDesoIdentifier(body.SellingDAOCoinCreatorPublicKeyBase58Check);
        const sides = { buyingIsDeso, sellingIsDeso };
        let quantity: bigint;
        try {
          // BID: the amount of the coin bought; ASK: of the coin sold (×1e9 for DESO, ×1e18 for a DAO coin).
          if (body.Quantity !== '') quantity = quantityToBaseUnits(sides, side, body.Quantity);
          else if (body.QuantityToFill > 0) quantity = quantityToBaseUnits(sides, side, formatFloatAsString(body.QuantityToFill));
          else throw fail('Quantity must be provided as a valid decimal string (ex: 1.23)');
        } catch (e) {
          if (e instanceof PriceConversionError) throw fail(e.message);
          throw e;
        }
        if (buyingIsDeso && sellingIsDeso) {
          throw fail("'DESO' specified for both the coin to buy and the coin to sell. At least one must specify a valid DAO public key whose coin will be bought or sold");
        }
        const transactor = decodeKeyOr400(body.TransactorPublicKeyBase58Check, network, 'TransactorPublicKeyBase58Check', 'CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: Invalid TransactorPublicKeyBase58Check');
        const state = await deps.chain.pendingView();
        const coin = async (s: string, isDeso: boolean, field: string): Promise<Uint8Array> => {
          if (isDeso) return DESO_COIN;
          const k = await keyOrUsername(state, s, network);
          if (typeof k === 'string') throw fail(`Invalid ${field}: ${k}`);
          return k;
        };
        const buying = await coin(body.BuyingDAOCoinCreatorPublicKeyBase58Check, buyingIsDeso, 'BuyingDAOCoinCreatorPublicKeyBase58Check');
        const selling = await coin(body.SellingDAOCoinCreatorPublicKeyBase58Check, sellingIsDeso, 'SellingDAOCoinCreatorPublicKeyBase58Check');
        // The buy side's transfer restriction is checked here; the selling balance only when
        // the order matches (core), since what a market order sells depends on the book.
        await precheckTransferRestriction(state, transactor, buying, fail);

        const metadata: DAOCoinLimitOrderMetadata = {
          type: 'DAO_COIN_LIMIT_ORDER',
          buyingDAOCoinCreatorPublicKey: buying,
          sellingDAOCoinCreatorPublicKey: selling,
          // Rate 0 with IOC/FOK is core's market order (IsMarketOrder): no price check.
          scaledExchangeRateCoinsToSellPerCoinToBuy: 0n,
          quantityToFillInBaseUnits: quantity,
          operationType: side === 'ASK' ? DAOCoinLimitOrderOperation.ASK : DAOCoinLimitOrderOperation.BID,
          fillType,
          cancelOrderId: null,
          bidderInputs: [],
          feeNanos: 0n,
        };
        const built = await constructLimitOrder(deps, { publicKey: transactor, fields: body }, metadata);
        let simulated;
        try {
          simulated = await simulateExecution(deps, state, built.constructed, transactor, buying, selling);
        } catch (e) {
          if (isRuleError(e) || e instanceof SimulationError) throw fail(`Problem simulating DAO coin market order execution: ${e.message}`);
          throw e;
        }
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
      },
    }),
    route({
      method: 'POST',
      path: '/cancel-dao-coin-limit-order',
      summary: 'Construct the cancellation of one of the transactor’s open DAO coin limit orders (reference §4.2)',
      body: cancelOrderBody,
      async handle({ body }) {
        if (body.TransactorPublicKeyBase58Check === '') throw badRequest('CancelDAOCoinLimitOrder: must provide a TransactorPublicKeyBase58Check');
        const state = await deps.chain.pendingView();
        // As the backend: a string starting like a key is a key, anything else a username.
        const given = body.TransactorPublicKeyBase58Check;
        let transactor: Uint8Array;
        if (given.startsWith('BC') || given.startsWith('tBC')) {
          transactor = decodeKeyOr400(given, network, 'TransactorPublicKeyBase58Check', 'CancelDAOCoinLimitOrder: Invalid TransactorPublicKeyBase58Check');
        } else {
          const pk = await publicKeyForUsername(state, given);
          if (pk === undefined) throw badRequest(`CancelDAOCoinLimitOrder: Invalid TransactorPublicKeyBase58Check: no profile has the username ${given}`);
          transactor = pk;
        }
        const orderId = parseOrderId(body.CancelOrderID);
        if (typeof orderId === 'string') throw badRequest(`CancelDAOCoinLimitOrder: CancelOrderID param is not a valid order id: ${orderId}`);
        let built;
        try {
          built = await constructLimitOrder(deps, { publicKey: transactor, fields: body }, {
            type: 'DAO_COIN_LIMIT_ORDER',
            buyingDAOCoinCreatorPublicKey: null,
            sellingDAOCoinCreatorPublicKey: null,
            scaledExchangeRateCoinsToSellPerCoinToBuy: null,
            quantityToFillInBaseUnits: null,
            operationType: 0,
            fillType: 0,
            cancelOrderId: orderId,
            bidderInputs: [],
            feeNanos: 0n,
          });
        } catch (e) {
          // The reference answers construction failures of a cancel with 500; a store that
          // cannot answer stays a 503.
          if (e instanceof ApiError || isStoreUnavailable(e)) throw e;
          throw new ApiError(500, `CancelDAOCoinLimitOrder: Problem constructing transaction: ${errorText(e)}`);
        }
        const f = built.fields;
        return json({
          SpendAmountNanos: f.SpendAmountNanos,
          TotalInputNanos: f.TotalInputNanos,
          ChangeAmountNanos: f.ChangeAmountNanos,
          FeeNanos: f.FeeNanos,
          Transaction: f.Transaction,
          TransactionHex: f.TransactionHex,
          TxnHashHex: f.TxnHashHex,
          SimulatedExecutionResult: null,
        });
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

/** Backend validateDAOCoinOrderTransferRestriction: may the transactor receive the coin it buys? */
async function precheckTransferRestriction(state: StateView, transactor: Uint8Array, buying: Uint8Array, fail: (m: string) => ApiError): Promise<void> {
  if (isDesoCoin(buying)) return;
  if ((await getProfile(state, buying)) === undefined) throw fail('Buying DAO coin creator profile entry not found');
  const { transferRestrictionStatus } = await getDAOCoinEntry(state, buying);
  if (transferRestrictionStatus === TransferRestrictionStatus.PROFILE_OWNER_ONLY && Buffer.compare(transactor, buying) !== 0) {
    throw fail('Buying this DAO coin is restricted to the creator of the DAO');
  }
  if (transferRestrictionStatus === TransferRestrictionStatus.DAO_MEMBERS_ONLY && (await getDAOCoinBalance(state, transactor, buying)) === 0n) {
    throw fail('Buying this DAO coin is restricted to users who already own this DAO coin');
  }
}

interface NewOrder {
  transactor: Uint8Array;
  buying: Uint8Array;
  selling: Uint8Array;
  rate: bigint;
  quantity: bigint;
  side: OrderSide;
}

/**
 * Backend validateTransactorSellingCoinBalance: the selling balance must cover this order plus
 * the transactor's open orders on the same pair.
 */
async function precheckSellingBalance(state: StateView, o: NewOrder, fail: (m: string) => ApiError): Promise<void> {
  let balance: bigint;
  if (isDesoCoin(o.selling)) balance = await getBalance(state, o.transactor);
  else {
    balance = await getDAOCoinBalance(state, o.transactor, o.selling);
    if (balance === 0n) throw fail('Error getting transactor DAO coin balance not found');
  }
  let total: bigint;
  try {
    total = o.side === 'ASK' ? o.quantity : computeBaseUnitsToSell(o.rate, o.quantity);
    for (const open of await ordersForTransactor(state, o.transactor, { buying: o.buying, selling: o.selling })) total += orderBaseUnitsToSell(open);
  } catch (e) {
    if (isRuleError(e)) throw fail(`Error calculating new order selling quantity: ${e.message}`);
    throw e;
  }
  if (balance < total) throw fail('Insufficient balance to open order');
}
