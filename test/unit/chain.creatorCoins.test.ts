/**
 * CREATOR_COIN rules over a state view (core's HelpConnectCreatorCoinBuy/Sell, every fork
 * active): the bonding curve against core's own test vectors
 * (TestCreatorCoinBuySellSimple_DeSoFounderReward, TestCreatorCoinSelfBuying_…), the native
 * founder reward, holder bookkeeping, auto-sell, slippage bounds and each rule error; and
 * CREATOR_COIN_TRANSFER (core's HelpConnectCoinTransfer): dust sweep, holder counts, the
 * deleted sender entry, and its rule errors in core's order.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { creatorCoinToMint, nativeToReturn } from '../../server/chain/rules/creatorCoins.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { creatorCoinBalance, creatorCoinKeys, getHolding } from '../../server/chain/state/creatorCoins.js';
import { getProfile } from '../../server/chain/state/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { CreatorCoinOperation, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { toHex } from '../../server/hex.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const ctx: ConnectContext = { height: 10n, rules: { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n }, crypto: {} as CryptoService };
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const START = 6_000_000_000n;

let view: StateView;
let m0: Uint8Array;
let m1: Uint8Array;
let m2: Uint8Array;
/** The fee m0 paid to create its profile. */
let m0ProfileFee: bigint;

/** Connects a fee-paying transaction of `pk` (rate 1000 nanos/KB); answers its fee. */
async function connect(pk: Uint8Array, metadata: TxnMetadata): Promise<bigint> {
  const c = constructTxn({ publicKey: pk, metadata, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
  await connectTransaction(view, decodeTxn(c.bytes), { hash: sha256d(c.bytes), size: c.bytes.length, signer: pk }, ctx);
  return c.feeNanos;
}

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RuleError && e.code === code, `expected ${code}`);
}

const createProfile = (pk: Uint8Array, username: string, creatorBasisPoints: bigint): Promise<bigint> =>
  connect(pk, {
    type: 'UPDATE_PROFILE',
    profilePublicKey: new Uint8Array(0),
    newUsername: new TextEncoder().encode(username),
    newDescription: new Uint8Array(0),
    newProfilePic: new Uint8Array(0),
    newCreatorBasisPoints: creatorBasisPoints,
    newStakeMultipleBasisPoints: 12_500n,
    isHidden: false,
  });

const trade = (pk: Uint8Array, creator: Uint8Array, op: 'buy' | 'sell', amount: bigint, mins: { coins?: bigint; native?: bigint } = {}): Promise<bigint> =>
  connect(pk, {
    type: 'CREATOR_COIN',
    profilePublicKey: creator,
    operationType: op === 'buy' ? CreatorCoinOperation.BUY : CreatorCoinOperation.SELL,
    desoToSellNanos: op === 'buy' ? amount : 0n,
    creatorCoinToSellNanos: op === 'sell' ? amount : 0n,
    desoToAddNanos: 0n,
    minDesoExpectedNanos: mins.native ?? 0n,
    minCreatorCoinExpectedNanos: mins.coins ?? 0n,
  });

async function coinOf(creator: Uint8Array): Promise<{ circulation: bigint; locked: bigint; holders: bigint }> {
  const p = await getProfile(view, creator);
  assert.ok(p, 'the creator has a profile');
  return { circulation: p.creatorCoin.coinsInCirculationNanos, locked: p.creatorCoin.nanosLocked, holders: p.creatorCoin.numberOfHolders };
}

beforeEach(async () => {
  view = StateView.over(new MemoryStore());
  [m0, m1, m2] = [newKey(), newKey(), newKey()];
  for (const pk of [m0, m1, m2]) setBalance(view, pk, START);
  m0ProfileFee = await createProfile(m0, 'm0', 2500n);
});

describe('creator coin curve (core deso_math at 53 bits)', () => {
  it('mints on the polynomial curve for the first buy and on Bancor after it', () => {
    assert.equal(creatorCoinToMint(953_247_258n, 0n, 0n), 9_841_661_798n);
    assert.equal(creatorCoinToMint(999_900n, 0n, 0n), 999_966_698n);
    assert.equal(creatorCoinToMint(1_270_996_343n, 0n, 0n), 10_832_150_315n);
    assert.equal(creatorCoinToMint(879_191_959n, 9_841_661_798n, 953_247_258n), 2_395_379_666n);
  });

  it('returns native on the Bancor curve for a sell', () => {
    assert.equal(nativeToReturn(4_123_456_789n, 12_237_041_464n, 1_832_439_217n), 1_832_439_217n - 534_119_641n);
    assert.equal(nativeToReturn(1_556_503_355n, 13_468_606_753n, 2_443_252_288n), 2_443_252_288n - 1_690_307_207n);
  });
});

describe('CREATOR_COIN buy', () => {
  it('follows core\'s vectors, pays the founder reward in native coin and counts holders', async () => {
    const m0Before = await getBalance(view, m0);
    const fee = await trade(m1, m0, 'buy', 1_271_123_456n);
    assert.deepEqual(await coinOf(m0), { circulation: 9_841_661_798n, locked: 953_247_258n, holders: 1n });
    assert.equal(await creatorCoinBalance(view, m1, m0), 9_841_661_798n);
    assert.equal(await getBalance(view, m1), START - 1_271_123_456n - fee, 'the buyer paid the native sold and the fee');
    assert.equal((await getBalance(view, m0)) - m0Before, 317_749_085n, 'founder reward: 25% of the native after the trade fee');
    assert.deepEqual(await getHolding(view, m1, m0), { balanceNanos: 9_841_661_798n, hasPurchased: true });

    await trade(m2, m0, 'buy', 1_172_373_183n);
    assert.deepEqual(await coinOf(m0), { circulation: 12_237_041_464n, locked: 1_832_439_217n, holders: 2n });
    assert.equal(await creatorCoinBalance(view, m2, m0), 2_395_379_666n);
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holders(m0)), [toHex(m1), toHex(m2)].sort(), 'both buyers are holders');
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holdings(m1)), [toHex(m0)], 'm1 holds m0');
  });

  it('lets a creator buy their own coin without a founder reward', async () => {
    const fee = await trade(m0, m0, 'buy', 1_271_123_456n);
    assert.deepEqual(await coinOf(m0), { circulation: 10_832_150_315n, locked: 1_270_996_343n, holders: 1n });
    assert.equal(await getBalance(view, m0), START - 1_271_123_456n - fee - m0ProfileFee, 'no reward to oneself');
    await trade(m0, m0, 'buy', 1_172_373_183n);
    assert.deepEqual(await coinOf(m0), { circulation: 13_468_606_753n, locked: 2_443_252_288n, holders: 1n });
  });

  it('refuses a minimum the buy does not reach (slippage)', async () => {
    await rejects(trade(m1, m0, 'buy', 1_271_123_456n, { coins: 9_841_661_799n }), 'RuleErrorCreatorCoinLessThanMinimumSetByUser');
    await trade(m1, m0, 'buy', 1_271_123_456n, { coins: 9_841_661_798n });
    assert.equal(await creatorCoinBalance(view, m1, m0), 9_841_661_798n);
  });

  it('refuses buys of a missing profile, beyond the balance, or of nothing', async () => {
    await rejects(trade(m1, m2, 'buy', 1_000_000n), 'RuleErrorCreatorCoinOperationOnNonexistentProfile');
    await rejects(trade(m1, m0, 'buy', START + 1n), 'RuleErrorInsufficientBalance');
    await rejects(trade(m1, m0, 'buy', 0n), 'RuleErrorCreatorCoinBuyMustTradeNonZeroDeSo');
    await rejects(trade(m1, m0, 'buy', 1n), 'RuleErrorCreatorCoinBuyMustTradeNonZeroDeSoAfterFees');
  });

  it('refuses a buy the founder reward takes entirely', async () => {
    await createProfile(m2, 'greedy', 10_000n);
    await rejects(trade(m1, m2, 'buy', 2n), 'RuleErrorCreatorCoinBuyMustTradeNonZeroDeSoAfterFounderReward');
  });

  it('refuses a buy minting less than the auto-sell threshold', async () => {
    await createProfile(m2, 'nofee', 0n);
    await trade(m1, m2, 'buy', 1_000_000_000n);
    await rejects(trade(m1, m2, 'buy', 2n), 'RuleErrorCreatorCoinBuyMustSatisfyAutoSellThresholdNanos');
  });

  it('refuses operation types other than buy and sell', async () => {
    await rejects(
      connect(m1, { type: 'CREATOR_COIN', profilePublicKey: m0, operationType: CreatorCoinOperation.ADD_DESO, desoToSellNanos: 0n, creatorCoinToSellNanos: 0n, desoToAddNanos: 1n, minDesoExpectedNanos: 0n, minCreatorCoinExpectedNanos: 0n }),
      'RuleErrorCreatorCoinOperationNotSupported',
    );
  });
});

describe('CREATOR_COIN sell', () => {
  beforeEach(async () => {
    await trade(m1, m0, 'buy', 1_271_123_456n);
    await trade(m2, m0, 'buy', 1_172_373_183n);
  });

  it('follows core\'s vectors and pays the native after the trade fee', async () => {
    const before = await getBalance(view, m1);
    const fee = await trade(m1, m0, 'sell', 4_123_456_789n);
    assert.deepEqual(await coinOf(m0), { circulation: 8_113_584_675n, locked: 534_119_641n, holders: 2n });
    assert.equal(await creatorCoinBalance(view, m1, m0), 5_718_205_009n);
    const returned = 1_832_439_217n - 534_119_641n;
    assert.equal(await getBalance(view, m1), before - fee + (returned * 9_999n) / 10_000n, 'native after the 1 bp trade fee');

    await trade(m2, m0, 'sell', 2_395_379_666n);
    assert.deepEqual(await coinOf(m0), { circulation: 5_718_205_009n, locked: 186_973_195n, holders: 1n });
    assert.deepEqual(await getHolding(view, m2, m0), { balanceNanos: 0n, hasPurchased: false }, 'the entry stays with a zero balance');
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holders(m0)), [toHex(m1)], 'm2 left the holders');
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holdings(m2)), [], 'm2 holds nothing');

    await trade(m1, m0, 'buy', 2_123_456_789n);
    assert.deepEqual(await coinOf(m0), { circulation: 12_117_833_075n, locked: 1_779_406_528n, holders: 1n });
  });

  it('sells everything when less than the threshold would remain, and resets the curve when the last holder leaves', async () => {
    const all = await creatorCoinBalance(view, m2, m0);
    await trade(m2, m0, 'sell', all - 5n);
    assert.equal(await creatorCoinBalance(view, m2, m0), 0n, 'the 5 remaining nanos were sold too');
    await trade(m1, m0, 'sell', await creatorCoinBalance(view, m1, m0));
    assert.deepEqual(await coinOf(m0), { circulation: 0n, locked: 0n, holders: 0n });
  });

  it('refuses a native amount below the seller\'s minimum (slippage)', async () => {
    await rejects(trade(m1, m0, 'sell', 4_123_456_789n, { native: 1_298_189_745n }), 'RuleErrorDeSoReceivedIsLessThanMinimumSetBySeller');
    await trade(m1, m0, 'sell', 4_123_456_789n, { native: 1_298_189_744n });
  });

  it('refuses selling more than held, nothing, or a coin never held', async () => {
    await rejects(trade(m1, m0, 'sell', 9_841_661_799n), 'RuleErrorCreatorCoinSellInsufficientCoins');
    await rejects(trade(m1, m0, 'sell', 0n), 'RuleErrorCreatorCoinSellMustTradeNonZeroCreatorCoin');
    const stranger = newKey();
    setBalance(view, stranger, START);
    await rejects(trade(stranger, m0, 'sell', 10n), 'RuleErrorCreatorCoinSellerBalanceEntryDoesNotExist');
    await rejects(trade(m1, m2, 'sell', 10n), 'RuleErrorCreatorCoinOperationOnNonexistentProfile');
  });
});

describe('CREATOR_COIN_TRANSFER', () => {
  let coins: bigint;
  beforeEach(async () => {
    await trade(m1, m0, 'buy', 1_271_123_456n);
    coins = await creatorCoinBalance(view, m1, m0);
  });

  const transfer = (from: Uint8Array, creator: Uint8Array, to: Uint8Array, amount: bigint): Promise<bigint> =>
    connect(from, { type: 'CREATOR_COIN_TRANSFER', profilePublicKey: creator, creatorCoinToTransferNanos: amount, receiverPublicKey: to });

  it('moves coins, counts the receiver as a holder and leaves the curve alone', async () => {
    const curve = await coinOf(m0);
    await transfer(m1, m0, m2, 1_000n);
    assert.equal(await creatorCoinBalance(view, m1, m0), coins - 1_000n);
    assert.deepEqual(await getHolding(view, m2, m0), { balanceNanos: 1_000n, hasPurchased: false }, 'received, not purchased');
    assert.deepEqual(await getHolding(view, m1, m0), { balanceNanos: coins - 1_000n, hasPurchased: true }, 'the sender keeps its purchase flag');
    assert.deepEqual(await coinOf(m0), { ...curve, holders: curve.holders + 1n });
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holders(m0)), [toHex(m1), toHex(m2)].sort());
  });

  it('sweeps a remainder below the 10-nano threshold to the receiver and deletes the emptied sender', async () => {
    const curve = await coinOf(m0);
    await transfer(m1, m0, m2, coins - 9n);
    assert.equal(await creatorCoinBalance(view, m2, m0), coins, 'the 9 nanos of dust went along');
    assert.equal(await getHolding(view, m1, m0), undefined, 'the sender entry is deleted, not zeroed');
    assert.deepEqual(await coinOf(m0), curve, 'one holder out, one in');
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holders(m0)), [toHex(m2)]);
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holdings(m1)), []);
    // Deleted: the next transfer finds no entry at all.
    await rejects(transfer(m1, m0, m2, 10n), 'RuleErrorCoinTransferBalanceEntryDoesNotExist');
  });

  it('a receiver that already holds is not counted again; the whole balance leaves the sender', async () => {
    await transfer(m1, m0, m2, 100n);
    const curve = await coinOf(m0);
    await transfer(m1, m0, m2, coins - 100n);
    assert.deepEqual(await coinOf(m0), { ...curve, holders: curve.holders - 1n });
    assert.equal(await creatorCoinBalance(view, m2, m0), coins);
  });

  it('transfers exactly the 10-nano threshold', async () => {
    await transfer(m1, m0, m2, 10n);
    assert.equal(await creatorCoinBalance(view, m2, m0), 10n);
  });

  it('refuses in core\'s order: self, missing profile, no entry, below the threshold, beyond the balance', async () => {
    await rejects(transfer(m1, m0, m1, 100n), 'RuleErrorCoinTransferCannotTransferToSelf');
    await rejects(transfer(m1, m2, m1, 100n), 'RuleErrorCoinTransferCannotTransferToSelf');
    await rejects(transfer(m1, m2, m0, 100n), 'RuleErrorCoinTransferOnNonexistentProfile');
    await rejects(transfer(m2, m0, m1, 100n), 'RuleErrorCoinTransferBalanceEntryDoesNotExist');
    await rejects(transfer(m1, m0, m2, 9n), 'RuleErrorCreatorCoinTransferMustBeGreaterThanMinThreshold');
    await rejects(transfer(m1, m0, m2, coins + 1n), 'RuleErrorCoinTransferInsufficientCoins');
  });

  it('refuses keys off the curve', async () => {
    const offCurve = new Uint8Array(33).fill(0xff);
    offCurve[0] = 2;
    await rejects(transfer(m1, m0, offCurve, 100n), 'RuleErrorCoinTransferInvalidReceiverPubKey');
    await rejects(transfer(m1, offCurve, m2, 100n), 'RuleErrorCoinTransferInvalidProfilePubKey');
  });

  it('a seller left at zero holds an entry, so it is short of coins rather than missing one', async () => {
    await trade(m1, m0, 'sell', coins);
    await rejects(transfer(m1, m0, m2, 10n), 'RuleErrorCoinTransferInsufficientCoins');
  });

  it('refuses the creator-coin diamonds of before the DeSoDiamondsBlockHeight fork', async () => {
    const c = constructTxn({
      publicKey: m1,
      metadata: { type: 'CREATOR_COIN_TRANSFER', profilePublicKey: m0, creatorCoinToTransferNanos: 100n, receiverPublicKey: m2 },
      extraData: [[new TextEncoder().encode('DiamondLevel'), Uint8Array.of(2)], [new TextEncoder().encode('DiamondPostHash'), new Uint8Array(32)]],
      minFeeRateNanosPerKB: 1000n,
      networkMinFeeRateNanosPerKB: 0n,
      tipHeight: 9n,
      maxNonceExpirationBlockHeightOffset: 86_400n,
    });
    await rejects(
      connectTransaction(view, decodeTxn(c.bytes), { hash: sha256d(c.bytes), size: c.bytes.length, signer: m1 }, ctx),
      'RuleErrorCreatorCoinTransferHasDiamondsAfterDeSoBlockHeight',
    );
  });

  it('refuses a transfer that pays nothing (core\'s non-zero input)', async () => {
    const c = constructTxn({
      publicKey: m1,
      metadata: { type: 'CREATOR_COIN_TRANSFER', profilePublicKey: m0, creatorCoinToTransferNanos: 100n, receiverPublicKey: m2 },
      minFeeRateNanosPerKB: 0n,
      networkMinFeeRateNanosPerKB: 0n,
      tipHeight: 9n,
      maxNonceExpirationBlockHeightOffset: 86_400n,
    });
    await rejects(
      connectTransaction(view, decodeTxn(c.bytes), { hash: sha256d(c.bytes), size: c.bytes.length, signer: m1 }, ctx),
      'RuleErrorCoinTransferRequiresNonZeroInput',
    );
  });
});
