/**
 * Rules of DAO_COIN_LIMIT_ORDER (reference node-api.md §7; core `_connectDAOCoinLimitOrder`
 * at the newest fork heights): placing an order matches it against the book at the resting
 * orders' rates, moves coins and DESO, and stores a GTC remainder; a cancel removes one of the
 * transactor's own orders. OrderID = the order transaction's final hash.
 *
 * Under the balance model the DESO side moves account balances directly. The metadata's
 * `BidderInputs` (UTXOs of DESO-selling counterparties, needed before the balance model) are
 * neither required nor spent; `FeeNanos` must equal the transaction's fee. Balances are
 * checked as core checks them: orders against the state before this transaction (the fee not
 * yet paid), fills against that state plus the fills so far, and the final balances after the
 * fee.
 * @module
 */
import { toHex } from '../../hex.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { DAOCoinLimitOrderFill, DAOCoinLimitOrderOperation, decodeMetadata, TxnType, type DAOCoinLimitOrderMetadata } from '../txn/metadata.js';
import { getBalance, setBalance } from '../state/balances.js';
import { getDAOCoinBalance, getDAOCoinEntry, MAX_UINT256, setDAOCoinBalance } from '../state/daoCoins.js';
import { bookOrders, deleteOrder, getOrder, isDesoCoin, putOrder, type DAOCoinLimitOrder } from '../state/daoCoinLimitOrders.js';
import { getProfile } from '../state/profiles.js';
import type { StateView } from '../state/view.js';
import type { TxnInfo, TypeHandler } from './connect.js';
import { checkDAOCoinTransferAllowed } from './daoCoins.js';
import { isRuleError, RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';

const ONE_E38 = 10n ** 38n;
const ONE_E76 = ONE_E38 * ONE_E38;
const U64_MAX = (1n << 64n) - 1n;

const { ASK, BID } = DAOCoinLimitOrderOperation;
const { GOOD_TILL_CANCELLED: GTC, IMMEDIATE_OR_CANCEL: IOC, FILL_OR_KILL: FOK } = DAOCoinLimitOrderFill;

/** The parts of an order the arithmetic needs. */
export type OrderTerms = Pick<DAOCoinLimitOrder, 'scaledExchangeRate' | 'quantityToFillInBaseUnits' | 'operationType' | 'fillType'>;

/** IOC/FOK with rate 0: takes any price (core IsMarketOrder). */
export function isMarketOrder(o: Pick<OrderTerms, 'scaledExchangeRate' | 'fillType'>): boolean {
  return o.scaledExchangeRate === 0n && (o.fillType === IOC || o.fillType === FOK);
}

/** floor(1e38 × quantityToSell / rate): buying-coin units for selling `quantityToSell` (rate > 0). */
export function computeBaseUnitsToBuy(rate: bigint, quantityToSell: bigint): bigint {
  const units = (ONE_E38 * quantityToSell) / rate;
  if (units > MAX_UINT256) throw new RuleError('RuleErrorDAOCoinLimitOrderTotalCostOverflowsUint256', `rate ${rate}, quantity to sell ${quantityToSell}`);
  if (units === 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderTotalCostIsLessThanOneNano', `selling ${quantityToSell} at rate ${rate} buys less than one base unit`);
  return units;
}

/** floor(rate × quantityToBuy / 1e38): selling-coin units for buying `quantityToBuy`. */
export function computeBaseUnitsToSell(rate: bigint, quantityToBuy: bigint): bigint {
  const scaled = rate * quantityToBuy;
  if (scaled > MAX_UINT256) throw new RuleError('RuleErrorDAOCoinLimitOrderTotalCostOverflowsUint256', `rate ${rate}, quantity to buy ${quantityToBuy}`);
  const units = scaled / ONE_E38;
  if (units === 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderTotalCostIsLessThanOneNano', `buying ${quantityToBuy} at rate ${rate} sells less than one base unit`);
  return units;
}

export function orderBaseUnitsToBuy(o: OrderTerms): bigint {
  return o.operationType === ASK ? computeBaseUnitsToBuy(o.scaledExchangeRate, o.quantityToFillInBaseUnits) : o.quantityToFillInBaseUnits;
}

export function orderBaseUnitsToSell(o: OrderTerms): bigint {
  return o.operationType === BID ? computeBaseUnitsToSell(o.scaledExchangeRate, o.quantityToFillInBaseUnits) : o.quantityToFillInBaseUnits;
}

/** What one resting order still buys and sells, 0 when dust is all that is left. */
function remainingSides(o: OrderTerms): { toBuy: bigint; toSell: bigint } {
  const q = o.quantityToFillInBaseUnits;
  const converted = o.operationType === ASK ? (ONE_E38 * q) / o.scaledExchangeRate : (o.scaledExchangeRate * q) / ONE_E38;
  return o.operationType === ASK ? { toBuy: converted, toSell: q } : { toBuy: q, toSell: converted };
}

export interface Fill {
  takerRemaining: bigint;
  restingRemaining: bigint;
  /** Base units of the taker's buying coin the taker receives (the resting order sells them). */
  takerBought: bigint;
  /** Base units of the taker's selling coin the taker gives. */
  takerSold: bigint;
}

/**
 * One taker/resting pair at the resting order's rate (core
 * `_calculateDAOCoinsTransferredInLimitOrderMatch`). Same-side pairs convert the resting
 * quantity to the taker's side first; opposite sides compare directly. Division floors.
 */
export function calculateFill(resting: OrderTerms, takerSide: number, takerQty: bigint): Fill {
  const rate = resting.scaledExchangeRate;
  const restingQty = resting.quantityToFillInBaseUnits;
  if (takerSide === ASK && resting.operationType === ASK) {
    // Both quantities are amounts sold; the resting one sells the taker's buying coin.
    const restingWants = orderBaseUnitsToBuy(resting);
    if (takerQty <= restingWants) {
      let bought = computeBaseUnitsToSell(rate, takerQty);
      // The taker never gets more than the resting order has left to sell.
      if (bought >= restingQty) bought = restingQty;
      return { takerRemaining: 0n, restingRemaining: restingQty - bought, takerBought: bought, takerSold: takerQty };
    }
    return { takerRemaining: takerQty - restingWants, restingRemaining: 0n, takerBought: restingQty, takerSold: restingWants };
  }
  if (takerSide === BID && resting.operationType === BID) {
    // Both quantities are amounts bought; the resting order buys the taker's selling coin.
    const restingOffers = orderBaseUnitsToSell(resting);
    if (takerQty <= restingOffers) {
      const sold = computeBaseUnitsToBuy(rate, takerQty);
      return { takerRemaining: 0n, restingRemaining: restingQty - sold, takerBought: takerQty, takerSold: sold };
    }
    return { takerRemaining: takerQty - restingOffers, restingRemaining: 0n, takerBought: restingOffers, takerSold: restingQty };
  }
  // Opposite sides: both quantities count the same coin.
  if (takerQty <= restingQty) {
    const restingRemaining = restingQty - takerQty;
    if (takerSide === ASK) return { takerRemaining: 0n, restingRemaining, takerBought: computeBaseUnitsToSell(rate, takerQty), takerSold: takerQty };
    return { takerRemaining: 0n, restingRemaining, takerBought: takerQty, takerSold: computeBaseUnitsToBuy(rate, takerQty) };
  }
  const takerRemaining = takerQty - restingQty;
  if (resting.operationType === ASK) return { takerRemaining, restingRemaining: 0n, takerBought: restingQty, takerSold: orderBaseUnitsToBuy(resting) };
  return { takerRemaining, restingRemaining: 0n, takerBought: orderBaseUnitsToSell(resting), takerSold: restingQty };
}

/** Resting order's priority over another (core IsBetterMatchingOrderThan); the book index sorts this way. */
export function isBetterMatchingOrder(a: DAOCoinLimitOrder, b: DAOCoinLimitOrder): boolean {
  if (a.scaledExchangeRate !== b.scaledExchangeRate) return a.scaledExchangeRate > b.scaledExchangeRate;
  if (a.blockHeight !== b.blockHeight) return a.blockHeight < b.blockHeight;
  return Buffer.compare(a.orderId, b.orderId) > 0;
}

const sameKey = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/**
 * The balances one order transaction sees: DESO as it was before the transaction paid its fee
 * and outputs (connect has already applied them), DAO coins from state, plus this
 * transaction's fills so far.
 */
class OrderBalances {
  private readonly deltas = new Map<string, { user: Uint8Array; coin: Uint8Array; delta: bigint }>();

  constructor(
    private readonly view: StateView,
    private readonly txn: TxnEnvelope,
  ) {}

  /** DESO before this transaction: undo the fee and outputs connect already moved. */
  private async desoBeforeTxn(user: Uint8Array): Promise<bigint> {
    let balance = await getBalance(this.view, user);
    if (sameKey(user, this.txn.publicKey)) balance += (this.txn.v1?.feeNanos ?? 0n) + this.txn.outputs.reduce((s, o) => s + o.amountNanos, 0n);
    for (const o of this.txn.outputs) if (sameKey(o.publicKey, user)) balance -= o.amountNanos;
    return balance;
  }

  async before(user: Uint8Array, coin: Uint8Array): Promise<bigint> {
    return isDesoCoin(coin) ? this.desoBeforeTxn(user) : getDAOCoinBalance(this.view, user, coin);
  }

  async adjusted(user: Uint8Array, coin: Uint8Array): Promise<bigint> {
    return (await this.before(user, coin)) + (this.deltas.get(`${toHex(user)}:${toHex(coin)}`)?.delta ?? 0n);
  }

  change(user: Uint8Array, coin: Uint8Array, delta: bigint): void {
    const key = `${toHex(user)}:${toHex(coin)}`;
    const prev = this.deltas.get(key);
    this.deltas.set(key, { user, coin, delta: (prev?.delta ?? 0n) + delta });
  }

  /** Applies every change to the state after the fee; coins are conserved or nothing moves. */
  async apply(): Promise<void> {
    const perCoin = new Map<string, bigint>();
    for (const { coin, delta } of this.deltas.values()) perCoin.set(toHex(coin), (perCoin.get(toHex(coin)) ?? 0n) + delta);
    for (const [coin, sum] of perCoin) {
      if (sum !== 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderBalanceDeltasNonZero', `coin ${coin} changes by ${sum} in total`);
    }
    // Sorted for a deterministic first error, as core sorts PKIDs.
    const entries = [...this.deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, { user, coin, delta }] of entries) {
      if (isDesoCoin(coin)) {
        const next = (await getBalance(this.view, user)) + delta;
        if (next < 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderOverspendingDESO', `${toHex(user)} would end with ${next} nanos`);
        if (next > U64_MAX) throw new RuleError('RuleErrorDAOCoinLimitOrderOverflowsDESO', `${toHex(user)} would end with ${next} nanos`);
        setBalance(this.view, user, next);
      } else {
        const current = await getDAOCoinBalance(this.view, user, coin);
        if (current === 0n && delta < 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderBalanceEntryDoesNotExist', `${toHex(user)} holds none of ${toHex(coin)}`);
        const next = current + delta;
        if (next < 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderOverspendingDAOCoin', `${toHex(user)} would end with ${next} of ${toHex(coin)}`);
        if (next > MAX_UINT256) throw new RuleError('RuleErrorDAOCoinLimitOrderOverflowsDAOCoin', `${toHex(user)} would end with ${next} of ${toHex(coin)}`);
        await setDAOCoinBalance(this.view, user, coin, next);
      }
    }
  }
}

/**
 * Core IsValidDAOCoinLimitOrder: checked for the new order and again for every resting order
 * it meets (a resting order that fails is removed from the book).
 * @throws {RuleError}
 */
async function checkOrder(view: StateView, o: DAOCoinLimitOrder, balances: OrderBalances): Promise<void> {
  if (sameKey(o.buyingCreator, o.sellingCreator)) throw new RuleError('RuleErrorDAOCoinLimitOrderCannotBuyAndSellSameCoin', 'buying and selling the same coin');
  if (o.operationType !== ASK && o.operationType !== BID) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidOperationType', `operation type ${o.operationType}`);
  if (o.fillType !== GTC && o.fillType !== IOC && o.fillType !== FOK) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidFillType', `fill type ${o.fillType}`);
  const buyingDeso = isDesoCoin(o.buyingCreator);
  const sellingDeso = isDesoCoin(o.sellingCreator);
  if (!buyingDeso && (await getProfile(view, o.buyingCreator)) === undefined) {
    throw new RuleError('RuleErrorDAOCoinLimitOrderBuyingDAOCoinCreatorMissingProfile', `no profile for ${toHex(o.buyingCreator)}`);
  }
  if (!sellingDeso && (await getProfile(view, o.sellingCreator)) === undefined) {
    throw new RuleError('RuleErrorDAOCoinLimitOrderSellingDAOCoinCreatorMissingProfile', `no profile for ${toHex(o.sellingCreator)}`);
  }
  if (!isMarketOrder(o) && o.scaledExchangeRate === 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidExchangeRate', 'a limit order needs an exchange rate above 0');
  if (o.quantityToFillInBaseUnits === 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidQuantity', 'QuantityToFillInBaseUnits is 0');
  // A market order's amounts are only known once it matches; they are checked per fill.
  if (isMarketOrder(o)) return;
  const toBuy = orderBaseUnitsToBuy(o);
  if (buyingDeso && toBuy > U64_MAX) throw new RuleError('RuleErrorDAOCoinLimitOrderTotalCostOverflowsUint64', `buys ${toBuy} nanos`);
  const toSell = orderBaseUnitsToSell(o);
  if (sellingDeso && toSell > U64_MAX) throw new RuleError('RuleErrorDAOCoinLimitOrderTotalCostOverflowsUint64', `sells ${toSell} nanos`);
  const balance = await balances.before(o.transactor, o.sellingCreator);
  if (balance < toSell) {
    const code = sellingDeso ? 'RuleErrorDAOCoinLimitOrderInsufficientDESOToOpenOrder' : 'RuleErrorDAOCoinLimitOrderInsufficientDAOCoinsToOpenOrder';
    throw new RuleError(code, `balance ${balance} of ${sellingDeso ? 'DESO nanos' : `coin ${toHex(o.sellingCreator)}`} is below the ${toSell} base units to sell`);
  }
}

type MatchVerdict = 'match' | 'price' | 'restricted';

/**
 * Core IsValidDAOCoinLimitOrderMatch for a resting order of the opposite book: price first
 * (a limit taker needs takerRate × restingRate ≥ 1e76), then transfer restrictions of the
 * DAO coins changing hands; meeting one's own order is an error, not a skip.
 */
async function matchVerdict(view: StateView, taker: DAOCoinLimitOrder, resting: DAOCoinLimitOrder): Promise<MatchVerdict> {
  if (!isMarketOrder(taker) && taker.scaledExchangeRate * resting.scaledExchangeRate < ONE_E76) return 'price';
  for (const [coin, sender, receiver] of [
    [taker.buyingCreator, resting.transactor, taker.transactor],
    [taker.sellingCreator, taker.transactor, resting.transactor],
  ] as const) {
    if (isDesoCoin(coin)) continue;
    if ((await getProfile(view, coin)) === undefined) return 'restricted';
    try {
      await checkDAOCoinTransferAllowed(view, coin, await getDAOCoinEntry(view, coin), sender, receiver);
    } catch (e) {
      if (isRuleError(e)) return 'restricted';
      throw e;
    }
  }
  if (sameKey(taker.transactor, resting.transactor)) {
    throw new RuleError('RuleErrorDAOCoinLimitOrderMatchingOwnOrder', `order ${toHex(resting.orderId)} is the transactor's own`);
  }
  return 'match';
}

/**
 * Matches `taker` against the book best-first until it is filled or nothing crosses, moving
 * coins through `balances` and updating or removing resting orders;
 * `taker.quantityToFillInBaseUnits` is left at what remains.
 */
async function matchOrder(view: StateView, taker: DAOCoinLimitOrder, balances: OrderBalances): Promise<void> {
  // Resting orders that buy what the taker sells and sell what it buys, read as the match goes.
  for await (const resting of bookOrders(view, taker.sellingCreator, taker.buyingCreator)) {
    if (taker.quantityToFillInBaseUnits === 0n) break;
    const verdict = await matchVerdict(view, taker, resting);
    // The book is sorted best rate first: once the price fails it fails for the rest.
    if (verdict === 'price') break;
    if (verdict === 'restricted') continue;
    try {
      await checkOrder(view, resting, balances);
    } catch (e) {
      if (!isRuleError(e)) throw e;
      deleteOrder(view, resting);
      continue;
    }
    const fill = calculateFill(resting, taker.operationType, taker.quantityToFillInBaseUnits);
    // The resting side must still own what it gives after this transaction's earlier fills.
    if ((await balances.adjusted(resting.transactor, taker.buyingCreator)) < fill.takerBought) {
      deleteOrder(view, resting);
      continue;
    }
    const takerHas = await balances.adjusted(taker.transactor, taker.sellingCreator);
    if (takerHas < fill.takerSold) {
      const code = isDesoCoin(taker.sellingCreator) ? 'RuleErrorDAOCoinLimitOrderOverspendingDESO' : 'RuleErrorDAOCoinLimitOrderOverspendingDAOCoin';
      throw new RuleError(code, `the transactor has ${takerHas} base units of the selling coin, the fill sells ${fill.takerSold}`);
    }
    taker.quantityToFillInBaseUnits = fill.takerRemaining;
    const updated = { ...resting, quantityToFillInBaseUnits: fill.restingRemaining };
    // Done when either side is exhausted, so dust never rests on the book at a better price.
    const left = fill.restingRemaining === 0n ? { toBuy: 0n, toSell: 0n } : remainingSides(updated);
    const restingDone = left.toBuy === 0n || left.toSell === 0n;
    if (restingDone) deleteOrder(view, resting);
    else putOrder(view, updated);
    balances.change(taker.transactor, taker.buyingCreator, fill.takerBought);
    balances.change(resting.transactor, taker.buyingCreator, -fill.takerBought);
    balances.change(resting.transactor, taker.sellingCreator, fill.takerSold);
    balances.change(taker.transactor, taker.sellingCreator, -fill.takerSold);
  }
}

/** Core's fee rules of the metadata: FeeNanos > 0, × 1000 fits a u64, and meets the network rate. */
function checkFeeNanos(m: DAOCoinLimitOrderMetadata, info: TxnInfo, minNetworkFeeNanosPerKB: bigint): void {
  if (m.feeNanos * 1000n > U64_MAX) throw new RuleError('RuleErrorDAOCoinLimitOrderFeeNanosOverflow', `FeeNanos ${m.feeNanos}`);
  if (m.feeNanos === 0n || (m.feeNanos * 1000n) / BigInt(info.size) < minNetworkFeeNanosPerKB) {
    throw new RuleError('RuleErrorDAOCoinLimitOrderFeeNanosBelowMinTxFee', `FeeNanos ${m.feeNanos} for ${info.size} bytes is below ${minNetworkFeeNanosPerKB} nanos/KB`);
  }
}

async function cancelOrder(view: StateView, txn: TxnEnvelope, orderId: Uint8Array): Promise<void> {
  const order = await getOrder(view, orderId);
  if (order === undefined) throw new RuleError('RuleErrorDAOCoinLimitOrderToCancelNotFound', `no open order ${toHex(orderId)}`);
  if (!sameKey(order.transactor, txn.publicKey)) throw new RuleError('RuleErrorDAOCoinLimitOrderToCancelNotYours', `order ${toHex(orderId)} belongs to ${toHex(order.transactor)}`);
  deleteOrder(view, order);
}

/** The order a metadata describes, or the rule error core gives for a missing field. */
function orderFromMetadata(m: DAOCoinLimitOrderMetadata, txn: TxnEnvelope, info: TxnInfo, height: bigint): DAOCoinLimitOrder {
  if (m.buyingDAOCoinCreatorPublicKey === null) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidBuyingDAOCoinCreatorPKID', 'no buying coin');
  if (m.sellingDAOCoinCreatorPublicKey === null) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidSellingDAOCoinCreatorPKID', 'no selling coin');
  if (m.scaledExchangeRateCoinsToSellPerCoinToBuy === null) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidExchangeRate', 'no exchange rate');
  if (m.quantityToFillInBaseUnits === null) throw new RuleError('RuleErrorDAOCoinLimitOrderInvalidQuantity', 'no quantity');
  return {
    orderId: info.hash,
    transactor: txn.publicKey,
    buyingCreator: m.buyingDAOCoinCreatorPublicKey,
    sellingCreator: m.sellingDAOCoinCreatorPublicKey,
    scaledExchangeRate: m.scaledExchangeRateCoinsToSellPerCoinToBuy,
    quantityToFillInBaseUnits: m.quantityToFillInBaseUnits,
    operationType: m.operationType,
    fillType: m.fillType,
    blockHeight: height,
  };
}

/**
 * Places (or cancels) one order in the transaction's view, which already holds its fee and
 * outputs.
 * @throws {RuleError}
 */
const connectDAOCoinLimitOrder: TypeHandler = async (view, txn, info, ctx) => {
  const m = decodeMetadata(txn.txnType, txn.metadata) as DAOCoinLimitOrderMetadata;
  if (m.feeNanos === 0n) throw new RuleError('RuleErrorDAOCoinLimitOrderFeeNanosBelowMinTxFee', 'FeeNanos is 0');
  const balances = new OrderBalances(view, txn);
  const taker = m.cancelOrderId === null ? orderFromMetadata(m, txn, info, ctx.height) : null;
  if (taker) await checkOrder(view, taker, balances);
  checkFeeNanos(m, info, ctx.rules.minNetworkFeeNanosPerKB);
  if (taker === null) return cancelOrder(view, txn, m.cancelOrderId!);

  await matchOrder(view, taker, balances);
  if (taker.quantityToFillInBaseUnits > 0n) {
    if (taker.fillType === FOK) throw new RuleError('RuleErrorDAOCoinLimitOrderFillOrKillOrderUnfulfilled', `${taker.quantityToFillInBaseUnits} base units left unfilled`);
    // IOC drops what is left; GTC rests it on the book at its own rate.
    if (taker.fillType === GTC) putOrder(view, taker);
  }
  await balances.apply();
  // Balance model: the fee the metadata names is the fee the transaction paid.
  const txnFee = txn.v1?.feeNanos ?? 0n;
  if (txnFee !== m.feeNanos) throw new RuleError('RuleErrorDAOCoinLimitOrderTotalInputMinusTotalOutputNotEqualToFee', `FeeNanos ${m.feeNanos} ≠ transaction fee ${txnFee}`);
};

export const daoCoinLimitOrderHandlers: readonly HandlerEntry[] = [[TxnType.DAO_COIN_LIMIT_ORDER, connectDAOCoinLimitOrder]];
