/**
 * Rules of NEW_MESSAGE (not connected yet: the types are refused until their handlers land).
 * @module
 */
import type { HandlerEntry } from './handlers.js';

export const messageHandlers: readonly HandlerEntry[] = [];
