/**
 * Fills a store (a Redis, or an LMDB data directory) with a social data set through the real
 * write path, for the read-route bench (bench/readRoutes.bench.ts): a node runs in this process
 * on that store (its built-in miner on), every record is made by a constructed, SDK-signed transaction that goes through
 * submit-transaction and is mined, exactly as clients and miners would make it.
 *
 * The data set: USERS users with profiles; DM_THREADS DM threads of one user with others,
 * MESSAGES_PER_THREAD messages each (both directions); one DAO coin held by ASKERS users who
 * each rest ORDERS_EACH asks, and BIDDERS users who each rest ORDERS_EACH bids, on the
 * coin/native pair; POSTS posts by that same first user, the oldest of which has COMMENTS
 * comments (from the other users in turn) and LIKES likes, and every other user follows it.
 * Returns the request bodies the bench loads each route with: every profile (by key and by
 * username), every page of the first pages of each thread, the pair both ways round, every page
 * of the poster's posts, that post's comment pages beside the poster's other posts (each as a
 * reader would open it), and every page of the poster's notifications (the comments, likes and
 * follows).
 *
 * `sizes` shrinks the data set (a test checking the bench's baselines answers as the node
 * does); the bench uses DATASET.
 * @module
 */
import { dmBody, keyPair, profileBody, startChainNode, type ChainNode, type J, type KeyPair } from '../../test/helpers/chainNode.js';

export const DATASET = {
  USERS: 100,
  DM_THREADS: 10,
  MESSAGES_PER_THREAD: 100,
  ASKERS: 10,
  BIDDERS: 10,
  ORDERS_EACH: 3,
  PAGE_SIZE: 25,
  POSTS: 300,
  COMMENTS: 200,
  LIKES: 50,
  /** get-single-post's CommentLimit in the bench's bodies (MAX_COMMENT_LIMIT is 30). */
  COMMENT_PAGE: 20,
  /** Posts without comments opened beside the commented one. */
  OTHER_POSTS_OPENED: 10,
  /** get-notifications' NumToFetch in the bench's bodies (frontends ask 50 or so). */
  NOTIFICATION_PAGE: 50,
} as const;

export type DatasetSizes = { readonly [K in keyof typeof DATASET]: number };

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;
/** A start point after every message (year 2033): the first page of a thread. */
const FAR_FUTURE = '2000000000000000000';

export interface ReadBodies {
  profile: J[];
  dmPage: J[];
  orders: J[];
  /** get-posts-for-public-key: every page of the poster's posts. */
  postsPage: J[];
  /** get-single-post: the commented post's comment pages and other posts of the poster. */
  singlePost: J[];
  /** get-notifications: every page of the poster's notifications. */
  notifications: J[];
}

/** Construct (HTTP) + sign (SDK) + submit-transaction, without waiting for the block. */
async function submitOnly(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, signer, 'sdk') });
  return s['TxnHashHex'] as string;
}

/** Submits every transaction `make` yields (in order, one signer chain each), then waits for the last to be mined; answers their hashes. */
async function submitAll(n: ChainNode, txns: Array<{ path: string; body: J; signer: KeyPair }>): Promise<string[]> {
  const hashes: string[] = [];
  for (const t of txns) hashes.push(await submitOnly(n, t.path, t.body, t.signer));
  if (hashes.length > 0) await n.waitMined(hashes[hashes.length - 1]!);
  return hashes;
}

/** `target`: a Redis URL, or the data directory of an LMDB store. */
export async function populate(target: string | { dataDir: string }, log: (line: string) => void = () => undefined, sizes: DatasetSizes = DATASET): Promise<ReadBodies> {
  const n = await startChainNode(typeof target === 'string' ? { store: 'redis', redisUrl: target } : { store: 'lmdb', dataDir: target.dataDir });
  try {
    const tag = Date.now().toString(36).slice(-5);
    const users = Array.from({ length: sizes.USERS }, () => keyPair());
    const creator = keyPair();
    const usernames = users.map((_, i) => `rb${tag}u${i}`);
    const creatorName = `rb${tag}coin`;

    // Block rewards (1 native coin each) pay for the funding below.
    for (let i = 0; i < 12; i++) await n.mineBlock();
    await submitAll(
      n,
      [...users, creator].map((u) => ({
        path: 'send-deso',
        body: { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: u.pk, AmountNanos: 100_000_000 },
        signer: n.miner,
      })),
    );
    log(`funded ${users.length + 1} users`);

    const profile = (k: KeyPair, username: string): J => profileBody(k.pk, username, `read bench user ${username}`);
    await submitAll(n, [
      ...users.map((u, i) => ({ path: 'update-profile', body: profile(u, usernames[i]!), signer: u })),
      { path: 'update-profile', body: profile(creator, creatorName), signer: creator },
    ]);
    log(`${users.length + 1} profiles`);

    // DM threads: users[0] with users[1..DM_THREADS], alternating sender.
    const hub = users[0]!;
    const partners = users.slice(1, 1 + sizes.DM_THREADS);
    // One sender at a time per thread would serialise on nonces anyway; interleave the threads.
    const messages: Array<{ path: string; body: J; signer: KeyPair }> = [];
    for (let m = 0; m < sizes.MESSAGES_PER_THREAD; m++) {
      for (const p of partners) {
        const [from, to] = m % 2 === 0 ? [hub, p] : [p, hub];
        messages.push({ path: 'send-dm-message', body: dmBody(from.pk, to.pk, `message ${m} of a bench thread, long enough to look like a real encrypted text`), signer: from });
      }
    }
    await submitAll(n, messages);
    log(`${messages.length} DM messages in ${partners.length} threads`);

    // The DAO coin and its book.
    // Users past the DM partners: askers, then bidders.
    const askers = users.slice(1 + sizes.DM_THREADS, 1 + sizes.DM_THREADS + sizes.ASKERS);
    const bidders = users.slice(1 + sizes.DM_THREADS + sizes.ASKERS, 1 + sizes.DM_THREADS + sizes.ASKERS + sizes.BIDDERS);
    const hex = (x: bigint): string => `0x${x.toString(16)}`;
    await submitAll(n, [
      { path: 'dao-coin', body: { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: hex(1_000_000n * COIN) }, signer: creator },
      ...askers.map((a) => ({
        path: 'transfer-dao-coin',
        body: { SenderPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, ReceiverPublicKeyBase58CheckOrUsername: a.pk, DAOCoinToTransferNanos: hex(1000n * COIN) },
        signer: creator,
      })),
    ]);
    const order = (t: KeyPair, side: 'ASK' | 'BID', price: string, quantity: string): J => ({
      TransactorPublicKeyBase58Check: t.pk,
      BuyingDAOCoinCreatorPublicKeyBase58Check: side === 'ASK' ? 'DESO' : creator.pk,
      SellingDAOCoinCreatorPublicKeyBase58Check: side === 'ASK' ? creator.pk : 'DESO',
      Price: price,
      Quantity: quantity,
      OperationType: side,
      FillType: 'GOOD_TILL_CANCELLED',
    });
    // Asks at 0.050.. and bids at 0.010..: the two sides never cross, so every order rests.
    const orders = [
      ...askers.flatMap((a, i) => Array.from({ length: sizes.ORDERS_EACH }, (_, j) => ({ path: 'create-dao-coin-limit-order', body: order(a, 'ASK', (0.05 + 0.001 * (i * sizes.ORDERS_EACH + j)).toFixed(3), '10'), signer: a }))),
      ...bidders.flatMap((b, i) => Array.from({ length: sizes.ORDERS_EACH }, (_, j) => ({ path: 'create-dao-coin-limit-order', body: order(b, 'BID', (0.01 + 0.0005 * (i * sizes.ORDERS_EACH + j)).toFixed(4), '1'), signer: b }))),
    ];
    await submitAll(n, orders);
    log(`a DAO coin with ${orders.length} resting orders`);

    // Posts: the hub posts POSTS times; its oldest post gets COMMENTS comments (the other users
    // in turn) and LIKES likes.
    const text = (i: number): string => `bench post ${i}: a few sentences of text, as long as a typical post is, with a link https://example.com/${i} and a #tag`;
    const posts = await submitAll(
      n,
      Array.from({ length: sizes.POSTS }, (_, i) => ({
        path: 'submit-post',
        body: { UpdaterPublicKeyBase58Check: hub.pk, BodyObj: { Body: text(i), ImageURLs: i % 5 === 0 ? [`https://images.example.com/${i}.jpg`] : [], VideoURLs: [] } },
        signer: hub,
      })),
    );
    const others = users.slice(1);
    const commented = posts[0]!;
    await submitAll(n, [
      ...Array.from({ length: sizes.COMMENTS }, (_, i) => {
        const u = others[i % others.length]!;
        return { path: 'submit-post', body: { UpdaterPublicKeyBase58Check: u.pk, ParentStakeID: commented, BodyObj: { Body: `comment ${i} on the bench post`, ImageURLs: [], VideoURLs: [] } }, signer: u };
      }),
      ...others.slice(0, sizes.LIKES).map((u) => ({ path: 'create-like-stateless', body: { ReaderPublicKeyBase58Check: u.pk, LikedPostHashHex: commented, IsUnlike: false }, signer: u })),
      ...others.map((u) => ({ path: 'create-follow-txn-stateless', body: { FollowerPublicKeyBase58Check: u.pk, FollowedPublicKeyBase58Check: hub.pk, IsUnfollow: false }, signer: u })),
    ]);
    log(`${posts.length} posts by one user, one with ${sizes.COMMENTS} comments and ${Math.min(sizes.LIKES, others.length)} likes; ${others.length} followers`);

    // Request bodies. Thread pages: walk each thread's first pages with the route itself.
    const dmPage: J[] = [];
    for (const p of partners) {
      let start = FAR_FUTURE;
      for (let page = 0; page < sizes.MESSAGES_PER_THREAD / sizes.PAGE_SIZE; page++) {
        const body = {
          UserGroupOwnerPublicKeyBase58Check: hub.pk,
          UserGroupKeyName: '',
          PartyGroupOwnerPublicKeyBase58Check: p.pk,
          PartyGroupKeyName: '',
          StartTimestampString: start,
          MaxMessagesToFetch: sizes.PAGE_SIZE,
        };
        const r = await n.ok('get-paginated-messages-for-dm-thread', body);
        const msgs = r['ThreadMessages'] as J[];
        if (msgs.length !== sizes.PAGE_SIZE) throw new Error(`populate: page ${page} of a thread holds ${msgs.length} messages, expected ${sizes.PAGE_SIZE}`);
        dmPage.push(body);
        start = (msgs[msgs.length - 1]!['MessageInfo'] as J)['TimestampNanosString'] as string;
      }
    }
    const profileBodies: J[] = users.flatMap((u, i) => [{ PublicKeyBase58Check: u.pk }, { Username: usernames[i] }]);
    const ordersBodies: J[] = [
      { DAOCoin1CreatorPublicKeyBase58CheckOrUsername: creator.pk, DAOCoin2CreatorPublicKeyBase58CheckOrUsername: '' },
      { DAOCoin1CreatorPublicKeyBase58CheckOrUsername: '', DAOCoin2CreatorPublicKeyBase58CheckOrUsername: creatorName },
    ];
    const book = await n.ok('get-dao-coin-limit-orders', ordersBodies[0]);
    if ((book['Orders'] as J[]).length !== orders.length) throw new Error(`populate: the book holds ${(book['Orders'] as J[]).length} orders, expected ${orders.length}`);
    // Post pages: walk the poster's posts with the route itself, as a reader scrolls them.
    const reader = others[1 % others.length]!.pk;
    const postsPage: J[] = [];
    let cursor = '';
    for (let page = 0; page < Math.ceil(sizes.POSTS / sizes.PAGE_SIZE); page++) {
      const body = { PublicKeyBase58Check: hub.pk, ReaderPublicKeyBase58Check: reader, NumToFetch: sizes.PAGE_SIZE, LastPostHashHex: cursor };
      const r = await n.ok('get-posts-for-public-key', body);
      const got = (r['Posts'] as J[] | null) ?? [];
      if (got.length !== Math.min(sizes.PAGE_SIZE, sizes.POSTS - page * sizes.PAGE_SIZE)) throw new Error(`populate: page ${page} of the posts holds ${got.length} posts`);
      postsPage.push(body);
      cursor = r['LastPostHashHex'] as string;
    }
    const open = (PostHashHex: string, CommentOffset: number): J => ({ PostHashHex, ReaderPublicKeyBase58Check: reader, FetchParents: false, CommentOffset, CommentLimit: sizes.COMMENT_PAGE, AddGlobalFeedBool: false });
    const singlePost: J[] = [
      ...Array.from({ length: Math.ceil(sizes.COMMENTS / sizes.COMMENT_PAGE) }, (_, i) => open(commented, i * sizes.COMMENT_PAGE)),
      ...posts.slice(1, 1 + sizes.OTHER_POSTS_OPENED).map((h) => open(h, 0)),
    ];
    const found = (await n.ok('get-single-post', singlePost[0]))['PostFound'] as J;
    if (found['CommentCount'] !== sizes.COMMENTS || (found['Comments'] as J[]).length !== Math.min(sizes.COMMENT_PAGE, sizes.COMMENTS)) {
      throw new Error(`populate: the commented post counts ${String(found['CommentCount'])} comments, answers ${(found['Comments'] as J[]).length}`);
    }
    // Notification pages: walk the poster's with the route itself (the next page starts below the last Index).
    const notifications: J[] = [];
    let seen = 0;
    for (let start = -1; ; ) {
      const body = { PublicKeyBase58Check: hub.pk, FetchStartIndex: start, NumToFetch: sizes.NOTIFICATION_PAGE, FilteredOutNotificationCategories: {} };
      const page = ((await n.ok('get-notifications', body))['Notifications'] as J[] | null) ?? [];
      if (page.length === 0) break;
      notifications.push(body);
      seen += page.length;
      start = (page[page.length - 1]!['Index'] as number) - 1;
      if (page.length < sizes.NOTIFICATION_PAGE) break;
    }
    const expected = sizes.COMMENTS + Math.min(sizes.LIKES, others.length) + others.length;
    if (seen < expected) throw new Error(`populate: the poster has ${seen} notifications, expected at least ${expected}`);
    return { profile: profileBodies, dmPage, orders: ordersBodies, postsPage, singlePost, notifications };
  } finally {
    await n.close();
  }
}
