/**
 * Rules of CREATOR_COIN (not connected yet: the types are refused until their handlers land).
 * @module
 */
import type { HandlerEntry } from './handlers.js';

export const creatorCoinHandlers: readonly HandlerEntry[] = [];
