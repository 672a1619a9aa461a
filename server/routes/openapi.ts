/**
 * GET /api/v0/openapi.json: the OpenAPI 3.1 document of every route this node mounts, this one
 * included (server/http/openapi.ts builds it from the router's routes).
 * @module
 */
import { createRequire } from 'node:module';
import type { AppDeps } from '../deps.js';
import { openApiDocument } from '../http/openapi.js';
import { raw, route, type Route } from '../http/route.js';
import { stringifyJson } from '../http/router.js';
import { responseBody } from '../http/responseNames.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

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
      summary: 'This API as an OpenAPI 3.1 document, generated from the mounted routes and their request schemas',
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document',
          schema: { type: 'object', required: ['openapi', 'info', 'paths'] },
        },
      },
      handle() {
        document ??= stringifyJson(
          responseBody(openApiDocument(mounted(), { title: 'social-node API', version, network: deps.config.network }), deps.config.responseNames),
        );
        return raw(document, 'application/json');
      },
    }),
  ];
}
