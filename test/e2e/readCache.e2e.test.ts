/**
 * The read cache never serves a stale answer (issue 8: it drops only answers whose state keys
 * changed). Two nodes share one Redis: A caches (the default), B does not (`--read-cache-mb 0`).
 * A seeded random stream of writes (transfers, DMs, profile and username changes, DAO coin
 * orders and cancels) goes through either node, and blocks are mined through either, so A
 * learns of changes from its own admissions, the other node's admissions and the other node's
 * blocks. After every step every cached route is asked the same questions on both nodes: the
 * answers must be equal, and A must still answer most of them from its cache.
 *
 * Then the post and notification reads (get-single-post, get-posts-for-public-key,
 * get-notifications) step by step: each answer is served from the cache when asked again, and
 * every kind of change it shows drops it (a new post, comment, like or notification, the block
 * that mines one, the reader blocking someone, admin moderation and the global feed, written
 * through either node), while a block that changes nothing it shows keeps it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sharedReadCache } from '../../server/http/readCache.js';
import { issueJwt } from '../../server/identity/jwt.js';
import { dmBody, keyPair, profileBody, startChainNode, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { seededRandom } from '../helpers/seededRandom.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;
const hex = (n: bigint): string => `0x${n.toString(16)}`;
const STEPS = 60;
/** Far after every message: the first page of a thread. */
const FIRST_PAGE = '2000000000000000000';


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
  // Transfers and order fills notify: mined, in the mempool, and mined at the place they held there.
  for (const u of users) q.push(['get-notifications', { PublicKeyBase58Check: u.pk, FetchStartIndex: -1, NumToFetch: 20 }]);
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
  // Admin routes open (testnet only) for the moderation and global feed steps.
  cached = await startChainNode({ redisUrl: redis.url, args: ['--miner', 'off', '--dev-open-admin'] });
  uncached = await startChainNode({ redisUrl: redis.url, args: ['--miner', 'off', '--dev-open-admin', '--read-cache-mb', '0'] });
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
    const random = seededRandom(8); // the same stream of steps on every run
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

// --- post and notification reads, change by change ------------------------------------------------

interface Answer {
  status: number;
  json: J;
}

/** Asks both nodes; A's answer must be B's. Answers A's, and whether A's cache served it. */
async function ask(path: string, body: J): Promise<Answer & { hit: boolean }> {
  const cache = sharedReadCache(cached.deps)!;
  const hits = cache.stats().hits;
  const [a, b] = await Promise.all([cached.post(path, body), uncached.post(path, body)]);
  assert.deepEqual(a, b, `${path} ${JSON.stringify(body)} answers alike on the caching node and the uncached one`);
  return { ...a, hit: cache.stats().hits > hits };
}

/** Asked twice with nothing changed in between: the second answer comes from A's cache. */
async function expectHit(path: string, body: J): Promise<Answer> {
  const first = await ask(path, body);
  assert.equal(first.status, 200, `${path}: ${JSON.stringify(first.json)}`);
  const again = await ask(path, body);
  assert.ok(again.hit, `${path}: asked again with nothing changed, A answers from its cache`);
  assert.deepEqual(again.json, first.json);
  return { status: again.status, json: again.json };
}

/** A cached answer, then `change`: A's next answer is not the cached one but the new one (`check`). */
async function expectDropped(path: string, body: J, what: string, change: () => Promise<unknown>, check: (r: J) => void): Promise<void> {
  const before = await expectHit(path, body);
  await change();
  const after = await ask(path, body);
  assert.equal(after.hit, false, `${path}: after ${what}, A does not answer from its cache`);
  assert.notDeepEqual(after.json, before.json, `${path}: ${what} changes the answer`);
  check(after.json);
}

/** A cached answer, then `change`, which changes nothing it shows: A still answers from its cache. */
async function expectKept(path: string, body: J, what: string, change: () => Promise<unknown>): Promise<void> {
  const before = await expectHit(path, body);
  await change();
  const after = await ask(path, body);
  assert.ok(after.hit, `${path}: after ${what}, A still answers from its cache`);
  assert.deepEqual(after.json, before.json);
}

/** Constructs on `via`, signs with the SDK, submits on `via` (not mined); answers the transaction's hash, a new post's hash. */
async function submitted(via: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await via.ok(path, { ...FEE, ...body });
  const s = await via.ok('submit-transaction', { TransactionHex: await via.sign(c['TransactionHex'] as string, signer, 'sdk') });
  return s['TxnHashHex'] as string;
}

describe('get-posts-for-public-key, get-single-post and get-notifications from the read cache', () => {
  /** funder pays the others (no profile: shows in no answer); author posts; fan comments, likes and follows; reader reads. */
  const [funder, author, fan, reader] = [keyPair(), keyPair(), keyPair(), keyPair()];
  const jwt = (k: KeyPair): Promise<string> => issueJwt(cached.deps.crypto, new Uint8Array(Buffer.from(k.seedHex, 'hex')));
  const block = (via: ChainNode, blocker: KeyPair, blocked: KeyPair, unblock = false): (() => Promise<J>) => async () =>
    via.ok('block-public-key', { PublicKeyBase58Check: blocker.pk, BlockPublicKeyBase58Check: blocked.pk, Unblock: unblock, JWT: await jwt(blocker) });
  const moderate = (via: ChainNode, k: KeyPair, flags: { RemoveEverywhere?: boolean; RemoveFromLeaderboard?: boolean }): (() => Promise<J>) => () =>
    via.ok('admin/update-user-global-metadata', { UserPublicKeyBase58Check: k.pk, IsBlacklistUpdate: true, RemoveEverywhere: false, RemoveFromLeaderboard: false, ...flags });
  const post = (via: ChainNode, by: KeyPair, text: string, extra: J = {}): Promise<string> =>
    submitted(via, 'submit-post', { UpdaterPublicKeyBase58Check: by.pk, BodyObj: { Body: text }, ...extra }, by);
  /** author's first post, once the first case made it. */
  let first = '';

  before(async () => {
    await mustWrite(cached, 'send-deso', { SenderPublicKeyBase58Check: cached.miner.pk, RecipientPublicKeyOrUsername: funder.pk, AmountNanos: 400_000_000 }, cached.miner);
    await cached.mineBlock();
    for (const k of [author, fan, reader]) await mustWrite(cached, 'send-deso', { SenderPublicKeyBase58Check: funder.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: 100_000_000 }, funder);
    await cached.mineBlock();
    await mustWrite(cached, 'update-profile', profileBody(author.pk, `rc${tag}author`), author);
    await mustWrite(cached, 'update-profile', profileBody(fan.pk, `rc${tag}fan`), fan);
    await cached.mineBlock();
  });

  it('get-posts-for-public-key: a new post, the block mining it, a like, a comment and the global feed each drop the answer', async () => {
    const path = 'get-posts-for-public-key';
    const q = { PublicKeyBase58Check: author.pk, ReaderPublicKeyBase58Check: reader.pk, NumToFetch: 10 };
    const posts = (r: J): J[] => (r['Posts'] as J[] | null) ?? [];
    await expectDropped(path, q, 'a new post by the user (in the mempool, admitted through B)', async () => (first = await post(uncached, author, 'first')), (r) => {
      assert.deepEqual(posts(r).map((p) => p['PostHashHex']), [first]);
      assert.equal(posts(r)[0]!['InMempool'], true);
    });
    await expectDropped(path, q, 'the block that mines it (mined through B)', () => uncached.mineBlock(), (r) => assert.equal(posts(r)[0]!['InMempool'], false));
    await expectDropped(path, q, 'a like of the post', () => submitted(cached, 'create-like-stateless', { ReaderPublicKeyBase58Check: fan.pk, LikedPostHashHex: first }, fan), (r) =>
      assert.equal(posts(r)[0]!['LikeCount'], 1),
    );
    await expectDropped(path, q, 'a comment on the post', () => post(uncached, fan, 'nice one', { ParentStakeID: first }), (r) => assert.equal(posts(r)[0]!['CommentCount'], 1));
    await expectKept(path, q, 'the block that mines the like and the comment (the post reads the same)', () => cached.mineBlock());
    await expectDropped(path, q, 'the admin putting the post on the global feed (through B)', () => uncached.ok('admin/update-global-feed', { PostHashHex: first }), (r) =>
      assert.equal(posts(r)[0]!['InGlobalFeed'], true),
    );
    await expectDropped(path, q, 'a second post (through A)', () => post(cached, author, 'second'), (r) => {
      assert.equal(posts(r).length, 2);
      assert.deepEqual(posts(r).map((p) => p['InMempool']), [true, false]);
    });
    await expectDropped(path, q, 'the block that mines it (mined through A)', () => cached.mineBlock(), (r) => assert.deepEqual(posts(r).map((p) => p['InMempool']), [false, false]));
  });

  it('get-single-post: a post in the mempool, its block, a comment, a like, the reader blocking the commenter and admin moderation each drop the answer', async () => {
    const path = 'get-single-post';
    const pending = await post(uncached, author, 'third');
    const single = { PostHashHex: pending, ReaderPublicKeyBase58Check: reader.pk };
    assert.equal((await expectHit(path, single)).json['PostFound']['InMempool'], true);
    await expectDropped(path, single, 'the block that mines the post', () => uncached.mineBlock(), (r) => assert.equal(r['PostFound']['InMempool'], false));

    const q = { PostHashHex: first, ReaderPublicKeyBase58Check: reader.pk, CommentLimit: 10 };
    const comments = (r: J): J[] => (r['PostFound']['Comments'] as J[] | null) ?? [];
    const posters = (r: J): string[] => comments(r).map((c) => c['PosterPublicKeyBase58Check'] as string);
    assert.deepEqual(posters((await expectHit(path, q)).json), [fan.pk]);
    let reply = '';
    await expectDropped(path, q, 'a new comment (the author’s, in the mempool)', async () => (reply = await post(cached, author, 'thanks', { ParentStakeID: first })), (r) => {
      assert.deepEqual(posters(r), [author.pk, fan.pk], 'the author’s own comment first');
      assert.equal(comments(r)[0]!['PostHashHex'], reply);
      assert.equal(comments(r)[0]!['InMempool'], true);
      assert.equal(r['PostFound']['CommentCount'], 2);
    });
    await expectDropped(path, q, 'the block that mines the comment', () => uncached.mineBlock(), (r) => assert.equal(comments(r)[0]!['InMempool'], false));
    await expectDropped(path, q, 'the reader liking the post', () => submitted(uncached, 'create-like-stateless', { ReaderPublicKeyBase58Check: reader.pk, LikedPostHashHex: first }, reader), (r) => {
      assert.equal(r['PostFound']['LikeCount'], 2);
      assert.equal(r['PostFound']['PostEntryReaderState']['LikedByReader'], true);
    });
    await expectDropped(path, q, 'the reader blocking the commenter (through A)', block(cached, reader, fan), (r) => assert.deepEqual(posters(r), [author.pk]));
    await expectDropped(path, q, 'the reader unblocking them (through B)', block(uncached, reader, fan, true), (r) => assert.deepEqual(posters(r), [author.pk, fan.pk]));
    await expectDropped(path, q, 'the admin graylisting the commenter (through B)', moderate(uncached, fan, { RemoveFromLeaderboard: true }), (r) =>
      assert.equal(comments(r)[1]!['ProfileEntryResponse'], null, 'a restricted author’s profile is left out'),
    );
    await expectDropped(path, q, 'the admin lifting it (through A)', moderate(cached, fan, {}), (r) => assert.equal(comments(r)[1]!['ProfileEntryResponse']['PublicKeyBase58Check'], fan.pk));

    // Blacklisting the author: the post is refused (not cached), then served again once lifted.
    const before = await expectHit(path, q);
    await moderate(uncached, author, { RemoveEverywhere: true })();
    const refused = await ask(path, q);
    assert.equal(refused.status, 400);
    assert.match(refused.json['error'] as string, /restricted/);
    await moderate(uncached, author, {})();
    assert.deepEqual((await expectHit(path, q)).json, before.json);
  });

  it('get-notifications: a new notification, the block mining it in its place, blocking and blacklisting its sender each drop the answer', async () => {
    const path = 'get-notifications';
    const q = { PublicKeyBase58Check: author.pk, FetchStartIndex: -1, NumToFetch: 50 };
    const items = (r: J): J[] => r['Notifications'] as J[];
    const senders = (r: J): string[] => items(r).map((x) => x['Metadata']['TransactorPublicKeyBase58Check'] as string);
    const fromFan = (r: J): number => senders(r).filter((k) => k === fan.pk).length;
    const start = (await expectHit(path, q)).json;
    assert.equal(fromFan(start), 2, 'the fan’s like and comment');
    await expectDropped(path, q, 'a new notification (the fan follows, in the mempool, through B)', () => submitted(uncached, 'create-follow-txn-stateless', { FollowerPublicKeyBase58Check: fan.pk, FollowedPublicKeyBase58Check: author.pk }, fan), (r) => {
      assert.equal(items(r)[0]!['Metadata']['TxnType'], 'FOLLOW');
      assert.equal(items(r)[0]!['Metadata']['BlockHashHex'], '', 'unmined');
    });
    const followIndex = items((await expectHit(path, q)).json)[0]!['Index'];
    await expectDropped(path, q, 'the block that mines it at the place it held (through A)', () => cached.mineBlock(), (r) => {
      assert.equal(items(r)[0]!['Index'], followIndex, 'the same place');
      assert.match(items(r)[0]!['Metadata']['BlockHashHex'] as string, /^[0-9a-f]{64}$/);
    });
    let comment = '';
    await expectDropped(path, q, 'a comment by the fan (in the mempool, through A)', async () => (comment = await post(cached, fan, 'again', { ParentStakeID: first })), (r) => {
      assert.equal(items(r)[0]!['Metadata']['TxnType'], 'SUBMIT_POST');
      assert.equal(r['PostsByHash'][comment]['InMempool'], true);
    });
    await expectDropped(path, q, 'the block that mines the comment (through B)', () => uncached.mineBlock(), (r) => assert.equal(r['PostsByHash'][comment]['InMempool'], false));
    await expectDropped(path, q, 'the author blocking the fan (through B)', block(uncached, author, fan), (r) => assert.equal(fromFan(r), 0));
    await expectDropped(path, q, 'the author unblocking them (through A)', block(cached, author, fan, true), (r) => assert.equal(fromFan(r), 4));
    await expectDropped(path, q, 'the admin blacklisting the fan (through A)', moderate(cached, fan, { RemoveEverywhere: true }), (r) => assert.equal(fromFan(r), 0));
    await expectDropped(path, q, 'the admin lifting it (through B)', moderate(uncached, fan, {}), (r) => assert.equal(fromFan(r), 4));
    await expectDropped(path, q, 'the fan’s profile changing', async () => {
      await mustWrite(uncached, 'update-profile', profileBody(fan.pk, `rc${tag}fan`, 'a new description'), fan);
    }, (r) => assert.equal(r['ProfilesByPublicKey'][fan.pk]['Description'], 'a new description'));
    await cached.mineBlock();
  });

  it('a block that changes nothing they show keeps all three answers', async () => {
    const questions: Array<[string, J]> = [
      ['get-posts-for-public-key', { PublicKeyBase58Check: author.pk, ReaderPublicKeyBase58Check: reader.pk, NumToFetch: 10 }],
      ['get-single-post', { PostHashHex: first, ReaderPublicKeyBase58Check: reader.pk, CommentLimit: 10, ThreadLevelLimit: 1, ThreadLeafLimit: -1, FetchParents: true, AddGlobalFeedBool: true }],
      ['get-notifications', { PublicKeyBase58Check: author.pk, FetchStartIndex: -1, NumToFetch: 50 }],
    ];
    for (const [path, body] of questions) await expectKept(path, body, 'an empty block (mined through B)', () => uncached.mineBlock());
  });
});
