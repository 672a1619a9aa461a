/**
 * Diamonds over a state view (core's _connectBasicTransferWithExtraSpend and
 * ValidateDiamondsAndGetNumDeSoNanos, every fork active): a BASIC_TRANSFER carrying ExtraData
 * DiamondLevel and DiamondPostHash, its payment to the author, the levels (strictly higher,
 * jumps allowed, only the difference paid), the stored entry and its indexes, the post's
 * DiamondCount, and each rule error in core's order.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { DIAMOND_LEVEL_NANOS, diamondPayment, encodeDiamondLevel, readDiamondLevel } from '../../server/chain/rules/diamonds.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { diamondCounterparties, diamondedPostsPage, diamondSummary, getDiamondLevel, postDiamonds } from '../../server/chain/state/diamonds.js';
import { getPost } from '../../server/chain/state/posts.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn, type TxnOutput } from '../../server/chain/txn/envelope.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { MemoryStore } from '../../server/store/memory.js';
import { DIAMOND_LEVEL_MAP } from '../../server/meta/appState.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const ctx: ConnectContext = { height: 10n, rules: { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n }, crypto: {} as CryptoService };
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const FUNDS = 10_000_000_000_000n;

let view: StateView;
let alice: Uint8Array;
let bob: Uint8Array;
let carol: Uint8Array;
let clock = 1_700_000_000_000_000_000n;

async function connect(pk: Uint8Array, c: ReturnType<typeof constructTxn>): Promise<Uint8Array> {
  const hash = sha256d(c.bytes);
  await connectTransaction(view, decodeTxn(c.bytes), { hash, size: c.bytes.length, signer: pk }, ctx);
  return hash;
}

const build = (pk: Uint8Array, rest: Pick<Parameters<typeof constructTxn>[0], 'metadata' | 'outputs' | 'extraData'>): ReturnType<typeof constructTxn> =>
  constructTxn({ publicKey: pk, ...rest, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });

/** A new post by `pk`; answers its hash. */
async function newPost(pk: Uint8Array, parent: Uint8Array = new Uint8Array(0)): Promise<Uint8Array> {
  clock += 1_000n;
  return connect(
    pk,
    build(pk, {
      metadata: {
        type: 'SUBMIT_POST',
        postHashToModify: new Uint8Array(0),
        parentStakeId: parent,
        body: utf8(JSON.stringify({ Body: 'hi' })),
        creatorBasisPoints: 1000n,
        stakeMultipleBasisPoints: 12_500n,
        timestampNanos: clock,
        isHidden: false,
      },
    }),
  );
}

interface Diamond {
  /** Raw DiamondLevel value (default: the level's zig-zag varint); null leaves the key out. */
  levelBytes?: Uint8Array | null;
  /** Raw DiamondPostHash value (default: the post hash). */
  hashBytes?: Uint8Array;
  /** Outputs (default: the author paid exactly the level's difference). */
  outputs?: TxnOutput[];
}

/** `sender` gives `post` (written by `author`) a diamond of `level`. */
async function diamond(sender: Uint8Array, author: Uint8Array, post: Uint8Array, level: number, d: Diamond = {}): Promise<void> {
  const extra: Array<[Uint8Array, Uint8Array]> = [[utf8('DiamondPostHash'), d.hashBytes ?? post]];
  const levelBytes = d.levelBytes === undefined ? encodeDiamondLevel(BigInt(level)) : d.levelBytes;
  if (levelBytes !== null) extra.push([utf8('DiamondLevel'), levelBytes]);
  const previous = await getDiamondLevel(view, post, sender);
  const owed = level >= 1 && level <= 8 && previous < level ? DIAMOND_LEVEL_NANOS[level]! - DIAMOND_LEVEL_NANOS[previous]! : 1n;
  const outputs = d.outputs ?? [{ publicKey: author, amountNanos: owed }];
  await connect(sender, build(sender, { metadata: { type: 'BASIC_TRANSFER' }, outputs, extraData: extra.sort(([a], [b]) => Buffer.compare(a, b)) }));
}

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RuleError && e.code === code, `expected ${code}`);
}

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  [alice, bob, carol] = [newKey(), newKey(), newKey()];
  for (const pk of [alice, bob, carol]) setBalance(view, pk, FUNDS);
});

describe('diamond levels: encoding and the level map', () => {
  it('writes a level as core IntToBuf does (zig-zag: 1 → 02, 8 → 10) and reads it as Go binary.Varint', () => {
    assert.deepEqual([...encodeDiamondLevel(1n)], [0x02]);
    assert.deepEqual([...encodeDiamondLevel(8n)], [0x10]);
    assert.deepEqual([...encodeDiamondLevel(-1n)], [0x01]);
    assert.deepEqual(readDiamondLevel(Uint8Array.of(0x02)), { level: 1n, bytesRead: 1 });
    assert.deepEqual(readDiamondLevel(Uint8Array.of(0x01)), { level: -1n, bytesRead: 1 });
    assert.deepEqual(readDiamondLevel(Uint8Array.of(0x04, 0xff)), { level: 2n, bytesRead: 1 }, 'a prefix: trailing bytes ignored');
    assert.deepEqual(readDiamondLevel(new Uint8Array(0)), { level: 0n, bytesRead: 0 }, 'empty: level 0');
    assert.deepEqual(readDiamondLevel(Uint8Array.of(0x80)), { level: 0n, bytesRead: 0 }, 'truncated: level 0');
    assert.equal(readDiamondLevel(new Uint8Array(11).fill(0xff)).bytesRead < 0, true, 'over 64 bits: unreadable');
  });

  it('is worth get-app-state\'s DiamondLevelMap: 50,000 nanos at level 1, ten times more each level up to 8', () => {
    assert.equal(DIAMOND_LEVEL_NANOS.length, 9);
    for (let level = 1; level <= 8; level++) {
      assert.equal(DIAMOND_LEVEL_NANOS[level], 50_000n * 10n ** BigInt(level - 1));
      assert.equal(BigInt(DIAMOND_LEVEL_MAP[String(level)]!), DIAMOND_LEVEL_NANOS[level]);
    }
    assert.deepEqual(Object.keys(DIAMOND_LEVEL_MAP), ['1', '2', '3', '4', '5', '6', '7', '8']);
  });
});

describe('BASIC_TRANSFER with a diamond: payment and state', () => {
  it('pays the author, records the level, counts it on the post and indexes it three ways', async () => {
    const post = await newPost(alice);
    const before = await getBalance(view, alice);
    await diamond(bob, alice, post, 2);
    assert.equal((await getBalance(view, alice)) - before, 500_000n, 'the author got the level\'s nanos');
    assert.equal(await getDiamondLevel(view, post, bob), 2);
    assert.equal((await getPost(view, post))!.diamondCount, 2n);
    assert.deepEqual(await postDiamonds(view, post, 10), [{ sender: bob, level: 2 }]);
    assert.deepEqual(await diamondCounterparties(view, alice, false, 10), [bob], 'alice received from bob');
    assert.deepEqual(await diamondCounterparties(view, bob, true, 10), [alice], 'bob gave to alice');
    assert.deepEqual(await diamondCounterparties(view, bob, false, 10), []);
    const s = await diamondSummary(view, alice, bob);
    assert.deepEqual([...s.postsByLevel], [[2, 1]]);
    assert.equal(s.totalDiamonds, 2);
    assert.equal(s.highestLevel, 2);
  });

  it('replaces a level by a strictly higher one, which may jump, paying only the difference', async () => {
    const post = await newPost(alice);
    await diamond(bob, alice, post, 1);
    const before = await getBalance(view, alice);
    await diamond(bob, alice, post, 5);
    assert.equal((await getBalance(view, alice)) - before, DIAMOND_LEVEL_NANOS[5]! - DIAMOND_LEVEL_NANOS[1]!);
    assert.equal(await getDiamondLevel(view, post, bob), 5, 'the highest level, not a sum');
    assert.equal((await getPost(view, post))!.diamondCount, 5n, 'DiamondCount += new − old');
    assert.deepEqual(await postDiamonds(view, post, 10), [{ sender: bob, level: 5 }], 'the old level left the post index');
    const s = await diamondSummary(view, alice, bob);
    assert.deepEqual([...s.postsByLevel], [[5, 1]]);
    assert.equal(s.totalDiamonds, 5);
  });

  it('lets the payment overshoot and add up over outputs; outputs to others do not count', async () => {
    const post = await newPost(alice);
    await diamond(bob, alice, post, 1, { outputs: [{ publicKey: alice, amountNanos: 70_000n }] });
    assert.equal(await getDiamondLevel(view, post, bob), 1);
    // Two outputs to the author add up.
    await diamond(bob, alice, post, 2, { outputs: [{ publicKey: alice, amountNanos: 200_000n }, { publicKey: alice, amountNanos: 250_000n }] });
    assert.equal(await getDiamondLevel(view, post, bob), 2);
    await rejects(diamond(bob, alice, post, 3, { outputs: [{ publicKey: carol, amountNanos: DIAMOND_LEVEL_NANOS[3]! }] }), 'RuleErrorBasicTransferInsufficientDeSoForDiamondLevel');
  });

  it('sums a sender\'s diamonds per receiver across posts; the post index sorts senders highest level first', async () => {
    const [p1, p2, p3] = [await newPost(alice), await newPost(alice), await newPost(alice)];
    await diamond(bob, alice, p1, 3);
    await diamond(bob, alice, p2, 3);
    await diamond(bob, alice, p3, 1);
    await diamond(carol, alice, p1, 4);
    const s = await diamondSummary(view, alice, bob);
    assert.deepEqual(Object.fromEntries(s.postsByLevel), { 1: 1, 3: 2 });
    assert.equal(s.totalDiamonds, 7);
    assert.equal(s.highestLevel, 3);
    assert.deepEqual((await postDiamonds(view, p1, 10)).map((d) => d.level), [4, 3]);
    assert.equal((await diamondCounterparties(view, alice, false, 10)).length, 2);
    assert.equal((await getPost(view, p1))!.diamondCount, 7n);
  });

  it('lists the posts a sender diamonded for a receiver by level, then newest, and pages after a cursor', async () => {
    const [p1, p2, p3] = [await newPost(alice), await newPost(alice), await newPost(alice)];
    await diamond(bob, alice, p1, 2);
    await diamond(bob, alice, p2, 1);
    await diamond(bob, alice, p3, 2);
    const all = await diamondedPostsPage(view, alice, bob, null, 10);
    assert.deepEqual(all.map((d) => [d.postHash, d.level]), [[p3, 2], [p1, 2], [p2, 1]], 'level desc, then newest');
    const next = await diamondedPostsPage(view, alice, bob, all[0]!, 1);
    assert.deepEqual(next.map((d) => d.postHash), [p1]);
    assert.deepEqual(await diamondedPostsPage(view, alice, bob, all[2]!, 10), [], 'nothing after the last');
    await diamond(bob, alice, p2, 6);
    assert.deepEqual((await diamondedPostsPage(view, alice, bob, null, 10)).map((d) => d.postHash), [p2, p3, p1], 'an upgraded diamond moves up');
  });

  it('shares the payment rule with the constructor: the difference, or a refusal', async () => {
    const post = await newPost(alice);
    assert.deepEqual(await diamondPayment(view, bob, { postHash: post }, 3n), { nanos: 5_000_000n, previousLevel: 0, level: 3 });
    await diamond(bob, alice, post, 3);
    assert.deepEqual(await diamondPayment(view, bob, { postHash: post }, 4n), { nanos: 45_000_000n, previousLevel: 3, level: 4 });
    await rejects(diamondPayment(view, bob, { postHash: post }, 3n), 'RuleErrorCreatorCoinTransferPostAlreadyHasSufficientDiamonds');
  });

  it('diamonds a comment and a hidden post like any other (core checks existence only)', async () => {
    const root = await newPost(alice);
    const comment = await newPost(carol, root);
    await diamond(bob, carol, comment, 1);
    assert.equal((await getPost(view, comment))!.diamondCount, 1n);
  });

  it('leaves a transfer without DiamondPostHash alone, even with a DiamondLevel', async () => {
    await connect(bob, build(bob, { metadata: { type: 'BASIC_TRANSFER' }, outputs: [{ publicKey: alice, amountNanos: 5n }], extraData: [[utf8('DiamondLevel'), Uint8Array.of(0x10)]] }));
    assert.deepEqual(await diamondCounterparties(view, bob, true, 10), []);
  });
});

describe('BASIC_TRANSFER with a diamond: rule errors, in core\'s order', () => {
  it('refuses a post hash without a level', async () => {
    const post = await newPost(alice);
    await rejects(diamond(bob, alice, post, 1, { levelBytes: null }), 'RuleErrorBasicTransferHasDiamondPostHashWithoutDiamondLevel');
  });

  it('refuses a negative or unreadable level before looking at the hash', async () => {
    const post = await newPost(alice);
    await rejects(diamond(bob, alice, post, -1, { hashBytes: new Uint8Array(3) }), 'RuleErrorBasicTransferHasInvalidDiamondLevel');
    await rejects(diamond(bob, alice, post, 1, { levelBytes: new Uint8Array(11).fill(0xff) }), 'RuleErrorBasicTransferHasInvalidDiamondLevel');
  });

  it('refuses a hash that is not 32 bytes, then a post that does not exist', async () => {
    await rejects(diamond(bob, alice, new Uint8Array(32), 1, { hashBytes: new Uint8Array(31) }), 'RuleErrorBasicTransferDiamondInvalidLengthForPostHashBytes');
    await rejects(diamond(bob, alice, new Uint8Array(32).fill(7), 1), 'RuleErrorBasicTransferDiamondPostEntryDoesNotExist');
  });

  it('refuses a diamond on one\'s own post before judging the level', async () => {
    const post = await newPost(alice);
    await rejects(diamond(alice, alice, post, 9), 'RuleErrorBasicTransferDiamondCannotTransferToSelf');
  });

  it('refuses a level outside 1..8 (0 too: an empty or truncated level reads as 0)', async () => {
    const post = await newPost(alice);
    await rejects(diamond(bob, alice, post, 9), 'RuleErrorBasicTransferHasInvalidDiamondLevel');
    await rejects(diamond(bob, alice, post, 0), 'RuleErrorBasicTransferHasInvalidDiamondLevel');
    await rejects(diamond(bob, alice, post, 1, { levelBytes: new Uint8Array(0) }), 'RuleErrorBasicTransferHasInvalidDiamondLevel');
  });

  it('refuses a level that is not above the one already given', async () => {
    const post = await newPost(alice);
    await diamond(bob, alice, post, 3);
    await rejects(diamond(bob, alice, post, 3), 'RuleErrorCreatorCoinTransferPostAlreadyHasSufficientDiamonds');
    await rejects(diamond(bob, alice, post, 2), 'RuleErrorCreatorCoinTransferPostAlreadyHasSufficientDiamonds');
  });

  it('refuses underpaying the author and leaves no trace of a refused diamond', async () => {
    const post = await newPost(alice);
    const before = await getBalance(view, alice);
    await rejects(diamond(bob, alice, post, 2, { outputs: [{ publicKey: alice, amountNanos: 499_999n }] }), 'RuleErrorBasicTransferInsufficientDeSoForDiamondLevel');
    assert.equal(await getBalance(view, alice), before);
    assert.equal(await getDiamondLevel(view, post, bob), 0);
    assert.equal((await getPost(view, post))!.diamondCount, 0n);
    assert.deepEqual(await postDiamonds(view, post, 10), []);
  });
});
