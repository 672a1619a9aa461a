/**
 * The dependencies of one server process, as types only: what the composition root (node.ts)
 * builds and every route table receives. Services and read modules take the slice they use,
 * `Pick<AppDeps, 'chain' | 'config'>`, so a test or a tool builds just that slice.
 *
 * Types only (test/unit/layers.test.ts holds it): importing this module costs nothing at run
 * time and creates no cycle, whichever layer names a dependency's type.
 * @module
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
import type { RateLimiter } from './http/rateLimit.js';
import type { NodeMetrics } from './metrics/nodeMetrics.js';
import type { HotFeedJob } from './social/hotFeedJob.js';
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
  /** The hot feed's periodic refresh (its rankings are read from the store); absent in tools that build deps by hand. */
  hotFeed?: HotFeedJob;
}
