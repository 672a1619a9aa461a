/**
 * Routes of this area: submit-post.
 * @module
 */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';

export function postRoutes(_deps: AppDeps): Route[] {
  return [];
}
