/**
 * The node's fiat-buy settings (reference routes/admin_buy_deso.go; meta/buyNative.ts): the fee
 * in basis points added to a buy, and the reserve exchange rate (the lowest US cents per whole
 * coin the node sells at). A super admin sets them; anyone reads them (GET, as the reference and
 * the SDK), and get-exchange-rate shows both.
 *
 * Unlike the reference, a set request must name its value (the reference decodes an omitted one
 * as 0 and so resets the setting), the fee is at most 10000 basis points (100%) and the rate a
 * JSON-safe integer.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { adminRoute } from './adminAuth.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import {
  getBuyNativeSettings,
  MAX_BUY_FEE_BASIS_POINTS,
  MAX_RESERVE_USD_CENTS_PER_NATIVE,
  setBuyFeeBasisPoints,
  setReserveUsdCentsPerNative,
} from '../meta/buyNative.js';

export const setBuyFeeBasisPointsBody = v.object({
  BuyDeSoFeeBasisPoints: v.int(0, MAX_BUY_FEE_BASIS_POINTS),
});

export const setReserveExchangeRateBody = v.object({
  USDCentsPerDeSo: v.int(0, MAX_RESERVE_USD_CENTS_PER_NATIVE),
});

export const buyFeeResponse = out.object({ BuyDeSoFeeBasisPoints: out.int('Basis points (0 to 10000)') });
export const reserveRateResponse = out.object({ USDCentsPerDeSo: out.int('US cents per whole native coin (0: none)') });

export function adminBuyNativeRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/admin/get-buy-deso-fee-basis-points',
      summary: 'The fee, in basis points, this node adds to a fiat buy of the native coin (0 until set); public',
      response: buyFeeResponse,
      handle: async () => json({ BuyDeSoFeeBasisPoints: (await getBuyNativeSettings(deps.store)).feeBasisPoints }),
    }),
    adminRoute(deps, {
      path: '/admin/set-buy-deso-fee-basis-points',
      summary: 'Sets the fee, in basis points (0 to 10000), this node adds to a fiat buy of the native coin',
      level: 'superAdmin',
      body: setBuyFeeBasisPointsBody,
      response: buyFeeResponse,
      async handle({ body }) {
        await setBuyFeeBasisPoints(deps.store, body.BuyDeSoFeeBasisPoints);
        return json({ BuyDeSoFeeBasisPoints: body.BuyDeSoFeeBasisPoints });
      },
    }),
    route({
      method: 'GET',
      path: '/admin/get-usd-cents-to-deso-reserve-exchange-rate',
      summary: 'The reserve exchange rate: the lowest US cents per whole native coin this node sells at (0 until set); public',
      response: reserveRateResponse,
      handle: async () => json({ USDCentsPerDeSo: (await getBuyNativeSettings(deps.store)).reserveUsdCentsPerNative }),
    }),
    adminRoute(deps, {
      path: '/admin/set-usd-cents-to-deso-reserve-exchange-rate',
      summary: 'Sets the reserve exchange rate (US cents per whole native coin); it also floors the USD price of get-exchange-rate',
      level: 'superAdmin',
      body: setReserveExchangeRateBody,
      response: reserveRateResponse,
      async handle({ body }) {
        await setReserveUsdCentsPerNative(deps.store, body.USDCentsPerDeSo);
        return json({ USDCentsPerDeSo: body.USDCentsPerDeSo });
      },
    }),
  ];
}
