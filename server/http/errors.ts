import type { Logger } from 'pino';
import { isPoolError } from '../crypto/errors.js';
import { isKeyError } from '../keys/index.js';
import { isStoreUnavailable } from '../store/types.js';
import { TxnDecodeError } from '../chain/txn/errors.js';
import { RuleError } from '../chain/rules/errors.js';
import { ChainRequestError } from '../chain/chain.js';
import { BlockError } from '../chain/block/errors.js';
import { IdentityError, IdentityRequestError } from '../identity/errors.js';
import { MessageRequestError } from '../identity/messages.js';
import { SignTxnError } from '../identity/signTxn.js';

/** HTTP statuses the API answers with on error. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 413 | 415 | 429 | 500 | 503;

/** An error whose message is safe to show the client as `{"error": message}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

export const badRequest = (message: string): ApiError => new ApiError(400, message);
export const notFound = (message: string): ApiError => new ApiError(404, message);

export interface ErrorReply {
  status: ErrorStatus;
  message: string;
  headers: Readonly<Record<string, string>>;
}

const POOL_UNAVAILABLE = {
  POOL_BUSY: 'server busy: crypto work queue is full, try again shortly',
  POOL_CLOSED: 'server shutting down, try again shortly',
  POOL_WORKER_DIED: 'crypto worker failed, try again shortly',
} as const;

/**
 * The one place that maps domain errors to HTTP. Unknown errors become a bare 500: their
 * message may carry internals (or worse, key material), so only the log sees them.
 */
export function toErrorReply(err: unknown, log: Logger): ErrorReply {
  if (isApiError(err)) return { status: err.status, message: err.message, headers: err.headers };
  if (isKeyError(err)) return { status: 400, message: err.message, headers: {} };
  if (
    err instanceof IdentityError ||
    err instanceof IdentityRequestError ||
    err instanceof MessageRequestError ||
    err instanceof TxnDecodeError ||
    (err instanceof SignTxnError && err.code === 'ALREADY_SIGNED') ||
    err instanceof RuleError ||
    err instanceof ChainRequestError ||
    err instanceof BlockError
  ) {
    // Their messages are written for clients and never carry key material (see each module).
    return { status: 400, message: err.message, headers: {} };
  }
  if (isStoreUnavailable(err)) {
    log.warn({ code: err.code, msg: err.message }, 'store unavailable');
    return { status: 503, message: 'state store unavailable, try again shortly', headers: { 'Retry-After': '1' } };
  }
  if (isPoolError(err) && err.code !== 'POOL_TASK_FAILED') {
    // Overload or shutdown of the crypto workers, not a fault of the request: retry shortly.
    log.warn({ code: err.code, msg: err.message }, 'crypto pool unavailable');
    return { status: 503, message: POOL_UNAVAILABLE[err.code], headers: { 'Retry-After': '1' } };
  }
  log.error({ err }, 'unhandled error in request');
  return { status: 500, message: 'internal server error', headers: {} };
}
