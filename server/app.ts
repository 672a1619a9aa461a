/**
 * Composition root of one server process: the dependencies every route table receives and the
 * router that mounts those tables.
 */
import type { Logger } from 'pino';
import type { ProcessRegistry } from './cluster/registry.js';
import type { Config } from './config.js';
import type { Chain } from './chain/chain.js';
import type { AutoMiner } from './chain/miner.js';
import type { MinerFeed } from './chain/minerFeed.js';
import type { CryptoService } from './crypto/service.js';
import type { HealthMonitor } from './health.js';
import type { IdentityService } from './identity/service.js';
import type { JwtVerifier } from './identity/jwt.js';
import { Router } from './http/router.js';
import { allRoutes } from './routes/index.js';
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
  /** The built-in miner of this process, when it runs one. */
  miner: AutoMiner | null;
  /** Pushes block templates to subscribed miner sockets. */
  minerFeed: MinerFeed;
}

export function createRouter(deps: AppDeps): Router {
  return new Router(allRoutes(deps), {
    network: deps.config.network,
    corsOrigins: deps.config.corsOrigins,
    log: deps.log,
    commonHeaders: [['X-Node-Process', deps.registry.processId]],
  });
}
