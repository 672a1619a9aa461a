/**
 * Rules of SUBMIT_POST (not connected yet: the types are refused until their handlers land).
 * @module
 */
import type { HandlerEntry } from './handlers.js';

export const postHandlers: readonly HandlerEntry[] = [];
