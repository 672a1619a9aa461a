/**
 * Coded errors of the crypto worker pool. server/http/errors.ts maps every code to a 503 with
 * `Retry-After`: each one means "the node is overloaded or shutting down", never "bad input"
 * (bad input is a per-item `WorkResult` error, not an exception).
 * @module
 */

export type PoolErrorCode =
  /** The queue is at `maxQueue`: rejected at once instead of waiting without bound. */
  | 'POOL_BUSY'
  /** close() was called: queued and new work is refused. */
  | 'POOL_CLOSED'
  /** The worker running the task died twice (the task is retried once on a fresh worker). */
  | 'POOL_WORKER_DIED'
  /** A task threw inside the worker: a bug, not load; surfaces as a 500. */
  | 'POOL_TASK_FAILED';

export class PoolError extends Error {
  override readonly name = 'PoolError';
  constructor(
    readonly code: PoolErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isPoolError(e: unknown): e is PoolError {
  return e instanceof PoolError;
}
