/**
 * Routes of this area: update-profile.
 * @module
 */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';

export function profileRoutes(_deps: AppDeps): Route[] {
  return [];
}
