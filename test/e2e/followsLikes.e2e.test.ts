/**
 * Follows and likes (reference social-graph.md §2–3) end to end, once per store: FOLLOW and
 * LIKE constructed over HTTP (create-follow-txn-stateless, create-like-stateless), signed
 * through our identity service and through the SDK, submitted and mined; then read back over
 * HTTP (get-follows-stateless, is-following-public-key, get-likes-for-post, get-users-stateless,
 * and get-posts-stateless's LikeCount and PostEntryReaderState). One table of cases per route;
 * the rule errors at submission; unfollow and unlike; a walk over a list of followers with a
 * small page returns each follower once, in key order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { decodeMetadata, TxnType, type FollowMetadata, type LikeMetadata } from '../../server/chain/txn/metadata.js';
import { issueJwt } from '../../server/identity/jwt.js';
import { keyPair, profileBody, startChainNode, type ChainNode, type J, type KeyPair, TEST_STORES } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
/** Not a public key; must never come back in an answer. */
const NOT_A_KEY = 'tBCnotAPublicKeyButMaybeASecret0000000000000000000000';
const FANS = 9;
const admin = keyPair();

interface Ctx {
  n: ChainNode;
  tag: string;
  alice: KeyPair;
  bob: KeyPair;
  carol: KeyPair;
  /** Funded, no profile. */
  dave: KeyPair;
  /** Follow carol; the even ones have a profile and like bob's post. */
  fans: KeyPair[];
  /** Graylisted by the admin; likes bob's post. */
  troll: KeyPair;
  names: { alice: string; bob: string; carol: string; troll: string };
  /** bob's post. */
  postHash: string;
  /** A post nobody likes. */
  quietPost: string;
}

const hexBytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const sortedPks = (ks: KeyPair[]): string[] => ks.map((k) => k.pk).sort();

/** Construct → sign → submit-transaction → wait until mined; a busy mempool ("retry") is retried. */
async function mined(n: ChainNode, path: string, body: J, signer: KeyPair, by: 'identity' | 'sdk' = 'sdk'): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  const signed = await n.sign(c['TransactionHex'] as string, signer, by);
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

/** Construct, sign and submit, expecting submit-transaction to refuse with `re`. */
async function refused(n: ChainNode, path: string, body: J, signer: KeyPair, re: RegExp): Promise<void> {
  const c = await n.ok(path, { ...FEE, ...body });
  await n.fails('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, signer, 'sdk') }, re);
}

const fund = (n: ChainNode, k: KeyPair, nanos: number): Promise<string> =>
  mined(n, 'send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: nanos }, n.miner);
const followBody = (from: KeyPair, to: KeyPair, isUnfollow = false): J => ({ FollowerPublicKeyBase58Check: from.pk, FollowedPublicKeyBase58Check: to.pk, IsUnfollow: isUnfollow });
const likeBody = (from: KeyPair, postHash: string, isUnlike = false): J => ({ ReaderPublicKeyBase58Check: from.pk, LikedPostHashHex: postHash, IsUnlike: isUnlike });
const submitPost = (n: ChainNode, k: KeyPair, text: string): Promise<string> => mined(n, 'submit-post', { UpdaterPublicKeyBase58Check: k.pk, BodyObj: { Body: text } }, k);

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-5);
  const [alice, bob, carol, dave, troll] = [keyPair(), keyPair(), keyPair(), keyPair(), keyPair()];
  const fans = Array.from({ length: FANS }, () => keyPair());
  const names = { alice: `Ali${tag}`, bob: `bob${tag}`, carol: `car${tag}`, troll: `trl${tag}` };

  // The first fund mines the blocks that pay for the rest; the rest go in parallel.
  await n.fund(alice.pk, 0.2 * 1e9);
  await Promise.all([bob, carol, dave, troll, ...fans].map((k) => fund(n, k, 0.05 * 1e9)));
  await Promise.all([
    mined(n, 'update-profile', profileBody(alice.pk, names.alice), alice),
    mined(n, 'update-profile', profileBody(bob.pk, names.bob), bob),
    mined(n, 'update-profile', profileBody(carol.pk, names.carol), carol),
    mined(n, 'update-profile', profileBody(troll.pk, names.troll), troll),
    ...fans.flatMap((k, i) => (i % 2 === 0 ? [mined(n, 'update-profile', profileBody(k.pk, `fan${i}${tag}`), k)] : [])),
  ]);
  // A creator-coin buy gives alice's profile a coin value: likers are listed by key all the same.
  await mined(n, 'buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: alice.pk, CreatorPublicKeyBase58Check: alice.pk, OperationType: 'buy', DeSoToSellNanos: 10_000_000 }, alice);
  const [postHash, quietPost] = await Promise.all([submitPost(n, bob, 'like me'), submitPost(n, carol, 'nobody likes this')]);

  // Follows: alice (through identity) and carol (through the SDK) follow bob; bob follows himself; every fan follows carol.
  await mined(n, 'create-follow-txn-stateless', followBody(alice, bob), alice, 'identity');
  await Promise.all([
    mined(n, 'create-follow-txn-stateless', followBody(carol, bob), carol, 'sdk'),
    mined(n, 'create-follow-txn-stateless', followBody(bob, bob), bob),
    mined(n, 'create-follow-txn-stateless', followBody(alice, carol), alice),
    ...fans.map((k) => mined(n, 'create-follow-txn-stateless', followBody(k, carol), k)),
  ]);
  // Likes of bob's post: alice (identity), carol, dave (no profile), the troll, every even fan.
  await mined(n, 'create-like-stateless', likeBody(alice, postHash), alice, 'identity');
  await Promise.all([carol, dave, troll, ...fans.filter((_, i) => i % 2 === 0)].map((k) => mined(n, 'create-like-stateless', likeBody(k, postHash), k)));

  // The troll is graylisted: left out of likers lists, but for the troll as reader.
  const jwt = await issueJwt(n.deps.crypto, hexBytes(admin.seedHex));
  await n.ok('admin/update-user-global-metadata', { AdminPublicKey: admin.pk, JWT: jwt, UserPublicKeyBase58Check: troll.pk, IsBlacklistUpdate: true, RemoveFromLeaderboard: true });
  await n.ok('admin/update-global-feed', { AdminPublicKey: admin.pk, JWT: jwt, PostHashHex: postHash });
  return { n, tag, alice, bob, carol, dave, fans, troll, names, postHash, quietPost };
}

type Case = RouteCase<Ctx>;
const table = routeTable<Ctx>((message) => assert.ok(!message.includes(NOT_A_KEY), 'the error does not echo what was sent as a key'));

const profiles = (r: J): J => r['PublicKeyToProfileEntry'] as J;
const likerKeys = (r: J): string[] => (r['Likers'] as J[]).map((p) => p['PublicKeyBase58Check'] as string);
/** Likers shown to a reader other than the troll: every liker with a profile but the troll, Base58Check descending. */
const shownLikers = (c: Ctx): string[] => sortedPks([c.alice, c.carol, ...c.fans.filter((_, i) => i % 2 === 0)]).reverse();

function txnOf(r: J): ReturnType<typeof decodeTxn> {
  return decodeTxn(hexBytes(r['TransactionHex'] as string));
}

function suite(store: 'memory' | 'redis'): void {
  describe(`follows and likes (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };
    before(async () => {
      c = await setup(await startChainNode({ store, args: ['--admin-public-keys', admin.pk] }));
    });
    after(async () => {
      await c?.n.close();
    });

    table(ctx, 'create-follow-txn-stateless', [
      {
        name: 'constructs a FOLLOW with the reference\'s five fields (no TxnHashHex)',
        body: (c) => ({ ...followBody(c.dave, c.bob), ...FEE }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['ChangeAmountNanos', 'FeeNanos', 'TotalInputNanos', 'Transaction', 'TransactionHex']);
          const t = txnOf(r);
          assert.equal(t.txnType, TxnType.FOLLOW);
          assert.deepEqual(t.publicKey, c.dave.pk33);
          const m = decodeMetadata(t.txnType, t.metadata) as FollowMetadata;
          assert.deepEqual([m.followedPublicKey, m.isUnfollow], [c.bob.pk33, false]);
          assert.equal(r['TotalInputNanos'], r['FeeNanos']);
          assert.ok((r['FeeNanos'] as number) > 0, 'a fee at the asked rate');
          assert.equal((r['Transaction'] as J)['TxnTypeJSON'], TxnType.FOLLOW);
        },
      },
      {
        name: 'an unfollow, with an app fee as an extra output; no state is checked at construction',
        body: (c) => ({ ...followBody(c.dave, c.dave, true), TransactionFees: [{ PublicKeyBase58Check: c.alice.pk, AmountNanos: 777 }] }),
        check: (r, c) => {
          const t = txnOf(r);
          assert.equal((decodeMetadata(t.txnType, t.metadata) as FollowMetadata).isUnfollow, true);
          assert.deepEqual(t.outputs.map((o) => [o.publicKey, o.amountNanos]), [[c.alice.pk33, 777n]]);
          assert.equal(r['TotalInputNanos'], (r['FeeNanos'] as number) + 777);
        },
      },
      { name: 'a bad follower key is refused', body: (c) => followBody({ ...c.dave, pk: NOT_A_KEY }, c.bob), error: { re: /^CreateFollowTxnStateless: Problem decoding sender base58 public key: / } },
      { name: 'a bad followed key is refused', body: (c) => followBody(c.dave, { ...c.bob, pk: c.bob.pk.slice(0, -1) }), error: { re: /^CreateFollowTxnStateless: Problem decoding recipient base58 public key: / } },
      { name: 'a missing followed key is refused', body: (c) => ({ FollowerPublicKeyBase58Check: c.dave.pk }), error: { re: /FollowedPublicKeyBase58Check: is required/ } },
      { name: 'IsUnfollow must be a boolean', body: (c) => ({ ...followBody(c.dave, c.bob), IsUnfollow: 'yes' }), error: { re: /IsUnfollow: expected true or false/ } },
    ]);

    table(ctx, 'create-like-stateless', [
      {
        name: 'constructs a LIKE with the reference\'s five fields',
        body: (c) => ({ ...likeBody(c.bob, c.quietPost), ...FEE }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['ChangeAmountNanos', 'FeeNanos', 'TotalInputNanos', 'Transaction', 'TransactionHex']);
          const t = txnOf(r);
          assert.equal(t.txnType, TxnType.LIKE);
          const m = decodeMetadata(t.txnType, t.metadata) as LikeMetadata;
          assert.deepEqual([Buffer.from(m.likedPostHash).toString('hex'), m.isUnlike], [c.quietPost, false]);
        },
      },
      {
        name: 'an unlike of a post that does not exist: no state is checked at construction',
        body: (c) => likeBody(c.bob, 'ab'.repeat(32), true),
        check: (r) => assert.equal((decodeMetadata(TxnType.LIKE, txnOf(r).metadata) as LikeMetadata).isUnlike, true),
      },
      { name: 'a hash that is not 64 hex characters is refused (the reference\'s read-route prefix)', body: (c) => likeBody(c.bob, 'abc'), error: { re: /^GetLikesStateless: Error parsing post hash: expected 64 hex characters, got 3 characters$/ } },
      { name: 'non-hex is refused', body: (c) => likeBody(c.bob, 'zz'.repeat(32)), error: { re: /^GetLikesStateless: Error parsing post hash/ } },
      { name: 'a bad reader key is refused', body: (c) => likeBody({ ...c.bob, pk: NOT_A_KEY }, c.postHash), error: { re: /^CreateLikeStateless: Problem decoding sender base58 public key: / } },
    ]);

    table(ctx, 'get-follows-stateless', [
      {
        name: 'the followers of a key (GetEntriesFollowingUsername), keys sorted, each with its profile',
        body: (c) => ({ PublicKeyBase58Check: c.bob.pk, GetEntriesFollowingUsername: true, NumToFetch: 50 }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['NumFollowers', 'PublicKeyToProfileEntry']);
          assert.deepEqual(Object.keys(profiles(r)), sortedPks([c.alice, c.bob, c.carol]), 'self-follow included, keys in Base58Check order');
          assert.equal(r['NumFollowers'], 3);
          assert.equal(profiles(r)[c.alice.pk]['Username'], c.names.alice);
          assert.equal(profiles(r)[c.bob.pk]['PublicKeyBase58Check'], c.bob.pk);
        },
      },
      {
        name: 'the keys a user follows, by username in any case; NumFollowers counts that list',
        body: (c) => ({ Username: c.names.alice.toUpperCase(), NumToFetch: 10 }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(profiles(r)), sortedPks([c.bob, c.carol]));
          assert.equal(r['NumFollowers'], 2);
        },
      },
      {
        name: 'a follower without a profile maps to null',
        body: (c) => ({ PublicKeyBase58Check: c.carol.pk, GetEntriesFollowingUsername: true, NumToFetch: 50 }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(profiles(r)), sortedPks([c.alice, ...c.fans]));
          assert.equal(r['NumFollowers'], FANS + 1);
          c.fans.forEach((k, i) => (i % 2 === 0 ? assert.equal(profiles(r)[k.pk]['Username'], `fan${i}${c.tag}`) : assert.equal(profiles(r)[k.pk], null)));
        },
      },
      {
        name: 'a page starts after LastPublicKeyBase58Check and holds NumToFetch keys',
        body: (c) => ({ PublicKeyBase58Check: c.carol.pk, GetEntriesFollowingUsername: true, LastPublicKeyBase58Check: sortedPks([c.alice, ...c.fans])[2], NumToFetch: 3 }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(profiles(r)), sortedPks([c.alice, ...c.fans]).slice(3, 6));
          assert.equal(r['NumFollowers'], FANS + 1, 'the total, whatever the page');
        },
      },
      {
        name: 'NumToFetch 0 answers only the count',
        body: (c) => ({ PublicKeyBase58Check: c.carol.pk, GetEntriesFollowingUsername: true }),
        check: (r) => assert.deepEqual(r, { PublicKeyToProfileEntry: {}, NumFollowers: FANS + 1 }),
      },
      {
        name: 'a key that follows nobody: an empty page',
        body: (c) => ({ PublicKeyBase58Check: c.dave.pk, NumToFetch: 5 }),
        check: (r) => assert.deepEqual(r, { PublicKeyToProfileEntry: {}, NumFollowers: 0 }),
      },
      {
        name: 'the public key wins over the username',
        body: (c) => ({ PublicKeyBase58Check: c.dave.pk, Username: c.names.alice, NumToFetch: 5 }),
        check: (r) => assert.equal(r['NumFollowers'], 0),
      },
      { name: 'an unknown username is a 404', body: (c) => ({ Username: `nobody${c.tag}`, NumToFetch: 5 }), error: { status: 404, re: /^GetFollowsStateless: could not find profile for username: nobody/ } },
      { name: 'neither key nor username is a 404 (no profile has the empty name)', body: () => ({ NumToFetch: 5 }), error: { status: 404, re: /^GetFollowsStateless: could not find profile for username: $/ } },
      { name: 'a bad key is refused', body: () => ({ PublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetFollowsStateless: Problem decoding user public key: / } },
      { name: 'a bad cursor key is refused', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, LastPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetFollowsStateless: Problem decoding last public key seen: / } },
      { name: 'NumToFetch over 1,000 is refused', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, NumToFetch: 1001 }), error: { re: /^GetFollowsStateless: NumToFetch is 1001; this node answers at most 1000 a page$/ } },
    ]);

    table(ctx, 'is-following-public-key', [
      { name: 'a follow', body: (c) => ({ PublicKeyBase58Check: c.alice.pk, IsFollowingPublicKeyBase58Check: c.bob.pk }), check: (r) => assert.deepEqual(r, { IsFollowing: true }) },
      { name: 'the other direction', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, IsFollowingPublicKeyBase58Check: c.alice.pk }), check: (r) => assert.deepEqual(r, { IsFollowing: false }) },
      { name: 'a self-follow', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, IsFollowingPublicKeyBase58Check: c.bob.pk }), check: (r) => assert.deepEqual(r, { IsFollowing: true }) },
      { name: 'a bad follower key is refused', body: (c) => ({ PublicKeyBase58Check: NOT_A_KEY, IsFollowingPublicKeyBase58Check: c.bob.pk }), error: { re: /^IsFollowingPublicKey: Problem decoding user public key: / } },
      { name: 'a bad followed key is refused', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, IsFollowingPublicKeyBase58Check: '' }), error: { re: /^IsFollowingPublicKey: Problem decoding public key to check: / } },
    ]);

    table(ctx, 'get-likes-for-post', [
      {
        name: 'the likers with a profile, Base58Check descending; no profile and graylisted left out',
        body: (c) => ({ PostHashHex: c.postHash, Limit: 50 }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r), ['Likers']);
          assert.deepEqual(likerKeys(r), shownLikers(c));
          const alice = (r['Likers'] as J[]).find((p) => p['PublicKeyBase58Check'] === c.alice.pk)!;
          assert.equal(alice['Username'], c.names.alice);
          assert.ok((alice['CoinEntry'] as J)['NativeLockedNanos'] > 0, 'a full ProfileEntryResponse');
        },
      },
      {
        name: 'Offset and Limit cut the page out of the shown likers',
        body: (c) => ({ PostHashHex: c.postHash, Offset: 2, Limit: 2 }),
        check: (r, c) => assert.deepEqual(likerKeys(r), shownLikers(c).slice(2, 4)),
      },
      {
        name: 'the graylisted reader sees their own like',
        body: (c) => ({ PostHashHex: c.postHash, Limit: 50, ReaderPublicKeyBase58Check: c.troll.pk }),
        check: (r, c) => assert.deepEqual(likerKeys(r), [...shownLikers(c), c.troll.pk].sort().reverse()),
      },
      { name: 'Limit 0 is an empty page', body: (c) => ({ PostHashHex: c.postHash }), check: (r) => assert.deepEqual(r, { Likers: [] }) },
      { name: 'an Offset past the end is an empty page', body: (c) => ({ PostHashHex: c.postHash, Offset: 100, Limit: 5 }), check: (r) => assert.deepEqual(r, { Likers: [] }) },
      { name: 'a post nobody likes', body: (c) => ({ PostHashHex: c.quietPost, Limit: 5 }), check: (r) => assert.deepEqual(r, { Likers: [] }) },
      { name: 'an unknown post is an empty list', body: () => ({ PostHashHex: 'cd'.repeat(32), Limit: 5 }), check: (r) => assert.deepEqual(r, { Likers: [] }) },
      { name: 'no post hash is refused', body: () => ({ Limit: 5 }), error: { re: /^GetLikesForPost: Must provide a PostHashHex to fetch\.$/ } },
      { name: 'a bad post hash is refused', body: () => ({ PostHashHex: 'xyz', Limit: 5 }), error: { re: /^GetLikesForPost: Error parsing post hash: expected 64 hex characters, got 3 characters$/ } },
      { name: 'a bad reader key is refused', body: (c) => ({ PostHashHex: c.postHash, ReaderPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetLikesForPost: Problem decoding user public key: / } },
      { name: 'Limit over 1,000 is refused', body: (c) => ({ PostHashHex: c.postHash, Limit: 5000 }), error: { re: /^GetLikesForPost: Limit is 5000; this node answers at most 1000 a page$/ } },
      { name: 'a negative Offset is refused', body: (c) => ({ PostHashHex: c.postHash, Offset: -1, Limit: 5 }), error: { re: /Offset: expected an integer from 0 to 4294967295/ } },
    ]);

    describe('what other reads show', () => {
      it('get-posts-stateless: LikeCount, and PostEntryReaderState for the reader', async () => {
        const c = ctx();
        const feed = async (reader: KeyPair | null): Promise<J> => {
          const r = await c.n.ok('get-posts-stateless', { GetPostsForGlobalWhitelist: true, NumToFetch: 10, ...(reader ? { ReaderPublicKeyBase58Check: reader.pk } : {}) });
          const post = (r['PostsFound'] as J[]).find((p) => p['PostHashHex'] === c.postHash);
          assert.ok(post, 'the post is on the global feed');
          return post;
        };
        const likes = 4 + Math.ceil(FANS / 2);
        assert.equal((await feed(null))['LikeCount'], likes, 'every like, with a profile or not');
        assert.equal((await feed(null))['PostEntryReaderState'], null);
        assert.deepEqual((await feed(c.alice))['PostEntryReaderState'], { LikedByReader: true, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
        assert.equal(((await feed(c.bob))['PostEntryReaderState'] as J)['LikedByReader'], false);
      });

      it('get-users-stateless: PublicKeysBase58CheckFollowedByUser, sorted', async () => {
        const c = ctx();
        const r = await c.n.ok('get-users-stateless', { PublicKeysBase58Check: [c.alice.pk, c.dave.pk] });
        const [alice, dave] = r['UserList'] as J[];
        assert.deepEqual(alice!['PublicKeysBase58CheckFollowedByUser'], sortedPks([c.bob, c.carol]));
        assert.deepEqual(dave!['PublicKeysBase58CheckFollowedByUser'], []);
      });
    });

    describe('rules at submission (core\'s rule errors)', () => {
      it('RuleErrorFollowingNonexistentProfile: following (or unfollowing) a key without a profile', async () => {
        const c = ctx();
        await refused(c.n, 'create-follow-txn-stateless', followBody(c.alice, c.dave), c.alice, /RuleErrorFollowingNonexistentProfile/);
        await refused(c.n, 'create-follow-txn-stateless', followBody(c.alice, c.dave, true), c.alice, /RuleErrorFollowingNonexistentProfile/);
      });
      it('RuleErrorFollowEntryAlreadyExists and RuleErrorCannotUnfollowNonexistentFollowEntry', async () => {
        const c = ctx();
        await refused(c.n, 'create-follow-txn-stateless', followBody(c.alice, c.bob), c.alice, /RuleErrorFollowEntryAlreadyExists/);
        await refused(c.n, 'create-follow-txn-stateless', followBody(c.dave, c.bob, true), c.dave, /RuleErrorCannotUnfollowNonexistentFollowEntry/);
      });
      it('RuleErrorCannotLikeNonexistentPost, RuleErrorLikeEntryAlreadyExists, RuleErrorCannotUnlikeWithoutAnExistingLike', async () => {
        const c = ctx();
        await refused(c.n, 'create-like-stateless', likeBody(c.alice, 'ef'.repeat(32)), c.alice, /RuleErrorCannotLikeNonexistentPost/);
        await refused(c.n, 'create-like-stateless', likeBody(c.alice, c.postHash), c.alice, /RuleErrorLikeEntryAlreadyExists/);
        await refused(c.n, 'create-like-stateless', likeBody(c.bob, c.postHash, true), c.bob, /RuleErrorCannotUnlikeWithoutAnExistingLike/);
      });
    });

    describe('unfollow and unlike', () => {
      it('an unfollow takes the key off both lists and the counts', async () => {
        const c = ctx();
        await mined(c.n, 'create-follow-txn-stateless', followBody(c.alice, c.bob, true), c.alice, 'identity');
        assert.deepEqual(await c.n.ok('is-following-public-key', { PublicKeyBase58Check: c.alice.pk, IsFollowingPublicKeyBase58Check: c.bob.pk }), { IsFollowing: false });
        const followers = await c.n.ok('get-follows-stateless', { PublicKeyBase58Check: c.bob.pk, GetEntriesFollowingUsername: true, NumToFetch: 10 });
        assert.deepEqual(Object.keys(profiles(followers)), sortedPks([c.bob, c.carol]));
        assert.equal(followers['NumFollowers'], 2);
        const following = await c.n.ok('get-follows-stateless', { PublicKeyBase58Check: c.alice.pk, NumToFetch: 10 });
        assert.deepEqual(Object.keys(profiles(following)), [c.carol.pk]);
      });

      it('an unlike takes the liker off the list and the count', async () => {
        const c = ctx();
        await mined(c.n, 'create-like-stateless', likeBody(c.carol, c.postHash, true), c.carol);
        const r = await c.n.ok('get-likes-for-post', { PostHashHex: c.postHash, Limit: 50 });
        assert.deepEqual(likerKeys(r), shownLikers(c).filter((pk) => pk !== c.carol.pk));
        const feed = await c.n.ok('get-posts-stateless', { GetPostsForGlobalWhitelist: true, NumToFetch: 10, ReaderPublicKeyBase58Check: c.carol.pk });
        const post = (feed['PostsFound'] as J[]).find((p) => p['PostHashHex'] === c.postHash)!;
        assert.equal(post['LikeCount'], 3 + Math.ceil(FANS / 2));
        assert.equal((post['PostEntryReaderState'] as J)['LikedByReader'], false);
      });
    });

    describe('paging walks', () => {
      it('walks carol\'s followers 2 at a time: each key once, in key order, as the last key of each page leads', async () => {
        const c = ctx();
        const seen: string[] = [];
        let last = '';
        for (let pages = 0; pages < 100; pages++) {
          const r = await c.n.ok('get-follows-stateless', { PublicKeyBase58Check: c.carol.pk, GetEntriesFollowingUsername: true, LastPublicKeyBase58Check: last, NumToFetch: 2 });
          const keys = Object.keys(profiles(r));
          assert.ok(keys.length <= 2);
          if (keys.length === 0) break;
          seen.push(...keys);
          last = keys.at(-1)!;
        }
        assert.deepEqual(seen, sortedPks([c.alice, ...c.fans]));
      });

      it('walks the likers 3 at a time by Offset: each shown liker once', async () => {
        const c = ctx();
        const seen: string[] = [];
        for (let offset = 0; offset < 100; offset += 3) {
          const page = likerKeys(await c.n.ok('get-likes-for-post', { PostHashHex: c.postHash, Offset: offset, Limit: 3 }));
          seen.push(...page);
          if (page.length < 3) break;
        }
        assert.deepEqual(seen, shownLikers(c).filter((pk) => pk !== c.carol.pk));
      });
    });
  });
}

for (const store of TEST_STORES) suite(store);
