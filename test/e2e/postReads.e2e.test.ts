/**
 * Post reads end to end (issue 21 item 4; reference social-graph.md §5): get-single-post,
 * get-posts-for-public-key, get-posts-stateless in its plain recent form, get-posts-hashhexlist,
 * get-reposts-for-post and get-quote-reposts-for-post, with the counters (CommentCount, RepostCount,
 * QuoteRepostCount) and PostEntryReaderState they show. Once per store: profiles, posts,
 * comments, reposts and quote reposts are real transactions, mined one at a time (a post's
 * timestamp is taken when it is constructed, so creation order is time order). Blocks and
 * moderation are node-local; the cases write them straight into the store and undo them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setBlocked, updateUserMetadata } from '../../server/social/userMetadata.js';
import { keyPair, profileBody, TEST_STORES, type ChainNode, type J, type KeyPair, suiteNode } from '../helpers/chainNode.js';
import { routeTable } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const IMAGE = 'https://images.example.com/cat.png';
/** A post hash no post has. */
const ABSENT = randomBytes(32).toString('hex');

interface Ctx {
  n: ChainNode;
  /** alice, bob, carol and eve have profiles; dave has none; reader only reads. */
  k: Record<'alice' | 'bob' | 'carol' | 'dave' | 'eve' | 'reader', KeyPair>;
  names: Record<'alice' | 'bob' | 'carol' | 'eve', string>;
  /**
   * In creation order: a1 (alice), a2 (alice, image), b1 (bob); comments on a1 by bob (cBob),
   * alice (cAlice), carol (cCarol); alice's reply to cBob (reply); vanilla reposts of a1 by bob
   * (rBob), carol (rCarol), dave (rDave) and eve (rEve, then hidden); alice's vanilla repost of
   * b1 (aRepost); carol's two quote reposts of a1 (q1, q2).
   */
  h: Record<'a1' | 'a2' | 'b1' | 'cBob' | 'cAlice' | 'cCarol' | 'reply' | 'rBob' | 'rCarol' | 'rDave' | 'rEve' | 'aRepost' | 'q1' | 'q2', string>;
}

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

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-6);
  const k = { alice: keyPair(), bob: keyPair(), carol: keyPair(), dave: keyPair(), eve: keyPair(), reader: keyPair() };
  const names = { alice: `al${tag}`, bob: `bo${tag}`, carol: `ca${tag}`, eve: `ev${tag}` };
  for (const key of Object.values(k)) await n.fund(key.pk, 0.1 * 1e9);
  for (const who of ['alice', 'bob', 'carol', 'eve'] as const) await mined(n, 'update-profile', { ...profileBody(k[who].pk, names[who]), ...FEE }, k[who]);
  const post = (who: KeyPair, fields: J): Promise<string> => mined(n, 'submit-post', { UpdaterPublicKeyBase58Check: who.pk, ...fields }, who);
  const text = (body: string, images: string[] = []): J => ({ BodyObj: { Body: body, ImageURLs: images } });
  const a1 = await post(k.alice, text('alice one'));
  const a2 = await post(k.alice, text('alice two, a picture', [IMAGE]));
  const b1 = await post(k.bob, text('bob one'));
  const cBob = await post(k.bob, { ...text('bob comments'), ParentStakeID: a1 });
  const cAlice = await post(k.alice, { ...text('alice answers herself'), ParentStakeID: a1 });
  const cCarol = await post(k.carol, { ...text('carol comments'), ParentStakeID: a1 });
  const reply = await post(k.alice, { ...text('alice replies to bob'), ParentStakeID: cBob });
  const repost = (who: KeyPair, of: string): Promise<string> => post(who, { RepostedPostHashHex: of, BodyObj: {} });
  const rBob = await repost(k.bob, a1);
  const rCarol = await repost(k.carol, a1);
  const rDave = await repost(k.dave, a1);
  const rEve = await repost(k.eve, a1);
  await post(k.eve, { PostHashHexToModify: rEve, RepostedPostHashHex: a1, IsHidden: true });
  const aRepost = await repost(k.alice, b1);
  const q1 = await post(k.carol, { ...text('carol quotes'), RepostedPostHashHex: a1 });
  const q2 = await post(k.carol, { ...text('carol quotes again'), RepostedPostHashHex: a1 });
  return { n, k, names, h: { a1, a2, b1, cBob, cAlice, cCarol, reply, rBob, rCarol, rDave, rEve, aRepost, q1, q2 } };
}

const hashes = (posts: J[] | null): string[] => (posts ?? []).map((p) => p['PostHashHex'] as string);
/** Names the posts by their keys in `c.h`, for readable failures. */
const named = (c: Ctx, posts: J[] | null): string[] => hashes(posts).map((h) => Object.entries(c.h).find(([, v]) => v === h)?.[0] ?? h);

const table = routeTable<Ctx>((message) => assert.doesNotMatch(message, /[0-9a-f]{64}/, 'no 64-hex input echoed'));

function suite(store: 'memory' | 'redis'): void {
  describe(`post reads (${store} store)`, () => {
    const ctx = suiteNode(store, setup);

    table(ctx, 'get-single-post', [
      {
        name: 'a post with its profile, counters and reader state; no comments unless asked, no parents unless asked',
        body: (c) => ({ PostHashHex: c.h.a1 }),
        check: (r, c) => {
          const p = r['PostFound'];
          assert.equal(p['PostHashHex'], c.h.a1);
          assert.equal(p['Body'], 'alice one');
          assert.equal(p['ProfileEntryResponse']['Username'], c.names.alice);
          assert.equal(p['CommentCount'], 4, 'three comments and a reply (a reply counts on its grandparent)');
          assert.equal(p['RepostCount'], 3, 'bob, carol and dave; eve hid hers');
          assert.equal(p['QuoteRepostCount'], 2);
          assert.deepEqual(p['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
          assert.equal(p['Comments'], null, 'CommentLimit 0');
          assert.deepEqual(p['ParentPosts'], []);
          assert.equal(p['InMempool'], false);
          assert.equal('InGlobalFeed' in p, false, 'only with AddGlobalFeedBool');
        },
      },
      {
        name: 'comments: the author’s own first, then the newest first, each with its profile',
        body: (c) => ({ PostHashHex: c.h.a1, CommentLimit: 10, AddGlobalFeedBool: true }),
        check: (r, c) => {
          const comments = r['PostFound']['Comments'] as J[];
          assert.deepEqual(named(c, comments), ['cAlice', 'cCarol', 'cBob']);
          assert.equal(comments[1]!['ProfileEntryResponse']['Username'], c.names.carol);
          assert.equal(comments[2]!['Comments'], null, 'ThreadLevelLimit 0: no replies');
          assert.equal(comments[2]!['CommentCount'], 1);
          assert.equal(comments[0]!['InGlobalFeed'], false);
          assert.equal(r['PostFound']['InGlobalFeed'], false);
        },
      },
      {
        name: 'CommentOffset and CommentLimit page the top-level comments',
        body: (c) => ({ PostHashHex: c.h.a1, CommentOffset: 1, CommentLimit: 1 }),
        check: (r, c) => assert.deepEqual(named(c, r['PostFound']['Comments']), ['cCarol']),
      },
      {
        name: 'an offset past the comments answers no comments (null)',
        body: (c) => ({ PostHashHex: c.h.a1, CommentOffset: 3, CommentLimit: 5 }),
        check: (r) => assert.equal(r['PostFound']['Comments'], null),
      },
      {
        name: 'ThreadLevelLimit 1 with ThreadLeafLimit -1 loads the replies',
        body: (c) => ({ PostHashHex: c.h.a1, CommentLimit: 10, ThreadLevelLimit: 1, ThreadLeafLimit: -1 }),
        check: (r, c) => {
          const comments = r['PostFound']['Comments'] as J[];
          assert.deepEqual(named(c, comments[2]!['Comments']), ['reply']);
          assert.equal(comments[0]!['Comments'], null, 'no replies there');
        },
      },
      {
        name: 'ThreadLeafLimit 0 keeps no replies; LoadAuthorThread follows the author’s own comments past ThreadLevelLimit',
        body: (c) => ({ PostHashHex: c.h.a1, CommentLimit: 10, ThreadLevelLimit: 1, ThreadLeafLimit: 0 }),
        check: async (r, c) => {
          assert.equal((r['PostFound']['Comments'] as J[])[2]!['Comments'], null);
          const thread = await c.n.ok('get-single-post', { PostHashHex: c.h.cBob, CommentLimit: 10, LoadAuthorThread: true, ThreadLeafLimit: -1 });
          assert.deepEqual(named(c, thread['PostFound']['Comments']), ['reply']);
        },
      },
      {
        name: 'FetchParents gives the thread, root first, each with its profile',
        body: (c) => ({ PostHashHex: c.h.reply, FetchParents: true }),
        check: (r, c) => {
          const parents = r['PostFound']['ParentPosts'] as J[];
          assert.deepEqual(named(c, parents), ['a1', 'cBob']);
          assert.equal(parents[1]!['ProfileEntryResponse']['Username'], c.names.bob);
          assert.equal(r['PostFound']['ParentStakeID'], c.h.cBob);
        },
      },
      {
        name: 'the reader state names the reader’s repost, hidden or not',
        body: (c) => ({ PostHashHex: c.h.a1, ReaderPublicKeyBase58Check: c.k.bob.pk }),
        check: async (r, c) => {
          assert.deepEqual(r['PostFound']['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: true, RepostPostHashHex: c.h.rBob });
          const eve = await c.n.ok('get-single-post', { PostHashHex: c.h.a1, ReaderPublicKeyBase58Check: c.k.eve.pk });
          assert.deepEqual(eve['PostFound']['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: c.h.rEve });
        },
      },
      {
        name: 'a vanilla repost embeds the reposted post with its profile and reader state',
        body: (c) => ({ PostHashHex: c.h.rBob, ReaderPublicKeyBase58Check: c.k.carol.pk }),
        check: (r, c) => {
          const reposted = r['PostFound']['RepostedPostEntryResponse'];
          assert.equal(reposted['PostHashHex'], c.h.a1);
          assert.equal(reposted['ProfileEntryResponse']['Username'], c.names.alice);
          assert.deepEqual(reposted['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: true, RepostPostHashHex: c.h.rCarol });
          assert.equal(r['PostFound']['Body'], '');
        },
      },
      {
        name: 'comments by someone the reader blocked are left out for that reader',
        body: async (c) => {
          await setBlocked(c.n.deps.store, c.k.reader.pk33, c.k.carol.pk33, false);
          return { PostHashHex: c.h.a1, CommentLimit: 10, ReaderPublicKeyBase58Check: c.k.reader.pk };
        },
        check: async (r, c) => {
          await setBlocked(c.n.deps.store, c.k.reader.pk33, c.k.carol.pk33, true);
          assert.deepEqual(named(c, r['PostFound']['Comments']), ['cAlice', 'cBob']);
        },
      },
      {
        name: 'comments by someone the post’s author blocked are left out for everyone (spec §4.4)',
        body: async (c) => {
          await setBlocked(c.n.deps.store, c.k.alice.pk33, c.k.bob.pk33, false);
          return { PostHashHex: c.h.a1, CommentLimit: 10 };
        },
        check: async (r, c) => {
          await setBlocked(c.n.deps.store, c.k.alice.pk33, c.k.bob.pk33, true);
          assert.deepEqual(named(c, r['PostFound']['Comments']), ['cAlice', 'cCarol']);
        },
      },
      { name: 'refuses a missing PostHashHex', body: () => ({ PostHashHex: '' }), error: { re: /^GetSinglePost: Must provide a PostHashHex to fetch\.$/ } },
      { name: 'refuses a PostHashHex that is not a hash', body: () => ({ PostHashHex: 'abc' }), error: { re: /^GetSinglePost: Error parsing post hash: expected 64 hex characters$/ } },
      { name: 'refuses a post that does not exist', body: () => ({ PostHashHex: ABSENT }), error: { re: /^GetSinglePost: Could not find postEntry for PostHashHex$/ } },
      { name: 'refuses a malformed reader key', body: (c) => ({ PostHashHex: c.h.a1, ReaderPublicKeyBase58Check: 'tBCnope' }), error: { re: /^GetSinglePost: Problem decoding user public key: / } },
      { name: 'refuses a CommentOffset above 10000', body: (c) => ({ PostHashHex: c.h.a1, CommentOffset: 10_001 }), error: { re: /^CommentOffset: / } },
      { name: 'refuses a ThreadLeafLimit that is not an int32', body: (c) => ({ PostHashHex: c.h.a1, ThreadLeafLimit: 2 ** 31 }), error: { re: /^ThreadLeafLimit: / } },
      {
        name: 'refuses a post of a blacklisted author (but not to that author)',
        body: async (c) => {
          await updateUserMetadata(c.n.deps.store, c.k.bob.pk33, (m) => ({ ...m, removeEverywhere: true }));
          const own = await c.n.ok('get-single-post', { PostHashHex: c.h.b1, ReaderPublicKeyBase58Check: c.k.bob.pk });
          assert.equal(own['PostFound']['PostHashHex'], c.h.b1);
          return { PostHashHex: c.h.b1 };
        },
        error: { re: /^GetSinglePost: The poster public key for this post is restricted\.$/ },
      },
    ]);

    describe('after the blacklisting above', () => {
      it('is undone', async () => {
        await updateUserMetadata(ctx().n.deps.store, ctx().k.bob.pk33, (m) => ({ ...m, removeEverywhere: false }));
        assert.equal((await ctx().n.ok('get-single-post', { PostHashHex: ctx().h.b1 }))['PostFound']['PostHashHex'], ctx().h.b1);
      });
    });

    table(ctx, 'get-posts-for-public-key', [
      {
        name: 'a user’s top-level posts newest first, vanilla reposts included, comments not; no profile; InGlobalFeed set',
        body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk, NumToFetch: 10 }),
        check: (r, c) => {
          const posts = r['Posts'] as J[];
          assert.deepEqual(named(c, posts), ['aRepost', 'a2', 'a1']);
          assert.equal(r['LastPostHashHex'], c.h.a1);
          assert.equal(posts[1]!['ProfileEntryResponse'], null, 'as the reference: the caller knows whose posts these are');
          assert.equal(posts[1]!['PostEntryReaderState'], null, 'no reader');
          assert.equal(posts[1]!['InGlobalFeed'], false);
          assert.deepEqual(posts[1]!['ImageURLs'], [IMAGE]);
          assert.equal(posts[0]!['RepostedPostEntryResponse']['PostHashHex'], c.h.b1);
          assert.equal(posts[0]!['RepostedPostEntryResponse']['ProfileEntryResponse']['Username'], c.names.bob);
        },
      },
      {
        name: 'pages by LastPostHashHex and NumToFetch',
        body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk, NumToFetch: 2 }),
        check: async (r, c) => {
          assert.deepEqual(named(c, r['Posts']), ['aRepost', 'a2']);
          assert.equal(r['LastPostHashHex'], c.h.a2);
          const next = await c.n.ok('get-posts-for-public-key', { PublicKeyBase58Check: c.k.alice.pk, NumToFetch: 2, LastPostHashHex: c.h.a2 });
          assert.deepEqual(named(c, next['Posts']), ['a1']);
          const end = await c.n.ok('get-posts-for-public-key', { PublicKeyBase58Check: c.k.alice.pk, NumToFetch: 2, LastPostHashHex: c.h.a1 });
          assert.deepEqual(end, { Posts: null, LastPostHashHex: '' });
        },
      },
      {
        name: 'by Username, with MediaRequired and a reader',
        body: (c) => ({ Username: c.names.alice.toUpperCase(), NumToFetch: 10, MediaRequired: true, ReaderPublicKeyBase58Check: c.k.reader.pk }),
        check: (r, c) => {
          assert.deepEqual(named(c, r['Posts']), ['a2']);
          assert.deepEqual(r['Posts'][0]['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
        },
      },
      { name: 'NumToFetch 0 answers no posts (null)', body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk }), check: (r) => assert.deepEqual(r, { Posts: null, LastPostHashHex: '' }) },
      { name: 'OnlyNFTs answers no posts: none is an NFT', body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk, NumToFetch: 5, OnlyNFTs: true }), check: (r) => assert.equal(r['Posts'], null) },
      { name: 'a user without posts has none', body: (c) => ({ PublicKeyBase58Check: c.k.reader.pk, NumToFetch: 5 }), check: (r) => assert.deepEqual(r, { Posts: null, LastPostHashHex: '' }) },
      { name: 'refuses an unknown username (404)', body: () => ({ Username: 'nobody_here', NumToFetch: 1 }), error: { status: 404, re: /^GetPostsForPublicKey: could not find profile for username: nobody_here$/ } },
      { name: 'refuses OnlyNFTs with OnlyPosts', body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk, OnlyNFTs: true, OnlyPosts: true }), error: { re: /^GetPostsForPublicKey: OnlyNFTs and OnlyPosts can not be enabled both$/ } },
      { name: 'refuses a LastPostHashHex of no post', body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk, NumToFetch: 1, LastPostHashHex: ABSENT }), error: { re: /^GetPostsForPublicKey: Problem getting paginated posts: .*Invalid start post hash$/ } },
      { name: 'refuses a malformed key', body: () => ({ PublicKeyBase58Check: 'tBCnope', NumToFetch: 1 }), error: { re: /^GetPostsForPublicKey: Problem decoding user public key: / } },
      { name: 'refuses a malformed reader key', body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk, ReaderPublicKeyBase58Check: 'x' }), error: { re: /^GetPostsForPublicKey: Problem decoding reader public key: / } },
      { name: 'refuses NumToFetch above 200', body: (c) => ({ PublicKeyBase58Check: c.k.alice.pk, NumToFetch: 201 }), error: { re: /^NumToFetch: / } },
    ]);

    table(ctx, 'get-posts-stateless', [
      {
        name: 'no feed flag: every recent top-level post newest first, quote reposts included, vanilla reposts and comments not',
        body: () => ({}),
        check: (r, c) => {
          const posts = r['PostsFound'] as J[];
          assert.deepEqual(named(c, posts), ['q2', 'q1', 'b1', 'a2', 'a1']);
          assert.equal(posts[2]!['ProfileEntryResponse']['Username'], c.names.bob);
          assert.equal(posts[2]!['PostEntryReaderState'], null, 'no reader');
          assert.equal(posts[0]!['RepostedPostEntryResponse']['PostHashHex'], c.h.a1);
          assert.equal(posts[0]!['IsPinned'], false);
          assert.equal(posts[0]!['Comments'], null);
        },
      },
      {
        name: 'pages after PostHashHex; MediaRequired; PostContent',
        body: (c) => ({ PostHashHex: c.h.q1, NumToFetch: 2, ReaderPublicKeyBase58Check: c.k.reader.pk }),
        check: async (r, c) => {
          assert.deepEqual(named(c, r['PostsFound']), ['b1', 'a2']);
          assert.deepEqual(r['PostsFound'][0]['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
          assert.deepEqual(named(c, (await c.n.ok('get-posts-stateless', { MediaRequired: true }))['PostsFound']), ['a2']);
          assert.deepEqual(named(c, (await c.n.ok('get-posts-stateless', { PostContent: 'QUOTES' }))['PostsFound']), ['q2', 'q1']);
        },
      },
      {
        name: 'graylisted authors are left out (not for themselves), and so are authors the reader blocked',
        body: async (c) => {
          await updateUserMetadata(c.n.deps.store, c.k.carol.pk33, (m) => ({ ...m, removeFromLeaderboard: true }));
          await setBlocked(c.n.deps.store, c.k.reader.pk33, c.k.bob.pk33, false);
          return { ReaderPublicKeyBase58Check: c.k.reader.pk };
        },
        check: async (r, c) => {
          const own = await c.n.ok('get-posts-stateless', { ReaderPublicKeyBase58Check: c.k.carol.pk });
          await updateUserMetadata(c.n.deps.store, c.k.carol.pk33, (m) => ({ ...m, removeFromLeaderboard: false }));
          await setBlocked(c.n.deps.store, c.k.reader.pk33, c.k.bob.pk33, true);
          assert.deepEqual(named(c, r['PostsFound']), ['a2', 'a1']);
          assert.deepEqual(named(c, own['PostsFound']), ['q2', 'q1', 'b1', 'a2', 'a1']);
        },
      },
      { name: 'the follow feed of a reader who follows nobody is empty', body: (c) => ({ GetPostsForFollowFeed: true, ReaderPublicKeyBase58Check: c.k.reader.pk }), check: (r) => assert.deepEqual(r['PostsFound'], []) },
      { name: 'refuses a PostHashHex of no post', body: () => ({ PostHashHex: ABSENT }), error: { re: /^GetPostsStateless: PostHashHex names no post on this chain$/ } },
      { name: 'refuses OnlyNFTs with OnlyPosts', body: () => ({ OnlyNFTs: true, OnlyPosts: true }), error: { re: /^GetPostsStateless: OnlyNFTs and OnlyPosts can not be enabled both$/ } },
    ]);

    table(ctx, 'get-posts-hashhexlist', [
      {
        name: 'the named posts in the list’s order, each with its poster’s profile; an unknown hash is skipped with why',
        body: (c) => ({ PostsHashHexList: [c.h.b1, ABSENT, c.h.a1, c.h.cCarol] }),
        check: (r, c) => {
          assert.deepEqual(named(c, r['PostsFound']), ['b1', 'a1', 'cCarol']);
          assert.deepEqual(r['PostsFound'].map((p: J) => p['ProfileEntryResponse']['Username']), [c.names.bob, c.names.alice, c.names.carol]);
          assert.equal(r['PostsFound'][1]['CommentCount'], 4);
          assert.equal(r['PostsFound'][1]['PostEntryReaderState'], null, 'no reader, no reader state');
          assert.deepEqual(r['PostsSkipped'], [{ PostHashHex: ABSENT, Error: 'GetPostsHashHexList: Post not found' }]);
        },
      },
      {
        name: 'OrderBy newest and oldest sort by timestamp; a reader gets the reader state; a repost carries its original',
        body: (c) => ({ PostsHashHexList: [c.h.a2, c.h.rBob, c.h.a1], OrderBy: 'newest', ReaderPublicKeyBase58Check: c.k.reader.pk }),
        check: async (r, c) => {
          assert.deepEqual(named(c, r['PostsFound']), ['rBob', 'a2', 'a1']);
          assert.equal(r['PostsFound'][0]['RepostedPostEntryResponse']['PostHashHex'], c.h.a1);
          assert.deepEqual(r['PostsFound'][2]['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
          assert.deepEqual(r['PostsSkipped'], []);
          const oldest = await c.n.ok('get-posts-hashhexlist', { PostsHashHexList: [c.h.a2, c.h.rBob, c.h.a1], OrderBy: 'oldest' });
          assert.deepEqual(named(c, oldest['PostsFound']), ['a1', 'a2', 'rBob']);
        },
      },
      {
        name: 'authors the reader blocked, and blacklisted authors, are skipped',
        // setBlocked's last argument is `unblock`.
        body: async (c) => {
          await setBlocked(c.n.deps.store, c.k.reader.pk33, c.k.bob.pk33, false);
          await updateUserMetadata(c.n.deps.store, c.k.carol.pk33, (m) => ({ ...m, removeEverywhere: true }));
          return { PostsHashHexList: [c.h.b1, c.h.q2, c.h.a1], ReaderPublicKeyBase58Check: c.k.reader.pk };
        },
        check: async (r, c) => {
          await setBlocked(c.n.deps.store, c.k.reader.pk33, c.k.bob.pk33, true);
          await updateUserMetadata(c.n.deps.store, c.k.carol.pk33, (m) => ({ ...m, removeEverywhere: false }));
          assert.deepEqual(named(c, r['PostsFound']), ['a1']);
          assert.deepEqual(r['PostsSkipped'], [
            { PostHashHex: c.h.b1, Error: 'GetPostsHashHexList: Creator is blocked on this node' },
            { PostHashHex: c.h.q2, Error: 'GetPostsHashHexList: Creator is blocked on this node' },
          ]);
        },
      },
      {
        name: 'OnlyNFTs skips every post (no post is an NFT on this chain)',
        body: (c) => ({ PostsHashHexList: [c.h.a1], OnlyNFTs: true }),
        check: (r, c) => assert.deepEqual(r, { PostsFound: [], PostsSkipped: [{ PostHashHex: c.h.a1, Error: 'GetPostsHashHexList: OnlyNFTs is enabled, post is not an NFT' }] }),
      },
      { name: 'refuses an empty list', body: () => ({ PostsHashHexList: [] }), error: { re: /^GetPostsHashHexList: PostsHashHexList is empty$/ } },
      { name: 'refuses more than 50 hashes', body: () => ({ PostsHashHexList: Array.from({ length: 51 }, () => ABSENT) }), error: { re: /^PostsHashHexList: .*50/ } },
      { name: 'refuses a hash that is not 64 hex, naming its place', body: (c) => ({ PostsHashHexList: [c.h.a1, 'nope'] }), error: { re: /^GetPostsHashHexList: invalid post hash hex provided at PostsHashHexList\[1\]: expected 64 hex characters$/ } },
      { name: 'refuses an OrderBy other than newest or oldest', body: (c) => ({ PostsHashHexList: [c.h.a1], OrderBy: 'hottest' }), error: { re: /^GetPostsHashHexList: OrderBy can be only empty, newest or oldest$/ } },
      { name: 'refuses OnlyNFTs with OnlyPosts', body: (c) => ({ PostsHashHexList: [c.h.a1], OnlyNFTs: true, OnlyPosts: true }), error: { re: /OnlyNFTs and OnlyPosts can not be enabled both$/ } },
      { name: 'refuses a malformed reader key', body: (c) => ({ PostsHashHexList: [c.h.a1], ReaderPublicKeyBase58Check: 'tBCnope' }), error: { re: /^GetPostsHashHexList: Problem decoding reader public key: / } },
    ]);

    table(ctx, 'get-reposts-for-post', [
      {
        name: 'the profiles of the accounts that reposted, newest first; no profile or a hidden repost: not listed',
        body: (c) => ({ PostHashHex: c.h.a1, Limit: 10 }),
        check: (r, c) => {
          assert.deepEqual((r['Reposters'] as J[]).map((p) => p['Username']), [c.names.carol, c.names.bob]);
          assert.deepEqual(r['Reclouters'], r['Reposters']);
        },
      },
      { name: 'Offset and Limit page them', body: (c) => ({ PostHashHex: c.h.a1, Offset: 1, Limit: 1 }), check: (r, c) => assert.deepEqual((r['Reposters'] as J[]).map((p) => p['Username']), [c.names.bob]) },
      { name: 'Limit 0 answers none', body: (c) => ({ PostHashHex: c.h.a1 }), check: (r) => assert.deepEqual(r, { Reposters: [], Reclouters: [] }) },
      { name: 'an unknown post has none', body: () => ({ PostHashHex: ABSENT, Limit: 5 }), check: (r) => assert.deepEqual(r, { Reposters: [], Reclouters: [] }) },
      {
        name: 'a graylisted reposter is left out',
        body: async (c) => {
          await updateUserMetadata(c.n.deps.store, c.k.carol.pk33, (m) => ({ ...m, removeFromLeaderboard: true }));
          return { PostHashHex: c.h.a1, Limit: 10 };
        },
        check: async (r, c) => {
          await updateUserMetadata(c.n.deps.store, c.k.carol.pk33, (m) => ({ ...m, removeFromLeaderboard: false }));
          assert.deepEqual((r['Reposters'] as J[]).map((p) => p['Username']), [c.names.bob]);
        },
      },
      { name: 'refuses a missing PostHashHex', body: () => ({ Limit: 1 }), error: { re: /^PostHashHex: / } },
      { name: 'refuses a PostHashHex that is not a hash', body: () => ({ PostHashHex: 'zz', Limit: 1 }), error: { re: /^GetRepostsForPost: Error parsing post hash: expected 64 hex characters$/ } },
      { name: 'refuses an Offset above 10000', body: (c) => ({ PostHashHex: c.h.a1, Offset: 10_001, Limit: 1 }), error: { re: /^Offset: / } },
      { name: 'refuses a Limit above 200', body: (c) => ({ PostHashHex: c.h.a1, Limit: 201 }), error: { re: /^Limit: / } },
      { name: 'refuses a malformed reader key', body: (c) => ({ PostHashHex: c.h.a1, ReaderPublicKeyBase58Check: 'tBCnope' }), error: { re: /^GetRepostsForPost: Problem decoding user public key: / } },
    ]);

    table(ctx, 'get-quote-reposts-for-post', [
      {
        name: 'each quote repost once, newest first, with its author’s profile, the reader state and the quoted post',
        body: (c) => ({ PostHashHex: c.h.a1, Limit: 10, ReaderPublicKeyBase58Check: c.k.reader.pk }),
        check: (r, c) => {
          const quotes = r['QuoteReposts'] as J[];
          assert.deepEqual(named(c, quotes), ['q2', 'q1'], 'an author with two quotes is listed twice, not four times');
          assert.equal(quotes[0]!['ProfileEntryResponse']['Username'], c.names.carol);
          assert.deepEqual(quotes[0]!['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
          assert.equal(quotes[0]!['RepostedPostEntryResponse']['PostHashHex'], c.h.a1);
          assert.deepEqual(r['QuoteReclouts'], quotes);
        },
      },
      { name: 'Offset and Limit page them', body: (c) => ({ PostHashHex: c.h.a1, Offset: 1, Limit: 5 }), check: (r, c) => assert.deepEqual(named(c, r['QuoteReposts']), ['q1']) },
      { name: 'an unknown post has none', body: () => ({ PostHashHex: ABSENT, Limit: 5 }), check: (r) => assert.deepEqual(r, { QuoteReposts: [], QuoteReclouts: [] }) },
      {
        name: 'a hidden quote repost is not listed, and counts no more',
        body: async (c) => {
          await mined(c.n, 'submit-post', { UpdaterPublicKeyBase58Check: c.k.carol.pk, PostHashHexToModify: c.h.q1, RepostedPostHashHex: c.h.a1, BodyObj: { Body: 'carol quotes' }, IsHidden: true }, c.k.carol);
          return { PostHashHex: c.h.a1, Limit: 5 };
        },
        check: async (r, c) => {
          assert.deepEqual(named(c, r['QuoteReposts']), ['q2']);
          assert.equal((await c.n.ok('get-single-post', { PostHashHex: c.h.a1 }))['PostFound']['QuoteRepostCount'], 1);
        },
      },
      { name: 'refuses a PostHashHex that is not a hash', body: () => ({ PostHashHex: 'x'.repeat(64), Limit: 1 }), error: { re: /^GetQuoteRepostsForPost: Error parsing post hash: expected 64 hex characters$/ } },
      { name: 'refuses a malformed reader key', body: (c) => ({ PostHashHex: c.h.a1, ReaderPublicKeyBase58Check: 'tBCnope' }), error: { re: /^GetQuoteRepostsForPost: Problem decoding user public key: / } },
    ]);
  });
}

for (const store of TEST_STORES) suite(store);
