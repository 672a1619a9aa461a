/** Every API area's route table; the router mounts them all under /api/v0 and bare. */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';
import { identityRoutes } from './identity.js';
import { metaRoutes } from './meta.js';
import { minerRoutes } from './miner.js';
import { transactionRoutes } from './transactions.js';
import { nodeRoutes } from './node.js';

export function allRoutes(deps: AppDeps): Route[][] {
  return [nodeRoutes(deps), metaRoutes(deps), identityRoutes(deps), minerRoutes(deps), transactionRoutes(deps)];
}
