/**
 * Composition root of one server process: the dependencies every route table receives and the
 * router that mounts those tables.
 */
import type { Logger } from 'pino';
import type { ProcessRegistry } from './cluster/registry.js';
import type { Config } from './config.js';
import type { Chain } from './chain/chain.js';
import type { BlockProducer } from './chain/blockProducer.js';
import type { MinerFeed } from './chain/minerFeed.js';
import type { CryptoService } from './crypto/service.js';
import type { HealthMonitor } from './health.js';
import type { IdentityService } from './identity/service.js';
import type { JwtVerifier } from './identity/jwt.js';
import { RateLimiter } from './http/rateLimit.js';
import { parseRateLimits } from './http/rateClasses.js';
import { Router } from './http/router.js';
import { area } from './http/route.js';
import type { NodeMetrics } from './metrics/nodeMetrics.js';
import { metricsRoutes } from './metrics/route.js';
import { allRoutes } from './routes/index.js';
import { openApiRoutes } from './routes/openapi.js';
import type { Store } from './store/types.js';

export interface AppDeps {
  config: Config;
  store: Store;
  log: Logger;
  health: HealthMonitor;
  registry: ProcessRegistry;
  /** Heavy crypto, off the event loop (worker threads). */
  crypto: CryptoService;
  /** The identity frame API (POST and WebSocket at /api/v0/identity). */
  identity: IdentityService;
  /** The one verifier of JWT-protected routes (spec §5). */
  jwt: JwtVerifier;
  /** The chain: mempool, templates, blocks, state. */
  chain: Chain;
  /** The block producer role: lease, published templates and the built-in miner. */
  producer: BlockProducer;
  /** Pushes block templates to subscribed miner sockets. */
  minerFeed: MinerFeed;
  /** This process's metrics (GET /metrics unless --no-metrics); absent in tools that build deps by hand. */
  metrics?: NodeMetrics;
  /** The rate limits of routes, sockets and logins (`createRateLimiter`); absent: nothing is limited. */
  rateLimiter?: RateLimiter;
}

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
