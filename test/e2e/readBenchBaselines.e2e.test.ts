/**
 * `npm run bench:http` (bench/readRoutes.bench.ts) holds its baselines to "the same lookups as
 * the node": before measuring it checks one sample body per route. This runs that check without
 * the load, on a small data set made the bench's way (bench/http/populate.ts on a private
 * Redis): every request body of every benched route, answered by the plain-server lookups of
 * bench/http/readBaselines.ts, must be the node's answer, so a route added to the bench (or a
 * change to a route) cannot leave its baseline doing less, or something else, unseen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROUTES } from '../../bench/readRoutes.bench.js';
import { populate, type DatasetSizes, type ReadBodies } from '../../bench/http/populate.js';
import { lookups } from '../../bench/http/readBaselines.js';
import { loadConfig } from '../../server/config.js';
import { openStore } from '../../server/store/index.js';
import type { Store } from '../../server/store/types.js';
import { startChainNode, type ChainNode } from '../helpers/chainNode.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';

/** The bench's shapes, small: every page and cursor kind still occurs. */
const SMALL: DatasetSizes = {
  USERS: 8,
  DM_THREADS: 2,
  MESSAGES_PER_THREAD: 4,
  ASKERS: 2,
  BIDDERS: 2,
  ORDERS_EACH: 1,
  PAGE_SIZE: 2,
  POSTS: 5,
  COMMENTS: 5,
  LIKES: 3,
  COMMENT_PAGE: 2,
  OTHER_POSTS_OPENED: 2,
  NOTIFICATION_PAGE: 3,
};

describe('bench:http baselines answer every benched body as the node does (a small data set, Redis)', () => {
  let redis: RedisServer;
  let store: Store;
  let n: ChainNode;
  let bodies: ReadBodies;

  before(async () => {
    redis = await startRedisServer();
    bodies = await populate(redis.url, () => undefined, SMALL);
    n = await startChainNode({ store: 'redis', redisUrl: redis.url, args: ['--miner', 'off'] });
    store = await openStore({ redisUrl: redis.url, keyPrefix: loadConfig(['--redis', redis.url], {}).redisKeyPrefix });
  });
  after(async () => {
    await store?.close();
    await n?.close();
    await redis?.stop();
  });

  it('the data set has the bench’s request bodies for each route', () => {
    assert.deepEqual(
      ROUTES.map(({ key }) => [key, bodies[key].length]),
      [
        ['profile', 2 * SMALL.USERS],
        ['dmPage', SMALL.DM_THREADS * (SMALL.MESSAGES_PER_THREAD / SMALL.PAGE_SIZE)],
        ['orders', 2],
        ['postsPage', Math.ceil(SMALL.POSTS / SMALL.PAGE_SIZE)],
        ['singlePost', Math.ceil(SMALL.COMMENTS / SMALL.COMMENT_PAGE) + SMALL.OTHER_POSTS_OPENED],
        // 5 comments, 3 likes, 7 followers and the funding: 16 notifications.
        ['notifications', Math.ceil(16 / SMALL.NOTIFICATION_PAGE)],
      ],
    );
  });

  for (const { route, key } of ROUTES) {
    it(`${route}: the baseline's answer is the node's, body by body`, async () => {
      const baseline = lookups({ config: n.deps.config, store })[route];
      assert.ok(baseline, `a baseline for ${route}`);
      for (const body of bodies[key]) {
        const node = await fetch(`${n.url}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        const expected = { status: node.status, json: await node.json() };
        assert.equal(expected.status, 200, `${route} ${JSON.stringify(body)}: ${JSON.stringify(expected.json).slice(0, 300)}`);
        const a = await baseline(body);
        assert.deepEqual({ status: a.status, json: JSON.parse(a.body) }, expected, `${route} ${JSON.stringify(body)}`);
      }
    });
  }
});
