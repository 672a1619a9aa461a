/**
 * Diamonds end to end (reference social-graph.md §4), once per test store: send-diamonds
 * construct over HTTP → signed (identity service and SDK) → submit-transaction → mined, then
 * the three reads, one table of cases per route with success and failure rows.
 *
 * The cast: alice writes the posts; bob (the largest creator coin), carol, gray (graylisted) and
 * dave (no profile) diamond them; alice diamonds bob's post once. Posts: p1 (diamonded by
 * everyone), p2, a comment of alice's on bob's post, and a post alice hides after bob diamonded it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDiamondLevel } from '../../server/chain/state/diamonds.js';
import { getPost } from '../../server/chain/state/posts.js';
import { decodeTxn, encodeTxn } from '../../server/chain/txn/envelope.js';
import { TxnType } from '../../server/chain/txn/metadata.js';
import { getTutorialState, updateTutorialStatus } from '../../server/social/tutorial.js';
import { updateUserMetadata } from '../../server/social/userMetadata.js';
import { keyPair, profileBody, TEST_STORES, type ChainNode, type J, type KeyPair, suiteNode } from '../helpers/chainNode.js';
import { routeTable } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
/** Not a public key; must never come back in an answer. */
const NOT_A_KEY = 'tBCnotAPublicKeyButMaybeASecret0000000000000000000000';
const LEVEL_NANOS = [0, 50_000, 500_000, 5_000_000, 50_000_000, 500_000_000];
const UNKNOWN_POST = 'ab'.repeat(32);

interface Ctx {
  n: ChainNode;
  names: { alice: string; bob: string };
  alice: KeyPair;
  bob: KeyPair;
  carol: KeyPair;
  gray: KeyPair;
  dave: KeyPair;
  /** Post hashes (hex). */
  p1: string;
  p2: string;
  /** alice's comment on bob's post `b1`. */
  comment: string;
  b1: string;
  /** alice's post bob diamonded, then hidden by alice. */
  hidden: string;
}

const bytesOf = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));

/** Construct → sign → submit → mined; answers submit-transaction's body. */
async function mined(n: ChainNode, path: string, body: J, signer: KeyPair, by: 'identity' | 'sdk' = 'sdk'): Promise<J> {
  const c = await n.ok(path, { ...FEE, ...body });
  return n.submit(c['TransactionHex'] as string, signer, by);
}

const newPost = async (n: ChainNode, k: KeyPair, text: string, parent = ''): Promise<string> =>
  ((await mined(n, 'submit-post', { UpdaterPublicKeyBase58Check: k.pk, ParentStakeID: parent, BodyObj: { Body: text } }, k))['PostEntryResponse'] as J)['PostHashHex'] as string;

const diamondBody = (from: KeyPair, to: KeyPair, post: string, level: number, extra: J = {}): J => ({
  SenderPublicKeyBase58Check: from.pk,
  ReceiverPublicKeyBase58Check: to.pk,
  DiamondPostHashHex: post,
  DiamondLevel: level,
  ...FEE,
  ...extra,
});

const diamond = (n: ChainNode, from: KeyPair, to: KeyPair, post: string, level: number): Promise<J> => mined(n, 'send-diamonds', diamondBody(from, to, post, level), from);

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-5);
  const [alice, bob, carol, gray, dave] = [keyPair(), keyPair(), keyPair(), keyPair(), keyPair()];
  const names = { alice: `dia${tag}`, bob: `dib${tag}` };
  await n.fund(alice.pk, 0.5e9);
  for (const k of [bob, carol, gray, dave]) await n.fund(k.pk, 1e9);
  await Promise.all([
    mined(n, 'update-profile', { ...profileBody(alice.pk, names.alice) }, alice),
    mined(n, 'update-profile', { ...profileBody(bob.pk, names.bob) }, bob),
    mined(n, 'update-profile', { ...profileBody(carol.pk, `dic${tag}`) }, carol),
    mined(n, 'update-profile', { ...profileBody(gray.pk, `dig${tag}`) }, gray),
  ]);
  // bob's coin is the only one with native locked: he sorts first among diamond senders.
  await mined(n, 'buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: bob.pk, CreatorPublicKeyBase58Check: bob.pk, OperationType: 'buy', DeSoToSellNanos: 10_000_000 }, bob);
  await updateUserMetadata(n.deps.store, gray.pk33, (m) => ({ ...m, removeFromLeaderboard: true }));

  const p1 = await newPost(n, alice, 'diamond me');
  const p2 = await newPost(n, alice, 'me too');
  const hidden = await newPost(n, alice, 'soon gone');
  const b1 = await newPost(n, bob, 'bob writes');
  const comment = await newPost(n, alice, 'nice one bob', b1);

  await Promise.all([diamond(n, carol, alice, p1, 1), diamond(n, dave, alice, p1, 1), diamond(n, gray, alice, p1, 5), diamond(n, alice, bob, b1, 1)]);
  await Promise.all([diamond(n, bob, alice, comment, 1), diamond(n, bob, alice, hidden, 1), diamond(n, carol, alice, p2, 3)]);
  await mined(n, 'submit-post', { UpdaterPublicKeyBase58Check: alice.pk, PostHashHexToModify: hidden, IsHidden: true, BodyObj: { Body: 'soon gone' } }, alice);
  return { n, names, alice, bob, carol, gray, dave, p1, p2, comment, b1, hidden };
}

const table = routeTable<Ctx>((message) => assert.ok(!message.includes(NOT_A_KEY), 'the error does not echo what was sent as a key'));

const extraOf = (txnHex: string): Map<string, Uint8Array> => new Map(decodeTxn(bytesOf(txnHex)).extraData.map(([k, v]) => [Buffer.from(k).toString(), v]));
const senderKeys = (r: J): string[] => (r['DiamondSenders'] as J[]).map((d) => (d['DiamondSenderProfile'] as J)['PublicKeyBase58Check'] as string);
const summaries = (r: J): J[] => r['DiamondSenderSummaryResponses'] as J[];
const postHashes = (r: J): string[] => (r['DiamondedPosts'] as J[]).map((p) => p['PostHashHex'] as string);

function suite(store: 'memory' | 'redis'): void {
  describe(`diamonds (${store} store)`, () => {
    const ctx = suiteNode(store, setup);

    table(ctx, 'send-diamonds', [
      {
        name: "a first diamond: a BASIC_TRANSFER paying the author the level's nanos, with DiamondLevel (zig-zag) and DiamondPostHash; mined through identity, it counts on the post",
        body: (c) => diamondBody(c.bob, c.alice, c.p1, 2),
        check: async (r, c) => {
          assert.equal(r['SpendAmountNanos'], LEVEL_NANOS[2]);
          assert.equal(r['TotalInputNanos'], (r['SpendAmountNanos'] as number) + (r['FeeNanos'] as number));
          assert.equal(r['ChangeAmountNanos'], 0);
          assert.match(r['TxnHashHex'] as string, /^[0-9a-f]{64}$/);
          const txn = decodeTxn(bytesOf(r['TransactionHex'] as string));
          assert.equal(txn.txnType, TxnType.BASIC_TRANSFER);
          assert.deepEqual(txn.outputs, [{ publicKey: c.alice.pk33, amountNanos: BigInt(LEVEL_NANOS[2]!) }]);
          const extra = extraOf(r['TransactionHex'] as string);
          assert.deepEqual([...extra.get('DiamondLevel')!], [0x04], 'level 2 ⇒ 04');
          assert.deepEqual(extra.get('DiamondPostHash'), bytesOf(c.p1));
          await c.n.submit(r['TransactionHex'] as string, c.bob, 'identity');
          assert.equal(await getDiamondLevel(c.n.deps.store, bytesOf(c.p1), c.bob.pk33), 2);
        },
      },
      {
        name: 'a higher level (2 → 4) pays only the difference; mined through the SDK, the post counts the new level',
        body: (c) => diamondBody(c.bob, c.alice, c.p1, 4),
        check: async (r, c) => {
          assert.equal(r['SpendAmountNanos'], LEVEL_NANOS[4]! - LEVEL_NANOS[2]!);
          await c.n.submit(r['TransactionHex'] as string, c.bob, 'sdk');
          const post = await getPost(c.n.deps.store, bytesOf(c.p1));
          assert.equal(post?.diamondCount, 4n + 1n + 1n + 5n, 'bob 4, carol 1, dave 1, gray 5');
        },
      },
      {
        name: "TransactionFees go first, then the author; the diamond's own ExtraData keys win over the request's, other keys stay",
        body: (c) => diamondBody(c.carol, c.alice, c.p1, 2, { TransactionFees: [{ PublicKeyBase58Check: c.dave.pk, AmountNanos: 7 }], ExtraData: { DiamondLevel: '9', App: 'e2e' } }),
        check: (r, c) => {
          const txn = decodeTxn(bytesOf(r['TransactionHex'] as string));
          assert.deepEqual(txn.outputs, [{ publicKey: c.dave.pk33, amountNanos: 7n }, { publicKey: c.alice.pk33, amountNanos: BigInt(LEVEL_NANOS[2]! - LEVEL_NANOS[1]!) }]);
          assert.equal(r['SpendAmountNanos'], 7 + LEVEL_NANOS[2]! - LEVEL_NANOS[1]!);
          const extra = extraOf(r['TransactionHex'] as string);
          assert.deepEqual([...extra.get('DiamondLevel')!], [0x04]);
          assert.equal(Buffer.from(extra.get('App')!).toString(), 'e2e');
        },
      },
      {
        name: 'InTutorial moves the sender from InvestInYourselfComplete to GiveADiamondComplete',
        body: async (c) => {
          await updateTutorialStatus(c.n.deps.store, c.dave.pk33, { status: 'InvestInYourselfComplete' });
          return diamondBody(c.dave, c.alice, c.p2, 1, { InTutorial: true });
        },
        check: async (_r, c) => assert.equal((await getTutorialState(c.n.deps.store, c.dave.pk33)).status, 'GiveADiamondComplete'),
      },
      { name: 'InTutorial at another step of the tutorial', body: (c) => diamondBody(c.carol, c.alice, c.p2, 4, { InTutorial: true }), error: { re: /^SendDiamonds: User should not be sending diamonds at this point in the tutorial$/ } },
      { name: 'no post hash', body: (c) => diamondBody(c.bob, c.alice, '', 1), error: { re: /^SendDiamonds: Must provide a sender, a receiver, and a post hash to diamond\.$/ } },
      { name: 'no receiver', body: (c) => diamondBody(c.bob, c.alice, c.p1, 5, { ReceiverPublicKeyBase58Check: '' }), error: { re: /^SendDiamonds: Must provide a sender, a receiver/ } },
      { name: 'a sender that is not a key (not echoed)', body: (c) => diamondBody(c.bob, c.alice, c.p1, 5, { SenderPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^SendDiamonds: Problem decoding sender public key: / } },
      { name: 'a receiver that is not a key (not echoed)', body: (c) => diamondBody(c.bob, c.alice, c.p1, 5, { ReceiverPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^SendDiamonds: Problem decoding receiver public key: / } },
      { name: 'a post hash that is not 32 bytes of hex', body: (c) => diamondBody(c.bob, c.alice, c.p1.slice(2), 5), error: { re: /^SendDiamonds: Invalid DiamondPostHashHex/ } },
      { name: 'sender and receiver the same', body: (c) => diamondBody(c.bob, c.bob, c.p1, 5), error: { re: /^SendDiamonds: Sender and receiver cannot be the same\.$/ } },
      { name: 'an unknown post', body: (c) => diamondBody(c.bob, c.alice, UNKNOWN_POST, 1), error: { re: new RegExp(`^SendDiamonds: Problem creating transaction: Blockchain\\.CreateBasicTransferTxnWithDiamonds: Problem getting post entry for post hash ${UNKNOWN_POST}$`) } },
      { name: "a diamond on one's own post (whatever receiver is named)", body: (c) => diamondBody(c.alice, c.bob, c.p1, 1), error: { re: /RuleErrorBasicTransferDiamondCannotTransferToSelf/ } },
      { name: 'level 9', body: (c) => diamondBody(c.bob, c.alice, c.p2, 9), error: { re: /^SendDiamonds: Problem creating transaction: .*Problem getting deso nanos: : RuleErrorBasicTransferHasInvalidDiamondLevel: ValidateDiamondsAndGetNumCreatorCoinNanos: Diamond level 9 not allowed$/ } },
      { name: 'level 0', body: (c) => diamondBody(c.bob, c.alice, c.p2, 0), error: { re: /Diamond level 0 not allowed$/ } },
      { name: 'a level not above the one already given', body: (c) => diamondBody(c.bob, c.alice, c.p1, 4), error: { re: /RuleErrorCreatorCoinTransferPostAlreadyHasSufficientDiamonds/ } },
      { name: 'a DiamondLevel that is not an integer', body: (c) => diamondBody(c.bob, c.alice, c.p1, 1.5), error: { re: /DiamondLevel/ } },
    ]);

    describe('send-diamonds at submission', () => {
      it('refuses a signed diamond that underpays the author (RuleErrorBasicTransferInsufficientDeSoForDiamondLevel)', async () => {
        const { n, carol, alice, p2 } = ctx();
        const r = await n.ok('send-diamonds', diamondBody(carol, alice, p2, 5));
        const txn = decodeTxn(bytesOf(r['TransactionHex'] as string));
        const underpaid = encodeTxn({ ...txn, outputs: [{ publicKey: alice.pk33, amountNanos: BigInt(LEVEL_NANOS[5]! - LEVEL_NANOS[3]! - 1) }] });
        const signed = await n.sign(Buffer.from(underpaid).toString('hex'), carol, 'sdk');
        await n.fails('submit-transaction', { TransactionHex: signed }, /RuleErrorBasicTransferInsufficientDeSoForDiamondLevel/);
        assert.equal(await getDiamondLevel(n.deps.store, bytesOf(p2), carol.pk33), 3, 'the level is unchanged');
      });
    });

    table(ctx, 'get-diamonds-for-public-key', [
      {
        name: 'received: one summary per sender, profiles first by coin value, the profile-less one last; TotalDiamonds sums them',
        body: (c) => ({ PublicKeyBase58Check: c.alice.pk }),
        check: (r, c) => {
          const rows = summaries(r);
          assert.deepEqual(rows.map((s) => s['SenderPublicKeyBase58Check']).slice(0, 1), [c.bob.pk], 'the largest coin first');
          assert.deepEqual(new Set(rows.slice(1, 3).map((s) => s['SenderPublicKeyBase58Check'])), new Set([c.carol.pk, c.gray.pk]), 'then the other profiles');
          assert.equal(rows[3]!['SenderPublicKeyBase58Check'], c.dave.pk);
          assert.equal(rows[3]!['ProfileEntryResponse'], null, 'no profile');
          assert.equal(rows.length, 4);
          const bob = rows[0]!;
          assert.equal(bob['ReceiverPublicKeyBase58Check'], c.alice.pk);
          assert.deepEqual(bob['DiamondLevelMap'], { 1: 2, 4: 1 }, 'p1 at 4, the comment and the hidden post at 1');
          assert.equal(bob['TotalDiamonds'], 6);
          assert.equal(bob['HighestDiamondLevel'], 4);
          assert.equal((bob['ProfileEntryResponse'] as J)['Username'], c.names.bob);
          const carol = rows.find((s) => s['SenderPublicKeyBase58Check'] === c.carol.pk)!;
          assert.deepEqual(carol['DiamondLevelMap'], { 1: 1, 3: 1 });
          assert.equal(r['TotalDiamonds'], 6 + 4 + 5 + 1, 'bob 6, carol 4, gray 5, dave 1');
        },
      },
      {
        name: 'given (FetchYouDiamonded): one summary per receiver, with the receiver\'s profile',
        body: (c) => ({ PublicKeyBase58Check: c.bob.pk, FetchYouDiamonded: true }),
        check: (r, c) => {
          assert.equal(summaries(r).length, 1);
          const s = summaries(r)[0]!;
          assert.equal(s['SenderPublicKeyBase58Check'], c.bob.pk);
          assert.equal(s['ReceiverPublicKeyBase58Check'], c.alice.pk);
          assert.equal((s['ProfileEntryResponse'] as J)['Username'], c.names.alice);
          assert.equal(r['TotalDiamonds'], 6);
        },
      },
      { name: 'bob received one diamond, from alice', body: (c) => ({ PublicKeyBase58Check: c.bob.pk }), check: (r, c) => assert.deepEqual(summaries(r).map((s) => [s['SenderPublicKeyBase58Check'], s['TotalDiamonds']]), [[c.alice.pk, 1]]) },
      { name: 'a key without diamonds', body: (c) => ({ PublicKeyBase58Check: c.dave.pk }), check: (r) => assert.deepEqual(r, { DiamondSenderSummaryResponses: [], TotalDiamonds: 0 }) },
      { name: 'a key that is not one (not echoed)', body: () => ({ PublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetDiamondsForPublicKey: Problem decoding user public key: / } },
      { name: 'no key', body: () => ({ FetchYouDiamonded: true }), error: { re: /^GetDiamondsForPublicKey: Problem decoding user public key: / } },
    ]);

    table(ctx, 'get-diamonds-for-post', [
      {
        name: 'senders with a profile, by coin value then level; the graylisted and the profile-less are left out',
        body: (c) => ({ PostHashHex: c.p1, Offset: 0, Limit: 10 }),
        check: (r, c) => {
          assert.deepEqual(senderKeys(r), [c.bob.pk, c.carol.pk]);
          assert.deepEqual((r['DiamondSenders'] as J[]).map((d) => d['DiamondLevel']), [4, 1]);
        },
      },
      { name: 'the graylisted reader sees itself, sorted by level among equal coin values', body: (c) => ({ PostHashHex: c.p1, Offset: 0, Limit: 10, ReaderPublicKeyBase58Check: c.gray.pk }), check: (r, c) => assert.deepEqual(senderKeys(r), [c.bob.pk, c.gray.pk, c.carol.pk]) },
      { name: 'Offset and Limit cut the sorted list', body: (c) => ({ PostHashHex: c.p1, Offset: 1, Limit: 1 }), check: (r, c) => assert.deepEqual(senderKeys(r), [c.carol.pk]) },
      { name: 'Limit 0 is an empty page', body: (c) => ({ PostHashHex: c.p1, Offset: 0 }), check: (r) => assert.deepEqual(r, { DiamondSenders: [] }) },
      { name: 'an unknown post has no senders (the reference panics)', body: () => ({ PostHashHex: UNKNOWN_POST, Limit: 10 }), check: (r) => assert.deepEqual(r, { DiamondSenders: [] }) },
      { name: 'a post hash that is not one', body: () => ({ PostHashHex: 'xyz', Limit: 10 }), error: { re: /^GetDiamondsForPost: PostHashHex must be a post hash/ } },
      { name: 'a reader that is not a key (not echoed)', body: (c) => ({ PostHashHex: c.p1, Limit: 10, ReaderPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetDiamondsForPost: Problem decoding user public key: / } },
      { name: 'a negative Offset', body: (c) => ({ PostHashHex: c.p1, Offset: -1, Limit: 10 }), error: { re: /Offset/ } },
    ]);

    table(ctx, 'get-diamonded-posts', [
      {
        name: "the receiver's visible posts the sender diamonded, level first; DiamondsFromSender, the reader's state, the comment's parent; hidden ones counted in the total only",
        body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, SenderPublicKeyBase58Check: c.bob.pk, ReaderPublicKeyBase58Check: c.bob.pk, NumToFetch: 10 }),
        check: (r, c) => {
          assert.deepEqual(postHashes(r), [c.p1, c.comment]);
          const [p1, comment] = r['DiamondedPosts'] as J[];
          assert.equal(p1!['DiamondsFromSender'], 4);
          assert.equal(p1!['DiamondCount'], 11);
          assert.equal((p1!['PostEntryReaderState'] as J)['DiamondLevelBestowed'], 4, "the reader's own diamond");
          assert.equal(p1!['ParentPosts'], null);
          assert.equal(comment!['DiamondsFromSender'], 1);
          const parents = comment!['ParentPosts'] as J[];
          assert.deepEqual(parents.map((p) => p['PostHashHex']), [c.b1]);
          assert.equal((parents[0]!['ProfileEntryResponse'] as J)['Username'], c.names.bob);
          assert.equal(parents[0]!['DiamondCount'], 1, "alice's diamond on bob's post");
          assert.equal(r['TotalDiamondsGiven'], 6, 'the hidden post counts');
          assert.equal((r['ReceiverProfileEntryResponse'] as J)['Username'], c.names.alice);
          assert.equal((r['SenderProfileEntryResponse'] as J)['Username'], c.names.bob);
        },
      },
      {
        name: "without a reader every post still carries a reader state, all zero",
        body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, SenderPublicKeyBase58Check: c.bob.pk, NumToFetch: 1 }),
        check: (r, c) => {
          assert.deepEqual(postHashes(r), [c.p1]);
          assert.deepEqual((r['DiamondedPosts'] as J[])[0]!['PostEntryReaderState'], { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
        },
      },
      { name: 'the next page starts after StartPostHashHex', body: (c) => ({ ReceiverUsername: c.names.alice, SenderUsername: c.names.bob.toUpperCase(), StartPostHashHex: c.p1, NumToFetch: 1 }), check: (r, c) => assert.deepEqual(postHashes(r), [c.comment]) },
      { name: 'after the last post: an empty page (the reference panics)', body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, SenderPublicKeyBase58Check: c.bob.pk, StartPostHashHex: c.comment, NumToFetch: 5 }), check: (r) => assert.deepEqual(r['DiamondedPosts'], []) },
      { name: 'a cursor the sender never diamonded starts from the top, as the reference', body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, SenderPublicKeyBase58Check: c.bob.pk, StartPostHashHex: c.p2, NumToFetch: 5 }), check: (r, c) => assert.deepEqual(postHashes(r), [c.p1, c.comment]) },
      { name: 'NumToFetch 0 is an empty page with the totals', body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, SenderPublicKeyBase58Check: c.carol.pk }), check: (r) => (assert.deepEqual(r['DiamondedPosts'], []), assert.equal(r['TotalDiamondsGiven'], 4)) },
      { name: 'a pair without diamonds', body: (c) => ({ ReceiverPublicKeyBase58Check: c.bob.pk, SenderPublicKeyBase58Check: c.carol.pk, NumToFetch: 5 }), check: (r) => (assert.deepEqual(r['DiamondedPosts'], []), assert.equal(r['TotalDiamondsGiven'], 0)) },
      { name: 'no receiver', body: (c) => ({ SenderPublicKeyBase58Check: c.bob.pk, NumToFetch: 5 }), error: { re: /^GetDiamondedPosts: Neither ReceiverPublicKeyBase58Check nor ReceiverUsername provided$/ } },
      { name: 'no sender', body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, NumToFetch: 5 }), error: { re: /^GetDiamondedPosts: Neither SenderPublicKeyBase58Check nor SenderUsername provided$/ } },
      { name: 'an unknown username', body: (c) => ({ ReceiverUsername: 'nobody_here_x', SenderPublicKeyBase58Check: c.bob.pk }), error: { re: /^GetDiamondedPosts: No profile entry found for receiver username: nobody_here_x$/ } },
      { name: 'a sender that is not a key (not echoed)', body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, SenderPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetDiamondedPosts: Problem decoding sender public key: / } },
      { name: 'a cursor that is not a post hash', body: (c) => ({ ReceiverPublicKeyBase58Check: c.alice.pk, SenderPublicKeyBase58Check: c.bob.pk, StartPostHashHex: 'zz' }), error: { re: /^GetDiamondedPosts: StartPostHashHex must be a post hash/ } },
    ]);
  });
}

for (const store of TEST_STORES) suite(store);
