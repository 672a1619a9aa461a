import type { BuyNativeSettings } from './buyNative.js';

const SATOSHIS_PER_BITCOIN = 100_000_000n;

/**
 * get-exchange-rate response: the three fields of spec §2.10, plus the derived USD rate and
 * the Legacy aliases the reference also sends (SatoshisPerBitCloutExchangeRate etc.), which
 * older frontends still read.
 */
export interface ExchangeRate {
  SatoshisPerNativeExchangeRate: number;
  NanosSold: number;
  USDCentsPerBitcoinExchangeRate: number;
  USDCentsPerNativeExchangeRate: number;
  SatoshisPerLegacyExchangeRate: number;
  USDCentsPerLegacyExchangeRate: number;
  /** The lowest price this node sells the coin at (admin/set-usd-cents-to-deso-reserve-exchange-rate); 0 when unset. */
  USDCentsPerNativeReserveExchangeRate: number;
  USDCentsPerLegacyReserveExchangeRate: number;
  /** The fee added to a fiat buy (admin/set-buy-deso-fee-basis-points); 0 when unset. */
  BuyNativeFeeBasisPoints: number;
}

/** The configured rates (config.ts `--satoshis-per-native-exchange-rate`, `--usd-cents-per-bitcoin-exchange-rate`, `--nanos-sold`). */
export interface ExchangeRateOptions {
  satoshisPerNativeExchangeRate: number;
  usdCentsPerBitcoinExchangeRate: number;
  nanosSold: number;
}

/**
 * @param buy - the node's buy settings (meta/buyNative.ts): as in the reference, the reserve
 *   rate floors the USD price (the node never quotes the coin below what it sells it at)
 */
export function exchangeRate(config: ExchangeRateOptions, buy: BuyNativeSettings = { feeBasisPoints: 0, reserveUsdCentsPerNative: 0 }): ExchangeRate {
  // BigInt: the product of two configured rates can pass 2^53 before the division.
  const fromBitcoin = Number(
    (BigInt(config.satoshisPerNativeExchangeRate) * BigInt(config.usdCentsPerBitcoinExchangeRate)) / SATOSHIS_PER_BITCOIN,
  );
  const usdCentsPerNative = Math.max(fromBitcoin, buy.reserveUsdCentsPerNative);
  return {
    SatoshisPerNativeExchangeRate: config.satoshisPerNativeExchangeRate,
    NanosSold: config.nanosSold,
    USDCentsPerBitcoinExchangeRate: config.usdCentsPerBitcoinExchangeRate,
    USDCentsPerNativeExchangeRate: usdCentsPerNative,
    SatoshisPerLegacyExchangeRate: config.satoshisPerNativeExchangeRate,
    USDCentsPerLegacyExchangeRate: usdCentsPerNative,
    USDCentsPerNativeReserveExchangeRate: buy.reserveUsdCentsPerNative,
    USDCentsPerLegacyReserveExchangeRate: buy.reserveUsdCentsPerNative,
    BuyNativeFeeBasisPoints: buy.feeBasisPoints,
  };
}
