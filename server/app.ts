/**
 * Composition root of one server process: the router that mounts every route table over the
 * dependencies (deps.ts) they receive.
 */
import { RateLimiter } from './http/rateLimit.js';
import { parseRateLimits } from './http/rateClasses.js';
import { Router } from './http/router.js';
import { area } from './http/route.js';
import { metricsRoutes } from './metrics/route.js';
import { allRoutes } from './routes/index.js';
import { openApiRoutes } from './routes/openapi.js';
import type { AppDeps } from './deps.js';

/** Re-exported for the route tables that name it here; new code imports it from deps.ts. */
export type { AppDeps };

/**
 * The one limiter of a process, from `--rate-limits`, `--rate-limit-loopback` and
 * `--trust-proxy` (behind a trusted proxy, loopback is no longer exempt: on the same host it is
 * the proxy itself, and exempting it would exempt every client).
 */
export function createRateLimiter(deps: Pick<AppDeps, 'config' | 'store' | 'log' | 'metrics'>): RateLimiter {
  return new RateLimiter({
    limits: parseRateLimits(deps.config.rateLimits),
    limitLoopback: deps.config.rateLimitLoopback || deps.config.trustProxy.length > 0,
    store: deps.store,
    log: deps.log,
    metrics: deps.metrics?.rateLimits,
  });
}

export function createRouter(deps: AppDeps): Router {
  // The OpenAPI route documents the router's final route list, itself included.
  const metrics = deps.metrics ?? null;
  const operator = metrics !== null && deps.config.metrics ? [area('Node', metricsRoutes(metrics))] : [];
  const router: Router = new Router([...allRoutes(deps), ...operator, area('Node', openApiRoutes(deps, () => router.routes))], {
    network: deps.config.network,
    corsOrigins: deps.config.corsOrigins,
    log: deps.log,
    commonHeaders: [['X-Node-Process', deps.registry.processId]],
    rateLimiter: deps.rateLimiter ?? null,
    onDispatched: metrics === null ? null : (o) => metrics.observeDispatch(o),
    slowRequestMs: deps.config.slowRequestMs,
    responseNames: deps.config.responseNames,
    checkResponses: deps.config.checkResponses,
  });
  return router;
}
