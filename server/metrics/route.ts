/** GET /metrics: the node's metrics in the Prometheus text format, every server process's series in one scrape (nodeMetrics.ts). */
import { raw, route, type Route } from '../http/route.js';
import type { NodeMetrics } from './nodeMetrics.js';
import { CONTENT_TYPE } from './registry.js';

export function metricsRoutes(metrics: NodeMetrics): Route[] {
  return [
    route({
      method: 'GET',
      path: '/metrics',
      summary:
        'Prometheus metrics (text format 0.0.4) of every server process of the node (with --processes N, the answering process ' +
        'gathers the others\' through the supervisor, each answering within 2 s or left out); every sample is labelled with its process id',
      responses: { 200: { description: 'The Prometheus text exposition format 0.0.4', contentType: CONTENT_TYPE, schema: { type: 'string' } } },
      // no-store: a scrape is always fresh (and the router then adds no ETag).
      handle: async () => raw(await metrics.scrape(), CONTENT_TYPE, 200, { 'Cache-Control': 'no-store' }),
    }),
  ];
}
