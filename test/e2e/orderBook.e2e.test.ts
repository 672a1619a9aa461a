/**
 * Token order book reads (spec §4.5, §2.7; reference node-api.md §2.4, §7.3) end to end, once on
 * a memory-store node and once on a Redis-backed node. Profiles, DAO coins and limit orders are
 * made through the real write path (construct → sign → submit-transaction → mined); the reads
 * go over HTTP. One table of cases per route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keyPair, profileBody, type ChainNode, type J, type KeyPair, TEST_STORES, suiteNode } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;
const hex = (n: bigint): string => `0x${n.toString(16)}`;

/** The spec §2.7 order fields plus the reference's decimal Price and Quantity. */
const ORDER_FIELDS = [
  'BuyingDAOCoinCreatorPublicKeyBase58Check',
  'ExchangeRateCoinsToSellPerCoinToBuy',
  'OperationType',
  'OrderID',
  'Price',
  'Quantity',
  'QuantityToFill',
  'SellingDAOCoinCreatorPublicKeyBase58Check',
  'TransactorPublicKeyBase58Check',
];

interface Ctx {
  n: ChainNode;
  creator: KeyPair;
  creator2: KeyPair;
  alice: KeyPair;
  bob: KeyPair;
  carol: KeyPair;
  names: { creator: string; creator2: string; bob: string };
  /** OrderIDs (final txn hashes) by role. */
  ids: { askCheap: string; askDear: string; bid: string; tokenBid: string };
}

async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  return (await n.submit(c['TransactionHex'] as string, signer, 'sdk'))['TxnHashHex'] as string;
}

const profile = (k: KeyPair, username: string): J => profileBody(k.pk, username);

const order = (transactor: KeyPair, buying: string, selling: string, side: 'ASK' | 'BID', price: string, quantity: string): J => ({
  TransactorPublicKeyBase58Check: transactor.pk,
  BuyingDAOCoinCreatorPublicKeyBase58Check: buying,
  SellingDAOCoinCreatorPublicKeyBase58Check: selling,
  Price: price,
  Quantity: quantity,
  OperationType: side,
  FillType: 'GOOD_TILL_CANCELLED',
});

async function setup(n: ChainNode): Promise<Ctx> {
  const [creator, creator2, alice, bob, carol] = [keyPair(), keyPair(), keyPair(), keyPair(), keyPair()];
  const tag = Date.now().toString(36);
  const names = { creator: `obc${tag}`, creator2: `obd${tag}`, bob: `obb${tag}` };
  for (const k of [creator, creator2, alice, bob, carol]) await n.fund(k.pk, 0.5 * 1e9);
  await mined(n, 'update-profile', profile(creator, names.creator), creator);
  await mined(n, 'update-profile', profile(creator2, names.creator2), creator2);
  await mined(n, 'update-profile', profile(bob, names.bob), bob);
  await mined(n, 'dao-coin', { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: hex(1000n * COIN) }, creator);
  await mined(n, 'dao-coin', { UpdaterPublicKeyBase58Check: creator2.pk, ProfilePublicKeyBase58CheckOrUsername: creator2.pk, OperationType: 'mint', CoinsToMintNanos: hex(1000n * COIN) }, creator2);
  for (const [to, coins] of [[alice, 100n], [carol, 50n]] as const) {
    await mined(
      n,
      'transfer-dao-coin',
      { SenderPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, ReceiverPublicKeyBase58CheckOrUsername: to.pk, DAOCoinToTransferNanos: hex(coins * COIN) },
      creator,
    );
  }
  const ids = {
    // Two resting ASKs selling the creator's coin for the native coin, and one resting BID below them.
    askDear: await mined(n, 'create-dao-coin-limit-order', order(alice, 'DESO', creator.pk, 'ASK', '0.05', '10'), alice),
    askCheap: await mined(n, 'create-dao-coin-limit-order', order(alice, 'DESO', creator.pk, 'ASK', '0.04', '5'), alice),
    bid: await mined(n, 'create-dao-coin-limit-order', order(bob, creator.pk, 'DESO', 'BID', '0.01', '3'), bob),
    // Token for token: carol bids 2 of the creator's coins for one of creator2's.
    tokenBid: await mined(n, 'create-dao-coin-limit-order', order(carol, creator2.pk, creator.pk, 'BID', '2', '1'), carol),
  };
  return { n, creator, creator2, alice, bob, carol, names, ids };
}

type Case = RouteCase<Ctx>;

const table = routeTable<Ctx>();

const ordersOf = (r: J): J[] => {
  // {Orders}, as the reference; a page (NumToFetch) adds its cursor.
  assert.deepEqual(Object.keys(r), 'NextStartAfter' in r ? ['Orders', 'NextStartAfter'] : ['Orders'], 'the response is {Orders}');
  assert.ok(Array.isArray(r['Orders']), 'Orders is an array');
  return r['Orders'] as J[];
};
const idsOf = (r: J): string[] => ordersOf(r).map((o) => o['OrderID'] as string);

/** Orders buying the creator's coin with the native coin, then the reverse direction, best first. */
const creatorVsNative = (c: Ctx): string[] => [c.ids.bid, c.ids.askCheap, c.ids.askDear];

function suite(store: 'memory' | 'redis'): void {
  describe(`order book reads (${store} store)`, () => {
    const ctx = suiteNode(store, setup);

    const pair = (a: string, b: string, extra: J = {}): J => ({ DAOCoin1CreatorPublicKeyBase58CheckOrUsername: a, DAOCoin2CreatorPublicKeyBase58CheckOrUsername: b, ...extra });

    table(ctx, 'get-dao-coin-limit-orders', [
      {
        name: 'token vs native (""): the BID buying the token, then the ASKs selling it, best price first, spec §2.7 fields',
        body: (c) => pair(c.creator.pk, ''),
        check: (r, c) => {
          const orders = ordersOf(r);
          assert.deepEqual(orders.map((o) => o['OrderID']), creatorVsNative(c));
          for (const o of orders) assert.deepEqual(Object.keys(o).sort(), ORDER_FIELDS, 'order fields');
          const [bid, cheap, dear] = orders as [J, J, J];
          assert.deepEqual(bid, {
            TransactorPublicKeyBase58Check: c.bob.pk,
            BuyingDAOCoinCreatorPublicKeyBase58Check: c.creator.pk,
            SellingDAOCoinCreatorPublicKeyBase58Check: '',
            Price: '0.01',
            Quantity: '3.0',
            ExchangeRateCoinsToSellPerCoinToBuy: 0.01,
            QuantityToFill: 3,
            OperationType: 'BID',
            OrderID: c.ids.bid,
          });
          assert.equal(cheap['TransactorPublicKeyBase58Check'], c.alice.pk);
          assert.equal(cheap['BuyingDAOCoinCreatorPublicKeyBase58Check'], '', 'the native side is the empty string');
          assert.equal(cheap['SellingDAOCoinCreatorPublicKeyBase58Check'], c.creator.pk);
          assert.equal(cheap['OperationType'], 'ASK');
          assert.equal(cheap['Price'], '0.04');
          assert.equal(cheap['Quantity'], '5.0');
          assert.equal(cheap['QuantityToFill'], 5);
          // Not inverted: coins sold (the creator's) per coin bought (native), 1 / 0.04.
          assert.equal(cheap['ExchangeRateCoinsToSellPerCoinToBuy'], 25);
          assert.equal(dear['Price'], '0.05');
          assert.match(c.ids.bid, /^[0-9a-f]{64}$/, 'OrderID is the 64-hex transaction hash');
        },
      },
      { name: 'the reverse pair lists the ASKs first', body: (c) => pair('', c.creator.pk), check: (r, c) => assert.deepEqual(idsOf(r), [c.ids.askCheap, c.ids.askDear, c.ids.bid]) },
      { name: 'a side by username (any case)', body: (c) => pair(c.names.creator.toUpperCase(), ''), check: (r, c) => assert.deepEqual(idsOf(r), creatorVsNative(c)) },
      { name: '"DESO" names the native coin too', body: (c) => pair(c.creator.pk, 'DESO'), check: (r, c) => assert.deepEqual(idsOf(r), creatorVsNative(c)) },
      { name: 'the spec spelling …OrUsername2 of the second side', body: (c) => ({ DAOCoin1CreatorPublicKeyBase58CheckOrUsername: c.creator.pk, DAOCoin2CreatorPublicKeyBase58CheckOrUsername2: '' }), check: (r, c) => assert.deepEqual(idsOf(r), creatorVsNative(c)) },
      { name: 'the reference field names', body: (c) => ({ DAOCoin1CreatorPublicKeyBase58Check: c.creator.pk, DAOCoin2CreatorPublicKeyBase58Check: 'DESO' }), check: (r, c) => assert.deepEqual(idsOf(r), creatorVsNative(c)) },
      {
        name: 'token vs token: carol’s BID of two creator coins per creator2 coin',
        body: (c) => pair(c.names.creator2, c.names.creator),
        check: (r, c) => {
          const [o] = ordersOf(r) as [J];
          assert.equal(ordersOf(r).length, 1);
          assert.equal(o['OrderID'], c.ids.tokenBid);
          assert.equal(o['BuyingDAOCoinCreatorPublicKeyBase58Check'], c.creator2.pk);
          assert.equal(o['SellingDAOCoinCreatorPublicKeyBase58Check'], c.creator.pk);
          assert.equal(o['Price'], '2.0');
          assert.equal(o['Quantity'], '1.0');
        },
      },
      { name: 'TxnStatus Committed reads the mined book', body: (c) => pair(c.creator.pk, '', { TxnStatus: 'Committed' }), check: (r, c) => assert.deepEqual(idsOf(r), creatorVsNative(c)) },
      { name: 'a pair without orders: an empty array', body: (c) => pair(c.creator2.pk, ''), check: (r) => assert.deepEqual(ordersOf(r), []) },
      { name: 'both sides native ("" and "") is refused', body: () => pair('', ''), error: { re: /^GetDAOCoinLimitOrders: Must provide either a DAOCoin1CreatorPublicKeyBase58CheckOrUsername or DAOCoin2CreatorPublicKeyBase58CheckOrUsername or both$/ } },
      { name: 'both sides native ("DESO" and "") is refused', body: () => pair('DESO', ''), error: { re: /^GetDAOCoinLimitOrders: Must provide either/ } },
      { name: 'an unknown username is refused', body: () => pair('nobody_has_this_name', ''), error: { re: /^GetDAOCoinLimitOrders: Invalid DAOCoin1CreatorPublicKeyBase58CheckOrUsername: Profile with username nobody_has_this_name does not exist$/ } },
      { name: 'a malformed public key is refused', body: (c) => pair('', `${c.creator.pk.slice(0, -3)}xyz`), error: { re: /^GetDAOCoinLimitOrders: Invalid DAOCoin2CreatorPublicKeyBase58CheckOrUsername: Problem decoding public key / } },
      { name: 'a missing side is refused', body: (c) => ({ DAOCoin1CreatorPublicKeyBase58CheckOrUsername: c.creator.pk }), error: { re: /^GetDAOCoinLimitOrders: DAOCoin2CreatorPublicKeyBase58CheckOrUsername is required/ } },
      { name: 'an unknown TxnStatus is refused', body: (c) => pair(c.creator.pk, '', { TxnStatus: 'Soon' }), error: { re: /^GetDAOCoinLimitOrders: Invalid TxnStatus: Soon\. Options are \{InMempool, Committed\}\.$/ } },
      { name: 'a side that is not a string is refused', body: () => pair('', 5 as unknown as string), error: { re: /DAOCoin2CreatorPublicKeyBase58CheckOrUsername: expected a string/ } },
      {
        name: 'NumToFetch 2: the first page of the same list, and NextStartAfter',
        body: (c) => pair(c.creator.pk, '', { NumToFetch: 2 }),
        check: (r, c) => {
          assert.deepEqual(idsOf(r), creatorVsNative(c).slice(0, 2));
          assert.equal(typeof r['NextStartAfter'], 'string');
        },
      },
      { name: 'NumToFetch 3: the whole list, NextStartAfter null', body: (c) => pair(c.creator.pk, '', { NumToFetch: 3 }), check: (r, c) => (assert.deepEqual(idsOf(r), creatorVsNative(c)), assert.equal(r['NextStartAfter'], null)) },
      { name: 'StartAfter without NumToFetch is refused', body: (c) => pair(c.creator.pk, '', { StartAfter: '0:' }), error: { re: /^GetDAOCoinLimitOrders: StartAfter needs NumToFetch/ } },
      { name: 'a StartAfter the node did not answer is refused', body: (c) => pair(c.creator.pk, '', { NumToFetch: 2, StartAfter: 'nope' }), error: { re: /^GetDAOCoinLimitOrders: StartAfter is not a cursor/ } },
      { name: 'NumToFetch above 1,000 is refused', body: (c) => pair(c.creator.pk, '', { NumToFetch: 1001 }), error: { re: /NumToFetch/ } },
    ]);

    const transactor = (who: string, extra: J = {}): J => ({ TransactorPublicKeyBase58CheckOrUsername: who, ...extra });

    table(ctx, 'get-transactor-dao-coin-limit-orders', [
      {
        name: 'alice by public key: both her ASKs',
        body: (c) => transactor(c.alice.pk),
        check: (r, c) => {
          assert.deepEqual(new Set(idsOf(r)), new Set([c.ids.askCheap, c.ids.askDear]));
          for (const o of ordersOf(r)) assert.equal(o['TransactorPublicKeyBase58Check'], c.alice.pk);
        },
      },
      { name: 'bob by username', body: (c) => transactor(c.names.bob), check: (r, c) => assert.deepEqual(idsOf(r), [c.ids.bid]) },
      { name: 'the reference field name', body: (c) => ({ TransactorPublicKeyBase58Check: c.carol.pk }), check: (r, c) => assert.deepEqual(idsOf(r), [c.ids.tokenBid]) },
      { name: 'filtered by the coin sold', body: (c) => transactor(c.carol.pk, { SellingCoinPublicKeyBase58Check: c.creator.pk }), check: (r, c) => assert.deepEqual(idsOf(r), [c.ids.tokenBid]) },
      { name: 'filtered by a coin bought that matches nothing', body: (c) => transactor(c.carol.pk, { BuyingCoinPublicKeyBase58Check: 'DESO' }), check: (r) => assert.deepEqual(ordersOf(r), []) },
      { name: 'filtered by both coins', body: (c) => transactor(c.alice.pk, { BuyingCoinPublicKeyBase58Check: 'DESO', SellingCoinPublicKeyBase58Check: c.names.creator }), check: (r) => assert.equal(ordersOf(r).length, 2) },
      { name: 'a key without orders: an empty array', body: (c) => transactor(c.creator2.pk), check: (r) => assert.deepEqual(ordersOf(r), []) },
      { name: 'an empty transactor is refused', body: () => transactor(''), error: { re: /^GetTransactorDAOCoinLimitOrders: must provide a TransactorPublicKeyBase58CheckOrUsername$/ } },
      { name: 'a missing transactor is refused', body: () => ({}), error: { re: /^GetTransactorDAOCoinLimitOrders: TransactorPublicKeyBase58CheckOrUsername is required/ } },
      { name: 'an unknown username is refused', body: () => transactor('nobody_has_this_name'), error: { re: /^GetTransactorDAOCoinLimitOrders: Invalid TransactorPublicKeyBase58CheckOrUsername: Profile with username / } },
      { name: 'a malformed key is refused', body: () => transactor('tBC'.padEnd(54, 'x')), error: { re: /^GetTransactorDAOCoinLimitOrders: Invalid TransactorPublicKeyBase58CheckOrUsername: Problem decoding public key / } },
    ]);

    describe('the reads follow the book', () => {
      it('a fill lowers the resting quantity, a new order shows right after submit, a cancel removes it', async () => {
        const { n, alice, bob, creator, ids } = ctx();
        // bob buys 2 coins at up to 0.045: fills 2 of the 0.04 ASK (5 → 3) and does not rest.
        await mined(n, 'create-dao-coin-limit-order', { ...order(bob, creator.pk, 'DESO', 'BID', '0.045', '2'), FillType: 'IMMEDIATE_OR_CANCEL' }, bob);
        const afterFill = ordersOf(await n.ok('get-dao-coin-limit-orders', pair(creator.pk, '')));
        assert.equal(afterFill.find((o) => o['OrderID'] === ids.askCheap)?.['Quantity'], '3.0', 'the cheap ASK has 3 left');
        assert.equal(afterFill.length, 3, 'the IOC BID did not rest');

        // Visible in the default (pending) view as soon as the mempool accepts it.
        const c = await n.ok('create-dao-coin-limit-order', { ...FEE, ...order(alice, 'DESO', creator.pk, 'ASK', '0.07', '1') });
        const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, alice, 'sdk') });
        const fresh = s['TxnHashHex'] as string;
        assert.ok(idsOf(await n.ok('get-transactor-dao-coin-limit-orders', transactor(alice.pk))).includes(fresh), 'the new ASK is listed at once');
        await n.waitMined(fresh);

        await mined(n, 'cancel-dao-coin-limit-order', { TransactorPublicKeyBase58Check: alice.pk, CancelOrderID: fresh }, alice);
        assert.ok(!idsOf(await n.ok('get-dao-coin-limit-orders', pair('', creator.pk))).includes(fresh), 'the cancelled ASK is gone');
      });
    });
  });
}

for (const store of TEST_STORES) suite(store);
