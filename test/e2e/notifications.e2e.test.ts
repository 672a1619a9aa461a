/**
 * Notifications (reference social-graph.md §6) end to end, once per store: bob's followers,
 * likers, commenters, mentioners, diamond givers, payers, coin buyers and reposters act over
 * HTTP, each transaction mined; then get-notifications, get-unread-notifications-count and
 * set-notification-metadata are read and written over HTTP. One table of cases per route;
 * then a walk over every notification in small pages, what blocking and hiding take away, and,
 * on a node whose miner is off, a mempool transaction's notification before and after its block.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueJwt } from '../../server/identity/jwt.js';
import { keyPair, profileBody, startChainNode, dmBody, type ChainNode, type J, type KeyPair, TEST_STORES, suiteNode } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
/** Not a public key; must never come back in an answer. */
const NOT_A_KEY = 'tBCnotAPublicKeyButMaybeASecret0000000000000000000000';

interface Ctx {
  n: ChainNode;
  alice: KeyPair;
  bob: KeyPair;
  carol: KeyPair;
  /** Funded, no profile: pays bob. */
  dave: KeyPair;
  names: { alice: string; bob: string; carol: string };
  /** bob's post. */
  postHash: string;
  /** carol's comment on it. */
  commentHash: string;
  /** The TxnTypes of bob's notifications, newest first, as setup made them. */
  expectedTypes: string[];
}

const hexBytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const jwtOf = (c: Ctx, k: KeyPair): Promise<string> => issueJwt(c.n.deps.crypto, hexBytes(k.seedHex));

/** Construct → sign → submit-transaction → wait until mined; a busy mempool ("retry") is retried. */
async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  const signed = await n.sign(c['TransactionHex'] as string, signer, 'sdk');
  for (let attempt = 0; ; attempt++) {
    const r = await n.post('submit-transaction', { TransactionHex: signed });
    if (r.status === 200) {
      await n.waitMined(r.json['TxnHashHex'] as string);
      return r.json['TxnHashHex'] as string;
    }
    const error = String(r.json['error']);
    assert.ok(attempt < 20 && /retry/.test(error), `submit-transaction of ${path}: ${error}`);
    await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
  }
}

const submitPost = (n: ChainNode, k: KeyPair, text: string, extra: J = {}): Promise<string> => mined(n, 'submit-post', { UpdaterPublicKeyBase58Check: k.pk, BodyObj: { Body: text }, ...extra }, k);

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-5);
  const [alice, bob, carol, dave] = [keyPair(), keyPair(), keyPair(), keyPair()];
  const names = { alice: `ali${tag}`, bob: `bob${tag}`, carol: `car${tag}` };
  await n.fund(alice.pk, 0.5 * 1e9);
  for (const k of [bob, carol, dave]) await n.fund(k.pk, 0.1 * 1e9);
  await Promise.all([
    mined(n, 'update-profile', profileBody(alice.pk, names.alice), alice),
    mined(n, 'update-profile', profileBody(bob.pk, names.bob), bob),
    mined(n, 'update-profile', profileBody(carol.pk, names.carol), carol),
  ]);
  const postHash = await submitPost(n, bob, 'hello');

  // One at a time, so their order is known: bob's notifications, oldest first.
  await mined(n, 'create-follow-txn-stateless', { FollowerPublicKeyBase58Check: alice.pk, FollowedPublicKeyBase58Check: bob.pk }, alice);
  await mined(n, 'create-like-stateless', { ReaderPublicKeyBase58Check: alice.pk, LikedPostHashHex: postHash }, alice);
  const commentHash = await submitPost(n, carol, 'a reply', { ParentStakeID: postHash });
  await submitPost(n, carol, `hey @${names.bob}, look`);
  await mined(n, 'send-diamonds', { SenderPublicKeyBase58Check: alice.pk, ReceiverPublicKeyBase58Check: bob.pk, DiamondPostHashHex: postHash, DiamondLevel: 1 }, alice);
  await mined(n, 'send-deso', { SenderPublicKeyBase58Check: dave.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 12_345 }, dave);
  await mined(n, 'buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: alice.pk, CreatorPublicKeyBase58Check: bob.pk, OperationType: 'buy', DeSoToSellNanos: 10_000_000 }, alice);
  await submitPost(n, carol, '', { RepostedPostHashHex: postHash });
  // None of these notifies bob: a DM, an unfollow, bob's own follow (it notifies alice).
  await mined(n, 'send-dm-message', dmBody(alice.pk, bob.pk, 'psst'), alice);
  await mined(n, 'create-follow-txn-stateless', { FollowerPublicKeyBase58Check: alice.pk, FollowedPublicKeyBase58Check: bob.pk, IsUnfollow: true }, alice);
  await mined(n, 'create-follow-txn-stateless', { FollowerPublicKeyBase58Check: bob.pk, FollowedPublicKeyBase58Check: alice.pk }, bob);
  // The last: the miner's transfer that funded bob.
  const expectedTypes = ['SUBMIT_POST', 'CREATOR_COIN', 'BASIC_TRANSFER', 'BASIC_TRANSFER', 'SUBMIT_POST', 'SUBMIT_POST', 'LIKE', 'FOLLOW', 'BASIC_TRANSFER'];
  return { n, alice, bob, carol, dave, names, postHash, commentHash, expectedTypes };
}

type Case = RouteCase<Ctx>;
const table = routeTable<Ctx>((message) => assert.ok(!message.includes(NOT_A_KEY), 'the error does not echo what was sent as a key'));

const items = (r: J): J[] => r['Notifications'] as J[];
const types = (r: J): string[] => items(r).map((x) => x['Metadata']['TxnType'] as string);
const indexes = (r: J): number[] => items(r).map((x) => x['Index'] as number);
const page = (c: Ctx, extra: J = {}): Promise<J> => c.n.ok('get-notifications', { PublicKeyBase58Check: c.bob.pk, FetchStartIndex: -1, NumToFetch: 50, ...extra });
const affected = (x: J): Array<[string, string]> => (x['Metadata']['AffectedPublicKeys'] as J[]).map((a) => [a['PublicKeyBase58Check'], a['Metadata']]);

function suite(store: 'memory' | 'redis'): void {
  describe(`notifications (${store} store)`, () => {
    const ctx = suiteNode(store, setup);

    table(ctx, 'get-notifications', [
      {
        name: 'every notification of bob, newest first, with Index descending and LastSeenIndex the newest',
        body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: -1, NumToFetch: 50 }),
        check: (r, c) => {
          assert.deepEqual(types(r), c.expectedTypes);
          const ix = indexes(r);
          assert.ok(ix.every((x, i) => i === 0 || x < ix[i - 1]!), 'strictly descending');
          assert.equal(r['LastSeenIndex'], ix[0]);
          for (const x of items(r)) {
            assert.deepEqual(Object.keys(x).sort(), ['Index', 'InnerTxnOutputResponses', 'Metadata', 'Txn', 'TxnOutputResponses']);
            assert.equal(x['Txn'], null);
            assert.equal(x['Metadata']['BlockHashHex'].length, 64, 'mined');
            assert.ok(affected(x).some(([pk]) => pk === c.bob.pk), 'bob is affected');
            assert.notEqual(x['Metadata']['TransactorPublicKeyBase58Check'], c.bob.pk);
          }
        },
      },
      {
        name: 'each notification carries its type\'s metadata, as the SDK reads it',
        body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: -1, NumToFetch: 50 }),
        check: (r, c) => {
          const [repost, buy, transfer, diamond, mention, comment, like, follow, funding] = items(r) as [J, J, J, J, J, J, J, J, J];
          assert.equal(funding['Metadata']['TransactorPublicKeyBase58Check'], c.n.miner.pk);
          assert.deepEqual(follow['Metadata']['FollowTxindexMetadata'], { IsUnfollow: false });
          assert.deepEqual(affected(follow), [[c.bob.pk, 'FollowedPublicKeyBase58Check']]);
          assert.equal(follow['Metadata']['TransactorPublicKeyBase58Check'], c.alice.pk);
          assert.deepEqual(like['Metadata']['LikeTxindexMetadata'], { IsUnlike: false, PostHashHex: c.postHash });
          assert.equal(like['TxnOutputResponses'], null, 'likes list no outputs');
          assert.deepEqual(comment['Metadata']['SubmitPostTxindexMetadata'], { PostHashBeingModifiedHex: c.commentHash, ParentPostHashHex: c.postHash });
          assert.deepEqual(affected(comment), [[c.bob.pk, 'ParentPosterPublicKeyBase58Check']]);
          assert.deepEqual(affected(mention), [[c.bob.pk, 'MentionedPublicKeyBase58Check']]);
          assert.deepEqual(affected(repost), [[c.bob.pk, 'RepostedPublicKeyBase58Check']]);
          assert.equal(diamond['Metadata']['BasicTransferTxindexMetadata']['DiamondLevel'], 1);
          assert.equal(diamond['Metadata']['BasicTransferTxindexMetadata']['PostHashHex'], c.postHash);
          assert.deepEqual(affected(diamond)[0], [c.bob.pk, 'BasicTransferOutput']);
          assert.equal(transfer['Metadata']['TransactorPublicKeyBase58Check'], c.dave.pk);
          assert.deepEqual(transfer['TxnOutputResponses'].find((o: J) => o['PublicKeyBase58Check'] === c.bob.pk), { PublicKeyBase58Check: c.bob.pk, AmountNanos: 12_345 });
          const bt = transfer['Metadata']['BasicTransferTxindexMetadata'];
          assert.equal(bt['TotalInputNanos'], bt['TotalOutputNanos'] + bt['FeeNanos']);
          assert.equal(bt['DiamondLevel'], 0);
          // 10,000,000 less the 0.01% trade fee (9,999,000), less bob's 10% (999,900).
          assert.deepEqual(buy['Metadata']['CreatorCoinTxindexMetadata'], { OperationType: 'buy', NativeToSellNanos: 10_000_000, CreatorCoinToSellNanos: 0, NativeToAddNanos: 0, NativeLockedNanosDiff: 8_999_100 });
          assert.ok(affected(buy).some(([pk, role]) => pk === c.bob.pk && role === 'CreatorPublicKey'));
          assert.equal((r['ProfilesByPublicKey'] as J)[c.bob.pk]['CoinEntry']['NativeLockedNanos'], 8_999_100, 'what the buy locked');
        },
      },
      {
        name: 'ProfilesByPublicKey names every key the page names; PostsByHash the posts, with the author\'s profile and bob\'s reader state',
        body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: -1, NumToFetch: 50 }),
        check: (r, c) => {
          const profiles = r['ProfilesByPublicKey'] as J;
          for (const k of [c.alice, c.bob, c.carol]) assert.equal(profiles[k.pk]['PublicKeyBase58Check'], k.pk);
          assert.equal(profiles[c.dave.pk], null, 'dave has no profile');
          const posts = r['PostsByHash'] as J;
          const post = posts[c.postHash];
          assert.equal(post['PosterPublicKeyBase58Check'], c.bob.pk);
          assert.equal(post['ProfileEntryResponse']['Username'], c.names.bob);
          assert.deepEqual(post['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
          assert.equal(post['LikeCount'], 1);
          assert.equal(posts[c.commentHash]['Body'], 'a reply');
        },
      },
      {
        name: 'FetchStartIndex is inclusive; a later page answers LastSeenIndex -1',
        body: async (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: indexes(await page(c))[2], NumToFetch: 2 }),
        check: async (r, c) => {
          assert.deepEqual(indexes(r), indexes(await page(c)).slice(2, 4));
          assert.equal(r['LastSeenIndex'], -1);
        },
      },
      {
        name: 'FilteredOutNotificationCategories leaves categories out (a diamond is not a transfer)',
        body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: -1, NumToFetch: 50, FilteredOutNotificationCategories: { post: true, like: true, diamond: true, follow: false } }),
        check: (r) => assert.deepEqual(types(r), ['CREATOR_COIN', 'BASIC_TRANSFER', 'FOLLOW', 'BASIC_TRANSFER']),
      },
      {
        name: 'alice is notified of bob\'s follow and of her funding only',
        body: (c) => ({ PublicKeyBase58Check: c.alice.pk, FetchStartIndex: -1, NumToFetch: 10 }),
        check: (r, c) => {
          assert.deepEqual(types(r), ['FOLLOW', 'BASIC_TRANSFER']);
          assert.equal(items(r)[0]!['Metadata']['TransactorPublicKeyBase58Check'], c.bob.pk);
        },
      },
      {
        name: 'a key nobody touched: no notifications, LastSeenIndex -1',
        body: () => ({ PublicKeyBase58Check: keyPair().pk, FetchStartIndex: -1, NumToFetch: 10 }),
        check: (r) => assert.deepEqual(r, { Notifications: [], ProfilesByPublicKey: {}, PostsByHash: {}, LastSeenIndex: -1 }),
      },
      { name: 'a public key that does not decode', body: () => ({ PublicKeyBase58Check: NOT_A_KEY, NumToFetch: 10 }), error: { re: /^GetNotifications: Problem parsing public key: / } },
      { name: 'NumToFetch 0', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: -1, NumToFetch: 0 }), error: { re: /^GetNotifications: NumToFetch must be at least 1$/ } },
      { name: 'NumToFetch above the page bound', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: -1, NumToFetch: 201 }), error: { re: /^GetNotifications: NumToFetch is 201; this node answers at most 200 a page$/ } },
      { name: 'FetchStartIndex not an integer', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchStartIndex: 1.5, NumToFetch: 10 }), error: { re: /FetchStartIndex/ } },
      { name: 'categories not a map of booleans', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, NumToFetch: 10, FilteredOutNotificationCategories: { post: 'yes' } }), error: { re: /FilteredOutNotificationCategories/ } },
    ] satisfies Case[]);

    table(ctx, 'get-unread-notifications-count', [
      {
        name: 'nothing stored yet: every notification is new; UpdateMetadata true',
        body: (c) => ({ PublicKeyBase58Check: c.bob.pk }),
        check: async (r, c) => assert.deepEqual(r, { NotificationsCount: 9, LastUnreadNotificationIndex: indexes(await page(c))[0], UpdateMetadata: true }),
      },
      { name: 'a key nobody touched', body: () => ({ PublicKeyBase58Check: keyPair().pk }), check: (r) => assert.deepEqual(r, { NotificationsCount: 0, LastUnreadNotificationIndex: 0, UpdateMetadata: false }) },
      { name: 'a public key that does not decode', body: () => ({ PublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetNotificationsCount: Problem decoding public key: / } },
      { name: 'no public key', body: () => ({}), error: { re: /PublicKeyBase58Check/ } },
    ] satisfies Case[]);

    table(ctx, 'set-notification-metadata', [
      {
        name: 'stores carol\'s read state (empty 200); the count then adds the stored unread count to what is new',
        body: async (c) => ({ PublicKeyBase58Check: c.carol.pk, JWT: await jwtOf(c, c.carol), LastSeenIndex: 0, LastUnreadNotificationIndex: 0, UnreadNotifications: 3 }),
        check: async (r, c) => {
          assert.equal(r, undefined, 'an empty body');
          // carol's one notification (her funding) is new: 3 stored + 1.
          const funding = indexes(await c.n.ok('get-notifications', { PublicKeyBase58Check: c.carol.pk, FetchStartIndex: -1, NumToFetch: 10 }));
          assert.equal(funding.length, 1);
          assert.deepEqual(await c.n.ok('get-unread-notifications-count', { PublicKeyBase58Check: c.carol.pk }), { NotificationsCount: 4, LastUnreadNotificationIndex: funding[0], UpdateMetadata: true });
        },
      },
      { name: 'without a JWT (401)', body: (c) => ({ PublicKeyBase58Check: c.carol.pk, LastSeenIndex: 5 }), error: { status: 401, re: /^SetNotificationMetadata: Error validating JWT: / } },
      {
        name: 'a JWT of another key (403)',
        body: async (c) => ({ PublicKeyBase58Check: c.carol.pk, JWT: await jwtOf(c, c.alice), LastSeenIndex: 5 }),
        error: { status: 403, re: /^SetNotificationMetadata: Error validating JWT: JWT is valid for another public key/ },
      },
      { name: 'a public key that does not decode', body: () => ({ PublicKeyBase58Check: NOT_A_KEY, JWT: 'x' }), error: { re: /^SetNotificationMetadata: Problem decoding updater public key: / } },
      { name: 'a negative unread count', body: async (c) => ({ PublicKeyBase58Check: c.carol.pk, JWT: await jwtOf(c, c.carol), UnreadNotifications: -1 }), error: { re: /UnreadNotifications/ } },
    ] satisfies Case[]);

    describe('reading and writing the read state', () => {
      it('bob marks everything seen: the count drops to 0, then counts only what comes after', async () => {
        const c = ctx();
        const newest = indexes(await page(c))[0]!;
        const count = await c.n.ok('get-unread-notifications-count', { PublicKeyBase58Check: c.bob.pk });
        await c.n.ok('set-notification-metadata', { PublicKeyBase58Check: c.bob.pk, JWT: await jwtOf(c, c.bob), LastSeenIndex: newest, LastUnreadNotificationIndex: count['LastUnreadNotificationIndex'], UnreadNotifications: 0 });
        assert.deepEqual(await c.n.ok('get-unread-notifications-count', { PublicKeyBase58Check: c.bob.pk }), { NotificationsCount: 0, LastUnreadNotificationIndex: newest, UpdateMetadata: false });
        await mined(c.n, 'create-follow-txn-stateless', { FollowerPublicKeyBase58Check: c.carol.pk, FollowedPublicKeyBase58Check: c.bob.pk }, c.carol);
        const after = await c.n.ok('get-unread-notifications-count', { PublicKeyBase58Check: c.bob.pk });
        assert.equal(after['NotificationsCount'], 1);
        assert.equal(after['UpdateMetadata'], true);
        assert.equal(after['LastUnreadNotificationIndex'], indexes(await page(c))[0]);
        c.expectedTypes.unshift('FOLLOW');
      });
    });

    describe('paging walks', () => {
      it('walks bob\'s notifications 3 at a time: each once, newest first, each page from the last Index − 1', async () => {
        const c = ctx();
        const all = indexes(await page(c));
        const seen: number[] = [];
        let from = -1;
        for (let pages = 0; pages < 20; pages++) {
          const r = await c.n.ok('get-notifications', { PublicKeyBase58Check: c.bob.pk, FetchStartIndex: from, NumToFetch: 3 });
          const ix = indexes(r);
          assert.ok(ix.length <= 3);
          if (ix.length === 0) break;
          seen.push(...ix);
          from = ix.at(-1)! - 1;
        }
        assert.deepEqual(seen, all);
        assert.equal(seen.length, c.expectedTypes.length);
      });
    });

    describe('what the reader no longer sees', () => {
      it('a transactor bob blocks drops out, and comes back when unblocked', async () => {
        const c = ctx();
        const jwt = await jwtOf(c, c.bob);
        await c.n.ok('block-public-key', { PublicKeyBase58Check: c.bob.pk, BlockPublicKeyBase58Check: c.dave.pk, JWT: jwt });
        const blocked = await page(c);
        assert.ok(!items(blocked).some((x) => x['Metadata']['TransactorPublicKeyBase58Check'] === c.dave.pk));
        assert.equal(items(blocked).length, c.expectedTypes.length - 1);
        await c.n.ok('block-public-key', { PublicKeyBase58Check: c.bob.pk, BlockPublicKeyBase58Check: c.dave.pk, JWT: jwt, Unblock: true });
        assert.equal(items(await page(c)).length, c.expectedTypes.length);
      });

      it('a comment hidden since drops out', async () => {
        const c = ctx();
        await submitPost(c.n, c.carol, 'a reply', { PostHashHexToModify: c.commentHash, ParentStakeID: c.postHash, IsHidden: true });
        const r = await page(c);
        assert.ok(!items(r).some((x) => x['Metadata']['SubmitPostTxindexMetadata']?.['PostHashBeingModifiedHex'] === c.commentHash));
        assert.equal(items(r).length, c.expectedTypes.length - 1);
      });
    });
  });

  describe(`a mempool notification, then its block (${store} store, miner off)`, () => {
    let n: ChainNode | undefined;
    before(async () => {
      n = await startChainNode({ store, args: ['--miner', 'off'] });
    });
    after(async () => {
      await n?.close();
    });

    it('shows unmined (BlockHashHex ""), then mined at the same Index with its block', async () => {
      assert.ok(n);
      for (let i = 0; i < 3; i++) await n.mineBlock();
      const receiver = keyPair();
      const c = await n.ok('send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: receiver.pk, AmountNanos: 54_321, ...FEE });
      await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, n.miner, 'sdk') });
      const read = (): Promise<J> => n!.ok('get-notifications', { PublicKeyBase58Check: receiver.pk, FetchStartIndex: -1, NumToFetch: 10 });
      const pending = items(await read());
      assert.equal(pending.length, 1);
      assert.equal(pending[0]!['Metadata']['BlockHashHex'], '');
      assert.equal(pending[0]!['Metadata']['TxnIndexInBlock'], 1);
      assert.deepEqual(await n.ok('get-unread-notifications-count', { PublicKeyBase58Check: receiver.pk }), { NotificationsCount: 1, LastUnreadNotificationIndex: pending[0]!['Index'], UpdateMetadata: true });

      await n.mineBlock();
      const mined = items(await read());
      assert.equal(mined.length, 1);
      assert.equal(mined[0]!['Index'], pending[0]!['Index']);
      assert.equal(mined[0]!['Metadata']['BlockHashHex'], (await n.deps.chain.tip()).hashHex);
    });
  });
}

for (const store of TEST_STORES) suite(store);
