/**
 * FOLLOW and LIKE rules over a state view (core's _connectFollow and _connectLike): the two
 * indexes each keeps, the post's like counter, every rule error, derived keys spending their
 * FOLLOW / LIKE counts, SWAP_IDENTITY moving follows, and the reader state the post response
 * builder reads from them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { addPost as addPostTo } from '../helpers/posts.js';
import { beforeEach, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { swapIdentities } from '../../server/chain/rules/swapIdentity.js';
import { setBalance } from '../../server/chain/state/balances.js';
import { getDerivedKey, putDerivedKey } from '../../server/chain/state/derivedKeys.js';
import { followCount, followKeys, followPage, isFollowing } from '../../server/chain/state/follows.js';
import { isLikedBy, likeKeys, likersRange } from '../../server/chain/state/likes.js';
import { getPost, updatePost, type PostRecord } from '../../server/chain/state/posts.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { AuthorizeDerivedKeyOperation, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import { decodeSpendingLimit, emptySpendingLimit, encodeSpendingLimit } from '../../server/chain/txn/spendingLimit.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { postEntryResponse } from '../../server/social/postEntry.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { addProfile } from '../helpers/profiles.js';

const ctx: ConnectContext = { height: 10n, rules: { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n }, crypto: {} as CryptoService };
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const b58 = (pk: Uint8Array): string => encodePublicKey(pk, 'testnet');

let store: MemoryStore;
let view: StateView;
let alice: Uint8Array;
let bob: Uint8Array;
let carol: Uint8Array;

/** Connects a transaction of `pk` with this metadata, signed by `signer` (default: the owner). */
async function send(pk: Uint8Array, metadata: TxnMetadata, signer: Uint8Array = pk): Promise<void> {
  const c = constructTxn({ publicKey: pk, metadata, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
  await connectTransaction(view, decodeTxn(c.bytes), { hash: sha256d(c.bytes), size: c.bytes.length, signer }, ctx);
}
const follow = (follower: Uint8Array, followed: Uint8Array, isUnfollow = false, signer?: Uint8Array): Promise<void> =>
  send(follower, { type: 'FOLLOW', followedPublicKey: followed, isUnfollow }, signer);
const like = (liker: Uint8Array, post: Uint8Array, isUnlike = false, signer?: Uint8Array): Promise<void> => send(liker, { type: 'LIKE', likedPostHash: post, isUnlike }, signer);

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RuleError && e.code === code, `expected ${code}`);
}

const addPost = (poster: Uint8Array, fields: Partial<PostRecord> = {}): Uint8Array => addPostTo(view, poster, fields);

async function likeCount(post: Uint8Array): Promise<bigint> {
  const p = await getPost(view, post);
  assert.ok(p, 'the post exists');
  return p.likeCount;
}

const sorted = (keys: Uint8Array[]): Uint8Array[] => [...keys].sort(Buffer.compare);

beforeEach(() => {
  store = new MemoryStore();
  view = StateView.over(store);
  [alice, bob, carol] = [newKey(), newKey(), newKey()];
  for (const pk of [alice, bob, carol]) setBalance(view, pk, 1_000_000_000n);
  addProfile(view, bob, 'bob');
  addProfile(view, carol, 'carol');
});

describe('FOLLOW', () => {
  it('indexes a follow in both directions and counts it in both', async () => {
    await follow(alice, bob);
    assert.equal(await isFollowing(view, alice, bob), true);
    assert.equal(await isFollowing(view, bob, alice), false, 'a follow has a direction');
    assert.deepEqual(await followPage(view, alice, 'following'), [bob]);
    assert.deepEqual(await followPage(view, bob, 'followers'), [alice]);
    assert.equal(await followCount(view, bob, 'followers'), 1);
    assert.equal(await followCount(view, alice, 'following'), 1);
    assert.equal(await followCount(view, alice, 'followers'), 0);
  });

  it('unfollows: both index entries go, the counts drop', async () => {
    await follow(alice, bob);
    await follow(alice, bob, true);
    assert.equal(await isFollowing(view, alice, bob), false);
    assert.deepEqual(await followPage(view, bob, 'followers'), []);
    assert.equal(await followCount(view, alice, 'following'), 0);
    // Following again after an unfollow is a new follow.
    await follow(alice, bob);
    assert.equal(await isFollowing(view, alice, bob), true);
  });

  it('allows following oneself (a key with a profile)', async () => {
    await follow(bob, bob);
    assert.deepEqual(await followPage(view, bob, 'followers'), [bob]);
    assert.deepEqual(await followPage(view, bob, 'following'), [bob]);
  });

  it('pages a list by key, after a cursor key, in Base58Check order', async () => {
    const fans = Array.from({ length: 7 }, newKey);
    for (const fan of fans) {
      setBalance(view, fan, 1_000_000n);
      await follow(fan, carol);
    }
    const order = sorted(fans);
    assert.deepEqual(order.map(b58), fans.map(b58).sort(), 'key byte order is Base58Check order');
    const first = await followPage(view, carol, 'followers', { limit: 3 });
    assert.deepEqual(first, order.slice(0, 3));
    assert.deepEqual(await followPage(view, carol, 'followers', { after: first.at(-1)!, limit: 3 }), order.slice(3, 6));
    assert.deepEqual(await followPage(view, carol, 'followers', { after: order[5]!, limit: 3 }), order.slice(6));
    // A cursor that is not in the list starts after its place.
    assert.deepEqual(await followPage(view, carol, 'followers', { after: new Uint8Array(33), limit: 2 }), order.slice(0, 2));
    assert.equal(await followCount(view, carol, 'followers'), 7);
  });

  it('refuses to follow or unfollow a key without a profile: RuleErrorFollowingNonexistentProfile', async () => {
    await rejects(follow(bob, alice), 'RuleErrorFollowingNonexistentProfile');
    await rejects(follow(bob, alice, true), 'RuleErrorFollowingNonexistentProfile');
    assert.deepEqual(await view.indexRange(followKeys.following(bob)), [], 'nothing was written');
  });

  it('follows a hidden profile', async () => {
    addProfile(view, alice, 'alice', { isHidden: true });
    await follow(bob, alice);
    assert.equal(await isFollowing(view, bob, alice), true);
  });

  it('refuses a second follow: RuleErrorFollowEntryAlreadyExists', async () => {
    await follow(alice, bob);
    await rejects(follow(alice, bob), 'RuleErrorFollowEntryAlreadyExists');
    assert.equal(await followCount(view, bob, 'followers'), 1);
  });

  it('refuses an unfollow without a follow: RuleErrorCannotUnfollowNonexistentFollowEntry', async () => {
    await rejects(follow(alice, bob, true), 'RuleErrorCannotUnfollowNonexistentFollowEntry');
    await follow(carol, bob);
    await rejects(follow(alice, bob, true), 'RuleErrorCannotUnfollowNonexistentFollowEntry');
    assert.deepEqual(await followPage(view, bob, 'followers'), [carol], 'another key\'s follow is untouched');
  });

  it('refuses malformed metadata (a key of the wrong length): RuleErrorTxnMetadataMalformed', async () => {
    const c = constructTxn({ publicKey: alice, metadata: { type: 'FOLLOW', followedPublicKey: bob, isUnfollow: false }, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
    const txn = decodeTxn(c.bytes);
    for (const metadata of [txn.metadata.subarray(0, 33), Uint8Array.of(...txn.metadata, 0), Uint8Array.of(...txn.metadata.subarray(0, 33), 2)]) {
      await rejects(connectTransaction(view, { ...txn, metadata }, { hash: sha256d(c.bytes), size: c.bytes.length, signer: alice }, ctx), 'RuleErrorTxnMetadataMalformed');
    }
  });
});

describe('LIKE', () => {
  it('indexes a like by post and by liker and counts it on the post', async () => {
    const post = addPost(bob);
    await like(alice, post);
    assert.equal(await isLikedBy(view, alice, post), true);
    assert.equal(await isLikedBy(view, carol, post), false);
    assert.deepEqual(await likersRange(view, post, { limit: 10 }), [alice]);
    assert.equal((await view.indexRange(likeKeys.likedBy(alice))).length, 1);
    assert.equal(await likeCount(post), 1n);
    await like(carol, post);
    assert.equal(await likeCount(post), 2n);
    assert.deepEqual(await likersRange(view, post, { limit: 10, reverse: true }), sorted([alice, carol]).reverse(), 'newest key last, walked from the top');
  });

  it('unlikes: both entries go and the count drops', async () => {
    const post = addPost(bob);
    await like(alice, post);
    await like(carol, post);
    await like(alice, post, true);
    assert.equal(await isLikedBy(view, alice, post), false);
    assert.deepEqual(await likersRange(view, post, { limit: 10 }), [carol]);
    assert.deepEqual(await view.indexRange(likeKeys.likedBy(alice)), []);
    assert.equal(await likeCount(post), 1n);
  });

  it('allows liking one\'s own post and a hidden post; a key without a profile may like', async () => {
    const own = addPost(alice);
    await like(alice, own);
    const hidden = addPost(bob, { isHidden: true });
    await like(alice, hidden);
    assert.equal(await likeCount(own), 1n);
    assert.equal(await likeCount(hidden), 1n);
  });

  it('keeps the other counters of the post', async () => {
    const post = addPost(bob, { commentCount: 4n, repostCount: 2n, diamondCount: 3n });
    await like(alice, post);
    const p = await getPost(view, post);
    assert.deepEqual([p?.commentCount, p?.repostCount, p?.diamondCount, p?.likeCount], [4n, 2n, 3n, 1n]);
  });

  it('refuses a post that does not exist: RuleErrorCannotLikeNonexistentPost', async () => {
    const missing = new Uint8Array(randomBytes(32));
    await rejects(like(alice, missing), 'RuleErrorCannotLikeNonexistentPost');
    await rejects(like(alice, missing, true), 'RuleErrorCannotLikeNonexistentPost');
    assert.deepEqual(await view.indexRange(likeKeys.likedBy(alice)), []);
  });

  it('refuses a second like: RuleErrorLikeEntryAlreadyExists', async () => {
    const post = addPost(bob);
    await like(alice, post);
    await rejects(like(alice, post), 'RuleErrorLikeEntryAlreadyExists');
    assert.equal(await likeCount(post), 1n);
  });

  it('refuses an unlike without a like: RuleErrorCannotUnlikeWithoutAnExistingLike', async () => {
    const post = addPost(bob);
    await rejects(like(alice, post, true), 'RuleErrorCannotUnlikeWithoutAnExistingLike');
    assert.equal(await likeCount(post), 0n);
  });

  it('pages the likers of a post from either end, after a cursor key', async () => {
    const post = addPost(bob);
    const fans = Array.from({ length: 6 }, newKey);
    for (const fan of fans) {
      setBalance(view, fan, 1_000_000n);
      await like(fan, post);
    }
    const down = sorted(fans).reverse();
    const first = await likersRange(view, post, { reverse: true, limit: 4 });
    assert.deepEqual(first, down.slice(0, 4));
    assert.deepEqual(await likersRange(view, post, { reverse: true, from: first.at(-1)!, limit: 4 }), down.slice(4));
    assert.deepEqual(await likersRange(view, post, { from: down[2]!, limit: 1 }), [down[1]!]);
  });
});

describe('derived keys sign FOLLOW and LIKE against their transaction counts', () => {
  it('takes one FOLLOW (9) or LIKE (10) off the count and refuses once none is left', async () => {
    const derived = newKey();
    const limit = emptySpendingLimit();
    limit.globalDESOLimit = 1_000_000n;
    limit.transactionCounts.set(TxnType.FOLLOW, 2n);
    limit.transactionCounts.set(TxnType.LIKE, 1n);
    putDerivedKey(view, { ownerPublicKey: alice, derivedPublicKey: derived, expirationBlock: 1000n, operationType: AuthorizeDerivedKeyOperation.VALID, spendingLimit: encodeSpendingLimit(limit), memo: new Uint8Array(0), extraData: [] });
    const left = async (): Promise<Map<number, bigint>> => decodeSpendingLimit((await getDerivedKey(view, alice, derived))!.spendingLimit).transactionCounts;
    await follow(alice, bob, false, derived);
    assert.equal((await left()).get(TxnType.FOLLOW), 1n);
    await follow(alice, carol, false, derived);
    assert.equal((await left()).has(TxnType.FOLLOW), false, 'the last use removes the entry');
    await rejects(follow(alice, bob, true, derived), 'RuleErrorDerivedKeyTxnTypeNotAuthorized');
    assert.equal(await isFollowing(view, alice, bob), true, 'the refused unfollow left the follow');
    const post = addPost(bob);
    await like(alice, post, false, derived);
    assert.deepEqual([...(await left()).keys()], []);
    await rejects(like(alice, post, true, derived), 'RuleErrorDerivedKeyTxnTypeNotAuthorized');
    assert.equal(await likeCount(post), 1n);
  });
});

describe('SWAP_IDENTITY moves follows (PKID-keyed in core)', () => {
  it('swaps every follow of either key, in both roles; likes stay with their public key', async () => {
    const dave = newKey();
    setBalance(view, dave, 1_000_000n);
    await follow(alice, bob);
    await follow(bob, carol);
    await follow(dave, bob);
    await follow(bob, bob);
    const post = addPost(carol);
    await like(bob, post);

    await swapIdentities(view, bob, carol);
    // Every edge with bob ↔ carol exchanged: alice→carol, carol→bob, dave→carol, carol→carol.
    assert.deepEqual(await followPage(view, alice, 'following'), [carol]);
    assert.deepEqual(await followPage(view, dave, 'following'), [carol]);
    assert.deepEqual(await followPage(view, carol, 'following'), sorted([bob, carol]));
    assert.deepEqual(await followPage(view, carol, 'followers'), sorted([alice, dave, carol]));
    assert.deepEqual(await followPage(view, bob, 'followers'), [carol]);
    assert.deepEqual(await followPage(view, bob, 'following'), []);
    assert.equal(await isLikedBy(view, bob, post), true, 'likes are keyed by public key, as in core');

    // The swapped state is what the rules see next.
    await follow(alice, carol, true);
    await rejects(follow(dave, carol), 'RuleErrorFollowEntryAlreadyExists');

    // Committed (removals and additions of one member in one commit), the store agrees.
    assert.equal(await store.commit(view.ops()), true);
    assert.deepEqual(await followPage(store, carol, 'followers'), sorted([dave, carol]));
    assert.equal(await followCount(store, carol, 'followers'), 2);
    assert.equal(await followCount(store, bob, 'followers'), 1);
    assert.equal(await followCount(store, bob, 'following'), 0);
  });
});

describe('postEntryResponse: LikeCount and PostEntryReaderState from state', () => {
  it('answers the like count, and the reader\'s like, for the reader given', async () => {
    const post = addPost(bob);
    await like(alice, post);
    await like(carol, post);
    const record = (await getPost(view, post))!;
    const anonymous = await postEntryResponse(view, record, 'testnet', { inMempool: false });
    assert.equal(anonymous['LikeCount'], 2n);
    assert.equal(anonymous['PostEntryReaderState'], null, 'no reader, no reader state');

    const forAlice = await postEntryResponse(view, record, 'testnet', { inMempool: false, reader: alice });
    assert.deepEqual(forAlice['PostEntryReaderState'], { LikedByReader: true, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' });
    const forBob = await postEntryResponse(view, record, 'testnet', { inMempool: false, reader: bob });
    assert.equal((forBob['PostEntryReaderState'] as Record<string, unknown>)['LikedByReader'], false);
  });

  it('names the reader\'s vanilla repost of the post, hidden or not', async () => {
    const post = addPost(bob);
    const repost = addPost(alice, { repostedPostHash: post });
    const record = (await getPost(view, post))!;
    const state = (await postEntryResponse(view, record, 'testnet', { inMempool: false, reader: alice }))['PostEntryReaderState'] as Record<string, unknown>;
    assert.deepEqual(state, { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: true, RepostPostHashHex: Buffer.from(repost).toString('hex') });
    const hidden = (await getPost(view, repost))!;
    updatePost(view, { ...hidden, isHidden: true });
    const after = (await postEntryResponse(view, record, 'testnet', { inMempool: false, reader: alice }))['PostEntryReaderState'] as Record<string, unknown>;
    assert.equal(after['RepostedByReader'], false, 'a hidden repost is not "reposted"');
    assert.equal(after['RepostPostHashHex'], Buffer.from(repost).toString('hex'), 'its hash is still named');
  });
});
