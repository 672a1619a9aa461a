/**
 * Frontends on the official SDK, login (issue 21 item 1): the routes deso-protocol 3.4.1 reads
 * around a derived-key login (social-graph.md §1), end to end on a node (once per store of
 * TEST_STORES), first through the SDK itself and then one table of cases per route.
 *
 * The SDK runs headless: `configure({nodeURI, network: 'testnet', storageProvider})` with an
 * in-memory store, `identity.loginWithAutoDerive(ownerSeedHex)` (get-app-state,
 * get-access-bytes, authorize-derived-key signed by the new derived key, submit-transaction),
 * `refreshDerivedKeyPermissions` (get-single-derived-key), `sendDeso` (its permission check
 * passes on that answer; signed by the derived key), `waitForTransactionFound` (get-txn).
 *
 * The node runs with `--miner off` and blocks are mined by the test, so a transaction can be
 * seen in the mempool and then in a block.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { configure, identity, sendDeso, waitForTransactionFound, type AsyncStorage } from 'deso-protocol';
import { getDerivedKey } from '../../server/chain/state/derivedKeys.js';
import { decodeSpendingLimit } from '../../server/chain/txn/spendingLimit.js';
import { decodePublicKey } from '../../server/keys/index.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { getRouteTable, routeTable } from '../helpers/routeTable.js';

// The SDK signs JWTs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const FEE = { MinFeeRateNanosPerKB: 1000 };
const APP_NAME = 'sdk-e2e';
/** Not a public key; must never come back in an answer. */
const NOT_A_KEY = 'tBCnotAPublicKeyButMaybeASecret0000000000000000000000';
/** The SDK's default limit and its bytes (social-graph.md §1.4). */
const SDK_DEFAULT_LIMIT = { GlobalDESOLimit: 1e7, TransactionCountLimitMap: { AUTHORIZE_DERIVED_KEY: 1 } };
const SDK_DEFAULT_HEX = `80ade204011601${'00'.repeat(12)}`;

interface Ctx {
  n: ChainNode;
  owner: KeyPair;
  bob: KeyPair;
  /** The derived key the SDK's login authorized (Base58Check). */
  derivedPk: string;
  /** A transaction mined in a block (the SDK's sendDeso). */
  minedHash: string;
}


/** What the SDK keeps in localStorage in a browser. */
function memoryStorage(): AsyncStorage {
  const items = new Map<string, string>();
  return {
    getItem: async (k) => items.get(k) ?? null,
    setItem: async (k, v) => void items.set(k, v),
    removeItem: async (k) => void items.delete(k),
    clear: async () => items.clear(),
  };
}

/** send-deso from the miner's rewards, signed, submitted and mined by the test. */
async function fund(n: ChainNode, pk: string, nanos: number): Promise<void> {
  const built = await n.ok('send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: pk, AmountNanos: nanos, ...FEE });
  const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(built['TransactionHex'] as string, n.miner, 'sdk') });
  await n.mineBlock();
  await n.waitMined(s['TxnHashHex'] as string);
}

const getTxn = async (n: ChainNode, hash: string, TxnStatus?: string): Promise<boolean> => (await n.ok('get-txn', { TxnHashHex: hash, ...(TxnStatus ? { TxnStatus } : {}) }))['TxnFound'] as boolean;

const table = routeTable<Ctx>((message) => assert.ok(!message.includes(NOT_A_KEY), 'the error does not echo what was sent as a key'));
const getTable = getRouteTable<Ctx>((message) => assert.ok(!message.includes(NOT_A_KEY), 'the error does not echo what was sent as a key'));

for (const store of TEST_STORES) suite(store);

function suite(store: 'memory' | 'redis'): void {
  describe(`SDK login routes (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the SDK flow ran');
      return c;
    };
    let n: ChainNode;
    const owner = keyPair();
    const bob = keyPair();

    before(async () => {
      n = await startChainNode({ store, args: ['--miner', 'off'] });
      for (let i = 0; i < 3; i++) await n.mineBlock();
      await fund(n, owner.pk, 100_000_000);
    });
    after(() => n?.close());

    describe('the official SDK logs in with an auto-derived key and signs with it', () => {
      it('loginWithAutoDerive: get-access-bytes gives the limit bytes the owner signs, the key is authorized, get-single-derived-key answers it valid with its limit', async () => {
        const spendingLimitOptions = { GlobalDESOLimit: 50_000_000, TransactionCountLimitMap: { BASIC_TRANSFER: 2 } };
        configure({ nodeURI: n.url, network: 'testnet', storageProvider: memoryStorage(), spendingLimitOptions, appName: APP_NAME, MinFeeRateNanosPerKB: 1000 });
        const payload = (await identity.loginWithAutoDerive(owner.seedHex)) as J;
        assert.equal(payload['publicKeyAdded'], owner.pk);
        const derivedPk = payload['derivedPublicKeyBase58Check'] as string;

        // The hex the SDK signed is what get-access-bytes answers for its limit.
        const access = await n.ok('get-access-bytes', { DerivedPublicKeyBase58Check: derivedPk, ExpirationBlock: payload['expirationBlock'], TransactionSpendingLimit: identity.transactionSpendingLimitOptions });
        assert.equal(payload['transactionSpendingLimitHex'], access['TransactionSpendingLimitHex']);

        // The authorization the SDK submitted (signed by the derived key itself) is mined.
        await n.mineBlock();
        const record = await getDerivedKey(n.deps.store, owner.pk33, decodePublicKey(derivedPk, 'testnet', 'derived'));
        assert.ok(record, 'the authorization is in chain state');

        await identity.refreshDerivedKeyPermissions();
        const user = ((await identity.snapshot()) as J)['currentUser'] as J;
        const key = user['primaryDerivedKey'] as J;
        assert.equal(user['publicKey'], owner.pk);
        assert.equal(key['IsValid'], true, 'get-single-derived-key: IsValid');
        assert.equal((key['transactionSpendingLimits'] as J)['TransactionCountLimitMap']['BASIC_TRANSFER'], 2);
        c = { n, owner, bob, derivedPk, minedHash: '' };
      });

      it('sendDeso: the permission check passes on that answer, the derived key signs, waitForTransactionFound finds it in the mempool and then in a block', async () => {
        const { derivedPk } = ctx();
        assert.equal(await identity.hasPermissions({ GlobalDESOLimit: 1_000_000, TransactionCountLimitMap: { BASIC_TRANSFER: 1 } }), true);
        const r = await sendDeso({ SenderPublicKeyBase58Check: owner.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 12_345 });
        const hash = (r.submittedTransactionResponse as J)['TxnHashHex'] as string;
        await waitForTransactionFound(hash, { timeout: 10_000 });
        assert.equal(await getTxn(n, hash, 'Committed'), false, 'in the mempool, not yet in a block');
        await n.mineBlock();
        await n.waitMined(hash);
        await waitForTransactionFound(hash, { timeout: 10_000 });
        assert.equal(await getTxn(n, hash, 'Committed'), true, 'in a block');
        assert.equal(await n.deps.chain.balance(bob.pk33), 12_345n);
        // Spent from the derived key's limit: it signed.
        const record = await getDerivedKey(n.deps.store, owner.pk33, decodePublicKey(derivedPk, 'testnet', 'derived'));
        assert.equal(decodeSpendingLimit(record!.spendingLimit).transactionCounts.get(2), 1n, 'one BASIC_TRANSFER left');
        await identity.refreshDerivedKeyPermissions();
        const key = (((await identity.snapshot()) as J)['currentUser'] as J)['primaryDerivedKey'] as J;
        assert.equal((key['transactionSpendingLimits'] as J)['TransactionCountLimitMap']['BASIC_TRANSFER'], 1, 'the SDK sees the spent limit');
        ctx().minedHash = hash;
      });
    });

    table(ctx, 'get-access-bytes', [
      {
        name: "the SDK's default limit: its bytes, and the MetaMask text of the access bytes",
        body: (c) => ({ DerivedPublicKeyBase58Check: c.derivedPk, ExpirationBlock: 123, TransactionSpendingLimit: SDK_DEFAULT_LIMIT }),
        check: (r, c) => {
          assert.equal(r['TransactionSpendingLimitHex'], SDK_DEFAULT_HEX);
          assert.equal(
            Buffer.from(r['AccessBytesHex'] as string, 'hex').toString('utf8'),
            `DECENTRALIZED SOCIAL\n\nYour derived public key: ${c.derivedPk}\n\nThe expiration block of your key: 123\n\nSpending limits on the derived key:\n\tTotal $DESO Limit: 0.01 $DESO\n\tTransaction Count Limit: \n\t\tAUTHORIZE_DERIVED_KEY: 1\n`,
          );
        },
      },
      {
        name: 'field names in any case, no limit: the empty limit',
        body: (c) => ({ derivedpublickeybase58check: c.derivedPk }),
        check: (r) => assert.equal(r['TransactionSpendingLimitHex'], '00'.repeat(14)),
      },
      { name: 'a bad derived key (not echoed)', body: () => ({ DerivedPublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetAccessBytes: Problem decoding derived public key: / } },
      {
        name: 'a limit naming a bad creator key (not echoed)',
        body: (c) => ({ DerivedPublicKeyBase58Check: c.derivedPk, TransactionSpendingLimit: { CreatorCoinOperationLimitMap: { [NOT_A_KEY]: { buy: 1 } } } }),
        error: { re: /^GetAccessBytes: Error parsing transaction spending limit from response: Error getting PKID for pub key: / },
      },
      {
        name: 'a negative count',
        body: (c) => ({ DerivedPublicKeyBase58Check: c.derivedPk, TransactionSpendingLimit: { TransactionCountLimitMap: { BASIC_TRANSFER: -1 } } }),
        error: { re: /TransactionSpendingLimit\.TransactionCountLimitMap\.BASIC_TRANSFER: expected an unsigned 64-bit integer/ },
      },
    ]);

    /** A limit touching most maps, in the form the node answers it. */
    const richLimit = (c: Ctx): J => ({
      GlobalDESOLimit: 5,
      TransactionCountLimitMap: { BASIC_TRANSFER: 3, SUBMIT_POST: 1 },
      CreatorCoinOperationLimitMap: { [c.owner.pk]: { buy: 2 } },
      DAOCoinOperationLimitMap: { '': { mint: 1 } },
      NFTOperationLimitMap: null,
      DAOCoinLimitOrderLimitMap: { DESO: { [c.owner.pk]: 4 } },
      AssociationLimitMap: [{ AssociationClass: 'Post', AssociationType: 'reaction', AppScopeType: 'Any', AppPublicKeyBase58Check: '', AssociationOperation: 'Create', OpCount: 2 }],
      AccessGroupLimitMap: [{ AccessGroupOwnerPublicKeyBase58Check: c.owner.pk, ScopeType: 'Scoped', AccessGroupKeyName: 'chat', OperationType: 'Any', OpCount: 1 }],
      AccessGroupMemberLimitMap: null,
      StakeLimitMap: [{ ValidatorPublicKeyBase58Check: '', StakeLimit: '0x3b9aca00' }],
      UnstakeLimitMap: null,
      UnlockStakeLimitMap: null,
      LockupLimitMap: [{ ProfilePublicKeyBase58Check: c.owner.pk, ScopeType: 'ScopedCoins', Operation: 'CoinLockup', OpCount: 1 }],
      IsUnlimited: false,
    });

    table(ctx, 'get-transaction-spending-limit-hex-string', [
      { name: "the SDK's default limit: the bytes get-access-bytes answers", body: () => ({ TransactionSpendingLimit: SDK_DEFAULT_LIMIT }), check: (r) => assert.deepEqual(r, { HexString: SDK_DEFAULT_HEX }) },
      {
        name: 'a limit over most maps reads back from its hex as sent (GET …-response-from-hex)',
        body: (c) => ({ TransactionSpendingLimit: richLimit(c) }),
        check: async (r, c) => {
          const back = (await (await fetch(`${c.n.url}/api/v0/get-transaction-spending-limit-response-from-hex/${r['HexString']}`)).json()) as J;
          assert.deepEqual(back, richLimit(c));
        },
      },
      {
        name: 'a bad NFT post hash',
        body: () => ({ TransactionSpendingLimit: { NFTOperationLimitMap: { abc: { '0': { any: 1 } } } } }),
        error: { re: /^GetTransactionSpendingLimitHexString: Error parsing transaction spending limit from response: Error parsing post hash/ },
      },
    ]);

    getTable(ctx, 'get-transaction-spending-limit-response-from-hex/{hex}', [
      {
        name: "the SDK's default limit as the bare limit object, empty maps null",
        path: () => `get-transaction-spending-limit-response-from-hex/${SDK_DEFAULT_HEX}`,
        check: (r) =>
          assert.deepEqual(r, {
            GlobalDESOLimit: 10_000_000,
            TransactionCountLimitMap: { AUTHORIZE_DERIVED_KEY: 1 },
            CreatorCoinOperationLimitMap: null,
            DAOCoinOperationLimitMap: null,
            NFTOperationLimitMap: null,
            DAOCoinLimitOrderLimitMap: null,
            AssociationLimitMap: null,
            AccessGroupLimitMap: null,
            AccessGroupMemberLimitMap: null,
            StakeLimitMap: null,
            UnstakeLimitMap: null,
            UnlockStakeLimitMap: null,
            LockupLimitMap: null,
            IsUnlimited: false,
          }),
      },
      { name: 'upper-case hex and ?blockHeight= (every height has the current layout)', path: () => `get-transaction-spending-limit-response-from-hex/${SDK_DEFAULT_HEX.toUpperCase()}?blockHeight=5`, check: (r) => assert.equal(r['GlobalDESOLimit'], 10_000_000) },
      { name: 'odd-length hex', path: () => 'get-transaction-spending-limit-response-from-hex/abc', error: { re: /^GetTransactionSpendingLimitResponseFromHex: Error decoding transaction spending limit hex$/ } },
      { name: 'not hex', path: () => 'get-transaction-spending-limit-response-from-hex/zz', error: { re: /^GetTransactionSpendingLimitResponseFromHex: Error decoding transaction spending limit hex$/ } },
      { name: 'bytes that are no limit', path: () => 'get-transaction-spending-limit-response-from-hex/0001', error: { re: /^GetTransactionSpendingLimitResponseFromHex: Error constructing TransactionSpendingLimit from bytes/ } },
      { name: 'a negative blockHeight', path: () => `get-transaction-spending-limit-response-from-hex/${SDK_DEFAULT_HEX}?blockHeight=-1`, error: { re: /^GetTransactionSpendingLimitResponseFromHex: blockHeight query param must be uint64$/ } },
      { name: 'a blockHeight that is no number', path: () => `get-transaction-spending-limit-response-from-hex/${SDK_DEFAULT_HEX}?blockHeight=x`, error: { re: /^GetTransactionSpendingLimitResponseFromHex: Error parsing blockHeight query param/ } },
    ]);

    getTable(ctx, 'get-single-derived-key/{owner}/{derived}', [
      {
        name: "the SDK-authorized key: the reference's fields, valid, its remaining limit, the app name as memo",
        path: (c) => `get-single-derived-key/${c.owner.pk}/${c.derivedPk}`,
        check: (r, c) => {
          const k = r['DerivedKey'] as J;
          assert.deepEqual(Object.keys(k), ['OwnerPublicKeyBase58Check', 'DerivedPublicKeyBase58Check', 'ExpirationBlock', 'IsValid', 'ExtraData', 'TransactionSpendingLimit', 'Memo']);
          assert.equal(k['OwnerPublicKeyBase58Check'], c.owner.pk);
          assert.equal(k['DerivedPublicKeyBase58Check'], c.derivedPk);
          assert.equal(k['IsValid'], true);
          assert.equal(k['Memo'], APP_NAME);
          assert.equal((k['TransactionSpendingLimit'] as J)['TransactionCountLimitMap']['BASIC_TRANSFER'], 1);
        },
      },
      {
        name: 'a key past its expiration block: IsValid false (the answer cached while it was valid goes with the block)',
        path: async (c) => {
          const expirationBlock = Number((await c.n.deps.chain.tip()).height) + 3;
          const login = (await c.n.ok('identity', { id: 'short-lived', service: 'identity', method: 'login', payload: { seedHex: c.owner.seedHex, derive: true, transactionSpendingLimitHex: SDK_DEFAULT_HEX, accessLevelRequest: 4, expirationBlock } }))['payload'] as J;
          const built = await c.n.ok('authorize-derived-key', {
            OwnerPublicKeyBase58Check: c.owner.pk,
            DerivedPublicKeyBase58Check: login['derivedPublicKeyBase58Check'],
            ExpirationBlock: expirationBlock,
            AccessSignature: login['accessSignature'],
            TransactionSpendingLimitHex: SDK_DEFAULT_HEX,
            ...FEE,
          });
          const s = await c.n.ok('submit-transaction', { TransactionHex: await c.n.sign(built['TransactionHex'] as string, c.owner, 'sdk') });
          const path = `get-single-derived-key/${c.owner.pk}/${login['derivedPublicKeyBase58Check']}`;
          const pending = (await (await fetch(`${c.n.url}/api/v0/${path}`)).json()) as J;
          assert.equal((pending['DerivedKey'] as J)['IsValid'], true, 'valid from the mempool on');
          await c.n.mineBlock();
          await c.n.waitMined(s['TxnHashHex'] as string);
          while ((await c.n.deps.chain.tip()).height < BigInt(expirationBlock)) await c.n.mineBlock();
          return path;
        },
        check: (r) => assert.equal((r['DerivedKey'] as J)['IsValid'], false),
      },
      { name: 'a key the owner never authorized', path: (c) => `get-single-derived-key/${c.owner.pk}/${c.bob.pk}`, error: { re: /^GetSingleDerivedKey: DerivedKey was not found$/ } },
      { name: 'a bad owner key (not echoed)', path: (c) => `get-single-derived-key/${NOT_A_KEY}/${c.derivedPk}`, error: { re: /^GetSingleDerivedKey: Problem decoding owner public key: / } },
      { name: 'a bad derived key (not echoed)', path: (c) => `get-single-derived-key/${c.owner.pk}/${NOT_A_KEY}`, error: { re: /^GetSingleDerivedKey: Problem decoding derived public key: / } },
    ]);

    table(ctx, 'get-txn', [
      { name: 'a mined transaction: found (TxnStatus empty means InMempool)', body: (c) => ({ TxnHashHex: c.minedHash, TxnStatus: '' }), check: (r) => assert.deepEqual(r, { TxnFound: true }) },
      { name: 'a mined transaction, upper-case hex, Committed: found', body: (c) => ({ TxnHashHex: c.minedHash.toUpperCase(), TxnStatus: 'Committed' }), check: (r) => assert.deepEqual(r, { TxnFound: true }) },
      {
        name: 'a transaction in the mempool: found for InMempool, not for Committed',
        body: async (c) => {
          const built = await c.n.ok('send-deso', { SenderPublicKeyBase58Check: c.owner.pk, RecipientPublicKeyOrUsername: c.bob.pk, AmountNanos: 1, ...FEE });
          const s = await c.n.ok('submit-transaction', { TransactionHex: await c.n.sign(built['TransactionHex'] as string, c.owner, 'sdk') });
          assert.equal(await getTxn(c.n, s['TxnHashHex'] as string, 'Committed'), false, 'not in a block');
          return { TxnHashHex: s['TxnHashHex'], TxnStatus: 'InMempool' };
        },
        check: (r) => assert.deepEqual(r, { TxnFound: true }),
      },
      {
        // The location key holds the hash's first 16 bytes: the rest is checked against the block.
        name: 'a hash sharing the first 16 bytes of a mined transaction: not found',
        body: (c) => ({ TxnHashHex: c.minedHash.slice(0, 32) + (c.minedHash[32] === '0' ? '1' : '0') + c.minedHash.slice(33) }),
        check: (r) => assert.deepEqual(r, { TxnFound: false }),
      },
      { name: 'an unknown hash: not found', body: () => ({ TxnHashHex: 'ab'.repeat(32) }), check: (r) => assert.deepEqual(r, { TxnFound: false }) },
      { name: 'no hash', body: () => ({}), error: { re: /^GetTxn: Must provide a TxnHashHex\.$/ } },
      { name: 'a hash that is not 32 bytes of hex (not echoed)', body: () => ({ TxnHashHex: NOT_A_KEY }), error: { re: /^GetTxn: Error parsing post hash: / } },
      { name: 'an unknown TxnStatus', body: (c) => ({ TxnHashHex: c.minedHash, TxnStatus: 'Mined' }), error: { re: /^GetTxn: Invalid TxnStatus: Mined\. Options are \{InMempool, Committed\}$/ } },
    ]);
  });
}
