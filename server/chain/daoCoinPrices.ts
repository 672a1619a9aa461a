/**
 * The API's view of DAO coin limit orders (reference node-api.md §7.3, backend
 * routes/dao_coin_exchange.go): decimal `Price`/`Quantity` strings and the legacy float
 * fields to and from the chain's scaled exchange rates (×1e38) and base units (DESO nanos 1e9,
 * DAO coin base units 1e18), and the order response object.
 *
 * `Price` is "coins of the other side per one coin of the side the operation names": for a BID
 * the buying coin is the denominator (rate as is), for an ASK the selling coin (rate inverted).
 * Conversions are exact integer arithmetic; rounding follows the backend so that a BID and an
 * ASK made from the same price string match each other.
 * @module
 */
import { DomainError } from '../errors.js';

export const ONE_E38 = 10n ** 38n;
const ONE_E76 = ONE_E38 * ONE_E38;
export const NANOS_PER_DESO = 10n ** 9n;
export const BASE_UNITS_PER_DAO_COIN = 10n ** 18n;
/** DAO coin base units per DESO nano (1e18 / 1e9). */
const DESO_TO_DAO_SCALE = BASE_UNITS_PER_DAO_COIN / NANOS_PER_DESO;
const MAX_UINT256 = (1n << 256n) - 1n;

export type OrderSide = 'ASK' | 'BID';

/** Which sides of a pair are the native coin. */
export interface PairSides {
  buyingIsDeso: boolean;
  sellingIsDeso: boolean;
}

/** A conversion the API refuses, with the backend's message (DAO_COIN_PRICE_INVALID, 400). */
export class PriceConversionError extends DomainError {
  override readonly name = 'PriceConversionError';
  constructor(message: string) {
    super('DAO_COIN_PRICE_INVALID', 'invalid', message);
  }
}

// Go strconv.ParseFloat's decimal syntax (the backend's "is this a number" check).
const GO_FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)$/i;

/** Backend validateNonNegativeDecimalString: parses as a float and is not negative. */
export function validateNonNegativeDecimalString(s: string): void {
  if (!GO_FLOAT.test(s)) throw new PriceConversionError(`Error parsing input ${s} as a decimal string: strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`);
  if (Number(s.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity')) < 0) throw new PriceConversionError(`Input decimal string ${s} is unexpectedly less than 0`);
}

/** Go big.Int SetString(s, 10): optional sign, decimal digits. */
function parseBigInt(s: string): bigint | null {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : null;
}

/**
 * Core ScaleFloatFormatStringToUint256: `whole.decimals` × scale exactly, decimals beyond the
 * scale's precision truncated.
 */
export function scaleDecimalString(s: string, scale: bigint): bigint {
  const parts = s.split('.');
  if (parts.length !== 2) parts.push('0');
  const wholeStr = parts[0] === '' ? '0' : parts[0]!;
  let decimalStr = parts[1] === '' ? '0' : parts[1]!;
  const whole = parseBigInt(wholeStr);
  if (whole === null) throw new PriceConversionError(`Failed to convert whole part <nil> to bigint for float string ${s}`);
  const precision = scale.toString().length - 1;
  let exponent = precision - decimalStr.length;
  if (exponent < 0) {
    exponent = 0;
    decimalStr = decimalStr.slice(0, precision);
  }
  const decimal = parseBigInt(decimalStr);
  if (decimal === null) throw new PriceConversionError(`Failed to convert decimal part ${decimalStr} to bigint for float string ${s}`);
  const sum = whole * scale + decimal * 10n ** BigInt(exponent);
  if (sum < 0n || sum > MAX_UINT256) {
    throw new PriceConversionError(`Sum of whole part ${whole} and decimal part ${decimal} overflows with value ${sum} for float string ${s}`);
  }
  return sum;
}

/** ceil(a / b) for non-negative a, positive b. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/**
 * A `Price` decimal string as the order's ScaledExchangeRateCoinsToSellPerCoinToBuy. BID: the
 * price is already selling coins per buying coin. ASK: the price is buying coins per selling
 * coin, so the rate is ceil(1e76 / P) (rounded up so it still matches a BID at that price).
 * Then the DESO side's 1e9 scale: ×1e9 when buying DESO, ÷1e9 when selling it (BID floors and
 * must stay > 0, ASK rounds up).
 */
export function priceToScaledExchangeRate(sides: PairSides, price: string, side: OrderSide): bigint {
  validateNonNegativeDecimalString(price);
  const scaledPrice = scaleDecimalString(price, ONE_E38);
  if (scaledPrice === 0n) throw new PriceConversionError(`The value ${price} is too small to produce a scaled exchange rate`);
  let rate: bigint;
  if (side === 'ASK') {
    rate = ceilDiv(ONE_E76, scaledPrice);
    if (sides.buyingIsDeso) rate *= DESO_TO_DAO_SCALE;
    else if (sides.sellingIsDeso) rate = ceilDiv(rate, DESO_TO_DAO_SCALE);
  } else if (sides.buyingIsDeso) {
    rate = scaledPrice * DESO_TO_DAO_SCALE;
  } else if (sides.sellingIsDeso) {
    rate = scaledPrice / DESO_TO_DAO_SCALE;
    if (rate === 0n) throw new PriceConversionError(`The ${price} produces a scaled exchange rate that is too small`);
  } else {
    rate = scaledPrice;
  }
  if (rate > MAX_UINT256) throw new PriceConversionError(`Overflow when converting ${price} to a scaled exchange rate`);
  return rate;
}

/**
 * Go `%.<n>f` of a float64: the exact binary value rounded half-to-even at n decimals (JS
 * toFixed rounds ties up and switches to exponent form from 1e21).
 */
export function formatFixed(f: number, digits: number): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  const negative = f < 0 || Object.is(f, -0);
  const { mantissa, exponent } = decomposeFloat(Math.abs(f));
  // |f| = mantissa × 2^exponent exactly; scaled = |f| × 10^digits as a fraction num / den.
  let num = mantissa * 10n ** BigInt(digits);
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  let q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  const s = q.toString().padStart(digits + 1, '0');
  const body = digits === 0 ? s : `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
  return negative ? `-${body}` : body;
}

/** A finite non-negative double as mantissa × 2^exponent (both integers). */
function decomposeFloat(f: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, f);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** Digits of |v| (0 has none, as core GetNumDigits). */
const numDigits = (v: bigint): number => (v === 0n ? 0 : (v < 0n ? -v : v).toString().length);

/**
 * Backend formatFloatAsString: a float64 with at most 15 significant digits before scaling —
 * up to 15 decimals for small values, the integer part truncated to 15 digits from 1e15 up.
 */
export function formatFloatAsString(f: number): string {
  const whole = BigInt(Math.trunc(f));
  const wholeDigits = numDigits(whole);
  const PRECISION = 15;
  if (wholeDigits <= PRECISION) return formatFixed(f, PRECISION - wholeDigits);
  const drop = 10n ** BigInt(wholeDigits - PRECISION);
  return `${(whole / drop) * drop}.0`;
}

/** The legacy float `ExchangeRateCoinsToSellPerCoinToBuy` as a scaled rate (never inverted). */
export function floatToScaledExchangeRate(sides: PairSides, rate: number): bigint {
  const scaled = scaleDecimalString(formatFloatAsString(rate), ONE_E38);
  if (scaled === 0n) throw new PriceConversionError(`The float value ${formatFixed(rate, 6)} is too small to produce a scaled exchange rate`);
  if (sides.buyingIsDeso) {
    const product = scaled * DESO_TO_DAO_SCALE;
    if (product > MAX_UINT256) throw new PriceConversionError(`Overflow when convering ${formatFixed(rate, 6)} to a scaled exchange rate`);
    return product;
  }
  if (sides.sellingIsDeso) {
    const quotient = scaled / DESO_TO_DAO_SCALE;
    if (quotient === 0n) throw new PriceConversionError(`The float value ${formatFixed(rate, 6)} is too small to produce a scaled exchange rate`);
    return quotient;
  }
  return scaled;
}

/** Whether the coin an order's quantity counts is DESO (BID: the buying coin, ASK: the selling coin). */
export function isQuantityInDeso(sides: PairSides, side: OrderSide): boolean {
  return side === 'BID' ? sides.buyingIsDeso : sides.sellingIsDeso;
}

/** A `Quantity` decimal string as base units of the coin the operation refers to. */
export function quantityToBaseUnits(sides: PairSides, side: OrderSide, quantity: string): bigint {
  validateNonNegativeDecimalString(quantity);
  const inDeso = isQuantityInDeso(sides, side);
  const units = scaleDecimalString(quantity, inDeso ? NANOS_PER_DESO : BASE_UNITS_PER_DAO_COIN);
  if (units === 0n) {
    throw new PriceConversionError(`The input quantity ${quantity} produces a value of 0 when scaled to ${inDeso ? 'DESO nanos' : 'base units nanos'}`);
  }
  return units;
}

/** Core FormatScaledUint256AsDecimalString: `v / scale` with trailing zeros trimmed, "1.0" when whole. */
export function formatScaledDecimal(v: bigint, scale: bigint): string {
  const whole = v / scale;
  const decimal = v % scale;
  if (decimal === 0n) return `${whole}.0`;
  const digits = scale.toString().length - 1;
  return `${whole}.${decimal.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Backend calculateScaledUint256AsFloat: the decimal string above parsed as a float64. */
export function scaledToFloat(v: bigint, scale: bigint): number {
  const digits = scale.toString().length - 1;
  return Number(`${v / scale}.${(v % scale).toString().padStart(digits, '0')}`);
}

/** The rate with the DESO side's 1e9 scale taken out (÷1e9 buying DESO, ×1e9 selling DESO). */
function coinLevelRate(sides: PairSides, rate: bigint): bigint {
  if (sides.buyingIsDeso) return rate / DESO_TO_DAO_SCALE;
  if (sides.sellingIsDeso) return rate * DESO_TO_DAO_SCALE;
  return rate;
}

/** An order's `Price` string: BID as is, ASK inverted as floor(1e76 / rate). */
export function scaledExchangeRateToPrice(sides: PairSides, rate: bigint, side: OrderSide): string {
  let value = coinLevelRate(sides, rate);
  if (side === 'ASK') {
    if (value === 0n) throw new PriceConversionError('the exchange rate is too small to invert into a price');
    value = ONE_E76 / value;
  }
  return formatScaledDecimal(value, ONE_E38);
}

/** The legacy float `ExchangeRateCoinsToSellPerCoinToBuy` (never inverted). */
export function scaledExchangeRateToFloat(sides: PairSides, rate: bigint): number {
  return scaledToFloat(coinLevelRate(sides, rate), ONE_E38);
}

function quantityScale(sides: PairSides, side: OrderSide): bigint {
  return isQuantityInDeso(sides, side) ? NANOS_PER_DESO : BASE_UNITS_PER_DAO_COIN;
}

/** An order's `Quantity` string from its remaining base units. */
export function baseUnitsToQuantity(sides: PairSides, side: OrderSide, units: bigint): string {
  if (units === 0n) throw new PriceConversionError('quantityToFillInBaseUnits cannot be less than 0');
  return formatScaledDecimal(units, quantityScale(sides, side));
}

/** The legacy float `QuantityToFill`. */
export function baseUnitsToFloatQuantity(sides: PairSides, side: OrderSide, units: bigint): number {
  if (units === 0n) throw new PriceConversionError('quantityToFillInBaseUnits cannot be less than 0');
  return scaledToFloat(units, quantityScale(sides, side));
}

/** DAOCoinLimitOrderEntryResponse (reference §2.4). Coin keys are "DESO" for the native side. */
export interface DAOCoinLimitOrderEntryResponse {
  TransactorPublicKeyBase58Check: string;
  BuyingDAOCoinCreatorPublicKeyBase58Check: string;
  SellingDAOCoinCreatorPublicKeyBase58Check: string;
  Price: string;
  Quantity: string;
  ExchangeRateCoinsToSellPerCoinToBuy: number;
  QuantityToFill: number;
  OperationType: OrderSide;
  OrderID: string;
}

export interface OrderForResponse {
  orderIdHex: string;
  transactor: string;
  /** Base58Check key of the creator, or "DESO". */
  buying: string;
  selling: string;
  scaledExchangeRate: bigint;
  quantityToFillInBaseUnits: bigint;
  side: OrderSide;
}

/** Builds the response object; throws PriceConversionError for an order the API cannot show (read routes skip those). */
export function orderResponse(o: OrderForResponse): DAOCoinLimitOrderEntryResponse {
  const sides = { buyingIsDeso: o.buying === 'DESO', sellingIsDeso: o.selling === 'DESO' };
  return {
    TransactorPublicKeyBase58Check: o.transactor,
    BuyingDAOCoinCreatorPublicKeyBase58Check: o.buying,
    SellingDAOCoinCreatorPublicKeyBase58Check: o.selling,
    Price: scaledExchangeRateToPrice(sides, o.scaledExchangeRate, o.side),
    Quantity: baseUnitsToQuantity(sides, o.side, o.quantityToFillInBaseUnits),
    ExchangeRateCoinsToSellPerCoinToBuy: scaledExchangeRateToFloat(sides, o.scaledExchangeRate),
    QuantityToFill: baseUnitsToFloatQuantity(sides, o.side, o.quantityToFillInBaseUnits),
    OperationType: o.side,
    OrderID: o.orderIdHex,
  };
}
