/**
 * The one error model of the node: every error written for clients extends DomainError, with a
 * stable `code` (what went wrong, for programs) and a `kind` (which class of failure, for
 * transports). The HTTP layer turns a kind into a status in one table (http/errors.ts) and
 * knows no domain module; a domain module knows no HTTP.
 *
 * Messages of domain errors are shown to clients, so they never carry secrets (seeds, keys,
 * sealed handles) or internals. An error that is not a DomainError is a bug or an outage:
 * clients get a generic answer, the log gets the details.
 * @module
 */

export const ERROR_KINDS = ['invalid', 'unauthorized', 'forbidden', 'notFound', 'conflict', 'tooLarge', 'busy', 'unavailable', 'internal'] as const;
/**
 * - invalid: the request is wrong (400); unauthorized: credentials missing or bad (401);
 *   forbidden: valid credentials without the right (403); notFound (404); conflict (409);
 *   tooLarge (413)
 * - busy: a transient overload, retry shortly (503 with Retry-After); unavailable: a
 *   dependency is down (503 with Retry-After)
 * - internal: our own failure; the message is for the log only (500)
 */
export type ErrorKind = (typeof ERROR_KINDS)[number];

export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}
