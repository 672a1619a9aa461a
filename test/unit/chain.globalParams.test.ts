/**
 * UPDATE_GLOBAL_PARAMS and SWAP_IDENTITY over a state view (core's _connectUpdateGlobalParams
 * and _connectSwapIdentity): who may send them, how ExtraData values decode and are bounded,
 * what later connects see (profile fee, fee floor, nonce window), and which state a swap moves.
 * Also their metadata codecs, checked against the deso-protocol SDK's transcoders.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { TransactionMetadataSwapIdentity } from 'deso-protocol';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext, type ConnectRules } from '../../server/chain/rules/connect.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { encodeGlobalParamValue, GLOBAL_PARAM_SPECS, goUvarint, goVarint } from '../../server/chain/rules/globalParams.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { creatorCoinBalance, creatorCoinKeys, putHolding } from '../../server/chain/state/creatorCoins.js';
import { daoCoinKeys, getDAOCoinBalance, getDAOCoinEntry, setDAOCoinBalance, setDAOCoinEntry } from '../../server/chain/state/daoCoins.js';
import { CORE_GLOBAL_PARAM_DEFAULTS, getGlobalParams, globalParamsDefaults, globalParamsKeys } from '../../server/chain/state/globalParams.js';
import { getProfile, getProfileByUsername, pkOfLockedMember, profileKeys, putProfile } from '../../server/chain/state/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { decodeMetadata, encodeMetadata, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { toHex } from '../../server/hex.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { addProfile } from '../helpers/profiles.js';

const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const START = 10_000_000_000n;
const NODE_DEFAULTS = { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 7n };

let view: StateView;
let updater: Uint8Array;
let alice: Uint8Array;
let bob: Uint8Array;
let carol: Uint8Array;
let rules: ConnectRules;

const ctx = (): ConnectContext => ({ height: 10n, rules, crypto: {} as CryptoService });

interface Send {
  extraData?: Array<[Uint8Array, Uint8Array]>;
  feeRate?: bigint;
  nonceOffset?: bigint;
}

/** Connects a transaction of `pk` (signed by `pk`); answers its fee. */
async function send(pk: Uint8Array, metadata: TxnMetadata, s: Send = {}): Promise<bigint> {
  const c = constructTxn({
    publicKey: pk,
    metadata,
    extraData: s.extraData ?? [],
    minFeeRateNanosPerKB: s.feeRate ?? 1000n,
    networkMinFeeRateNanosPerKB: 0n,
    tipHeight: 9n,
    maxNonceExpirationBlockHeightOffset: s.nonceOffset ?? 86_400n,
  });
  await connectTransaction(view, decodeTxn(c.bytes), { hash: sha256d(c.bytes), size: c.bytes.length, signer: pk }, ctx());
  return c.feeNanos;
}

const params = (entries: Record<string, Uint8Array>): Array<[Uint8Array, Uint8Array]> => Object.entries(entries).map(([k, v]) => [utf8(k), v]);
const setParams = (entries: Record<string, Uint8Array>, from = updater): Promise<bigint> => send(from, { type: 'UPDATE_GLOBAL_PARAMS' }, { extraData: params(entries) });
const u = (n: bigint | number): Uint8Array => encodeUvarint(n);
const swap = (fromPublicKey: Uint8Array, toPublicKey: Uint8Array, from = updater, s: Send = {}): Promise<bigint> => send(from, { type: 'SWAP_IDENTITY', fromPublicKey, toPublicKey }, s);
const effective = () => getGlobalParams(view, globalParamsDefaults(rules));

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RuleError && e.code === code, `expected ${code}`);
}

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  [updater, alice, bob, carol] = [newKey(), newKey(), newKey(), newKey()];
  rules = { ...NODE_DEFAULTS, paramUpdaterPublicKeys: new Set([toHex(updater)]) };
  for (const pk of [updater, alice, bob, carol]) setBalance(view, pk, START);
});

describe('UPDATE_GLOBAL_PARAMS', () => {
  it('before any update, the params are the node defaults and core\'s', async () => {
    const gp = await effective();
    assert.equal(gp.createProfileFeeNanos, 7n, 'the node\'s --create-profile-fee-nanos');
    assert.equal(gp.minimumNetworkFeeNanosPerKB, 0n);
    assert.equal(gp.maxNonceExpirationBlockHeightOffset, 86_400n);
    assert.equal(gp.stakeLockupEpochDuration, 3n, 'core DefaultStakeLockupEpochDuration');
    assert.equal(gp.epochDurationNumBlocks, 144n);
  });

  it('sets the params its ExtraData carries and leaves the others at their defaults', async () => {
    await setParams({ CreateProfileFeeNanos: u(1234), USDCentsPerBitcoin: u(3_000_000), MaxCopiesPerNFT: u(50), StakeLockupEpochDuration: u(9) });
    const gp = await effective();
    assert.equal(gp.createProfileFeeNanos, 1234n);
    assert.equal(gp.usdCentsPerBitcoin, 3_000_000n);
    assert.equal(gp.maxCopiesPerNFT, 50n);
    assert.equal(gp.stakeLockupEpochDuration, 9n);
    assert.equal(gp.minimumNetworkFeeNanosPerKB, 0n, 'a field not sent keeps its default');
    assert.deepEqual(await view.get(globalParamsKeys.params), { createProfileFeeNanos: 1234n, usdCentsPerBitcoin: 3_000_000n, maxCopiesPerNFT: 50n, stakeLockupEpochDuration: 9n }, 'only set fields are stored');
    await setParams({ MaxCopiesPerNFT: u(60) });
    assert.equal((await effective()).createProfileFeeNanos, 1234n, 'a later update keeps earlier values');
    assert.equal((await effective()).maxCopiesPerNFT, 60n);
  });

  it('is refused from a key that is not a param updater, and when no updater is configured', async () => {
    await rejects(setParams({ CreateProfileFeeNanos: u(1) }, alice), 'RuleErrorUserNotAuthorizedToUpdateGlobalParams');
    rules = { ...NODE_DEFAULTS };
    await rejects(setParams({ CreateProfileFeeNanos: u(1) }), 'RuleErrorUserNotAuthorizedToUpdateGlobalParams');
    assert.equal((await effective()).createProfileFeeNanos, 7n, 'nothing changed');
    assert.equal(await getBalance(view, alice), START, 'a refused transaction costs nothing');
  });

  it('checks each value against core\'s bounds', async () => {
    const cases: Array<[string, bigint, string]> = [
      ['USDCentsPerBitcoin', 9_999n, 'RuleErrorExchangeRateTooLow'],
      ['USDCentsPerBitcoin', 100_000_001n, 'RuleErrorExchangeRateTooHigh'],
      ['MinNetworkFeeNanosPerKB', 100_000_000_001n, 'RuleErrorMinNetworkFeeTooHigh'],
      ['CreateProfileFeeNanos', 100_000_000_001n, 'RuleErrorCreateProfileTooHigh'],
      ['CreateNFTFeeNanos', 100_000_000_001n, 'RuleErrorCreateNFTFeeTooHigh'],
      ['MaxCopiesPerNFT', 0n, 'RuleErrorMaxCopiesPerNFTTooLow'],
      ['MaxCopiesPerNFT', 10_001n, 'RuleErrorMaxCopiesPerNFTTooHigh'],
      ['MaxBlockSizeBytesPoS', 999n, 'RuleErrorMaxBlockSizeBytesTooLow'],
      ['BlockProductionIntervalPoS', 10_001n, 'RuleErrorBlockProductionIntervalPoSTooHigh'],
      ['TimeoutIntervalPoS', 999n, 'RuleErrorTimeoutIntervalPoSTooLow'],
    ];
    for (const [key, value, code] of cases) await rejects(setParams({ [key]: u(value) }), code);
    await setParams({ USDCentsPerBitcoin: u(10_000n), CreateProfileFeeNanos: u(100_000_000_000n), MaxCopiesPerNFT: u(10_000n) });
    const gp = await effective();
    assert.deepEqual([gp.usdCentsPerBitcoin, gp.createProfileFeeNanos, gp.maxCopiesPerNFT], [10_000n, 100_000_000_000n, 10_000n], 'the bounds themselves are allowed');
  });

  it('keeps the PoS sizes within the block size', async () => {
    await rejects(setParams({ SoftMaxBlockSizeBytesPoS: u(32_001) }), 'RuleErrorSoftMaxBlockSizeBytesExceedsMaxBlockSizeBytes');
    await rejects(setParams({ MaxTxnSizeBytesPoS: u(40_000) }), 'RuleErrorMaxTxnSizeBytesExceedsMaxBlockSizeBytes');
    await setParams({ MaxBlockSizeBytesPoS: u(50_000), MaxTxnSizeBytesPoS: u(40_000) });
    assert.equal((await effective()).maxTxnSizeBytesPoS, 40_000n, 'allowed once the block size grew in the same transaction');
  });

  it('decodes values as Go\'s binary.Uvarint / Varint: a prefix, trailing bytes ignored; empty = unchanged', async () => {
    const padded = new Uint8Array(10);
    padded.set(u(555));
    await setParams({ MaxCopiesPerNFT: padded, CreateNFTFeeNanos: new Uint8Array(0) });
    assert.equal((await effective()).maxCopiesPerNFT, 555n, 'the reference route\'s 10-byte zero-padded buffers decode');
    assert.equal((await effective()).createNFTFeeNanos, 0n, 'an empty value leaves the param unchanged');
    await rejects(setParams({ CreateNFTFeeNanos: Uint8Array.of(0x80) }), 'RuleErrorUpdateGlobalParamsValueMalformed');
    const drift = GLOBAL_PARAM_SPECS.find((s) => s.apiName === 'BlockTimestampDriftNanoSecs')!;
    await setParams({ BlockTimestampDriftNanoSecs: encodeGlobalParamValue(drift, -5n) });
    assert.equal((await effective()).blockTimestampDriftNanoSecs, -5n, 'signed fields are zig-zag varints');
  });

  it('checks ForbiddenBlockSignaturePubKey is 33 bytes and records it', async () => {
    await rejects(setParams({ ForbiddenBlockSignaturePubKey: new Uint8Array(32) }), 'RuleErrorForbiddenPubKeyLength');
    await setParams({ ForbiddenBlockSignaturePubKey: carol });
    assert.equal(await view.get(globalParamsKeys.forbiddenBlockSigner(carol)), true);
  });

  it('refuses metadata bytes (the metadata is empty)', async () => {
    const c = constructTxn({ publicKey: updater, metadata: { type: 'UPDATE_GLOBAL_PARAMS' }, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
    const txn = { ...decodeTxn(c.bytes), metadata: Uint8Array.of(1) };
    await rejects(connectTransaction(view, txn, { hash: sha256d(c.bytes), size: c.bytes.length, signer: updater }, ctx()), 'RuleErrorTxnMetadataMalformed');
  });

  it('charges later profile creations the new CreateProfileFeeNanos', async () => {
    await setParams({ CreateProfileFeeNanos: u(5_000_000) });
    const fee = await send(alice, { type: 'UPDATE_PROFILE', profilePublicKey: new Uint8Array(0), newUsername: utf8('alice'), newDescription: new Uint8Array(0), newProfilePic: new Uint8Array(0), newCreatorBasisPoints: 1000n, newStakeMultipleBasisPoints: 12_500n, isHidden: false });
    assert.equal(await getBalance(view, alice), START - fee - 5_000_000n, 'network fee plus the on-chain creation fee');
  });

  it('enforces the on-chain fee floor and nonce window on later transactions', async () => {
    await setParams({ MinNetworkFeeNanosPerKB: u(5000) });
    await rejects(send(alice, { type: 'BASIC_TRANSFER' }, { feeRate: 1000n }), 'RuleErrorTxnFeeBelowNetworkMinimum');
    await send(alice, { type: 'BASIC_TRANSFER' }, { feeRate: 5000n });
    await send(updater, { type: 'UPDATE_GLOBAL_PARAMS' }, { extraData: params({ MaxNonceExpirationBlockHeightOffset: u(100) }), feeRate: 5000n });
    await rejects(send(alice, { type: 'BASIC_TRANSFER' }, { feeRate: 5000n, nonceOffset: 200n }), 'RuleErrorNonceExpirationTooFarInFuture');
    await send(alice, { type: 'BASIC_TRANSFER' }, { feeRate: 5000n, nonceOffset: 100n });
  });
});

describe('SWAP_IDENTITY', () => {
  it('is refused from a key that is not a param updater', async () => {
    await rejects(swap(alice, bob, carol), 'RuleErrorSwapIdentityIsParamUpdaterOnly');
  });

  it('needs a non-zero input (fee or output)', async () => {
    await rejects(swap(alice, bob, updater, { feeRate: 0n }), 'RuleErrorProfileUpdateRequiresNonZeroInput');
  });

  it('needs two valid 33-byte public keys', async () => {
    const offCurve = Uint8Array.of(2, ...new Uint8Array(32).fill(0xff));
    await rejects(swap(new Uint8Array(32), bob), 'RuleErrorFromPublicKeyIsRequired');
    await rejects(swap(offCurve, bob), 'RuleErrorInvalidFromPublicKey');
    await rejects(swap(alice, new Uint8Array(0)), 'RuleErrorToPublicKeyIsRequired');
    await rejects(swap(alice, offCurve), 'RuleErrorInvalidToPublicKey');
  });

  it('trades the two profiles, their usernames and their index entries', async () => {
    addProfile(view, alice, 'Alice');
    addProfile(view, bob, 'bob');
    await swap(alice, bob);
    assert.equal((await getProfile(view, bob))?.username, 'Alice');
    assert.equal((await getProfile(view, alice))?.username, 'bob');
    assert.deepEqual((await getProfileByUsername(view, 'alice'))?.publicKey, bob, 'the username now resolves to the other key');
    assert.deepEqual((await getProfileByUsername(view, 'BOB'))?.publicKey, alice);
    assert.deepEqual(await view.indexRange(profileKeys.usernameIndex), ['alice', 'bob']);
    const locked = await view.indexRange(profileKeys.lockedIndex);
    assert.deepEqual(locked.map((m) => toHex(pkOfLockedMember(m))).sort(), [toHex(alice), toHex(bob)].sort(), 'one by-value entry per profile, under the new keys');
    assert.equal(await getBalance(view, alice), START, 'native balances stay with their keys');
  });

  it('moves a profile to a key that has none', async () => {
    addProfile(view, alice, 'alice');
    await swap(alice, bob);
    assert.equal(await getProfile(view, alice), undefined, 'From has no profile left');
    assert.equal((await getProfile(view, bob))?.username, 'alice');
    assert.deepEqual((await getProfileByUsername(view, 'alice'))?.publicKey, bob);
    assert.deepEqual((await view.indexRange(profileKeys.lockedIndex)).map(pkOfLockedMember), [bob]);
  });

  it('moves creator-coin holdings in both roles, and the coins\' totals with the profiles', async () => {
    addProfile(view, alice, 'alice');
    const pa = (await getProfile(view, alice))!;
    putProfile(view, { ...pa, creatorCoin: { ...pa.creatorCoin, nanosLocked: 900n, coinsInCirculationNanos: 300n, numberOfHolders: 2n } }, pa);
    putHolding(view, alice, alice, { balanceNanos: 100n, hasPurchased: true }, undefined);
    putHolding(view, carol, alice, { balanceNanos: 200n, hasPurchased: true }, undefined);
    putHolding(view, alice, carol, { balanceNanos: 50n, hasPurchased: true }, undefined);
    await swap(alice, bob);
    assert.equal((await getProfile(view, bob))?.creatorCoin.nanosLocked, 900n);
    assert.equal(await creatorCoinBalance(view, bob, bob), 100n, 'self-holding follows both roles');
    assert.equal(await creatorCoinBalance(view, carol, bob), 200n);
    assert.equal(await creatorCoinBalance(view, bob, carol), 50n);
    assert.equal(await creatorCoinBalance(view, carol, alice), 0n);
    assert.equal(await creatorCoinBalance(view, alice, carol), 0n);
    assert.deepEqual((await view.indexRange(creatorCoinKeys.holders(bob))).sort(), [toHex(bob), toHex(carol)].sort());
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holders(alice)), []);
    assert.deepEqual(await view.indexRange(creatorCoinKeys.holdings(carol)), [toHex(bob)]);
  });

  it('moves the DAO coin and DAO balances in both roles, including cross-holdings', async () => {
    setDAOCoinEntry(view, alice, { coinsInCirculationNanos: 1000n, mintingDisabled: true, transferRestrictionStatus: 1, numberOfHolders: 2n });
    await setDAOCoinBalance(view, alice, alice, 600n);
    await setDAOCoinBalance(view, bob, alice, 400n);
    await setDAOCoinBalance(view, alice, bob, 7n);
    await swap(alice, bob);
    assert.equal((await getDAOCoinEntry(view, bob)).coinsInCirculationNanos, 1000n);
    assert.equal((await getDAOCoinEntry(view, bob)).mintingDisabled, true);
    assert.equal(await view.get(daoCoinKeys.entry(alice)), undefined, 'From had no entry of the other side to receive');
    assert.equal(await getDAOCoinBalance(view, bob, bob), 600n);
    assert.equal(await getDAOCoinBalance(view, alice, bob), 400n, 'bob\'s holding of alice\'s coin is now alice\'s holding of bob\'s coin');
    assert.equal(await getDAOCoinBalance(view, bob, alice), 7n);
    assert.equal(await getDAOCoinBalance(view, alice, alice), 0n);
    assert.deepEqual((await view.indexRange(daoCoinKeys.holders(bob))).sort(), [toHex(alice), toHex(bob)].sort());
    assert.deepEqual(await view.indexRange(daoCoinKeys.holders(alice)), [toHex(bob)]);
  });

  it('swapping a key with itself changes nothing', async () => {
    addProfile(view, alice, 'alice');
    await swap(alice, alice);
    assert.equal((await getProfile(view, alice))?.username, 'alice');
    assert.deepEqual((await getProfileByUsername(view, 'alice'))?.publicKey, alice);
  });
});

describe('global param value encodings', () => {
  it('reads Go uvarints and zig-zag varints', () => {
    assert.equal(goUvarint(u(300)), 300n);
    assert.equal(goUvarint(Uint8Array.of(0x80, 0x00)), 0n, 'Go accepts non-minimal encodings');
    assert.equal(goUvarint(new Uint8Array(0)), null);
    assert.equal(goUvarint(Uint8Array.of(0xff)), null, 'truncated');
    assert.equal(goUvarint(Uint8Array.of(...new Array(9).fill(0xff), 0x02)), null, 'over 64 bits');
    assert.equal(goVarint(u(9)), -5n);
    assert.equal(goVarint(u(10)), 5n);
    const vested = GLOBAL_PARAM_SPECS.find((s) => s.apiName === 'MaximumVestedIntersectionsPerLockupTransaction')!;
    assert.deepEqual(encodeGlobalParamValue(vested, -5n), u(9));
    assert.deepEqual(encodeGlobalParamValue(vested, 1000n), u(2000));
  });

  it('has one spec per stored field and core\'s ExtraData key names', () => {
    assert.equal(GLOBAL_PARAM_SPECS.length, Object.keys(CORE_GLOBAL_PARAM_DEFAULTS).length);
    const keys = Object.fromEntries(GLOBAL_PARAM_SPECS.map((s) => [s.apiName, s.extraDataKey]));
    assert.equal(keys['MinimumNetworkFeeNanosPerKB'], 'MinNetworkFeeNanosPerKB');
    assert.equal(keys['FeeBucketGrowthRateBasisPoints'], 'FeeBucketGrowthRateBasisPointsKey');
    assert.equal(keys['BlockProductionIntervalMillisecondsPoS'], 'BlockProductionIntervalPoS');
  });
});

describe('SWAP_IDENTITY and UPDATE_GLOBAL_PARAMS metadata', () => {
  it('SWAP_IDENTITY is bytes(From) ‖ bytes(To), as the SDK transcodes it', () => {
    const bytes = encodeMetadata({ type: 'SWAP_IDENTITY', fromPublicKey: alice, toPublicKey: bob });
    assert.deepEqual(bytes, Uint8Array.of(33, ...alice, 33, ...bob));
    const [sdk] = TransactionMetadataSwapIdentity.fromBytes(bytes) as [TransactionMetadataSwapIdentity, Uint8Array];
    assert.deepEqual([...sdk.fromPublicKey], [...alice]);
    assert.deepEqual([...sdk.toPublicKey], [...bob]);
    assert.deepEqual(decodeMetadata(TxnType.SWAP_IDENTITY, bytes), { type: 'SWAP_IDENTITY', fromPublicKey: alice, toPublicKey: bob });
    assert.throws(() => decodeMetadata(TxnType.SWAP_IDENTITY, Uint8Array.of(34, ...new Uint8Array(34), 0)), /fromPublicKey/, 'a key over 33 bytes is malformed');
  });

  it('UPDATE_GLOBAL_PARAMS metadata is empty', () => {
    assert.deepEqual(encodeMetadata({ type: 'UPDATE_GLOBAL_PARAMS' }), new Uint8Array(0));
    assert.deepEqual(decodeMetadata(TxnType.UPDATE_GLOBAL_PARAMS, new Uint8Array(0)), { type: 'UPDATE_GLOBAL_PARAMS' });
    assert.throws(() => decodeMetadata(TxnType.UPDATE_GLOBAL_PARAMS, Uint8Array.of(0)), /trailing/);
  });
});
