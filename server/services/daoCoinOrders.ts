/**
 * DAO coin limit orders as the construction routes build them (reference backend
 * routes/dao_coin_exchange.go): the prechecks the backend runs before it builds an order, the
 * fee fixpoint that puts the order's own fee into its metadata, and the simulated execution it
 * answers with. Knows no HTTP: failures are DaoCoinOrderError with the backend's text, and the
 * route puts the backend's prefix before it (routes/daoCoins.ts `errorPrefixes`).
 * @module
 */
import type { Constructed } from '../chain/construct.js';
import { BASE_UNITS_PER_DAO_COIN, formatScaledDecimal, NANOS_PER_DESO, type OrderSide } from '../chain/daoCoinPrices.js';
import { computeBaseUnitsToSell, orderBaseUnitsToSell } from '../chain/rules/daoCoinLimitOrders.js';
import { isRuleError } from '../chain/rules/errors.js';
import { getBalance } from '../chain/state/balances.js';
import { getDAOCoinBalance, getDAOCoinEntry, TransferRestrictionStatus } from '../chain/state/daoCoins.js';
import { isDesoCoin, ordersForTransactor } from '../chain/state/daoCoinLimitOrders.js';
import { getProfile } from '../chain/state/profiles.js';
import type { StateView } from '../chain/state/view.js';
import { DAOCoinLimitOrderOperation, type DAOCoinLimitOrderMetadata } from '../chain/txn/metadata.js';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import { constructForRequest, type ConstructedResponse, type ConstructRequest } from './construct.js';

/** An order the backend refuses before (or while) simulating it (DAO_COIN_ORDER_INVALID, 400). */
export class DaoCoinOrderError extends DomainError {
  override readonly name = 'DaoCoinOrderError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DAO_COIN_ORDER_INVALID', 'invalid', message, options);
  }
}

/** Rebuilds of the fee fixpoint before giving up (each one can only grow the fee's varint). */
const MAX_FEE_ROUNDS = 8;

/**
 * Builds a limit-order transaction whose metadata FeeNanos equals its fee (core requires it).
 * The fee grows with the varint that carries it, so rebuild until it stops changing.
 */
export async function constructLimitOrder(
  deps: Pick<AppDeps, 'chain' | 'config'>,
  base: Omit<ConstructRequest, 'metadata'>,
  metadata: DAOCoinLimitOrderMetadata,
): Promise<ConstructedResponse> {
  let built = await constructForRequest(deps, { ...base, metadata: { ...metadata, feeNanos: 0n } });
  for (let i = 0; i < MAX_FEE_ROUNDS; i++) {
    const fee = built.constructed.feeNanos;
    built = await constructForRequest(deps, { ...base, metadata: { ...metadata, feeNanos: fee } });
    if (built.constructed.feeNanos === fee) return built;
  }
  throw new Error('the limit order fee did not settle');
}

/** A new order, its coins resolved (33 zero bytes for the native coin). */
export interface NewOrder {
  transactor: Uint8Array;
  buying: Uint8Array;
  selling: Uint8Array;
  /** Scaled exchange rate, coins to sell per coin to buy (×1e38). */
  rate: bigint;
  /** Quantity to fill in base units. */
  quantity: bigint;
  side: OrderSide;
  fillType: number;
}

/** The reference's SimulatedExecutionResult. */
export interface SimulatedExecution {
  BuyingCoinQuantityFilled: string;
  SellingCoinQuantityFilled: string;
}

/**
 * Prechecks a new order on the pending state, builds it, and simulates it there.
 * @param state - the pending state (tip + mempool) the coins were resolved on
 * @param fields - the request's fee fields
 * @throws {DaoCoinOrderError} with the backend's text, for a precheck that fails or a
 *   simulation the chain's rules refuse
 */
export async function createLimitOrder(
  deps: Pick<AppDeps, 'chain' | 'config'>,
  state: StateView,
  o: NewOrder,
  fields: ConstructRequest['fields'],
): Promise<{ built: ConstructedResponse; simulated: SimulatedExecution }> {
  await precheckTransferRestriction(state, o.transactor, o.buying);
  await precheckSellingBalance(state, o);
  const built = await constructLimitOrder(deps, { publicKey: o.transactor, fields }, orderMetadata(o));
  const simulated = await simulateExecution(deps, state, built.constructed, o, 'limit');
  return { built, simulated };
}

function orderMetadata(o: NewOrder): DAOCoinLimitOrderMetadata {
  return {
    type: 'DAO_COIN_LIMIT_ORDER',
    buyingDAOCoinCreatorPublicKey: o.buying,
    sellingDAOCoinCreatorPublicKey: o.selling,
    scaledExchangeRateCoinsToSellPerCoinToBuy: o.rate,
    quantityToFillInBaseUnits: o.quantity,
    operationType: o.side === 'ASK' ? DAOCoinLimitOrderOperation.ASK : DAOCoinLimitOrderOperation.BID,
    fillType: o.fillType,
    cancelOrderId: null,
    bidderInputs: [],
    feeNanos: 0n,
  };
}

/**
 * A market order (social-graph.md §9): rate 0 with immediate-or-cancel or fill-or-kill, which
 * core fills at the resting orders' rates, best first. Only the buy side's transfer restriction
 * is checked first; what it sells depends on the book, so the selling balance is the rules'
 * (the simulation's) to check.
 * @throws {DaoCoinOrderError} with the backend's text
 */
export async function createMarketOrder(
  deps: Pick<AppDeps, 'chain' | 'config'>,
  state: StateView,
  o: Omit<NewOrder, 'rate'>,
  fields: ConstructRequest['fields'],
): Promise<{ built: ConstructedResponse; simulated: SimulatedExecution }> {
  await precheckTransferRestriction(state, o.transactor, o.buying);
  const order: NewOrder = { ...o, rate: 0n };
  const built = await constructLimitOrder(deps, { publicKey: o.transactor, fields }, orderMetadata(order));
  const simulated = await simulateExecution(deps, state, built.constructed, order, 'market');
  return { built, simulated };
}

/** The cancellation of one of the transactor's open orders, by its id. */
export function cancelLimitOrder(deps: Pick<AppDeps, 'chain' | 'config'>, transactor: Uint8Array, orderId: Uint8Array, fields: ConstructRequest['fields']): Promise<ConstructedResponse> {
  return constructLimitOrder(deps, { publicKey: transactor, fields }, {
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
async function simulateExecution(deps: Pick<AppDeps, 'chain'>, pending: StateView, built: Constructed, o: NewOrder, kind: 'limit' | 'market'): Promise<SimulatedExecution> {
  const refuse = (why: string, cause?: unknown): DaoCoinOrderError => new DaoCoinOrderError(`Problem simulating DAO coin ${kind} order execution: ${why}`, { cause });
  const { transactor, buying, selling } = o;
  const [buyingBefore, sellingBefore] = [await coinBalance(pending, transactor, buying), await coinBalance(pending, transactor, selling)];
  let sim: StateView;
  try {
    sim = await deps.chain.simulate(built.bytes, transactor, pending);
  } catch (e) {
    if (isRuleError(e)) throw refuse(e.message, e);
    throw e;
  }
  const fee = built.feeNanos;
  const buyingAfter = (await coinBalance(sim, transactor, buying)) + (isDesoCoin(buying) ? fee : 0n);
  const sellingAfter = (await coinBalance(sim, transactor, selling)) + (isDesoCoin(selling) ? fee : 0n);
  // The backend refuses to report an order that would move coins the wrong way.
  if (buyingAfter < buyingBefore) throw refuse('Buying coin balance cannot decrease as a result of a DAO coin limit order execution');
  if (sellingAfter > sellingBefore) throw refuse('Selling coin balance cannot increase as a result of a DAO coin limit order execution');
  const scale = (coin: Uint8Array): bigint => (isDesoCoin(coin) ? NANOS_PER_DESO : BASE_UNITS_PER_DAO_COIN);
  return {
    BuyingCoinQuantityFilled: formatScaledDecimal(buyingAfter - buyingBefore, scale(buying)),
    SellingCoinQuantityFilled: formatScaledDecimal(sellingBefore - sellingAfter, scale(selling)),
  };
}

/** Backend validateDAOCoinOrderTransferRestriction: may the transactor receive the coin it buys? */
async function precheckTransferRestriction(state: StateView, transactor: Uint8Array, buying: Uint8Array): Promise<void> {
  if (isDesoCoin(buying)) return;
  if ((await getProfile(state, buying)) === undefined) throw new DaoCoinOrderError('Buying DAO coin creator profile entry not found');
  const { transferRestrictionStatus } = await getDAOCoinEntry(state, buying);
  if (transferRestrictionStatus === TransferRestrictionStatus.PROFILE_OWNER_ONLY && Buffer.compare(transactor, buying) !== 0) {
    throw new DaoCoinOrderError('Buying this DAO coin is restricted to the creator of the DAO');
  }
  if (transferRestrictionStatus === TransferRestrictionStatus.DAO_MEMBERS_ONLY && (await getDAOCoinBalance(state, transactor, buying)) === 0n) {
    throw new DaoCoinOrderError('Buying this DAO coin is restricted to users who already own this DAO coin');
  }
}

/**
 * Backend validateTransactorSellingCoinBalance: the selling balance must cover this order plus
 * the transactor's open orders on the same pair.
 */
async function precheckSellingBalance(state: StateView, o: NewOrder): Promise<void> {
  let balance: bigint;
  if (isDesoCoin(o.selling)) balance = await getBalance(state, o.transactor);
  else {
    balance = await getDAOCoinBalance(state, o.transactor, o.selling);
    if (balance === 0n) throw new DaoCoinOrderError('Error getting transactor DAO coin balance not found');
  }
  let total: bigint;
  try {
    total = o.side === 'ASK' ? o.quantity : computeBaseUnitsToSell(o.rate, o.quantity);
    for (const open of await ordersForTransactor(state, o.transactor, { buying: o.buying, selling: o.selling })) total += orderBaseUnitsToSell(open);
  } catch (e) {
    if (isRuleError(e)) throw new DaoCoinOrderError(`Error calculating new order selling quantity: ${e.message}`, { cause: e });
    throw e;
  }
  if (balance < total) throw new DaoCoinOrderError('Insufficient balance to open order');
}
