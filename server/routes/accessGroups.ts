/**
 * Routes of this area: create-access-group, update-access-group, add/remove/update-access-group-members.
 * @module
 */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';

export function accessGroupRoutes(_deps: AppDeps): Route[] {
  return [];
}
