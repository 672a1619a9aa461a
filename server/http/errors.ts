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

/** Kinds a client should retry shortly: answered with Retry-After. */
const RETRY_KINDS: ReadonlySet<ErrorKind> = new Set(['busy', 'unavailable']);

/**
 * The reference's message prefixes of one route, by error code (`Route.errorPrefixes`): a
 * domain error thrown while the route answers is answered with the prefix of its code before
 * its message, so no handler catches an error only to reword it. A key ending in `*` matches
 * every code that starts with the rest (`RuleError*`); an exact key wins over a pattern, and a
 * longer pattern over a shorter one.
 */
export type ErrorPrefixes = Readonly<Record<string, string>>;

/** The prefix `prefixes` give an error of `code` ('' for none). */
export function prefixFor(code: string, prefixes: ErrorPrefixes | undefined): string {
  if (prefixes === undefined) return '';
  if (Object.hasOwn(prefixes, code)) return prefixes[code]!;
  let best: string | undefined;
  let bestLength = -1;
  for (const [key, prefix] of Object.entries(prefixes)) {
    if (!key.endsWith('*') || key.length - 1 <= bestLength || !code.startsWith(key.slice(0, -1))) continue;
    best = prefix;
    bestLength = key.length - 1;
  }
  return best ?? '';
}

/**
 * The one place that maps errors to HTTP. Domain errors (errors.ts) by their kind, with their
 * message after the route's prefix for their code (`prefixes`); the store and the crypto pool
 * when they cannot answer, with a fixed message; and anything else, or an `internal` domain
 * error, as a bare 500: its message may carry internals (or worse, key material), so only the
 * log sees it. Without `log` (a caller that only needs the status and message, such as the
 * admin audit), nothing is logged.
 */
export function toErrorReply(err: unknown, log?: Logger, prefixes?: ErrorPrefixes): ErrorReply {
  if (isApiError(err)) return { status: err.status, message: err.message, headers: err.headers };
  if (isDomainError(err) && err.kind !== 'internal') {
    // Their messages are written for clients and never carry key material (see each module).
    const message = prefixFor(err.code, prefixes) + err.message;
    return { status: KIND_STATUS[err.kind], message, headers: RETRY_KINDS.has(err.kind) ? { 'Retry-After': '1' } : {} };
  }
  if (isStoreUnavailable(err)) {
    log?.warn({ code: err.code, msg: err.message }, 'store unavailable');
    return { status: 503, message: 'state store unavailable, try again shortly', headers: { 'Retry-After': '1' } };
  }
  if (isPoolError(err) && err.code !== 'POOL_TASK_FAILED') {
    // Overload or shutdown of the crypto workers, not a fault of the request: retry shortly.
    log?.warn({ code: err.code, msg: err.message }, 'crypto pool unavailable');
    return { status: 503, message: POOL_UNAVAILABLE[err.code], headers: { 'Retry-After': '1' } };
  }
  log?.error({ err }, 'unhandled error in request');
  return { status: 500, message: 'internal server error', headers: {} };
}
