/**
 * A DAO coin order stated as a market pair (backend routes/dao_coin_exchange_with_fees.go
 * CreateDAOCoinLimitOrderWithFee / HandleMarketOrder): base and quote currencies, a buy or a
 * sell, a price in quote currency (none: a market order) and a quantity in base or quote
 * currency, built as an atomic transaction with the market's trading-fee transfers.
 *
 * What this node has of the reference's market: no AMM metadata key and no associations, so
 * no market sets trading fees (the reference keeps them in an association on that key) and no
 * whitelist association is added: the atomic transaction holds the one order, fees are 0 and
 * the fee map empty. Amounts in USD need the quote currency's USD price, which this node does
 * not have for a coin: `usd` currency types are refused with the reference's text for an
 * unavailable price, and the USD fields answer as the reference does then (`convertToUsd` at a
 * price of 0). Knows no HTTP: failures are DaoCoinOrderError with the backend's text.
 * @module
 */
import { BASE_UNITS_PER_DAO_COIN, formatScaledDecimal, NANOS_PER_DESO, ONE_E38, priceToScaledExchangeRate, quantityToBaseUnits, scaleDecimalString, type OrderSide } from '../chain/daoCoinPrices.js';
import { DESO_COIN } from '../chain/state/daoCoinLimitOrders.js';
import type { StateView } from '../chain/state/view.js';
import type { AppDeps } from '../deps.js';
import { wrapConstructed, type AtomicResponseFields } from './atomic.js';
import type { ConstructRequest } from './construct.js';
import { createLimitOrder, createMarketOrder, DaoCoinOrderError, type SimulatedExecution } from './daoCoinOrders.js';

export type CurrencyType = 'usd' | 'quote' | 'base';

export interface OrderWithFeeRequest {
  transactor: Uint8Array;
  /** 33 zero bytes for DESO. */
  quote: Uint8Array;
  base: Uint8Array;
  isBuy: boolean;
  /** A DAOCoinLimitOrderFill value. */
  fillType: number;
  /** The price in quote currency ('' or 0: a market order). */
  price: string;
  priceCurrencyType: CurrencyType;
  quantity: string;
  quantityCurrencyType: CurrencyType;
}

const isDeso = (coin: Uint8Array): boolean => Buffer.compare(coin, DESO_COIN) === 0;
const unitsOf = (coin: Uint8Array): bigint => (isDeso(coin) ? NANOS_PER_DESO : BASE_UNITS_PER_DAO_COIN);
/** Backend CalculateStringDecimalAmountFromBaseUnitsSimple. */
const decimalOf = (coin: Uint8Array, units: bigint): string => formatScaledDecimal(units, unitsOf(coin));
/** Backend CalculateBaseUnitsFromStringDecimalAmountSimple. */
const unitsFrom = (coin: Uint8Array, s: string): bigint => scaleDecimalString(s, unitsOf(coin));
/** Go's `%0.9f`. */
const fixed9 = (f: number): string => f.toFixed(9);
/** The reference's convertToUsd at a quote price of 0 (this node has none for a coin). */
const toUsd = (s: string): string => (Number.isFinite(Number.parseFloat(s)) ? fixed9(0) : '');

/** Backend InvertPriceStr: 1 / price at 38 decimals. */
function invertPrice(price: string): string {
  const scaled = scaleDecimalString(price, ONE_E38);
  if (scaled === 0n) return '0';
  return formatScaledDecimal((ONE_E38 * ONE_E38) / scaled, ONE_E38);
}

export interface OrderWithFeeResponse extends AtomicResponseFields {
  QuoteCurrencyPriceInUsd: string;
  LimitAmount: string;
  LimitAmountCurrencyType: string;
  LimitAmountInUsd: string;
  LimitReceiveAmount: string;
  LimitReceiveAmountCurrencyType: string;
  LimitReceiveAmountInUsd: string;
  LimitPriceInQuoteCurrency: string;
  LimitPriceInUsd: string;
  ExecutionAmount: string;
  ExecutionAmountCurrencyType: string;
  ExecutionAmountUsd: string;
  ExecutionReceiveAmount: string;
  ExecutionReceiveAmountCurrencyType: string;
  ExecutionReceiveAmountUsd: string;
  ExecutionPriceInQuoteCurrency: string;
  ExecutionPriceInUsd: string;
  ExecutionFeePercentage: string;
  ExecutionFeeAmountInQuoteCurrency: string;
  ExecutionFeeAmountInUsd: string;
  MarketTotalTradingFeeBasisPoints: string;
  MarketTradingFeeBasisPointsByUserPublicKey: Record<string, number>;
}

/**
 * Builds the order as the reference's HandleMarketOrder states it to consensus, simulates it on
 * the pending state and wraps it into an atomic transaction.
 * @throws {DaoCoinOrderError} with the backend's text; {PriceConversionError} a bad price or quantity
 */
export async function createOrderWithFee(deps: Pick<AppDeps, 'chain' | 'config'>, state: StateView, r: OrderWithFeeRequest, fields: ConstructRequest['fields']): Promise<OrderWithFeeResponse> {
  const isMarket = !(Number.parseFloat(r.price) > 0);
  if (r.quantityCurrencyType === 'usd' || (!isMarket && r.priceCurrencyType === 'usd')) {
    throw new DaoCoinOrderError('HandleMarketOrder: Quote currency price in usd not available. Please use quote or base currency for the amount.');
  }
  if (!isMarket && r.priceCurrencyType !== 'quote') throw new DaoCoinOrderError(`HandleMarketOrder: Invalid price currency type ${r.priceCurrencyType}.Options are 'usd' or 'quote'`);
  if (r.quantityCurrencyType !== 'base' && r.quantityCurrencyType !== 'quote') throw new DaoCoinOrderError(`HandleMarketOrder: Invalid quantity currency type ${r.quantityCurrencyType}`);
  const priceQuote = isMarket ? '' : r.price;
  // Consensus takes a BID's quantity in the coin bought and an ASK's in the coin sold.
  let side: OrderSide;
  let buying: Uint8Array;
  let selling: Uint8Array;
  let consensusPrice = priceQuote;
  if (r.quantityCurrencyType === 'base') {
    [side, buying, selling] = r.isBuy ? ['BID', r.base, r.quote] : ['ASK', r.quote, r.base];
  } else {
    [side, buying, selling] = r.isBuy ? ['ASK', r.base, r.quote] : ['BID', r.quote, r.base];
    if (!isMarket) consensusPrice = invertPrice(priceQuote);
  }
  const sides = { buyingIsDeso: isDeso(buying), sellingIsDeso: isDeso(selling) };
  const quantity = quantityToBaseUnits(sides, side, r.quantity);
  const order = { transactor: r.transactor, buying, selling, quantity, side, fillType: r.fillType };
  const { built, simulated } = isMarket
    ? await createMarketOrder(deps, state, order, fields)
    : await createLimitOrder(deps, state, { ...order, rate: priceToScaledExchangeRate(sides, consensusPrice, side) }, fields);
  const { fields: atomic } = await wrapConstructed(deps, [built.constructed], fields.MinFeeRateNanosPerKB);
  return { ...atomic, ...amounts(r, isMarket, priceQuote, simulated, Buffer.compare(selling, r.quote) === 0) };
}

/** The reference's Limit… and Execution… fields, with no trading fee. */
function amounts(r: OrderWithFeeRequest, isMarket: boolean, priceQuote: string, sim: SimulatedExecution, sellsQuote: boolean): Omit<OrderWithFeeResponse, keyof AtomicResponseFields> {
  const quoteFilled = sellsQuote ? sim.SellingCoinQuantityFilled : sim.BuyingCoinQuantityFilled;
  const baseFilled = sellsQuote ? sim.BuyingCoinQuantityFilled : sim.SellingCoinQuantityFilled;
  const zeroFee = decimalOf(r.quote, 0n);
  const quoteUnits = unitsFrom(r.quote, quoteFilled);
  const price = (num: string, den: string): string => (Number.parseFloat(den) > 0 ? fixed9(Number.parseFloat(num) / Number.parseFloat(den)) : '');
  const common = {
    QuoteCurrencyPriceInUsd: fixed9(0),
    ExecutionFeeAmountInQuoteCurrency: zeroFee,
    ExecutionFeeAmountInUsd: toUsd(zeroFee),
    MarketTotalTradingFeeBasisPoints: '0',
    MarketTradingFeeBasisPointsByUserPublicKey: {},
  };
  const execution = r.isBuy
    ? {
        ExecutionAmount: quoteFilled,
        ExecutionAmountCurrencyType: 'quote',
        ExecutionAmountUsd: toUsd(quoteFilled),
        ExecutionReceiveAmount: baseFilled,
        ExecutionReceiveAmountCurrencyType: 'base',
        ExecutionReceiveAmountUsd: '',
        ExecutionPriceInQuoteCurrency: price(quoteFilled, baseFilled),
        ExecutionFeePercentage: quoteUnits === 0n ? '' : formatScaledDecimal(0n, BASE_UNITS_PER_DAO_COIN),
      }
    : {
        ExecutionAmount: baseFilled,
        ExecutionAmountCurrencyType: 'base',
        ExecutionAmountUsd: '',
        ExecutionReceiveAmount: quoteFilled,
        ExecutionReceiveAmountCurrencyType: 'quote',
        ExecutionReceiveAmountUsd: toUsd(quoteFilled),
        ExecutionPriceInQuoteCurrency: Number.parseFloat(baseFilled) > 0 ? price(quoteFilled, baseFilled) : '0.0',
        ExecutionFeePercentage: quoteUnits === 0n ? '0.0' : formatScaledDecimal(0n, BASE_UNITS_PER_DAO_COIN),
      };
  const executionPriceInUsd = toUsd(execution.ExecutionPriceInQuoteCurrency);
  const noLimit = { LimitAmount: '', LimitAmountCurrencyType: '', LimitAmountInUsd: '', LimitReceiveAmount: '', LimitReceiveAmountCurrencyType: '', LimitReceiveAmountInUsd: '', LimitPriceInQuoteCurrency: '', LimitPriceInUsd: '' };
  if (isMarket) return { ...common, ...execution, ExecutionPriceInUsd: executionPriceInUsd, ...noLimit };
  // In whole coins at 38 decimals: quote = base × price, base = quote / price.
  const p = scaleDecimalString(priceQuote, ONE_E38);
  const baseToQuote = (base: string): string => decimalOf(r.quote, (scaleDecimalString(base, ONE_E38) * p * unitsOf(r.quote)) / (ONE_E38 * ONE_E38));
  const quoteToBase = (quote: string): string => (p === 0n ? '' : decimalOf(r.base, (scaleDecimalString(quote, ONE_E38) * unitsOf(r.base)) / p));
  const limit = r.isBuy
    ? (() => {
        const amount = r.quantityCurrencyType === 'base' ? baseToQuote(r.quantity) : r.quantity;
        return { LimitAmount: amount, LimitAmountCurrencyType: 'quote', LimitAmountInUsd: toUsd(amount), LimitReceiveAmount: quoteToBase(amount), LimitReceiveAmountCurrencyType: 'base', LimitReceiveAmountInUsd: '' };
      })()
    : (() => {
        const amount = r.quantityCurrencyType === 'base' ? r.quantity : quoteToBase(r.quantity);
        const receive = amount === '' ? '' : baseToQuote(amount);
        return { LimitAmount: amount, LimitAmountCurrencyType: 'base', LimitAmountInUsd: '', LimitReceiveAmount: receive, LimitReceiveAmountCurrencyType: 'quote', LimitReceiveAmountInUsd: toUsd(receive) };
      })();
  return { ...common, ...execution, ExecutionPriceInUsd: executionPriceInUsd, ...limit, LimitPriceInQuoteCurrency: priceQuote, LimitPriceInUsd: toUsd(priceQuote) };
}
