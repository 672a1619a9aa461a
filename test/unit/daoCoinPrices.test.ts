/**
 * The API conversions of DAO coin limit orders (reference node-api.md §7.3): Price/Quantity
 * decimal strings to scaled exchange rates and base units and back, the legacy float fields,
 * rounding as the backend rounds, and the errors for zero and too-small values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  baseUnitsToFloatQuantity,
  baseUnitsToQuantity,
  floatToScaledExchangeRate,
  formatFixed,
  formatFloatAsString,
  formatScaledDecimal,
  orderResponse,
  priceToScaledExchangeRate,
  quantityToBaseUnits,
  scaleDecimalString,
  scaledExchangeRateToFloat,
  scaledExchangeRateToPrice,
} from '../../server/chain/daoCoinPrices.js';

const E38 = 10n ** 38n;
const E76 = E38 * E38;
const DAO_DAO = { buyingIsDeso: false, sellingIsDeso: false };
const BUYING_DESO = { buyingIsDeso: true, sellingIsDeso: false };
const SELLING_DESO = { buyingIsDeso: false, sellingIsDeso: true };

describe('scaling a decimal string (core ScaleFloatFormatStringToUint256)', () => {
  it('scales whole and fractional parts exactly', () => {
    assert.equal(scaleDecimalString('1.23', E38), 123n * 10n ** 36n);
    assert.equal(scaleDecimalString('.5', E38), 5n * 10n ** 37n);
    assert.equal(scaleDecimalString('5.', E38), 5n * E38);
    assert.equal(scaleDecimalString('7', 10n ** 9n), 7_000_000_000n);
  });

  it('truncates decimals beyond the scale', () => {
    assert.equal(scaleDecimalString('0.1234567899', 10n ** 9n), 123_456_789n);
    assert.equal(scaleDecimalString('0.0000000009', 10n ** 9n), 0n);
  });

  it('refuses exponent notation and values beyond uint256', () => {
    assert.throws(() => scaleDecimalString('1e5', E38), /Failed to convert whole part/);
    assert.throws(() => scaleDecimalString(`1${'0'.repeat(60)}`, E38), /overflows/);
  });
});

describe('Price → scaled exchange rate', () => {
  it('BID between DAO coins: the price is the rate', () => {
    assert.equal(priceToScaledExchangeRate(DAO_DAO, '2.5', 'BID'), 25n * 10n ** 37n);
  });

  it('BID buying DESO: ×1e9 (DAO base units per DESO nano)', () => {
    assert.equal(priceToScaledExchangeRate(BUYING_DESO, '2', 'BID'), 2n * E38 * 10n ** 9n);
  });

  it('BID selling DESO: ÷1e9 rounded down, and refused when that leaves 0', () => {
    assert.equal(priceToScaledExchangeRate(SELLING_DESO, '0.5', 'BID'), 5n * 10n ** 28n);
    assert.equal(priceToScaledExchangeRate(SELLING_DESO, '3', 'BID'), 3n * 10n ** 29n);
    assert.throws(() => priceToScaledExchangeRate(SELLING_DESO, `0.${'0'.repeat(29)}1`, 'BID'), /produces a scaled exchange rate that is too small/);
  });

  it('ASK inverts the price, rounding up: ceil(1e76 / P)', () => {
    assert.equal(priceToScaledExchangeRate(DAO_DAO, '4', 'ASK'), 25n * 10n ** 36n);
    assert.equal(priceToScaledExchangeRate(DAO_DAO, '3', 'ASK'), E76 / (3n * E38) + 1n);
  });

  it('ASK buying DESO ×1e9; ASK selling DESO ÷1e9 rounded up', () => {
    assert.equal(priceToScaledExchangeRate(BUYING_DESO, '2', 'ASK'), 5n * 10n ** 46n);
    const inverted = E76 / (3n * E38) + 1n;
    assert.equal(priceToScaledExchangeRate(SELLING_DESO, '3', 'ASK'), (inverted + 10n ** 9n - 1n) / 10n ** 9n);
  });

  it('a BID and an ASK made from the same price cross each other', () => {
    for (const price of ['3', '0.7', '1.000000001', '123.456']) {
      for (const [bidSides, askSides] of [
        [DAO_DAO, DAO_DAO],
        [SELLING_DESO, BUYING_DESO],
        [BUYING_DESO, SELLING_DESO],
      ] as const) {
        const bid = priceToScaledExchangeRate(bidSides, price, 'BID');
        const ask = priceToScaledExchangeRate(askSides, price, 'ASK');
        assert.ok(bid * ask >= E76, `BID and ASK at ${price} cross (${bid} × ${ask})`);
      }
    }
  });

  it('zero, negative and non-numeric prices are errors', () => {
    assert.throws(() => priceToScaledExchangeRate(DAO_DAO, '0', 'BID'), /The value 0 is too small to produce a scaled exchange rate/);
    assert.throws(() => priceToScaledExchangeRate(DAO_DAO, `0.${'0'.repeat(38)}1`, 'ASK'), /too small to produce a scaled exchange rate/);
    assert.throws(() => priceToScaledExchangeRate(DAO_DAO, '-1', 'BID'), /Input decimal string -1 is unexpectedly less than 0/);
    assert.throws(() => priceToScaledExchangeRate(DAO_DAO, 'abc', 'BID'), /Error parsing input abc as a decimal string/);
  });
});

describe('legacy float ExchangeRateCoinsToSellPerCoinToBuy', () => {
  it('formats with at most 15 significant digits (backend formatFloatAsString)', () => {
    assert.equal(formatFloatAsString(0.1), '0.100000000000000');
    assert.equal(formatFloatAsString(1234.5), '1234.50000000000');
    assert.equal(formatFloatAsString(123456789012345678), '123456789012345000.0');
  });

  it('rounds like Go %f (half to even on the exact binary value)', () => {
    assert.equal(formatFixed(2 ** -16, 15), '0.000015258789062');
    assert.equal(formatFixed(2.5, 0), '2');
    assert.equal(formatFixed(0.125, 2), '0.12');
    assert.equal(formatFixed(1e21, 1), '1000000000000000000000.0');
  });

  it('scales ×1e38, then ×1e9 buying DESO or ÷1e9 selling DESO, never inverted', () => {
    assert.equal(floatToScaledExchangeRate(DAO_DAO, 0.1), 10n ** 37n);
    assert.equal(floatToScaledExchangeRate(BUYING_DESO, 2), 2n * E38 * 10n ** 9n);
    assert.equal(floatToScaledExchangeRate(SELLING_DESO, 2), 2n * 10n ** 29n);
    assert.throws(() => floatToScaledExchangeRate(SELLING_DESO, 1e-30), /The float value 0.000000 is too small to produce a scaled exchange rate/);
  });
});

describe('Quantity → base units', () => {
  it('counts the coin the operation names: BID the buying coin, ASK the selling coin', () => {
    assert.equal(quantityToBaseUnits(BUYING_DESO, 'BID', '1.5'), 1_500_000_000n);
    assert.equal(quantityToBaseUnits(BUYING_DESO, 'ASK', '2'), 2n * 10n ** 18n);
    assert.equal(quantityToBaseUnits(SELLING_DESO, 'ASK', '0.000000001'), 1n);
    assert.equal(quantityToBaseUnits(SELLING_DESO, 'BID', '0.000000000000000001'), 1n);
  });

  it('a quantity that scales to 0 is an error', () => {
    assert.throws(() => quantityToBaseUnits(BUYING_DESO, 'BID', '0.0000000001'), /produces a value of 0 when scaled to DESO nanos/);
    assert.throws(() => quantityToBaseUnits(DAO_DAO, 'BID', '0.0000000000000000001'), /produces a value of 0 when scaled to base units nanos/);
    assert.throws(() => quantityToBaseUnits(DAO_DAO, 'BID', '0'), /produces a value of 0/);
  });
});

describe('scaled values → response strings and floats', () => {
  it('decimal strings trim trailing zeros and keep ".0" for whole numbers', () => {
    assert.equal(formatScaledDecimal(15n * 10n ** 8n, 10n ** 9n), '1.5');
    assert.equal(formatScaledDecimal(10n ** 9n, 10n ** 9n), '1.0');
    assert.equal(formatScaledDecimal(1n, 10n ** 9n), '0.000000001');
    assert.equal(formatScaledDecimal(0n, 10n ** 9n), '0.0');
  });

  it('BID price is the rate; ASK price is floor(1e76 / rate); DESO side rescaled first', () => {
    assert.equal(scaledExchangeRateToPrice(DAO_DAO, 25n * 10n ** 37n, 'BID'), '2.5');
    assert.equal(scaledExchangeRateToPrice(DAO_DAO, 25n * 10n ** 36n, 'ASK'), '4.0');
    assert.equal(scaledExchangeRateToPrice(BUYING_DESO, 5n * 10n ** 46n, 'ASK'), '2.0');
    assert.equal(scaledExchangeRateToPrice(SELLING_DESO, 5n * 10n ** 28n, 'BID'), '0.5');
  });

  it('Price strings round-trip through the rate', () => {
    for (const [sides, side, price] of [
      [DAO_DAO, 'BID', '1.25'],
      [BUYING_DESO, 'ASK', '2.0'],
      [SELLING_DESO, 'BID', '0.5'],
      [SELLING_DESO, 'ASK', '4.0'],
    ] as const) {
      assert.equal(scaledExchangeRateToPrice(sides, priceToScaledExchangeRate(sides, price, side), side), price, `${side} ${price}`);
    }
  });

  it('legacy floats are the non-inverted values', () => {
    assert.equal(scaledExchangeRateToFloat(SELLING_DESO, 5n * 10n ** 28n), 0.5);
    assert.equal(baseUnitsToFloatQuantity(BUYING_DESO, 'BID', 1_500_000_000n), 1.5);
    assert.equal(baseUnitsToQuantity(BUYING_DESO, 'ASK', 25n * 10n ** 17n), '2.5');
    assert.throws(() => baseUnitsToQuantity(BUYING_DESO, 'ASK', 0n), /cannot be less than 0/);
  });

  it('orderResponse shows the order as the read routes answer it', () => {
    const r = orderResponse({
      orderIdHex: 'ab'.repeat(32),
      transactor: 'tBCtransactor',
      buying: 'DESO',
      selling: 'tBCcreator',
      scaledExchangeRate: 5n * 10n ** 46n,
      quantityToFillInBaseUnits: 6n * 10n ** 18n,
      side: 'ASK',
    });
    assert.deepEqual(r, {
      TransactorPublicKeyBase58Check: 'tBCtransactor',
      BuyingDAOCoinCreatorPublicKeyBase58Check: 'DESO',
      SellingDAOCoinCreatorPublicKeyBase58Check: 'tBCcreator',
      Price: '2.0',
      Quantity: '6.0',
      ExchangeRateCoinsToSellPerCoinToBuy: 0.5,
      QuantityToFill: 6,
      OperationType: 'ASK',
      OrderID: 'ab'.repeat(32),
    });
  });
});
