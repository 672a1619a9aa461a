/**
 * How an authentication check tells the router who a request proved to be, so that the
 * caller's per-key rate-limit bucket is taken only then: a key a request merely names proves
 * nothing, and taking its bucket would let anyone lock its owner out (rateLimit.ts).
 *
 * The router runs each handler inside `withCallerHook`; `requireUserJwt` (adminAuth.ts), the
 * one place a JWT is checked (admin checks included), calls `authenticated` once the token
 * verified. An async context rather than a parameter, so that every route that authenticates,
 * now or later, takes the bucket without threading the request through.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Called with the base58 key a request authenticated as; throws (429) to refuse it. */
export type CallerHook = (publicKeyBase58Check: string) => Promise<void>;

const current = new AsyncLocalStorage<CallerHook>();

/** Runs `fn` (a route handler) with `hook` as the request's caller hook. */
export function withCallerHook<T>(hook: CallerHook, fn: () => T): T {
  return current.run(hook, fn);
}

/** The current request authenticated as `publicKeyBase58Check`; outside a request, nothing. */
export async function authenticated(publicKeyBase58Check: string): Promise<void> {
  await current.getStore()?.(publicKeyBase58Check);
}
