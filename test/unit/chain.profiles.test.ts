/**
 * UPDATE_PROFILE rules over a state view (core's _connectUpdateProfile, every fork active):
 * creating and updating one's own profile, the username index, param updaters, the creation
 * fee, and each rule error.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { isParamUpdater } from '../../server/chain/rules/profiles.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { getProfile, getProfileByUsername, profileKeys, publicKeyForUsername } from '../../server/chain/state/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import type { UpdateProfileMetadata } from '../../server/chain/txn/metadata.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { decodePublicKey } from '../../server/keys/index.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const START = 1_000_000_000n;
/** The regtest param updater core adds (EnableRegtest). */
const PARAM_UPDATER = decodePublicKey('tBCKVERmG9nZpHTk2AVPqknWc1Mw9HHAnqrTpW1RnXpXMQ4PsQgnmV', 'testnet', 'paramUpdater');

let view: StateView;
let alice: Uint8Array;
let bob: Uint8Array;

const ctxWith = (createProfileFeeNanos = 0n): ConnectContext => ({
  height: 10n,
  rules: { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos },
  crypto: {} as CryptoService,
});

interface Update {
  profile?: Uint8Array;
  username?: string;
  description?: string;
  pic?: string;
  creatorBasisPoints?: bigint;
  stakeMultiple?: bigint;
  isHidden?: boolean;
  extraData?: Array<[Uint8Array, Uint8Array]>;
}

/** Connects an UPDATE_PROFILE of `pk` (fee rate 1000 nanos/KB); answers its network fee. */
async function update(pk: Uint8Array, u: Update, ctx = ctxWith()): Promise<bigint> {
  const metadata: UpdateProfileMetadata = {
    type: 'UPDATE_PROFILE',
    profilePublicKey: u.profile ?? new Uint8Array(0),
    newUsername: utf8(u.username ?? ''),
    newDescription: utf8(u.description ?? ''),
    newProfilePic: utf8(u.pic ?? ''),
    newCreatorBasisPoints: u.creatorBasisPoints ?? 1000n,
    newStakeMultipleBasisPoints: u.stakeMultiple ?? 12_500n,
    isHidden: u.isHidden ?? false,
  };
  const c = constructTxn({ publicKey: pk, metadata, extraData: u.extraData, minFeeRateNanosPerKB: 1000n, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
  await connectTransaction(view, decodeTxn(c.bytes), { hash: sha256d(c.bytes), size: c.bytes.length, signer: pk }, ctx);
  return c.feeNanos;
}

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RuleError && e.code === code, `expected ${code}`);
}

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  [alice, bob] = [newKey(), newKey()];
  for (const pk of [alice, bob, PARAM_UPDATER]) setBalance(view, pk, START);
});

describe('UPDATE_PROFILE', () => {
  it('creates the transactor\'s profile and indexes its username case-insensitively', async () => {
    await update(alice, { username: 'Alice_1', description: 'hi', pic: 'data:image/png;base64,AAAA', creatorBasisPoints: 2500n, isHidden: true, extraData: [[utf8('k'), utf8('v')]] });
    const p = await getProfile(view, alice);
    assert.ok(p, 'the profile exists');
    assert.equal(p.username, 'Alice_1');
    assert.equal(p.description, 'hi');
    assert.equal(p.profilePic, 'data:image/png;base64,AAAA');
    assert.equal(p.creatorBasisPoints, 2500n);
    assert.equal(p.isHidden, false, 'core does not hide a profile on creation');
    assert.deepEqual(p.creatorCoin, { nanosLocked: 0n, coinsInCirculationNanos: 0n, coinWatermarkNanos: 0n, numberOfHolders: 0n });
    assert.deepEqual(p.extraData.map(([k, v]) => [Buffer.from(k).toString(), Buffer.from(v).toString()]), [['k', 'v']]);
    assert.deepEqual(await publicKeyForUsername(view, 'aLiCe_1'), alice);
    assert.deepEqual((await getProfileByUsername(view, 'ALICE_1'))?.publicKey, alice);
    assert.deepEqual(await view.indexRange(profileKeys.usernameIndex), ['alice_1']);
  });

  it('updates only the fields that are set, and always IsHidden and the basis points', async () => {
    await update(alice, { username: 'alice', description: 'first', pic: 'data:image/png;base64,AAAA', extraData: [[utf8('a'), utf8('1')]] });
    await update(alice, { description: 'second', creatorBasisPoints: 500n, stakeMultiple: 20_000n, isHidden: true, extraData: [[utf8('b'), utf8('2')]] });
    const p = await getProfile(view, alice);
    assert.ok(p, 'the profile exists');
    assert.equal(p.username, 'alice', 'an empty username keeps the old one');
    assert.equal(p.description, 'second');
    assert.equal(p.profilePic, 'data:image/png;base64,AAAA', 'an empty picture keeps the old one');
    assert.equal(p.creatorBasisPoints, 500n);
    assert.equal(p.stakeMultipleBasisPoints, 20_000n);
    assert.equal(p.isHidden, true);
    assert.deepEqual(p.extraData.map(([k]) => Buffer.from(k).toString()), ['a', 'b'], 'ExtraData merged');
  });

  it('refuses a picture that is not a png/jpeg/webp/gif base64 data URL, on create and on update', async () => {
    const bad = [
      'data:image/png\r\nSet-Cookie: pwn=1; Path=/\r\nX-Injected: yes;base64,AAAA',
      'data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+',
      'data:text/html;base64,AAAA',
      'data:image/png;base64,',
      'data:image/png;base64,AAA',
      'data:image/png;base64,AA=A',
      'data:image/png;base64,AAAA\n',
      'data:image/PNG;base64,AAAA',
      'https://example.com/a.png',
    ];
    for (const pic of bad) await rejects(update(alice, { username: 'alice', pic }), 'RuleErrorProfilePicNotImageDataURL');
    assert.equal(await getProfile(view, alice), undefined, 'nothing was written');
    await update(alice, { username: 'alice', pic: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' });
    for (const pic of bad) await rejects(update(alice, { pic }), 'RuleErrorProfilePicNotImageDataURL');
    for (const type of ['png', 'jpeg', 'webp']) await update(alice, { pic: `data:image/${type};base64,AAAA` });
    assert.equal((await getProfile(view, alice))?.profilePic, 'data:image/webp;base64,AAAA');
  });

  it('moves the username index on a rename and frees the old name', async () => {
    await update(alice, { username: 'alice' });
    await update(alice, { username: 'alicia' });
    assert.equal(await publicKeyForUsername(view, 'alice'), undefined, 'the old name is free');
    assert.deepEqual(await publicKeyForUsername(view, 'ALICIA'), alice);
    assert.deepEqual(await view.indexRange(profileKeys.usernameIndex), ['alicia']);
    await update(bob, { username: 'Alice' });
    assert.deepEqual(await publicKeyForUsername(view, 'alice'), bob, 'another profile took the freed name');
  });

  it('lets a profile change the case of its own username', async () => {
    await update(alice, { username: 'alice' });
    await update(alice, { username: 'ALICE' });
    assert.equal((await getProfile(view, alice))?.username, 'ALICE');
    assert.deepEqual(await publicKeyForUsername(view, 'alice'), alice);
  });

  it('refuses a username another profile has, in any case', async () => {
    await update(alice, { username: 'alice' });
    await rejects(update(bob, { username: 'ALICE' }), 'RuleErrorProfileUsernameExists');
  });

  it('refuses field values over core\'s limits', async () => {
    await rejects(update(alice, { username: 'a'.repeat(26) }), 'RuleErrorProfileUsernameTooLong');
    await rejects(update(alice, { username: 'alice', description: 'd'.repeat(20_001) }), 'RuleErrorProfileDescriptionTooLong');
    await rejects(update(alice, { username: 'alice', pic: 'p'.repeat(20_001) }), 'RuleErrorMaxProfilePicSize');
    await rejects(update(alice, { username: 'alice', creatorBasisPoints: 10_001n }), 'RuleErrorProfileCreatorPercentageSize');
    await rejects(update(alice, { username: 'alice', stakeMultiple: 10_000n }), 'RuleErrorProfileStakeMultipleSize');
    await rejects(update(alice, { username: 'alice', stakeMultiple: 100_001n }), 'RuleErrorProfileStakeMultipleSize');
    await rejects(update(alice, { username: 'not ok' }), 'RuleErrorInvalidUsername');
    await rejects(update(alice, { username: 'émile' }), 'RuleErrorInvalidUsername');
    await update(alice, { username: 'a'.repeat(25) });
  });

  it('refuses to create a profile without a username', async () => {
    await rejects(update(alice, { description: 'no name' }), 'RuleErrorProfileUsernameTooShort');
  });

  it('refuses another profile\'s key unless the transactor is a param updater', async () => {
    await rejects(update(alice, { profile: bob, username: 'bob' }), 'RuleErrorProfilePubKeyNotAuthorized');
    const notAPoint = new Uint8Array(33).fill(5);
    await rejects(update(alice, { profile: notAPoint, username: 'x' }), 'RuleErrorProfileBadPublicKey');
    assert.ok(isParamUpdater(PARAM_UPDATER), 'the regtest key is a param updater');
    await update(PARAM_UPDATER, { profile: bob, username: 'bob_by_updater' });
    assert.equal((await getProfile(view, bob))?.username, 'bob_by_updater', 'the param updater created bob\'s profile');
    await update(PARAM_UPDATER, { profile: bob, description: 'edited' });
    assert.equal((await getProfile(view, bob))?.description, 'edited', 'and may edit it');
    assert.equal(await getProfile(view, PARAM_UPDATER), undefined, 'the updater got no profile of its own');
  });

  it('burns the creation fee when a profile is created, not when it is updated', async () => {
    const fee = 5_000n;
    const txnFee1 = await update(alice, { username: 'alice' }, ctxWith(fee));
    assert.equal(await getBalance(view, alice), START - txnFee1 - fee);
    const txnFee2 = await update(alice, { description: 'again' }, ctxWith(fee));
    assert.equal(await getBalance(view, alice), START - txnFee1 - fee - txnFee2, 'no fee for an update');
  });

  it('refuses to create a profile the transactor cannot pay the fee for', async () => {
    await rejects(update(alice, { username: 'alice' }, ctxWith(START)), 'RuleErrorInsufficientBalance');
    assert.equal(await getProfile(view, alice), undefined, 'nothing was written');
    assert.equal(await getBalance(view, alice), START, 'nothing was spent');
  });
});
