/**
 * Rules of DAO_COIN and DAO_COIN_TRANSFER (not connected yet: the types are refused until their handlers land).
 * @module
 */
import type { HandlerEntry } from './handlers.js';

export const daoCoinHandlers: readonly HandlerEntry[] = [];
