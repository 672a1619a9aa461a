/**
 * Atomic transactions end to end, once on a memory-store node and once on a Redis-backed node:
 * the construction routes that answer an incomplete atomic transaction and its inner
 * transactions (create-dao-coin-limit-order-with-fee, create-new-coin, update-coin-properties),
 * each inner transaction signed by the SDK's signer, submit-atomic-transaction completing and
 * submitting it, and the effects of the whole set once mined. One table of cases per route.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { getDAOCoinBalance, getDAOCoinEntry, TransferRestrictionStatus } from '../../server/chain/state/daoCoins.js';
import { getProfile } from '../../server/chain/state/profiles.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { keyPair, profileBody, type ChainNode, type J, type KeyPair, TEST_STORES, suiteNode } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;
const hex0x = (n: bigint): string => `0x${n.toString(16)}`;

interface Ctx {
  n: ChainNode;
  creator: KeyPair;
  alice: KeyPair;
  bob: KeyPair;
  carol: KeyPair;
}

async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  return (await n.submit(c['TransactionHex'] as string, signer, 'sdk'))['TxnHashHex'] as string;
}

/** Signs every inner transaction of a construction answer with `key`: submit-atomic's body. */
async function signedBody(n: ChainNode, c: J, key: KeyPair): Promise<J> {
  const inner = c['InnerTransactionHexes'] as string[];
  return { IncompleteAtomicTransactionHex: c['TransactionHex'], SignedInnerTransactionsHex: await Promise.all(inner.map((h) => n.sign(h, key, 'sdk'))) };
}

/** Constructs at `path`, signs the inner transactions, submits the set and waits until it is mined. */
async function atomicMined(n: ChainNode, path: string, body: J, key: KeyPair): Promise<J> {
  const c = await n.ok(path, { ...FEE, ...body });
  const s = await n.ok('submit-atomic-transaction', await signedBody(n, c, key));
  await n.waitMined(s['TxnHashHex'] as string);
  return s;
}

const marketBuy = (c: Ctx, who: KeyPair, coins: string): J => ({
  ...FEE,
  TransactorPublicKeyBase58Check: who.pk,
  QuoteCurrencyPublicKeyBase58Check: 'DESO',
  BaseCurrencyPublicKeyBase58Check: c.creator.pk,
  OperationType: 'BID',
  FillType: 'IMMEDIATE_OR_CANCEL',
  Price: '0',
  PriceCurrencyType: 'quote',
  Quantity: coins,
  QuantityCurrencyType: 'base',
});

async function setup(n: ChainNode): Promise<Ctx> {
  const [creator, alice, bob, carol] = [keyPair(), keyPair(), keyPair(), keyPair()];
  const tag = Date.now().toString(36);
  for (const k of [creator, alice, bob, carol]) await n.fund(k.pk, 0.5 * 1e9);
  await mined(n, 'update-profile', profileBody(creator.pk, `atc${tag}`), creator);
  await mined(n, 'update-profile', profileBody(carol.pk, `atd${tag}`), carol);
  await mined(n, 'dao-coin', { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: hex0x(1000n * COIN) }, creator);
  // A resting ASK: the creator sells 100 coins at 0.001 native coin each.
  await mined(
    n,
    'create-dao-coin-limit-order',
    { TransactorPublicKeyBase58Check: creator.pk, BuyingDAOCoinCreatorPublicKeyBase58Check: 'DESO', SellingDAOCoinCreatorPublicKeyBase58Check: creator.pk, Price: '0.001', Quantity: '100', OperationType: 'ASK', FillType: 'GOOD_TILL_CANCELLED' },
    creator,
  );
  return { n, creator, alice, bob, carol };
}

const table = routeTable<Ctx>();
type Case = RouteCase<Ctx>;
const state = (c: Ctx) => c.n.deps.chain.pendingView();

function suite(store: 'memory' | 'redis'): void {
  describe(`atomic transactions (${store} store)`, () => {
    const ctx = suiteNode(store, setup);

    table(ctx, 'create-dao-coin-limit-order-with-fee', [
      {
        name: 'a market buy in base currency: one order in an atomic transaction, its simulated execution, no trading fee',
        body: (c) => marketBuy(c, c.alice, '2'),
        check: (r) => {
          assert.equal((r['InnerTransactionHexes'] as string[]).length, 1);
          const w = decodeTxn(Buffer.from(r['TransactionHex'] as string, 'hex'));
          assert.equal(w.txnType, 44);
          assert.equal(w.v1!.feeNanos, BigInt(r['FeeNanos'] as number));
          assert.deepEqual(
            [r['ExecutionAmount'], r['ExecutionAmountCurrencyType'], r['ExecutionReceiveAmount'], r['ExecutionReceiveAmountCurrencyType'], r['ExecutionPriceInQuoteCurrency']],
            ['0.002', 'quote', '2.0', 'base', '0.001000000'],
          );
          assert.deepEqual([r['MarketTotalTradingFeeBasisPoints'], r['MarketTradingFeeBasisPointsByUserPublicKey'], r['LimitAmount']], ['0', {}, '']);
        },
      },
      {
        name: 'a limit buy in quote currency below the book: the limit amounts, nothing executes',
        body: (c) => ({ ...marketBuy(c, c.alice, '0.01'), FillType: 'GOOD_TILL_CANCELLED', Price: '0.0005', QuantityCurrencyType: 'quote' }),
        check: (r) => {
          assert.deepEqual(
            [r['LimitAmount'], r['LimitAmountCurrencyType'], r['LimitReceiveAmount'], r['LimitReceiveAmountCurrencyType'], r['LimitPriceInQuoteCurrency']],
            ['0.01', 'quote', '20.0', 'base', '0.0005'],
          );
          assert.equal(r['ExecutionReceiveAmount'], '0.0');
        },
      },
      {
        name: 'signed and submitted, the buy is mined: the buyer holds the coins',
        body: async (c) => {
          await atomicMined(c.n, 'create-dao-coin-limit-order-with-fee', marketBuy(c, c.bob, '3'), c.bob);
          return marketBuy(c, c.bob, '1');
        },
        check: async (_r, c) => assert.equal(await getDAOCoinBalance(await state(c), c.bob.pk33, c.creator.pk33), 3n * COIN),
      },
      { name: 'an unknown operation type', body: (c) => ({ ...marketBuy(c, c.alice, '1'), OperationType: 'BUY' }), error: { re: /^CreateDAOCoinLimitOrderWithFee: Invalid operation type: BUY\. Options are: ASK, BID$/ } },
      { name: 'an unknown fill type', body: (c) => ({ ...marketBuy(c, c.alice, '1'), FillType: 'NOW' }), error: { re: /^CreateDAOCoinLimitOrderWithFee: Invalid fill type: NOW/ } },
      { name: 'a market order good till cancelled', body: (c) => ({ ...marketBuy(c, c.alice, '1'), FillType: 'GOOD_TILL_CANCELLED' }), error: { re: /^CreateDAOCoinLimitOrderWithFee: Market orders cannot be Good Till Cancelled$/ } },
      { name: 'a quantity in USD (no USD price for the quote here)', body: (c) => ({ ...marketBuy(c, c.alice, '1'), QuantityCurrencyType: 'usd' }), error: { re: /Quote currency price in usd not available/ } },
      { name: 'an unknown quantity currency type', body: (c) => ({ ...marketBuy(c, c.alice, '1'), QuantityCurrencyType: 'coins' }), error: { re: /^CreateDAOCoinLimitOrderWithFee: Invalid QuantityCurrencyType "coins"/ } },
      { name: 'the same coin as base and quote', body: (c) => ({ ...marketBuy(c, c.alice, '1'), QuoteCurrencyPublicKeyBase58Check: c.creator.pk }), error: { re: /base and quote currencies must differ/ } },
      { name: 'a missing transactor', body: (c) => ({ ...marketBuy(c, c.alice, '1'), TransactorPublicKeyBase58Check: '' }), error: { re: /^CreateDAOCoinLimitOrderWithFee: Problem decoding transactor public key/ } },
      { name: 'more than the transactor can pay', body: (c) => ({ ...marketBuy(c, c.alice, '1'), FillType: 'GOOD_TILL_CANCELLED', Price: '1000000' }), error: { re: /^CreateDAOCoinLimitOrderWithFee: .*Insufficient balance/ } },
    ] satisfies Case[]);

    table(ctx, 'submit-atomic-transaction', [
      {
        name: 'signed inner transactions complete the wrapper; it is submitted and mined',
        body: async (c) => signedBody(c.n, await c.n.ok('create-dao-coin-limit-order-with-fee', marketBuy(c, c.carol, '1')), c.carol),
        check: async (r, c) => {
          assert.match(r['TxnHashHex'] as string, /^[0-9a-f]{64}$/);
          assert.equal(typeof r['TransactionIDBase58Check'], 'string');
          await c.n.waitMined(r['TxnHashHex'] as string);
          assert.deepEqual(await c.n.ok('get-txn', { TxnHashHex: r['TxnHashHex'] }), { TxnFound: true });
        },
      },
      {
        name: 'or unsigned inner transactions and their signatures apart',
        body: async (c) => {
          const k = await c.n.ok('create-dao-coin-limit-order-with-fee', marketBuy(c, c.carol, '1'));
          const inner = k['InnerTransactionHexes'] as string[];
          const sigs = await Promise.all(inner.map(async (h) => Buffer.from(decodeTxn(Buffer.from(await c.n.sign(h, c.carol, 'sdk'), 'hex')).signature).toString('hex')));
          return { IncompleteAtomicTransactionHex: k['TransactionHex'], UnsignedInnerTransactionsHex: inner, TransactionSignaturesHex: sigs };
        },
        check: (r) => assert.match(r['TxnHashHex'] as string, /^[0-9a-f]{64}$/),
      },
      {
        name: 'both forms at once',
        body: () => ({ IncompleteAtomicTransactionHex: '00', SignedInnerTransactionsHex: ['00'], UnsignedInnerTransactionsHex: ['00'], TransactionSignaturesHex: ['00'] }),
        error: { re: /^SubmitAtomicTransaction: Cannot submit both SignedInnerTransactionsHex and UnsignedInnerTransactionsHex/ },
      },
      { name: 'fewer signatures than unsigned transactions', body: () => ({ IncompleteAtomicTransactionHex: '00', UnsignedInnerTransactionsHex: ['00'] }), error: { re: /^SubmitAtomicTransaction: Number of UnsignedInnerTransactionsHex must match/ } },
      { name: 'no atomic transaction', body: () => ({}), error: { re: /^SubmitAtomicTransaction: IncompleteAtomicTransactionHex is required$/ } },
      { name: 'not hex', body: () => ({ IncompleteAtomicTransactionHex: 'zz' }), error: { re: /^SubmitAtomicTransaction: Problem decoding atomic transaction hex/ } },
      { name: 'bytes that are no transaction', body: () => ({ IncompleteAtomicTransactionHex: '0102' }), error: { re: /^SubmitAtomicTransaction: Problem deserializing atomic transaction from bytes: / } },
      {
        name: 'a transaction that is not atomic',
        body: async (c) => ({ IncompleteAtomicTransactionHex: (await c.n.ok('send-deso', { SenderPublicKeyBase58Check: c.alice.pk, RecipientPublicKeyOrUsername: c.bob.pk, AmountNanos: 1, ...FEE }))['TransactionHex'] }),
        error: { re: /^SubmitAtomicTransaction: IncompleteAtomicTransaction must be an atomic transaction$/ },
      },
      {
        name: 'an inner transaction left unsigned',
        body: async (c) => ({ IncompleteAtomicTransactionHex: (await c.n.ok('create-dao-coin-limit-order-with-fee', marketBuy(c, c.alice, '1')))['TransactionHex'] }),
        error: { re: /^SubmitAtomicTransaction: Transaction 0 in atomic transaction still missing signature$/ },
      },
      {
        name: 'an inner transaction signed by another key',
        body: async (c) => signedBody(c.n, await c.n.ok('create-dao-coin-limit-order-with-fee', marketBuy(c, c.alice, '1')), c.bob),
        error: { re: /^SubmitAtomicTransaction: Problem broadcasting transaction: RuleErrorInvalidTransactionSignature: inner transaction 0 of 1/ },
      },
      {
        name: 'the same set twice',
        body: async (c) => {
          const b = await signedBody(c.n, await c.n.ok('create-dao-coin-limit-order-with-fee', marketBuy(c, c.alice, '1')), c.alice);
          await c.n.ok('submit-atomic-transaction', b);
          return b;
        },
        error: { re: /^SubmitAtomicTransaction: Problem broadcasting transaction: RuleErrorDuplicateTxn/ },
      },
    ] satisfies Case[]);

    table(ctx, 'create-new-coin', [
      {
        name: 'a username, permanently unrestricted transfers and minting disabled: three transactions of the updater, mined together',
        body: async (c) => {
          const username = `atn${Date.now().toString(36)}`;
          const body = { UpdaterPublicKey: c.bob.pk, NewProfileUsername: username, EnablePermanentlyUnrestrictedTransfers: true, DisableMintingOfNewCoins: true };
          const r = await c.n.ok('create-new-coin', { ...FEE, ...body });
          assert.equal((r['InnerTransactionHexes'] as string[]).length, 3);
          assert.deepEqual(r['UnsignedUserTxnHexes'], r['InnerTransactionHexes']);
          await c.n.waitMined((await c.n.ok('submit-atomic-transaction', await signedBody(c.n, r, c.bob)))['TxnHashHex'] as string);
          const s = await state(c);
          assert.equal((await getProfile(s, c.bob.pk33))?.username, username);
          const entry = await getDAOCoinEntry(s, c.bob.pk33);
          assert.deepEqual([entry.transferRestrictionStatus, entry.mintingDisabled], [TransferRestrictionStatus.PERMANENTLY_UNRESTRICTED, true]);
          // Answered again for a fresh profile: the creator's coin (1000 minted) is pre-existing.
          return { ...FEE, UpdaterPublicKey: c.creator.pk, DisableMintingOfNewCoins: true, AmmConfig: null };
        },
        check: (r) => {
          assert.deepEqual([r['PreExistingCoins'], r['CoinsInAmm'], r['UnlockedFounderCoins'], r['TotalCoinsAfterAmmStart'], r['ConfigureMarketResponse']], [1000, 0, 1000, 1000, null]);
          assert.deepEqual(r['SignedAmmMetadataTxnHexes'], []);
        },
      },
      { name: 'an AMM config', body: (c) => ({ UpdaterPublicKey: c.creator.pk, AmmConfig: { AmmConfigId: 1 }, DisableMintingOfNewCoins: true }), error: { re: /^CreateNewCoin: AmmConfig: not supported by this node/ } },
      { name: 'lockups and a yield', body: (c) => ({ UpdaterPublicKey: c.creator.pk, CoinApyBasisPoints: 500, LockDurationNanoSeconds: 10 }), error: { re: /^CreateNewCoin: LockDurationNanoSeconds, CoinApyBasisPoints: not supported/ } },
      { name: 'no profile and no username', body: (c) => ({ UpdaterPublicKey: c.alice.pk, DisableMintingOfNewCoins: true }), error: { re: /^CreateNewCoin: a new coin needs a profile/ } },
      { name: 'a malformed updater key', body: () => ({ UpdaterPublicKey: 'tBC1' }), error: { re: /^CreateNewCoin: Problem decoding UpdaterPublicKey/ } },
    ] satisfies Case[]);

    table(ctx, 'update-coin-properties', [
      {
        name: 'a new transfer restriction: one DAO_COIN transaction in an atomic transaction, mined',
        body: async (c) => {
          await atomicMined(c.n, 'update-coin-properties', { UpdaterPublicKey: c.carol.pk, NewTransferRestrictionStatus: 'profile_owner_only' }, c.carol);
          assert.equal((await getDAOCoinEntry(await state(c), c.carol.pk33)).transferRestrictionStatus, TransferRestrictionStatus.PROFILE_OWNER_ONLY);
          return { ...FEE, UpdaterPublicKey: c.carol.pk, NewTransferRestrictionStatus: 'dao_members_only', DisableMintingOfNewCoins: true };
        },
        check: (r) => {
          assert.equal((r['InnerTransactionHexes'] as string[]).length, 2);
          assert.deepEqual(Object.keys(r).sort(), ['InnerTransactionHexes', 'SignedAmmMetadataTxnHexes', 'Transaction', 'TransactionHex', 'UnsignedUserTxnHexes']);
        },
      },
      { name: 'an unknown transfer restriction', body: (c) => ({ UpdaterPublicKey: c.carol.pk, NewTransferRestrictionStatus: 'closed' }), error: { re: /^UpdateCoinProperties: Invalid NewTransferRestrictionStatus "closed"/ } },
      { name: 'nothing to change', body: (c) => ({ UpdaterPublicKey: c.carol.pk }), error: { re: /^UpdateCoinProperties: nothing to change/ } },
      { name: 'a trading fee', body: (c) => ({ UpdaterPublicKey: c.carol.pk, TradingFeeBasisPoints: 100 }), error: { re: /^UpdateCoinProperties: TradingFeeBasisPoints: not supported by this node/ } },
    ] satisfies Case[]);
  });
}

for (const store of TEST_STORES) suite(store);
