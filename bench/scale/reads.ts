/**
 * The read routes the scale bench times at each data size, with bodies chosen so each route's
 * answers are the same size at every data size (same page sizes, users with the same number of
 * threads and holdings, books of the same depth): a growth in latency then comes from the data
 * size alone. Bodies rotate over keys spread across the whole data set, old and new.
 *
 * Each route is loaded by the load generator (bench/http/loadgen.ts, its own process) with a
 * few keep-alive connections, in `rounds` rounds over all routes; per route the round with the
 * lowest p50 counts (its p99 with it): on a shared machine the quietest window is the one that
 * says what the data size costs.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freshRequest } from '../load/node.js';
import { runLoadgen, type Measured, type ServerProc, type Workload } from '../http/harness.js';
import { isCoinCreator, LONG_THREAD_MESSAGES, spreadPlainUsers } from './dataset.js';
import type { DataSet } from './populate.js';

/** Users each per-user route rotates over. */
const SAMPLE_USERS = 200;
/**
 * Coins the order-book route rotates over (the coins of the smallest size, 10k profiles): the
 * same number at every size, spread over the whole data set, as the users are. Rotating over
 * every coin made the route's working set 10x larger at 100k, and what grew was how much of it
 * the pending view's read cache (MAX_CACHED_READS) holds, not the cost of a book's answer.
 */
const SAMPLE_COINS = 100;
/** Messages per thread page and profiles per get-profiles page. */
export const PAGE_SIZE = 25;
const PROFILES_PAGE = 20;
const USERS_PER_STATELESS = 10;
/** A start point after every message (year 2033): the first page of a thread. */
const FAR_FUTURE = '2000000000000000000';

export interface ReadRoute {
  name: string;
  path: string;
  method: 'GET' | 'POST';
  /** POST bodies sent in turn. */
  bodies: unknown[];
}

/** The routes and their bodies for the first `size` users of `data`. */
export function readRoutes(data: DataSet, size: number): ReadRoute[] {
  const users = data.users.slice(0, size);
  const plain = spreadPlainUsers(size, SAMPLE_USERS).map((i) => users[i]!);
  const threads = data.longThreads.filter((t) => t.b.index < size);
  // Pages starting before message 100, 75 and 50 of each thread, read from either end.
  const threadPages = threads.flatMap((t) =>
    [t.a, t.b].flatMap((me) => {
      const other = me === t.a ? t.b : t.a;
      return [FAR_FUTURE, t.stamps[LONG_THREAD_MESSAGES - PAGE_SIZE]!.toString(), t.stamps[LONG_THREAD_MESSAGES - 2 * PAGE_SIZE]!.toString()].map((start) => ({
        UserGroupOwnerPublicKeyBase58Check: me.pk,
        UserGroupKeyName: '',
        PartyGroupOwnerPublicKeyBase58Check: other.pk,
        PartyGroupKeyName: '',
        StartTimestampString: start,
        MaxMessagesToFetch: PAGE_SIZE,
      }));
    }),
  );
  const allCoins = users.filter((u) => isCoinCreator(u.index));
  const coins = allCoins.length <= SAMPLE_COINS ? allCoins : Array.from({ length: SAMPLE_COINS }, (_, k) => allCoins[Math.floor(((k + 0.5) * allCoins.length) / SAMPLE_COINS)]!);
  const statelessGroups: unknown[] = [];
  for (let i = 0; i + USERS_PER_STATELESS <= plain.length; i += USERS_PER_STATELESS) {
    statelessGroups.push({ PublicKeysBase58Check: plain.slice(i, i + USERS_PER_STATELESS).map((u) => u.pk), SkipForLeaderboard: false });
  }
  return [
    { name: 'get-single-profile (key)', path: '/api/v0/get-single-profile', method: 'POST', bodies: plain.map((u) => ({ PublicKeyBase58Check: u.pk })) },
    { name: 'get-single-profile (username)', path: '/api/v0/get-single-profile', method: 'POST', bodies: plain.map((u) => ({ Username: u.username })) },
    { name: 'get-paginated-messages-for-dm-thread', path: '/api/v0/get-paginated-messages-for-dm-thread', method: 'POST', bodies: threadPages },
    { name: 'get-user-dm-threads-ordered-by-timestamp', path: '/api/v0/get-user-dm-threads-ordered-by-timestamp', method: 'POST', bodies: plain.map((u) => ({ UserPublicKeyBase58Check: u.pk })) },
    {
      name: 'get-dao-coin-limit-orders',
      path: '/api/v0/get-dao-coin-limit-orders',
      method: 'POST',
      bodies: coins.map((c) => ({ DAOCoin1CreatorPublicKeyBase58CheckOrUsername: c.pk, DAOCoin2CreatorPublicKeyBase58CheckOrUsername: '' })),
    },
    { name: 'get-users-stateless', path: '/api/v0/get-users-stateless', method: 'POST', bodies: statelessGroups },
    {
      name: 'get-profiles (UsernamePrefix)',
      path: '/api/v0/get-profiles',
      method: 'POST',
      bodies: [...'abcdefghijklmnopqrstuvwxyz'].map((letter) => ({ UsernamePrefix: letter, NumToFetch: PROFILES_PAGE })),
    },
    { name: 'get-app-state', path: '/api/v0/get-app-state', method: 'POST', bodies: [{}] },
    { name: 'node-info', path: '/api/v0/node-info', method: 'GET', bodies: [] },
  ];
}

export interface RouteTiming {
  name: string;
  /** Mean answer size over the route's bodies (each asked once), bytes. */
  answerBytes: number;
  /** The round with the lowest p50. */
  measured: Measured;
  /** p50 of every round, in run order. */
  roundsP50ms: number[];
}

/** Mean answer bytes over the bodies; throws on any answer other than 200. */
async function answerBytes(port: number, r: ReadRoute): Promise<number> {
  const bodies = r.method === 'GET' ? [undefined] : r.bodies;
  let total = 0;
  for (const b of bodies) {
    const res = await freshRequest(port, r.method, r.path, b === undefined ? undefined : JSON.stringify(b));
    if (res.status !== 200) throw new Error(`${r.name}: ${res.status} ${res.text.slice(0, 300)} for ${JSON.stringify(b).slice(0, 200)}`);
    total += Buffer.byteLength(res.text);
  }
  return total / bodies.length;
}

export interface TimingOptions {
  connections: number;
  durationMs: number;
  warmupMs: number;
  rounds: number;
  /** Where the bodies files go. */
  dir: string;
}

/** Checks every route's answers, then loads each route in turn, `rounds` times over. */
export async function timeReads(server: ServerProc, routes: readonly ReadRoute[], o: TimingOptions): Promise<RouteTiming[]> {
  const workloads: Workload[] = [];
  const bytes: number[] = [];
  for (const [i, r] of routes.entries()) {
    if (r.method === 'POST' && r.bodies.length === 0) throw new Error(`${r.name}: no bodies to send`);
    const w: Workload = { route: r.path, method: r.method };
    if (r.method === 'POST') {
      w.bodiesFile = join(o.dir, `route-${i}.json`);
      await writeFile(w.bodiesFile, JSON.stringify(r.bodies));
    }
    workloads.push(w);
    bytes.push(await answerBytes(server.port, r));
  }
  const rounds: Measured[][] = routes.map(() => []);
  for (let round = 0; round < o.rounds; round++) {
    for (const [i, r] of routes.entries()) {
      const m = await runLoadgen(server, workloads[i]!, o.connections, o.durationMs, o.warmupMs);
      if (m.errors > 0 || m.non2xx > 0) throw new Error(`${r.name}: ${m.errors} errors, ${m.non2xx} non-2xx answers under load`);
      rounds[i]!.push(m);
    }
  }
  return routes.map((r, i) => ({
    name: r.name,
    answerBytes: bytes[i]!,
    measured: rounds[i]!.reduce((a, m) => (m.p50ms < a.p50ms ? m : a)),
    roundsP50ms: rounds[i]!.map((m) => m.p50ms),
  }));
}
