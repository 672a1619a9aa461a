/**
 * The social graph through the official SDK (issue 21 item 5), end to end on a node (once per
 * store of TEST_STORES): what a frontend built on deso-protocol 3.4.1 does, unchanged.
 *
 * `configure({nodeURI, network: 'testnet', storageProvider})` with an in-memory store (what
 * localStorage is in a browser), two users logged in with `identity.loginWithAutoDerive`, a
 * spending limit as frontends write it ('UNLIMITED' counts, a global DESO limit, the any-creator
 * creator-coin map, the DAO coin maps of the one coin traded). Every transaction of the two users
 * goes through the SDK's own high-level functions, which check the derived key's permissions
 * (get-single-derived-key), construct on the node, sign with the derived key and submit
 * (`identity.signAndSubmit`); the suite waits with `waitForTransactionFound` (get-txn) and reads
 * back with the SDK's read functions. Only the funding of the two users comes from the test's
 * miner (no SDK user holds coins before it).
 *
 * The node runs with `--miner off` and `--response-names reference` (the field names the SDK's
 * `backend-types` declare): every read right after a submit sees the mempool, as a frontend
 * does; the last block of cases mines a block and reads the same values from the chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  buyCreatorCoin,
  buyDeSoTokenMarketOrder,
  configure,
  createDeSoTokenLimitOrder,
  createDeSoTokenMarketOrder,
  createDeSoTokenMarketOrderWithFee,
  getDiamondsForPost,
  getDiamondsForUser,
  getFollowersForUser,
  getHodlersForUser,
  getIsFollowing,
  getIsHodling,
  getLikesForPost,
  getNotifications,
  getUnreadNotificationsCount,
  setNotificationMetadata,
  getPostsForUser,
  getQuoteRepostsForPost,
  getRepostsForPost,
  getSinglePost,
  getSingleProfile,
  getUsersStateless,
  identity,
  mintDeSoToken,
  sendDeso,
  sendDiamonds,
  submitPost,
  transferCreatorCoin,
  updateFollowingStatus,
  updateLikeStatus,
  updateProfile,
  waitForTransactionFound,
  type AsyncStorage,
  type GetNotificationsCountResponse,
  type PostEntryResponse,
  type TransactionMetadataResponse,
  type TransactionSpendingLimitResponseOptions,
} from 'deso-protocol';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';

// The SDK signs JWTs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const FEE_RATE = 1000;
const APP_NAME = 'sdk-social-e2e';
const NANOS = 1_000_000_000;
const COIN = 10n ** 18n;
/** DESO paid for each diamond level (the SDK's DIAMOND_LEVEL_MAP, core's DiamondLevelMap). */
const DIAMOND_NANOS: Record<number, number> = { 1: 50_000, 2: 500_000 };

/** What the SDK keeps in localStorage in a browser. */
function memoryStorage(): AsyncStorage {
  const items = new Map<string, string>();
  return {
    getItem: async (k) => items.get(k) ?? null,
    setItem: async (k, v) => void items.set(k, v),
    removeItem: async (k) => void items.delete(k),
    clear: async () => items.clear(),
  };
}

/** The limit the two users' derived keys get, as a frontend asks for it. */
function spendingLimit(daoCreator: string): TransactionSpendingLimitResponseOptions {
  return {
    GlobalDESOLimit: 2 * NANOS,
    TransactionCountLimitMap: { UPDATE_PROFILE: 'UNLIMITED', SUBMIT_POST: 'UNLIMITED', FOLLOW: 'UNLIMITED', LIKE: 'UNLIMITED', BASIC_TRANSFER: 'UNLIMITED' },
    CreatorCoinOperationLimitMap: { '': { any: 'UNLIMITED' } },
    DAOCoinOperationLimitMap: { [daoCreator]: { mint: 'UNLIMITED' } },
    // Selling the coin for DESO (the creator's ask) and buying it with DESO (the market order).
    DAOCoinLimitOrderLimitMap: { DESO: { [daoCreator]: 'UNLIMITED' }, [daoCreator]: { DESO: 'UNLIMITED' } },
  };
}

/** The hash of what the SDK submitted (submit-transaction's answer), once get-txn finds it. */
async function found(r: { submittedTransactionResponse: unknown }): Promise<string> {
  const hash = (r.submittedTransactionResponse as J | null)?.['TxnHashHex'];
  assert.equal(typeof hash, 'string', `submit-transaction answered a TxnHashHex: ${JSON.stringify(r.submittedTransactionResponse)}`);
  await waitForTransactionFound(hash as string, { timeout: 10_000 });
  return hash as string;
}

/** Makes `k` the SDK's active user, with its derived key's permissions read from the node. */
async function actAs(k: KeyPair): Promise<void> {
  await identity.setActiveUser(k.pk);
  await identity.refreshDerivedKeyPermissions();
  const user = ((await identity.snapshot()) as J)['currentUser'] as J;
  assert.equal(user['publicKey'], k.pk);
  assert.equal((user['primaryDerivedKey'] as J)['IsValid'], true, 'the derived key is valid (get-single-derived-key)');
}

const balanceOf = async (k: KeyPair): Promise<number> => {
  const r = await getUsersStateless({ PublicKeysBase58Check: [k.pk], SkipForLeaderboard: true, IncludeBalance: true });
  return r.UserList?.[0]?.BalanceNanos ?? NaN;
};

const postHashes = (posts: PostEntryResponse[] | null): string[] => (posts ?? []).map((p) => p.PostHashHex);

interface Ctx {
  n: ChainNode;
  alice: KeyPair;
  bob: KeyPair;
  names: { alice: string; bob: string };
  /** alice's three posts, oldest first. */
  posts: string[];
  /** bob's comment on posts[0], vanilla repost and quote repost of it. */
  comment: string;
  repost: string;
  quote: string;
}

/**
 * The two users, the same keys on each store's chain: the SDK takes `spendingLimitOptions` from
 * the first `configure` of a process only, and the limit names alice's DAO coin.
 */
const alice = keyPair();
const bob = keyPair();

for (const store of TEST_STORES) suite(store);

function suite(store: 'memory' | 'redis'): void {
  describe(`the social graph through the official SDK (${store} store)`, () => {
    const tag = Date.now().toString(36).slice(-6);
    const names = { alice: `sdkAlice${tag}`, bob: `sdkBob${tag}` };
    let n: ChainNode;
    const c: Ctx = { n: undefined as unknown as ChainNode, alice, bob, names, posts: [], comment: '', repost: '', quote: '' };
    const post = (i: number): string => {
      assert.ok(c.posts[i], `alice's post ${i} was made`);
      return c.posts[i]!;
    };

    before(async () => {
      n = await startChainNode({ store, args: ['--miner', 'off', '--response-names', 'reference'] });
      c.n = n;
      for (let i = 0; i < 5; i++) await n.mineBlock();
      // The one transaction no SDK user signs: the test's miner funds the two users.
      for (const k of [alice, bob]) {
        const built = await n.ok('send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: 2 * NANOS, MinFeeRateNanosPerKB: FEE_RATE });
        await n.ok('submit-transaction', { TransactionHex: await n.sign(built['TransactionHex'] as string, n.miner, 'sdk') });
      }
      await n.mineBlock();
      configure({ nodeURI: n.url, network: 'testnet', storageProvider: memoryStorage(), spendingLimitOptions: spendingLimit(alice.pk), appName: APP_NAME, MinFeeRateNanosPerKB: FEE_RATE });
    });
    after(() => n?.close());

    describe('identity.loginWithAutoDerive, twice: two users, each with an authorized derived key', () => {
      it('each login authorizes a derived key with the asked limit; the SDK holds both users and switches between them', async () => {
        for (const k of [alice, bob]) {
          const payload = (await identity.loginWithAutoDerive(k.seedHex)) as J;
          assert.equal(payload['publicKeyAdded'], k.pk);
          await actAs(k);
          const limits = ((((await identity.snapshot()) as J)['currentUser'] as J)['primaryDerivedKey'] as J)['transactionSpendingLimits'] as J;
          // The authorization itself (signed by the new key) spent its fee from the limit.
          assert.ok(limits['GlobalDESOLimit'] < 2 * NANOS && limits['GlobalDESOLimit'] > 2 * NANOS - 10_000, `GlobalDESOLimit ${limits['GlobalDESOLimit']}`);
          assert.equal(limits['TransactionCountLimitMap']['FOLLOW'], 1e9, "'UNLIMITED' is the SDK's 1e9");
          assert.equal(limits['CreatorCoinOperationLimitMap']['']['any'], 1e9);
        }
        const users = ((await identity.snapshot()) as J)['alternateUsers'] as J | null;
        assert.ok(users?.[alice.pk], 'alice is still logged in beside bob');
      });

      it('updateProfile: both take a username (read back with getSingleProfile)', async () => {
        for (const [k, username] of [[alice, names.alice], [bob, names.bob]] as const) {
          await actAs(k);
          await found(
            await updateProfile({
              UpdaterPublicKeyBase58Check: k.pk,
              ProfilePublicKeyBase58Check: '',
              NewUsername: username,
              NewDescription: `${username} on the SDK`,
              NewProfilePic: '',
              NewCreatorBasisPoints: 1000,
              NewStakeMultipleBasisPoints: 12500,
              IsHidden: false,
            }),
          );
          const { Profile } = await getSingleProfile({ Username: username });
          assert.equal(Profile?.PublicKeyBase58Check, k.pk);
          assert.equal(Profile?.Username, username);
          assert.equal(Profile?.CoinEntry?.CreatorBasisPoints, 1000);
        }
      });
    });

    describe('updateFollowingStatus → getFollowersForUser, getIsFollowing', () => {
      it('bob follows alice; alice follows bob and unfollows again', async () => {
        await actAs(bob);
        await found(await updateFollowingStatus({ FollowerPublicKeyBase58Check: bob.pk, FollowedPublicKeyBase58Check: alice.pk, IsUnfollow: false }));
        await actAs(alice);
        await found(await updateFollowingStatus({ FollowerPublicKeyBase58Check: alice.pk, FollowedPublicKeyBase58Check: bob.pk, IsUnfollow: false }));
        assert.equal((await getIsFollowing({ PublicKeyBase58Check: alice.pk, IsFollowingPublicKeyBase58Check: bob.pk })).IsFollowing, true);
        await found(await updateFollowingStatus({ FollowerPublicKeyBase58Check: alice.pk, FollowedPublicKeyBase58Check: bob.pk, IsUnfollow: true }));
      });

      it("alice's followers: bob alone, with his profile; bob's: none", async () => {
        const followers = await getFollowersForUser({ PublicKeyBase58Check: alice.pk, GetEntriesFollowingUsername: true, NumToFetch: 10 });
        assert.equal(followers.NumFollowers, 1);
        assert.deepEqual(Object.keys(followers.PublicKeyToProfileEntry), [bob.pk]);
        assert.equal(followers.PublicKeyToProfileEntry[bob.pk]?.Username, names.bob);
        const byName = await getFollowersForUser({ Username: names.bob, GetEntriesFollowingUsername: true, NumToFetch: 10 });
        assert.equal(byName.NumFollowers, 0);
        assert.deepEqual(Object.keys(byName.PublicKeyToProfileEntry ?? {}), []);
        const following = await getFollowersForUser({ PublicKeyBase58Check: bob.pk, GetEntriesFollowingUsername: false, NumToFetch: 10 });
        assert.equal(following.NumFollowers, 1);
        assert.deepEqual(Object.keys(following.PublicKeyToProfileEntry), [alice.pk]);
      });

      it('getIsFollowing: bob → alice true, alice → bob false after the unfollow', async () => {
        assert.equal((await getIsFollowing({ PublicKeyBase58Check: bob.pk, IsFollowingPublicKeyBase58Check: alice.pk })).IsFollowing, true);
        assert.equal((await getIsFollowing({ PublicKeyBase58Check: alice.pk, IsFollowingPublicKeyBase58Check: bob.pk })).IsFollowing, false);
      });
    });

    describe('submitPost → getPostsForUser', () => {
      it('alice posts three times; her posts come back newest first, two to a page', async () => {
        await actAs(alice);
        for (let i = 0; i < 3; i++) {
          c.posts.push(await found(await submitPost({ UpdaterPublicKeyBase58Check: alice.pk, BodyObj: { Body: `alice's post ${i}`, ImageURLs: [], VideoURLs: [] } })));
        }
        const first = await getPostsForUser({ PublicKeyBase58Check: alice.pk, NumToFetch: 2 });
        assert.deepEqual(postHashes(first.Posts), [post(2), post(1)]);
        assert.equal(first.LastPostHashHex, post(1));
        assert.equal(first.Posts?.[0]?.Body, "alice's post 2");
        assert.equal(first.Posts?.[0]?.PosterPublicKeyBase58Check, alice.pk);
        // As the reference: no profile (the caller asked for this poster's posts).
        assert.equal(first.Posts?.[0]?.ProfileEntryResponse ?? null, null);
        const next = await getPostsForUser({ PublicKeyBase58Check: alice.pk, NumToFetch: 2, LastPostHashHex: first.LastPostHashHex });
        assert.deepEqual(postHashes(next.Posts), [post(0)]);
        const byName = await getPostsForUser({ Username: names.alice, NumToFetch: 10 });
        assert.deepEqual(postHashes(byName.Posts), [post(2), post(1), post(0)]);
      });
    });

    describe('updateLikeStatus → getLikesForPost, getSinglePost', () => {
      it("bob likes alice's first post; alice likes and unlikes it", async () => {
        await actAs(bob);
        await found(await updateLikeStatus({ ReaderPublicKeyBase58Check: bob.pk, LikedPostHashHex: post(0), IsUnlike: false }));
        await actAs(alice);
        await found(await updateLikeStatus({ ReaderPublicKeyBase58Check: alice.pk, LikedPostHashHex: post(0), IsUnlike: false }));
        await found(await updateLikeStatus({ ReaderPublicKeyBase58Check: alice.pk, LikedPostHashHex: post(0), IsUnlike: true }));
      });

      it('getLikesForPost: bob alone, with his profile', async () => {
        const { Likers } = await getLikesForPost({ PostHashHex: post(0), Offset: 0, Limit: 10 });
        assert.deepEqual(
          (Likers ?? []).map((p) => [p.PublicKeyBase58Check, p.Username]),
          [[bob.pk, names.bob]],
        );
        const other = await getLikesForPost({ PostHashHex: post(1), Offset: 0, Limit: 10 });
        assert.deepEqual(other.Likers ?? [], []);
      });

      it('getSinglePost: LikeCount 1, LikedByReader for bob and not for alice', async () => {
        const asBob = await getSinglePost({ PostHashHex: post(0), ReaderPublicKeyBase58Check: bob.pk });
        assert.equal(asBob.PostFound?.LikeCount, 1);
        assert.equal(asBob.PostFound?.PostEntryReaderState?.LikedByReader, true);
        const asAlice = await getSinglePost({ PostHashHex: post(0), ReaderPublicKeyBase58Check: alice.pk });
        assert.equal(asAlice.PostFound?.PostEntryReaderState?.LikedByReader, false);
      });
    });

    describe('sendDiamonds → getDiamondsForPost, getDiamondsForUser, getSinglePost', () => {
      it("bob gives alice's first post one diamond, then two: alice receives each level's DESO, the second only the difference", async () => {
        await actAs(bob);
        const before = await balanceOf(alice);
        await found(await sendDiamonds({ SenderPublicKeyBase58Check: bob.pk, ReceiverPublicKeyBase58Check: alice.pk, DiamondPostHashHex: post(0), DiamondLevel: 1 }));
        assert.equal(await balanceOf(alice), before + DIAMOND_NANOS[1]!);
        await found(await sendDiamonds({ SenderPublicKeyBase58Check: bob.pk, ReceiverPublicKeyBase58Check: alice.pk, DiamondPostHashHex: post(0), DiamondLevel: 2 }));
        assert.equal(await balanceOf(alice), before + DIAMOND_NANOS[2]!);
      });

      it('a diamond not above the level given is refused at submission, with core’s rule error', async () => {
        await actAs(bob);
        await assert.rejects(
          sendDiamonds({ SenderPublicKeyBase58Check: bob.pk, ReceiverPublicKeyBase58Check: alice.pk, DiamondPostHashHex: post(0), DiamondLevel: 1 }),
          (e: unknown) => /RuleErrorCreatorCoinTransferPostAlreadyHasSufficientDiamonds/.test(JSON.stringify(e) + String((e as Error)?.message)),
        );
      });

      it('getDiamondsForPost: bob at level 2', async () => {
        const { DiamondSenders } = await getDiamondsForPost({ PostHashHex: post(0), Offset: 0, Limit: 10 });
        assert.deepEqual(
          (DiamondSenders ?? []).map((d) => [d.DiamondSenderProfile?.PublicKeyBase58Check, d.DiamondLevel]),
          [[bob.pk, 2]],
        );
      });

      it('getDiamondsForUser: alice received 2 diamonds from bob on one post; bob gave them', async () => {
        const received = await getDiamondsForUser({ PublicKeyBase58Check: alice.pk });
        assert.equal(received.TotalDiamonds, 2);
        const [summary] = received.DiamondSenderSummaryResponses ?? [];
        assert.equal(summary?.SenderPublicKeyBase58Check, bob.pk);
        assert.equal(summary?.ReceiverPublicKeyBase58Check, alice.pk);
        assert.equal(summary?.TotalDiamonds, 2);
        assert.equal(summary?.HighestDiamondLevel, 2);
        assert.deepEqual(summary?.DiamondLevelMap, { 2: 1 });
        assert.equal(summary?.ProfileEntryResponse?.Username, names.bob);
        const given = await getDiamondsForUser({ PublicKeyBase58Check: bob.pk, FetchYouDiamonded: true });
        assert.equal(given.TotalDiamonds, 2);
        assert.equal(given.DiamondSenderSummaryResponses?.[0]?.ProfileEntryResponse?.Username, names.alice);
      });

      it('getSinglePost: DiamondCount 2, DiamondLevelBestowed 2 for bob', async () => {
        const { PostFound } = await getSinglePost({ PostHashHex: post(0), ReaderPublicKeyBase58Check: bob.pk });
        assert.equal(PostFound?.DiamondCount, 2);
        assert.equal(PostFound?.PostEntryReaderState?.DiamondLevelBestowed, 2);
      });
    });

    describe('submitPost (repost, quote repost) → getRepostsForPost, getQuoteRepostsForPost, getSinglePost', () => {
      it("bob reposts alice's first post, and quotes it", async () => {
        await actAs(bob);
        c.repost = await found(await submitPost({ UpdaterPublicKeyBase58Check: bob.pk, RepostedPostHashHex: post(0), BodyObj: { Body: '', ImageURLs: [], VideoURLs: [] } }));
        c.quote = await found(await submitPost({ UpdaterPublicKeyBase58Check: bob.pk, RepostedPostHashHex: post(0), BodyObj: { Body: 'worth reading', ImageURLs: [], VideoURLs: [] } }));
      });

      it('getRepostsForPost: bob; getQuoteRepostsForPost: his quote, carrying the post it quotes', async () => {
        const { Reposters } = await getRepostsForPost({ PostHashHex: post(0), Offset: 0, Limit: 10 });
        assert.deepEqual(
          (Reposters ?? []).map((p) => [p.PublicKeyBase58Check, p.Username]),
          [[bob.pk, names.bob]],
        );
        const { QuoteReposts } = await getQuoteRepostsForPost({ PostHashHex: post(0), Offset: 0, Limit: 10 });
        assert.deepEqual(postHashes(QuoteReposts), [c.quote]);
        assert.equal(QuoteReposts?.[0]?.Body, 'worth reading');
        assert.equal(QuoteReposts?.[0]?.RepostedPostEntryResponse?.PostHashHex, post(0));
      });

      it('getSinglePost: RepostCount 1, QuoteRepostCount 1; for bob RepostedByReader and his repost’s hash', async () => {
        const { PostFound } = await getSinglePost({ PostHashHex: post(0), ReaderPublicKeyBase58Check: bob.pk });
        assert.equal(PostFound?.RepostCount, 1);
        assert.equal(PostFound?.QuoteRepostCount, 1);
        assert.equal(PostFound?.PostEntryReaderState?.RepostedByReader, true);
        assert.equal(PostFound?.PostEntryReaderState?.RepostPostHashHex, c.repost);
      });

      it("getPostsForUser: bob's reposts, newest first", async () => {
        const { Posts } = await getPostsForUser({ PublicKeyBase58Check: bob.pk, NumToFetch: 10 });
        assert.deepEqual(postHashes(Posts), [c.quote, c.repost]);
        assert.equal(Posts?.[1]?.RepostedPostEntryResponse?.PostHashHex, post(0));
      });
    });

    describe('submitPost (comment) → getSinglePost', () => {
      it("bob comments on alice's first post; alice answers him", async () => {
        await actAs(bob);
        c.comment = await found(await submitPost({ UpdaterPublicKeyBase58Check: bob.pk, ParentStakeID: post(0), BodyObj: { Body: 'nice post', ImageURLs: [], VideoURLs: [] } }));
        await actAs(alice);
        await found(await submitPost({ UpdaterPublicKeyBase58Check: alice.pk, ParentStakeID: c.comment, BodyObj: { Body: 'thanks bob', ImageURLs: [], VideoURLs: [] } }));
      });

      it('getSinglePost: CommentCount 2 (as core counts a comment on its parent and grandparent), the comment with its author and its own reply', async () => {
        const { PostFound } = await getSinglePost({ PostHashHex: post(0), CommentLimit: 10, ThreadLevelLimit: 2, ThreadLeafLimit: -1 });
        assert.equal(PostFound?.CommentCount, 2);
        const [comment] = PostFound?.Comments ?? [];
        assert.equal(comment?.PostHashHex, c.comment);
        assert.equal(comment?.Body, 'nice post');
        assert.equal(comment?.ParentStakeID, post(0));
        assert.equal(comment?.ProfileEntryResponse?.Username, names.bob);
        assert.equal(comment?.CommentCount, 1);
        assert.deepEqual((comment?.Comments ?? []).map((r) => r.Body), ['thanks bob']);
        const { PostFound: ofComment } = await getSinglePost({ PostHashHex: c.comment, FetchParents: true });
        assert.deepEqual(postHashes(ofComment?.ParentPosts ?? null), [post(0)]);
      });

      it("getPostsForUser: bob's comment is no top-level post of his", async () => {
        const { Posts } = await getPostsForUser({ PublicKeyBase58Check: bob.pk, NumToFetch: 10 });
        assert.ok(!postHashes(Posts).includes(c.comment));
      });
    });

    describe('buyCreatorCoin, transferCreatorCoin → getHodlersForUser, getIsHodling', () => {
      let bought = 0;
      it("bob buys alice's creator coin and sends half of it to alice", async () => {
        await actAs(bob);
        await found(await buyCreatorCoin({ UpdaterPublicKeyBase58Check: bob.pk, CreatorPublicKeyBase58Check: alice.pk, DeSoToSellNanos: 100_000_000 }));
        const holding = await getIsHodling({ PublicKeyBase58Check: bob.pk, IsHodlingPublicKeyBase58Check: alice.pk });
        assert.equal(holding.IsHodling, true);
        bought = holding.BalanceEntry?.BalanceNanos ?? 0;
        assert.ok(bought > 0, 'bob holds what he bought');
        // The founder's reward is paid in DESO (core since the DeSo founder-reward fork): alice holds none of her coin yet.
        assert.equal((await getIsHodling({ PublicKeyBase58Check: alice.pk, IsHodlingPublicKeyBase58Check: alice.pk })).IsHodling, false);
        const half = Math.floor(bought / 2);
        await found(await transferCreatorCoin({ SenderPublicKeyBase58Check: bob.pk, CreatorPublicKeyBase58Check: alice.pk, ReceiverUsernameOrPublicKeyBase58Check: alice.pk, CreatorCoinToTransferNanos: half }));
        const bobAfter = await getIsHodling({ PublicKeyBase58Check: bob.pk, IsHodlingPublicKeyBase58Check: alice.pk });
        assert.equal(bobAfter.BalanceEntry?.BalanceNanos, bought - half);
        const aliceAfter = await getIsHodling({ PublicKeyBase58Check: alice.pk, IsHodlingPublicKeyBase58Check: alice.pk });
        assert.equal(aliceAfter.IsHodling, true);
        assert.equal(aliceAfter.BalanceEntry?.BalanceNanos, half);
        assert.equal(aliceAfter.BalanceEntry?.HasPurchased, false, 'received, not bought');
      });

      it("getHodlersForUser: alice's coin held by alice (the creator first) and bob; the profile counts 2 holders", async () => {
        const { Hodlers } = await getHodlersForUser({ PublicKeyBase58Check: alice.pk, NumToFetch: 10 });
        assert.deepEqual(
          (Hodlers ?? []).map((h) => [h.HODLerPublicKeyBase58Check, h.CreatorPublicKeyBase58Check, h.ProfileEntryResponse?.Username]),
          [
            [alice.pk, alice.pk, names.alice],
            [bob.pk, alice.pk, names.bob],
          ],
        );
        assert.deepEqual(
          (Hodlers ?? []).map((h) => [h.BalanceNanos, h.HasPurchased]),
          [
            [Math.floor(bought / 2), false],
            [bought - Math.floor(bought / 2), true],
          ],
        );
        const { Hodlers: holdings } = await getHodlersForUser({ PublicKeyBase58Check: bob.pk, FetchHodlings: true, NumToFetch: 10 });
        assert.deepEqual(
          (holdings ?? []).map((h) => h.CreatorPublicKeyBase58Check),
          [alice.pk],
        );
        const { Profile } = await getSingleProfile({ PublicKeyBase58Check: alice.pk });
        assert.equal(Profile?.CoinEntry?.NumberOfHolders, 2);
        assert.ok((Profile?.CoinEntry?.DeSoLockedNanos ?? 0) > 0, 'DeSoLockedNanos (the reference name) carries the coin’s reserve');
      });

      it('getIsHodling: alice holds none of bob’s coin', async () => {
        const r = await getIsHodling({ PublicKeyBase58Check: alice.pk, IsHodlingPublicKeyBase58Check: bob.pk });
        assert.equal(r.IsHodling, false);
        assert.equal(r.BalanceEntry, null);
      });
    });

    describe('mintDeSoToken, createDeSoTokenLimitOrder, createDeSoTokenMarketOrder → getHodlersForUser (IsDAOCoin), getIsHodling', () => {
      it('alice mints 1,000 of her DAO coin and asks 0.001 DESO each for 100; bob buys 10 at market', async () => {
        await actAs(alice);
        await found(await mintDeSoToken({ UpdaterPublicKeyBase58Check: alice.pk, ProfilePublicKeyBase58CheckOrUsername: alice.pk, CoinsToMintNanos: `0x${(1000n * COIN).toString(16)}` }));
        await found(
          await createDeSoTokenLimitOrder({
            TransactorPublicKeyBase58Check: alice.pk,
            BuyingDAOCoinCreatorPublicKeyBase58Check: '',
            SellingDAOCoinCreatorPublicKeyBase58Check: alice.pk,
            Price: '0.001',
            Quantity: '100',
            OperationType: 'ASK',
            FillType: 'GOOD_TILL_CANCELLED',
          }),
        );
        const aliceBefore = await balanceOf(alice);
        await actAs(bob);
        const r = await createDeSoTokenMarketOrder({
          TransactorPublicKeyBase58Check: bob.pk,
          BuyingDAOCoinCreatorPublicKeyBase58Check: alice.pk,
          SellingDAOCoinCreatorPublicKeyBase58Check: 'DESO',
          Quantity: '10',
          OperationType: 'BID',
          FillType: 'IMMEDIATE_OR_CANCEL',
        });
        await found(r);
        assert.deepEqual((r.constructedTransactionResponse as unknown as J)['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '10.0', SellingCoinQuantityFilled: '0.01' });
        assert.equal(await balanceOf(alice), aliceBefore + 10_000_000, 'alice is paid 10 × 0.001 DESO');
      });

      it('buyDeSoTokenMarketOrder names DESO "" for the coin sold, which the reference refuses for market orders; so does this node', async () => {
        await actAs(bob);
        await assert.rejects(
          buyDeSoTokenMarketOrder({ TransactorPublicKeyBase58Check: bob.pk, BuyingDAOCoinCreatorPublicKeyBase58Check: alice.pk, Quantity: '1', FillType: 'IMMEDIATE_OR_CANCEL' }),
          (e: unknown) => /^CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: Invalid SellingDAOCoinCreatorPublicKeyBase58Check/.test(String((e as Error)?.message)),
        );
      });

      it("getHodlersForUser (IsDAOCoin): alice 990, bob 10 of alice's DAO coin", async () => {
        const { Hodlers } = await getHodlersForUser({ PublicKeyBase58Check: alice.pk, IsDAOCoin: true, NumToFetch: 10 });
        assert.deepEqual(
          (Hodlers ?? []).map((h) => [h.HODLerPublicKeyBase58Check, h.CreatorPublicKeyBase58Check, BigInt(h.BalanceNanosUint256)]),
          [
            [alice.pk, alice.pk, 990n * COIN],
            [bob.pk, alice.pk, 10n * COIN],
          ],
        );
        const bobHolds = await getIsHodling({ PublicKeyBase58Check: bob.pk, IsHodlingPublicKeyBase58Check: alice.pk, IsDAOCoin: true });
        assert.equal(bobHolds.IsHodling, true);
        assert.equal(BigInt(bobHolds.BalanceEntry?.BalanceNanosUint256 ?? '0x0'), 10n * COIN);
        const { Profile } = await getSingleProfile({ PublicKeyBase58Check: alice.pk });
        // The SDK types it number[]; the reference answers the uint256 as a hex string, as this node does.
        assert.equal(BigInt((Profile?.DAOCoinEntry?.CoinsInCirculationNanos as unknown as string | undefined) ?? '0x0'), 1000n * COIN);
      });

      it('createDeSoTokenMarketOrderWithFee: an atomic transaction whose inner order the derived key signs (signAndSubmitAtomic → submit-atomic-transaction)', async () => {
        await actAs(bob);
        const aliceBefore = await balanceOf(alice);
        // The SDK's permission guard asks for a 1,000 DESO limit ("there is no way to calculate how much we are spending"): off.
        const r = await createDeSoTokenMarketOrderWithFee(
          {
            TransactorPublicKeyBase58Check: bob.pk,
            QuoteCurrencyPublicKeyBase58Check: 'DESO',
            BaseCurrencyPublicKeyBase58Check: alice.pk,
            OperationType: 'BID',
            FillType: 'IMMEDIATE_OR_CANCEL',
            Price: '0',
            PriceCurrencyType: 'quote',
            Quantity: '5',
            QuantityCurrencyType: 'base',
          } as Parameters<typeof createDeSoTokenMarketOrderWithFee>[0],
          { checkPermissions: false },
        );
        const constructed = r.constructedTransactionResponse as unknown as J;
        assert.equal((constructed['InnerTransactionHexes'] as string[]).length, 1);
        assert.equal(constructed['ExecutionReceiveAmount'], '5.0');
        await found(r);
        assert.equal(await balanceOf(alice), aliceBefore + 5_000_000, 'alice is paid 5 × 0.001 DESO');
        const bobHolds = await getIsHodling({ PublicKeyBase58Check: bob.pk, IsHodlingPublicKeyBase58Check: alice.pk, IsDAOCoin: true });
        assert.equal(BigInt(bobHolds.BalanceEntry?.BalanceNanosUint256 ?? '0x0'), 15n * COIN);
      });
    });

    describe('sendDeso → getUsersStateless', () => {
      it('alice sends bob 0.0123 DESO: bob’s balance goes up by exactly that', async () => {
        await actAs(alice);
        const before = await balanceOf(bob);
        await found(await sendDeso({ SenderPublicKeyBase58Check: alice.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 12_300_000 }));
        assert.equal(await balanceOf(bob), before + 12_300_000);
      });
    });

    describe('getNotifications, getUnreadNotificationsCount, setNotificationMetadata: each user hears of what the other did', () => {
      const who = (pk: string): string => (pk === alice.pk ? 'alice' : pk === bob.pk ? 'bob' : pk === n.miner.pk ? 'miner' : pk);
      const meta = (x: TransactionMetadataResponse): J => x.Metadata as unknown as J;
      const list = (r: { Notifications: TransactionMetadataResponse[] | null }): string[][] =>
        (r.Notifications ?? []).map((x) => [meta(x)['TxnType'] as string, who(meta(x)['TransactorPublicKeyBase58Check'] as string)]);
      /** alice's, newest first: everything bob did to her, and the miner's funding. */
      const ALICE = [
        ['DAO_COIN_LIMIT_ORDER', 'bob'],
        ['CREATOR_COIN_TRANSFER', 'bob'],
        ['CREATOR_COIN', 'bob'],
        ['SUBMIT_POST', 'bob'],
        ['SUBMIT_POST', 'bob'],
        ['SUBMIT_POST', 'bob'],
        ['BASIC_TRANSFER', 'bob'],
        ['BASIC_TRANSFER', 'bob'],
        ['LIKE', 'bob'],
        ['FOLLOW', 'bob'],
        ['BASIC_TRANSFER', 'miner'],
      ];
      let newest = 0;

      it("alice's: bob's follow, like, two diamonds, repost, quote, comment, coin buy and transfer and the market order that filled her ask, newest first", async () => {
        const r = await getNotifications({ PublicKeyBase58Check: alice.pk, FetchStartIndex: -1, NumToFetch: 50 });
        assert.deepEqual(list(r), ALICE);
        const [fill, transfer, buy, comment, quote, repost, diamond2, diamond1, like, follow] = (r.Notifications ?? []).map(meta);
        assert.deepEqual(fill!['AffectedPublicKeys'], [
          { PublicKeyBase58Check: alice.pk, Metadata: 'BuyingDAOCoinCreatorPublicKey' },
          { PublicKeyBase58Check: alice.pk, Metadata: 'FilledOrderPublicKey' },
        ]);
        assert.equal(transfer!['CreatorCoinTransferTxindexMetadata']['CreatorUsername'], names.alice);
        assert.equal(buy!['CreatorCoinTxindexMetadata']['OperationType'], 'buy');
        assert.equal(buy!['CreatorCoinTxindexMetadata']['DeSoToSellNanos'], 100_000_000, 'the reference name, under --response-names reference');
        assert.deepEqual(comment!['SubmitPostTxindexMetadata'], { PostHashBeingModifiedHex: c.comment, ParentPostHashHex: post(0) });
        assert.deepEqual(
          [quote, repost].map((x) => [x!['SubmitPostTxindexMetadata']['PostHashBeingModifiedHex'], x!['AffectedPublicKeys'][0]['Metadata']]),
          [
            [c.quote, 'RepostedPublicKeyBase58Check'],
            [c.repost, 'RepostedPublicKeyBase58Check'],
          ],
        );
        assert.deepEqual(
          [diamond2, diamond1].map((x) => [x!['BasicTransferTxindexMetadata']['DiamondLevel'], x!['BasicTransferTxindexMetadata']['PostHashHex']]),
          [
            [2, post(0)],
            [1, post(0)],
          ],
        );
        assert.deepEqual(like!['LikeTxindexMetadata'], { IsUnlike: false, PostHashHex: post(0) });
        assert.deepEqual(follow!['FollowTxindexMetadata'], { IsUnfollow: false });
        assert.equal(r.ProfilesByPublicKey[bob.pk]?.Username, names.bob);
        assert.equal(r.PostsByHash[post(0)]?.Body, "alice's post 0");
        newest = (r.Notifications ?? [])[0]!.Index;
        assert.equal(r.LastSeenIndex, newest, 'FetchStartIndex -1: the newest Index');
      });

      it("bob's: alice's follow (not her unfollow), her reply to his comment and her transfer", async () => {
        const r = await getNotifications({ PublicKeyBase58Check: bob.pk, FetchStartIndex: -1, NumToFetch: 50 });
        assert.deepEqual(list(r), [
          ['BASIC_TRANSFER', 'alice'],
          ['SUBMIT_POST', 'alice'],
          ['FOLLOW', 'alice'],
          ['BASIC_TRANSFER', 'miner'],
        ]);
        const [transfer, reply] = (r.Notifications ?? []).map(meta);
        assert.deepEqual(transfer!['TxnOutputs'].map((o: J) => o['AmountNanos']), [12_300_000]);
        assert.equal(reply!['SubmitPostTxindexMetadata']['ParentPostHashHex'], c.comment);
      });

      it('pages (FetchStartIndex: the last Index − 1) and category filters', async () => {
        const first = await getNotifications({ PublicKeyBase58Check: alice.pk, FetchStartIndex: -1, NumToFetch: 4 });
        const last = (first.Notifications ?? []).at(-1)!.Index;
        const second = await getNotifications({ PublicKeyBase58Check: alice.pk, FetchStartIndex: last - 1, NumToFetch: 4 });
        assert.deepEqual([...list(first), ...list(second)], ALICE.slice(0, 8));
        assert.equal(second.LastSeenIndex, -1, 'only a page from the newest says which is newest');
        const filtered = await getNotifications({ PublicKeyBase58Check: alice.pk, FetchStartIndex: -1, NumToFetch: 50, FilteredOutNotificationCategories: { like: true, diamond: true } });
        assert.deepEqual(
          list(filtered),
          ALICE.filter((_, i) => i !== 6 && i !== 7 && i !== 8),
        );
      });

      it("the unread count, written back with alice's derived-key JWT, and a new like counted", async () => {
        const count = async (): Promise<GetNotificationsCountResponse> => (await getUnreadNotificationsCount({ PublicKeyBase58Check: alice.pk })) as unknown as GetNotificationsCountResponse;
        assert.deepEqual(await count(), { NotificationsCount: ALICE.length, LastUnreadNotificationIndex: newest, UpdateMetadata: true });
        await actAs(alice);
        await setNotificationMetadata({ PublicKeyBase58Check: alice.pk, LastSeenIndex: newest, LastUnreadNotificationIndex: newest, UnreadNotifications: 0 });
        assert.deepEqual(await count(), { NotificationsCount: 0, LastUnreadNotificationIndex: newest, UpdateMetadata: false });
        await actAs(bob);
        await found(await updateLikeStatus({ ReaderPublicKeyBase58Check: bob.pk, LikedPostHashHex: post(1), IsUnlike: false }));
        const after = await count();
        assert.equal(after.NotificationsCount, 1);
        assert.ok(after.LastUnreadNotificationIndex > newest);
        assert.equal(after.UpdateMetadata, true);
      });

      it("setNotificationMetadata with bob's derived-key JWT for alice's key: 403 (his key is not hers), nothing written", async () => {
        await actAs(bob);
        await assert.rejects(
          setNotificationMetadata({ PublicKeyBase58Check: alice.pk, LastSeenIndex: newest + 1_000, LastUnreadNotificationIndex: 0, UnreadNotifications: 99 }),
          (e: unknown) => (e as { status?: number }).status === 403 && /^SetNotificationMetadata: Error validating JWT: Derived key is not authorized$/.test(String((e as Error).message)),
        );
        const r = (await getUnreadNotificationsCount({ PublicKeyBase58Check: alice.pk })) as unknown as GetNotificationsCountResponse;
        assert.equal(r.NotificationsCount, 1);
      });
    });

    describe('mined: after a block, the chain answers what the mempool did', () => {
      it('counters and lists read the same from the block', async () => {
        const pending = await getSinglePost({ PostHashHex: post(0), ReaderPublicKeyBase58Check: bob.pk });
        const hodlers = await getHodlersForUser({ PublicKeyBase58Check: alice.pk, IsDAOCoin: true, NumToFetch: 10 });
        await n.mineBlock();
        await n.waitMined(c.comment);
        const mined = await getSinglePost({ PostHashHex: post(0), ReaderPublicKeyBase58Check: bob.pk });
        for (const field of ['LikeCount', 'DiamondCount', 'RepostCount', 'QuoteRepostCount', 'CommentCount'] as const) {
          assert.equal(mined.PostFound?.[field], pending.PostFound?.[field], field);
        }
        assert.deepEqual(mined.PostFound?.PostEntryReaderState, pending.PostFound?.PostEntryReaderState);
        const balances = (r: typeof hodlers): string[][] => (r.Hodlers ?? []).map((h) => [h.HODLerPublicKeyBase58Check, h.BalanceNanosUint256]);
        assert.deepEqual(balances(await getHodlersForUser({ PublicKeyBase58Check: alice.pk, IsDAOCoin: true, NumToFetch: 10 })), balances(hodlers));
        assert.equal((await getFollowersForUser({ PublicKeyBase58Check: alice.pk, GetEntriesFollowingUsername: true, NumToFetch: 10 })).NumFollowers, 1);
      });
    });
  });
}
