/**
 * Routes of this area: authorize-derived-key.
 * @module
 */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';

export function derivedKeyRoutes(_deps: AppDeps): Route[] {
  return [];
}
