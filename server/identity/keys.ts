/**
 * Seeds and the keys derived from them (identity-and-crypto.md §1.1, §1.4).
 *
 * A DeSo "seed hex" is the 32-byte secp256k1 private scalar itself, written as 64 hex
 * characters; it is not a BIP39 seed. Mnemonic import (BIP39 + BIP32 m/44'/0'/n'/0/0) is not
 * part of this module.
 * @module
 */
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey, isValidPrivateKey } from '../../wasm/secp256k1.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { IdentityError } from './errors.js';

/** Bytes of a seed (= private key). */
export const SEED_BYTES = 32;
/** The key name of the default messaging key (§1.4). */
export const DEFAULT_MESSAGING_KEY_NAME = 'default-key';

/** 64 hex characters, either case: the frame stores imported seeds as the user typed them. */
const SEED_HEX = /^[0-9a-fA-F]{64}$/;

export interface SeedKeys {
  privateKey: Uint8Array;
  /** Compressed (02/03 ‖ X): the form DeSo uses in addresses and transactions (§1.2). */
  publicKey33: Uint8Array;
  publicKeyBase58Check: string;
}

export interface MessagingKey {
  keyName: string;
  privateKey: Uint8Array;
  publicKey33: Uint8Array;
}

function badSeed(detail: string): IdentityError {
  return new IdentityError('IDENTITY_BAD_SEED', `"seed" ${detail}`);
}

/** True for 32 bytes encoding 1 <= d < n. Constant time in the value (the check runs in the WASM core). */
export function isValidSeed(seed: unknown): seed is Uint8Array {
  return seed instanceof Uint8Array && seed.length === SEED_BYTES && isValidPrivateKey(seed);
}

/** @throws {IdentityError} IDENTITY_BAD_SEED unless `seed` is 32 bytes with 1 <= d < n */
export function checkSeed(seed: unknown): asserts seed is Uint8Array {
  if (!(seed instanceof Uint8Array)) throw badSeed('expected Uint8Array');
  if (seed.length !== SEED_BYTES) throw badSeed(`expected ${SEED_BYTES} bytes, got ${seed.length}`);
  // The value is secret: say only that it is out of range, never what it was.
  if (!isValidPrivateKey(seed)) throw badSeed('expected a secp256k1 private key (1 <= d < n)');
}

/**
 * Decodes and checks a 64-character seed hex. Leading zero bytes must be written out (§1.1):
 * "1" is not accepted for private key 1.
 * @throws {IdentityError} IDENTITY_BAD_SEED
 */
export function parseSeedHex(seedHex: unknown): Uint8Array {
  if (typeof seedHex !== 'string' || !SEED_HEX.test(seedHex)) {
    const got = typeof seedHex === 'string' ? `${seedHex.length} characters` : `type=${typeof seedHex}`;
    throw badSeed(`expected 64 hex characters, got ${got}`);
  }
  const seed = new Uint8Array(Buffer.from(seedHex, 'hex'));
  checkSeed(seed);
  return seed;
}

/** The canonical (lower-case, 64-character) seed hex of a seed. */
export function seedToHex(seed: Uint8Array): string {
  checkSeed(seed);
  return Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString('hex');
}

/** The key pair and address of a seed. `privateKey` is a copy the caller may wipe. */
export function seedToKeys(seed: Uint8Array, network: Network): SeedKeys {
  checkSeed(seed);
  const publicKey33 = getPublicKey(seed, true);
  return { privateKey: seed.slice(), publicKey33, publicKeyBase58Check: encodePublicKey(publicKey33, network) };
}

/** `seedToKeys(parseSeedHex(seedHex), network)`. @throws {IdentityError} IDENTITY_BAD_SEED */
export function seedHexToKeys(seedHex: string, network: Network): SeedKeys {
  const seed = parseSeedHex(seedHex);
  const keys = seedToKeys(seed, network);
  seed.fill(0);
  return keys;
}

/**
 * The deterministic messaging key of §1.4, as the frame derives it from the owner seed:
 * `d = sha256d( sha256d(seed) ‖ sha256d(UTF-8(keyName)) )`. With the default key name this is
 * also the SDK's default-key messaging key. (For named group keys the SDK derives from the
 * default messaging key instead of the seed; pass that key as `seed` to get the SDK's result.)
 * @throws {IdentityError} IDENTITY_BAD_SEED for a bad seed, or in the ~2^-128 case where the
 *   digest is not a valid scalar (neither reference library reduces it, so we refuse as well)
 */
export function messagingKeyForSeed(seed: Uint8Array, keyName: string = DEFAULT_MESSAGING_KEY_NAME): MessagingKey {
  checkSeed(seed);
  const privateKey = messagingPrivateKey(seed, keyName);
  return { keyName, privateKey, publicKey33: getPublicKey(privateKey, true) };
}

/**
 * The private half of `messagingKeyForSeed` alone: two hashes, no curve arithmetic, so it is
 * cheap enough for the request path. `secret` is any 32-byte secret (a seed, or an imported
 * messaging-key randomness).
 * @throws {IdentityError} IDENTITY_BAD_SEED as messagingKeyForSeed
 */
export function messagingPrivateKey(secret: Uint8Array, keyName: string = DEFAULT_MESSAGING_KEY_NAME): Uint8Array {
  if (!(secret instanceof Uint8Array) || secret.length !== SEED_BYTES) throw badSeed(`expected ${SEED_BYTES} bytes`);
  const root = messagingRoot(secret);
  try {
    return messagingPrivateKeyFromRoot(root, keyName);
  } finally {
    root.fill(0);
  }
}

/**
 * `sha256d(secret)`: the first half of every messaging-key derivation (§1.4). It gives every
 * messaging key of `secret` but, being a one-way hash, not `secret` itself: a derived-key
 * session holds this instead of the owner seed, so what it holds can never sign for the owner.
 */
export function messagingRoot(secret: Uint8Array): Uint8Array {
  if (!(secret instanceof Uint8Array) || secret.length !== SEED_BYTES) throw badSeed(`expected ${SEED_BYTES} bytes`);
  return sha256d(secret);
}

/**
 * `messagingPrivateKey` from a messaging root (`messagingRoot(secret)`): the same key.
 * @throws {IdentityError} IDENTITY_BAD_SEED as messagingKeyForSeed
 */
export function messagingPrivateKeyFromRoot(root: Uint8Array, keyName: string = DEFAULT_MESSAGING_KEY_NAME): Uint8Array {
  if (!(root instanceof Uint8Array) || root.length !== SEED_BYTES) throw badSeed(`expected a ${SEED_BYTES}-byte messaging root`);
  if (typeof keyName !== 'string') {
    throw new TypeError(`"keyName" expected string, got type=${typeof keyName}`);
  }
  const input = new Uint8Array(64);
  input.set(root, 0);
  input.set(sha256d(new TextEncoder().encode(keyName)), 32);
  const privateKey = sha256d(input);
  // The root is as secret as every messaging key it determines.
  input.fill(0);
  if (!isValidPrivateKey(privateKey)) {
    throw badSeed(`gives no valid messaging key for this key name`);
  }
  return privateKey;
}
