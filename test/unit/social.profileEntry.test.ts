/**
 * The ProfileEntryResponse builder (spec §2.4–2.6) over a state view filled by the real
 * transaction rules (UPDATE_PROFILE, CREATOR_COIN, DAO_COIN, DAO_COIN_LIMIT_ORDER connected
 * through connectTransaction), plus its parts: the backend's coin price, the best DAO-coin
 * price from the order book, ExtraData rendering, the node-local flags, and the node-local
 * helpers of server/social/userMetadata.ts and spendingLimitResponse.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import type { AppDeps } from '../../server/app.js';
import { constructTxn } from '../../server/chain/construct.js';
import { priceToScaledExchangeRate } from '../../server/chain/daoCoinPrices.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { setBalance } from '../../server/chain/state/balances.js';
import { putOrder, type DAOCoinLimitOrder } from '../../server/chain/state/daoCoinLimitOrders.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { CreatorCoinOperation, DAOCoinLimitOrderFill, DAOCoinLimitOrderOperation, DAOCoinOperation, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import { emptySpendingLimit, LIMIT_KEYS, setLimit } from '../../server/chain/txn/spendingLimit.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { toHex } from '../../server/hex.js';
import { encodePublicKey } from '../../server/keys/index.js';
import {
  bestExchangeRateNativePerDAOCoin,
  coinPriceNativeNanos,
  extraDataMap,
  profileEntryMap,
  profileEntryResponse,
  profileFlagKeys,
} from '../../server/social/profileEntry.js';
import { transactionSpendingLimitResponse, txnString } from '../../server/social/spendingLimitResponse.js';
import {
  confirmEmailVerification,
  renewEmailVerification,
  getMessageReadState,
  getUserMetadata,
  isBlockedBy,
  isCommentHidden,
  logMailer,
  maskEmail,
  MAX_READ_STATE_CONTACTS,
  MAX_READ_STATE_KEY_CHARS,
  mergeReadState,
  newEmailVerification,
  setBlocked,
  updateMessageReadState,
  updateUserMetadata,
  userMetadataKeys,
  visibleComments,
} from '../../server/social/userMetadata.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const ctx: ConnectContext = { height: 10n, rules: { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n }, crypto: {} as CryptoService };
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const DESO = new Uint8Array(33);
const COIN = 10n ** 18n;
const START = 10_000_000_000n;
const PIC = `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]).toString('base64')}`;

let store: MemoryStore;
let view: StateView;
let deps: AppDeps;
let creator: Uint8Array;
let buyer: Uint8Array;

/** Connects a transaction of `pk` at 1000 nanos/KB; a limit order's metadata fee follows the txn fee. */
async function connect(pk: Uint8Array, metadata: TxnMetadata, extraData: Array<[Uint8Array, Uint8Array]> = []): Promise<void> {
  let meta = metadata;
  let c = constructTxn({ publicKey: pk, metadata: meta, extraData, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
  if (meta.type === 'DAO_COIN_LIMIT_ORDER') {
    for (let i = 0; i < 4 && meta.type === 'DAO_COIN_LIMIT_ORDER' && meta.feeNanos !== c.feeNanos; i++) {
      meta = { ...meta, feeNanos: c.feeNanos };
      c = constructTxn({ publicKey: pk, metadata: meta, extraData, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
    }
  }
  await connectTransaction(view, decodeTxn(c.bytes), { hash: sha256d(c.bytes), size: c.bytes.length, signer: pk }, ctx);
}

const createProfile = (pk: Uint8Array, username: string, extraData: Array<[Uint8Array, Uint8Array]> = []): Promise<void> =>
  connect(
    pk,
    {
      type: 'UPDATE_PROFILE',
      profilePublicKey: new Uint8Array(0),
      newUsername: utf8(username),
      newDescription: utf8(`about ${username}`),
      newProfilePic: utf8(PIC),
      newCreatorBasisPoints: 1000n,
      newStakeMultipleBasisPoints: 12_500n,
      isHidden: false,
    },
    extraData,
  );

const buyCreatorCoin = (pk: Uint8Array, of: Uint8Array, nanos: bigint): Promise<void> =>
  connect(pk, { type: 'CREATOR_COIN', profilePublicKey: of, operationType: CreatorCoinOperation.BUY, desoToSellNanos: nanos, creatorCoinToSellNanos: 0n, desoToAddNanos: 0n, minDesoExpectedNanos: 0n, minCreatorCoinExpectedNanos: 0n });

const mintDaoCoin = (pk: Uint8Array, coins: bigint): Promise<void> =>
  connect(pk, { type: 'DAO_COIN', profilePublicKey: pk, operationType: DAOCoinOperation.MINT, coinsToMintNanos: coins, coinsToBurnNanos: 0n, transferRestrictionStatus: 0 });

/** A resting ASK of `pk` selling `quantity` of `coin` for native coin at `price` native per coin. */
const askDaoCoin = (pk: Uint8Array, coin: Uint8Array, price: string, quantity: bigint): Promise<void> =>
  connect(pk, {
    type: 'DAO_COIN_LIMIT_ORDER',
    buyingDAOCoinCreatorPublicKey: DESO,
    sellingDAOCoinCreatorPublicKey: coin,
    scaledExchangeRateCoinsToSellPerCoinToBuy: priceToScaledExchangeRate({ buyingIsDeso: true, sellingIsDeso: false }, price, 'ASK'),
    quantityToFillInBaseUnits: quantity,
    operationType: DAOCoinLimitOrderOperation.ASK,
    fillType: DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED,
    cancelOrderId: null,
    bidderInputs: [],
    feeNanos: 0n,
  });

beforeEach(() => {
  store = new MemoryStore();
  view = StateView.over(store);
  deps = { config: { network: 'testnet' }, store } as unknown as AppDeps;
  [creator, buyer] = [newKey(), newKey()];
  for (const pk of [creator, buyer]) setBalance(view, pk, START);
});

describe('coinPriceNativeNanos (backend _profileEntryToResponse)', () => {
  const cases: Array<{ locked: bigint; supply: bigint; want: bigint }> = [
    { locked: 0n, supply: 0n, want: 0n },
    { locked: 5n, supply: 0n, want: 0n },
    { locked: 1_000_000_000n, supply: 1_000_000_000n, want: 3_000_000_300n },
    { locked: 953_247_258n, supply: 9_841_661_798n, want: 290_575_120n },
    { locked: 1_832_439_217n, supply: 12_237_041_464n, want: 449_235_888n },
  ];
  for (const c of cases) {
    it(`locked ${c.locked}, supply ${c.supply} → ${c.want}`, () => {
      assert.equal(coinPriceNativeNanos(c.locked, c.supply), c.want);
      if (c.supply > 0n) {
        // Within a nano of the exact locked / (supply × 0.3333333).
        const exact = (c.locked * 10n ** 16n) / (c.supply * 3_333_333n);
        assert.ok(exact - c.want <= 1n && c.want - exact <= 1n, `${c.want} is within 1 of ${exact}`);
      }
    });
  }
});

describe('extraDataMap', () => {
  it('renders text, a DerivedPublicKey as Base58Check and NodeSource as a number', () => {
    const k = newKey();
    const got = extraDataMap(
      [
        [utf8('DerivedPublicKey'), k],
        [utf8('NodeSource'), encodeUvarint(300n)],
        [utf8('TwitterHandle'), utf8('@someone')],
      ],
      'testnet',
    );
    assert.deepEqual(got, { DerivedPublicKey: encodePublicKey(k, 'testnet'), NodeSource: '300', TwitterHandle: '@someone' });
  });

  it('renders a "__proto__" key of a transaction as an ordinary key, never as the prototype', () => {
    const got = extraDataMap([[utf8('__proto__'), utf8('{"polluted":true}')], [utf8('constructor'), utf8('x')]], 'testnet');
    assert.equal(Object.getPrototypeOf(got), Object.prototype);
    assert.equal((got as Record<string, unknown>)['polluted'], undefined);
    assert.equal(JSON.stringify(got), '{"__proto__":"{\\"polluted\\":true}","constructor":"x"}');
  });
});

describe('profileEntryResponse', () => {
  it('is null for a key without a profile, and profileEntryMap keys it by Base58Check with null', async () => {
    assert.equal(await profileEntryResponse(deps, view, creator), null);
    await createProfile(creator, 'alpha');
    const map = await profileEntryMap(deps, view, [creator, buyer, creator]);
    assert.deepEqual(Object.keys(map).sort(), [encodePublicKey(buyer, 'testnet'), encodePublicKey(creator, 'testnet')].sort());
    assert.equal(map[encodePublicKey(buyer, 'testnet')], null);
    assert.equal((map[encodePublicKey(creator, 'testnet')] as Record<string, unknown>)['Username'], 'alpha');
  });

  it('has every spec §2.4 field with the coin, DAO coin, price, balance and ExtraData of the chain state', async () => {
    await createProfile(creator, 'alpha', [[utf8('Website'), utf8('https://example.com')]]);
    await buyCreatorCoin(buyer, creator, 1_000_000_000n);
    const r = (await profileEntryResponse(deps, view, creator))!;
    assert.deepEqual(Object.keys(r).sort(), [
      'BestExchangeRateNativePerDAOCoin', 'CoinEntry', 'CoinPriceLegacyNanos', 'CoinPriceNativeNanos', 'Comments', 'DAOCoinEntry', 'Description',
      'ExtraData', 'IsFeaturedTutorialUpAndComingCreator', 'IsFeaturedTutorialWellKnownCreator', 'IsHidden', 'IsReserved', 'IsVerified',
      'NativeBalanceNanos', 'Posts', 'PublicKeyBase58Check', 'Username', 'UsersThatHODL',
    ]);
    const coin = r['CoinEntry'] as Record<string, bigint>;
    assert.equal(coin['CreatorBasisPoints'], 1000n);
    assert.equal(coin['NumberOfHolders'], 1n);
    assert.ok(coin['NativeLockedNanos']! > 0n && coin['CoinsInCirculationNanos']! > 0n, 'the buy locked native and minted coins');
    assert.equal(coin['LegacyLockedNanos'], coin['NativeLockedNanos']);
    assert.equal(coin['CoinWatermarkNanos'], coin['CoinsInCirculationNanos']);
    assert.equal(r['CoinPriceNativeNanos'], coinPriceNativeNanos(coin['NativeLockedNanos']!, coin['CoinsInCirculationNanos']!));
    assert.equal(r['CoinPriceLegacyNanos'], r['CoinPriceNativeNanos']);
    assert.deepEqual(r['DAOCoinEntry'], { NumberOfHolders: 0n, CoinsInCirculationNanos: '0x0', MintingDisabled: false, TransferRestrictionStatus: 'unrestricted' });
    assert.equal(r['PublicKeyBase58Check'], encodePublicKey(creator, 'testnet'));
    assert.equal(r['Description'], 'about alpha');
    assert.deepEqual(r['ExtraData'], { Website: 'https://example.com' });
    assert.ok(typeof r['NativeBalanceNanos'] === 'bigint' && r['NativeBalanceNanos'] > START, 'the founder reward raised the creator’s balance');
    assert.equal(r['BestExchangeRateNativePerDAOCoin'], 0);
    for (const f of ['IsHidden', 'IsReserved', 'IsVerified', 'IsFeaturedTutorialWellKnownCreator', 'IsFeaturedTutorialUpAndComingCreator']) assert.equal(r[f], false, f);
    for (const f of ['Comments', 'Posts', 'UsersThatHODL']) assert.equal(r[f], null, f);
  });

  it('shows the DAO coin supply as 0x hex and the best ask as native per DAO coin', async () => {
    await createProfile(creator, 'alpha');
    await mintDaoCoin(creator, 1000n * COIN);
    await askDaoCoin(creator, creator, '0.05', 3n * COIN);
    await askDaoCoin(creator, creator, '0.02', 2n * COIN);
    const r = (await profileEntryResponse(deps, view, creator))!;
    assert.deepEqual(r['DAOCoinEntry'], { NumberOfHolders: 1n, CoinsInCirculationNanos: `0x${(1000n * COIN).toString(16)}`, MintingDisabled: false, TransferRestrictionStatus: 'unrestricted' });
    assert.equal(r['BestExchangeRateNativePerDAOCoin'], 0.02, 'the cheapest ask');
    assert.equal(await bestExchangeRateNativePerDAOCoin(view, creator, 0n), 0, 'no holders: the backend does not look');
  });

  it('finds the best ask of a 2,000-ask book with an unmined ask by reading one book member, not the book', async () => {
    const ask = (i: number, scaledExchangeRate: bigint): DAOCoinLimitOrder => ({
      orderId: new Uint8Array(32).fill(i % 256).map((b, j) => (j < 2 ? (i >> (8 * j)) & 0xff : b)),
      transactor: buyer,
      buyingCreator: DESO,
      sellingCreator: creator,
      scaledExchangeRate,
      quantityToFillInBaseUnits: COIN,
      operationType: DAOCoinLimitOrderOperation.ASK,
      fillType: DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED,
      blockHeight: 9n,
    });
    const mined = StateView.over(store);
    // Asks at 100 native per coin and a little above.
    for (let i = 0; i < 2000; i++) putOrder(mined, ask(i, 10n ** 45n - BigInt(i)));
    await store.commit(mined.ops());
    const pending = StateView.over(store).child();
    putOrder(pending, ask(2000, 10n ** 46n)); // 10 native per coin: the best, in the mempool
    let membersRead = 0;
    const indexRange = store.indexRange.bind(store);
    store.indexRange = async (key, range) => {
      const members = await indexRange(key, range);
      membersRead += members.length;
      return members;
    };
    assert.equal(await bestExchangeRateNativePerDAOCoin(pending, creator, 1n), 10);
    assert.ok(membersRead <= 1, `read ${membersRead} book members`);
  });

  it('reads IsVerified and the tutorial flags from the node-local keys', async () => {
    await createProfile(creator, 'Alpha');
    await store.set(profileFlagKeys.verified(creator), true);
    await store.indexAdd(profileFlagKeys.tutorialUpAndComing, [toHex(creator)]);
    let r = (await profileEntryResponse(deps, view, creator))!;
    assert.equal(r['IsVerified'], true);
    assert.equal(r['IsFeaturedTutorialUpAndComingCreator'], true);
    assert.equal(r['IsFeaturedTutorialWellKnownCreator'], false);
    // A badge granted for a username is lost when the profile is renamed.
    await store.set(profileFlagKeys.verified(creator), 'someoneelse');
    r = (await profileEntryResponse(deps, view, creator))!;
    assert.equal(r['IsVerified'], false);
    await store.set(profileFlagKeys.verified(creator), 'alpha');
    assert.equal((await profileEntryResponse(deps, view, creator))!['IsVerified'], true);
  });
});

describe('blocks and comment hiding (social/userMetadata.ts)', () => {
  const [author, troll, friend] = [newKey(), newKey(), newKey()];
  const cases: Array<{ name: string; blocks: Array<[Uint8Array, Uint8Array]>; parent: Uint8Array; commenter: Uint8Array; hidden: boolean }> = [
    { name: 'a comment by someone the post author blocked is hidden', blocks: [[author, troll]], parent: author, commenter: troll, hidden: true },
    { name: 'a comment by someone else stays', blocks: [[author, troll]], parent: author, commenter: friend, hidden: false },
    { name: 'a block by a third party does not hide it', blocks: [[friend, troll]], parent: author, commenter: troll, hidden: false },
    { name: 'the author’s own comment is never hidden', blocks: [[author, author]], parent: author, commenter: author, hidden: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      for (const [a, b] of c.blocks) await setBlocked(store, a, b, false);
      assert.equal(await isCommentHidden(store, c.parent, c.commenter), c.hidden);
      const shown = await visibleComments(store, c.parent, [{ posterPublicKey: c.commenter, id: 1 }]);
      assert.equal(shown.length, c.hidden ? 0 : 1, 'visibleComments agrees');
    });
  }

  it('unblocking is idempotent and lifts the hiding', async () => {
    await setBlocked(store, author, troll, false);
    await setBlocked(store, author, troll, false);
    assert.equal(await isBlockedBy(store, author, troll), true);
    await setBlocked(store, author, troll, true);
    await setBlocked(store, author, troll, true);
    assert.equal(await isCommentHidden(store, author, troll), false);
  });
});

describe('user metadata and email verification', () => {
  it('updates compare-and-set: concurrent updates keep each other’s fields', async () => {
    const pk = newKey();
    await Promise.all(Array.from({ length: 10 }, (_, i) => updateMessageReadState(store, pk, { [`c${i}`]: i })));
    assert.equal(Object.keys(await getMessageReadState(store, pk)).length, 10);
    await Promise.all([
      updateUserMetadata(store, pk, (m) => ({ ...m, email: 'a@example.com' })),
      updateUserMetadata(store, pk, (m) => ({ ...m, phoneNumber: '+1555' })),
      updateUserMetadata(store, pk, (m) => ({ ...m, whitelistPosts: true })),
    ]);
    const m = await getUserMetadata(store, pk);
    assert.deepEqual([m.email, m.phoneNumber, m.whitelistPosts], ['a@example.com', '+1555', true]);
  });

  it('a record that does not survive decode and re-encode can still be updated (CAS on the stored bytes)', async () => {
    const pk = newKey();
    // As a record written before client map keys were checked: msgpackr reads "__proto__" back
    // as "__proto_", so a guard on the decoded value would never hold again.
    await store.set(userMetadataKeys.record(pk), JSON.parse('{"email":"a@example.com","messageReadStateByContact":{"__proto__":1}}'));
    await updateUserMetadata(store, pk, (m) => ({ ...m, removeEverywhere: true }));
    await updateUserMetadata(store, pk, (m) => ({ ...m, email: '' }));
    const m = await getUserMetadata(store, pk);
    assert.deepEqual([m.email, m.removeEverywhere], ['', true]);
    // The older record's read state moved to its own key, where it can be updated too.
    assert.equal(Object.keys(await getMessageReadState(store, pk)).length, 1);
    assert.equal(await updateMessageReadState(store, pk, { c: 2 }), true);
    assert.equal((await getMessageReadState(store, pk))['c'], 2);
    assert.equal('messageReadStateByContact' in ((await store.get<object>(userMetadataKeys.record(pk))) ?? {}), false);
  });

  it(`the read state holds at most ${MAX_READ_STATE_CONTACTS} contacts: an update past that writes nothing`, async () => {
    const pk = newKey();
    const many = (from: number, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${from + i}`, 1]));
    assert.equal(await updateMessageReadState(store, pk, many(0, MAX_READ_STATE_CONTACTS - 1)), true);
    assert.equal(await updateMessageReadState(store, pk, many(MAX_READ_STATE_CONTACTS - 1, 2)), false);
    assert.equal(Object.keys(await getMessageReadState(store, pk)).length, MAX_READ_STATE_CONTACTS - 1);
    // Existing contacts can always be updated; one more new one fits exactly.
    assert.equal(await updateMessageReadState(store, pk, { c0: 7, [`c${MAX_READ_STATE_CONTACTS - 1}`]: 1 }), true);
    assert.equal(Object.keys(await getMessageReadState(store, pk)).length, MAX_READ_STATE_CONTACTS);
    assert.equal(mergeReadState({ a: 1 }, { ['x'.repeat(MAX_READ_STATE_KEY_CHARS)]: 1 }) !== null, true);
    assert.throws(() => mergeReadState({}, { ['x'.repeat(MAX_READ_STATE_KEY_CHARS + 1)]: 1 }));
  });

  const cases: Array<{ name: string; code: (real: string) => string; now: number; ok: boolean }> = [
    { name: 'the mailed code verifies the email', code: (c) => c, now: 1000, ok: true },
    { name: 'another code does not', code: (c) => `${c}x`, now: 1000, ok: false },
    { name: 'an expired code does not', code: (c) => c, now: 1000 + 25 * 3600 * 1000, ok: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const pk = newKey();
      const { code, entry } = newEmailVerification('a@example.com', 1000);
      await updateUserMetadata(store, pk, (m) => ({ ...m, email: 'a@example.com', emailVerification: entry }));
      assert.equal(await confirmEmailVerification(store, pk, c.code(code), c.now), c.ok);
      assert.equal((await getUserMetadata(store, pk)).emailVerified, c.ok);
      assert.ok(!JSON.stringify(await getUserMetadata(store, pk), (_k, x) => (typeof x === 'bigint' ? String(x) : x)).includes(code), 'the code itself is never stored');
    });
  }

  it('a refused verification (wrong code, or a resend without an address) writes nothing, not even an empty record', async () => {
    const fresh = new MemoryStore();
    const pk = newKey();
    assert.equal(await confirmEmailVerification(fresh, pk, 'not-a-code'), false);
    assert.deepEqual(await renewEmailVerification(fresh, pk), { ok: false, reason: 'noEmail' });
    assert.deepEqual(await fresh.keys(''), []);
  });

  it('the log mailer logs neither the code nor the full address', async () => {
    const lines: string[] = [];
    await logMailer({ info: (o, m) => lines.push(JSON.stringify(o) + m) }).sendVerificationEmail({ to: 'alice@example.com', publicKeyBase58Check: 'tBCx', code: 'SECRETCODE' });
    assert.equal(lines.length, 1, 'one log line');
    assert.ok(!lines[0]!.includes('SECRETCODE') && !lines[0]!.includes('alice@'), `no secrets in ${lines[0]}`);
    assert.equal(maskEmail('alice@example.com'), 'a***@example.com');
  });
});

describe('transactionSpendingLimitResponse', () => {
  it('names types and operations as core does, with null for empty maps', () => {
    const creatorKey = newKey();
    const l = emptySpendingLimit();
    l.globalDESOLimit = 5n;
    l.transactionCounts.set(TxnType.BASIC_TRANSFER, 3n);
    l.transactionCounts.set(TxnType.NEW_MESSAGE, 1n);
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creatorKey, operation: 1 }, 2n);
    setLimit(l.daoCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: new Uint8Array(33), operation: 3 }, 4n);
    setLimit(l.daoCoinLimitOrders, LIMIT_KEYS.limitOrder, { buyingCreatorPKID: creatorKey, sellingCreatorPKID: new Uint8Array(33) }, 6n);
    const r = transactionSpendingLimitResponse(l, 'testnet');
    const ck = encodePublicKey(creatorKey, 'testnet');
    assert.deepEqual(r['TransactionCountLimitMap'], { BASIC_TRANSFER: 3n, NEW_MESSAGE: 1n });
    assert.deepEqual(r['CreatorCoinOperationLimitMap'], { [ck]: { buy: 2n } });
    assert.deepEqual(r['DAOCoinOperationLimitMap'], { '': { disable_minting: 4n } });
    assert.deepEqual(r['DAOCoinLimitOrderLimitMap'], { [ck]: { DESO: 6n } });
    for (const f of ['NFTOperationLimitMap', 'AssociationLimitMap', 'AccessGroupLimitMap', 'AccessGroupMemberLimitMap', 'StakeLimitMap', 'UnstakeLimitMap', 'UnlockStakeLimitMap', 'LockupLimitMap']) assert.equal(r[f], null, f);
    assert.equal(r['GlobalDESOLimit'], 5n);
    assert.equal(r['IsUnlimited'], false);
    assert.equal(txnString(7), 'TXN_UNDEFINED');
  });

  it("spells NFT operations in core's numbering (2 accept_nft_bid, 3 nft_bid) and unknown values as core's fallbacks", () => {
    const l = emptySpendingLimit();
    const post = new Uint8Array(32).fill(9);
    setLimit(l.nftOperations, LIMIT_KEYS.nftOperation, { postHash: post, serialNumber: 1n, operation: 2 }, 1n);
    setLimit(l.nftOperations, LIMIT_KEYS.nftOperation, { postHash: post, serialNumber: 1n, operation: 3 }, 2n);
    setLimit(l.nftOperations, LIMIT_KEYS.nftOperation, { postHash: post, serialNumber: 1n, operation: 9 }, 3n);
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: new Uint8Array(33), operation: 7 }, 4n);
    setLimit(l.accessGroups, LIMIT_KEYS.accessGroup, { ownerPublicKey: newKey(), scopeType: 5, groupKeyName: new Uint8Array(32), operation: 1 }, 5n);
    const r = transactionSpendingLimitResponse(l, 'testnet');
    assert.deepEqual(r['NFTOperationLimitMap'], { [Buffer.from(post).toString('hex')]: { '1': { accept_nft_bid: 1n, nft_bid: 2n, undefined: 3n } } });
    assert.deepEqual(r['CreatorCoinOperationLimitMap'], { '': { undefined: 4n } });
    assert.equal((r['AccessGroupLimitMap'] as Array<Record<string, unknown>>)[0]!['ScopeType'], 'Unknown');
  });
});
