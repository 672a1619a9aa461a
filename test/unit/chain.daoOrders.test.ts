/**
 * DAO_COIN_LIMIT_ORDER connected on a state view (reference node-api.md §7.2; core
 * `_connectDAOCoinLimitOrder`): crossing orders fill at the resting order's rate, partial fills
 * on either side, every pair of sides (ASK/ASK, BID/BID, ASK/BID, BID/ASK), priority by rate,
 * block height and OrderID, FOK/IOC/GTC remainders, market orders, one's own order, resting
 * orders that can no longer pay being removed, transfer restrictions, cancels and validation.
 *
 * The book here is DAO coin "C" against DESO: prices are DESO per C coin and are turned into
 * scaled rates with the API conversions (daoCoinPrices), quantities are base units.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { priceToScaledExchangeRate } from '../../server/chain/daoCoinPrices.js';
import { connectTransaction } from '../../server/chain/rules/connect.js';
import { calculateFill, isBetterMatchingOrder } from '../../server/chain/rules/daoCoinLimitOrders.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { getDAOCoinBalance, TransferRestrictionStatus } from '../../server/chain/state/daoCoins.js';
import { bookMember, DESO_COIN, getOrder, ordersForPair, ordersForTransactor, type DAOCoinLimitOrder } from '../../server/chain/state/daoCoinLimitOrders.js';
import { addProfile } from '../helpers/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { encodeTxn, txnHash, type TxnEnvelope } from '../../server/chain/txn/envelope.js';
import { DAOCoinLimitOrderFill, DAOCoinLimitOrderOperation, DAOCoinOperation, encodeMetadata, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const FEE = 1_000n;
const COIN = 10n ** 18n;
const DESO = 10n ** 9n;
const START_NANOS = 1_000n * DESO;
const E38 = 10n ** 38n;
const { ASK, BID } = DAOCoinLimitOrderOperation;
const { GOOD_TILL_CANCELLED: GTC, IMMEDIATE_OR_CANCEL: IOC, FILL_OR_KILL: FOK } = DAOCoinLimitOrderFill;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);

/** C coins per DESO nano ×1e38 for an ASK selling C at `price` DESO per C. */
const askSellingCoin = (price: string): bigint => priceToScaledExchangeRate({ buyingIsDeso: true, sellingIsDeso: false }, price, 'ASK');
/** DESO nanos per C base unit ×1e38 for a BID buying C at `price` DESO per C. */
const bidBuyingCoin = (price: string): bigint => priceToScaledExchangeRate({ buyingIsDeso: false, sellingIsDeso: true }, price, 'BID');

let view: StateView;
let creator: Uint8Array; // the coin "C"
let alice: Uint8Array; // holds C, sells it
let bob: Uint8Array; // holds DESO, buys C
let dave: Uint8Array;

/** Connects `meta` from `from` paying FEE at `height`; answers the txn hash (an order's OrderID). */
async function submit(from: Uint8Array, meta: TxnMetadata, height = 10n): Promise<Uint8Array> {
  const fields = {
    inputs: [],
    outputs: [],
    txnType: TxnType[meta.type],
    metadata: encodeMetadata(meta),
    publicKey: from,
    extraData: [],
    signature: new Uint8Array(0),
    v1: { version: 1n, feeNanos: FEE, nonceExpirationBlockHeight: 100n, noncePartialId: BigInt(`0x${randomBytes(6).toString('hex')}`) },
  };
  const bytes = encodeTxn(fields);
  const txn: TxnEnvelope = { ...fields, signatureField: { start: 0, end: 0 } };
  const hash = txnHash(bytes);
  await connectTransaction(view, txn, { hash, size: bytes.length, signer: from }, {
    height,
    rules: { maxNonceExpirationBlockHeightOffset: 1000n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n },
    crypto: {} as CryptoService,
  });
  return hash;
}

interface Order {
  side: number;
  /** Defaults: BID buys C with DESO, ASK sells C for DESO. */
  buying?: Uint8Array;
  selling?: Uint8Array;
  rate: bigint;
  qty: bigint;
  fill?: number;
  height?: bigint;
  feeNanos?: bigint;
}

function place(from: Uint8Array, o: Order): Promise<Uint8Array> {
  const buying = o.buying ?? (o.side === BID ? creator : DESO_COIN);
  const selling = o.selling ?? (o.side === BID ? DESO_COIN : creator);
  return submit(
    from,
    {
      type: 'DAO_COIN_LIMIT_ORDER',
      buyingDAOCoinCreatorPublicKey: buying,
      sellingDAOCoinCreatorPublicKey: selling,
      scaledExchangeRateCoinsToSellPerCoinToBuy: o.rate,
      quantityToFillInBaseUnits: o.qty,
      operationType: o.side,
      fillType: o.fill ?? GTC,
      cancelOrderId: null,
      bidderInputs: [],
      feeNanos: o.feeNanos ?? FEE,
    },
    o.height,
  );
}

const cancel = (from: Uint8Array, orderId: Uint8Array): Promise<Uint8Array> =>
  submit(from, {
    type: 'DAO_COIN_LIMIT_ORDER',
    buyingDAOCoinCreatorPublicKey: null,
    sellingDAOCoinCreatorPublicKey: null,
    scaledExchangeRateCoinsToSellPerCoinToBuy: null,
    quantityToFillInBaseUnits: null,
    operationType: 0,
    fillType: 0,
    cancelOrderId: orderId,
    bidderInputs: [],
    feeNanos: FEE,
  });

const transferCoin = (from: Uint8Array, to: Uint8Array, amount: bigint): Promise<Uint8Array> =>
  submit(from, { type: 'DAO_COIN_TRANSFER', profilePublicKey: creator, daoCoinToTransferNanos: amount, receiverPublicKey: to });

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RuleError, `a RuleError, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

const coins = (pk: Uint8Array): Promise<bigint> => getDAOCoinBalance(view, pk, creator);
const nanos = (pk: Uint8Array): Promise<bigint> => getBalance(view, pk);
const quantityLeft = async (orderId: Uint8Array): Promise<bigint | undefined> => (await getOrder(view, orderId))?.quantityToFillInBaseUnits;
/** OrderIDs of the open asks selling C, in matching priority. */
const askBook = async (): Promise<string[]> => (await ordersForPair(view, DESO_COIN, creator)).map((o) => hex(o.orderId));

beforeEach(async () => {
  view = StateView.over(new MemoryStore());
  [creator, alice, bob, dave] = [newKey(), newKey(), newKey(), newKey()];
  addProfile(view, creator, 'creator');
  for (const pk of [creator, alice, bob, dave]) setBalance(view, pk, START_NANOS);
  await submit(creator, { type: 'DAO_COIN', profilePublicKey: creator, operationType: DAOCoinOperation.MINT, coinsToMintNanos: 100n * COIN, coinsToBurnNanos: 0n, transferRestrictionStatus: 0 });
  await transferCoin(creator, alice, 20n * COIN);
});

describe('calculateFill: one taker against one resting order, at the resting rate', () => {
  const cases: Array<[string, { restingSide: number; rate: bigint; restingQty: bigint; takerSide: number; takerQty: bigint }, ReturnType<typeof calculateFill>]> = [
    ['ASK/ASK, taker filled', { restingSide: ASK, rate: 2n * E38, restingQty: 10n, takerSide: ASK, takerQty: 3n }, { takerRemaining: 0n, restingRemaining: 4n, takerBought: 6n, takerSold: 3n }],
    ['ASK/ASK, resting filled', { restingSide: ASK, rate: 2n * E38, restingQty: 10n, takerSide: ASK, takerQty: 7n }, { takerRemaining: 2n, restingRemaining: 0n, takerBought: 10n, takerSold: 5n }],
    ['ASK/ASK, receipt capped at what the resting order sells', { restingSide: ASK, rate: 25n * 10n ** 37n, restingQty: 10n, takerSide: ASK, takerQty: 4n }, { takerRemaining: 0n, restingRemaining: 0n, takerBought: 10n, takerSold: 4n }],
    ['BID/BID, taker filled', { restingSide: BID, rate: 2n * E38, restingQty: 10n, takerSide: BID, takerQty: 6n }, { takerRemaining: 0n, restingRemaining: 7n, takerBought: 6n, takerSold: 3n }],
    ['BID/BID, resting filled', { restingSide: BID, rate: 2n * E38, restingQty: 10n, takerSide: BID, takerQty: 25n }, { takerRemaining: 5n, restingRemaining: 0n, takerBought: 20n, takerSold: 10n }],
    ['ASK taker, BID resting, taker filled', { restingSide: BID, rate: 2n * E38, restingQty: 10n, takerSide: ASK, takerQty: 4n }, { takerRemaining: 0n, restingRemaining: 6n, takerBought: 8n, takerSold: 4n }],
    ['ASK taker, BID resting, resting filled', { restingSide: BID, rate: 2n * E38, restingQty: 10n, takerSide: ASK, takerQty: 12n }, { takerRemaining: 2n, restingRemaining: 0n, takerBought: 20n, takerSold: 10n }],
    ['BID taker, ASK resting, taker filled', { restingSide: ASK, rate: 2n * E38, restingQty: 10n, takerSide: BID, takerQty: 4n }, { takerRemaining: 0n, restingRemaining: 6n, takerBought: 4n, takerSold: 2n }],
    ['BID taker, ASK resting, resting filled', { restingSide: ASK, rate: 2n * E38, restingQty: 10n, takerSide: BID, takerQty: 12n }, { takerRemaining: 2n, restingRemaining: 0n, takerBought: 10n, takerSold: 5n }],
  ];
  for (const [name, c, expected] of cases) {
    it(name, () => {
      const resting = { scaledExchangeRate: c.rate, quantityToFillInBaseUnits: c.restingQty, operationType: c.restingSide, fillType: GTC };
      assert.deepEqual(calculateFill(resting, c.takerSide, c.takerQty), expected);
    });
  }

  it('a fill worth less than one base unit is an error', () => {
    const resting = { scaledExchangeRate: E38 / 4n, quantityToFillInBaseUnits: 10n, operationType: BID, fillType: GTC };
    assert.throws(() => calculateFill(resting, ASK, 1n), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDAOCoinLimitOrderTotalCostIsLessThanOneNano');
  });
});

describe('order book priority', () => {
  it('the pair index sorts as core IsBetterMatchingOrderThan: higher rate, lower height, higher OrderID', () => {
    const rates = [1n, E38, 5n * 10n ** 46n, (1n << 200n) + 7n];
    const orders: DAOCoinLimitOrder[] = Array.from({ length: 120 }, (_, i) => ({
      orderId: new Uint8Array(randomBytes(32)),
      transactor: DESO_COIN,
      buyingCreator: DESO_COIN,
      sellingCreator: DESO_COIN,
      scaledExchangeRate: rates[i % rates.length]!,
      quantityToFillInBaseUnits: 1n,
      operationType: ASK,
      fillType: GTC,
      blockHeight: BigInt(i % 3) * 1000n,
    }));
    const byIndex = [...orders].sort((a, b) => Buffer.compare(Buffer.from(bookMember(a)), Buffer.from(bookMember(b))));
    const byCore = [...orders].sort((a, b) => (isBetterMatchingOrder(a, b) ? -1 : isBetterMatchingOrder(b, a) ? 1 : 0));
    assert.deepEqual(byIndex.map((o) => hex(o.orderId)), byCore.map((o) => hex(o.orderId)));
  });
});

describe('DAO_COIN_LIMIT_ORDER matching', () => {
  it('crossing orders fill at the resting order’s price; the resting order is partly filled', async () => {
    const ask = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    const bid = await place(bob, { side: BID, rate: bidBuyingCoin('3'), qty: 4n * COIN });
    assert.equal(await coins(bob), 4n * COIN);
    assert.equal(await nanos(bob), START_NANOS - FEE - 8n * DESO, 'bob pays 2 DESO per coin, the ask’s price, not his 3');
    assert.equal(await coins(alice), 16n * COIN);
    assert.equal(await nanos(alice), START_NANOS - FEE + 8n * DESO);
    assert.equal(await quantityLeft(ask), 6n * COIN);
    assert.equal(await getOrder(view, bid), undefined, 'the filled bid does not rest');
  });

  it('a partly filled GTC taker rests with its remainder at its own rate', async () => {
    const ask = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    const bid = await place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 15n * COIN, height: 12n });
    assert.equal(await getOrder(view, ask), undefined, 'the ask is used up');
    const rest = await getOrder(view, bid);
    assert.ok(rest, 'the bid rests');
    assert.equal(rest.quantityToFillInBaseUnits, 5n * COIN);
    assert.equal(rest.scaledExchangeRate, bidBuyingCoin('2'));
    assert.equal(rest.blockHeight, 12n);
    assert.equal(await nanos(bob), START_NANOS - FEE - 20n * DESO);
    assert.deepEqual((await ordersForTransactor(view, bob)).map((o) => hex(o.orderId)), [hex(bid)]);
  });

  it('ASK taker against a resting ASK: quantities are both amounts sold', async () => {
    const ask = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    // Bob sells 8 DESO for C at 0.5 C per DESO (an ASK selling DESO).
    const rate = priceToScaledExchangeRate({ buyingIsDeso: false, sellingIsDeso: true }, '0.5', 'ASK');
    await place(bob, { side: ASK, buying: creator, selling: DESO_COIN, rate, qty: 8n * DESO });
    assert.equal(await coins(bob), 4n * COIN);
    assert.equal(await nanos(alice), START_NANOS - FEE + 8n * DESO);
    assert.equal(await quantityLeft(ask), 6n * COIN);
  });

  it('BID taker against a resting BID: quantities are both amounts bought', async () => {
    const bid = await place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 10n * COIN });
    // Alice buys 6 DESO paying C at 0.5 C per DESO (a BID buying DESO).
    const rate = priceToScaledExchangeRate({ buyingIsDeso: true, sellingIsDeso: false }, '0.5', 'BID');
    await place(alice, { side: BID, buying: DESO_COIN, selling: creator, rate, qty: 6n * DESO });
    assert.equal(await coins(alice), 17n * COIN);
    assert.equal(await nanos(alice), START_NANOS - FEE + 6n * DESO);
    assert.equal(await quantityLeft(bid), 7n * COIN);
  });

  it('ASK taker against a resting BID gets the bid’s better price', async () => {
    const bid = await place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 10n * COIN });
    await place(alice, { side: ASK, rate: askSellingCoin('1.5'), qty: 3n * COIN });
    assert.equal(await nanos(alice), START_NANOS - FEE + 6n * DESO);
    assert.equal(await coins(bob), 3n * COIN);
    assert.equal(await quantityLeft(bid), 7n * COIN);
  });

  it('orders that do not cross both rest', async () => {
    const ask = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    const bid = await place(bob, { side: BID, rate: bidBuyingCoin('1.9'), qty: 10n * COIN });
    assert.equal(await quantityLeft(ask), 10n * COIN);
    assert.equal(await quantityLeft(bid), 10n * COIN);
    assert.equal(await nanos(bob), START_NANOS - FEE, 'nothing moved but the fee');
  });

  it('priority: best rate first, then lower block height, then higher OrderID', async () => {
    await transferCoin(creator, dave, 10n * COIN);
    const worst = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: COIN, height: 10n });
    const best = await place(alice, { side: ASK, rate: askSellingCoin('1.25'), qty: COIN, height: 10n });
    const tieA = await place(alice, { side: ASK, rate: askSellingCoin('1.25'), qty: COIN, height: 11n });
    const tieB = await place(dave, { side: ASK, rate: askSellingCoin('1.25'), qty: COIN, height: 11n });
    const [tieHigh, tieLow] = Buffer.compare(tieA, tieB) > 0 ? [tieA, tieB] : [tieB, tieA];
    assert.deepEqual(await askBook(), [best, tieHigh, tieLow, worst].map(hex));

    await place(bob, { side: BID, rate: bidBuyingCoin('1.25'), qty: 2n * COIN, fill: IOC });
    assert.deepEqual(await askBook(), [tieLow, worst].map(hex), 'the best and the tie with the higher OrderID filled');
    assert.equal(await nanos(bob), START_NANOS - FEE - 2_500_000_000n);
  });
});

describe('DAO_COIN_LIMIT_ORDER fill types and market orders', () => {
  it('FOK: an order that cannot fill completely fails and changes nothing', async () => {
    const ask = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    await rejects(place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 11n * COIN, fill: FOK }), 'RuleErrorDAOCoinLimitOrderFillOrKillOrderUnfulfilled');
    assert.equal(await quantityLeft(ask), 10n * COIN);
    assert.equal(await coins(bob), 0n);
  });

  it('FOK that fills completely succeeds', async () => {
    await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    await place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 10n * COIN, fill: FOK });
    assert.equal(await coins(bob), 10n * COIN);
  });

  it('IOC: fills what it can and drops the rest', async () => {
    await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    await place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 15n * COIN, fill: IOC });
    assert.equal(await coins(bob), 10n * COIN);
    assert.deepEqual(await ordersForTransactor(view, bob), []);
  });

  it('a market order (IOC, rate 0) walks the book at each resting price', async () => {
    await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 2n * COIN });
    await place(creator, { side: ASK, rate: askSellingCoin('4'), qty: 2n * COIN });
    await place(bob, { side: BID, rate: 0n, qty: 3n * COIN, fill: IOC });
    assert.equal(await coins(bob), 3n * COIN);
    assert.equal(await nanos(bob), START_NANOS - FEE - 8n * DESO, '2 coins at 2 and 1 at 4');
  });

  it('a market FOK larger than the book fails', async () => {
    await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 2n * COIN });
    await rejects(place(bob, { side: BID, rate: 0n, qty: 3n * COIN, fill: FOK }), 'RuleErrorDAOCoinLimitOrderFillOrKillOrderUnfulfilled');
  });

  it('rate 0 is only allowed for market orders', async () => {
    await rejects(place(bob, { side: BID, rate: 0n, qty: COIN, fill: GTC }), 'RuleErrorDAOCoinLimitOrderInvalidExchangeRate');
  });
});

describe('DAO_COIN_LIMIT_ORDER against the book’s owners', () => {
  it('matching one’s own order is an error', async () => {
    await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    await rejects(place(alice, { side: BID, rate: bidBuyingCoin('2'), qty: COIN }), 'RuleErrorDAOCoinLimitOrderMatchingOwnOrder');
  });

  it('a resting order whose owner no longer has the coins is removed and skipped', async () => {
    const stale = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    const good = await place(creator, { side: ASK, rate: askSellingCoin('4'), qty: 10n * COIN });
    await transferCoin(alice, dave, 20n * COIN);
    await place(bob, { side: BID, rate: bidBuyingCoin('4'), qty: 5n * COIN });
    assert.equal(await getOrder(view, stale), undefined, 'the unbacked ask is gone');
    assert.equal(await quantityLeft(good), 5n * COIN);
    assert.equal(await nanos(bob), START_NANOS - FEE - 20n * DESO);
  });

  it('a resting order the taker may not receive from (transfer restriction) is skipped, not removed', async () => {
    const held = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    await submit(creator, { type: 'DAO_COIN', profilePublicKey: creator, operationType: DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS, coinsToMintNanos: 0n, coinsToBurnNanos: 0n, transferRestrictionStatus: TransferRestrictionStatus.PROFILE_OWNER_ONLY });
    const bid = await place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: COIN });
    assert.equal(await quantityLeft(held), 10n * COIN);
    assert.equal(await quantityLeft(bid), COIN, 'the bid rests unfilled');
    await place(creator, { side: ASK, rate: askSellingCoin('2'), qty: COIN });
    assert.equal(await coins(bob), COIN, 'the creator may sell to anyone');
  });
});

describe('DAO_COIN_LIMIT_ORDER cancel', () => {
  it('the owner cancels an open order', async () => {
    const ask = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    await cancel(alice, ask);
    assert.equal(await getOrder(view, ask), undefined);
    assert.deepEqual(await askBook(), []);
    assert.deepEqual(await ordersForTransactor(view, alice), []);
  });

  it('an unknown order cannot be cancelled', async () => {
    await rejects(cancel(alice, new Uint8Array(randomBytes(32))), 'RuleErrorDAOCoinLimitOrderToCancelNotFound');
  });

  it('someone else’s order cannot be cancelled', async () => {
    const ask = await place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 10n * COIN });
    await rejects(cancel(bob, ask), 'RuleErrorDAOCoinLimitOrderToCancelNotYours');
    assert.equal(await quantityLeft(ask), 10n * COIN);
  });
});

describe('DAO_COIN_LIMIT_ORDER validation', () => {
  it('cannot buy and sell the same coin', async () => {
    await rejects(place(bob, { side: BID, buying: DESO_COIN, selling: DESO_COIN, rate: E38, qty: DESO }), 'RuleErrorDAOCoinLimitOrderCannotBuyAndSellSameCoin');
  });

  it('the DESO to sell must be there when the order opens', async () => {
    await rejects(place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 501n * COIN }), 'RuleErrorDAOCoinLimitOrderInsufficientDESOToOpenOrder');
  });

  it('the coins to sell must be there when the order opens', async () => {
    await rejects(place(bob, { side: ASK, rate: askSellingCoin('2'), qty: COIN }), 'RuleErrorDAOCoinLimitOrderInsufficientDAOCoinsToOpenOrder');
  });

  it('a DAO coin side needs a profile', async () => {
    await rejects(place(bob, { side: BID, buying: dave, rate: bidBuyingCoin('2'), qty: COIN }), 'RuleErrorDAOCoinLimitOrderBuyingDAOCoinCreatorMissingProfile');
  });

  it('quantity must be above 0', async () => {
    await rejects(place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: 0n }), 'RuleErrorDAOCoinLimitOrderInvalidQuantity');
  });

  it('an order worth less than one base unit of the other coin is refused', async () => {
    await rejects(place(alice, { side: ASK, rate: askSellingCoin('2'), qty: 1n }), 'RuleErrorDAOCoinLimitOrderTotalCostIsLessThanOneNano');
  });

  it('FeeNanos must be above 0 and equal the transaction fee', async () => {
    await rejects(place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: COIN, feeNanos: 0n }), 'RuleErrorDAOCoinLimitOrderFeeNanosBelowMinTxFee');
    await rejects(place(bob, { side: BID, rate: bidBuyingCoin('2'), qty: COIN, feeNanos: FEE + 1n }), 'RuleErrorDAOCoinLimitOrderTotalInputMinusTotalOutputNotEqualToFee');
  });
});
