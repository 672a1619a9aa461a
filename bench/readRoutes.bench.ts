/**
 * Social read routes under load (`npm run bench:http`): get-single-profile,
 * get-paginated-messages-for-dm-thread, get-dao-coin-limit-orders, get-posts-for-public-key,
 * get-single-post and get-notifications on a populated node (Redis
 * store, one process), beside a minimal uWS route and a node:http server doing the same lookups
 * over the same Redis (bench/http/readBaselines.ts says exactly what "the same" covers), and the
 * node's own router on node:http (bench/http/nodeHttpServer.ts over the same Redis, read cache
 * included) and the node with its read cache off (`--read-cache-mb 0`), to separate what the
 * transport gives from what the read cache (server/social/readCache.ts) gives. Nothing is
 * written during the measured rounds, so the read cache serves nearly every request: the
 * "no read cache" rows show the cost of a request that misses (the first after each block or
 * mempool admission).
 *
 * 1. A private redis-server; bench/http/populate.ts fills it through real transactions and the
 *    miner (100 profiles, 10 DM threads of 100 messages, a DAO coin with 60 resting orders, 300
 *    posts by one user, the oldest with 200 comments and 50 likes, and 99 followers of that user).
 * 2. The node (`server/main.ts --redis … --miner off`) and the baselines start on that Redis;
 *    one sample request per route must answer the same JSON on all of them.
 * 3. Per route, each server: a 1 s warm-up run, then ROUNDS rounds (order alternating), each
 *    0.5 s warm-up + 2 s measured, from the load generator (its own process, 127.0.0.1, 64
 *    keep-alive connections, bodies rotating over every profile / thread page / pair spelling /
 *    page of the 300 posts / comment page of the commented post and 10 other posts opened /
 *    page of that user's 350 or so notifications, 50 a page).
 *    The best round per server counts; errors are summed over all rounds.
 *
 * 4. The store (issue 19): a second data set, made the same way in an LMDB data directory, and
 *    the node on it with its read cache off, against the node on Redis with its read cache off
 *    (rounds alternating between the two): what a request that misses costs on each store.
 *
 * The last line is one JSON object: `reqPerSec` and `p99ms` per route (the node),
 * `vsNodeHttp` per route (node req/s ÷ the node:http baseline's), `vsMinimalUws`,
 * `vsNodeHttpSameApp`, `noReadCacheVsNodeHttp` and `lmdbVsRedisNoReadCache` likewise. Targets (issue 6): vsNodeHttp ≥ 2 and p99 < 10 ms on every route.
 * The load generator, the server under test and redis-server share this machine's cores; the
 * table shows each one's CPU.
 *
 * Last results, 2026-11-24, Node v20.20.2, 2-core sandbox, quiet machine ("other cpu" ≤ 15%),
 * best round of 3 (req/s, p99):
 *   route                       node (uWS)       no read cache    minimal uWS     node:http       node:http+app
 *   get-single-profile          31,624  5.7 ms   10,725 12.1 ms   8,735 14.8 ms   7,452 19.9 ms   28,163  6.2 ms
 *   get-paginated-…-dm-thread   17,565  7.8 ms    1,791 57.0 ms     863 109 ms    1,024 81.2 ms   16,426  6.9 ms
 *   get-dao-coin-limit-orders   21,309  6.1 ms    1,545 60.7 ms     543 180 ms      531 184 ms    18,427  7.6 ms
 *   vsNodeHttp 4.24x / 17.2x / 40.2x; without the read cache 1.44x / 1.75x / 2.91x; read cache
 *   99.95% hits (no writes during the run). The node:http server running the node's own app is
 *   within 1.07–1.16x of it: here the read cache, not the transport, makes the difference.
 *   (get-posts-for-public-key, get-single-post and get-notifications joined the bench after these
 *   results.)
 * @module
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startRedisServer } from '../test/helpers/redisServer.js';
import { freePort } from '../test/helpers/ports.js';
import { printFigure, printRatio } from './_shared.js';
import { absoluteFigure, nameKey, ratioFigure, type Figure } from './figures.js';
import { populate, type ReadBodies } from './http/populate.js';
import { parsePrometheusText, sampleValue } from '../test/helpers/promText.js';
import { assertCleanRows, bestOfRounds, printTable, ROOT, runLoadgen, serverSet, startServer, type Measured, type Row, type ServerProc, type Workload } from './http/harness.js';

const CONNECTIONS = 64;
const DURATION_MS = 2000;
const WARMUP_MS = 500;
const WARMUP_RUN_MS = 1000;
const ROUNDS = 3;

/** The benched routes and which of populate's request bodies load each. */
export const ROUTES: Array<{ route: string; key: keyof ReadBodies }> = [
  { route: '/api/v0/get-single-profile', key: 'profile' },
  { route: '/api/v0/get-paginated-messages-for-dm-thread', key: 'dmPage' },
  { route: '/api/v0/get-dao-coin-limit-orders', key: 'orders' },
  { route: '/api/v0/get-posts-for-public-key', key: 'postsPage' },
  { route: '/api/v0/get-single-post', key: 'singlePost' },
  { route: '/api/v0/get-notifications', key: 'notifications' },
];

/** JSON of a POST, with the status. */
async function post(port: number, route: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`http://127.0.0.1:${port}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

export async function run(): Promise<Figure[]> {
  const started = performance.now();
  const redis = await startRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'read-bench-'));
  const servers = serverSet();
  try {
    console.log('\nSocial read routes: populating a Redis store through real transactions…');
    const bodies = await populate(redis.url, (line) => console.log(`  ${line}`));
    const workloads: Workload[] = [];
    for (const { route, key } of ROUTES) {
      const file = join(dir, `${key}.json`);
      await writeFile(file, JSON.stringify(bodies[key]));
      workloads.push({ route, method: 'POST', bodiesFile: file });
    }
    console.log(`populated in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const ports = { node: await freePort(), noCache: await freePort(), uws: await freePort(), nodeHttp: await freePort(), sameApp: await freePort() };
    const nodeArgs = ['--redis', redis.url, '--miner', 'off', '--log-level', 'warn', '--network', 'testnet'];
    const all = await Promise.all([
      servers.start(startServer('node (uWS)', ports.node, join(ROOT, 'server', 'main.ts'), ['--port', String(ports.node), ...nodeArgs])),
      servers.start(startServer('node, no read cache', ports.noCache, join(ROOT, 'server', 'main.ts'), ['--port', String(ports.noCache), ...nodeArgs, '--read-cache-mb', '0'])),
      servers.start(startServer('minimal uWS', ports.uws, join(ROOT, 'bench', 'http', 'readBaselines.ts'), ['--kind', 'uws', '--port', String(ports.uws), '--redis', redis.url])),
      servers.start(startServer('node:http', ports.nodeHttp, join(ROOT, 'bench', 'http', 'readBaselines.ts'), ['--kind', 'node-http', '--port', String(ports.nodeHttp), '--redis', redis.url])),
      servers.start(startServer('node:http+node app', ports.sameApp, join(ROOT, 'bench', 'http', 'nodeHttpServer.ts'), ['--port', String(ports.sameApp), '--redis', redis.url])),
    ]);
    const [node, noCache, uws, nodeHttp, sameApp] = all as [ServerProc, ServerProc, ServerProc, ServerProc, ServerProc];

    // Same answers everywhere: the baselines do the node's lookups, not lighter ones.
    for (const { route, key } of ROUTES) {
      const sample = bodies[key][0];
      const expected = await post(node.port, route, sample);
      assert.equal(expected.status, 200, `${route} answers 200 on the node: ${JSON.stringify(expected.json).slice(0, 300)}`);
      for (const s of all.slice(1)) assert.deepEqual(await post(s.port, route, sample), expected, `${s.name} answers ${route} as the node does`);
    }

    console.log(`\n${CONNECTIONS} keep-alive connections, ${DURATION_MS} ms per round, best of ${ROUNDS}; bodies rotate over ${ROUTES.map((r) => `${bodies[r.key].length} ${r.key}`).join(', ')}`);
    const rows: Row[] = [];
    const best = new Map<string, Measured>();
    const roundsOf = new Map<string, number[]>();
    for (const w of workloads) {
      const measured = await bestOfRounds(all, w, { connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: WARMUP_MS, warmupRunMs: WARMUP_RUN_MS, rounds: ROUNDS });
      for (const s of all) {
        const { r, rounds } = measured.get(s)!;
        rows.push({ server: s.name, route: w.route.replace('/api/v0/', ''), r, rounds });
        best.set(`${s.name} ${w.route}`, r);
        roundsOf.set(`${s.name} ${w.route}`, rounds);
      }
    }
    console.log('');
    printTable(rows);
    console.log('');
    const figure = (s: ServerProc, route: string): Measured => best.get(`${s.name} ${route}`)!;
    const short = (route: string): string => route.replace('/api/v0/', '');
    const figures: Figure[] = [];
    // Round i of one server against round i of the other: each pair ran in the same round.
    const paired = (name: string, a: ServerProc, b: ServerProc, route: string): Figure => ratioFigure(name, roundsOf.get(`${a.name} ${route}`)!, roundsOf.get(`${b.name} ${route}`)!);
    const summary = { reqPerSec: {} as Record<string, number>, p99ms: {} as Record<string, number>, vsNodeHttp: {} as Record<string, number>, vsMinimalUws: {} as Record<string, number>, vsNodeHttpSameApp: {} as Record<string, number>, noReadCacheVsNodeHttp: {} as Record<string, number>, connections: CONNECTIONS, readCacheHitRate: NaN };
    for (const { route } of ROUTES) {
      const n = figure(node, route);
      printRatio(`node/node:http ${short(route)}`, n.reqPerSec, figure(nodeHttp, route).reqPerSec);
      printRatio(`node/minimal uWS ${short(route)}`, n.reqPerSec, figure(uws, route).reqPerSec);
      printRatio(`node/node:http+node app ${short(route)}`, n.reqPerSec, figure(sameApp, route).reqPerSec);
      printRatio(`node without read cache/node:http ${short(route)}`, figure(noCache, route).reqPerSec, figure(nodeHttp, route).reqPerSec);
      summary.reqPerSec[short(route)] = Math.round(n.reqPerSec);
      summary.p99ms[short(route)] = Number(n.p99ms.toFixed(2));
      summary.vsNodeHttp[short(route)] = Number((n.reqPerSec / figure(nodeHttp, route).reqPerSec).toFixed(2));
      summary.vsMinimalUws[short(route)] = Number((n.reqPerSec / figure(uws, route).reqPerSec).toFixed(2));
      summary.vsNodeHttpSameApp[short(route)] = Number((n.reqPerSec / figure(sameApp, route).reqPerSec).toFixed(2));
      summary.noReadCacheVsNodeHttp[short(route)] = Number((figure(noCache, route).reqPerSec / figure(nodeHttp, route).reqPerSec).toFixed(2));
      const key = nameKey(short(route));
      figures.push(
        paired(`vsNodeHttp${key}`, node, nodeHttp, route),
        paired(`vsMinimalUws${key}`, node, uws, route),
        paired(`vsNodeHttpSameApp${key}`, node, sameApp, route),
        paired(`noReadCacheVsNodeHttp${key}`, noCache, nodeHttp, route),
        absoluteFigure(`reqPerSec${key}`, roundsOf.get(`${node.name} ${route}`)!, 'req/s'),
        absoluteFigure(`p99Ms${key}`, n.p99ms, 'ms', 'lower'),
      );
    }
    for (const f of figures.filter((x) => x.kind === 'ratio')) printFigure(`${f.name}, round by round`, f);
    // How much of the node's load its read cache answered (its /metrics, whole run).
    const metrics = parsePrometheusText(await (await fetch(`http://127.0.0.1:${node.port}/metrics`)).text());
    const [hits, misses] = ['socialnode_read_cache_hits_total', 'socialnode_read_cache_misses_total'].map((name) => sampleValue(metrics, name) ?? NaN) as [number, number];
    console.log(`node read cache: ${hits} hits, ${misses} misses (${((100 * hits) / (hits + misses)).toFixed(2)}% hits; no writes during the run)`);
    summary.readCacheHitRate = Number((hits / (hits + misses)).toFixed(4));
    assertCleanRows('readRoutes.bench', rows);
    const lmdbRatios = await compareStoresNoCache({ dir, servers, redisNoCache: noCache, redisWorkloads: workloads });
    const lmdbVsRedisNoReadCache: Record<string, number> = {};
    for (const [route, ratio] of lmdbRatios) lmdbVsRedisNoReadCache[short(route)] = Number(ratio.toFixed(2));
    console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s; cpu columns are % of one core, 2 cores in all; redis-server and the idle servers are in "other cpu")`);
    console.log(JSON.stringify({ ...summary, lmdbVsRedisNoReadCache }));
    const hitRate = hits / (hits + misses);
    // LMDB against Redis is shown, not judged: two data sets, two stores, one machine's disk.
    const lmdbFigures = [...lmdbRatios].map(([route, ratio]) => absoluteFigure(`lmdbVsRedisNoReadCache${short(route).replace(/[^A-Za-z0-9]/g, '')}`, ratio, 'x'));
    return [...figures, ...(Number.isFinite(hitRate) ? [absoluteFigure('readCacheHitRate', hitRate, 'share')] : []), ...lmdbFigures];
  } finally {
    await servers.release();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Step 4: the node with its read cache off on LMDB against the same on Redis, each on its own
 * data set made the same way (same sizes and shapes, other keys): req/s ratio per route.
 */
async function compareStoresNoCache(o: { dir: string; servers: ReturnType<typeof serverSet>; redisNoCache: ServerProc; redisWorkloads: readonly Workload[] }): Promise<Map<string, number>> {
  const dataDir = join(o.dir, 'lmdb-data');
  console.log('\nLMDB vs Redis, read cache off: populating an LMDB data directory the same way…');
  const bodies = await populate({ dataDir }, (line) => console.log(`  ${line}`));
  const port = await freePort();
  const lmdb = await o.servers.start(
    startServer('node on LMDB, no read cache', port, join(ROOT, 'server', 'main.ts'), ['--port', String(port), '--data-dir', dataDir, '--miner', 'off', '--log-level', 'warn', '--network', 'testnet', '--read-cache-mb', '0']),
  );
  const rows: Row[] = [];
  const ratios = new Map<string, number>();
  for (const [i, { route, key }] of ROUTES.entries()) {
    const file = join(o.dir, `lmdb-${key}.json`);
    await writeFile(file, JSON.stringify(bodies[key]));
    const mine: Workload = { route, method: 'POST', bodiesFile: file };
    const sample = await post(port, route, bodies[key][0]);
    assert.equal(sample.status, 200, `${route} answers 200 on LMDB: ${JSON.stringify(sample.json).slice(0, 300)}`);
    // Rounds alternate between the stores, each with its own bodies; the best round counts,
    // errors are summed over all (as bestOfRounds does for servers sharing one workload).
    const runs = { lmdb: { server: lmdb, w: mine }, redis: { server: o.redisNoCache, w: o.redisWorkloads[i]! } };
    const figures = { lmdb: [] as Measured[], redis: [] as Measured[] };
    for (const { server, w } of Object.values(runs)) await runLoadgen(server, w, CONNECTIONS, WARMUP_RUN_MS, 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of round % 2 === 0 ? (['lmdb', 'redis'] as const) : (['redis', 'lmdb'] as const)) {
        figures[which].push(await runLoadgen(runs[which].server, runs[which].w, CONNECTIONS, DURATION_MS, WARMUP_MS));
      }
    }
    const bestOf = (ms: Measured[]): Measured => {
      const best = ms.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
      const sum = (f: (m: Measured) => number): number => ms.reduce((t, m) => t + f(m), 0);
      return { ...best, errors: sum((m) => m.errors), non2xx: sum((m) => m.non2xx), reconnects: sum((m) => m.reconnects) };
    };
    for (const which of ['lmdb', 'redis'] as const) {
      rows.push({ server: runs[which].server.name, route: route.replace('/api/v0/', ''), r: bestOf(figures[which]), rounds: figures[which].map((m) => m.reqPerSec) });
    }
    const ratio = bestOf(figures.lmdb).reqPerSec / bestOf(figures.redis).reqPerSec;
    ratios.set(route, ratio);
  }
  console.log('');
  printTable(rows);
  for (const [route, ratio] of ratios) console.log(`ratio node on LMDB/node on Redis, no read cache, ${route.replace('/api/v0/', '')}: ${ratio.toFixed(2)}x`);
  assertCleanRows('readRoutes.bench (LMDB vs Redis)', rows);
  return ratios;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
