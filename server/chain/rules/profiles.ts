/**
 * Rules of UPDATE_PROFILE (not connected yet: the types are refused until their handlers land).
 * @module
 */
import type { HandlerEntry } from './handlers.js';

export const profileHandlers: readonly HandlerEntry[] = [];
