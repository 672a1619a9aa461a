/**
 * DAO_COIN and DAO_COIN_TRANSFER connected on a state view (core `_connectDAOCoin`,
 * `HelpConnectCoinTransfer`): only the profile owner mints, anyone holding burns, disabling
 * minting is one-way, the transfer restriction status and its rules, transfers bounded by the
 * balance, and the holder count and indexes kept in step.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { connectTransaction } from '../../server/chain/rules/connect.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { daoCoinHolders, daoCoinHoldings, getDAOCoinBalance, getDAOCoinEntry, MAX_UINT256, TransferRestrictionStatus } from '../../server/chain/state/daoCoins.js';
import { addProfile } from '../helpers/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { encodeTxn, txnHash, type TxnEnvelope, type TxnOutput } from '../../server/chain/txn/envelope.js';
import { DAOCoinOperation, encodeMetadata, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const FEE = 1_000n;
const COIN = 10n ** 18n;
const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);

let view: StateView;
let creator: Uint8Array;
let alice: Uint8Array;
let bob: Uint8Array;

/** Connects `meta` from `from`, paying FEE, as a block at height 10 would. */
async function submit(from: Uint8Array, meta: TxnMetadata, outputs: TxnOutput[] = []): Promise<void> {
  const fields = {
    inputs: [],
    outputs,
    txnType: TxnType[meta.type],
    metadata: encodeMetadata(meta),
    publicKey: from,
    extraData: [],
    signature: new Uint8Array(0),
    v1: { version: 1n, feeNanos: FEE, nonceExpirationBlockHeight: 100n, noncePartialId: BigInt(`0x${randomBytes(6).toString('hex')}`) },
  };
  const bytes = encodeTxn(fields);
  const txn: TxnEnvelope = { ...fields, signatureField: { start: 0, end: 0 } };
  await connectTransaction(view, txn, { hash: txnHash(bytes), size: bytes.length, signer: from }, {
    height: 10n,
    rules: { maxNonceExpirationBlockHeightOffset: 1000n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n },
    crypto: {} as CryptoService,
  });
}

const daoCoin = (from: Uint8Array, op: number, fields: { mint?: bigint; burn?: bigint; status?: number; profile?: Uint8Array } = {}): Promise<void> =>
  submit(from, {
    type: 'DAO_COIN',
    profilePublicKey: fields.profile ?? creator,
    operationType: op,
    coinsToMintNanos: fields.mint ?? 0n,
    coinsToBurnNanos: fields.burn ?? 0n,
    transferRestrictionStatus: fields.status ?? 0,
  });

const transfer = (from: Uint8Array, to: Uint8Array, amount: bigint, profile: Uint8Array = creator): Promise<void> =>
  submit(from, { type: 'DAO_COIN_TRANSFER', profilePublicKey: profile, daoCoinToTransferNanos: amount, receiverPublicKey: to });

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RuleError, `a RuleError, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

const balanceOf = (holder: Uint8Array): Promise<bigint> => getDAOCoinBalance(view, holder, creator);

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  creator = newKey();
  alice = newKey();
  bob = newKey();
  addProfile(view, creator, 'creator');
  for (const pk of [creator, alice, bob]) setBalance(view, pk, 1_000_000n);
});

describe('DAO_COIN mint', () => {
  it('the profile owner mints to itself: circulation, balance and holder count grow', async () => {
    await daoCoin(creator, DAOCoinOperation.MINT, { mint: 100n * COIN });
    await daoCoin(creator, DAOCoinOperation.MINT, { mint: 5n });
    const entry = await getDAOCoinEntry(view, creator);
    assert.equal(entry.coinsInCirculationNanos, 100n * COIN + 5n);
    assert.equal(entry.numberOfHolders, 1n);
    assert.equal(await balanceOf(creator), 100n * COIN + 5n);
    assert.equal(await getBalance(view, creator), 1_000_000n - 2n * FEE, 'the fee is paid in DESO');
  });

  it('only the profile owner may mint', async () => {
    await rejects(daoCoin(alice, DAOCoinOperation.MINT, { mint: 1n }), 'RuleErrorOnlyProfileOwnerCanMintDAOCoin');
  });

  it('a coin needs a profile', async () => {
    await rejects(daoCoin(alice, DAOCoinOperation.MINT, { mint: 1n, profile: alice }), 'RuleErrorDAOCoinOperationOnNonexistentProfile');
  });

  it('minting 0 is refused', async () => {
    await rejects(daoCoin(creator, DAOCoinOperation.MINT, { mint: 0n }), 'RuleErrorDAOCoinMustMintNonZeroDAOCoin');
  });

  it('coins in circulation may not overflow uint256', async () => {
    await daoCoin(creator, DAOCoinOperation.MINT, { mint: MAX_UINT256 });
    await rejects(daoCoin(creator, DAOCoinOperation.MINT, { mint: 1n }), 'RuleErrorOverflowWhileMintingDAOCoins');
    assert.equal((await getDAOCoinEntry(view, creator)).coinsInCirculationNanos, MAX_UINT256, 'the refused mint left nothing behind');
  });

  it('no minting once minting is disabled', async () => {
    await daoCoin(creator, DAOCoinOperation.DISABLE_MINTING);
    await rejects(daoCoin(creator, DAOCoinOperation.MINT, { mint: 1n }), 'RuleErrorDAOCoinCannotMintIfMintingIsDisabled');
  });
});

describe('DAO_COIN burn', () => {
  beforeEach(async () => {
    await daoCoin(creator, DAOCoinOperation.MINT, { mint: 10n * COIN });
    await transfer(creator, alice, 4n * COIN);
  });

  it('any holder burns: balance and circulation shrink', async () => {
    await daoCoin(alice, DAOCoinOperation.BURN, { burn: COIN });
    assert.equal(await balanceOf(alice), 3n * COIN);
    assert.equal((await getDAOCoinEntry(view, creator)).coinsInCirculationNanos, 9n * COIN);
  });

  it('burning everything drops the holder from the count and the indexes', async () => {
    await daoCoin(alice, DAOCoinOperation.BURN, { burn: 4n * COIN });
    assert.equal((await getDAOCoinEntry(view, creator)).numberOfHolders, 1n);
    assert.deepEqual((await daoCoinHolders(view, creator)).map((h) => Buffer.from(h.holder).toString('hex')), [Buffer.from(creator).toString('hex')]);
    assert.deepEqual(await daoCoinHoldings(view, alice), []);
  });

  it('no more than the balance', async () => {
    await rejects(daoCoin(alice, DAOCoinOperation.BURN, { burn: 4n * COIN + 1n }), 'RuleErrorDAOCoinBurnInsufficientCoins');
  });

  it('a key without coins cannot burn', async () => {
    await rejects(daoCoin(bob, DAOCoinOperation.BURN, { burn: 1n }), 'RuleErrorDAOCoinBurnerBalanceEntryDoesNotExist');
  });

  it('burning 0 is refused', async () => {
    await rejects(daoCoin(alice, DAOCoinOperation.BURN, { burn: 0n }), 'RuleErrorDAOCoinBurnMustBurnNonZeroDAOCoin');
  });
});

describe('DAO_COIN disable minting', () => {
  it('is for the profile owner only', async () => {
    await rejects(daoCoin(alice, DAOCoinOperation.DISABLE_MINTING), 'RuleErrorOnlyProfileOwnerCanDisableMintingDAOCoin');
  });

  it('is one-way', async () => {
    await daoCoin(creator, DAOCoinOperation.DISABLE_MINTING);
    assert.equal((await getDAOCoinEntry(view, creator)).mintingDisabled, true);
    await rejects(daoCoin(creator, DAOCoinOperation.DISABLE_MINTING), 'RuleErrorDAOCoinCannotDisableMintingIfAlreadyDisabled');
  });
});

describe('DAO_COIN update transfer restriction status', () => {
  const update = (from: Uint8Array, status: number): Promise<void> => daoCoin(from, DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS, { status });

  it('the profile owner changes the status', async () => {
    await update(creator, TransferRestrictionStatus.PROFILE_OWNER_ONLY);
    assert.equal((await getDAOCoinEntry(view, creator)).transferRestrictionStatus, TransferRestrictionStatus.PROFILE_OWNER_ONLY);
  });

  it('is for the profile owner only', async () => {
    await rejects(update(alice, TransferRestrictionStatus.DAO_MEMBERS_ONLY), 'RuleErrorOnlyProfileOwnerCanUpdateTransferRestrictionStatus');
  });

  it('cannot set the current status again', async () => {
    await rejects(update(creator, TransferRestrictionStatus.UNRESTRICTED), 'RuleErrorDAOCoinCannotUpdateTransferRestrictionStatusToCurrentStatus');
  });

  it('permanently unrestricted is final', async () => {
    await update(creator, TransferRestrictionStatus.PERMANENTLY_UNRESTRICTED);
    await rejects(update(creator, TransferRestrictionStatus.UNRESTRICTED), 'RuleErrorDAOCoinCannotUpdateRestrictionStatusIfStatusIsPermanentlyUnrestricted');
  });
});

describe('DAO_COIN_TRANSFER', () => {
  beforeEach(async () => {
    await daoCoin(creator, DAOCoinOperation.MINT, { mint: 10n * COIN });
  });

  it('moves coins and counts the new holder', async () => {
    await transfer(creator, alice, 3n * COIN);
    assert.equal(await balanceOf(creator), 7n * COIN);
    assert.equal(await balanceOf(alice), 3n * COIN);
    assert.equal((await getDAOCoinEntry(view, creator)).numberOfHolders, 2n);
    assert.deepEqual((await daoCoinHoldings(view, alice)).map((h) => h.balanceNanos), [3n * COIN]);
  });

  it('sending everything away leaves the sender out of the count', async () => {
    await transfer(creator, alice, 10n * COIN);
    assert.equal((await getDAOCoinEntry(view, creator)).numberOfHolders, 1n);
    assert.equal(await balanceOf(creator), 0n);
  });

  it('no more than the balance', async () => {
    await rejects(transfer(creator, alice, 10n * COIN + 1n), 'RuleErrorCoinTransferInsufficientCoins');
  });

  it('a key without coins cannot send', async () => {
    await rejects(transfer(alice, bob, 1n), 'RuleErrorCoinTransferBalanceEntryDoesNotExist');
  });

  it('not to oneself', async () => {
    await rejects(transfer(creator, creator, 1n), 'RuleErrorCoinTransferCannotTransferToSelf');
  });

  it('only coins of a profile', async () => {
    await rejects(transfer(creator, alice, 1n, bob), 'RuleErrorCoinTransferOnNonexistentProfile');
  });

  it('profile-owner-only: holders may only send to or receive from the owner', async () => {
    await transfer(creator, alice, 3n * COIN);
    await daoCoin(creator, DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS, { status: TransferRestrictionStatus.PROFILE_OWNER_ONLY });
    await rejects(transfer(alice, bob, COIN), 'RuleErrorDAOCoinTransferProfileOwnerOnlyViolation');
    await transfer(alice, creator, COIN);
    await transfer(creator, bob, COIN);
    assert.equal(await balanceOf(bob), COIN);
  });

  it('DAO-members-only: only to keys that already hold the coin', async () => {
    await transfer(creator, alice, 3n * COIN);
    await daoCoin(creator, DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS, { status: TransferRestrictionStatus.DAO_MEMBERS_ONLY });
    await rejects(transfer(alice, bob, COIN), 'RuleErrorDAOCoinTransferDAOMemberOnlyViolation');
    await transfer(creator, bob, COIN);
    await transfer(alice, bob, COIN);
    assert.equal(await balanceOf(bob), 2n * COIN);
  });
});
