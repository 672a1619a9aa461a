import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import bs58check from 'bs58check';
import {
  decodeBase58Check,
  decodePublicKey,
  encodeBase58Check,
  encodePublicKey,
  isKeyError,
  isValidCompressedPoint,
  KeyError,
  PRIVATE_KEY_PREFIXES,
  PUBLIC_KEY_PREFIXES,
  type KeyErrorCode,
  type Network,
} from '../../server/keys/index.js';
import { bytesToHex, deepHexToBytes, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

/** The parts of shared/vectors/sdk-vectors.json used here (reference identity-and-crypto.md §9). */
interface SdkVectors {
  keys: Array<{
    id: string;
    seedHex: string;
    publicKeyCompressedHex: string;
    mainnetBase58Check: string;
    testnetBase58Check: string;
    mainnetBase58CheckDecoded: { prefixHex: string; payloadHex: string; checksumHex: string };
    defaultKeyMessaging: { publicKeyCompressedHex: string; mainnetBase58Check: string };
  }>;
  base58Negative: Array<{
    input: string;
    isValidMainnet?: boolean;
    isValidTestnet?: boolean;
    bs58PublicKeyToBytesError?: string;
    note: string;
  }>;
}

const vectors = readSharedVectors<SdkVectors>('sdk-vectors.json');
const sdkKeys = deepHexToBytes(vectors.keys);

const NETWORKS: readonly Network[] = ['mainnet', 'testnet'];
const OTHER: Record<Network, Network> = { mainnet: 'testnet', testnet: 'mainnet' };
const STRING_SHAPE: Record<Network, { length: number; start: string }> = {
  mainnet: { length: 55, start: 'BC1' },
  testnet: { length: 54, start: 'tBC' },
};
const FIELD = 'PublicKeyBase58Check';
const P = 2n ** 256n - 2n ** 32n - 977n;

const sha256d = (b: Uint8Array): Uint8Array => sha256(sha256(b));

function concat(...parts: ArrayLike<number>[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function point(tag: number, x: bigint): Uint8Array {
  return concat([tag], hexToBytes(x.toString(16).padStart(64, '0')));
}

function nobleAccepts(key: Uint8Array): boolean {
  try {
    secp256k1.Point.fromBytes(key);
    return true;
  } catch {
    return false;
  }
}

function randomPublicKey(): Uint8Array {
  return secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
}

function expectKeyError(fn: () => unknown, code: KeyErrorCode, message: string, field = FIELD): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof KeyError, `expected KeyError, got ${String(err)}`);
    assert.ok(isKeyError(err), 'a KeyError');
    assert.equal(err.name, 'KeyError');
    assert.equal(err.code, code);
    assert.equal(err.field, field);
    assert.equal(err.message, message);
    return true;
  });
}

/** x in [0, p) whose x^3 + 7 is not a square, found with noble so the oracle stays independent. */
function offCurveX(): bigint {
  for (;;) {
    const x = BigInt(`0x${bytesToHex(randomBytes(32))}`) % P;
    if (!nobleAccepts(point(2, x))) return x;
  }
}

describe('keys: deso-protocol SDK vectors', () => {
  it('has the five documented key pairs', () => {
    assert.equal(sdkKeys.length, 5);
  });

  for (const k of sdkKeys) {
    describe(k.id, () => {
      it('noble derives the same compressed key from the seed', () => {
        assert.deepEqual(secp256k1.getPublicKey(k.seed, true), k.publicKeyCompressed);
      });

      it('encodes to the SDK strings for both networks', () => {
        assert.equal(encodePublicKey(k.publicKeyCompressed, 'mainnet'), k.mainnetBase58Check);
        assert.equal(encodePublicKey(k.publicKeyCompressed, 'testnet'), k.testnetBase58Check);
        assert.equal(
          encodePublicKey(k.defaultKeyMessaging.publicKeyCompressed, 'mainnet'),
          k.defaultKeyMessaging.mainnetBase58Check,
        );
      });

      it('decodes the SDK strings byte for byte', () => {
        assert.deepEqual(decodePublicKey(k.mainnetBase58Check, 'mainnet', FIELD), k.publicKeyCompressed);
        assert.deepEqual(decodePublicKey(k.testnetBase58Check, 'testnet', FIELD), k.publicKeyCompressed);
        assert.deepEqual(
          decodePublicKey(k.defaultKeyMessaging.mainnetBase58Check, 'mainnet', FIELD),
          k.defaultKeyMessaging.publicKeyCompressed,
        );
      });

      it('splits into the SDK prefix, payload and sha256d checksum', () => {
        const parts = decodeBase58Check(k.mainnetBase58Check);
        const d = k.mainnetBase58CheckDecoded;
        assert.deepEqual(parts.prefix, d.prefix);
        assert.deepEqual(parts.payload, d.payload);
        assert.deepEqual(sha256d(concat(d.prefix, d.payload)).subarray(0, 4), d.checksum);
        assert.deepEqual(parts.prefix, Uint8Array.from(PUBLIC_KEY_PREFIXES.mainnet));
      });

      it('rejects each network string on the other network', () => {
        expectKeyError(
          () => decodePublicKey(k.mainnetBase58Check, 'testnet', FIELD),
          'KEY_WRONG_NETWORK',
          `${FIELD}: expected a testnet public key (prefix tBC), got a mainnet key`,
        );
        expectKeyError(
          () => decodePublicKey(k.testnetBase58Check, 'mainnet', FIELD),
          'KEY_WRONG_NETWORK',
          `${FIELD}: expected a mainnet public key (prefix BC1), got a testnet key`,
        );
      });
    });
  }

  it('rejects every base58Negative input where the SDK does', () => {
    assert.equal(vectors.base58Negative.length, 3);
    for (const v of vectors.base58Negative) {
      const network: Network = v.isValidMainnet === false ? 'mainnet' : 'testnet';
      const code: KeyErrorCode =
        v.bs58PublicKeyToBytesError === 'Invalid checksum' ? 'KEY_BAD_CHECKSUM' : 'KEY_WRONG_NETWORK';
      assert.throws(() => decodePublicKey(v.input, network, FIELD), { code }, v.note);
    }
  });
});

describe('keys: isValidCompressedPoint agrees with @noble/curves Point.fromBytes', () => {
  /** Returns the inputs on which the two disagree, as hex, so a failure names them. */
  function disagreements(inputs: Iterable<Uint8Array>): string[] {
    const out: string[] = [];
    for (const key of inputs) {
      if (isValidCompressedPoint(key) !== nobleAccepts(key)) out.push(bytesToHex(key));
    }
    return out;
  }

  it('on 10,000 random 02/03 ‖ x inputs, about half of them valid', () => {
    const inputs: Uint8Array[] = [];
    for (let i = 0; i < 10_000; i++) {
      const key = randomBytes(33);
      key[0] = 2 + (key[0]! & 1);
      inputs.push(new Uint8Array(key));
    }
    assert.deepEqual(disagreements(inputs), []);
    // Guards against a vacuous pass (e.g. both sides rejecting everything).
    const valid = inputs.filter(isValidCompressedPoint).length;
    assert.ok(valid > 4_500 && valid < 5_500, `valid count ${valid}`);
  });

  it('on edge x values and out-of-range x', () => {
    const inRange = [0n, 1n, 2n, 7n, 2n ** 255n, P - 2n, P - 1n];
    const outOfRange = [P, P + 1n, 2n ** 256n - 1n];
    for (let i = 0; i < 200; i++) {
      // Uniform in [p, 2^256): all must be rejected, even when x - p is on the curve.
      outOfRange.push(P + (BigInt(`0x${bytesToHex(randomBytes(8))}`) % (2n ** 256n - P)));
    }
    const both = (xs: bigint[]): Uint8Array[] => xs.flatMap((x) => [point(2, x), point(3, x)]);
    assert.deepEqual(disagreements(both(inRange)), []);
    assert.deepEqual(disagreements(both(outOfRange)), []);
    for (const key of both(outOfRange)) assert.equal(isValidCompressedPoint(key), false);
  });

  it('on real keys with every tag byte', () => {
    const inputs: Uint8Array[] = [];
    for (let i = 0; i < 100; i++) {
      const key = randomPublicKey();
      for (const tag of [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0xff]) {
        const k = key.slice();
        k[0] = tag;
        inputs.push(k);
      }
    }
    assert.deepEqual(disagreements(inputs), []);
  });

  it('accepts only the 33-byte compressed form', () => {
    const key = randomPublicKey();
    const uncompressed = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false);
    assert.equal(nobleAccepts(uncompressed), true);
    assert.equal(isValidCompressedPoint(uncompressed), false);
    assert.equal(isValidCompressedPoint(key.subarray(0, 32)), false);
    assert.equal(isValidCompressedPoint(concat(key, [0])), false);
    assert.equal(isValidCompressedPoint(new Uint8Array(0)), false);
    // A view at a non-zero offset reads the right bytes.
    assert.equal(isValidCompressedPoint(concat([9, 9, 9], key).subarray(3)), true);
  });
});

describe('keys: round trips of random real keys', () => {
  const keys = Array.from({ length: 2_000 }, randomPublicKey);

  for (const network of NETWORKS) {
    it(`2,000 keys encode and decode on ${network}`, () => {
      const shape = STRING_SHAPE[network];
      const prefix = Uint8Array.from(PUBLIC_KEY_PREFIXES[network]);
      for (const key of keys) {
        const s = encodePublicKey(key, network);
        assert.equal(s.length, shape.length, s);
        assert.ok(s.startsWith(shape.start), s);
        // Independent of our decoder: the raw Base58Check body is prefix ‖ key.
        assert.deepEqual(bs58check.decode(s), concat(prefix, key));
        const decoded = decodePublicKey(s, network, FIELD);
        assert.deepEqual(decoded, key);
        assert.throws(() => decodePublicKey(s, OTHER[network], FIELD), { code: 'KEY_WRONG_NETWORK' });
      }
    });
  }

  it('returns a copy that does not share memory with the decoded string', () => {
    const decoded = decodePublicKey(encodePublicKey(keys[0]!, 'mainnet'), 'mainnet', FIELD);
    assert.equal(decoded.byteOffset, 0);
    assert.equal(decoded.buffer.byteLength, 33);
  });
});

describe('keys: encodeBase58Check agrees with bs58check', () => {
  it('on 5,000 random payloads of 0-80 bytes, a third of them with leading zero bytes', () => {
    for (let i = 0; i < 5_000; i++) {
      const prefix = i % 7 === 0 ? new Uint8Array(3) : randomBytes(3);
      const payload = randomBytes(i % 81);
      if (i % 3 === 0) payload.fill(0, 0, Math.min(payload.length, i % 5));
      assert.equal(encodeBase58Check(prefix, payload), bs58check.encode(concat(prefix, payload)), `payload ${bytesToHex(payload)}`);
    }
  });

  it('on all-zero and all-0xff inputs of every length up to 64', () => {
    for (let n = 0; n <= 64; n++) {
      for (const fill of [0, 0xff]) {
        const payload = new Uint8Array(n).fill(fill);
        for (const prefix of [[0, 0, 0], [0xff, 0xff, 0xff], PUBLIC_KEY_PREFIXES.mainnet]) {
          assert.equal(encodeBase58Check(prefix, payload), bs58check.encode(concat(Uint8Array.from(prefix), payload)));
        }
      }
    }
  });
});

describe('keys: error codes and messages', () => {
  const key = randomPublicKey();
  const mainnetKey = encodePublicKey(key, 'mainnet');
  const withPrefix = (prefix: ArrayLike<number>, payload: Uint8Array): string => encodeBase58Check(prefix, payload);

  it('KEY_EMPTY for an empty string or a missing value', () => {
    expectKeyError(() => decodePublicKey('', 'mainnet', FIELD), 'KEY_EMPTY', `${FIELD}: expected a Base58Check string, got an empty string`);
    for (const missing of [undefined, null]) {
      expectKeyError(
        () => decodePublicKey(missing as unknown as string, 'mainnet', FIELD),
        'KEY_EMPTY',
        `${FIELD}: expected a Base58Check string, got nothing`,
      );
    }
  });

  it('KEY_INVALID_BASE58 for characters outside the alphabet and non-strings', () => {
    for (const [i, ch] of [[5, '0'], [0, 'O'], [54, 'I'], [20, 'l'], [10, ' '], [7, '+'], [3, 'é']] as const) {
      const s = mainnetKey.slice(0, i) + ch + mainnetKey.slice(i + 1);
      expectKeyError(
        () => decodePublicKey(s, 'mainnet', FIELD),
        'KEY_INVALID_BASE58',
        `${FIELD}: invalid Base58 character ${JSON.stringify(ch)} at position ${i}`,
      );
    }
    expectKeyError(
      () => decodePublicKey(` ${mainnetKey}`, 'mainnet', FIELD),
      'KEY_INVALID_BASE58',
      `${FIELD}: invalid Base58 character " " at position 0`,
    );
    expectKeyError(
      () => decodePublicKey(42 as unknown as string, 'mainnet', FIELD),
      'KEY_INVALID_BASE58',
      `${FIELD}: expected a Base58Check string, got type=number`,
    );
  });

  it('KEY_BAD_CHECKSUM when a character changes', () => {
    const last = mainnetKey.at(-1) === 'a' ? 'b' : 'a';
    expectKeyError(
      () => decodePublicKey(mainnetKey.slice(0, -1) + last, 'mainnet', FIELD),
      'KEY_BAD_CHECKSUM',
      `${FIELD}: invalid Base58Check checksum`,
    );
  });

  it('KEY_WRONG_NETWORK names the network found, private-key prefixes and unknown prefixes', () => {
    expectKeyError(
      () => decodePublicKey(mainnetKey, 'testnet', FIELD),
      'KEY_WRONG_NETWORK',
      `${FIELD}: expected a testnet public key (prefix tBC), got a mainnet key`,
    );
    const secret = secp256k1.utils.randomSecretKey();
    expectKeyError(
      () => decodePublicKey(withPrefix(PRIVATE_KEY_PREFIXES.mainnet, secret), 'mainnet', FIELD),
      'KEY_WRONG_NETWORK',
      `${FIELD}: expected a mainnet public key (prefix BC1), got a mainnet private key`,
    );
    expectKeyError(
      () => decodePublicKey(withPrefix(PRIVATE_KEY_PREFIXES.testnet, secret), 'testnet', FIELD),
      'KEY_WRONG_NETWORK',
      `${FIELD}: expected a testnet public key (prefix tBC), got a testnet private key`,
    );
    expectKeyError(
      () => decodePublicKey(withPrefix([0x00, 0xab, 0x01], key), 'mainnet', FIELD),
      'KEY_WRONG_NETWORK',
      `${FIELD}: expected a mainnet public key (prefix BC1), got unknown prefix 00 ab 01`,
    );
  });

  it('KEY_BAD_LENGTH for wrong payload sizes, short bodies and overlong strings', () => {
    const uncompressed = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false);
    for (const payload of [key.subarray(0, 32), concat(key, [1]), uncompressed, new Uint8Array(0)]) {
      expectKeyError(
        () => decodePublicKey(withPrefix(PUBLIC_KEY_PREFIXES.mainnet, payload), 'mainnet', FIELD),
        'KEY_BAD_LENGTH',
        `${FIELD}: expected 33 bytes, got ${payload.length}`,
      );
    }
    expectKeyError(
      () => decodePublicKey(bs58check.encode(Uint8Array.of(0xcd, 0x14)), 'mainnet', FIELD),
      'KEY_BAD_LENGTH',
      `${FIELD}: expected at least 3 prefix bytes before the checksum, got 2`,
    );
    expectKeyError(
      () => decodePublicKey(mainnetKey.repeat(4), 'mainnet', FIELD),
      'KEY_BAD_LENGTH',
      `${FIELD}: expected at most 128 characters, got 220`,
    );
  });

  it('KEY_BAD_LENGTH comes before any decoding for huge inputs', () => {
    // Base58 decoding is quadratic; 1 MB must be refused by its length, before decoding. A
    // string that is also invalid Base58 shows which check ran first.
    assert.throws(() => decodePublicKey('0'.repeat(1_000_000), 'mainnet', FIELD), { code: 'KEY_BAD_LENGTH' });
  });

  it('KEY_NOT_ON_CURVE for a bad tag byte, an off-curve x and x >= p', () => {
    for (const tag of [0x00, 0x04, 0x05]) {
      const bad = key.slice();
      bad[0] = tag;
      expectKeyError(
        () => decodePublicKey(withPrefix(PUBLIC_KEY_PREFIXES.mainnet, bad), 'mainnet', FIELD),
        'KEY_NOT_ON_CURVE',
        `${FIELD}: expected a compressed point (first byte 02 or 03), got first byte ${tag.toString(16).padStart(2, '0')}`,
      );
    }
    for (const bad of [point(3, offCurveX()), point(2, P), point(2, 2n ** 256n - 1n)]) {
      expectKeyError(
        () => decodePublicKey(withPrefix(PUBLIC_KEY_PREFIXES.testnet, bad), 'testnet', FIELD),
        'KEY_NOT_ON_CURVE',
        `${FIELD}: expected a secp256k1 point, got an x coordinate that is not on the curve`,
      );
    }
  });

  it('messages never quote the input', () => {
    const secretString = withPrefix(PRIVATE_KEY_PREFIXES.mainnet, secp256k1.utils.randomSecretKey());
    // The last character changed (to one it is not: a random key ends in 'z' one time in 58).
    const tampered = `${mainnetKey.slice(0, -1)}${mainnetKey.endsWith('z') ? 'y' : 'z'}`;
    const inputs = [secretString, `${secretString}0`, mainnetKey.repeat(3), tampered];
    for (const input of inputs) {
      try {
        decodePublicKey(input, 'mainnet', FIELD);
        assert.fail(`accepted ${input}`);
      } catch (err) {
        assert.ok(isKeyError(err), 'a KeyError');
        assert.ok(!err.message.includes(input.slice(0, 12)), err.message);
        assert.ok(err.message.length < FIELD.length + 100, err.message);
      }
    }
  });

  it("a caller's context comes first, as given, on every code", () => {
    const ctx = 'SendDeSo: Problem decoding sender public key: ';
    expectKeyError(() => decodePublicKey('', 'mainnet', FIELD, ctx), 'KEY_EMPTY', `${ctx}${FIELD}: expected a Base58Check string, got an empty string`);
    expectKeyError(() => decodePublicKey(mainnetKey.slice(0, -1) + (mainnetKey.at(-1) === 'a' ? 'b' : 'a'), 'mainnet', FIELD, ctx), 'KEY_BAD_CHECKSUM', `${ctx}${FIELD}: invalid Base58Check checksum`);
    assert.throws(() => decodePublicKey(mainnetKey, 'testnet', FIELD, ctx), (e: unknown) => isKeyError(e) && e.code === 'KEY_WRONG_NETWORK' && e.field === FIELD && e.message.startsWith(`${ctx}${FIELD}: expected a testnet public key`));
  });

  it('decodeBase58Check defaults the field name', () => {
    expectKeyError(() => decodeBase58Check(''), 'KEY_EMPTY', 'value: expected a Base58Check string, got an empty string', 'value');
  });

  it('isKeyError recognises only KeyError', () => {
    assert.equal(isKeyError(new KeyError('KEY_EMPTY', 'f', 'x')), true);
    assert.equal(isKeyError(new Error('KEY_EMPTY')), false);
    assert.equal(isKeyError({ code: 'KEY_EMPTY', field: 'f', message: 'x' }), false);
    assert.equal(isKeyError(null), false);
  });

  it('encoders throw RangeError on programmer errors', () => {
    assert.throws(() => encodePublicKey(key.subarray(0, 32), 'mainnet'), {
      name: 'RangeError',
      message: '"key33" expected 33 bytes, got 32',
    });
    assert.throws(() => encodeBase58Check([0xcd, 0x14], key), {
      name: 'RangeError',
      message: '"prefix" expected 3 bytes, got 2',
    });
  });

  it('prefix constants are frozen', () => {
    for (const table of [PUBLIC_KEY_PREFIXES, PRIVATE_KEY_PREFIXES]) {
      assert.ok(Object.isFrozen(table), 'prefix table frozen');
      for (const network of NETWORKS) assert.ok(Object.isFrozen(table[network]), `${network} prefix frozen`);
    }
  });
});
