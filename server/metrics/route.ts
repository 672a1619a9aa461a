/** GET /metrics: this process's metrics in the Prometheus text format (nodeMetrics.ts). */
import { raw, route, type Route } from '../http/route.js';
import type { NodeMetrics } from './nodeMetrics.js';
import { CONTENT_TYPE } from './registry.js';

export function metricsRoutes(metrics: NodeMetrics): Route[] {
  return [
    route({
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics (text format 0.0.4) of the answering process; every sample is labelled with its process id',
      // no-store: a scrape is always fresh (and the router then adds no ETag).
      handle: async () => raw(await metrics.render(), CONTENT_TYPE, 200, { 'Cache-Control': 'no-store' }),
    }),
  ];
}
