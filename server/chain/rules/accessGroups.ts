/**
 * Rules of ACCESS_GROUP and ACCESS_GROUP_MEMBERS (not connected yet: the types are refused until their handlers land).
 * @module
 */
import type { HandlerEntry } from './handlers.js';

export const accessGroupHandlers: readonly HandlerEntry[] = [];
