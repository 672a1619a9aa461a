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
}

/** The configured rates (config.ts `--satoshis-per-native-exchange-rate`, `--usd-cents-per-bitcoin-exchange-rate`, `--nanos-sold`). */
export interface ExchangeRateOptions {
  satoshisPerNativeExchangeRate: number;
  usdCentsPerBitcoinExchangeRate: number;
  nanosSold: number;
}

export function exchangeRate(config: ExchangeRateOptions): ExchangeRate {
  // BigInt: the product of two configured rates can pass 2^53 before the division.
  const usdCentsPerNative = Number(
    (BigInt(config.satoshisPerNativeExchangeRate) * BigInt(config.usdCentsPerBitcoinExchangeRate)) / SATOSHIS_PER_BITCOIN,
  );
  return {
    SatoshisPerNativeExchangeRate: config.satoshisPerNativeExchangeRate,
    NanosSold: config.nanosSold,
    USDCentsPerBitcoinExchangeRate: config.usdCentsPerBitcoinExchangeRate,
    USDCentsPerNativeExchangeRate: usdCentsPerNative,
    SatoshisPerLegacyExchangeRate: config.satoshisPerNativeExchangeRate,
    USDCentsPerLegacyExchangeRate: usdCentsPerNative,
  };
}
