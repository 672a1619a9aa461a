/**
 * The identity frame API over HTTP: `POST /api/v0/identity` with one envelope
 * `{id, service: "identity", method, payload}`, answered `{id, service, payload}`. The same
 * envelopes flow over the WebSocket at the same path (server/node.ts), many in flight at once.
 * A refused request answers 4xx with the envelope plus a top-level `error`, so both envelope
 * clients and plain `{error}` clients read it.
 */
import type { AppDeps } from '../deps.js';
import { json, route, type Route } from '../http/route.js';
import { answerFrame } from '../http/identityFrames.js';

export function identityRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/identity',
      summary: 'Identity frame API: login, approve, logout, sign, encrypt, decrypt, jwt (spec §4.1); also a WebSocket at this path',
      async handle(ctx) {
        const limiter = deps.rateLimiter;
        const { status, response, headers } = await answerFrame(deps.identity, { value: ctx.body }, ctx.log, {
          beforeLogin: limiter ? () => limiter.checkClass('login', ctx.remoteAddress) : undefined,
        });
        if (status === 200) return json(response);
        const error = typeof response.payload['error'] === 'string' ? response.payload['error'] : 'request refused';
        return json({ error, ...response }, status, status === 503 ? { 'Retry-After': '1', ...headers } : headers);
      },
    }),
  ];
}
