/**
 * Rules of DAO_COIN_LIMIT_ORDER (not connected yet: the types are refused until their handlers land).
 * @module
 */
import type { HandlerEntry } from './handlers.js';

export const daoCoinLimitOrderHandlers: readonly HandlerEntry[] = [];
