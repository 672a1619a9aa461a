/**
 * DAO coins over HTTP on a real node: a creator makes a profile (update-profile), then
 * dao-coin (mint, burn), transfer-dao-coin, create-dao-coin-limit-order (a resting ASK, a
 * crossing BID that partly fills it) and cancel-dao-coin-limit-order, each constructed over
 * HTTP, signed through our identity service and through the SDK, submitted, mined by the
 * node's miner, and read back through the state accessors on the store. Rejections answer 400
 * at construction or carry core's rule error names at submit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDAOCoinBalance, getDAOCoinEntry } from '../../server/chain/state/daoCoins.js';
import { getOrder, ordersForTransactor } from '../../server/chain/state/daoCoinLimitOrders.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair, type Signer } from '../helpers/chainNode.js';

const COIN = 10n ** 18n;
const DESO = 10n ** 9n;
const hexToBytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

let n: ChainNode;
const creator = keyPair();
const alice = keyPair();
const bob = keyPair();
const USERNAME = `dao${Date.now().toString(36)}`;

before(async () => {
  n = await startChainNode();
  // The node's miner earns 1 DESO a block: everyone gets 0.9 DESO and prices are cents.
  for (const k of [creator, alice, bob]) await n.fund(k.pk, 0.9 * 1e9);
  const c = await n.ok('update-profile', {
    UpdaterPublicKeyBase58Check: creator.pk,
    ProfilePublicKeyBase58Check: '',
    NewUsername: USERNAME,
    NewDescription: '',
    NewProfilePic: '',
    NewCreatorBasisPoints: 1000,
    NewStakeMultipleBasisPoints: 12500,
    IsHidden: false,
    MinFeeRateNanosPerKB: 1000,
  });
  await n.submit(c['TransactionHex'] as string, creator, 'sdk');
});
after(async () => {
  await n?.close();
});

const coinsOf = (k: KeyPair): Promise<bigint> => getDAOCoinBalance(n.deps.store, k.pk33, creator.pk33);
const fee = { MinFeeRateNanosPerKB: 1000 };

/** Signs and submits expecting the node to refuse it with `code`. */
async function submitFails(txnHex: string, key: KeyPair, code: string): Promise<void> {
  const signed = await n.sign(txnHex, key, 'sdk');
  await n.fails('submit-transaction', { TransactionHex: signed }, new RegExp(code));
}

describe('dao-coin', () => {
  for (const [signer, amount] of [['identity', 1000n * COIN], ['sdk', 5n * COIN]] as const) {
    it(`mint (signed via ${signer}): the profile owner's coins and circulation grow`, async () => {
      const before = (await getDAOCoinEntry(n.deps.store, creator.pk33)).coinsInCirculationNanos;
      const c = await n.ok('dao-coin', {
        UpdaterPublicKeyBase58Check: creator.pk,
        ProfilePublicKeyBase58CheckOrUsername: signer === 'identity' ? creator.pk : USERNAME,
        OperationType: 'mint',
        CoinsToMintNanos: `0x${amount.toString(16)}`,
        ...fee,
      });
      assert.deepEqual(Object.keys(c).sort(), ['ChangeAmountNanos', 'FeeNanos', 'TotalInputNanos', 'Transaction', 'TransactionHex', 'TxnHashHex']);
      await n.submit(c['TransactionHex'] as string, creator, signer);
      const entry = await getDAOCoinEntry(n.deps.store, creator.pk33);
      assert.equal(entry.coinsInCirculationNanos, before + amount);
      assert.equal(entry.numberOfHolders, 1n);
      assert.equal(await coinsOf(creator), before + amount);
    });
  }

  it('only the profile owner mints (RuleErrorOnlyProfileOwnerCanMintDAOCoin at submit)', async () => {
    const c = await n.ok('dao-coin', { UpdaterPublicKeyBase58Check: alice.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: '0x1', ...fee });
    await submitFails(c['TransactionHex'] as string, alice, 'RuleErrorOnlyProfileOwnerCanMintDAOCoin');
  });

  it('a key without a profile has no coin (RuleErrorDAOCoinOperationOnNonexistentProfile)', async () => {
    const c = await n.ok('dao-coin', { UpdaterPublicKeyBase58Check: alice.pk, ProfilePublicKeyBase58CheckOrUsername: alice.pk, OperationType: 'mint', CoinsToMintNanos: '0x1', ...fee });
    await submitFails(c['TransactionHex'] as string, alice, 'RuleErrorDAOCoinOperationOnNonexistentProfile');
  });

  it('construction refuses an unknown operation, an unknown username and a bad amount', async () => {
    await n.fails('dao-coin', { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'print', ...fee }, /^DAOCoin: Invalid OperationType/);
    await n.fails('dao-coin', { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: 'nobody_here', OperationType: 'mint', CoinsToMintNanos: '0x1' }, /^DAOCoin: Problem getting profile/);
    await n.fails('dao-coin', { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: '0x01' }, /CoinsToMintNanos/);
  });
});

describe('transfer-dao-coin', () => {
  for (const [signer, to] of [['identity', alice], ['sdk', bob]] as const) {
    it(`moves coins (signed via ${signer})`, async () => {
      const before = await coinsOf(creator);
      const c = await n.ok('transfer-dao-coin', {
        SenderPublicKeyBase58Check: creator.pk,
        ProfilePublicKeyBase58CheckOrUsername: USERNAME,
        ReceiverPublicKeyBase58CheckOrUsername: to.pk,
        DAOCoinToTransferNanos: `0x${(30n * COIN).toString(16)}`,
        ...fee,
      });
      await n.submit(c['TransactionHex'] as string, creator, signer);
      assert.equal(await coinsOf(to), 30n * COIN);
      assert.equal(await coinsOf(creator), before - 30n * COIN);
    });
  }

  it('no more than the balance (RuleErrorCoinTransferInsufficientCoins)', async () => {
    const c = await n.ok('transfer-dao-coin', {
      SenderPublicKeyBase58Check: alice.pk,
      ProfilePublicKeyBase58CheckOrUsername: creator.pk,
      ReceiverPublicKeyBase58CheckOrUsername: bob.pk,
      DAOCoinToTransferNanos: `0x${(31n * COIN).toString(16)}`,
      ...fee,
    });
    await submitFails(c['TransactionHex'] as string, alice, 'RuleErrorCoinTransferInsufficientCoins');
  });
});

describe('dao-coin burn', () => {
  for (const signer of ['identity', 'sdk'] as const) {
    it(`a holder burns (signed via ${signer})`, async () => {
      const [held, circulating] = [await coinsOf(bob), (await getDAOCoinEntry(n.deps.store, creator.pk33)).coinsInCirculationNanos];
      const c = await n.ok('dao-coin', { UpdaterPublicKeyBase58Check: bob.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'burn', CoinsToBurnNanos: (COIN).toString(), ...fee });
      await n.submit(c['TransactionHex'] as string, bob, signer);
      assert.equal(await coinsOf(bob), held - COIN);
      assert.equal((await getDAOCoinEntry(n.deps.store, creator.pk33)).coinsInCirculationNanos, circulating - COIN);
    });
  }

  it('more than the balance is refused (RuleErrorDAOCoinBurnInsufficientCoins)', async () => {
    const c = await n.ok('dao-coin', { UpdaterPublicKeyBase58Check: bob.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'burn', CoinsToBurnNanos: `0x${(1000n * COIN).toString(16)}`, ...fee });
    await submitFails(c['TransactionHex'] as string, bob, 'RuleErrorDAOCoinBurnInsufficientCoins');
  });
});

describe('create-dao-coin-limit-order and cancel-dao-coin-limit-order', () => {
  const orders: Record<string, string> = {};

  const ask = (price: string, quantity: string): J => ({
    TransactorPublicKeyBase58Check: alice.pk,
    BuyingDAOCoinCreatorPublicKeyBase58Check: 'DESO',
    SellingDAOCoinCreatorPublicKeyBase58Check: creator.pk,
    Price: price,
    Quantity: quantity,
    OperationType: 'ASK',
    FillType: 'GOOD_TILL_CANCELLED',
    ...fee,
  });
  const bid = (price: string, quantity: string, fillType = ''): J => ({
    TransactorPublicKeyBase58Check: bob.pk,
    BuyingDAOCoinCreatorPublicKeyBase58Check: USERNAME,
    SellingDAOCoinCreatorPublicKeyBase58Check: '',
    Price: price,
    Quantity: quantity,
    OperationType: 'BID',
    FillType: fillType,
    ...fee,
  });

  async function placed(body: J, key: KeyPair, signer: Signer): Promise<{ construct: J; orderId: string }> {
    const construct = await n.ok('create-dao-coin-limit-order', body);
    const submitted = await n.submit(construct['TransactionHex'] as string, key, signer);
    return { construct, orderId: submitted['TxnHashHex'] as string };
  }

  it('resting ASKs (signed via identity and via SDK) rest on the book under their final hash', async () => {
    const first = await placed(ask('0.02', '10'), alice, 'identity');
    assert.deepEqual(first.construct['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '0.0', SellingCoinQuantityFilled: '0.0' });
    assert.equal(typeof first.construct['SpendAmountNanos'], 'number');
    const second = await placed(ask('0.05', '1'), alice, 'sdk');
    orders['cheap'] = first.orderId;
    orders['dear'] = second.orderId;
    assert.equal((await getOrder(n.deps.store, hexToBytes(first.orderId)))?.quantityToFillInBaseUnits, 10n * COIN);
    assert.equal((await getOrder(n.deps.store, hexToBytes(second.orderId)))?.quantityToFillInBaseUnits, COIN);
    assert.equal((await ordersForTransactor(n.deps.store, alice.pk33)).length, 2);
  });

  it('a crossing BID (signed via SDK) partly fills the cheaper ASK at the ASK’s price', async () => {
    const [aliceNanos, bobNanos] = [await n.deps.chain.balance(alice.pk33), await n.deps.chain.balance(bob.pk33)];
    const { construct, orderId } = await placed(bid('0.03', '4'), bob, 'sdk');
    assert.deepEqual(construct['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '4.0', SellingCoinQuantityFilled: '0.08' });
    assert.equal(await getOrder(n.deps.store, hexToBytes(orderId)), undefined, 'the filled BID does not rest');
    assert.equal((await getOrder(n.deps.store, hexToBytes(orders['cheap']!)))?.quantityToFillInBaseUnits, 6n * COIN);
    assert.equal(await coinsOf(bob), 32n * COIN);
    assert.equal(await n.deps.chain.balance(alice.pk33), aliceNanos + 8n * DESO / 100n);
    assert.equal(await n.deps.chain.balance(bob.pk33), bobNanos - 8n * DESO / 100n - BigInt(construct['FeeNanos'] as number));
  });

  it('another BID (signed via identity) fills one more coin', async () => {
    const { construct } = await placed(bid('0.02', '1', 'IMMEDIATE_OR_CANCEL'), bob, 'identity');
    assert.deepEqual(construct['SimulatedExecutionResult'], { BuyingCoinQuantityFilled: '1.0', SellingCoinQuantityFilled: '0.02' });
    assert.equal((await getOrder(n.deps.store, hexToBytes(orders['cheap']!)))?.quantityToFillInBaseUnits, 5n * COIN);
  });

  it('construction refuses bad requests with the doubled prefix', async () => {
    const P = 'CreateDAOCoinLimitOrder: CreateDAOCoinLimitOrder: ';
    await n.fails('create-dao-coin-limit-order', { ...ask('0.02', '1'), TransactorPublicKeyBase58Check: '' }, new RegExp(`^${P}must provide a TransactorPublicKeyBase58Check`));
    await n.fails('create-dao-coin-limit-order', { ...ask('0.02', '1'), OperationType: 'SELL' }, new RegExp(`^${P}Unknown string value for DAOCoinLimitOrderOperationType SELL`));
    await n.fails('create-dao-coin-limit-order', { ...ask('0.02', '1'), FillType: 'FOREVER' }, new RegExp(`^${P}Unknown DAO coin limit order fill type FOREVER`));
    await n.fails('create-dao-coin-limit-order', ask('0', '1'), new RegExp(`^${P}The value 0 is too small to produce a scaled exchange rate`));
    await n.fails('create-dao-coin-limit-order', ask('', '1'), new RegExp(`^${P}Price must be provided as a valid decimal string`));
    await n.fails('create-dao-coin-limit-order', ask('0.02', ''), new RegExp(`^${P}Quantity must be provided as a valid decimal string`));
    await n.fails('create-dao-coin-limit-order', { ...ask('0.02', '1'), BuyingDAOCoinCreatorPublicKeyBase58Check: 'DESO', SellingDAOCoinCreatorPublicKeyBase58Check: '' }, new RegExp(`^${P}'DESO' specified for both`));
    await n.fails('create-dao-coin-limit-order', ask('0.02', '1000'), new RegExp(`^${P}Insufficient balance to open order`));
  });

  it('construction refuses an order its simulation rejects (own order, FOK unfilled)', async () => {
    const own = { ...bid('0.03', '1'), TransactorPublicKeyBase58Check: alice.pk };
    await n.fails('create-dao-coin-limit-order', own, /RuleErrorDAOCoinLimitOrderMatchingOwnOrder/);
    await n.fails('create-dao-coin-limit-order', bid('0.02', '30', 'FILL_OR_KILL'), /RuleErrorDAOCoinLimitOrderFillOrKillOrderUnfulfilled/);
  });

  it('cancelling someone else’s order is refused at submit (RuleErrorDAOCoinLimitOrderToCancelNotYours)', async () => {
    const c = await n.ok('cancel-dao-coin-limit-order', { TransactorPublicKeyBase58Check: bob.pk, CancelOrderID: orders['cheap'], ...fee });
    assert.equal(c['SimulatedExecutionResult'], null);
    await submitFails(c['TransactionHex'] as string, bob, 'RuleErrorDAOCoinLimitOrderToCancelNotYours');
  });

  it('cancelling an unknown order is refused at submit (RuleErrorDAOCoinLimitOrderToCancelNotFound)', async () => {
    const c = await n.ok('cancel-dao-coin-limit-order', { TransactorPublicKeyBase58Check: alice.pk, CancelOrderID: 'ab'.repeat(32), ...fee });
    await submitFails(c['TransactionHex'] as string, alice, 'RuleErrorDAOCoinLimitOrderToCancelNotFound');
  });

  it('cancel construction refuses a missing transactor and a bad order id', async () => {
    await n.fails('cancel-dao-coin-limit-order', { CancelOrderID: orders['cheap'] }, /^CancelDAOCoinLimitOrder: must provide a TransactorPublicKeyBase58Check$/);
    await n.fails('cancel-dao-coin-limit-order', { TransactorPublicKeyBase58Check: alice.pk, CancelOrderID: 'xyz' }, /^CancelDAOCoinLimitOrder: CancelOrderID param is not a valid order id: /);
  });

  for (const [signer, which, by] of [['identity', 'cheap', 'public key'], ['sdk', 'dear', 'username']] as const) {
    it(`the owner cancels the rest (signed via ${signer}, transactor by ${by})`, async () => {
      if (by === 'username') {
        // Cancels accept a username for the transactor: give alice a profile first.
        const p = await n.ok('update-profile', { UpdaterPublicKeyBase58Check: alice.pk, ProfilePublicKeyBase58Check: '', NewUsername: `${USERNAME}a`, NewDescription: '', NewProfilePic: '', NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500, IsHidden: false, ...fee });
        await n.submit(p['TransactionHex'] as string, alice, 'sdk');
      }
      const c = await n.ok('cancel-dao-coin-limit-order', { TransactorPublicKeyBase58Check: by === 'username' ? `${USERNAME}a` : alice.pk, CancelOrderID: orders[which], ...fee });
      await n.submit(c['TransactionHex'] as string, alice, signer);
      assert.equal(await getOrder(n.deps.store, hexToBytes(orders[which]!)), undefined);
    });
  }

  it('the book is empty for alice afterwards', async () => {
    assert.deepEqual(await ordersForTransactor(n.deps.store, alice.pk33), []);
  });
});
