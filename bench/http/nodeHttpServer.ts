/**
 * Baseline for bench/http.bench.ts: the node's real router (same AppDeps as server/node.ts,
 * in-memory store, or `--redis`) served by node:http instead of uWebSockets.js, so the two runs differ only
 * in the transport.
 *
 *   node --import tsx bench/http/nodeHttpServer.ts --port 17099 [--redis redis://127.0.0.1:6390]
 *
 * Prints `listening <port>` on stdout when ready; exits on SIGTERM/SIGINT.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { createRateLimiter, createRouter, type AppDeps } from '../../server/app.js';
import { createIdentity } from '../../server/identity/index.js';
import { MinerFeed } from '../../server/chain/minerFeed.js';
import { BlockProducer } from '../../server/chain/blockProducer.js';
import { ProducerLease } from '../../server/cluster/producerLease.js';
import { Chain } from '../../server/chain/chain.js';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { newProcessId, ProcessRegistry } from '../../server/cluster/registry.js';
import { loadConfig } from '../../server/config.js';
import { HealthMonitor } from '../../server/health.js';
import { stringifyJson } from '../../server/http/router.js';
import { PayloadTooLarge, type IncomingRequest, type OutgoingResponse } from '../../server/http/uws.js';
import { createLogger } from '../../server/log.js';
import { openStore } from '../../server/store/index.js';

/** As in server/http/uws.ts. */
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Same semantics as uws.ts collectBody: reject early on a declared oversize, else on overflow. */
function collectBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declaredRaw = req.headers['content-length'];
  const declared = declaredRaw === undefined || declaredRaw === '' ? -1 : Number(declaredRaw);
  if (declared > limit) return Promise.reject(new PayloadTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) {
        done = true;
        reject(new PayloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
  });
}

function toIncoming(req: IncomingMessage, maxBodyBytes: number): { incoming: IncomingRequest; bodyComplete: () => boolean } {
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const headers: Record<string, string> = {};
  for (const k in req.headers) {
    const v = req.headers[k];
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const incoming: IncomingRequest = {
    method,
    url: q === -1 ? rawUrl : rawUrl.slice(0, q),
    query: q === -1 ? '' : rawUrl.slice(q + 1),
    headers,
    remoteAddress: req.socket.remoteAddress ?? '',
    body: null,
  };
  let complete = true;
  if (METHODS_WITH_BODY.has(method)) {
    complete = false;
    incoming.body = collectBody(req, maxBodyBytes);
    // The router may answer without reading the body; never leave the rejection unhandled.
    incoming.body.then(
      () => {
        complete = true;
      },
      () => undefined,
    );
  } else {
    req.resume();
  }
  return { incoming, bodyComplete: () => complete };
}

function write(res: ServerResponse, out: OutgoingResponse, close: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const flat: string[] = [];
  for (const [k, v] of out.headers) flat.push(k, v);
  // Always a Content-Length (never chunked), like uWS, so the load generator's work is the same.
  const length = typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.byteLength;
  flat.push('Content-Length', String(length));
  if (close) flat.push('Connection', 'close');
  res.writeHead(out.status, flat);
  res.end(out.body);
}

export interface NodeHttpBaseline {
  port: number;
  close(): Promise<void>;
}

/** @param redisUrl - serve from this Redis (as the node does with --redis); default the memory store */
export async function startNodeHttpBaseline(port: number, redisUrl?: string): Promise<NodeHttpBaseline> {
  const config = { ...loadConfig(redisUrl === undefined ? [] : ['--redis', redisUrl], {}), logLevel: 'silent' as const, port };
  const log = createLogger(config.logLevel);
  const store = await openStore(redisUrl === undefined ? {} : { redisUrl, keyPrefix: config.redisKeyPrefix });
  const processId = newProcessId();
  const health = new HealthMonitor(store, config.healthProbeIntervalMs, log);
  const registry = new ProcessRegistry(store, processId, log);
  await health.start();
  await registry.start();
  // The benched routes do no crypto; inline keeps this baseline free of idle worker threads.
  const crypto = new InlineCrypto();
  const { identity, jwt } = createIdentity({ config, store, crypto, log, nodeSecret: new Uint8Array(randomBytes(32)) });
  const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
  await chain.init();
  const minerFeed = new MinerFeed({ chain, store, log });
  // Not started: this baseline serves reads and never produces blocks.
  const producer = new BlockProducer({ chain, store, lease: new ProducerLease({ store, processId, log }), miner: null, defaultRewardKey: new Uint8Array(33), log });
  const deps: AppDeps = { config, store, log, health, registry, crypto, identity, jwt, chain, producer, minerFeed, rateLimiter: createRateLimiter({ config, store, log }) };
  const router = createRouter(deps);

  const server = createServer((req, res) => {
    const { incoming, bodyComplete } = toIncoming(req, config.maxBodyBytes);
    router.dispatch(incoming).then(
      (out) => write(res, out, (out.close ?? false) || !bodyComplete()),
      (err: unknown) =>
        write(
          res,
          { status: 500, headers: [['Content-Type', 'application/json']], body: stringifyJson({ error: String(err) }) },
          true,
        ),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  return {
    port: actualPort,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      health.stop();
      await registry.stop();
      await store.close();
    },
  };
}

function argValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? undefined : argv[i + 1];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(argValue(process.argv.slice(2), 'port') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write('nodeHttpServer: --port must be an integer from 0 to 65535\n');
    process.exit(2);
  }
  const baseline = await startNodeHttpBaseline(port, argValue(process.argv.slice(2), 'redis'));
  process.stdout.write(`listening ${baseline.port}\n`);
  const stop = (): void => {
    baseline.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
