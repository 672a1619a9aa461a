/** Meta data routes, spec §4.9 (reference §2.6). */
import type { AppDeps } from '../deps.js';
import { ApiError } from '../http/errors.js';
import { json, raw, route, type Route } from '../http/route.js';
import { v } from '../http/schema.js';
import { appState } from '../meta/appState.js';
import { getBuyNativeSettings } from '../meta/buyNative.js';
import { exchangeRate } from '../meta/exchangeRate.js';

export const getAppStateBody = v.object({
  // Accepted for compatibility; the reference ignores its value too.
  PublicKeyBase58Check: v.optional(v.string({ maxLength: 100 })),
});

export function metaRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/health-check',
      summary: '200 when this process can serve (state store reachable), else 503 with the reason',
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
      // Touches nothing but this handler: a store outage must never make a process look dead
      // (restarting every process would not bring Redis back), and a draining process is alive.
      handle: () => raw('200', 'application/json'),
    }),
    route({
      method: 'GET',
      path: '/get-exchange-rate',
      summary: 'Native coin exchange rates (spec §2.10), with the node\'s buy fee and reserve rate (the reserve rate floors the USD price)',
      handle: async () => json(exchangeRate(deps.config, await getBuyNativeSettings(deps.store))),
    }),
    route({
      method: 'POST',
      path: '/get-app-state',
      summary: 'Node parameters for frontends (spec §2.9)',
      body: getAppStateBody,
      async handle() {
        const [{ tip }, params] = await Promise.all([deps.chain.position(), deps.chain.globalParams()]);
        return json(appState(deps.config, { blockHeight: Number(tip.height), createProfileFeeNanos: params.createProfileFeeNanos }));
      },
    }),
  ];
}
