/**
 * Identity session values: sealed `encryptedSeedHex` handles, `accessLevelHmac` and access
 * levels, seed keys and the default messaging key (server/identity/).
 *
 * Skipped vectors: `identityFrame.seedEncryption[]` (the frame's legacy, unauthenticated
 * per-hostname scheme). The node does not implement that scheme: its key lives in the browser,
 * so a frame-issued handle can never reach us in an openable form (see sealedSeed.ts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { encodePublicKey } from '../../server/keys/index.js';
import {
  AccessLevel,
  accessLevelHmac,
  checkAccessLevel,
  isAccessLevel,
  METHOD_LEVELS,
  SIGN_LEVEL_3_TXN_TYPES,
  signLevelFor,
} from '../../server/identity/accessLevel.js';
import { IdentityError, isIdentityError, type IdentityErrorCode } from '../../server/identity/errors.js';
import {
  checkSeed,
  DEFAULT_MESSAGING_KEY_NAME,
  isValidSeed,
  messagingKeyForSeed,
  parseSeedHex,
  seedHexToKeys,
  seedToHex,
} from '../../server/identity/keys.js';
import { NODE_SECRET_BYTES, openSeed, SEALED_BYTES, sealSeed } from '../../server/identity/sealedSeed.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

/** The parts of shared/vectors/sdk-vectors.json used here (identity-and-crypto.md §9). */
interface SdkVectors {
  keys: Array<{
    id: string;
    seedHex: string;
    publicKeyCompressedHex: string;
    mainnetBase58Check: string;
    testnetBase58Check: string;
    defaultKeyMessaging: {
      keyName: string;
      privateKeyHex: string;
      publicKeyCompressedHex: string;
      mainnetBase58Check: string;
    };
  }>;
  identityFrame: {
    accessLevelHmac: Array<{ seedHex: string; accessLevel: number; accessLevelHmac: string }>;
  };
}

const V = readSharedVectors<SdkVectors>('sdk-vectors.json');

/** secp256k1 group order n (SEC 2 §2.4.1), for the seed range edges. */
const N_HEX = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
const ONE_HEX = '00'.repeat(31) + '01';

function throwsIdentity(fn: () => unknown, code: IdentityErrorCode, label: string): IdentityError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(isIdentityError(caught), `${label}: expected an IdentityError, got ${String(caught)}`);
  assert.equal(caught.code, code, `${label}: code`);
  return caught;
}

function randomSeed(): Uint8Array {
  for (;;) {
    const s = new Uint8Array(randomBytes(32));
    if (isValidSeed(s)) return s;
  }
}

describe('identity keys', () => {
  for (const k of V.keys) {
    it(`${k.id}: seedHexToKeys matches keygen and publicKeyToBase58Check`, () => {
      const main = seedHexToKeys(k.seedHex, 'mainnet');
      assert.equal(bytesToHex(main.privateKey), k.seedHex);
      assert.equal(bytesToHex(main.publicKey33), k.publicKeyCompressedHex);
      assert.equal(main.publicKeyBase58Check, k.mainnetBase58Check);
      assert.equal(seedHexToKeys(k.seedHex, 'testnet').publicKeyBase58Check, k.testnetBase58Check);
    });

    it(`${k.id}: messagingKeyForSeed(seed) is the SDK's default-key messaging key (§1.4)`, () => {
      const m = messagingKeyForSeed(hexToBytes(k.seedHex));
      assert.equal(k.defaultKeyMessaging.keyName, DEFAULT_MESSAGING_KEY_NAME);
      assert.equal(m.keyName, DEFAULT_MESSAGING_KEY_NAME);
      assert.equal(bytesToHex(m.privateKey), k.defaultKeyMessaging.privateKeyHex);
      assert.equal(bytesToHex(m.publicKey33), k.defaultKeyMessaging.publicKeyCompressedHex);
      assert.equal(encodePublicKey(m.publicKey33, 'mainnet'), k.defaultKeyMessaging.mainnetBase58Check);
    });
  }

  it('messaging keys differ per key name and are deterministic', () => {
    const seed = hexToBytes(V.keys[2]!.seedHex);
    const a = messagingKeyForSeed(seed, 'group-a');
    assert.deepEqual(messagingKeyForSeed(seed, 'group-a'), a);
    assert.notDeepEqual(a.privateKey, messagingKeyForSeed(seed, 'group-b').privateKey);
    assert.notDeepEqual(a.privateKey, messagingKeyForSeed(seed).privateKey);
  });

  it('accepts the seed range edges 1 and n-1, rejects 0 and n', () => {
    const nMinus1 = hexToBytes(N_HEX);
    nMinus1[31]! -= 1;
    assert.equal(seedToHex(parseSeedHex(ONE_HEX)), ONE_HEX);
    assert.equal(seedToHex(parseSeedHex(bytesToHex(nMinus1))), bytesToHex(nMinus1));
    throwsIdentity(() => parseSeedHex('00'.repeat(32)), 'IDENTITY_BAD_SEED', 'zero');
    throwsIdentity(() => parseSeedHex(N_HEX), 'IDENTITY_BAD_SEED', 'n');
    throwsIdentity(() => checkSeed(new Uint8Array(32).fill(0xff)), 'IDENTITY_BAD_SEED', 'all ff');
  });

  it('rejects seed hex of the wrong shape without echoing it', () => {
    const secretish = 'ab'.repeat(31); // 62 characters
    for (const bad of [secretish, ONE_HEX + '00', '1', '', 'zz'.repeat(32), 42, null]) {
      const e = throwsIdentity(() => parseSeedHex(bad), 'IDENTITY_BAD_SEED', `parse ${String(bad).slice(0, 8)}`);
      assert.ok(!e.message.includes(secretish), 'the message must not contain the input');
    }
    throwsIdentity(() => checkSeed(new Uint8Array(31)), 'IDENTITY_BAD_SEED', '31 bytes');
    throwsIdentity(() => messagingKeyForSeed(new Uint8Array(32)), 'IDENTITY_BAD_SEED', 'messaging of zero');
  });

  it('upper-case seed hex gives the same keys', () => {
    const k = V.keys[3]!;
    assert.equal(seedHexToKeys(k.seedHex.toUpperCase(), 'mainnet').publicKeyBase58Check, k.mainnetBase58Check);
  });
});

describe('accessLevelHmac', () => {
  for (const [i, c] of V.identityFrame.accessLevelHmac.entries()) {
    it(`vector ${i}: level ${c.accessLevel}`, () => {
      assert.ok(isAccessLevel(c.accessLevel), `vector ${i} has a valid level`);
      assert.equal(accessLevelHmac(c.seedHex, c.accessLevel), c.accessLevelHmac);
      assert.equal(checkAccessLevel(c.seedHex, c.accessLevel, c.accessLevelHmac, c.accessLevel), true);
      assert.equal(checkAccessLevel(c.seedHex, c.accessLevel, c.accessLevelHmac, AccessLevel.None), true);
    });
  }

  const seedHex = V.identityFrame.accessLevelHmac[0]!.seedHex;
  const otherSeedHex = V.keys[2]!.seedHex;
  const hmac3 = accessLevelHmac(seedHex, AccessLevel.ApproveLarge);

  it('refuses a level below the one required', () => {
    assert.equal(checkAccessLevel(seedHex, 3, hmac3, AccessLevel.Full), false);
    assert.equal(checkAccessLevel(seedHex, 2, accessLevelHmac(seedHex, 2), METHOD_LEVELS.sign), false);
  });

  it('refuses an HMAC computed for another level (an app cannot raise its own level)', () => {
    assert.equal(checkAccessLevel(seedHex, 4, hmac3, AccessLevel.Full), false);
    assert.equal(checkAccessLevel(seedHex, 2, hmac3, AccessLevel.ApproveAll), false);
  });

  it('refuses the HMAC of another seed', () => {
    assert.equal(checkAccessLevel(otherSeedHex, 3, hmac3, AccessLevel.ApproveLarge), false);
  });

  it('refuses malformed HMACs and levels', () => {
    const cases: Array<[unknown, unknown]> = [
      [3, hmac3.toUpperCase()], // the frame compares strings: upper case never matched there
      [3, hmac3.slice(0, 62)],
      [3, hmac3 + '00'],
      [3, 'g' + hmac3.slice(1)],
      [3, ''],
      [3, null],
      [3, 12345],
      ['3', hmac3],
      [3.5, hmac3],
      [-1, hmac3],
      [5, hmac3],
      [Number.NaN, hmac3],
      [undefined, hmac3],
    ];
    for (const [level, hmac] of cases) {
      assert.equal(checkAccessLevel(seedHex, level, hmac, AccessLevel.ApproveAll), false, `level=${String(level)} hmac=${String(hmac).slice(0, 8)}`);
    }
  });

  it('throws coded errors for a bad seed hex or level', () => {
    throwsIdentity(() => accessLevelHmac('00', 2), 'IDENTITY_BAD_SEED', 'short seed');
    throwsIdentity(() => accessLevelHmac(seedHex, 7 as AccessLevel), 'IDENTITY_BAD_ACCESS_LEVEL', 'level 7');
    throwsIdentity(() => checkAccessLevel('xyz', 2, hmac3, 2), 'IDENTITY_BAD_SEED', 'check with bad seed');
  });
});

describe('sign levels (§2.6, §2.8)', () => {
  it('method minimums', () => {
    assert.deepEqual({ ...METHOD_LEVELS }, { sign: 3, encrypt: 2, decrypt: 2, jwt: 2 });
  });

  it('level-3 types need 3 only while their outputs pay the sender alone', () => {
    assert.equal(SIGN_LEVEL_3_TXN_TYPES.size, 12);
    for (const [type, name] of SIGN_LEVEL_3_TXN_TYPES) {
      assert.equal(signLevelFor(type, true), 3, name);
      assert.equal(signLevelFor(type, false), 4, `${name} paying another key`);
    }
  });

  it('everything else needs 4, including UPDATE_PROFILE and unknown types', () => {
    // BASIC_TRANSFER 2, UPDATE_PROFILE 6, CREATOR_COIN 11, AUTHORIZE_DERIVED_KEY 22,
    // MESSAGING_GROUP 23, DAO_COIN_LIMIT_ORDER 26, STAKE 36, ATOMIC_TXNS_WRAPPER 44, unknown.
    for (const type of [0, 1, 2, 3, 6, 8, 11, 12, 13, 14, 15, 21, 22, 23, 24, 25, 26, 34, 36, 40, 43, 44, 45, 1000, -1, 9.5]) {
      assert.equal(signLevelFor(type, true), 4, `type ${type}`);
    }
  });
});

describe('sealed seed handles', () => {
  const secret = new Uint8Array(randomBytes(NODE_SECRET_BYTES));
  const seed = hexToBytes(V.keys[2]!.seedHex);
  const pk = V.keys[2]!.mainnetBase58Check;
  const otherPk = V.keys[3]!.mainnetBase58Check;

  it('round-trips 1,000 random seeds', () => {
    for (let i = 0; i < 1000; i++) {
      const s = randomSeed();
      const owner = encodePublicKey(seedHexToKeys(bytesToHex(s), 'mainnet').publicKey33, 'mainnet');
      const sealed = sealSeed(secret, s, owner, 'seed');
      assert.equal(sealed.length, SEALED_BYTES * 2, 'hex length');
      assert.deepEqual(openSeed(secret, sealed, owner, 'seed'), s, `seed ${i}`);
    }
  });

  it('round-trips messaging randomness, which need not be a valid key', () => {
    const zeros = new Uint8Array(32);
    const sealed = sealSeed(secret, zeros, pk, 'messaging-root');
    assert.deepEqual(openSeed(secret, sealed, pk, 'messaging-root'), zeros);
    throwsIdentity(() => sealSeed(secret, zeros, pk, 'seed'), 'IDENTITY_BAD_SEED', 'zero seed');
    throwsIdentity(() => sealSeed(secret, new Uint8Array(31), pk, 'messaging-root'), 'IDENTITY_BAD_SEED', '31 bytes');
  });

  it('two seals of the same seed differ (random IV) and both open', () => {
    const a = sealSeed(secret, seed, pk, 'seed');
    const b = sealSeed(secret, seed, pk, 'seed');
    assert.notEqual(a, b);
    assert.deepEqual(openSeed(secret, a, pk, 'seed'), seed);
    assert.deepEqual(openSeed(secret, b, pk, 'seed'), seed);
  });

  it('a change to any bit of any byte fails, with one generic error', () => {
    const sealed = hexToBytes(sealSeed(secret, seed, pk, 'seed'));
    const messages = new Set<string>();
    for (let pos = 0; pos < sealed.length; pos++) {
      for (const flip of [0x01, 0x80]) {
        const t = sealed.slice();
        t[pos]! ^= flip;
        const e = throwsIdentity(() => openSeed(secret, bytesToHex(t), pk, 'seed'), 'IDENTITY_BAD_SEED_HANDLE', `byte ${pos} ^ ${flip}`);
        messages.add(e.message);
      }
    }
    assert.equal(messages.size, 1, 'every failure has the same message');
  });

  it('wrong public key, purpose or node secret fail with the same error', () => {
    const sealed = sealSeed(secret, seed, pk, 'seed');
    const other = new Uint8Array(secret);
    other[0]! ^= 1;
    const errors = [
      throwsIdentity(() => openSeed(secret, sealed, otherPk, 'seed'), 'IDENTITY_BAD_SEED_HANDLE', 'other key'),
      throwsIdentity(() => openSeed(secret, sealed, V.keys[2]!.testnetBase58Check, 'seed'), 'IDENTITY_BAD_SEED_HANDLE', 'same key, testnet string'),
      throwsIdentity(() => openSeed(secret, sealed, pk, 'messaging-root'), 'IDENTITY_BAD_SEED_HANDLE', 'other purpose'),
      throwsIdentity(() => openSeed(other, sealed, pk, 'seed'), 'IDENTITY_BAD_SEED_HANDLE', 'other node secret'),
    ];
    assert.equal(new Set(errors.map((e) => e.message)).size, 1, 'one message for every mismatch');
  });

  it('malformed handles fail without echoing any input', () => {
    const sealed = sealSeed(secret, seed, pk, 'seed');
    const bad: unknown[] = [
      '',
      sealed.slice(0, -2),
      sealed + '00',
      sealed.toUpperCase(),
      sealed.slice(0, -1) + 'g',
      '00' + sealed.slice(2), // version 0
      42,
      null,
      undefined,
      { sealed },
    ];
    for (const [i, value] of bad.entries()) {
      const e = throwsIdentity(() => openSeed(secret, value as string, pk, 'seed'), 'IDENTITY_BAD_SEED_HANDLE', `case ${i}`);
      assert.ok(!e.message.includes(sealed.slice(0, 16)), `case ${i}: message must not contain the handle`);
      assert.ok(!e.message.includes(pk), `case ${i}: message must not contain the public key`);
    }
    for (const key of ['', 'x'.repeat(129), 7]) {
      throwsIdentity(() => openSeed(secret, sealed, key as string, 'seed'), 'IDENTITY_BAD_SEED_HANDLE', `key ${String(key).slice(0, 4)}`);
    }
  });

  it('caller bugs (secret length, purpose) are RangeErrors, not handle errors', () => {
    const sealed = sealSeed(secret, seed, pk, 'seed');
    assert.throws(() => sealSeed(new Uint8Array(16), seed, pk, 'seed'), RangeError);
    assert.throws(() => openSeed(new Uint8Array(33), sealed, pk, 'seed'), RangeError);
    assert.throws(() => openSeed(secret, sealed, pk, 'jwt' as 'seed'), RangeError);
    assert.throws(() => sealSeed(secret, seed, '', 'seed'), RangeError);
  });

  it('the sealed seed keeps working with the frame HMAC after opening', () => {
    const sealed = sealSeed(secret, seed, pk, 'seed');
    const seedHex = seedToHex(openSeed(secret, sealed, pk, 'seed'));
    const hmac = accessLevelHmac(seedHex, AccessLevel.ApproveAll);
    assert.equal(checkAccessLevel(seedHex, AccessLevel.ApproveAll, hmac, METHOD_LEVELS.encrypt), true);
  });
});
