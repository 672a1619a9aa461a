/**
 * SUBMIT_POST rules over a state view (core's _connectSubmitPost, every fork active): posts,
 * comments, reposts and quoted reposts, edits, hiding, freezing, the stored indexes and
 * counters, each rule error, and the read indexes every change keeps (state/postIndexes.ts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { setBalance } from '../../server/chain/state/balances.js';
import { getPost, hashesOfMembers, parsePostBody, postKeys, type PostRecord } from '../../server/chain/state/posts.js';
import { commentMember, postHasMedia, postIndexKeys, postMember, readCommentMember, readPostMember } from '../../server/chain/state/postIndexes.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import type { SubmitPostMetadata } from '../../server/chain/txn/metadata.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { toHex } from '../../server/hex.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const ctx: ConnectContext = { height: 10n, rules: { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n }, crypto: {} as CryptoService };
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const bodyOf = (text: string): Uint8Array => utf8(JSON.stringify({ Body: text }));

let view: StateView;
let alice: Uint8Array;
let bob: Uint8Array;
let clock = 1_700_000_000_000_000_000n;

interface Submit {
  body?: string;
  parent?: Uint8Array;
  modify?: Uint8Array;
  repost?: Uint8Array;
  quoted?: boolean;
  frozen?: boolean;
  hidden?: boolean;
  extra?: Array<[string, string]>;
  meta?: Partial<SubmitPostMetadata>;
  /** Connect under this post hash instead of the transaction's. */
  hash?: Uint8Array;
}

/** Connects a SUBMIT_POST of `pk`; answers the post hash (the final transaction hash for a new post). */
async function submit(pk: Uint8Array, s: Submit = {}): Promise<Uint8Array> {
  clock += 1_000n;
  const extraData: Array<[Uint8Array, Uint8Array]> = (s.extra ?? []).map(([k, v]) => [utf8(k), utf8(v)]);
  if (s.repost) extraData.push([utf8('RecloutedPostHash'), s.repost], [utf8('IsQuotedReclout'), Uint8Array.of(s.quoted ? 1 : 0)]);
  if (s.frozen) extraData.push([utf8('IsFrozen'), Uint8Array.of(1)]);
  const metadata: SubmitPostMetadata = {
    type: 'SUBMIT_POST',
    postHashToModify: s.modify ?? new Uint8Array(0),
    parentStakeId: s.parent ?? new Uint8Array(0),
    body: s.body === undefined ? (s.modify ? new Uint8Array(0) : bodyOf('hello')) : bodyOf(s.body),
    creatorBasisPoints: 1000n,
    stakeMultipleBasisPoints: 12_500n,
    timestampNanos: clock,
    isHidden: s.hidden ?? false,
    ...s.meta,
  };
  const c = constructTxn({
    publicKey: pk,
    metadata,
    extraData: extraData.sort(([a], [b]) => Buffer.compare(a, b)),
    minFeeRateNanosPerKB: 1000n,
    networkMinFeeRateNanosPerKB: 0n,
    tipHeight: 9n,
    maxNonceExpirationBlockHeightOffset: 86_400n,
  });
  const hash = s.hash ?? sha256d(c.bytes);
  await connectTransaction(view, decodeTxn(c.bytes), { hash, size: c.bytes.length, signer: pk }, ctx);
  return s.modify ?? hash;
}

async function post(hash: Uint8Array): Promise<PostRecord> {
  const p = await getPost(view, hash);
  assert.ok(p, `post ${toHex(hash)} exists`);
  return p;
}

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RuleError && e.code === code, `expected ${code}`);
}

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  [alice, bob] = [newKey(), newKey()];
  for (const pk of [alice, bob]) setBalance(view, pk, 1_000_000_000n);
});

describe('SUBMIT_POST: new posts and comments', () => {
  it('stores a post under its transaction hash and indexes it by poster and time', async () => {
    const h = await submit(alice, { body: 'first', extra: [['Language', 'en']] });
    const p = await post(h);
    assert.deepEqual(p.posterPublicKey, alice);
    assert.deepEqual(parsePostBody(p), { Body: 'first', ImageURLs: [], VideoURLs: [] });
    assert.equal(p.confirmationBlockHeight, 10n);
    assert.equal(p.isHidden, false);
    assert.deepEqual(p.postExtraData.map(([k, v]) => [Buffer.from(k).toString(), Buffer.from(v).toString()]), [['Language', 'en']]);
    const h2 = await submit(alice, { body: 'second' });
    assert.deepEqual(hashesOfMembers(await view.indexRange(postKeys.byPoster(alice), { reverse: true })), [h2, h], 'newest first');
    assert.deepEqual(hashesOfMembers(await view.indexRange(postKeys.topLevel)), [h, h2]);
  });

  it('counts a comment on its parent and grandparent and indexes it under the parent', async () => {
    const root = await submit(alice);
    const comment = await submit(bob, { parent: root, body: 'nice' });
    const reply = await submit(alice, { parent: comment, body: 'thanks' });
    assert.equal((await post(root)).commentCount, 2n, 'the comment and the reply');
    assert.equal((await post(comment)).commentCount, 1n);
    assert.deepEqual(hashesOfMembers(await view.indexRange(postKeys.comments(root))), [comment]);
    assert.deepEqual(hashesOfMembers(await view.indexRange(postKeys.comments(comment))), [reply]);
    assert.deepEqual(hashesOfMembers(await view.indexRange(postKeys.topLevel)), [root], 'comments are not top-level posts');
    assert.equal((await view.indexRange(postKeys.byPoster(bob))).length, 1, 'a comment is among its poster\'s posts');
  });

  it('accepts a comment on a profile key without counters', async () => {
    const c = await submit(bob, { parent: alice });
    assert.deepEqual(hashesOfMembers(await view.indexRange(postKeys.comments(alice))), [c]);
  });

  it('refuses a comment on a missing post and a malformed parent', async () => {
    await rejects(submit(bob, { parent: new Uint8Array(32).fill(7) }), 'RuleErrorSubmitPostParentNotFound');
    await rejects(submit(bob, { parent: new Uint8Array(5) }), 'RuleErrorSubmitPostInvalidParentStakeIDLength');
  });

  it('refuses core\'s invalid values and a hash that already has a post', async () => {
    await rejects(submit(alice, { meta: { stakeMultipleBasisPoints: 9_999n } }), 'RuleErrorSubmitPostStakeMultipleSize');
    await rejects(submit(alice, { meta: { stakeMultipleBasisPoints: 100_001n } }), 'RuleErrorSubmitPostStakeMultipleSize');
    await rejects(submit(alice, { meta: { creatorBasisPoints: 10_001n } }), 'RuleErrorSubmitPostCreatorPercentageSize');
    await rejects(submit(alice, { meta: { timestampNanos: 0n } }), 'RuleErrorSubmitPostTimestampIsZero');
    const h = await submit(alice);
    await rejects(submit(alice, { hash: h }), 'RuleErrorPostAlreadyExists');
  });
});

describe('SUBMIT_POST: reposts', () => {
  it('counts a repost and a quoted repost on the original', async () => {
    const original = await submit(alice);
    const repost = await submit(bob, { repost: original, body: '' });
    await submit(bob, { repost: original, quoted: true, body: 'look' });
    const o = await post(original);
    assert.equal(o.repostCount, 1n);
    assert.equal(o.quoteRepostCount, 1n);
    const r = await post(repost);
    assert.deepEqual(r.repostedPostHash, original);
    assert.equal(r.isQuotedRepost, false);
    assert.deepEqual(r.postExtraData, [], 'the consensus keys are not post ExtraData');
    assert.equal(await view.get(postKeys.repost(bob, original)), toHex(repost), 'who reposted what');
  });

  it('refuses a repost of a missing post and of a repost without a quote', async () => {
    await rejects(submit(bob, { repost: new Uint8Array(32).fill(9) }), 'RuleErrorSubmitPostRepostPostNotFound');
    const original = await submit(alice);
    const vanilla = await submit(bob, { repost: original, body: '' });
    await rejects(submit(alice, { repost: vanilla, body: '' }), 'RuleErrorSubmitPostRepostOfRepost');
    // Core refuses quoting a vanilla repost too.
    await rejects(submit(alice, { repost: vanilla, quoted: true, body: 'quote' }), 'RuleErrorSubmitPostRepostOfRepost');
  });
});

describe('SUBMIT_POST: edits, hiding, freezing', () => {
  it('lets the poster edit the body and ExtraData (empty values delete keys)', async () => {
    const h = await submit(alice, { body: 'typo', extra: [['a', '1'], ['b', '2']] });
    const before = await post(h);
    await submit(alice, { modify: h, body: 'fixed', extra: [['a', ''], ['c', '3']] });
    const p = await post(h);
    assert.deepEqual(parsePostBody(p).Body, 'fixed');
    assert.equal(p.timestampNanos, before.timestampNanos, 'an edit keeps the timestamp');
    assert.deepEqual(p.postExtraData.map(([k]) => Buffer.from(k).toString()), ['b', 'c']);
    await submit(alice, { modify: h });
    assert.equal(parsePostBody(await post(h)).Body, 'fixed', 'an empty body keeps the old one');
  });

  it('takes a hidden comment and its replies out of its ancestors\' counts and puts them back', async () => {
    const root = await submit(alice);
    const comment = await submit(bob, { parent: root });
    await submit(alice, { parent: comment });
    assert.equal((await post(root)).commentCount, 2n);
    await submit(bob, { modify: comment, hidden: true });
    assert.equal((await post(comment)).isHidden, true);
    assert.equal((await post(root)).commentCount, 0n);
    await submit(bob, { modify: comment, hidden: false });
    assert.equal((await post(root)).commentCount, 2n);
  });

  it('takes a hidden repost out of the original\'s repost count', async () => {
    const original = await submit(alice);
    const repost = await submit(bob, { repost: original, body: '' });
    await submit(bob, { modify: repost, repost: original, hidden: true });
    assert.equal((await post(original)).repostCount, 0n);
  });

  it('refuses edits of a frozen post', async () => {
    const h = await submit(alice, { frozen: true });
    assert.equal((await post(h)).isFrozen, true);
    await rejects(submit(alice, { modify: h, body: 'changed' }), 'RuleErrorSubmitPostModifyingFrozenPost');
  });

  it('refuses edits by others, of missing posts, and of the repost fields', async () => {
    const h = await submit(alice);
    await rejects(submit(bob, { modify: h, body: 'mine now' }), 'RuleErrorSubmitPostPostModificationNotAuthorized');
    await rejects(submit(alice, { modify: new Uint8Array(32).fill(3), body: 'x' }), 'RuleErrorSubmitPostModifyingNonexistentPost');
    await rejects(submit(alice, { modify: new Uint8Array(5), body: 'x' }), 'RuleErrorSubmitPostInvalidPostHashToModify');
    const original = await submit(bob);
    await rejects(submit(alice, { modify: h, repost: original, quoted: true, body: 'x' }), 'RuleErrorSubmitPostUpdateRepostHash');
    const quote = await submit(alice, { repost: original, quoted: true, body: 'q' });
    await rejects(submit(alice, { modify: quote, repost: original, quoted: false }), 'RuleErrorSubmitPostUpdateIsQuotedRepost');
  });
});

describe('post read indexes (state/postIndexes.ts)', () => {
  const hashes = async (key: string, reverse = false): Promise<string[]> => (await view.indexRange(key, { reverse })).map((m) => toHex(readPostMember(m).postHash));
  const comments = async (parent: Uint8Array): Promise<string[]> => (await view.indexRange(postIndexKeys.comments(parent))).map((m) => toHex(readCommentMember(m).postHash));
  const withImage = (text: string): Partial<SubmitPostMetadata> => ({ body: utf8(JSON.stringify({ Body: text, ImageURLs: ['https://img.example/x.png'] })) });

  it('members decode to their post and sort by time across digit lengths, then by hash', () => {
    const hash = new Uint8Array(32).fill(0xab);
    const m = readPostMember(postMember({ timestampNanos: 1_700_000_000_000_000_000n, postHash: hash, posterPublicKey: alice }));
    assert.deepEqual(m, { timestampNanos: 1_700_000_000_000_000_000n, postHash: hash, poster: alice });
    const at = (ts: bigint, fill: number): string => postMember({ timestampNanos: ts, postHash: new Uint8Array(32).fill(fill), posterPublicKey: bob });
    const sorted = [at(256n, 1), at(255n, 9), at(256n, 0), at(1n << 63n, 0)].sort();
    assert.deepEqual(sorted, [at(255n, 9), at(256n, 0), at(256n, 1), at(1n << 63n, 0)]);
    const c = readCommentMember(commentMember({ timestampNanos: 42n, postHash: hash, posterPublicKey: bob }, false));
    assert.deepEqual(c, { timestampNanos: 42n, postHash: hash, poster: bob });
  });

  it('lists a poster\'s top-level posts (vanilla reposts too) and the recent feed (no vanilla reposts), newest first', async () => {
    const p1 = await submit(alice, { body: 'one' });
    const p2 = await submit(alice, { meta: withImage('two') });
    await submit(bob, { parent: p1, body: 'a comment is no top-level post' });
    const vanilla = await submit(alice, { repost: p1, body: '' });
    const quote = await submit(bob, { repost: p2, quoted: true, body: 'see this' });
    assert.deepEqual(await hashes(postIndexKeys.byPoster(alice), true), [vanilla, p2, p1].map(toHex));
    assert.deepEqual(await hashes(postIndexKeys.byPosterWithMedia(alice), true), [toHex(p2)]);
    assert.deepEqual(await hashes(postIndexKeys.recent, true), [quote, p2, p1].map(toHex));
    assert.deepEqual(await hashes(postIndexKeys.recentWithMedia, true), [toHex(p2)]);
    assert.deepEqual(await hashes(postIndexKeys.reposts(p1)), [toHex(vanilla)]);
    assert.deepEqual(await hashes(postIndexKeys.quoteReposts(p2)), [toHex(quote)]);
    assert.deepEqual(await hashes(postIndexKeys.reposts(p2)), [], 'a quote is not a vanilla repost');
  });

  it('takes a hidden post out of every list and puts it back when unhidden', async () => {
    const original = await submit(bob);
    const h = await submit(alice, { repost: original, quoted: true, body: 'q' });
    const vanilla = await submit(alice, { repost: original, body: '' });
    await submit(alice, { modify: h, repost: original, quoted: true, hidden: true });
    await submit(alice, { modify: vanilla, repost: original, hidden: true });
    assert.deepEqual(await hashes(postIndexKeys.byPoster(alice)), []);
    assert.deepEqual(await hashes(postIndexKeys.recent), [toHex(original)]);
    assert.deepEqual(await hashes(postIndexKeys.quoteReposts(original)), []);
    assert.deepEqual(await hashes(postIndexKeys.reposts(original)), []);
    assert.equal(await view.get(postKeys.repost(alice, original)), toHex(vanilla), 'the repost entry stays (reader state)');
    await submit(alice, { modify: h, repost: original, quoted: true, hidden: false });
    assert.deepEqual(await hashes(postIndexKeys.byPoster(alice)), [toHex(h)]);
    assert.deepEqual(await hashes(postIndexKeys.quoteReposts(original)), [toHex(h)]);
  });

  it('moves an edited post into or out of the media lists (images, or PostExtraData EmbedVideoURL)', async () => {
    const h = await submit(alice, { body: 'plain' });
    assert.deepEqual(await hashes(postIndexKeys.byPosterWithMedia(alice)), []);
    await submit(alice, { modify: h, meta: withImage('now with a picture') });
    assert.deepEqual(await hashes(postIndexKeys.byPosterWithMedia(alice)), [toHex(h)]);
    assert.deepEqual(await hashes(postIndexKeys.recentWithMedia), [toHex(h)]);
    await submit(alice, { modify: h, body: 'picture gone' });
    assert.deepEqual(await hashes(postIndexKeys.recentWithMedia), []);
    await submit(alice, { modify: h, extra: [['EmbedVideoURL', 'https://video.example/v']] });
    assert.deepEqual(await hashes(postIndexKeys.recentWithMedia), [toHex(h)]);
    assert.equal(postHasMedia(await post(h)), true);
  });

  it('orders a post\'s comments: its author\'s own oldest first, then the rest newest first', async () => {
    const root = await submit(alice);
    const b1 = await submit(bob, { parent: root, body: 'b1' });
    const a1 = await submit(alice, { parent: root, body: 'a1' });
    const b2 = await submit(bob, { parent: root, body: 'b2' });
    const a2 = await submit(alice, { parent: root, body: 'a2' });
    assert.deepEqual(await comments(root), [a1, a2, b2, b1].map(toHex));
    const reply = await submit(alice, { parent: b1, body: 'reply to bob' });
    assert.deepEqual(await comments(b1), [toHex(reply)], 'under bob\'s comment, alice is not the author');
    const onProfile = await submit(bob, { parent: alice, body: 'on a profile' });
    assert.deepEqual(await comments(alice), [toHex(onProfile)]);
  });

  it('keeps a hidden comment listed while it has comments of its own, and drops it when they go', async () => {
    const root = await submit(alice);
    const lone = await submit(bob, { parent: root });
    const busy = await submit(bob, { parent: root });
    const reply = await submit(alice, { parent: busy });
    await submit(bob, { modify: lone, hidden: true });
    await submit(bob, { modify: busy, hidden: true });
    assert.deepEqual(await comments(root), [toHex(busy)], 'the hidden comment with a reply stays');
    await submit(alice, { modify: reply, hidden: true });
    assert.equal((await post(busy)).commentCount, 0n);
    assert.deepEqual(await comments(root), [], 'its last reply hidden, it goes');
    await submit(alice, { modify: reply, hidden: false });
    assert.deepEqual(await comments(root), [toHex(busy)]);
    await submit(bob, { modify: lone, hidden: false });
    assert.deepEqual(await comments(root), [busy, lone].map(toHex));
  });
});
