/**
 * The global feed (spec §4.10; reference node-api.md §3, backend routes/admin_feed.go and
 * routes/post.go GetPostsStateless): admin/update-global-feed, admin/pin-post and
 * admin/remove-nil-posts, and what get-posts-stateless (global-feed form) serves after them.
 * End to end, once per store: profiles and posts are real transactions, mined; a post is
 * deleted the way this chain deletes posts (an edit that hides it); one feed entry whose post
 * record is absent is written straight into the feed index (no transaction removes a post).
 * Then `--dev-open-admin`: admin routes without credentials, audited, refused on mainnet.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { listAdminActions } from '../../server/admin/audit.js';
import { issueJwt } from '../../server/identity/jwt.js';
import { feedKeys } from '../../server/social/feed.js';
import { adminTable } from '../helpers/adminTable.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { startNodeProcess } from '../helpers/nodeProcess.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const IMAGE = 'https://images.example.com/cat.png';

const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();

interface Ctx {
  n: ChainNode;
  poster: KeyPair;
  /** Posts an image; blacklisted and blocked in the cases below. */
  artist: KeyPair;
  /** Posts, has no profile, is never on the feed. */
  reader: KeyPair;
  names: { poster: string; artist: string };
  /** p1 < p2 < p3 by the poster, p4 by the artist (with an image), r1 by the reader, `hidden` by the poster. */
  h: { p1: string; p2: string; p3: string; p4: string; r1: string; hidden: string };
}

const jwt = (c: Ctx, k: KeyPair): Promise<string> => issueJwt(c.n.deps.crypto, new Uint8Array(Buffer.from(k.seedHex, 'hex')));
const as = async (c: Ctx, k: KeyPair, body: J): Promise<J> => ({ AdminPublicKey: k.pk, JWT: await jwt(c, k), ...body });

/** Construct → sign → submit → mined; answers the final transaction hash (a new post's hash). */
async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  const signed = await n.sign(c['TransactionHex'] as string, signer, 'sdk');
  for (let attempt = 0; ; attempt++) {
    const r = await n.post('submit-transaction', { TransactionHex: signed });
    if (r.status === 200) {
      await n.waitMined(r.json['TxnHashHex'] as string);
      return r.json['TxnHashHex'] as string;
    }
    assert.ok(attempt < 20 && /retry/.test(String(r.json['error'])), `submit-transaction of ${path}: ${String(r.json['error'])}`);
    await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
  }
}

const fund = (n: ChainNode, k: KeyPair): Promise<string> => mined(n, 'send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: 0.1 * 1e9 }, n.miner);
const profile = (k: KeyPair, username: string): J => ({ UpdaterPublicKeyBase58Check: k.pk, ProfilePublicKeyBase58Check: '', NewUsername: username, NewDescription: '', NewProfilePic: '', NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500 });
const post = (n: ChainNode, k: KeyPair, body: string, images: string[] = []): Promise<string> => mined(n, 'submit-post', { UpdaterPublicKeyBase58Check: k.pk, BodyObj: { Body: body, ImageURLs: images } }, k);

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-6);
  const [poster, artist, reader] = [keyPair(), keyPair(), keyPair()];
  const names = { poster: `po${tag}`, artist: `ar${tag}` };
  await n.mineBlock();
  await n.mineBlock();
  await Promise.all([poster, artist, reader, superAdmin].map((k) => fund(n, k)));
  await Promise.all([mined(n, 'update-profile', profile(poster, names.poster), poster), mined(n, 'update-profile', profile(artist, names.artist), artist)]);
  // One at a time: a post's timestamp is taken when it is constructed.
  const p1 = await post(n, poster, 'first post');
  const p2 = await post(n, poster, 'second post');
  const p3 = await post(n, poster, 'third post, about Cats');
  const p4 = await post(n, artist, 'a picture', [IMAGE]);
  const r1 = await post(n, reader, 'the reader writes');
  const hidden = await post(n, poster, 'soon deleted');
  return { n, poster, artist, reader, names, h: { p1, p2, p3, p4, r1, hidden } };
}

/** get-posts-stateless in the global-feed form. */
const feed = async (c: Ctx, body: J = {}): Promise<J[]> => (await c.n.ok('get-posts-stateless', { GetPostsForGlobalWhitelist: true, ...body }))['PostsFound'] as J[];
const hashes = (posts: J[]): string[] => posts.map((p) => p['PostHashHex'] as string);
/** Names the posts of a page by their keys in `c.h`, for readable failures. */
const named = (c: Ctx, posts: J[]): string[] => hashes(posts).map((h) => Object.entries(c.h).find(([, v]) => v === h)?.[0] ?? h);

/** A post hash no post has. */
const ABSENT = randomBytes(32).toString('hex');

/** The post hashes (hex, sorted) the global-feed index holds. */
async function feedEntries(c: Ctx): Promise<string[]> {
  return (await c.n.deps.store.indexRange(feedKeys.global)).map((m) => m.slice(m.indexOf(':') + 1)).sort();
}

const table = adminTable<Ctx>({ superAdmin, admin, outsider, as, answers: {} });

function suite(store: 'memory' | 'redis'): void {
  describe(`global feed (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };
    before(async () => {
      c = await setup(await startChainNode({ args: ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk], store }));
    });
    after(async () => {
      await c?.n.close();
    });

    describe('get-posts-stateless before any admin action', () => {
      it('the global feed is empty: posts are served only once an admin puts them on it', async () => {
        assert.deepEqual(await feed(ctx()), []);
      });
    });

    table(
      ctx,
      'admin/update-global-feed',
      'admin',
      [
        ...(['p1', 'p2', 'p3', 'p4', 'hidden'] as const).map((k) => ({ name: `an admin puts ${k} on the global feed`, body: (c: Ctx) => as(c, admin, { PostHashHex: c.h[k] }) })),
        {
          name: 'the feed serves them newest first, each with its poster’s profile',
          body: (c) => as(c, admin, { PostHashHex: c.h.p1 }),
          check: async (_r, c) => {
            // The hidden post is on the feed until it is deleted (below).
            const posts = await feed(c);
            assert.deepEqual(named(c, posts), ['hidden', 'p4', 'p3', 'p2', 'p1']);
            const p3 = posts[2]!;
            assert.equal(p3['Body'], 'third post, about Cats');
            assert.equal(p3['PosterPublicKeyBase58Check'], c.poster.pk);
            assert.equal(p3['ProfileEntryResponse']['Username'], c.names.poster);
            assert.equal(p3['IsPinned'], false);
            assert.equal(p3['InMempool'], false, 'mined');
            assert.equal('InGlobalFeed' in p3, false, 'only with AddGlobalFeedBool');
            assert.deepEqual(posts[1]!['ImageURLs'], [IMAGE]);
          },
        },
        {
          name: 'deleting (hiding) a post takes it out of what the feed serves',
          body: (c) => as(c, admin, { PostHashHex: c.h.p1 }),
          check: async (_r, c) => {
            await mined(c.n, 'submit-post', { UpdaterPublicKeyBase58Check: c.poster.pk, PostHashHexToModify: c.h.hidden, IsHidden: true }, c.poster);
            assert.deepEqual(named(c, await feed(c)), ['p4', 'p3', 'p2', 'p1']);
          },
        },
        {
          name: 'pages by PostHashHex and NumToFetch: the next page starts after the given post',
          body: (c) => as(c, admin, { PostHashHex: c.h.p2 }),
          check: async (_r, c) => {
            const first = await feed(c, { NumToFetch: 2 });
            assert.deepEqual(named(c, first), ['p4', 'p3']);
            assert.deepEqual(named(c, await feed(c, { NumToFetch: 2, PostHashHex: first[1]!['PostHashHex'] })), ['p2', 'p1']);
            assert.deepEqual(named(c, await feed(c, { NumToFetch: 2, PostHashHex: c.h.p1 })), [], 'nothing after the oldest');
          },
        },
        {
          name: 'RemoveFromGlobalFeed takes a post off the feed',
          body: (c) => as(c, admin, { PostHashHex: c.h.p2, RemoveFromGlobalFeed: true }),
          check: async (_r, c) => {
            const posts = await feed(c, { AddGlobalFeedBool: true });
            assert.deepEqual(named(c, posts), ['p4', 'p3', 'p1']);
            assert.ok(posts.every((p) => p['InGlobalFeed'] === true), 'InGlobalFeed with AddGlobalFeedBool');
          },
        },
        { name: 'a missing PostHashHex is refused', body: (c) => as(c, admin, {}), error: { re: /^AdminUpdateGlobalFeed: Request missing PostHashHex$/ } },
        { name: 'a PostHashHex that is not a hash is refused', body: (c) => as(c, admin, { PostHashHex: 'abc' }), error: { re: /^AdminUpdateGlobalFeed: Error parsing post hash/ } },
        { name: 'a hash of no post is 404', body: (c) => as(c, admin, { PostHashHex: randomBytes(32).toString('hex') }), error: { status: 404, re: /^AdminUpdateGlobalFeed: Problem getting postEntry for post hash/ } },
      ],
      (c) => ({ PostHashHex: c.h.p1 }),
    );

    table(
      ctx,
      'admin/pin-post',
      'admin',
      [
        {
          name: 'a pinned post is served first, once, with IsPinned; later pages have no pinned posts',
          body: (c) => as(c, admin, { PostHashHex: c.h.p1 }),
          check: async (_r, c) => {
            const posts = await feed(c);
            assert.deepEqual(named(c, posts), ['p1', 'p4', 'p3']);
            assert.deepEqual(
              posts.map((p) => p['IsPinned']),
              [true, false, false],
            );
            assert.deepEqual(named(c, await feed(c, { PostHashHex: c.h.p4 })), ['p3', 'p1'], 'from the second page on the pinned post is a feed post again');
          },
        },
        {
          name: 'a post can be pinned without being on the feed; pinned posts come newest first',
          body: (c) => as(c, admin, { PostHashHex: c.h.p2 }),
          check: async (_r, c) => assert.deepEqual(named(c, await feed(c)), ['p2', 'p1', 'p4', 'p3']),
        },
        {
          name: 'UnpinPost unpins',
          body: (c) => as(c, admin, { PostHashHex: c.h.p2, UnpinPost: true }),
          check: async (_r, c) => {
            await c.n.ok('admin/pin-post', await as(c, admin, { PostHashHex: c.h.p1, UnpinPost: true }));
            assert.deepEqual(named(c, await feed(c)), ['p4', 'p3', 'p1']);
          },
        },
        { name: 'a missing PostHashHex is refused', body: (c) => as(c, admin, { UnpinPost: true }), error: { re: /^AdminPinPost: Request missing PostHashHex$/ } },
        { name: 'a hash of no post is 404', body: (c) => as(c, admin, { PostHashHex: randomBytes(32).toString('hex') }), error: { status: 404, re: /^AdminPinPost: / } },
      ],
      (c) => ({ PostHashHex: c.h.p1 }),
    );

    table(
      ctx,
      'admin/remove-nil-posts',
      'superAdmin',
      [
        {
          name: 'searches the newest NumPostsToSearch entries: the hidden (newest) post goes, an older absent one stays',
          body: async (c) => {
            // An entry whose post record is absent, older than every post: outside the newest 1.
            await c.n.deps.store.indexAdd(feedKeys.global, [`${'1'.padStart(20, '0')}:${ABSENT}`]);
            return as(c, superAdmin, { NumPostsToSearch: 1 });
          },
          check: async (_r, c) => assert.deepEqual(await feedEntries(c), [ABSENT, c.h.p1, c.h.p3, c.h.p4].sort()),
        },
        {
          name: 'by default searches 1000 entries: the absent post goes too, the others stay',
          body: (c) => as(c, superAdmin, {}),
          check: async (_r, c) => {
            assert.deepEqual(await feedEntries(c), [c.h.p1, c.h.p3, c.h.p4].sort());
            assert.deepEqual(named(c, await feed(c)), ['p4', 'p3', 'p1'], 'what the feed serves is unchanged');
          },
        },
        { name: 'a negative NumPostsToSearch is refused', body: (c) => as(c, superAdmin, { NumPostsToSearch: -1 }), error: { re: /^NumPostsToSearch: / } },
      ],
      () => ({}),
    );

    describe('get-posts-stateless', () => {
      it('a reader sees their own recent posts among the feed posts, newest first (no profile: null)', async () => {
        const c = ctx();
        const posts = await feed(c, { ReaderPublicKeyBase58Check: c.reader.pk });
        assert.deepEqual(named(c, posts), ['r1', 'p4', 'p3', 'p1']);
        assert.equal(posts[0]!['ProfileEntryResponse'], null);
      });
      it('posts of a user the reader blocked are not served to that reader', async () => {
        const c = ctx();
        await c.n.ok('block-public-key', { PublicKeyBase58Check: c.reader.pk, BlockPublicKeyBase58Check: c.artist.pk, JWT: await jwt(c, c.reader) });
        assert.deepEqual(named(c, await feed(c, { ReaderPublicKeyBase58Check: c.reader.pk })), ['r1', 'p3', 'p1']);
        assert.deepEqual(named(c, await feed(c)), ['p4', 'p3', 'p1'], 'others still see them');
      });
      it('posts of a blacklisted user are served to nobody until the blacklisting is undone', async () => {
        const c = ctx();
        const update = async (removeEverywhere: boolean): Promise<J> => c.n.ok('admin/update-user-global-metadata', await as(c, admin, { Username: c.names.artist, IsBlacklistUpdate: true, RemoveEverywhere: removeEverywhere }));
        await update(true);
        assert.deepEqual(named(c, await feed(c)), ['p3', 'p1']);
        await update(false);
        assert.deepEqual(named(c, await feed(c)), ['p4', 'p3', 'p1']);
      });
      it('MediaRequired keeps posts with an image or a video; PostContent filters bodies case-insensitively', async () => {
        const c = ctx();
        assert.deepEqual(named(c, await feed(c, { MediaRequired: true })), ['p4']);
        assert.deepEqual(named(c, await feed(c, { PostContent: 'cats' })), ['p3']);
      });
      it('OrderBy oldest reverses the page', async () => {
        const c = ctx();
        assert.deepEqual(named(c, await feed(c, { OrderBy: 'oldest' })), ['p1', 'p3', 'p4']);
      });
      const refusals: Array<[string, J, RegExp]> = [
        ['posts by coin value', { GetPostsForGlobalWhitelist: false, GetPostsByDESO: true }, /^GetPostsStateless: posts by coin value \(GetPostsByDESO\) is not supported by this node/],
        ['NumToFetch 1 without PostHashHex', { NumToFetch: 1 }, /^GetPostsStateless: Must provide PostHashHex when NumToFetch is 1$/],
        ['a PostHashHex that is not a hash', { PostHashHex: 'zz' }, /^GetPostsStateless: PostHashHex must be a post hash: 64 hex characters$/],
        ['a PostHashHex of no post', { PostHashHex: '00'.repeat(32) }, /^GetPostsStateless: PostHashHex names no post on this chain$/],
        ['an unknown OrderBy', { OrderBy: 'random' }, /^GetPostsStateless: OrderBy must be one of newest, oldest, last_comment or empty$/],
        ['NumToFetch above 200', { NumToFetch: 201 }, /^NumToFetch: /],
        ['a malformed reader key', { ReaderPublicKeyBase58Check: 'tBCnope' }, /^GetPostsStateless: Problem decoding user public key: /],
      ];
      for (const [name, body, re] of refusals) {
        it(`refuses ${name} (400)`, async () => {
          await ctx().n.fails('get-posts-stateless', { GetPostsForGlobalWhitelist: true, ...body }, re);
        });
      }
    });
  });
}

for (const store of TEST_STORES) suite(store);

describe('--dev-open-admin', () => {
  let n: ChainNode | undefined;
  const node = (): ChainNode => {
    assert.ok(n, 'the node started');
    return n;
  };
  before(async () => {
    n = await startChainNode({ args: ['--dev-open-admin', '--super-admin-public-keys', superAdmin.pk] });
  });
  after(async () => {
    await n?.close();
  });

  it('lets in admin and super-admin requests without credentials, audited as dev-open-admin', async () => {
    const n = node();
    await n.ok('admin/get-verified-users', {});
    assert.equal((await listAdminActions(n.deps.store, { route: '/admin/get-verified-users', limit: 1 }))[0]?.admin, 'dev-open-admin');
    await n.ok('admin/remove-nil-posts', { NumPostsToSearch: 5 });
    const [entry] = await listAdminActions(n.deps.store, { route: '/admin/remove-nil-posts', limit: 1 });
    assert.equal(entry?.admin, 'dev-open-admin');
    assert.deepEqual(entry?.fields, ['NumPostsToSearch']);
  });
  it('audits the claimed AdminPublicKey when one is given without a valid JWT', async () => {
    const n = node();
    const claimed = keyPair();
    await n.ok('admin/get-verified-users', { AdminPublicKey: claimed.pk, JWT: 'not-a-jwt' });
    assert.equal((await listAdminActions(n.deps.store, { route: '/admin/get-verified-users', limit: 1 }))[0]?.admin, claimed.pk);
  });
  it('still validates the request body', async () => {
    await node().fails('admin/update-global-feed', {}, /^AdminUpdateGlobalFeed: Request missing PostHashHex$/);
  });
  it('a real admin is still audited under their key', async () => {
    const n = node();
    await n.ok('admin/get-verified-users', { AdminPublicKey: superAdmin.pk, JWT: await issueJwt(n.deps.crypto, new Uint8Array(Buffer.from(superAdmin.seedHex, 'hex'))) });
    assert.equal((await listAdminActions(n.deps.store, { route: '/admin/get-verified-users', limit: 1 }))[0]?.admin, superAdmin.pk);
  });
  it('the node process warns at startup', async () => {
    const p = await startNodeProcess({ args: ['--dev-open-admin', '--miner', 'off'] });
    try {
      const line = await p.waitForLine(/dev-open-admin is set/);
      assert.match(line, /"level":40/, 'a warn line');
    } finally {
      await p.stop();
    }
  });
  it('the node process refuses it on mainnet (exit code 2, naming the flag)', async () => {
    const p = await startNodeProcess({ args: ['--dev-open-admin', '--network', 'mainnet'], noWait: true });
    assert.equal(await p.exited, 2, `exit code; output:\n${p.output.join('\n')}`);
    assert.match(p.output.join('\n'), /--dev-open-admin \(DEV_OPEN_ADMIN\) .* refused with --network mainnet/);
  });
});
