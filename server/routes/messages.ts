/**
 * Routes of this area: send-dm-message, send-group-chat-message (and update-).
 * @module
 */
import type { AppDeps } from '../app.js';
import type { Route } from '../http/route.js';

export function messageRoutes(_deps: AppDeps): Route[] {
  return [];
}
