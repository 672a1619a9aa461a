/**
 * What recording metrics costs per request (issue 22, item 3): the same request dispatched by
 * two routers over the same route table, one recording each answer into NodeMetrics
 * (`onDispatched` → observeDispatch: the requests counter, the latency histogram and the bytes
 * counter) and one recording nothing, in the same run. The route is the cheapest kind the node
 * serves (a fixed small JSON answer), so the share the metrics take is the largest it gets.
 * The registry is first filled with ROUTE_COUNT route patterns × a few status codes, so its maps
 * are as big as a running node's.
 *
 * Figures: metrics on ÷ off (ops/s, higher is better: 1.00x would be free), the nanoseconds
 * recording adds per request (1/on − 1/off, per round), and observeDispatch on its own.
 *
 * Last results: not run yet (written for the lead's run; `npx tsx bench/metrics.bench.ts`).
 * @module
 */
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { Bench } from 'tinybench';
import { json, route, type Route } from '../server/http/route.js';
import { Router, type DispatchObservation } from '../server/http/router.js';
import type { IncomingRequest } from '../server/http/uws.js';
import { NodeMetrics } from '../server/metrics/nodeMetrics.js';
import { printResults, ratioLine, roundOptions, runRounds } from './_shared.js';
import { absoluteFigure, type Figure } from './figures.js';

/** Route patterns recorded before measuring: about as many as the node serves. */
const ROUTE_COUNT = 90;
const BENCH_OPTIONS = roundOptions({ time: 2_000, warmupTime: 300 });

const ON = 'metrics on: dispatch + observeDispatch';
const OFF = 'metrics off: dispatch';
const OBSERVE = 'observeDispatch alone';

export async function run(): Promise<Figure[]> {
  const log = pino({ level: 'silent' });
  const metrics = new NodeMetrics('bench');
  try {
    const routes: Route[] = [route({ method: 'GET', path: '/bench-rate', summary: 'a fixed small JSON answer', handle: () => json({ SatoshisPerDeSoExchangeRate: 1_000, USDCentsPerBitcoinExchangeRate: 6_000_000 }) })];
    const common = { network: 'testnet' as const, corsOrigins: ['*'], log };
    const withMetrics = new Router([routes], { ...common, onDispatched: (o) => metrics.observeDispatch(o) });
    const without = new Router([routes], { ...common, onDispatched: null });

    // A registry the size of a running node's: every pattern answered with a few codes.
    for (let i = 0; i < ROUTE_COUNT; i++) {
      for (const status of [200, 400, 404, 429]) {
        metrics.observeDispatch({ route: `/api/v0/route-${i}`, method: i % 2 === 0 ? 'GET' : 'POST', status, seconds: 0.001, bodyBytes: 100, encoding: 'identity' });
      }
    }
    const req: IncomingRequest = { method: 'GET', url: '/api/v0/bench-rate', query: '', headers: {}, remoteAddress: '10.0.0.1', body: null };
    const observation: DispatchObservation = { route: '/bench-rate', method: 'GET', status: 200, seconds: 0.0004, bodyBytes: 70, encoding: 'identity' };
    // Answers feed a sink checked at the end, so no task is optimised away or fails unseen.
    let sink = 0;

    const bench = new Bench({ name: 'per-request metrics', ...BENCH_OPTIONS });
    bench
      .add(OFF, async () => {
        sink += (await without.dispatch(req)).status;
      })
      .add(ON, async () => {
        sink += (await withMetrics.dispatch(req)).status;
      })
      .add(OBSERVE, () => {
        metrics.observeDispatch(observation);
        sink++;
      });
    const rounds = await runRounds(bench);
    printResults(`per-request metrics: GET /api/v0/bench-rate through the router, ${ROUTE_COUNT} route patterns recorded`, bench);
    if (sink === 0) throw new Error('metrics.bench: tasks produced no results');
    const check = (await withMetrics.dispatch(req)).status;
    if (check !== 200) throw new Error(`metrics.bench: the route answered ${check}, expected 200`);
    console.log('');

    const on = rounds.opsPerSec(ON);
    const off = rounds.opsPerSec(OFF);
    const addedNs = on.map((o, i) => 1e9 / o - 1e9 / off[i]!);
    const figures = [
      ratioLine('metrics on/off (1.00x = free)', 'metricsOnVsOff', rounds, ON, OFF),
      absoluteFigure('metricsAddedNsPerRequest', addedNs, 'ns', 'lower'),
      absoluteFigure('observeDispatchNs', rounds.opsPerSec(OBSERVE).map((x) => 1e9 / x), 'ns', 'lower'),
      absoluteFigure('dispatchWithMetricsOpsPerSec', on, 'ops/s'),
    ];
    console.log(`recording adds ${Math.round(figures[1]!.value)} ns per request (observeDispatch alone ${Math.round(figures[2]!.value)} ns)`);
    return figures;
  } finally {
    metrics.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
