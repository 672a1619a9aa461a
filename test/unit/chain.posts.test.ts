/**
 * SUBMIT_POST rules over a state view (core's _connectSubmitPost, every fork active): posts,
 * comments, reposts and quoted reposts, edits, hiding, freezing, the stored indexes and
 * counters, and each rule error.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { setBalance } from '../../server/chain/state/balances.js';
import { getPost, hashesOfMembers, parsePostBody, postKeys, type PostRecord } from '../../server/chain/state/posts.js';
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
