/**
 * The hot feed end to end (issue 21 SDK gap; reference routes/hot_feed.go), once per store: posts,
 * a comment, a repost and likes submitted and mined over HTTP, the rankings refreshed by the
 * node's job (`deps.hotFeed.refresh()`, what its timer runs every 30 s), then read and tuned
 * through the seven routes. One describe per route, success rows and refusals; the admin
 * routes with the credential refusals every admin route has (test/helpers/adminTable.ts).
 *
 * The cast: four posters with little coin (alice, bob, erin, the graylisted troll) and two
 * rich likers (carol, dave), so the ranking is set by the likes:
 * alice's post (carol and dave like it) > the troll's (carol) > bob's (dave) > erin's (none).
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { adminTable } from '../helpers/adminTable.js';
import { keyPair, profileBody, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { routeTable } from '../helpers/routeTable.js';
import { adminBody, sdkJwt as jwt } from '../helpers/adminBody.js';

// The SDK signs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 1e9;
const NOT_A_KEY = 'tBCnotAPublicKeyButMaybeASecret0000000000000000000000';

const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();

interface Ctx {
  n: ChainNode;
  alice: KeyPair;
  bob: KeyPair;
  erin: KeyPair;
  troll: KeyPair;
  carol: KeyPair;
  dave: KeyPair;
  aliceName: string;
  /** Post hashes. */
  p: { alice: string; bob: string; erin: string; troll: string; comment: string; repost: string };
}

async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  return (await n.submit(c['TransactionHex'] as string, signer, 'sdk'))['TxnHashHex'] as string;
}
const submitPost = (n: ChainNode, k: KeyPair, text: string, extra: J = {}): Promise<string> => mined(n, 'submit-post', { UpdaterPublicKeyBase58Check: k.pk, BodyObj: { Body: text }, ...extra }, k);
const like = (n: ChainNode, k: KeyPair, postHash: string): Promise<string> => mined(n, 'create-like-stateless', { ReaderPublicKeyBase58Check: k.pk, LikedPostHashHex: postHash, IsUnlike: false }, k);

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-5);
  const [alice, bob, erin, troll, carol, dave] = [keyPair(), keyPair(), keyPair(), keyPair(), keyPair(), keyPair()];
  await n.fund(carol.pk, 1.2 * COIN);
  for (const k of [alice, bob, erin, troll]) await n.fund(k.pk, 0.02 * COIN);
  await n.fund(dave.pk, 0.5 * COIN);
  const aliceName = `ali${tag}`;
  await mined(n, 'update-profile', profileBody(alice.pk, aliceName), alice);
  // One post per block, so SortByNew has an order to show.
  const p = {
    alice: await submitPost(n, alice, 'gm #GM hot takes'),
    bob: await submitPost(n, bob, 'gm #gm from bob'),
    erin: await submitPost(n, erin, 'quiet'),
    troll: await submitPost(n, troll, 'bait'),
    comment: '',
    repost: '',
  };
  p.comment = await submitPost(n, dave, 'nice', { ParentStakeID: p.alice });
  p.repost = await submitPost(n, carol, '', { RepostedPostHashHex: p.alice });
  for (const [k, post] of [[carol, p.alice], [dave, p.alice], [carol, p.troll], [dave, p.bob]] as const) await like(n, k, post);
  await n.ok('admin/update-user-global-metadata', await adminBody(admin, { UserPublicKeyBase58Check: troll.pk, IsBlacklistUpdate: true, RemoveFromLeaderboard: true }));
  await n.deps.hotFeed!.refresh();
  return { n, alice, bob, erin, troll, carol, dave, aliceName, p };
}

const hashes = (r: J): string[] => (r['HotFeedPage'] as J[]).map((e) => e['PostHashHex'] as string);
const scores = (r: J): number[] => (r['HotFeedPage'] as J[]).map((e) => e['HotnessScore'] as number);
const feed = (c: Ctx, body: J = {}): Promise<J> => c.n.ok('get-hot-feed', body);
const unfiltered = async (c: Ctx, body: J = {}): Promise<J> => c.n.ok('admin/get-unfiltered-hot-feed', await adminBody(admin, body));
const refresh = (c: Ctx): Promise<number> => c.n.deps.hotFeed!.refresh();
/** Ranked order of the public feed, as the cast is built. */
const ranked = (c: Ctx): string[] => [c.p.alice, c.p.bob, c.p.erin];

const table = routeTable<Ctx>((message) => assert.ok(!message.includes(NOT_A_KEY), 'the error does not echo what was sent as a key'));
const admins = adminTable<Ctx>({ superAdmin, admin, outsider, as: (_c, k, body) => adminBody(k, body) });

function suite(store: 'memory' | 'redis'): void {
  describe(`hot feed (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };
    before(async () => {
      c = await setup(await startChainNode({ store, args: ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk] }));
    });
    after(async () => {
      await c?.n.close();
    });

    table(ctx, 'get-hot-feed', [
      {
        name: 'top-level posts of the window by score: no comment, no repost, not the graylisted author; each with its profile and score',
        body: () => ({}),
        check: (r, c) => {
          assert.deepEqual(hashes(r), ranked(c));
          const s = scores(r);
          assert.ok(s[0]! > s[1]! && s[1]! > s[2]! && s[2]! > 0, `scores fall: ${s}`);
          const [top] = r['HotFeedPage'] as J[];
          assert.equal(top!['ProfileEntryResponse']['Username'], c.aliceName);
          assert.equal(top!['LikeCount'], 2);
          assert.equal(top!['IsPinned'], false);
          assert.equal(top!['PostMultiplier'], undefined, 'multipliers are for admins');
        },
      },
      {
        name: 'SeenPosts are left out and the page goes further down (any case)',
        body: (c) => ({ SeenPosts: [c.p.alice.toUpperCase(), 'not a hash'] }),
        check: (r, c) => assert.deepEqual(hashes(r), ranked(c).slice(1)),
      },
      {
        name: 'ResponseLimit bounds the page',
        body: () => ({ ResponseLimit: 2 }),
        check: (r, c) => assert.deepEqual(hashes(r), ranked(c).slice(0, 2)),
      },
      {
        name: 'a reader gets its PostEntryReaderState',
        body: (c) => ({ ReaderPublicKeyBase58Check: c.dave.pk }),
        check: (r) => assert.deepEqual((r['HotFeedPage'] as J[]).map((e) => e['PostEntryReaderState']['LikedByReader']), [true, true, false]),
      },
      {
        name: 'a reader does not see the authors it blocked',
        body: async (c) => {
          await c.n.ok('block-public-key', { PublicKeyBase58Check: c.carol.pk, BlockPublicKeyBase58Check: c.bob.pk, JWT: await jwt(c.carol) });
          return { ReaderPublicKeyBase58Check: c.carol.pk };
        },
        check: async (r, c) => {
          assert.deepEqual(hashes(r), [c.p.alice, c.p.erin]);
          await c.n.ok('block-public-key', { PublicKeyBase58Check: c.carol.pk, BlockPublicKeyBase58Check: c.bob.pk, Unblock: true, JWT: await jwt(c.carol) });
        },
      },
      {
        name: 'a tag’s ranking (any case): the posts whose body has #gm, hottest first',
        body: () => ({ Tag: '#GM' }),
        check: (r, c) => assert.deepEqual(hashes(r), [c.p.alice, c.p.bob]),
      },
      {
        name: 'SortByNew: a tag’s posts newest block first',
        body: () => ({ Tag: '#gm', SortByNew: true }),
        check: (r, c) => assert.deepEqual(hashes(r), [c.p.bob, c.p.alice]),
      },
      {
        name: 'an unknown tag, or one longer than any tag kept (100 bytes), has an empty page',
        body: () => ({ Tag: '#nothing' }),
        check: async (r, c) => {
          assert.deepEqual(r, { HotFeedPage: [] });
          assert.deepEqual(await feed(c, { Tag: `#${'é'.repeat(99)}` }), { HotFeedPage: [] });
        },
      },
      {
        name: 'a pinned post comes first without SeenPosts (score 0), and is not repeated below',
        body: async (c) => {
          await c.n.ok('admin/pin-post', await adminBody(admin, { PostHashHex: c.p.bob }));
          return {};
        },
        check: async (r, c) => {
          assert.deepEqual(hashes(r), [c.p.bob, c.p.alice, c.p.erin]);
          assert.deepEqual((r['HotFeedPage'] as J[]).map((e) => e['IsPinned']), [true, false, false]);
          assert.equal(scores(r)[0], 0);
          assert.deepEqual(hashes(await feed(c, { SeenPosts: [c.p.erin] })), [c.p.alice], 'with SeenPosts: no pinned post on top');
          await c.n.ok('admin/pin-post', await adminBody(admin, { PostHashHex: c.p.bob, UnpinPost: true }));
        },
      },
      { name: 'a bad reader key is refused', body: () => ({ ReaderPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^HandleHotFeedPageRequest: Problem decoding reader public key/ } },
      { name: 'ResponseLimit above 200 is refused', body: () => ({ ResponseLimit: 201 }), error: { re: /ResponseLimit: expected an integer from 0 to 200/ } },
      { name: 'SeenPosts must be a list of strings', body: () => ({ SeenPosts: 'abc' }), error: { re: /SeenPosts: expected an array/ } },
      { name: 'more than 5000 SeenPosts are refused', body: () => ({ SeenPosts: Array.from({ length: 5001 }, () => 'x') }), error: { re: /SeenPosts: expected at most 5000 items/ } },
    ]);

    admins(
      ctx,
      'admin/get-unfiltered-hot-feed',
      'admin',
      [
        {
          name: 'the whole ranking, the graylisted author included, each post with its multiplier',
          body: () => adminBody(admin, {}),
          check: (r, c) => {
            assert.deepEqual(hashes(r), [c.p.alice, c.p.troll, c.p.bob, c.p.erin]);
            assert.deepEqual((r['HotFeedPage'] as J[]).map((e) => e['PostMultiplier']), [1, 1, 1, 1]);
          },
        },
        { name: 'a bad reader key is refused', body: () => adminBody(admin, { ReaderPublicKeyBase58Check: NOT_A_KEY }), error: { re: /Problem decoding reader public key/ } },
      ],
      () => ({}),
    );

    admins(
      ctx,
      'admin/get-hot-feed-algorithm',
      'superAdmin',
      [
        {
          name: 'the defaults until set (the reference’s constants)',
          body: () => adminBody(superAdmin, {}),
          check: (r) => assert.deepEqual(r, { InteractionCap: 4e12, InteractionCapTag: 4e12, TimeDecayBlocks: 43_200, TimeDecayBlocksTag: 43_200, TxnTypeMultiplierMap: {} }),
        },
      ],
      () => ({}),
    );

    admins(
      ctx,
      'admin/update-hot-feed-algorithm',
      'superAdmin',
      [
        {
          name: 'TimeDecayBlocks 1: two blocks later every score is a quarter; 0 leaves a value; the get reads it back',
          body: () => adminBody(superAdmin, { TimeDecayBlocks: 1, TxnTypeMultiplierMap: { '10': 20_000 } }),
          check: async (r, c) => {
            assert.deepEqual(r, { InteractionCap: 4e12, InteractionCapTag: 4e12, TimeDecayBlocks: 1, TimeDecayBlocksTag: 43_200, TxnTypeMultiplierMap: { '10': 20_000 } });
            assert.deepEqual(await c.n.ok('admin/get-hot-feed-algorithm', await adminBody(superAdmin, {})), r);
            await refresh(c);
            const before = scores(await feed(c));
            await c.n.mineBlock();
            await c.n.mineBlock();
            await refresh(c);
            const later = scores(await feed(c));
            before.forEach((s, i) => assert.ok(Math.abs(later[i]! - s / 4) <= 4, `${later[i]} is a quarter of ${s}`));
            await c.n.ok('admin/update-hot-feed-algorithm', await adminBody(superAdmin, { TimeDecayBlocks: 43_200, TxnTypeMultiplierMap: { '10': 10_000 } }));
            await refresh(c);
          },
        },
        {
          name: 'likes weighed 3×: a post’s likes count three times',
          body: () => adminBody(superAdmin, { TxnTypeMultiplierMap: { '10': 30_000 } }),
          check: async (r, c) => {
            const erinBefore = scores(await feed(c, { SeenPosts: [c.p.alice, c.p.bob] }))[0]!;
            const bobBefore = scores(await feed(c, { SeenPosts: [c.p.alice] }))[0]!;
            await refresh(c);
            const bobAfter = scores(await feed(c, { SeenPosts: [c.p.alice] }))[0]!;
            // bob's post scores its creation score (about erin's: both posters hold what is left of
            // 0.02 coin after the same fees) plus dave's like (0.5 coin), which now counts 3×.
            const like = bobBefore - erinBefore;
            assert.ok(like > 0.49 * COIN && Math.abs(bobAfter - bobBefore - 2 * like) < 1e-4 * like, `bob's like counts 3×: ${bobBefore} → ${bobAfter}`);
            await c.n.ok('admin/update-hot-feed-algorithm', await adminBody(superAdmin, { TxnTypeMultiplierMap: { '10': 10_000 } }));
            await refresh(c);
          },
        },
        { name: 'a negative value is refused', body: () => adminBody(superAdmin, { InteractionCap: -1 }), error: { re: /^InteractionCap: expected an integer from 0/ } },
        { name: 'a map key that is no transaction type is refused', body: () => adminBody(superAdmin, { TxnTypeMultiplierMap: { '99': 1 } }), error: { re: /TxnTypeMultiplierMap: "99" is not a transaction type number/ } },
        { name: 'a weight above 1000× is refused', body: () => adminBody(superAdmin, { TxnTypeMultiplierMap: { '10': 10_000_001 } }), error: { re: /TxnTypeMultiplierMap\.10: expected an integer from 0 to 10000000/ } },
      ],
      () => ({ TimeDecayBlocks: 43_200 }),
    );

    admins(
      ctx,
      'admin/update-hot-feed-post-multiplier',
      'superAdmin',
      [
        {
          name: 'a multiplier of 20 weighs the post’s likes 20×: bob’s post goes to the top; the unfiltered page shows it',
          body: (c) => adminBody(superAdmin, { PostHashHex: c.p.bob, Multiplier: 20 }),
          check: async (r, c) => {
            assert.deepEqual(r, {});
            await refresh(c);
            assert.deepEqual(hashes(await feed(c)), [c.p.bob, c.p.alice, c.p.erin]);
            const u = await unfiltered(c);
            assert.equal((u['HotFeedPage'] as J[]).find((e) => e['PostHashHex'] === c.p.bob)!['PostMultiplier'], 20);
            await c.n.ok('admin/update-hot-feed-post-multiplier', await adminBody(superAdmin, { PostHashHex: c.p.bob, Multiplier: 1 }));
            await refresh(c);
            assert.deepEqual(hashes(await feed(c)), ranked(c));
          },
        },
        { name: 'a negative multiplier is refused', body: (c) => adminBody(superAdmin, { PostHashHex: c.p.bob, Multiplier: -1 }), error: { re: /^Multiplier: expected a number from 0 to 1000/ } },
        { name: 'a multiplier above 1000 is refused', body: (c) => adminBody(superAdmin, { PostHashHex: c.p.bob, Multiplier: 1001 }), error: { re: /^Multiplier: expected a number from 0 to 1000/ } },
        { name: 'a multiplier must be given', body: (c) => adminBody(superAdmin, { PostHashHex: c.p.bob }), error: { re: /^Multiplier: is required/ } },
        { name: 'a post hash must be given', body: () => adminBody(superAdmin, { Multiplier: 2 }), error: { re: /Request missing PostHashHex/ } },
        { name: 'a post hash is 64 hex characters', body: () => adminBody(superAdmin, { PostHashHex: 'xyz', Multiplier: 2 }), error: { re: /PostHashHex must be 64 hex characters/ } },
        { name: 'an unknown post is 404', body: () => adminBody(superAdmin, { PostHashHex: 'ab'.repeat(32), Multiplier: 2 }), error: { status: 404, re: /no post with this PostHashHex/ } },
      ],
      (c) => ({ PostHashHex: c.p.bob, Multiplier: 1 }),
    );

    admins(
      ctx,
      'admin/get-hot-feed-user-multiplier',
      'superAdmin',
      [
        { name: '1 and 1 until set', body: (c) => adminBody(superAdmin, { Username: c.aliceName }), check: (r) => assert.deepEqual(r, { InteractionMultiplier: 1, PostsMultiplier: 1 }) },
        { name: 'a public key names the user too', body: (c) => adminBody(superAdmin, { Username: c.bob.pk }), check: (r) => assert.deepEqual(r, { InteractionMultiplier: 1, PostsMultiplier: 1 }) },
        { name: 'a username must be given', body: () => adminBody(superAdmin, {}), error: { re: /^AdminGetHotFeedUserMultiplier: Must provide a valid username/ } },
        { name: 'an unknown username is refused', body: () => adminBody(superAdmin, { Username: 'nobody_here_x' }), error: { re: /Profile with username nobody_here_x does not exist/ } },
        { name: 'a bad public key is refused without echoing it', body: () => adminBody(superAdmin, { Username: NOT_A_KEY }), error: { re: /Problem decoding public key Username/ } },
      ],
      (c) => ({ Username: c.aliceName }),
    );

    admins(
      ctx,
      'admin/update-hot-feed-user-multiplier',
      'superAdmin',
      [
        {
          name: 'PostsMultiplier 0 sinks the user’s posts; a negative InteractionMultiplier stays as it is; the get reads both',
          body: (c) => adminBody(superAdmin, { Username: c.aliceName, InteractionMultiplier: -1, PostsMultiplier: 0 }),
          check: async (r, c) => {
            assert.deepEqual(r, { InteractionMultiplier: 1, PostsMultiplier: 0 });
            assert.deepEqual(await c.n.ok('admin/get-hot-feed-user-multiplier', await adminBody(superAdmin, { Username: c.aliceName })), r);
            await refresh(c);
            const page = await feed(c);
            assert.deepEqual(hashes(page), [c.p.bob, c.p.erin, c.p.alice]);
            assert.equal(scores(page)[2], 0);
            await c.n.ok('admin/update-hot-feed-user-multiplier', await adminBody(superAdmin, { Username: c.aliceName, PostsMultiplier: 1 }));
            await refresh(c);
          },
        },
        {
          name: 'InteractionMultiplier 10 weighs the user’s likes 10×: dave’s like lifts bob’s post over the troll’s in the unfiltered page',
          body: (c) => adminBody(superAdmin, { Username: c.dave.pk, InteractionMultiplier: 10 }),
          check: async (r, c) => {
            assert.deepEqual(r, { InteractionMultiplier: 10, PostsMultiplier: 1 });
            await refresh(c);
            assert.deepEqual(hashes(await unfiltered(c)), [c.p.alice, c.p.bob, c.p.troll, c.p.erin]);
            await c.n.ok('admin/update-hot-feed-user-multiplier', await adminBody(superAdmin, { Username: c.dave.pk, InteractionMultiplier: 1 }));
            await refresh(c);
          },
        },
        { name: 'a multiplier above 1000 is refused', body: (c) => adminBody(superAdmin, { Username: c.aliceName, PostsMultiplier: 1001 }), error: { re: /^PostsMultiplier: expected a number from -1 to 1000/ } },
        { name: 'a multiplier must be a number', body: (c) => adminBody(superAdmin, { Username: c.aliceName, InteractionMultiplier: '2' }), error: { re: /^InteractionMultiplier: expected a number/ } },
        { name: 'an unknown username is refused', body: () => adminBody(superAdmin, { Username: 'nobody_here_x', PostsMultiplier: 2 }), error: { re: /Profile with username nobody_here_x does not exist/ } },
      ],
      (c) => ({ Username: c.aliceName, PostsMultiplier: 1 }),
    );
  });
}

for (const store of TEST_STORES) suite(store);
