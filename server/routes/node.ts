/** Node introspection routes (not in the reference: operators of multi-process nodes need them). */
import type { AppDeps } from '../deps.js';
import { json, raw, route, type Route } from '../http/route.js';

export function nodeRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/',
      summary: 'Liveness banner, as the reference node answers on /',
      handle: () => raw('Your social-node is running!\n', 'text/plain; charset=utf-8'),
    }),
    route({
      method: 'GET',
      path: '/node-info',
      summary: 'Network, store and the server processes currently sharing this node',
      async handle() {
        return json({
          Network: deps.config.network,
          IsTestnet: deps.config.network === 'testnet',
          StoreKind: deps.store.kind,
          ProcessId: deps.registry.processId,
          StoreLatencyMs: deps.health.lastPingMs,
          CryptoAcceptingWork: deps.crypto.canAcceptWork(),
          Processes: await deps.registry.list(),
          // The process holding the block-producer lease (templates and the built-in miner).
          BlockProducer: (await deps.producer.status()).producer,
        });
      },
    }),
  ];
}
