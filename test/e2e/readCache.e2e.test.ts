/**
 * The read cache never serves a stale answer (issue 8: it drops only answers whose state keys
 * changed). Two nodes share one Redis: A caches (the default), B does not (`--read-cache-mb 0`).
 * A seeded random stream of writes (transfers, DMs, profile and username changes, DAO coin
 * orders and cancels) goes through either node, and blocks are mined through either, so A
 * learns of changes from its own admissions, the other node's admissions and the other node's
 * blocks. After every step every cached route is asked the same questions on both nodes: the
 * answers must be equal, and A must still answer most of them from its cache.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sharedReadCache } from '../../server/http/readCache.js';
import { dmBody, keyPair, profileBody, startChainNode, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;
const hex = (n: bigint): string => `0x${n.toString(16)}`;
const STEPS = 60;
/** Far after every message: the first page of a thread. */
const FIRST_PAGE = '2000000000000000000';

/** mulberry32: the same stream of steps on every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let redis: RedisServer;
let cached: ChainNode;
let uncached: ChainNode;
const users: KeyPair[] = Array.from({ length: 6 }, () => keyPair());
const tag = Date.now().toString(36).slice(-5);
/** Every username a user has had, for lookups of names that moved. */
const usernames: string[][] = users.map((_, i) => [`rc${tag}u${i}`]);
const current = (i: number): string => usernames[i]![usernames[i]!.length - 1]!;

/** Constructs on `via`, signs with the SDK, submits on `via`; false when the node refused. */
async function write(via: ChainNode, path: string, body: J, signer: KeyPair): Promise<boolean> {
  const c = await via.post(path, { ...FEE, ...body });
  if (c.status !== 200) return false;
  const s = await via.post('submit-transaction', { TransactionHex: await via.sign(c.json['TransactionHex'] as string, signer, 'sdk') });
  return s.status === 200;
}

async function mustWrite(via: ChainNode, path: string, body: J, signer: KeyPair): Promise<void> {
  assert.ok(await write(via, path, body, signer), `${path} accepted`);
}

/** User i's profile under its current username. */
const userProfile = (i: number, description: string): J => profileBody(users[i]!.pk, current(i), description);

/** Orders on user 0's DAO coin against the native coin: users 1-2 sell it, users 3-4 buy it. */
const orderBody = (i: number, price: string, quantity: string): J => ({
  TransactorPublicKeyBase58Check: users[i]!.pk,
  BuyingDAOCoinCreatorPublicKeyBase58Check: i <= 2 ? 'DESO' : users[0]!.pk,
  SellingDAOCoinCreatorPublicKeyBase58Check: i <= 2 ? users[0]!.pk : 'DESO',
  Price: price,
  Quantity: quantity,
  OperationType: i <= 2 ? 'ASK' : 'BID',
  FillType: 'GOOD_TILL_CANCELLED',
});

/** Every question asked after each step: all the cached routes. */
function questions(): Array<[string, J]> {
  const q: Array<[string, J]> = [];
  // The miners have profiles, so block rewards change cached answers.
  for (const m of [cached.miner, uncached.miner]) q.push(['get-single-profile', { PublicKeyBase58Check: m.pk }]);
  users.forEach((u, i) => {
    q.push(['get-single-profile', { PublicKeyBase58Check: u.pk }]);
    for (const name of usernames[i]!) q.push(['get-single-profile', { Username: name, NoErrorOnMissing: true }]);
  });
  for (const [a, b] of [[0, 1], [1, 0], [2, 3], [4, 5], [5, 2]] as const) {
    for (const max of [2, 25]) {
      q.push(['get-paginated-messages-for-dm-thread', {
        UserGroupOwnerPublicKeyBase58Check: users[a]!.pk,
        UserGroupKeyName: '',
        PartyGroupOwnerPublicKeyBase58Check: users[b]!.pk,
        PartyGroupKeyName: '',
        StartTimestampString: FIRST_PAGE,
        MaxMessagesToFetch: max,
      }]);
    }
  }
  q.push(['get-paginated-messages-for-group-chat-thread', { UserPublicKeyBase58Check: users[0]!.pk, AccessGroupKeyName: 'nothing-here', StartTimestampString: FIRST_PAGE, MaxMessagesToFetch: 10 }]);
  for (const status of ['', 'Committed']) {
    q.push(['get-dao-coin-limit-orders', { DAOCoin1CreatorPublicKeyBase58CheckOrUsername: users[0]!.pk, DAOCoin2CreatorPublicKeyBase58CheckOrUsername: '', TxnStatus: status }]);
    for (const i of [1, 2, 3, 4]) q.push(['get-transactor-dao-coin-limit-orders', { TransactorPublicKeyBase58Check: users[i]!.pk, TxnStatus: status }]);
  }
  return q;
}

async function assertSameAnswers(step: string): Promise<void> {
  for (const [path, body] of questions()) {
    const [a, b] = await Promise.all([cached.post(path, body), uncached.post(path, body)]);
    assert.deepEqual(a, b, `${step}: ${path} ${JSON.stringify(body)} answers alike on the caching node and the uncached one`);
  }
}

before(async () => {
  redis = await startRedisServer();
  cached = await startChainNode({ redisUrl: redis.url, args: ['--miner', 'off'] });
  uncached = await startChainNode({ redisUrl: redis.url, args: ['--miner', 'off', '--read-cache-mb', '0'] });
  for (let i = 0; i < 3; i++) await cached.mineBlock();
  for (const u of users) {
    await mustWrite(cached, 'send-deso', { SenderPublicKeyBase58Check: cached.miner.pk, RecipientPublicKeyOrUsername: u.pk, AmountNanos: 200_000_000 }, cached.miner);
  }
  await mustWrite(cached, 'send-deso', { SenderPublicKeyBase58Check: cached.miner.pk, RecipientPublicKeyOrUsername: uncached.miner.pk, AmountNanos: 100_000_000 }, cached.miner);
  await cached.mineBlock();
  for (const i of [0, 1, 2, 3]) await mustWrite(cached, 'update-profile', userProfile(i, 'first'), users[i]!);
  for (const [n, m] of [[cached, 'a'], [uncached, 'b']] as const) {
    await mustWrite(cached, 'update-profile', profileBody(n.miner.pk, `rc${tag}miner${m}`, 'a miner'), n.miner);
  }
  await cached.mineBlock();
  await mustWrite(cached, 'dao-coin', { UpdaterPublicKeyBase58Check: users[0]!.pk, ProfilePublicKeyBase58CheckOrUsername: users[0]!.pk, OperationType: 'mint', CoinsToMintNanos: hex(1000n * COIN) }, users[0]!);
  await cached.mineBlock();
  for (const i of [1, 2]) {
    await mustWrite(cached, 'transfer-dao-coin', {
      SenderPublicKeyBase58Check: users[0]!.pk,
      ProfilePublicKeyBase58CheckOrUsername: users[0]!.pk,
      ReceiverPublicKeyBase58CheckOrUsername: users[i]!.pk,
      DAOCoinToTransferNanos: hex(100n * COIN),
    }, users[0]!);
  }
  await cached.mineBlock();
});

after(async () => {
  await cached?.close();
  await uncached?.close();
  await redis?.stop();
});

describe('the read cache under a stream of writes and blocks from two nodes', () => {
  it(`answers every cached route as a node without a cache does, after each of ${STEPS} steps`, async () => {
    const random = rng(8);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const cache = sharedReadCache(cached.deps)!;
    assert.ok(cache !== null, 'node A caches');
    await assertSameAnswers('before any step');
    const kinds: Record<string, number> = {};
    let accepted = 0;
    for (let step = 0; step < STEPS; step++) {
      const via = random() < 0.5 ? cached : uncached;
      const i = Math.floor(random() * users.length);
      const j = (i + 1 + Math.floor(random() * (users.length - 1))) % users.length;
      const roll = random();
      let kind: string;
      let ok = true;
      if (roll < 0.15) {
        // Half the time with a transfer admitted just before, which A sees first in the block.
        kind = `block via ${via === cached ? 'A' : 'B'}`;
        if (random() < 0.5) {
          kind += ' with a fresh transfer';
          ok = await write(via, 'send-deso', { SenderPublicKeyBase58Check: users[i]!.pk, RecipientPublicKeyOrUsername: users[j]!.pk, AmountNanos: 5000 + step }, users[i]!);
        }
        await via.mineBlock();
      } else if (roll < 0.3) {
        kind = 'send-deso';
        ok = await write(via, kind, { SenderPublicKeyBase58Check: users[i]!.pk, RecipientPublicKeyOrUsername: users[j]!.pk, AmountNanos: 1000 + step }, users[i]!);
      } else if (roll < 0.5) {
        kind = 'send-dm-message';
        ok = await write(via, kind, dmBody(users[i]!.pk, users[j]!.pk, `step ${step}`), users[i]!);
      } else if (roll < 0.65) {
        const creator = i % 4;
        kind = random() < 0.3 ? 'update-profile (new username)' : 'update-profile';
        if (kind !== 'update-profile') usernames[creator]!.push(`rc${tag}u${creator}s${step}`);
        ok = await write(via, 'update-profile', userProfile(creator, `step ${step}`), users[creator]!);
      } else if (roll < 0.9) {
        const trader = 1 + (i % 4);
        kind = 'create-dao-coin-limit-order';
        ok = await write(via, kind, orderBody(trader, pick(['0.01', '0.02', '0.03', '0.04']), pick(['1', '2', '3'])), users[trader]!);
      } else {
        kind = 'cancel-dao-coin-limit-order';
        const trader = 1 + (i % 4);
        const open = (await uncached.ok('get-transactor-dao-coin-limit-orders', { TransactorPublicKeyBase58Check: users[trader]!.pk }))['Orders'] as J[];
        if (open.length === 0) ok = false;
        else ok = await write(via, kind, { TransactorPublicKeyBase58Check: users[trader]!.pk, CancelOrderID: pick(open)['OrderID'] }, users[trader]!);
      }
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (ok) accepted++;
      await assertSameAnswers(`step ${step} (${kind}${ok ? '' : ', refused'})`);
    }
    assert.ok(accepted >= STEPS * 0.8, `most steps were accepted writes or blocks: ${accepted} of ${STEPS} (${JSON.stringify(kinds)})`);
    const s = cache.stats();
    // Dropping every answer on every change would miss each question once per step.
    assert.ok(s.hits > s.misses, `the cache kept answers across writes: ${s.hits} hits, ${s.misses} misses`);
    // Blocks write again what their transactions wrote on admission: the second look keeps those answers.
    assert.ok(s.kept > 0, `answers of rewritten keys were kept: ${s.kept} of ${s.rechecked} looked at again`);
  });
});
