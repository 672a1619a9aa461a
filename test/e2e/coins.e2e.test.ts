/**
 * Coins a frontend shows and moves (issue 21; reference social-graph.md §7–9), end to end on a
 * memory-store node and on a Redis-backed one: transfer-creator-coin (by key and by username,
 * signed by the owner and by a derived key under its creator-coin "transfer" limit),
 * create-dao-coin-market-order (IOC and FOK, both sides, against resting limit orders),
 * get-hodlers-for-public-key (creator and DAO coins, holders and holdings, pages),
 * is-hodling-public-key, and the bare-string username lookups. Writes go the real way
 * (construct → sign → submit-transaction → mined); rule errors come back from submit with
 * core's names. One table of cases per route.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signTx } from 'deso-protocol';
import { creatorCoinBalance, getHolding } from '../../server/chain/state/creatorCoins.js';
import { getDAOCoinBalance } from '../../server/chain/state/daoCoins.js';
import { getProfile } from '../../server/chain/state/profiles.js';
import { emptySpendingLimit, encodeSpendingLimit, LIMIT_KEYS, setLimit } from '../../server/chain/txn/spendingLimit.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { keyPair, profileBody, TEST_STORES, type ChainNode, type J, type KeyPair, suiteNode } from '../helpers/chainNode.js';
import { getRouteTable, routeTable, type GetRouteCase, type RouteCase } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;
const hex = (n: bigint): string => `0x${n.toString(16)}`;

interface Ctx {
  n: ChainNode;
  creator: KeyPair;
  alice: KeyPair;
  bob: KeyPair;
  carol: KeyPair;
  /** Funded, no profile, holds nothing. */
  dave: KeyPair;
  names: { creator: string; alice: string; bob: string };
}

/** Construct → sign → submit-transaction → wait until mined; a busy mempool ("retry") is retried. */
async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<J> {
  const c = await n.ok(path, { ...FEE, ...body });
  await submitSigned(n, await n.sign(c['TransactionHex'] as string, signer, 'sdk'), path);
  return c;
}

async function submitSigned(n: ChainNode, signed: string, what: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const r = await n.post('submit-transaction', { TransactionHex: signed });
    if (r.status === 200) return n.waitMined(r.json['TxnHashHex'] as string);
    const error = String(r.json['error']);
    assert.ok(attempt < 20 && /retry/.test(error), `submit-transaction of ${what}: ${error}`);
    await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
  }
}

/** Constructs, signs and submits expecting the node to refuse it with `code`. */
async function refusedAtSubmit(n: ChainNode, path: string, body: J, signer: KeyPair, code: string): Promise<void> {
  const c = await n.ok(path, { ...FEE, ...body });
  await n.fails('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, signer, 'sdk') }, new RegExp(code));
}

const limitOrder = (transactor: KeyPair, buying: string, selling: string, side: 'ASK' | 'BID', price: string, quantity: string): J => ({
  TransactorPublicKeyBase58Check: transactor.pk,
  BuyingDAOCoinCreatorPublicKeyBase58Check: buying,
  SellingDAOCoinCreatorPublicKeyBase58Check: selling,
  Price: price,
  Quantity: quantity,
  OperationType: side,
  FillType: 'GOOD_TILL_CANCELLED',
});

const marketOrder = (transactor: KeyPair, buying: string, selling: string, side: string, quantity: string, fill: string): J => ({
  TransactorPublicKeyBase58Check: transactor.pk,
  BuyingDAOCoinCreatorPublicKeyBase58Check: buying,
  SellingDAOCoinCreatorPublicKeyBase58Check: selling,
  Quantity: quantity,
  OperationType: side,
  FillType: fill,
});

const transfer = (from: KeyPair, creator: KeyPair, to: string, nanos: number): J => ({
  SenderPublicKeyBase58Check: from.pk,
  CreatorPublicKeyBase58Check: creator.pk,
  ReceiverUsernameOrPublicKeyBase58Check: to,
  CreatorCoinToTransferNanos: nanos,
});

async function setup(n: ChainNode): Promise<Ctx> {
  const [creator, alice, bob, carol, dave] = [keyPair(), keyPair(), keyPair(), keyPair(), keyPair()];
  const tag = Date.now().toString(36).slice(-7);
  // Mixed case: the username lookups answer the stored case and match any case.
  const names = { creator: `Coin${tag}`, alice: `ali${tag}`, bob: `bob${tag}` };
  for (const k of [creator, alice, bob, carol, dave]) await n.fund(k.pk, 0.5 * 1e9);
  await mined(n, 'update-profile', profileBody(creator.pk, names.creator), creator);
  await mined(n, 'update-profile', profileBody(alice.pk, names.alice), alice);
  await mined(n, 'update-profile', profileBody(bob.pk, names.bob), bob);
  const buy = (k: KeyPair, nanos: number): Promise<J> =>
    mined(n, 'buy-or-sell-creator-coin', { UpdaterPublicKeyBase58Check: k.pk, CreatorPublicKeyBase58Check: creator.pk, OperationType: 'buy', DeSoToSellNanos: nanos }, k);
  await buy(alice, 100_000_000);
  await buy(bob, 50_000_000);
  await buy(creator, 20_000_000);
  await mined(n, 'dao-coin', { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: hex(1000n * COIN) }, creator);
  for (const [to, coins] of [[alice, 100n], [bob, 50n]] as const) {
    await mined(
      n,
      'transfer-dao-coin',
      { SenderPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, ReceiverPublicKeyBase58CheckOrUsername: to.pk, DAOCoinToTransferNanos: hex(coins * COIN) },
      creator,
    );
  }
  // Resting orders a market order meets: the creator sells 200 coins at 0.001 DESO, carol buys 20 at 0.0005.
  await mined(n, 'create-dao-coin-limit-order', limitOrder(creator, 'DESO', creator.pk, 'ASK', '0.001', '200'), creator);
  await mined(n, 'create-dao-coin-limit-order', limitOrder(carol, creator.pk, 'DESO', 'BID', '0.0005', '20'), carol);
  return { n, creator, alice, bob, carol, dave, names };
}

const table = routeTable<Ctx>();
const getTable = getRouteTable<Ctx>();
type Case = RouteCase<Ctx>;
type GetCase = GetRouteCase<Ctx>;

const hodlersOf = (r: J): J[] => {
  assert.deepEqual(Object.keys(r).sort(), ['Hodlers', 'LastPublicKeyBase58Check']);
  return r['Hodlers'] as J[];
};
const holderKeys = (r: J): string[] => hodlersOf(r).map((h) => h['HODLerPublicKeyBase58Check'] as string);
const uint = (h: J): bigint => BigInt(h['BalanceNanosUint256'] as string);

/** The creator's own entry first, then balance descending (uint256 for DAO coins). */
function assertReferenceOrder(hodlers: J[], self: string, side: 'HODLerPublicKeyBase58Check' | 'CreatorPublicKeyBase58Check'): void {
  const rest = hodlers[0]?.[side] === self ? hodlers.slice(1) : hodlers;
  assert.ok(!rest.some((h) => h[side] === self), 'the own entry comes first');
  for (let i = 1; i < rest.length; i++) assert.ok(uint(rest[i - 1]!) >= uint(rest[i]!), 'balances descend');
}

function suite(store: 'memory' | 'redis'): void {
  describe(`coins: transfers, market orders, holders, username lookups (${store} store)`, () => {
    const ctx = suiteNode(store, setup);

    const coinsOf = (c: Ctx, k: KeyPair): Promise<bigint> => creatorCoinBalance(c.n.deps.store, k.pk33, c.creator.pk33);
    const holdersCount = async (c: Ctx): Promise<bigint> => (await getProfile(c.n.deps.store, c.creator.pk33))!.creatorCoin.numberOfHolders;

    table(ctx, 'transfer-creator-coin', [
      {
        name: 'by public key: the reference\'s 7 fields; mined, the coins move and the receiver counts as a holder',
        body: (c) => ({ ...FEE, ...transfer(c.alice, c.creator, c.carol.pk, 1000) }),
        check: async (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['ChangeAmountNanos', 'FeeNanos', 'SpendAmountNanos', 'TotalInputNanos', 'Transaction', 'TransactionHex', 'TxnHashHex']);
          const [aliceBefore, holders] = [await coinsOf(c, c.alice), await holdersCount(c)];
          await submitSigned(c.n, await c.n.sign(r['TransactionHex'] as string, c.alice, 'identity'), 'transfer-creator-coin');
          assert.equal(await coinsOf(c, c.carol), 1000n);
          assert.equal(await coinsOf(c, c.alice), aliceBefore - 1000n);
          assert.equal(await holdersCount(c), holders + 1n);
        },
      },
      {
        name: 'by username (25 characters or fewer), any case',
        body: (c) => ({ ...FEE, ...transfer(c.alice, c.creator, c.names.bob.toUpperCase(), 500) }),
        check: async (r, c) => {
          const before = await coinsOf(c, c.bob);
          await submitSigned(c.n, await c.n.sign(r['TransactionHex'] as string, c.alice, 'sdk'), 'transfer-creator-coin');
          assert.equal(await coinsOf(c, c.bob), before + 500n);
        },
      },
      { name: 'the 10-nano threshold itself passes', body: (c) => ({ ...FEE, ...transfer(c.alice, c.creator, c.carol.pk, 10) }) },
      { name: 'a missing receiver', body: (c) => transfer(c.alice, c.creator, '', 100), error: { re: /^TransferCreatorCoin: Must provide a sender, a creator, and a receiver\.$/ } },
      { name: 'a missing sender', body: (c) => ({ ...transfer(c.alice, c.creator, c.bob.pk, 100), SenderPublicKeyBase58Check: '' }), error: { re: /^TransferCreatorCoin: Must provide a sender/ } },
      { name: 'a bad sender key', body: (c) => ({ ...transfer(c.alice, c.creator, c.bob.pk, 100), SenderPublicKeyBase58Check: `${c.alice.pk}x` }), error: { re: /^TransferCreatorCoin: Problem decoding sender public key/ } },
      { name: 'a bad creator key', body: (c) => ({ ...transfer(c.alice, c.creator, c.bob.pk, 100), CreatorPublicKeyBase58Check: 'tBCnope' }), error: { re: /^TransferCreatorCoin: Problem decoding creator public key/ } },
      { name: 'an unknown username', body: (c) => transfer(c.alice, c.creator, 'nobody_here_at_all', 100), error: { re: /^TransferCreatorCoin: Problem getting profile for username: <nil> : nobody_here_at_all$/ } },
      { name: 'a receiver string too long for a username and not a key', body: (c) => transfer(c.alice, c.creator, 'x'.repeat(30), 100), error: { re: /^TransferCreatorCoin: Problem decoding receiver public key/ } },
      { name: 'sender = receiver', body: (c) => transfer(c.alice, c.creator, c.names.alice, 100), error: { re: /^TransferCreatorCoin: Sender and receiver cannot be the same\.$/ } },
      { name: 'below the threshold', body: (c) => transfer(c.alice, c.creator, c.bob.pk, 9), error: { re: /^TransferCreatorCoin: CreatorCoinToTransferNanos must be greater than 10 nanos$/ } },
      { name: 'a negative amount', body: (c) => transfer(c.alice, c.creator, c.bob.pk, -1), error: { re: /CreatorCoinToTransferNanos/ } },
    ] satisfies Case[]);

    describe('transfer-creator-coin: connect rules at submit (core\'s names)', () => {
      it('more than the balance: RuleErrorCoinTransferInsufficientCoins', async () => {
        const c = ctx();
        await refusedAtSubmit(c.n, 'transfer-creator-coin', transfer(c.bob, c.creator, c.carol.pk, Number(await coinsOf(c, c.bob)) + 1), c.bob, 'RuleErrorCoinTransferInsufficientCoins');
      });
      it('a coin never held: RuleErrorCoinTransferBalanceEntryDoesNotExist', async () => {
        const c = ctx();
        await refusedAtSubmit(c.n, 'transfer-creator-coin', transfer(c.dave, c.creator, c.carol.pk, 100), c.dave, 'RuleErrorCoinTransferBalanceEntryDoesNotExist');
      });
      it('a key without a profile has no coin: RuleErrorCoinTransferOnNonexistentProfile', async () => {
        const c = ctx();
        await refusedAtSubmit(c.n, 'transfer-creator-coin', transfer(c.alice, c.dave, c.carol.pk, 100), c.alice, 'RuleErrorCoinTransferOnNonexistentProfile');
      });
      it('a remainder below 10 nanos goes along and the sender stops holding', async () => {
        const c = ctx();
        const all = await coinsOf(c, c.carol);
        const [bobBefore, holders] = [await coinsOf(c, c.bob), await holdersCount(c)];
        await mined(c.n, 'transfer-creator-coin', transfer(c.carol, c.creator, c.bob.pk, Number(all) - 5), c.carol);
        assert.equal(await coinsOf(c, c.bob), bobBefore + all);
        assert.equal(await getHolding(c.n.deps.store, c.carol.pk33, c.creator.pk33), undefined, 'the emptied entry is deleted');
        assert.equal(await holdersCount(c), holders - 1n);
      });
    });

    describe('transfer-creator-coin signed by a derived key (CreatorCoinOperationLimitMap transfer)', () => {
      it('one transfer allowed: the first is mined, the second refused with RuleErrorDerivedKeyCreatorCoinOperationNotAuthorized', async () => {
        const c = ctx();
        const limit = emptySpendingLimit();
        limit.globalDESOLimit = 1_000_000n;
        setLimit(limit.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: c.creator.pk33, operation: 3 }, 1n);
        const limitHex = Buffer.from(encodeSpendingLimit(limit)).toString('hex');
        const derivedSeed = new Uint8Array(randomBytes(32));
        const login = await c.n.ok('identity', {
          id: `login-${Math.random()}`,
          service: 'identity',
          method: 'login',
          payload: { seedHex: c.alice.seedHex, derive: true, derivedSeedHex: Buffer.from(derivedSeed).toString('hex'), transactionSpendingLimitHex: limitHex, accessLevelRequest: 4 },
        });
        const p = login['payload'] as J;
        assert.equal(p['derivedPublicKeyBase58Check'], encodePublicKey(getPublicKey(derivedSeed, true), 'testnet'));
        await mined(
          c.n,
          'authorize-derived-key',
          {
            OwnerPublicKeyBase58Check: c.alice.pk,
            DerivedPublicKeyBase58Check: p['derivedPublicKeyBase58Check'],
            ExpirationBlock: p['expirationBlock'],
            AccessSignature: p['accessSignature'],
            TransactionSpendingLimitHex: limitHex,
          },
          c.alice,
        );
        const signAsDerived = async (body: J): Promise<string> => {
          const t = await c.n.ok('transfer-creator-coin', { ...FEE, ...body });
          return signTx(t['TransactionHex'] as string, Buffer.from(derivedSeed).toString('hex'), { isDerivedKey: true });
        };
        const before = await coinsOf(c, c.dave);
        await submitSigned(c.n, await signAsDerived(transfer(c.alice, c.creator, c.dave.pk, 100)), 'derived transfer');
        assert.equal(await coinsOf(c, c.dave), before + 100n);
        await c.n.fails('submit-transaction', { TransactionHex: await signAsDerived(transfer(c.alice, c.creator, c.dave.pk, 100)) }, /RuleErrorDerivedKeyCreatorCoinOperationNotAuthorized/);
      });
    });

    table(ctx, 'create-dao-coin-market-order', [
      {
        name: 'BID, immediate-or-cancel: buys 10 coins at the resting ask\'s price; mined, nothing rests',
        body: (c) => ({ ...FEE, ...marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '10', 'IMMEDIATE_OR_CANCEL') }),
        check: async (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['ChangeAmountNanos', 'FeeNanos', 'SimulatedExecutionResult', 'SpendAmountNanos', 'TotalInputNanos', 'Transaction', 'TransactionHex', 'TxnHashHex']);
          assert.deepEqual(r['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '10.0', SellingCoinQuantityFilled: '0.01' });
          const before = await getDAOCoinBalance(c.n.deps.store, c.bob.pk33, c.creator.pk33);
          await submitSigned(c.n, await c.n.sign(r['TransactionHex'] as string, c.bob, 'sdk'), 'market BID');
          assert.equal(await getDAOCoinBalance(c.n.deps.store, c.bob.pk33, c.creator.pk33), before + 10n * COIN);
          const open = (await c.n.ok('get-transactor-dao-coin-limit-orders', { TransactorPublicKeyBase58Check: c.bob.pk }))['Orders'] as J[];
          assert.deepEqual(open, [], 'a market order never rests');
        },
      },
      {
        name: 'ASK, fill-or-kill: sells 5 coins to the resting bid (the legacy QuantityToFill float)',
        body: (c) => ({ ...FEE, ...marketOrder(c.alice, 'DESO', c.creator.pk, 'ASK', '', 'FILL_OR_KILL'), QuantityToFill: 5 }),
        check: async (r, c) => {
          assert.deepEqual(r['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '0.0025', SellingCoinQuantityFilled: '5.0' });
          const before = await getDAOCoinBalance(c.n.deps.store, c.alice.pk33, c.creator.pk33);
          await submitSigned(c.n, await c.n.sign(r['TransactionHex'] as string, c.alice, 'sdk'), 'market ASK');
          assert.equal(await getDAOCoinBalance(c.n.deps.store, c.alice.pk33, c.creator.pk33), before - 5n * COIN);
        },
      },
      {
        name: 'the zero-key Base58 string is DESO too',
        body: (c) => ({ ...FEE, ...marketOrder(c.bob, c.creator.pk, encodePublicKey(new Uint8Array(33), 'testnet'), 'BID', '1', 'IMMEDIATE_OR_CANCEL') }),
        check: (r) => assert.deepEqual(r['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '1.0', SellingCoinQuantityFilled: '0.001' }),
      },
      {
        name: 'immediate-or-cancel beyond the book fills what there is',
        body: (c) => ({ ...FEE, ...marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '5000', 'IMMEDIATE_OR_CANCEL') }),
        check: (r) => assert.deepEqual(r['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '190.0', SellingCoinQuantityFilled: '0.19' }),
      },
      {
        name: 'fill-or-kill beyond the book: RuleErrorDAOCoinLimitOrderFillOrKillOrderUnfulfilled',
        body: (c) => ({ ...FEE, ...marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '5000', 'FILL_OR_KILL') }),
        error: { re: /^CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: Problem simulating DAO coin market order execution: RuleErrorDAOCoinLimitOrderFillOrKillOrderUnfulfilled/ },
      },
      { name: 'good-till-cancelled', body: (c) => marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '1', 'GOOD_TILL_CANCELLED'), error: { re: /^CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: GoodTillCancelled fill type not supported for market orders$/ } },
      { name: 'no fill type', body: (c) => marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '1', ''), error: { re: /^CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: Unknown DAO coin limit order fill type $/ } },
      { name: 'an unknown operation', body: (c) => marketOrder(c.bob, c.creator.pk, 'DESO', 'BUY', '1', 'FILL_OR_KILL'), error: { re: /Unknown string value for DAOCoinLimitOrderOperationType BUY$/ } },
      { name: 'no transactor', body: (c) => ({ ...marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '1', 'FILL_OR_KILL'), TransactorPublicKeyBase58Check: '' }), error: { re: /must provide a TransactorPublicKeyBase58Check$/ } },
      { name: '"" is not DESO', body: (c) => marketOrder(c.bob, c.creator.pk, '', 'BID', '1', 'FILL_OR_KILL'), error: { re: /^CreateDAOCoinMarketOrder: CreateDAOCoinMarketOrder: Invalid SellingDAOCoinCreatorPublicKeyBase58Check/ } },
      { name: 'DESO on both sides', body: (c) => marketOrder(c.bob, 'DESO', 'DESO', 'BID', '1', 'FILL_OR_KILL'), error: { re: /'DESO' specified for both the coin to buy and the coin to sell/ } },
      { name: 'no quantity', body: (c) => marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '', 'FILL_OR_KILL'), error: { re: /Quantity must be provided as a valid decimal string/ } },
      { name: 'a quantity that scales to zero', body: (c) => marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '0', 'FILL_OR_KILL'), error: { re: /The input quantity 0 produces a value of 0 when scaled to base units nanos$/ } },
      { name: 'a bad transactor key', body: (c) => ({ ...marketOrder(c.bob, c.creator.pk, 'DESO', 'BID', '1', 'FILL_OR_KILL'), TransactorPublicKeyBase58Check: 'tBCbad' }), error: { re: /Invalid TransactorPublicKeyBase58Check/ } },
    ] satisfies Case[]);

    table(ctx, 'get-hodlers-for-public-key', [
      {
        name: 'creator coin holders: the creator first, then by balance; as many as NumberOfHolders counts',
        body: (c) => ({ PublicKeyBase58Check: c.creator.pk, FetchAll: true }),
        check: async (r, c) => {
          const hodlers = hodlersOf(r);
          assert.equal(hodlers[0]!['HODLerPublicKeyBase58Check'], c.creator.pk);
          assertReferenceOrder(hodlers, c.creator.pk, 'HODLerPublicKeyBase58Check');
          assert.equal(BigInt(hodlers.length), await holdersCount(c), 'the counter agrees with the index');
          for (const k of [c.alice, c.bob, c.dave]) assert.ok(holderKeys(r).includes(k.pk));
          assert.ok(!holderKeys(r).includes(c.carol.pk), 'carol gave everything away');
          const alice = hodlers.find((h) => h['HODLerPublicKeyBase58Check'] === c.alice.pk)!;
          assert.equal(alice['ProfileEntryResponse']['Username'], c.names.alice, "the holder's profile");
          assert.equal(alice['HasPurchased'], true);
          assert.equal(BigInt(alice['BalanceNanos']), await coinsOf(c, c.alice));
          assert.equal(alice['NetBalanceInMempool'], 0);
          assert.equal(typeof alice['HodlerNativeBalanceNanos'], 'number');
          const dave = hodlers.find((h) => h['HODLerPublicKeyBase58Check'] === c.dave.pk)!;
          assert.equal(dave['HasPurchased'], false, 'received, not bought');
          assert.ok(!('ProfileEntryResponse' in dave), 'no profile: omitted');
        },
      },
      {
        name: 'by Username, pages of one walk the same list, each naming its last key',
        body: (c) => ({ Username: c.names.creator.toLowerCase(), FetchAll: true }),
        check: async (r, c) => {
          const all = holderKeys(r);
          const walked: string[] = [];
          let last = '';
          for (let i = 0; i <= all.length; i++) {
            const page = await c.n.ok('get-hodlers-for-public-key', { PublicKeyBase58Check: c.creator.pk, NumToFetch: 1, LastPublicKeyBase58Check: last });
            if (hodlersOf(page).length === 0) break;
            walked.push(...holderKeys(page));
            last = page['LastPublicKeyBase58Check'] as string;
          }
          assert.deepEqual(walked, all);
        },
      },
      {
        name: 'FetchHodlings: what alice holds, with the creators\' profiles',
        body: (c) => ({ PublicKeyBase58Check: c.alice.pk, FetchHodlings: true, NumToFetch: 10 }),
        check: (r, c) => {
          const [h] = hodlersOf(r) as [J];
          assert.equal(hodlersOf(r).length, 1);
          assert.equal(h['HODLerPublicKeyBase58Check'], c.alice.pk);
          assert.equal(h['CreatorPublicKeyBase58Check'], c.creator.pk);
          assert.equal(h['ProfileEntryResponse']['Username'], c.names.creator);
          assert.equal(r['LastPublicKeyBase58Check'], c.creator.pk, 'the cursor names the creator when listing holdings');
        },
      },
      {
        name: 'IsDAOCoin: the DAO coin\'s holders by uint256 balance, the creator first',
        body: (c) => ({ PublicKeyBase58Check: c.creator.pk, IsDAOCoin: true, SortType: 'coin_balance', NumToFetch: 10 }),
        check: async (r, c) => {
          const hodlers = hodlersOf(r);
          assert.deepEqual(holderKeys(r).slice(0, 1), [c.creator.pk]);
          assertReferenceOrder(hodlers, c.creator.pk, 'HODLerPublicKeyBase58Check');
          const bob = hodlers.find((h) => h['HODLerPublicKeyBase58Check'] === c.bob.pk)!;
          assert.equal(uint(bob), await getDAOCoinBalance(c.n.deps.store, c.bob.pk33, c.creator.pk33));
          assert.equal(bob['HasPurchased'], false);
          assert.ok(holderKeys(r).includes(c.carol.pk), 'carol bought coins from alice\'s market ask');
        },
      },
      { name: 'SortType wealth', body: (c) => ({ PublicKeyBase58Check: c.creator.pk, SortType: 'wealth', FetchAll: true }), check: (r, c) => assert.equal(holderKeys(r)[0], c.creator.pk) },
      { name: 'NumToFetch 0 is an empty page', body: (c) => ({ PublicKeyBase58Check: c.creator.pk }), check: (r) => assert.deepEqual(r, { Hodlers: [], LastPublicKeyBase58Check: '' }) },
      { name: 'a key nobody holds', body: (c) => ({ PublicKeyBase58Check: c.dave.pk, NumToFetch: 5 }), check: (r) => assert.deepEqual(hodlersOf(r), []) },
      { name: 'an unknown username is a 404', body: () => ({ Username: 'no_such_user_here' }), error: { status: 404, re: /^GetHodlersForPublicKey: could not find profile for username: no_such_user_here$/ } },
      { name: 'neither a key nor a username is a 404 too', body: () => ({ NumToFetch: 5 }), error: { status: 404, re: /^GetHodlersForPublicKey: could not find profile for username: $/ } },
      { name: 'an unknown sort type', body: (c) => ({ PublicKeyBase58Check: c.creator.pk, SortType: 'newest' }), error: { re: /^GetHodlersForPublicKey: Unrecognized sort type: newest$/ } },
      { name: 'a bad public key', body: () => ({ PublicKeyBase58Check: 'tBCxyz' }), error: { re: /^GetHodlersForPublicKey: Problem decoding user public key/ } },
    ] satisfies Case[]);

    table(ctx, 'is-hodling-public-key', [
      {
        name: 'a holder: true, with the balance entry',
        body: (c) => ({ PublicKeyBase58Check: c.alice.pk, IsHodlingPublicKeyBase58Check: c.creator.pk }),
        check: async (r, c) => {
          assert.equal(r['IsHodling'], true);
          assert.equal(BigInt(r['BalanceEntry']['BalanceNanos']), await coinsOf(c, c.alice));
          assert.equal(r['BalanceEntry']['CreatorPublicKeyBase58Check'], c.creator.pk);
        },
      },
      { name: 'IsDAOCoin', body: (c) => ({ PublicKeyBase58Check: c.bob.pk, IsHodlingPublicKeyBase58Check: c.creator.pk, IsDAOCoin: true }), check: (r) => assert.equal(r['IsHodling'], true) },
      { name: 'not a holder: false and null', body: (c) => ({ PublicKeyBase58Check: c.carol.pk, IsHodlingPublicKeyBase58Check: c.creator.pk }), check: (r) => assert.deepEqual(r, { IsHodling: false, BalanceEntry: null }) },
      { name: 'a bad holder key', body: (c) => ({ PublicKeyBase58Check: 'x', IsHodlingPublicKeyBase58Check: c.creator.pk }), error: { re: /^IsHodlingPublicKey: Problem decoding user public key/ } },
      { name: 'a bad creator key', body: (c) => ({ PublicKeyBase58Check: c.alice.pk, IsHodlingPublicKeyBase58Check: '' }), error: { re: /^IsHodlingPublicKey: Problem decoding public key to check/ } },
    ] satisfies Case[]);

    getTable(ctx, 'get-public-key-for-user-name/{username}', [
      { name: 'a bare JSON string: the key', path: (c) => `get-public-key-for-user-name/${c.names.creator}`, check: (r, c) => assert.equal(r as unknown, c.creator.pk) },
      { name: 'any case', path: (c) => `get-public-key-for-user-name/${c.names.creator.toUpperCase()}`, check: (r, c) => assert.equal(r as unknown, c.creator.pk) },
      { name: 'no such profile: 404', path: () => 'get-public-key-for-user-name/no_such_user_here', error: { status: 404, re: /^GetPublicKeyForUsername: no profile found for username: no_such_user_here$/ } },
      { name: 'not a username: 404', path: () => `get-public-key-for-user-name/${encodeURIComponent('a b!')}`, error: { status: 404, re: /^GetPublicKeyForUsername: a username is/ } },
    ] satisfies GetCase[]);

    getTable(ctx, 'get-user-name-for-public-key/{pk}', [
      { name: 'a bare JSON string: the username as stored', path: (c) => `get-user-name-for-public-key/${c.creator.pk}`, check: (r, c) => assert.equal(r as unknown, c.names.creator) },
      { name: 'a key without a profile: 404', path: (c) => `get-user-name-for-public-key/${c.dave.pk}`, error: { status: 404, re: /^GetUsernameForPublicKey: no profile found for public key: tBC/ } },
      { name: 'not a key: 400', path: () => 'get-user-name-for-public-key/tBCnope', error: { re: /^GetUsernameForPublicKey: Problem decoding public key/ } },
    ] satisfies GetCase[]);
  });
}

for (const store of TEST_STORES) suite(store);
