/** Node introspection routes (not in the reference: operators of multi-process nodes need them). */
import type { AppDeps } from '../deps.js';
import { json, raw, route, type Route } from '../http/route.js';
import { out } from '../schema.js';

export const nodeInfoResponse = out.named(
  'NodeInfo',
  out.object({
    Network: out.enum(['mainnet', 'testnet']),
    IsTestnet: out.boolean(),
    StoreKind: out.enum(['memory', 'redis', 'lmdb']),
    ProcessId: out.string('The answering server process'),
    StoreLatencyMs: out.nullable(out.number('Latency of the last store ping; null before the first')),
    CryptoAcceptingWork: out.boolean('Whether the crypto workers take more work (else 503s)'),
    Processes: out.array(
      out.object({ ProcessId: out.string(), Pid: out.int(), StartedAtUnixMs: out.int(), LastSeenUnixMs: out.int() }),
      'The server processes sharing this node, oldest first',
    ),
    BlockProducer: out.nullable(out.object({ ProcessId: out.string(), Epoch: out.int() }, 'The process holding the block-producer lease (templates, built-in miner)')),
  }),
);

export function nodeRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/',
      summary: 'Liveness banner, as the reference node answers on /',
      responses: { 200: { description: 'A line of text', contentType: 'text/plain; charset=utf-8', schema: { type: 'string' } } },
      handle: () => raw('Your social-node is running!\n', 'text/plain; charset=utf-8'),
    }),
    route({
      method: 'GET',
      path: '/node-info',
      summary: 'Network, store and the server processes currently sharing this node',
      response: nodeInfoResponse,
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
