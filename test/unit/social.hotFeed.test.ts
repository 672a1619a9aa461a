/**
 * Hot feed scoring (social/hotFeedScore.ts, social/hotFeed.ts scorePosts) over chain state built
 * in a state view: posts (test/helpers/posts.ts addPost), likes, diamonds, comments and reposts
 * in their indexes, balances and a creator coin. Each test states the score it expects from the
 * formula of the module comment: the creation score, one term per interacting key at its
 * heaviest weight under the cap, the decay by post age, and the multipliers.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { setBalance } from '../../server/chain/state/balances.js';
import { putDiamond } from '../../server/chain/state/diamonds.js';
import { addLike } from '../../server/chain/state/likes.js';
import { reindexPost } from '../../server/chain/state/postIndexes.js';
import { getPost, type PostRecord } from '../../server/chain/state/posts.js';
import { EMPTY_CREATOR_COIN, putProfile } from '../../server/chain/state/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { toHex } from '../../server/hex.js';
import { readRankMember, scoreMember, scorePosts } from '../../server/social/hotFeed.js';
import { decayFactor, parseTags } from '../../server/social/hotFeedScore.js';
import { DEFAULT_INTERACTION_CAP, DEFAULT_TIME_DECAY_BLOCKS, type HotFeedAlgorithm, type HotFeedMultipliers } from '../../server/social/hotFeedSettings.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { addPost } from '../helpers/posts.js';

const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const COIN = 1_000_000_000n;
/** Posts are mined at this height; the tip is TIP unless a test says otherwise. */
const HEIGHT = 100n;
const TIP = 100n;

const algorithm = (over: Partial<HotFeedAlgorithm> = {}): HotFeedAlgorithm => ({
  InteractionCap: DEFAULT_INTERACTION_CAP,
  InteractionCapTag: DEFAULT_INTERACTION_CAP,
  TimeDecayBlocks: DEFAULT_TIME_DECAY_BLOCKS,
  TimeDecayBlocksTag: DEFAULT_TIME_DECAY_BLOCKS,
  TxnTypeMultiplierMap: {},
  ...over,
});
const none = (): HotFeedMultipliers => ({ users: new Map(), posts: new Map() });

let view: StateView;
let poster: Uint8Array;

/** A funded key. */
function funded(coins: bigint): Uint8Array {
  const pk = newKey();
  setBalance(view, pk, coins * COIN);
  return pk;
}

async function post(by = poster, fields: Partial<PostRecord> = {}): Promise<PostRecord> {
  const hash = addPost(view, by, { confirmationBlockHeight: HEIGHT, ...fields });
  const p = (await getPost(view, hash))!;
  await reindexPost(view, undefined, p);
  return p;
}

/** A comment (or with `repost`, a repost) of `by` on `on`, in the post indexes. */
async function reply(by: Uint8Array, on: PostRecord, kind: 'comment' | 'repost' | 'quote'): Promise<void> {
  const fields: Partial<PostRecord> =
    kind === 'comment' ? { parentStakeId: on.postHash } : { repostedPostHash: on.postHash, isQuotedRepost: kind === 'quote', body: new TextEncoder().encode(kind === 'quote' ? '{"Body":"so true"}' : '{}') };
  await post(by, fields);
}

async function diamond(sender: Uint8Array, on: PostRecord, level: number): Promise<void> {
  await putDiamond(view, { sender, receiver: on.posterPublicKey, postHash: on.postHash, postTimestampNanos: on.timestampNanos, previousLevel: 0, level });
}

async function scores(posts: PostRecord[], a = algorithm(), m = none(), tip = TIP): Promise<number[]> {
  return (await scorePosts(view, posts, tip, a, m)).map((s) => s.score);
}

/** The decay of a post mined at HEIGHT, seen from `tip` (the tip block is age 1). */
const decay = (tip = TIP, blocks = DEFAULT_TIME_DECAY_BLOCKS): number => decayFactor(Number(tip - HEIGHT) + 1, blocks);
const nanos = (coins: bigint): number => Number(coins * COIN);

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  poster = funded(10n);
});

describe('hot feed scores', () => {
  it('a post alone scores its poster’s balance, decayed by its age', async () => {
    const [s] = await scores([await post()]);
    assert.equal(s, Math.floor(nanos(10n) * decay()));
  });

  it('each liker adds its balance: more (and richer) likers rank a post higher', async () => {
    const [rich, poor, poorer] = [funded(50n), funded(2n), funded(1n)];
    const [a, b, c] = [await post(), await post(), await post()];
    addLike(view, rich, a.postHash);
    addLike(view, poor, b.postHash);
    addLike(view, poorer, b.postHash);
    const [sa, sb, sc] = await scores([a, b, c]);
    const base = Math.floor(nanos(10n) * decay());
    assert.equal(sa, base + Math.floor(nanos(50n) * decay()));
    assert.equal(sb, base + Math.floor(nanos(2n) * decay()) + Math.floor(nanos(1n) * decay()));
    assert.equal(sc, base);
    assert.ok(sa > sb && sb > sc, 'ordered by what their likers hold');
  });

  it('diamonds, comments, reposts and quote reposts count as interactions, each key once at its heaviest weight', async () => {
    const [fan, critic, echo, quoter] = [funded(5n), funded(3n), funded(2n), funded(1n)];
    const p = await post();
    addLike(view, fan, p.postHash);
    await diamond(fan, p, 2);
    await reply(fan, p, 'comment');
    await reply(critic, p, 'comment');
    await reply(echo, p, 'repost');
    await reply(quoter, p, 'quote');
    // Diamonds (BASIC_TRANSFER, 2) weigh 3×, comments and reposts (SUBMIT_POST, 5) ½×, likes 1×.
    const [s] = await scores([p], algorithm({ TxnTypeMultiplierMap: { '2': 30_000, '5': 5_000 } }));
    const d = decay();
    const expected = Math.floor(nanos(10n) * d) + Math.floor(nanos(15n) * d) + Math.floor((nanos(3n) / 2) * d) + Math.floor(nanos(1n) * d) + Math.floor((nanos(1n) / 2) * d);
    assert.equal(s, expected, 'the fan counts once, at 3× (the diamond), not once per interaction');
  });

  it('an interacting key’s coin locked in its creator coin counts with its balance; the poster’s does not', async () => {
    const creator = funded(1n);
    putProfile(view, { publicKey: creator, username: 'creator', description: '', profilePic: '', creatorBasisPoints: 0n, stakeMultipleBasisPoints: 0n, isHidden: false, extraData: [], creatorCoin: { ...EMPTY_CREATOR_COIN, nanosLocked: 4n * COIN } }, undefined);
    const own = await post(creator);
    const other = await post();
    addLike(view, creator, other.postHash);
    const [sOwn, sOther] = await scores([own, other]);
    assert.equal(sOwn, Math.floor(nanos(1n) * decay()), 'the creation score is the poster’s balance only');
    assert.equal(sOther, Math.floor(nanos(10n) * decay()) + Math.floor(nanos(5n) * decay()));
  });

  it('the interaction cap bounds what one key adds, and the creation score', async () => {
    const whale = funded(1_000_000n);
    const p = await post(funded(20_000n));
    addLike(view, whale, p.postHash);
    const cap = 3 * Number(COIN);
    const [s] = await scores([p], algorithm({ InteractionCap: cap }));
    assert.equal(s, 2 * Math.floor(cap * decay()));
  });

  it('scores halve every TimeDecayBlocks blocks of the post’s age', async () => {
    const p = await post();
    addLike(view, funded(6n), p.postHash);
    const a = algorithm({ TimeDecayBlocks: 10 });
    const [young] = await scores([p], a, none(), HEIGHT);
    const [older] = await scores([p], a, none(), HEIGHT + 10n);
    const [old] = await scores([p], a, none(), HEIGHT + 20n);
    assert.equal(young, Math.floor(nanos(10n) * decayFactor(1, 10)) + Math.floor(nanos(6n) * decayFactor(1, 10)));
    assert.ok(Math.abs(older! - young! / 2) <= 1, `${older} is half of ${young}`);
    assert.ok(Math.abs(old! - young! / 4) <= 1, `${old} is a quarter of ${young}`);
    // A newer post with the same interactions outranks an older one.
    const newer = await post(poster, { confirmationBlockHeight: HEIGHT + 20n });
    addLike(view, funded(6n), newer.postHash);
    const [sOld, sNew] = await scores([p, newer], a, none(), HEIGHT + 20n);
    assert.ok(sNew! > sOld!);
  });

  it('a post’s multiplier weighs its interactions, the poster’s PostsMultiplier everything, the liker’s InteractionMultiplier its likes', async () => {
    const [liker, booster] = [funded(4n), funded(4n)];
    const [p, q] = [await post(), await post()];
    addLike(view, liker, p.postHash);
    addLike(view, booster, q.postHash);
    const d = decay();
    const base = Math.floor(nanos(10n) * d);
    const like = Math.floor(nanos(4n) * d);
    const m = none();
    m.posts.set(toHex(p.postHash), 2.5);
    assert.deepEqual(await scores([p, q], algorithm(), m), [base + Math.floor(nanos(4n) * d * 2.5), base + like]);
    m.users.set(toHex(booster), { InteractionMultiplier: 3, PostsMultiplier: 1 });
    assert.deepEqual(await scores([p, q], algorithm(), m), [base + Math.floor(nanos(4n) * d * 2.5), base + Math.floor(nanos(4n) * d * 3)]);
    m.users.set(toHex(poster), { InteractionMultiplier: 1, PostsMultiplier: 0 });
    assert.deepEqual(await scores([p, q], algorithm(), m), [0, 0], 'a PostsMultiplier of 0 takes the poster’s posts out of contention');
  });

  it('the tag scores use InteractionCapTag and TimeDecayBlocksTag; tags come from the body', async () => {
    const p = await post(poster, { body: new TextEncoder().encode('{"Body":"gm #DeSo and @Bob, $coin # #deso"}') });
    addLike(view, funded(8n), p.postHash);
    const [s] = await scorePosts(view, [p], TIP, algorithm({ InteractionCapTag: Number(COIN), TimeDecayBlocksTag: 5 }), none());
    assert.deepEqual(s!.tags, ['#deso', '@bob,', '$coin']);
    assert.equal(s!.tagScore, 2 * Math.floor(Number(COIN) * decayFactor(1, 5)));
    assert.equal(s!.score, Math.floor(nanos(10n) * decay()) + Math.floor(nanos(8n) * decay()));
  });
});

describe('ranking members', () => {
  it('sort by score descending over the whole safe range, ties by post hash descending, and read back', () => {
    const [a, b] = ['0a'.repeat(32), 'f0'.repeat(32)];
    const members = [scoreMember(a, 0), scoreMember(a, Number.MAX_SAFE_INTEGER), scoreMember(a, 9), scoreMember(b, 9), scoreMember(a, 10), scoreMember(b, 1e15)];
    assert.deepEqual(
      [...members].sort().map(readRankMember),
      [
        { postHashHex: a, score: Number.MAX_SAFE_INTEGER },
        { postHashHex: b, score: 1e15 },
        { postHashHex: a, score: 10 },
        { postHashHex: b, score: 9 },
        { postHashHex: a, score: 9 },
        { postHashHex: a, score: 0 },
      ],
    );
  });
});

describe('parseTags', () => {
  it('keeps #, @ and $ words of two characters or more, lower-cased, each once, at most 20 of at most 100 bytes', () => {
    assert.deepEqual(parseTags('#A #a # @ $x'), ['#a', '$x']);
    assert.deepEqual(parseTags(Array.from({ length: 30 }, (_, i) => `#t${i}`).join(' ')).length, 20);
    assert.deepEqual(parseTags(`#${'é'.repeat(60)} #ok`), ['#ok']);
  });
});
