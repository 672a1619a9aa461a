/**
 * Order book read shaping (spec §2.7, reference §7.3) and coin resolution, without a node.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { DESO_COIN, type DAOCoinLimitOrder } from '../../server/chain/state/daoCoinLimitOrders.js';
import { profileKeys } from '../../server/chain/state/profiles.js';
import { toHex } from '../../server/hex.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { isNativeIdentifier, orderEntry, resolveCoin } from '../../server/social/orderBook.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const E38 = 10n ** 38n;
const key = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const creator = key();
const transactor = key();

const base = (o: Partial<DAOCoinLimitOrder>): DAOCoinLimitOrder => ({
  orderId: new Uint8Array(32).fill(0xab),
  transactor,
  buyingCreator: creator,
  sellingCreator: DESO_COIN,
  scaledExchangeRate: E38 / 100n / 10n ** 9n,
  quantityToFillInBaseUnits: 3n * 10n ** 18n,
  operationType: 2,
  fillType: 1,
  blockHeight: 5n,
  ...o,
});

describe('orderEntry', () => {
  it('a BID buying a token with the native coin: the native side is ""', () => {
    assert.deepEqual(orderEntry(base({}), 'testnet'), {
      TransactorPublicKeyBase58Check: encodePublicKey(transactor, 'testnet'),
      BuyingDAOCoinCreatorPublicKeyBase58Check: encodePublicKey(creator, 'testnet'),
      SellingDAOCoinCreatorPublicKeyBase58Check: '',
      Price: '0.01',
      Quantity: '3.0',
      ExchangeRateCoinsToSellPerCoinToBuy: 0.01,
      QuantityToFill: 3,
      OperationType: 'BID',
      OrderID: 'ab'.repeat(32),
    });
  });

  it('an ASK selling a token for the native coin: Price inverted, exchange rate not', () => {
    // 25 coins per native coin: rate = 25e18 base units per 1e9 nanos, ×1e38.
    const o = base({ buyingCreator: DESO_COIN, sellingCreator: creator, operationType: 1, scaledExchangeRate: 25n * 10n ** 9n * E38, quantityToFillInBaseUnits: 5n * 10n ** 18n });
    const r = orderEntry(o, 'testnet');
    assert.equal(r?.BuyingDAOCoinCreatorPublicKeyBase58Check, '');
    assert.equal(r?.Price, '0.04');
    assert.equal(r?.ExchangeRateCoinsToSellPerCoinToBuy, 25);
    assert.equal(r?.Quantity, '5.0');
  });

  it('orders the conversions cannot show are skipped (null)', () => {
    assert.equal(orderEntry(base({ quantityToFillInBaseUnits: 0n }), 'testnet'), null, 'zero quantity');
    assert.equal(orderEntry(base({ operationType: 7 }), 'testnet'), null, 'unknown operation');
  });
});

describe('resolving coins and users', () => {
  const state = new Map<string, unknown>([[profileKeys.byUsername('alice_1'), creator]]);
  const reader = { get: async <T>(k: string): Promise<T | undefined> => state.get(k) as T | undefined };

  it('native identifiers: "", "DESO" and the zero key of this network', () => {
    for (const s of ['', 'DESO', encodePublicKey(DESO_COIN, 'testnet')]) assert.equal(isNativeIdentifier(s, 'testnet'), true, JSON.stringify(s));
    assert.equal(isNativeIdentifier('deso', 'testnet'), false, 'case matters, as in the reference');
  });

  it('a username (any case) or a key (social/keyOrUsername.ts); errors carry the prefix, never the input', async () => {
    assert.deepEqual(await resolveCoin(reader, 'ALICE_1', 'testnet', 'Coin', 'P: '), creator);
    assert.deepEqual(await resolveCoin(reader, '', 'testnet', 'Coin', 'P: '), DESO_COIN);
    assert.deepEqual(await resolveCoin(reader, encodePublicKey(transactor, 'testnet'), 'testnet', 'Coin', 'P: '), transactor);
    await assert.rejects(resolveCoin(reader, 'bob', 'testnet', 'Coin', 'P: '), /^UsernameNotFoundError: P: Profile with username bob does not exist$/);
    const mainnetKey = encodePublicKey(transactor, 'mainnet');
    await assert.rejects(resolveCoin(reader, mainnetKey, 'testnet', 'Coin', 'P: '), (e: Error) => /^P: Problem decoding public key Coin: expected a testnet public key/.test(e.message) && !e.message.includes(mainnetKey));
  });
});
