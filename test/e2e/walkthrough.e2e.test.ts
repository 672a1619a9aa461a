/**
 * The README walkthrough, step by step, with the same request bodies, against a node started as
 * `npm start` starts it (own process, LMDB store in a data directory, built-in miner): create a
 * key, get coins from mining (`npm run miner`), create a profile, send a DM, place an order —
 * each step seen in the read routes — then restart the node on its data directory and find the
 * same tip, balances, DM thread and order. If this test changes, the README's walkthrough
 * changes with it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { okApi } from '../helpers/http.js';
import { REPO_ROOT, startNodeProcess, tempDataDir, type NodeProcess } from '../helpers/nodeProcess.js';

type J = Record<string, any>;
let node: NodeProcess;
let miner: ChildProcess | null = null;
/** `./data` of `npm start`, here a directory of this test's own. */
const dataDir = tempDataDir();

before(async () => {
  node = await startNodeProcess({ args: ['--data-dir', dataDir] });
});
after(async () => {
  miner?.kill('SIGTERM');
  await node?.stop();
});

const api = (path: string, body: unknown): Promise<J> => okApi(node.url, path, body);
async function identity(method: string, payload: J): Promise<J> {
  return (await api('identity', { id: method, service: 'identity', method, payload }))['payload'] as J;
}
async function login(): Promise<{ pk: string; session: J }> {
  const p = await identity('login', { accessLevelRequest: 4 });
  assert.equal(String(p['mnemonic']).split(' ').length, 12, 'a new key comes with its 12-word mnemonic');
  return { pk: p['publicKeyBase58Check'], session: { encryptedSeedHex: p['encryptedSeedHex'], accessLevel: p['accessLevel'], accessLevelHmac: p['accessLevelHmac'] } };
}
/** The README's `submit`: identity sign, then submit-transaction; waits until mined. */
async function submit(me: { session: J }, transactionHex: string): Promise<string> {
  const signed = await identity('sign', { ...me.session, transactionHex });
  const hash = (await api('submit-transaction', { TransactionHex: signed['signedTransactionHex'] }))['TxnHashHex'] as string;
  const start = (await api('get-app-state', {}))['BlockHeight'] as number;
  for (let i = 0; i < 200 && ((await api('get-app-state', {}))['BlockHeight'] as number) <= start; i++) await new Promise((r) => setTimeout(r, 50));
  return hash;
}
async function balance(pk: string): Promise<number> {
  return (await api('get-users-stateless', { PublicKeysBase58Check: [pk] }))['UserList'][0]['BalanceNanos'];
}
const thread = (me: string, bob: string): Promise<J> =>
  api('get-paginated-messages-for-dm-thread', {
    UserGroupOwnerPublicKeyBase58Check: bob,
    UserGroupKeyName: '',
    PartyGroupOwnerPublicKeyBase58Check: me,
    PartyGroupKeyName: '',
    StartTimestampString: String(BigInt(Date.now() + 60_000) * 1_000_000n),
    MaxMessagesToFetch: 10,
  });
const orders = (): Promise<J> => api('get-dao-coin-limit-orders', { DAOCoin1CreatorPublicKeyBase58CheckOrUsername: 'alice', DAOCoin2CreatorPublicKeyBase58CheckOrUsername2: '' });

describe('README walkthrough', () => {
  let me: { pk: string; session: J };
  let bob: { pk: string; session: J };

  it('1. create a key and a session', async () => {
    me = await login();
    bob = await login();
    assert.match(me.pk, /^tBC/);
  });

  it('2. get coins by mining (npm run miner)', async () => {
    miner = spawn(process.execPath, ['--import', 'tsx', 'miner/main.ts', '--node', node.url.replace('http', 'ws'), '--public-key', me.pk, '--threads', '1'], { cwd: REPO_ROOT, stdio: 'ignore' });
    for (let i = 0; i < 300 && (await balance(me.pk)) < 3e9; i++) await new Promise((r) => setTimeout(r, 50));
    miner.kill('SIGTERM');
    assert.ok((await balance(me.pk)) >= 3e9, 'three blocks of rewards (1 coin each) reached the key');
  });

  it('3. create a profile', async () => {
    const c = await api('update-profile', { UpdaterPublicKeyBase58Check: me.pk, ProfilePublicKeyBase58Check: '', NewUsername: 'alice', NewDescription: 'hello', NewProfilePic: '', NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500, IsHidden: false, MinFeeRateNanosPerKB: 1000 });
    await submit(me, c['TransactionHex']);
    const profile = (await api('get-single-profile', { Username: 'alice' }))['Profile'];
    assert.equal(profile['PublicKeyBase58Check'], me.pk);
    assert.equal(profile['Description'], 'hello');
  });

  it('4. send a DM', async () => {
    const enc = await identity('encrypt', { ...me.session, recipientPublicKey: bob.pk, message: 'hi bob' });
    const c = await api('send-dm-message', {
      SenderAccessGroupOwnerPublicKeyBase58Check: me.pk,
      SenderAccessGroupPublicKeyBase58Check: me.pk,
      SenderAccessGroupKeyName: '',
      RecipientAccessGroupOwnerPublicKeyBase58Check: bob.pk,
      RecipientAccessGroupPublicKeyBase58Check: bob.pk,
      RecipientAccessGroupKeyName: '',
      EncryptedMessageText: enc['encryptedMessage'],
      MinFeeRateNanosPerKB: 1000,
    });
    await submit(me, c['TransactionHex']);
    const [m] = (await thread(me.pk, bob.pk))['ThreadMessages'];
    const plain = await identity('decrypt', { ...bob.session, encryptedMessages: [{ EncryptedHex: m['MessageInfo']['EncryptedText'], PublicKey: me.pk, IsSender: false, Legacy: false }] });
    // decryptedHexes maps each ciphertext to its plaintext (the identity frame's naming).
    assert.equal((plain['decryptedHexes'] as Record<string, string>)[m['MessageInfo']['EncryptedText']], 'hi bob');
  });

  it('5. place an order: mint your DAO coin and offer 100 of it at 0.01 native each', async () => {
    const mint = await api('dao-coin', { UpdaterPublicKeyBase58Check: me.pk, ProfilePublicKeyBase58CheckOrUsername: 'alice', OperationType: 'mint', CoinsToMintNanos: '0x56bc75e2d63100000', MinFeeRateNanosPerKB: 1000 });
    await submit(me, mint['TransactionHex']);
    const order = await api('create-dao-coin-limit-order', {
      TransactorPublicKeyBase58Check: me.pk,
      BuyingDAOCoinCreatorPublicKeyBase58Check: '',
      SellingDAOCoinCreatorPublicKeyBase58Check: me.pk,
      Price: '0.01',
      Quantity: '100',
      OperationType: 'ASK',
      FillType: 'GOOD_TILL_CANCELLED',
      MinFeeRateNanosPerKB: 1000,
    });
    const id = await submit(me, order['TransactionHex']);
    const book = await orders();
    const mine = (book['Orders'] as J[]).find((o) => o['OrderID'] === id);
    assert.ok(mine, `the order is in the book: ${JSON.stringify(book)}`);
    assert.equal(mine['OperationType'], 'ASK');
    assert.equal(mine['QuantityToFill'], 100);
  });

  it('6. restart the node: the same tip, balances, DM thread and order, and the sessions still sign', async () => {
    const before = {
      height: (await api('get-app-state', {}))['BlockHeight'] as number,
      balances: [await balance(me.pk), await balance(bob.pk)],
      thread: (await thread(me.pk, bob.pk))['ThreadMessages'],
      orders: (await orders())['Orders'],
    };
    assert.equal(await node.stop(), 0, 'Ctrl-C (SIGTERM) stops the node cleanly');
    node = await startNodeProcess({ args: ['--data-dir', dataDir] });
    assert.equal((await api('get-app-state', {}))['BlockHeight'], before.height);
    assert.deepEqual([await balance(me.pk), await balance(bob.pk)], before.balances);
    assert.deepEqual((await thread(me.pk, bob.pk))['ThreadMessages'], before.thread);
    assert.deepEqual((await orders())['Orders'], before.orders);
    // The identity node secret was kept too: a session from before the restart still signs.
    const c = await api('update-profile', { UpdaterPublicKeyBase58Check: me.pk, ProfilePublicKeyBase58Check: '', NewUsername: 'alice', NewDescription: 'back again', NewProfilePic: '', NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500, IsHidden: false, MinFeeRateNanosPerKB: 1000 });
    await submit(me, c['TransactionHex']);
    assert.equal((await api('get-single-profile', { Username: 'alice' }))['Profile']['Description'], 'back again');
  });
});
