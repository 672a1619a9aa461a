/**
 * How an authentication check tells the router who a request proved to be, so that the
 * caller's per-key rate-limit bucket is taken only then: a key a request merely names proves
 * nothing, and taking its bucket would let anyone lock its owner out (rateLimit.ts).
 *
 * The router gives every handler a `CallerProof` in its context (`ctx.caller`); `requireUserJwt`
 * (routes/adminAuth.ts), the one place a JWT is checked (admin checks included), takes it and calls
 * `authenticated` once the token verified. Passed explicitly rather than through an async
 * context: AsyncLocalStorage turns on promise hooks for the whole process, which made
 * promise-heavy code 2.6x slower on Node 20 (measured: 8 awaits per call, 300k calls).
 * @module
 */

/** What a request's authentication check reports to. */
export interface CallerProof {
  /** The request authenticated as `publicKeyBase58Check`; throws (429) to refuse it. */
  authenticated(publicKeyBase58Check: string): Promise<void>;
}

/** For a check outside any HTTP request (tests, tools): nothing is limited. */
export const UNLIMITED_CALLER: CallerProof = { authenticated: async () => {} };

/**
 * The proof of one request under a rate limiter: its caller's key bucket, taken on
 * `authenticated`. A class, not a closure per request (see http/uws.ts Exchange).
 */
export class LimitedCaller<R> implements CallerProof {
  constructor(
    private readonly limiter: { checkCaller(route: R, remoteAddress: string, publicKeyBase58Check: string): Promise<void> },
    private readonly route: R,
    private readonly remoteAddress: string,
  ) {}

  authenticated(publicKeyBase58Check: string): Promise<void> {
    return this.limiter.checkCaller(this.route, this.remoteAddress, publicKeyBase58Check);
  }
}
