/**
 * The post read service (server/social/postReads.ts) over a state view: the follow feed over a
 * given list of followed accounts (the follow state is another area's), the recent feed's
 * filters, and the offset pages of reposters and comment threads. Posts are written with the
 * state layer's insertPost + reindexPost, as the SUBMIT_POST rules do.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { reindexPost } from '../../server/chain/state/postIndexes.js';
import { getPost, insertPost, updatePost, type PostRecord } from '../../server/chain/state/posts.js';
import { StateView } from '../../server/chain/state/view.js';
import type { Config } from '../../server/config.js';
import { toHex } from '../../server/hex.js';
import { followFeedPage, PostReads, recentPostsPage, repostersPage, singlePost, type SinglePostRequest } from '../../server/social/postReads.js';
import { setBlocked, updateUserMetadata } from '../../server/social/userMetadata.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { addProfile } from '../helpers/profiles.js';
import { postRecord } from '../helpers/posts.js';

const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);

let store: MemoryStore;
let view: StateView;
let clock: bigint;
let alice: Uint8Array;
let bob: Uint8Array;
let carol: Uint8Array;
let reader: Uint8Array;

interface NewPost {
  parent?: Uint8Array;
  repost?: Uint8Array;
  quoted?: boolean;
  image?: boolean;
}

/** A post by `pk`, one microsecond after the previous one. */
async function post(pk: Uint8Array, o: NewPost = {}): Promise<Uint8Array> {
  clock += 1_000n;
  const p = postRecord(pk, {
    parentStakeId: o.parent ?? new Uint8Array(0),
    body: new TextEncoder().encode(JSON.stringify(o.image ? { Body: 'x', ImageURLs: ['https://img.example/a.png'] } : { Body: 'x' })),
    repostedPostHash: o.repost ?? null,
    isQuotedRepost: o.quoted ?? false,
    timestampNanos: clock,
    confirmationBlockHeight: 5n,
  });
  insertPost(view, p);
  await reindexPost(view, undefined, p);
  return p.postHash;
}

async function hide(hash: Uint8Array): Promise<void> {
  const p = (await getPost(view, hash))!;
  const next = { ...p, isHidden: true };
  updatePost(view, next);
  await reindexPost(view, p, next);
}

const reads = (r: Uint8Array | null = reader): PostReads =>
  new PostReads({ deps: { config: { network: 'testnet' } as Config, store }, state: view, tipHeight: 10n, mined: store, reader: r, addGlobalFeedBool: false });
const hex = (hashes: Uint8Array[]): string[] => hashes.map(toHex);
const hashesOf = (posts: PostRecord[]): string[] => posts.map((p) => toHex(p.postHash));

beforeEach(() => {
  store = new MemoryStore();
  view = StateView.over(store);
  clock = 1_700_000_000_000_000_000n;
  [alice, bob, carol, reader] = [newKey(), newKey(), newKey(), newKey()];
  addProfile(view, alice, 'alice');
  addProfile(view, bob, 'bob');
  addProfile(view, carol, 'carol');
});

describe('followFeedPage', () => {
  it('merges the followed accounts\' top-level posts newest first, vanilla reposts included, and pages after a post', async () => {
    const a1 = await post(alice);
    const b1 = await post(bob);
    await post(carol);
    await post(bob, { parent: a1 });
    const a2 = await post(alice, { repost: b1 });
    const b2 = await post(bob, { image: true });
    const followed = [alice, bob, alice];
    const page = await followFeedPage(reads(), followed, { start: null, numToFetch: 3, mediaRequired: false });
    assert.deepEqual(hashesOf(page), hex([b2, a2, b1]), 'carol is not followed; comments are not posts; alice once');
    const next = await followFeedPage(reads(), followed, { start: page[2]!, numToFetch: 3, mediaRequired: false });
    assert.deepEqual(hashesOf(next), hex([a1]));
    assert.deepEqual(hashesOf(await followFeedPage(reads(), followed, { start: null, numToFetch: 5, mediaRequired: true })), hex([b2]));
    assert.deepEqual(await followFeedPage(reads(), followed, { start: null, numToFetch: 0, mediaRequired: false }), []);
  });

  it('leaves out blacklisted accounts and accounts the reader blocked, and hidden posts', async () => {
    const a1 = await post(alice);
    await post(bob);
    const c1 = await post(carol);
    await hide(c1);
    const c2 = await post(carol);
    await updateUserMetadata(store, bob, (m) => ({ ...m, removeEverywhere: true }));
    await setBlocked(store, reader, alice, false);
    const page = await followFeedPage(reads(), [alice, bob, carol], { start: null, numToFetch: 10, mediaRequired: false });
    assert.deepEqual(hashesOf(page), hex([c2]));
    const bobsOwn = await followFeedPage(reads(bob), [alice, bob], { start: null, numToFetch: 10, mediaRequired: false });
    assert.equal(bobsOwn.length, 2, 'a blacklisted reader still sees their own posts');
    assert.deepEqual(hashesOf(bobsOwn).at(-1), toHex(a1));
  });
});

describe('recentPostsPage', () => {
  it('skips graylisted and blocked authors and still fills the page from older entries', async () => {
    const a1 = await post(alice);
    const a2 = await post(alice);
    for (let i = 0; i < 5; i++) await post(bob);
    await updateUserMetadata(store, bob, (m) => ({ ...m, removeFromLeaderboard: true }));
    assert.deepEqual(hashesOf(await recentPostsPage(reads(), { start: null, numToFetch: 2, mediaRequired: false })), hex([a2, a1]));
    assert.equal((await recentPostsPage(reads(bob), { start: null, numToFetch: 2, mediaRequired: false })).length, 2, 'bob sees his own');
    await setBlocked(store, reader, alice, false);
    assert.deepEqual(await recentPostsPage(reads(), { start: null, numToFetch: 2, mediaRequired: false }), [], 'the reader blocked alice');
    assert.deepEqual(hashesOf(await recentPostsPage(reads(null), { start: null, numToFetch: 2, mediaRequired: false })), hex([a2, a1]), 'others still see her');
  });
});

describe('repostersPage', () => {
  it('lists each reposter once by their current repost, skips hidden reposts and profile-less reposters, and pages by Offset/Limit', async () => {
    const original = await post(alice);
    const noProfile = newKey();
    await post(bob, { repost: original });
    // A second vanilla repost replaces the first in core's repost entry (and here).
    await post(bob, { repost: original });
    await post(carol, { repost: original });
    await post(noProfile, { repost: original });
    const d = await post(alice, { repost: original });
    await hide(d);
    const names = async (offset: number, limit: number): Promise<unknown[]> =>
      (await repostersPage(reads(), { postHash: original, offset, limit })).map((p) => p['Username']);
    assert.deepEqual(await names(0, 10), ['carol', 'bob']);
    assert.deepEqual(await names(1, 10), ['bob']);
    assert.deepEqual(await names(0, 1), ['carol']);
    assert.deepEqual(await names(2, 10), []);
  });
});

describe('singlePost comment threads', () => {
  const req = (postHash: Uint8Array, o: Partial<SinglePostRequest> = {}): SinglePostRequest => ({
    postHash,
    fetchParents: false,
    commentOffset: 0,
    commentLimit: 30,
    threadLevelLimit: 4,
    threadLeafLimit: -1,
    loadAuthorThread: false,
    ...o,
  });
  const tree = (comments: unknown): unknown =>
    comments === null ? null : (comments as Record<string, unknown>[]).map((c) => [c['PostHashHex'], tree(c['Comments'])]);

  it('loads replies level by level, keeps ThreadLeafLimit replies below the top level, and none for a negative limit other than -1', async () => {
    const root = await post(alice);
    const c1 = await post(bob, { parent: root });
    const r1 = await post(carol, { parent: c1 });
    const r2 = await post(alice, { parent: c1 });
    const rr = await post(bob, { parent: r1 });
    const h = (x: Uint8Array): string => toHex(x);
    assert.deepEqual(tree((await singlePost(reads(), req(root)))['Comments']), [[h(c1), [[h(r2), null], [h(r1), [[h(rr), null]]]]]]);
    assert.deepEqual(tree((await singlePost(reads(), req(root, { threadLeafLimit: 1 })))['Comments']), [[h(c1), [[h(r2), null]]]]);
    assert.deepEqual(tree((await singlePost(reads(), req(root, { threadLeafLimit: -2 })))['Comments']), [[h(c1), null]]);
    assert.deepEqual(tree((await singlePost(reads(), req(root, { threadLevelLimit: 1 })))['Comments']), [[h(c1), [[h(r2), null], [h(r1), null]]]]);
  });
});
