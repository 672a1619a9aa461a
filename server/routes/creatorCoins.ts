/**
 * Routes of this area: buy-or-sell-creator-coin.
 * @module
 */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';

export function creatorCoinRoutes(_deps: AppDeps): Route[] {
  return [];
}
