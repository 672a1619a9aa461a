/**
 * The notification index (chain/state/notifications.ts, rules/notifications.ts; reference
 * social-graph.md §6.1–6.2): which keys each transaction type notifies, in which category, at
 * which place; what never notifies (the transactor, unfollows, unlikes, sells, messages, a
 * simulation); the members' order; and, on a whole Chain, a mempool transaction's notification
 * in the pending view, the block that mines it keeping it at the same place, and the
 * notification service reading both.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { addPost as addPostTo } from '../helpers/posts.js';
import { after, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { priceToScaledExchangeRate } from '../../server/chain/daoCoinPrices.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { encodeDiamondLevel } from '../../server/chain/rules/diamonds.js';
import { mentionedUsernames, mentionTags } from '../../server/chain/rules/notifications.js';
import { setBalance } from '../../server/chain/state/balances.js';
import { DESO_COIN } from '../../server/chain/state/daoCoinLimitOrders.js';
import {
  indexPosition,
  memberPosition,
  NOTIFICATION_CATEGORIES,
  notificationIndex,
  notificationKeys,
  notificationMembers,
  positionMember,
  POSITIONS_PER_HEIGHT,
  type NotificationCategory,
} from '../../server/chain/state/notifications.js';
import type { PostRecord } from '../../server/chain/state/posts.js';
import type { TxnLocation } from '../../server/chain/state/keys.js';
import { StateView } from '../../server/chain/state/view.js';
import { encodeTxn, txnHash, type TxnEnvelope, type TxnOutput } from '../../server/chain/txn/envelope.js';
import { CreatorCoinOperation, DAOCoinLimitOrderFill, DAOCoinLimitOrderOperation, DAOCoinOperation, encodeMetadata, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import type { Config } from '../../server/config.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { notificationReadState, notifications, setNotificationReadState, unreadNotificationsCount } from '../../server/social/notifications.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { solvedBlock } from '../helpers/mining.js';
import { addProfile } from '../helpers/profiles.js';
import { newKey as newTestKey, signedTransfer, type TestKey } from '../helpers/transfers.js';

const HEIGHT = 10n;
const ctx: ConnectContext = { height: HEIGHT, rules: { maxNonceExpirationBlockHeightOffset: 1000n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n }, crypto: {} as CryptoService };
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

let view: StateView;
/** The place the next connected transaction takes in the block at HEIGHT. */
let nextIndex: number;
let alice: Uint8Array;
let bob: Uint8Array;
let carol: Uint8Array;

interface SendOptions {
  outputs?: TxnOutput[];
  extraData?: Array<[Uint8Array, Uint8Array]>;
  /** false: connect as a simulation does (no place). */
  placed?: boolean;
}

/** Connects a transaction of `from` at the next place; answers its hash and place. */
async function send(from: Uint8Array, meta: TxnMetadata, opts: SendOptions = {}): Promise<{ hash: Uint8Array; place: TxnLocation }> {
  const fields = {
    inputs: [],
    outputs: opts.outputs ?? [],
    txnType: TxnType[meta.type],
    metadata: encodeMetadata(meta),
    publicKey: from,
    extraData: opts.extraData ?? [],
    signature: new Uint8Array(0),
    v1: { version: 1n, feeNanos: 1000n, nonceExpirationBlockHeight: 100n, noncePartialId: BigInt(`0x${randomBytes(6).toString('hex')}`) },
  };
  const bytes = encodeTxn(fields);
  const txn: TxnEnvelope = { ...fields, signatureField: { start: 0, end: 0 } };
  const hash = txnHash(bytes);
  const placed = opts.placed !== false;
  const index = placed ? nextIndex++ : 0;
  await connectTransaction(view, txn, { hash, size: bytes.length, signer: from, ...(placed ? { indexInBlock: index } : {}) }, ctx);
  return { hash, place: [Number(HEIGHT), index] };
}

/** Places notifying `pk`, newest first, in these categories (default: all). */
async function notified(pk: Uint8Array, categories: readonly NotificationCategory[] = NOTIFICATION_CATEGORIES): Promise<TxnLocation[]> {
  return (await notificationMembers(view, pk, categories, { newestFirst: true, limit: 100 })).map(memberPosition);
}

const addPost = (poster: Uint8Array, fields: Partial<PostRecord> = {}): Uint8Array => addPostTo(view, poster, fields);

const post = (from: Uint8Array, body: string, fields: Partial<Extract<TxnMetadata, { type: 'SUBMIT_POST' }>> = {}, extraData: Array<[Uint8Array, Uint8Array]> = []) =>
  send(
    from,
    {
      type: 'SUBMIT_POST',
      postHashToModify: new Uint8Array(0),
      parentStakeId: new Uint8Array(0),
      body: utf8(JSON.stringify({ Body: body })),
      creatorBasisPoints: 1000n,
      stakeMultipleBasisPoints: 12_500n,
      timestampNanos: BigInt(Date.now()) * 1_000_000n,
      isHidden: false,
      ...fields,
    },
    { extraData },
  );

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  nextIndex = 1;
  [alice, bob, carol] = [newKey(), newKey(), newKey()];
  for (const pk of [alice, bob, carol]) setBalance(view, pk, 1_000_000_000_000n);
  addProfile(view, alice, 'alice');
  addProfile(view, bob, 'Bob');
  addProfile(view, carol, 'carol');
});

describe('index members and Index numbers', () => {
  it('members sort as (height, index in block) and give their place back', () => {
    const places: TxnLocation[] = [[0, 0], [1, 1], [1, 2], [1, 255], [1, 256], [2, 0], [255, 7], [256, 1], [70_000, 65_536], [2 ** 28, POSITIONS_PER_HEIGHT - 1]];
    const members = places.map(([h, i]) => positionMember(h, i));
    assert.deepEqual([...members].sort(), members, 'text order is chain order');
    for (const [k, m] of members.entries()) assert.deepEqual(memberPosition(m), places[k]);
    assert.ok(members.every((m) => m.length <= 12), 'a member is a few characters, not a hash');
  });

  it('an Index is height × 2^24 + index, and back', () => {
    assert.equal(notificationIndex([3, 5]), 3 * 2 ** 24 + 5);
    assert.deepEqual(indexPosition(3 * 2 ** 24 + 5), [3, 5]);
    assert.deepEqual(indexPosition(0), [0, 0]);
    assert.ok(notificationIndex([2 ** 29 - 1, POSITIONS_PER_HEIGHT - 1]) <= Number.MAX_SAFE_INTEGER);
  });

  it('index keys start with N, one family per category', () => {
    const keys = NOTIFICATION_CATEGORIES.map((c) => notificationKeys.index(c, alice));
    assert.ok(keys.every((k) => k.startsWith('N')));
    assert.equal(new Set(keys).size, NOTIFICATION_CATEGORIES.length);
  });
});

describe('mention tags (core: after a terminator or at the start, up to the next terminator)', () => {
  it('finds @ and $ tags once each, first seen first', () => {
    assert.deepEqual(mentionTags('@', '@bob hi @carol, and @bob again (@dave) x@eve @@frank @'), ['bob', 'carol', 'dave', 'frank']);
    assert.deepEqual(mentionTags('$', 'buy $ALICE and $123 or $a1'), ['ALICE', '123', 'a1']);
  });

  it('cashtags need a letter or underscore; @ tags do not', () => {
    assert.deepEqual(mentionedUsernames('@123 $123 $_x $abc'), ['123', '_x', 'abc']);
  });
});

describe('what each transaction type notifies', () => {
  it('FOLLOW notifies the followed key (follow), not on unfollow, never the follower itself', async () => {
    const f = await send(alice, { type: 'FOLLOW', followedPublicKey: bob, isUnfollow: false });
    assert.deepEqual(await notified(bob), [f.place]);
    assert.deepEqual(await notified(bob, ['follow']), [f.place]);
    assert.deepEqual(await notified(bob, ['like', 'post', 'diamond', 'transfer', 'dao coin']), [], 'only under follow');
    assert.deepEqual(await notified(alice), []);
    await send(alice, { type: 'FOLLOW', followedPublicKey: bob, isUnfollow: true });
    await send(carol, { type: 'FOLLOW', followedPublicKey: carol, isUnfollow: false });
    assert.deepEqual(await notified(bob), [f.place], 'the unfollow is not a notification');
    assert.deepEqual(await notified(carol), [], 'a self-follow is not one');
  });

  it('LIKE notifies the post author (like), not on unlike, not a self-like', async () => {
    const p = addPost(bob);
    const l = await send(alice, { type: 'LIKE', likedPostHash: p, isUnlike: false });
    await send(bob, { type: 'LIKE', likedPostHash: p, isUnlike: false });
    await send(alice, { type: 'LIKE', likedPostHash: p, isUnlike: true });
    assert.deepEqual(await notified(bob, ['like']), [l.place]);
    assert.deepEqual(await notified(alice), []);
  });

  it('SUBMIT_POST notifies the parent author of a new comment, mentioned profiles and the reposted author (post)', async () => {
    const parent = addPost(bob);
    const comment = await post(alice, 'nice', { parentStakeId: parent });
    assert.deepEqual(await notified(bob, ['post']), [comment.place]);
    // Mentions by @ and $ (any case), of existing profiles only, and not the poster itself.
    const mention = await post(alice, 'hey @bob and $CAROL, @alice and @nobody');
    assert.deepEqual(await notified(bob, ['post']), [mention.place, comment.place]);
    assert.deepEqual(await notified(carol, ['post']), [mention.place]);
    assert.deepEqual(await notified(alice), []);
    // An edit mentions too; an edit of a comment does not notify the parent author again.
    const edit = await post(alice, 'edited, @carol', { postHashToModify: comment.hash, parentStakeId: parent });
    assert.deepEqual(await notified(carol, ['post']), [edit.place, mention.place]);
    assert.deepEqual((await notified(bob, ['post'])).length, 2);
    // A repost notifies the author of the reposted post.
    const original = addPost(carol);
    const repost = await post(bob, '', {}, [[utf8('RecloutedPostHash'), original]]);
    assert.deepEqual((await notified(carol, ['post']))[0], repost.place);
  });

  it('BASIC_TRANSFER notifies its outputs (transfer), a diamond under diamond, never the change output to the sender', async () => {
    const t = await send(alice, { type: 'BASIC_TRANSFER' }, { outputs: [{ publicKey: bob, amountNanos: 10n }, { publicKey: carol, amountNanos: 5n }, { publicKey: alice, amountNanos: 1n }] });
    assert.deepEqual(await notified(bob, ['transfer']), [t.place]);
    assert.deepEqual(await notified(carol, ['transfer']), [t.place]);
    assert.deepEqual(await notified(alice), []);
    const p = addPost(bob);
    const d = await send(alice, { type: 'BASIC_TRANSFER' }, {
      outputs: [{ publicKey: bob, amountNanos: 50_000n }],
      extraData: [
        [utf8('DiamondLevel'), encodeDiamondLevel(1n)],
        [utf8('DiamondPostHash'), p],
      ],
    });
    assert.deepEqual(await notified(bob, ['diamond']), [d.place]);
    assert.deepEqual(await notified(bob, ['transfer']), [t.place], 'a diamond is not also a transfer');
  });

  it('CREATOR_COIN notifies the creator of a buy (transfer), not of a sell', async () => {
    const buy = await send(alice, { type: 'CREATOR_COIN', profilePublicKey: bob, operationType: CreatorCoinOperation.BUY, desoToSellNanos: 1_000_000_000n, creatorCoinToSellNanos: 0n, desoToAddNanos: 0n, minDesoExpectedNanos: 0n, minCreatorCoinExpectedNanos: 0n });
    await send(alice, { type: 'CREATOR_COIN', profilePublicKey: bob, operationType: CreatorCoinOperation.SELL, desoToSellNanos: 0n, creatorCoinToSellNanos: 1000n, desoToAddNanos: 0n, minDesoExpectedNanos: 0n, minCreatorCoinExpectedNanos: 0n });
    assert.deepEqual(await notified(bob), [buy.place]);
    assert.deepEqual(await notified(bob, ['transfer']), [buy.place]);
  });

  it('CREATOR_COIN_TRANSFER notifies the receiver (transfer), not the creator', async () => {
    // Alice buys bob's coin, then gives some to carol.
    await send(alice, { type: 'CREATOR_COIN', profilePublicKey: bob, operationType: CreatorCoinOperation.BUY, desoToSellNanos: 1_000_000_000n, creatorCoinToSellNanos: 0n, desoToAddNanos: 0n, minDesoExpectedNanos: 0n, minCreatorCoinExpectedNanos: 0n });
    const before = await notified(bob);
    const transfer = await send(alice, { type: 'CREATOR_COIN_TRANSFER', profilePublicKey: bob, creatorCoinToTransferNanos: 1000n, receiverPublicKey: carol });
    assert.deepEqual(await notified(carol), [transfer.place]);
    assert.deepEqual(await notified(carol, ['transfer']), [transfer.place]);
    assert.deepEqual(await notified(bob), before, 'the creator is not notified of a transfer of its coin');
  });

  it('DAO coins: a transfer notifies the receiver, a burn the creator, a fill the resting order\'s owner (dao coin)', async () => {
    const COIN = 10n ** 18n;
    await send(bob, { type: 'DAO_COIN', profilePublicKey: bob, operationType: DAOCoinOperation.MINT, coinsToMintNanos: 100n * COIN, coinsToBurnNanos: 0n, transferRestrictionStatus: 0 });
    assert.deepEqual(await notified(bob), [], 'the creator minting notifies nobody');
    const transfer = await send(bob, { type: 'DAO_COIN_TRANSFER', profilePublicKey: bob, daoCoinToTransferNanos: 20n * COIN, receiverPublicKey: alice });
    assert.deepEqual(await notified(alice, ['dao coin']), [transfer.place]);
    const burn = await send(alice, { type: 'DAO_COIN', profilePublicKey: bob, operationType: DAOCoinOperation.BURN, coinsToMintNanos: 0n, coinsToBurnNanos: COIN, transferRestrictionStatus: 0 });
    assert.deepEqual(await notified(bob, ['dao coin']), [burn.place]);

    const order = (from: Uint8Array, side: number, rate: bigint, qty: bigint) =>
      send(from, {
        type: 'DAO_COIN_LIMIT_ORDER',
        buyingDAOCoinCreatorPublicKey: side === DAOCoinLimitOrderOperation.BID ? bob : DESO_COIN,
        sellingDAOCoinCreatorPublicKey: side === DAOCoinLimitOrderOperation.BID ? DESO_COIN : bob,
        scaledExchangeRateCoinsToSellPerCoinToBuy: rate,
        quantityToFillInBaseUnits: qty,
        operationType: side,
        fillType: DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED,
        cancelOrderId: null,
        bidderInputs: [],
        feeNanos: 1000n,
      });
    const askRate = priceToScaledExchangeRate({ buyingIsDeso: true, sellingIsDeso: false }, '2', 'ASK');
    const bidRate = priceToScaledExchangeRate({ buyingIsDeso: false, sellingIsDeso: true }, '3', 'BID');
    await order(alice, DAOCoinLimitOrderOperation.ASK, askRate, 10n * COIN);
    assert.deepEqual(await notified(alice, ['dao coin']), [transfer.place], 'an order resting on the book notifies nobody');
    const fill = await order(carol, DAOCoinLimitOrderOperation.BID, bidRate, 4n * COIN);
    assert.deepEqual(await notified(alice, ['dao coin']), [fill.place, transfer.place], 'the ask\'s owner learns of the fill');
    assert.deepEqual(await notified(carol), [], 'the taker is not notified of its own order');
    assert.deepEqual(await notified(bob, ['dao coin']), [burn.place], 'the coin\'s creator is not notified of trades in it');
  });

  it('messages, profile updates and simulations notify nobody', async () => {
    await send(alice, {
      type: 'NEW_MESSAGE',
      senderAccessGroupOwnerPublicKey: alice,
      senderAccessGroupKeyName: new Uint8Array(0),
      senderAccessGroupPublicKey: alice,
      recipientAccessGroupOwnerPublicKey: bob,
      recipientAccessGroupKeyName: new Uint8Array(0),
      recipientAccessGroupPublicKey: bob,
      encryptedText: utf8('a DM'),
      timestampNanos: 1n,
      newMessageType: 0,
      newMessageOperation: 0,
    });
    await send(alice, { type: 'UPDATE_PROFILE', profilePublicKey: new Uint8Array(0), newUsername: utf8('alice2'), newDescription: utf8('hi @Bob'), newProfilePic: new Uint8Array(0), newCreatorBasisPoints: 1000n, newStakeMultipleBasisPoints: 12_500n, isHidden: false });
    await send(alice, { type: 'FOLLOW', followedPublicKey: carol, isUnfollow: false }, { placed: false });
    assert.deepEqual(await notified(bob), []);
    assert.deepEqual(await notified(carol), [], 'a connect without a place (a simulation) writes no notification');
  });

  it('a page reads newest first from an Index (inclusive), or oldest first from it', async () => {
    const places: TxnLocation[] = [];
    for (let i = 0; i < 5; i++) {
      const fan = newKey();
      setBalance(view, fan, 1_000_000n);
      places.push((await send(fan, { type: 'FOLLOW', followedPublicKey: bob, isUnfollow: false })).place);
    }
    const read = async (range: Parameters<typeof notificationMembers>[3]) => (await notificationMembers(view, bob, NOTIFICATION_CATEGORIES, range)).map(memberPosition);
    assert.deepEqual(await read({ newestFirst: true, limit: 2 }), [places[4], places[3]]);
    assert.deepEqual(await read({ newestFirst: true, from: notificationIndex(places[2]!), limit: 2 }), [places[2], places[1]]);
    assert.deepEqual(await read({ newestFirst: true, after: positionMember(...places[1]!), limit: 5 }), [places[0]]);
    assert.deepEqual(await read({ newestFirst: false, from: notificationIndex(places[3]!), limit: 5 }), [places[3], places[4]]);
  });
});

// --- a whole chain: mempool, then a block --------------------------------------------------------

describe('notifications of a chain, mempool then block', () => {
  const log = pino({ level: 'silent' });
  const crypto = new InlineCrypto();
  let clockMs = Number(DEV_CHAIN_PARAMS.genesisTstampSecs) * 1000 + 60_000;
  const store = new MemoryStore();
  const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log, now: () => clockMs });
  const deps = { store, config: { network: 'testnet' } as Config };
  /** The chain as get-notifications reads it, nothing recorded. */
  const reads = { pendingPlaces: () => chain.pendingPlaces(), mined: () => store };
  after(async () => {
    await store.close();
    await crypto.close();
  });

  /** A solved block on the tip paying `reward`, holding `txns`, connected. */
  async function mine(reward: TestKey, txns: readonly Uint8Array[]): Promise<void> {
    const block = await solvedBlock(chain, crypto, reward.pk, txns);
    assert.ok((await chain.processBlock(block.header, block.txns)).isMainChain);
    clockMs += 10_000;
  }

  it('a mempool transfer notifies at (next height, 1); the block mining it keeps that place and names its block', async () => {
    const [miner, receiver] = [newTestKey(), newTestKey()];
    await chain.init();
    await mine(miner, []);
    const height = Number((await chain.tip()).height) + 1;
    const signed = await signedTransfer(chain, crypto, miner, receiver.pk, 70_000n);
    await chain.submitTransaction(signed);

    const pending = await notifications(deps, reads, { publicKey: receiver.pk, fetchStartIndex: -1, numToFetch: 10, filteredOut: {} });
    const items = pending['Notifications'] as Array<Record<string, any>>;
    assert.equal(items.length, 1);
    assert.equal(items[0]!['Index'], notificationIndex([height, 1]));
    assert.equal(items[0]!['Metadata']['BlockHashHex'], '', 'unmined');
    assert.equal(items[0]!['Metadata']['TxnType'], 'BASIC_TRANSFER');
    assert.equal(items[0]!['Metadata']['TransactorPublicKeyBase58Check'], encodePublicKey(miner.pk, 'testnet'));
    assert.deepEqual(items[0]!['TxnOutputResponses'][0], { PublicKeyBase58Check: encodePublicKey(receiver.pk, 'testnet'), AmountNanos: 70_000n });
    assert.equal(pending['LastSeenIndex'], notificationIndex([height, 1]));
    assert.deepEqual(await store.indexRange(notificationKeys.index('transfer', receiver.pk)), [], 'the store holds no unmined notification');

    await mine(miner, (await chain.mempool()).map((m) => m.bytes));
    assert.deepEqual(await store.indexRange(notificationKeys.index('transfer', receiver.pk)), [positionMember(height, 1)], 'the block wrote it at the same place');
    const mined = (await notifications(deps, reads, { publicKey: receiver.pk, fetchStartIndex: -1, numToFetch: 10, filteredOut: {} }))['Notifications'] as Array<Record<string, any>>;
    assert.equal(mined.length, 1);
    assert.equal(mined[0]!['Index'], notificationIndex([height, 1]));
    assert.equal(mined[0]!['Metadata']['BlockHashHex'], (await chain.tip()).hashHex);
    assert.equal(mined[0]!['Metadata']['TxnIndexInBlock'], 1);

    // Filtered out: transfers are gone from the page.
    const filtered = await notifications(deps, reads, { publicKey: receiver.pk, fetchStartIndex: -1, numToFetch: 10, filteredOut: { transfer: true } });
    assert.deepEqual(filtered['Notifications'], []);
    assert.equal(filtered['LastSeenIndex'], -1);

    // Unread: one, then none once the count is written back.
    const unread = await unreadNotificationsCount(deps, reads, receiver.pk);
    assert.deepEqual(unread, { NotificationsCount: 1, LastUnreadNotificationIndex: notificationIndex([height, 1]), UpdateMetadata: true });
    await setNotificationReadState(store, receiver.pk, { lastSeenIndex: 0, latestUnreadIndex: notificationIndex([height, 1]), unread: 1 });
    assert.deepEqual(await unreadNotificationsCount(deps, reads, receiver.pk), { NotificationsCount: 1, LastUnreadNotificationIndex: notificationIndex([height, 1]), UpdateMetadata: false });
    await setNotificationReadState(store, receiver.pk, { lastSeenIndex: notificationIndex([height, 1]), latestUnreadIndex: notificationIndex([height, 1]), unread: 0 });
    assert.deepEqual(await unreadNotificationsCount(deps, reads, receiver.pk), { NotificationsCount: 0, LastUnreadNotificationIndex: notificationIndex([height, 1]), UpdateMetadata: false });
    // The last seen Index is only raised.
    await setNotificationReadState(store, receiver.pk, { lastSeenIndex: 5, latestUnreadIndex: 0, unread: 0 });
    assert.equal((await notificationReadState(store, receiver.pk)).lastSeenIndex, notificationIndex([height, 1]));
  });

  it('mempool transactions take places 1, 2, … in arrival order; a block connected afresh writes the same places', async () => {
    const [miner, a, b] = [newTestKey(), newTestKey(), newTestKey()];
    await mine(miner, []);
    const height = Number((await chain.tip()).height) + 1;
    const first = await signedTransfer(chain, crypto, miner, a.pk, 60_000n);
    const second = await signedTransfer(chain, crypto, miner, b.pk, 61_000n);
    await chain.submitTransaction(first);
    await chain.submitTransaction(second);
    const indexOf = async (k: TestKey): Promise<number[]> =>
      ((await notifications(deps, reads, { publicKey: k.pk, fetchStartIndex: -1, numToFetch: 10, filteredOut: {} }))['Notifications'] as Array<Record<string, any>>).map((x) => x['Index'] as number);
    assert.deepEqual(await indexOf(a), [notificationIndex([height, 1])]);
    assert.deepEqual(await indexOf(b), [notificationIndex([height, 2])]);
    // Another process (no pending state of its own) connects the same block transaction by transaction.
    const fresh = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log, now: () => clockMs });
    const block = await solvedBlock(chain, crypto, miner.pk, [first, second], 2);
    assert.ok((await fresh.processBlock(block.header, block.txns)).isMainChain);
    assert.deepEqual(await store.indexRange(notificationKeys.index('transfer', a.pk)), [positionMember(height, 1)]);
    assert.deepEqual(await store.indexRange(notificationKeys.index('transfer', b.pk)), [positionMember(height, 2)]);
    assert.deepEqual(await indexOf(b), [notificationIndex([height, 2])], 'the first chain reads the block the other process connected');
  });
});
