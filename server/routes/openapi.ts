/**
 * GET /api/v0/openapi.json: the OpenAPI 3.1 document of every route this node mounts, this one
 * included (server/http/openapi.ts builds it from the router's routes), and of the two
 * WebSocket APIs (identity and miner, under `x-websockets`).
 * @module
 */
import { createRequire } from 'node:module';
import type { AppDeps } from '../deps.js';
import { openApiDocument } from '../http/openapi.js';
import { parseRateLimits } from '../http/rateClasses.js';
import { raw, route, type Route } from '../http/route.js';
import { stringifyJson } from '../http/router.js';
import { out } from '../schema.js';
import { schemaWithNames } from '../http/responseNames.js';
import { identitySocketDoc } from './identity.js';
import { AREAS } from './index.js';
import { minerSocketDoc } from './minerSocket.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const openApiResponse = out.freeObject('An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)');

/**
 * The document route. `mounted` answers the router's final route list; it is read on the first
 * request, when the router is complete, and the serialized document is kept (routes never
 * change at runtime).
 */
export function openApiRoutes(deps: AppDeps, mounted: () => readonly Route[]): Route[] {
  let document: string | undefined;
  return [
    route({
      method: 'GET',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document, generated from the mounted routes and their request and response schemas',
      response: openApiResponse,
      handle() {
        document ??= stringifyJson(
          schemaWithNames(
            openApiDocument(mounted(), {
              title: 'social-node API',
              version,
              network: deps.config.network,
              rateLimits: parseRateLimits(deps.config.rateLimits),
              tags: AREAS,
              websockets: [identitySocketDoc(deps.config.maxBodyBytes), minerSocketDoc],
            }),
            deps.config.responseNames,
          ),
        );
        return raw(document, 'application/json');
      },
    }),
  ];
}
