/** Meta data routes, spec §4.9 (reference §2.6). */
import type { AppDeps } from '../deps.js';
import { ApiError } from '../http/errors.js';
import { json, raw, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { appState } from '../meta/appState.js';
import { buyNativeSettingsReader } from '../meta/buyNative.js';
import { exchangeRate } from '../meta/exchangeRate.js';

export const getAppStateBody = v.object({
  // Accepted for compatibility; the reference ignores its value too.
  PublicKeyBase58Check: v.optional(v.string({ maxLength: 100 })),
});

/** The bare JSON number 200 the reference's health check answers. */
const healthResponse = out.literal(200, 'The bare JSON number 200');

/** meta/exchangeRate.ts exchangeRate. */
export const exchangeRateResponse = out.named(
  'ExchangeRateResponse',
  out.object({
    SatoshisPerNativeExchangeRate: out.int(),
    NanosSold: out.int(),
    USDCentsPerBitcoinExchangeRate: out.int(),
    USDCentsPerNativeExchangeRate: out.int(),
    SatoshisPerLegacyExchangeRate: out.int('Same as SatoshisPerNativeExchangeRate (older name)'),
    USDCentsPerLegacyExchangeRate: out.int('Same as USDCentsPerNativeExchangeRate (older name)'),
    USDCentsPerNativeReserveExchangeRate: out.int('The reserve rate set by admin/set-usd-cents-to-deso-reserve-exchange-rate (0: none); it floors USDCentsPerNativeExchangeRate'),
    USDCentsPerLegacyReserveExchangeRate: out.int('Same as USDCentsPerNativeReserveExchangeRate (older name)'),
    BuyNativeFeeBasisPoints: out.int('The node’s fee on fiat buys of the native coin'),
  }),
);

/** meta/appState.ts appState. */
export const appStateResponse = out.named(
  'AppStateResponse',
  out.object({
    AnalyticsKey: out.string(),
    AnalyticsDomain: out.string(),
    MinSatoshisBurnedForProfileCreation: out.int(),
    IsTestnet: out.boolean(),
    SupportEmail: out.string(),
    ShowProcessingSpinners: out.boolean(),
    HasStarterNativeSeed: out.boolean(),
    HasSmsProviderAPIKey: out.boolean(),
    CreateProfileFeeNanos: out.uint64(),
    CompProfileCreation: out.boolean(),
    DiamondLevelMap: out.record(out.uint64(), 'Nanos a diamond of each level sends, by level'),
    HasPaymentProviderIntegration: out.boolean(),
    Password: out.literal('', 'Always empty (shape compatibility)'),
    BlockHeight: out.int('The tip’s height'),
  }),
);

export function metaRoutes(deps: AppDeps): Route[] {
  const buySettings = buyNativeSettingsReader(deps.store);
  return [
    route({
      method: 'GET',
      path: '/health-check',
      summary: '200 when this process can serve (state store reachable), else 503 with the reason',
      response: healthResponse,
      handle() {
        const status = deps.health.current();
        if (!status.ready) throw new ApiError(503, status.reason, { 'Retry-After': '1' });
        // The reference answers a bare `200` body.
        return raw('200', 'application/json');
      },
    }),
    route({
      method: 'GET',
      path: '/health-live',
      summary: '200 while this process runs its event loop, whatever the state store does: a liveness probe (health-check is the readiness probe)',
      response: healthResponse,
      // Touches nothing but this handler: a store outage must never make a process look dead
      // (restarting every process would not bring Redis back), and a draining process is alive.
      handle: () => raw('200', 'application/json'),
    }),
    route({
      method: 'GET',
      path: '/get-exchange-rate',
      summary: 'Native coin exchange rates (spec §2.10), with the node\'s buy fee and reserve rate (the reserve rate floors the USD price)',
      response: exchangeRateResponse,
      handle: async () => json(exchangeRate(deps.config, await buySettings())),
    }),
    route({
      method: 'POST',
      path: '/get-app-state',
      summary: 'Node parameters for frontends (spec §2.9)',
      body: getAppStateBody,
      response: appStateResponse,
      async handle() {
        const [{ tip }, params] = await Promise.all([deps.chain.position(), deps.chain.globalParams()]);
        return json(appState(deps.config, { blockHeight: Number(tip.height), createProfileFeeNanos: params.createProfileFeeNanos }));
      },
    }),
  ];
}
