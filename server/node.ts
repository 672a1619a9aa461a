/**
 * One server process: store, health, registry, router and the uWS listener, with graceful
 * shutdown. `main.ts` runs one or supervises several; tests start it in-process on port 0.
 */
import type { Logger } from 'pino';
import { sharedReadCache } from './http/readCache.js';
import { createRateLimiter, createRouter, type AppDeps } from './app.js';
import { newProcessId, ProcessRegistry } from './cluster/registry.js';
import { availableParallelism } from 'node:os';
import type { Config } from './config.js';
import { IN_FLIGHT_PER_THREAD } from './crypto/batcher.js';
import { BatchingCrypto } from './crypto/batching.js';
import { CryptoPool } from './crypto/pool.js';
import { HealthMonitor } from './health.js';
import { NodeMetrics } from './metrics/nodeMetrics.js';
import { toErrorReply } from './http/errors.js';
import { stringifyJson } from './http/router.js';
import { SocketLimits } from './http/socketLimits.js';
import { ClientAddresses } from './http/clientAddress.js';
import { listen, loadUws, serve, serveWebSocket, UwsUnavailableError, type LoadedUws } from './http/uws.js';
import { createIdentity } from './identity/index.js';
import { chainDerivedKeyAuthorizer } from './identity/jwt.js';
import { Chain } from './chain/chain.js';
import { MinerFeed } from './chain/minerFeed.js';
import { answerMinerMessage, refusedMinerMessage } from './routes/minerSocket.js';
import { AutoMiner } from './chain/miner.js';
import { devChainParams } from './chain/block/params.js';
import { BlockProducer } from './chain/blockProducer.js';
import { ProducerLease } from './cluster/producerLease.js';
import { ChildMetricsRelay, supervisorChannel } from './cluster/metricsRelay.js';
import { decodePublicKey, encodePublicKey } from './keys/index.js';
import { getPublicKey } from '../wasm/secp256k1.js';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { resolveIdentitySecret } from './identity/secret.js';
import { answerFrame, refusedFrame } from './http/identityFrames.js';
import { isDataDirError, openStore } from './store/index.js';
import { layoutProblem } from './chain/state/layout.js';
import { Teardown } from './teardown.js';
import { HotFeedJob } from './social/hotFeedJob.js';

export interface RunningNode {
  port: number;
  processId: string;
  deps: AppDeps;
  /** Stops listening, waits for in-flight requests (up to shutdownTimeoutMs), closes the store. */
  close(): Promise<void>;
}

/** Crypto threads of one process: as configured, else the cores shared among the processes. */
export function cryptoThreads(config: Config): number {
  return config.cryptoThreads > 0 ? config.cryptoThreads : Math.max(1, Math.floor(availableParallelism() / config.processes));
}

export class StartupError extends Error {
  override readonly name = 'StartupError';
  /** The process's exit code: 2 for a refusal of what it was given to run on, as for bad config. @default 1 */
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export async function startNode(config: Config, baseLog: Logger): Promise<RunningNode> {
  let loaded: LoadedUws;
  try {
    loaded = loadUws({ allowFallback: config.allowUwsFallback });
  } catch (err) {
    throw err instanceof UwsUnavailableError ? new StartupError(err.message) : err;
  }
  const { uws } = loaded;
  if (loaded.isFallback) {
    baseLog.warn(
      { skipped: loaded.skipped },
      `no native uWebSockets.js binary for Node ${process.version} (${process.platform}-${process.arch}); ` +
        'running anyway because --allow-uws-fallback is set: the slow pure-JS server, for development only',
    );
  }

  const processId = newProcessId();
  const log = baseLog.child({ processId });
  const store = await openStore({
    redisUrl: config.store === 'redis' ? config.redisUrl : undefined,
    keyPrefix: config.redisKeyPrefix,
    dataDir: config.store === 'lmdb' ? config.dataDir : undefined,
    network: config.network,
    // Connection loss is reported by health-check and logged; the store reconnects by itself.
    onError: (err) => log.warn({ msg: (err as Error)?.message }, 'state store error'),
  }).catch((err: unknown) => {
    // A data directory the node cannot use is a refusal of what it was given, as bad config is.
    throw isDataDirError(err) ? new StartupError(err.message, 2) : err;
  });
  // Every part registers its stop as it starts: a failed start and a shutdown stop them alike.
  const down = new Teardown(log);
  down.add('store', store, (s) => s.close());
  const health = down.add('health', new HealthMonitor(store, config.healthProbeIntervalMs, log), (h) => h.stop());
  const registry = down.add('registry', new ProcessRegistry(store, processId, log), (r) => r.stop());
  let nodeSecret: Uint8Array;
  try {
    await health.start();
    await registry.start();
    nodeSecret = (await resolveIdentitySecret(config, store, log)).secret;
  } catch (err) {
    await down.run();
    throw err instanceof Error && err.name === 'IdentitySecretError' ? new StartupError(err.message) : err;
  }
  const metrics = down.add('metrics', new NodeMetrics(processId, { onCollectError: (metric, err) => log.warn({ metric, msg: (err as Error)?.message }, 'metrics: a collector failed') }), (m) => m.close());
  // Per-item crypto of concurrent requests (JWTs, signatures) is coalesced into pool batches.
  const threads = cryptoThreads(config);
  const pool = new CryptoPool({ threads }, { metrics: metrics.cryptoPool, log });
  const crypto = down.add('crypto', new BatchingCrypto(pool, { maxInFlight: IN_FLIGHT_PER_THREAD * threads }), (c) => c.close());
  const chain = new Chain({
    store,
    crypto,
    params: devChainParams(config.network, {
      minNetworkFeeNanosPerKB: config.minFeeRateNanosPerKb === undefined ? undefined : BigInt(config.minFeeRateNanosPerKb),
      mempoolMaxSizeBytes: config.mempoolMaxSizeBytes,
    }),
    log,
    createProfileFeeNanos: BigInt(config.createProfileFeeNanos),
    paramUpdaterPublicKeys: config.paramUpdaterPublicKeys.map((k) => decodePublicKey(k, config.network, '--param-updater-public-keys')),
  });
  const { identity, jwt } = createIdentity({
    config,
    store,
    crypto,
    log,
    nodeSecret,
    // Tip plus mempool, as the reference: a key authorized at login signs JWTs before its block.
    derivedKeyAuthorizer: chainDerivedKeyAuthorizer(() => chain.pendingView(), chain),
    blockHeight: async () => Number((await chain.tip()).height),
  });
  const minerFeed = new MinerFeed({ chain, store, log });
  // Exactly one process of those sharing the store produces blocks: the lease holder. Every
  // process has the (paused) miner ready, so production moves with the lease.
  const lease = new ProducerLease({ store, processId, log, ttlMs: config.producerLeaseMs });
  const rewardPublicKey = config.miner === 'auto' ? minerRewardKey(config, log) : new Uint8Array(33);
  const miner =
    config.miner === 'auto'
      ? new AutoMiner({ chain, crypto, store, rewardPublicKey, blockIntervalSeconds: config.blockIntervalSeconds, log, fence: () => lease.fence() })
      : null;
  const producer = new BlockProducer({ chain, store, lease, miner, defaultRewardKey: rewardPublicKey, log });
  try {
    const layout = await layoutProblem(store, store.kind === 'lmdb' ? 'a new --data-dir' : undefined);
    if (layout !== null) throw new StartupError(layout, 2);
    await chain.init();
    down.add('miner feed', minerFeed, (f) => f.stop());
    await minerFeed.start();
    // Stopped first: it releases the producer lease, so another process produces blocks at once.
    down.add('block producer', producer, (p) => p.stop());
    await producer.start();
  } catch (err) {
    await down.run();
    throw err;
  }
  const rateLimiter = createRateLimiter({ config, store, log, metrics });
  // The producer of the moment refreshes the hot feed's rankings for every process.
  const hotFeed = down.add('hot feed', new HotFeedJob({ store, leading: () => producer.leading, log }), (j) => j.stop());
  hotFeed.start();
  const deps: AppDeps = { config, store, log, health, registry, crypto, identity, jwt, chain, producer, minerFeed, metrics, rateLimiter, hotFeed };
  const router = createRouter(deps);

  let closing: Promise<void> | undefined;
  let inFlight = 0;
  // Under a supervisor (--processes N), a scrape of this process gathers the others' series.
  const channel = config.processes > 1 && config.metrics ? supervisorChannel() : null;
  const metricsRelay = channel === null ? null : down.add('metrics relay', new ChildMetricsRelay(channel, () => metrics.render()), (r) => r.close());
  metrics.attach({
    storeKind: store.kind,
    network: config.network,
    chain,
    health,
    minerFeed,
    producer,
    cryptoPool: pool,
    inFlight: () => inFlight,
    readCache: () => sharedReadCache({ chain, store, config })?.stats() ?? null,
    ...(metricsRelay === null ? {} : { peers: { processes: config.processes, gather: () => metricsRelay.gather() } }),
  });
  let drained: (() => void) | undefined;
  const app = uws.App();
  const onStart = (): void => {
    inFlight++;
  };
  const onSettled = (): void => {
    inFlight--;
    if (inFlight === 0) drained?.();
  };
  // Clients behind the proxies of --trust-proxy: the address they report, for limits and caps.
  const clientAddress = ClientAddresses.fromConfig(config.trustProxy);
  // Sockets per address, browser origins and per-message rate limits of both socket endpoints.
  const socketLimits = new SocketLimits({ maxPerAddress: config.maxSocketsPerAddress, corsOrigins: config.corsOrigins, limiter: rateLimiter });
  // The identity API's WebSocket, at the same paths as its POST route.
  const sockets = serveWebSocket(app, ['/api/v0/identity', '/identity'], {
    maxPayloadBytes: config.maxBodyBytes,
    maxInFlightPerSocket: 4096,
    onMessage: async (text, socket) => {
      const beforeLogin = (): Promise<void> => rateLimiter.checkClass('login', socket.remoteAddress);
      return JSON.stringify((await answerFrame(identity, { text }, log, { beforeLogin })).response);
    },
    refusedReply: refusedFrame,
    gate: socketLimits.gate('identity'),
    clientAddress,
    onStart,
    onSettled,
    upgradeHeaders: [['X-Node-Process', processId]],
  });
  // The miner feed: templates pushed on every tip or mempool change, solved headers back.
  const minerSockets = serveWebSocket(app, ['/api/v0/miner', '/miner'], {
    maxPayloadBytes: 64 * 1024,
    maxInFlightPerSocket: 64,
    onMessage: (text, socket) => answerMinerMessage(deps, minerFeed, text, socket, log),
    onClose: (socket) => minerFeed.unsubscribe(socket),
    refusedReply: refusedMinerMessage,
    gate: socketLimits.gate('miner'),
    clientAddress,
    onStart,
    onSettled,
    upgradeHeaders: [['X-Node-Process', processId]],
  });
  serve(app, (req) => router.dispatch(req), {
    maxBodyBytes: config.maxBodyBytes,
    bodyLimit: (method, url) => router.bodyLimit(method, url),
    closeConnections: () => closing !== undefined,
    clientAddress,
    onStart,
    onSettled,
    onInternalError: (err) => {
      const e = toErrorReply(err, log);
      return { status: e.status, headers: [['Content-Type', 'application/json']], body: stringifyJson({ error: e.message }) };
    },
  });

  let listening;
  try {
    listening = await listen(uws, app, config.host, config.port);
  } catch (err) {
    await down.run();
    throw new StartupError((err as Error).message);
  }
  log.info({ host: config.host, port: listening.port, store: store.kind, ...(store.kind === 'lmdb' ? { dataDir: resolve(config.dataDir) } : {}), network: config.network, uws: loaded.build }, 'listening');
  if (config.devOpenAdmin) log.warn('--dev-open-admin is set: admin routes let in requests without valid admin credentials (development only; every such request is audited)');

  const close = (): Promise<void> =>
    (closing ??= (async () => {
      health.markDraining();
      listening.stopListening();
      if (inFlight > 0) {
        log.info({ inFlight }, 'draining in-flight requests');
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref()),
        ]);
      }
      sockets.closeAll();
      minerSockets.closeAll();
      // uWS sends the last corked responses from its own loop iteration; let it run once more
      // before the parts (and then the process) go.
      await new Promise((resolve) => setImmediate(resolve));
      await down.run();
      log.info('closed');
    })());

  return { port: listening.port, processId, deps, close };
}

/** The built-in miner's reward key: configured, or a fresh one whose key is logged (not its secret). */
function minerRewardKey(config: Config, log: Logger): Uint8Array {
  if (config.minerPublicKey !== undefined) return decodePublicKey(config.minerPublicKey, config.network, '--miner-public-key');
  const secret = new Uint8Array(randomBytes(32));
  const pk = getPublicKey(secret, true);
  secret.fill(0);
  log.warn({ minerPublicKey: encodePublicKey(pk, config.network) }, 'miner: no --miner-public-key; block rewards go to a key made for this run');
  return pk;
}
