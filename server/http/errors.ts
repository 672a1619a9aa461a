import type { Logger } from 'pino';
import { isPoolError } from '../crypto/errors.js';
import { isDomainError, type ErrorKind } from '../errors.js';
import { isStoreUnavailable } from '../store/types.js';

/** HTTP statuses the API answers with on error. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 503;

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

/** The one table from an error's kind (errors.ts) to its HTTP status. */
export const KIND_STATUS: Readonly<Record<ErrorKind, ErrorStatus>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  tooLarge: 413,
  busy: 503,
  unavailable: 503,
  internal: 500,
};

/**
 * The status an error is answered with, when it is one written for clients (ApiError or a
 * domain error); undefined for anything else (answered 500).
 */
export function clientErrorStatus(err: unknown): ErrorStatus | undefined {
  if (isApiError(err)) return err.status;
  if (isDomainError(err) && err.kind !== 'internal') return KIND_STATUS[err.kind];
  return undefined;
}

/** Kinds a client should retry shortly: answered with Retry-After. */
const RETRY_KINDS: ReadonlySet<ErrorKind> = new Set(['busy', 'unavailable']);

/**
 * The one place that maps errors to HTTP. Domain errors (errors.ts) by their kind, with their
 * message; the store and the crypto pool when they cannot answer, with a fixed message; and
 * anything else, or an `internal` domain error, as a bare 500: its message may carry internals
 * (or worse, key material), so only the log sees it.
 */
export function toErrorReply(err: unknown, log: Logger): ErrorReply {
  if (isApiError(err)) return { status: err.status, message: err.message, headers: err.headers };
  if (isDomainError(err) && err.kind !== 'internal') {
    // Their messages are written for clients and never carry key material (see each module).
    return { status: KIND_STATUS[err.kind], message: err.message, headers: RETRY_KINDS.has(err.kind) ? { 'Retry-After': '1' } : {} };
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
