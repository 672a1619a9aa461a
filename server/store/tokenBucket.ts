/**
 * The token bucket of `Store.takeTokens`: argument checks shared by both stores, and the
 * refill-and-take step in JS for the memory store. scripts/takeTokens.lua is the same step for
 * Redis, written operation for operation like `takeFromBucket` so that both stores compute the
 * same IEEE doubles and answer identically (the contract suite checks exact values).
 * @module
 */
import { StoreError, type TakeTokensOptions, type TokenTake } from './types.js';

/** Validated take options. */
export interface PreparedTake {
  capacity: number;
  refillPerSec: number;
  cost: number;
  /** Undefined: the store's own clock. */
  nowMs: number | undefined;
}

/** A bucket as stored: tokens (fractional) as of `atMs`. */
export interface BucketState {
  tokens: number;
  atMs: number;
}

function invalid(message: string): StoreError {
  return new StoreError('STORE_INVALID_ARGUMENT', message);
}

const positiveFinite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;

export function prepareTake(opts: TakeTokensOptions): PreparedTake {
  if (typeof opts !== 'object' || opts === null) throw invalid('takeTokens options must be an object');
  const { capacity, refillPerSec } = opts;
  const cost = opts.cost ?? 1;
  if (!positiveFinite(capacity)) throw invalid(`takeTokens capacity must be a positive finite number, got ${String(capacity)}`);
  if (!positiveFinite(refillPerSec)) {
    throw invalid(`takeTokens refillPerSec must be a positive finite number, got ${String(refillPerSec)}`);
  }
  if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0 || cost > capacity) {
    // A take above capacity could never succeed: a caller bug, not a rate limit.
    throw invalid(`takeTokens cost must be a number from 0 to capacity (${capacity}), got ${String(cost)}`);
  }
  const nowMs = opts.nowMs;
  if (nowMs !== undefined && (typeof nowMs !== 'number' || !Number.isSafeInteger(nowMs) || nowMs < 0)) {
    throw invalid(`takeTokens nowMs must be a non-negative integer of epoch milliseconds, got ${String(nowMs)}`);
  }
  return { capacity, refillPerSec, cost, nowMs };
}

/**
 * Refills `state` (undefined: a new, full bucket) up to `nowMs`, then takes. A clock that went
 * back adds nothing and keeps the later timestamp. Returns the state to store and how long it
 * must be kept: until it would be full again, when an absent bucket means the same.
 */
export function takeFromBucket(
  state: BucketState | undefined,
  p: PreparedTake,
  nowMs: number,
): { state: BucketState; take: TokenTake; ttlMs: number } {
  let tokens: number;
  let atMs: number;
  if (state === undefined) {
    tokens = p.capacity;
    atMs = nowMs;
  } else {
    tokens = state.tokens;
    atMs = state.atMs;
    if (nowMs > atMs) {
      tokens = tokens + ((nowMs - atMs) * p.refillPerSec) / 1000;
      atMs = nowMs;
    }
  }
  // Also clamps a bucket stored under a larger capacity (the limit was lowered since).
  if (tokens > p.capacity) tokens = p.capacity;
  let allowed = false;
  let retryAfterMs = 0;
  if (tokens >= p.cost) {
    tokens = tokens - p.cost;
    allowed = true;
  } else {
    retryAfterMs = Math.ceil(((p.cost - tokens) * 1000) / p.refillPerSec);
    if (retryAfterMs < 1) retryAfterMs = 1;
  }
  let ttlMs = Math.ceil(((p.capacity - tokens) * 1000) / p.refillPerSec);
  if (ttlMs < 1) ttlMs = 1;
  return { state: { tokens, atMs }, take: { allowed, remaining: Math.floor(tokens), retryAfterMs }, ttlMs };
}
