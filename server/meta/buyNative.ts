/**
 * The node's settings for selling its native coin for fiat (reference admin_buy_deso.go):
 * the fee in basis points added to every buy, and the reserve exchange rate, the lowest price
 * in US cents per whole coin the node sells at. Both are node state (not chain state), set by a
 * super admin, read publicly, and shown by get-exchange-rate (the reserve rate also floors its
 * USD price, as the reference's exchange-rate refresh does). One store key each, so setting one
 * never races the other; an unset value reads as 0, as in the reference.
 * @module
 */
import { isStoreUnavailable, type Store } from '../store/types.js';

export const buyNativeKeys = {
  feeBasisPoints: 'meta:buy-native:fee-basis-points',
  reserveUsdCentsPerNative: 'meta:buy-native:reserve-usd-cents-per-native',
};

/** 100%: a fee above the price itself is a mistake, not a setting. */
export const MAX_BUY_FEE_BASIS_POINTS = 10_000;

/** Cents per whole coin; a JSON-safe integer (beyond it, clients lose precision). */
export const MAX_RESERVE_USD_CENTS_PER_NATIVE = Number.MAX_SAFE_INTEGER;

export interface BuyNativeSettings {
  feeBasisPoints: number;
  reserveUsdCentsPerNative: number;
}

export async function getBuyNativeSettings(store: Pick<Store, 'getMany'>): Promise<BuyNativeSettings> {
  const [fee, reserve] = await store.getMany<number>([buyNativeKeys.feeBasisPoints, buyNativeKeys.reserveUsdCentsPerNative]);
  return { feeBasisPoints: fee ?? 0, reserveUsdCentsPerNative: reserve ?? 0 };
}

/**
 * The settings for an answer that must not fail with the store (get-exchange-rate keeps
 * answering while Redis is away): read each time, and while the store cannot answer, the last
 * ones read (none yet: zeros, the settings' defaults).
 */
export function buyNativeSettingsReader(store: Pick<Store, 'getMany'>): () => Promise<BuyNativeSettings> {
  let last: BuyNativeSettings = { feeBasisPoints: 0, reserveUsdCentsPerNative: 0 };
  return async () => {
    try {
      last = await getBuyNativeSettings(store);
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
    }
    return last;
  };
}

/** Callers validate the range ({@link MAX_BUY_FEE_BASIS_POINTS}). */
export async function setBuyFeeBasisPoints(store: Pick<Store, 'set'>, basisPoints: number): Promise<void> {
  await store.set(buyNativeKeys.feeBasisPoints, basisPoints);
}

/** Callers validate the range ({@link MAX_RESERVE_USD_CENTS_PER_NATIVE}). */
export async function setReserveUsdCentsPerNative(store: Pick<Store, 'set'>, usdCents: number): Promise<void> {
  await store.set(buyNativeKeys.reserveUsdCentsPerNative, usdCents);
}
