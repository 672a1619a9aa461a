/**
 * Routes of this area: dao-coin, transfer-dao-coin, create-/cancel-dao-coin-limit-order.
 * @module
 */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';

export function daoCoinRoutes(_deps: AppDeps): Route[] {
  return [];
}
