/**
 * Profiles, posts and creator coins end to end on a real node: update-profile, submit-post
 * (post, comment, repost, quoted repost, edit) and buy-or-sell-creator-coin construct over
 * HTTP → signed through our identity service and through the SDK → submit-transaction → mined
 * by the node's miner → state read through the chain-state accessors. Also send-deso to a
 * username, and the rejections: at construction (reference texts) and at submission (rule
 * error names).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { creatorCoinBalance, getHolding } from '../../server/chain/state/creatorCoins.js';
import { getPost, hashesOfMembers, parsePostBody, postKeys } from '../../server/chain/state/posts.js';
import { getProfile, publicKeyForUsername } from '../../server/chain/state/profiles.js';
import { decodeTxn, encodeTxn } from '../../server/chain/txn/envelope.js';
import { decodeMetadata, encodeMetadata, type UpdateProfileMetadata } from '../../server/chain/txn/metadata.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';

const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const FEE_RATE = 1000;
const NANOS = 1_000_000_000;

let n: ChainNode;
const alice = keyPair();
const bob = keyPair();
const carol = keyPair();
const hexBytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

before(async () => {
  n = await startChainNode();
  // Block rewards (1 native each) for the funding below.
  for (let i = 0; i < 6; i++) await n.mineBlock();
  for (const k of [alice, bob, carol]) await n.fund(k.pk, 2.5 * NANOS);
});
after(async () => {
  await n?.close();
});

/** Signs and submits, expecting submit-transaction to refuse with `re`. */
async function submitFails(txnHex: string, key: KeyPair, re: RegExp): Promise<void> {
  await n.fails('submit-transaction', { TransactionHex: await n.sign(txnHex, key, 'sdk') }, re);
}

const profileBody = (key: KeyPair, fields: J): J => ({ UpdaterPublicKeyBase58Check: key.pk, NewStakeMultipleBasisPoints: 12_500, MinFeeRateNanosPerKB: FEE_RATE, ...fields });

describe('update-profile', () => {
  it('creates a profile (signed through identity), then updates it (signed through the SDK)', async () => {
    const c = await n.ok('update-profile', profileBody(alice, { NewUsername: 'Alice', NewDescription: 'first', NewProfilePic: PNG_1PX, NewCreatorBasisPoints: 1000 }));
    for (const f of ['TotalInputNanos', 'ChangeAmountNanos', 'FeeNanos', 'Transaction', 'TransactionHex', 'TxnHashHex']) assert.ok(f in c, `response has ${f}`);
    assert.equal(c['CompProfileCreationTxnHashHex'], '');
    assert.equal(c['TotalInputNanos'], c['FeeNanos'], 'no creation fee is configured');
    await n.submit(c['TransactionHex'] as string, alice, 'identity');
    const p = await getProfile(n.deps.store, alice.pk33);
    assert.ok(p, 'the profile is on chain');
    assert.equal(p.username, 'Alice');
    assert.equal(p.profilePic, PNG_1PX, 'the picture is stored as sent');
    assert.equal(p.creatorBasisPoints, 1000n);
    assert.deepEqual(await publicKeyForUsername(n.deps.store, 'alice'), alice.pk33);

    const u = await n.ok('update-profile', profileBody(alice, { NewDescription: 'second', NewCreatorBasisPoints: 1000 }));
    await n.submit(u['TransactionHex'] as string, alice, 'sdk');
    const p2 = await getProfile(n.deps.store, alice.pk33);
    assert.equal(p2?.description, 'second');
    assert.equal(p2?.username, 'Alice', 'the username is kept');
  });

  it('refuses a taken username, a bad picture and out-of-range fields at construction', async () => {
    await n.fails('update-profile', profileBody(bob, { NewUsername: 'ALICE' }), /^UpdateProfile: Username Alice already exists$/);
    await n.fails('update-profile', profileBody(bob, { NewUsername: 'bob', NewProfilePic: 'https://example.com/a.png' }), /^Problem resizing profile picture: /);
    await n.fails('update-profile', profileBody(bob, { NewUsername: 'bob', NewProfilePic: 'data:image/png;base64,R0lGODlhAQABAAAAACw=' }), /^Problem resizing profile picture: the data is not a png image$/);
    await n.fails('update-profile', profileBody(bob, { NewUsername: 'tBCbob' }), /^UpdateProfile: Username cannot start with tBC$/);
    await n.fails('update-profile', profileBody(bob, { NewUsername: 'b'.repeat(26) }), /^RuleErrorProfileUsernameTooLong$/);
    await n.fails('update-profile', profileBody(bob, { NewUsername: 'bob!' }), /^RuleErrorInvalidUsername$/);
    await n.fails('update-profile', profileBody(bob, { NewUsername: 'bob', NewCreatorBasisPoints: 10_001 }), /^UpdateProfile: Creator percentage must be less than 100 percent$/);
    await n.fails('update-profile', { UpdaterPublicKeyBase58Check: 'not-a-key' }, /^UpdateProfile: Problem decoding public key: UpdaterPublicKeyBase58Check/);
  });

  it('refuses at submission a self-signed picture that is not an image data URL (header injection, svg)', async () => {
    const dave = keyPair();
    await n.fund(dave.pk, NANOS / 10);
    // update-profile refuses these pictures, so the attacker builds the transaction itself:
    // a valid one without a picture, with the picture swapped into its metadata.
    const c = await n.ok('update-profile', profileBody(dave, { NewUsername: 'dave_pic', NewCreatorBasisPoints: 1000 }));
    const withPic = (pic: string): string => {
      const t = decodeTxn(hexBytes(c['TransactionHex'] as string));
      const m = decodeMetadata(t.txnType, t.metadata) as UpdateProfileMetadata;
      const metadata = encodeMetadata({ ...m, newProfilePic: new TextEncoder().encode(pic) });
      // A generous fee, so only the picture can be the reason for a refusal.
      return Buffer.from(encodeTxn({ ...t, metadata, v1: { ...t.v1!, feeNanos: t.v1!.feeNanos + 100_000n } })).toString('hex');
    };
    const pics = [
      'data:image/png\r\nSet-Cookie: pwn=1; Path=/\r\nX-Injected: yes;base64,AAAA',
      `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString('base64')}`,
      'data:image/png;base64,AAA',
      'data:text/html;base64,PHNjcmlwdD4=',
    ];
    for (const pic of pics) await submitFails(withPic(pic), dave, /RuleErrorProfilePicNotImageDataURL/);
    assert.equal(await getProfile(n.deps.store, dave.pk33), undefined, 'no profile was written');
    // The same transaction with a real picture is accepted: only the picture was refused.
    await n.submit(withPic(PNG_1PX), dave, 'sdk');
    assert.equal((await getProfile(n.deps.store, dave.pk33))?.profilePic, PNG_1PX);
  });

  it('refuses at submission what only the rules check', async () => {
    const noStake = await n.ok('update-profile', { UpdaterPublicKeyBase58Check: bob.pk, NewUsername: 'bob', MinFeeRateNanosPerKB: FEE_RATE });
    await submitFails(noStake['TransactionHex'] as string, bob, /RuleErrorProfileStakeMultipleSize/);
    const others = await n.ok('update-profile', profileBody(bob, { ProfilePublicKeyBase58Check: carol.pk, NewUsername: 'not_carol' }));
    await submitFails(others['TransactionHex'] as string, bob, /RuleErrorProfilePubKeyNotAuthorized/);
    assert.equal(await getProfile(n.deps.store, carol.pk33), undefined, 'carol has no profile');
  });
});

describe('send-deso to a username', () => {
  it('pays the profile owner, whatever the case of the name', async () => {
    const before = await n.deps.chain.balance(alice.pk33);
    const c = await n.ok('send-deso', { SenderPublicKeyBase58Check: bob.pk, RecipientPublicKeyOrUsername: 'aLiCe', AmountNanos: 12_345, MinFeeRateNanosPerKB: FEE_RATE });
    await n.submit(c['TransactionHex'] as string, bob, 'identity');
    assert.equal(await n.deps.chain.balance(alice.pk33), before + 12_345n);
  });

  it('refuses a username without a profile', async () => {
    await n.fails('send-deso', { SenderPublicKeyBase58Check: bob.pk, RecipientPublicKeyOrUsername: 'nobody_here', AmountNanos: 1, MinFeeRateNanosPerKB: FEE_RATE }, /^SendDeSo: Profile with username nobody_here does not exist$/);
  });
});

describe('submit-post', () => {
  let postHash: Uint8Array;

  const submitPost = async (key: KeyPair, fields: J, by: 'identity' | 'sdk'): Promise<J> => {
    const c = await n.ok('submit-post', { UpdaterPublicKeyBase58Check: key.pk, MinFeeRateNanosPerKB: FEE_RATE, ...fields });
    for (const f of ['TstampNanos', 'PostHashHex', 'TotalInputNanos', 'ChangeAmountNanos', 'FeeNanos', 'Transaction', 'TransactionHex']) assert.ok(f in c, `response has ${f}`);
    return n.submit(c['TransactionHex'] as string, key, by);
  };

  it('creates a post; submit-transaction answers its PostEntryResponse', async () => {
    const s = await submitPost(alice, { BodyObj: { Body: 'hello <world>', ImageURLs: ['https://example.com/i.png'] } }, 'identity');
    const entry = s['PostEntryResponse'] as J;
    assert.equal(entry['PostHashHex'], s['TxnHashHex'], 'the post hash is the final transaction hash');
    assert.equal(entry['PosterPublicKeyBase58Check'], alice.pk);
    assert.equal(entry['Body'], 'hello <world>');
    assert.deepEqual(entry['ImageURLs'], ['https://example.com/i.png']);
    postHash = hexBytes(s['TxnHashHex'] as string);
    const p = await getPost(n.deps.store, postHash);
    assert.ok(p, 'the post is on chain');
    assert.equal(Buffer.from(p.body).toString(), '{"Body":"hello \\u003cworld\\u003e","ImageURLs":["https://example.com/i.png"]}', 'the body as Go writes it');
    assert.deepEqual(hashesOfMembers(await n.deps.store.indexRange(postKeys.byPoster(alice.pk33))), [postHash]);
  });

  it('comments on the post (signed through the SDK)', async () => {
    const s = await submitPost(bob, { ParentStakeID: Buffer.from(postHash).toString('hex'), BodyObj: { Body: 'nice' } }, 'sdk');
    const comment = hexBytes(s['TxnHashHex'] as string);
    assert.equal((await getPost(n.deps.store, postHash))?.commentCount, 1n);
    assert.deepEqual(hashesOfMembers(await n.deps.store.indexRange(postKeys.comments(postHash))), [comment]);
  });

  it('reposts and quote-reposts the post', async () => {
    const r = await submitPost(bob, { RepostedPostHashHex: Buffer.from(postHash).toString('hex'), BodyObj: {} }, 'identity');
    assert.equal(((r['PostEntryResponse'] as J)['RepostedPostEntryResponse'] as J)['PostHashHex'], Buffer.from(postHash).toString('hex'));
    const q = await submitPost(carol, { RepostedPostHashHex: Buffer.from(postHash).toString('hex'), BodyObj: { Body: 'look at this' } }, 'sdk');
    const original = await getPost(n.deps.store, postHash);
    assert.equal(original?.repostCount, 1n);
    assert.equal(original?.quoteRepostCount, 1n);
    const quote = await getPost(n.deps.store, hexBytes(q['TxnHashHex'] as string));
    assert.equal(quote?.isQuotedRepost, true);
    await n.fails('submit-post', { UpdaterPublicKeyBase58Check: carol.pk, RepostedPostHashHex: r['TxnHashHex'], BodyObj: {} }, /^SubmitPost: Cannot repost a post that is a repost without a quote$/);
  });

  it('edits the post (signed through the SDK)', async () => {
    const s = await submitPost(alice, { PostHashHexToModify: Buffer.from(postHash).toString('hex'), BodyObj: { Body: 'hello again' } }, 'sdk');
    assert.equal((s['PostEntryResponse'] as J)['PostHashHex'], Buffer.from(postHash).toString('hex'), 'the edited post');
    const p = await getPost(n.deps.store, postHash);
    assert.equal(p && parsePostBody(p).Body, 'hello again');
    assert.equal(p?.commentCount, 1n, 'counters survive the edit');
  });

  it('refuses a comment on a missing post at submission', async () => {
    const c = await n.ok('submit-post', { UpdaterPublicKeyBase58Check: bob.pk, ParentStakeID: randomBytes(32).toString('hex'), BodyObj: { Body: 'hello?' }, MinFeeRateNanosPerKB: FEE_RATE });
    await submitFails(c['TransactionHex'] as string, bob, /RuleErrorSubmitPostParentNotFound/);
  });

  it('refuses malformed requests at construction', async () => {
    const base = { UpdaterPublicKeyBase58Check: bob.pk };
    await n.fails('submit-post', { ...base, ParentStakeID: 'xyz', BodyObj: { Body: 'a' } }, /^SubmitPost: Unrecognized parent stake ID: xyz$/);
    await n.fails('submit-post', base, /^SubmitPost: BodyObj is required$/);
    await n.fails('submit-post', { ...base, BodyObj: {} }, /^SubmitPost: Error validating body bytes: SubmitPost: Body or Image or Video is required if not reposting\.$/);
    await n.fails('submit-post', { ...base, BodyObj: { Body: 'x'.repeat(50_000) } }, /Body is too long\. Length is 50011 but must be no more than 50000$/);
    await n.fails('submit-post', { ...base, PostHashHexToModify: 'abcd', BodyObj: { Body: 'a' } }, /^SubmitPost: Invalid length for PostHashHexToModify abcd$/);
  });
});

describe('buy-or-sell-creator-coin', () => {
  const trade = (key: KeyPair, fields: J): Promise<J> =>
    n.ok('buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: key.pk, CreatorPublicKeyBase58Check: alice.pk, MinFeeRateNanosPerKB: FEE_RATE, ...fields });

  it('buys a creator coin (signed through identity) with the expected coins and the native founder reward', async () => {
    const aliceBefore = await n.deps.chain.balance(alice.pk33);
    const carolBefore = await n.deps.chain.balance(carol.pk33);
    const c = await trade(carol, { OperationType: 'buy', DeSoToSellNanos: NANOS });
    const expected = BigInt(c['ExpectedCreatorCoinReturnedNanos'] as number);
    assert.ok(expected > 0n, 'coins are expected');
    assert.equal(c['SpendAmountNanos'], NANOS);
    assert.equal(c['TotalInputNanos'], NANOS + (c['FeeNanos'] as number));
    assert.equal(c['ExpectedNativeReturnedNanos'], 0);
    assert.equal(c['FounderRewardGeneratedNanos'], 0, 'no founder reward in coins under current rules');
    await n.submit(c['TransactionHex'] as string, carol, 'identity');
    assert.equal(await creatorCoinBalance(n.deps.store, carol.pk33, alice.pk33), expected, 'the coins the route predicted');
    assert.equal(await n.deps.chain.balance(carol.pk33), carolBefore - BigInt(NANOS) - BigInt(c['FeeNanos'] as number));
    const afterFees = (BigInt(NANOS) * 9_999n) / 10_000n;
    assert.equal(await n.deps.chain.balance(alice.pk33), aliceBefore + (afterFees * 1000n) / 10_000n, 'founder reward: 10% in native');
    const coin = (await getProfile(n.deps.store, alice.pk33))?.creatorCoin;
    assert.equal(coin?.numberOfHolders, 1n);
    assert.equal(coin?.coinsInCirculationNanos, expected);
    assert.equal(coin?.nanosLocked, afterFees - (afterFees * 1000n) / 10_000n);
  });

  it('sells part of it (signed through the SDK) for the expected native', async () => {
    const held = await creatorCoinBalance(n.deps.store, carol.pk33, alice.pk33);
    const before = await n.deps.chain.balance(carol.pk33);
    const c = await trade(carol, { OperationType: 'sell', CreatorCoinToSellNanos: Number(held / 2n) });
    const expected = BigInt(c['ExpectedNativeReturnedNanos'] as number);
    assert.ok(expected > 0n, 'native is expected back');
    assert.equal(c['ExpectedCreatorCoinReturnedNanos'], 0);
    await n.submit(c['TransactionHex'] as string, carol, 'sdk');
    assert.equal(await n.deps.chain.balance(carol.pk33), before - BigInt(c['FeeNanos'] as number) + expected);
    assert.deepEqual(await getHolding(n.deps.store, carol.pk33, alice.pk33), { balanceNanos: held - held / 2n, hasPurchased: true });
  });

  it('refuses selling more than held and an unmet minimum at construction', async () => {
    const held = await creatorCoinBalance(n.deps.store, carol.pk33, alice.pk33);
    await n.fails('buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: carol.pk, CreatorPublicKeyBase58Check: alice.pk, OperationType: 'sell', CreatorCoinToSellNanos: Number(held + 1n) }, /^BuyOrSellCreatorCoin: Problem connecting sell transaction: RuleErrorCreatorCoinSellInsufficientCoins/);
    await n.fails('buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: bob.pk, CreatorPublicKeyBase58Check: alice.pk, OperationType: 'buy', DeSoToSellNanos: NANOS, MinCreatorCoinExpectedNanos: 1e15 }, /^BuyOrSellCreatorCoin: Problem connecting buy transaction: RuleErrorCreatorCoinLessThanMinimumSetByUser/);
    await n.fails('buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: bob.pk, CreatorPublicKeyBase58Check: alice.pk, OperationType: 'buy' }, /^BuyOrSellCreatorCoin: One of the following is required: \{DeSoToSellNanos, CreatorCoinToSellNanos\}$/);
    await n.fails('buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: bob.pk, CreatorPublicKeyBase58Check: alice.pk, OperationType: 'trade', DeSoToSellNanos: 1 }, /^BuyOrSellCreatorCoin: OperationType "trade" not supported$/);
  });

  it('refuses a buy whose minimum a trade mined first made unreachable (slippage at submission)', async () => {
    const guarded = await trade(bob, { OperationType: 'buy', DeSoToSellNanos: NANOS });
    const exact = await trade(bob, { OperationType: 'buy', DeSoToSellNanos: NANOS, MinCreatorCoinExpectedNanos: guarded['ExpectedCreatorCoinReturnedNanos'] });
    const first = await trade(carol, { OperationType: 'buy', DeSoToSellNanos: NANOS / 2 });
    await n.submit(first['TransactionHex'] as string, carol, 'sdk');
    await submitFails(exact['TransactionHex'] as string, bob, /RuleErrorCreatorCoinLessThanMinimumSetByUser/);
    assert.equal(await creatorCoinBalance(n.deps.store, bob.pk33, alice.pk33), 0n, 'bob bought nothing');
  });
});
