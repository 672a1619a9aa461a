/**
 * BIP39 mnemonic import and creation (identity-and-crypto.md §1.1).
 *
 * The DeSo identity frame derives each account's `seedHex` from the user's BIP39 mnemonic: the
 * seed hex is the private key of the BIP32 node m/44'/0'/<accountNumber>'/0/0 of the BIP39 seed,
 * with the account's "extraText" as the BIP39 passphrase; account 0 is the root account. Doing
 * the same here lets a user import the phrase they already hold and get the same keys (and
 * public keys) as in the frame.
 *
 * Only the frame's standard derivation is supported. The frame's legacy `nonStandard` variant
 * (the forked hdkey's buggy padding of short private keys) is not.
 *
 * BIP39 (wordlist, checksum, PBKDF2) comes from `@scure/bip39`; the BIP32 private derivation is
 * implemented here, on HMAC-SHA512 from `@noble/hashes` and the WASM secp256k1 core.
 * @module
 */
import { pbkdf2 } from 'node:crypto';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { generateMnemonic as bip39GenerateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { IdentityError } from './errors.js';

/** The derivation path of account `{account}` (documentation only; see {@link mnemonicToPrivateKey}). */
export const DESO_DERIVATION_PATH = "m/44'/0'/{account}'/0/0";
/** The largest account number: the account is a hardened index, so 0..2^31-1. */
export const MAX_ACCOUNT_NUMBER = 2 ** 31 - 1;

/** BIP32 hardened-index offset. */
const HARDENED = 0x80000000;
/** secp256k1 group order n. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** HMAC key of the BIP32 master node. */
const MASTER_KEY = new TextEncoder().encode('Bitcoin seed');
const STRENGTHS: readonly number[] = [128, 160, 192, 224, 256];
/** A UTF-16 code unit of an unpaired surrogate (not encodable as UTF-8, so no BIP39 salt). */
const LONE_SURROGATE = /\p{Cs}/u;

const BAD_MNEMONIC_MESSAGE =
  '"mnemonic" is not a valid BIP39 English mnemonic (12, 15, 18, 21 or 24 words with a valid checksum)';

function badMnemonic(message: string): IdentityError {
  return new IdentityError('IDENTITY_BAD_MNEMONIC', message);
}

/**
 * The canonical form of a typed mnemonic: NFKD, lower case, words separated by single spaces,
 * no leading or trailing whitespace. Does not check the words.
 * @throws {IdentityError} IDENTITY_BAD_MNEMONIC for a non-string
 */
export function normalizeMnemonic(input: unknown): string {
  if (typeof input !== 'string') throw badMnemonic(`"mnemonic" expected a string, got type=${typeof input}`);
  return input.normalize('NFKD').toLowerCase().trim().replace(/\s+/g, ' ');
}

/** True for a string that normalizes to a valid English BIP39 mnemonic (wordlist and checksum). */
export function isValidMnemonic(input: unknown): boolean {
  if (typeof input !== 'string') return false;
  return validateMnemonic(normalizeMnemonic(input), wordlist);
}

/**
 * A new random English mnemonic: 128 bits → 12 words, 160 → 15, 192 → 18, 224 → 21, 256 → 24.
 * @throws {IdentityError} IDENTITY_BAD_MNEMONIC for any other strength
 */
export function generateMnemonic(strengthBits: 128 | 160 | 192 | 224 | 256 = 128): string {
  if (!STRENGTHS.includes(strengthBits)) {
    throw badMnemonic('"strengthBits" expected one of 128, 160, 192, 224, 256');
  }
  return bip39GenerateMnemonic(wordlist, strengthBits);
}

export interface MnemonicOpts {
  /** The BIP39 passphrase (the frame's "extraText"). Default ''. */
  passphrase?: string;
  /** The account number, 0..{@link MAX_ACCOUNT_NUMBER}. Default 0 (the root account). */
  accountNumber?: number;
}

/**
 * The 32-byte private key (= DeSo seed) of account `accountNumber` of a mnemonic, at
 * m/44'/0'/accountNumber'/0/0 of the BIP39 seed of (mnemonic, passphrase). The mnemonic is
 * normalized first ({@link normalizeMnemonic}); the passphrase is used as given (BIP39 NFKD only).
 * @throws {IdentityError} IDENTITY_BAD_MNEMONIC for an invalid mnemonic, passphrase or account number
 */
export function mnemonicToPrivateKey(mnemonic: string, opts: MnemonicOpts = {}): Uint8Array {
  const normalized = checkMnemonicInput(mnemonic, opts);
  const seed = mnemonicToSeedSync(normalized, opts?.passphrase ?? '');
  try {
    return derivePath(seed, [44 + HARDENED, 0 + HARDENED, (opts?.accountNumber ?? 0) + HARDENED, 0, 0]);
  } finally {
    seed.fill(0);
  }
}

/**
 * `mnemonicToPrivateKey` with the PBKDF2 (2048 rounds of HMAC-SHA512, milliseconds of CPU) on
 * libuv's thread pool instead of the event loop: the form the request path uses. Same result,
 * same errors.
 */
export async function mnemonicToPrivateKeyAsync(mnemonic: string, opts: MnemonicOpts = {}): Promise<Uint8Array> {
  const normalized = checkMnemonicInput(mnemonic, opts);
  // BIP39: salt = "mnemonic" ‖ NFKD(passphrase), password = NFKD(mnemonic), 2048 rounds, 64 bytes.
  const salt = Buffer.from(`mnemonic${(opts?.passphrase ?? '').normalize('NFKD')}`, 'utf8');
  const seed = await new Promise<Uint8Array>((resolve, reject) =>
    pbkdf2(Buffer.from(normalized, 'utf8'), salt, 2048, 64, 'sha512', (err, key) => (err ? reject(err) : resolve(new Uint8Array(key)))),
  );
  try {
    return derivePath(seed, [44 + HARDENED, 0 + HARDENED, (opts?.accountNumber ?? 0) + HARDENED, 0, 0]);
  } finally {
    seed.fill(0);
  }
}

/** Checks the options and mnemonic; returns the normalized mnemonic. */
function checkMnemonicInput(mnemonic: string, opts: MnemonicOpts): string {
  const { passphrase = '', accountNumber = 0 } = opts ?? {};
  if (typeof passphrase !== 'string') throw badMnemonic(`"passphrase" expected a string, got type=${typeof passphrase}`);
  if (LONE_SURROGATE.test(passphrase)) throw badMnemonic('"passphrase" expected well-formed Unicode (no unpaired surrogates)');
  if (typeof accountNumber !== 'number' || !Number.isInteger(accountNumber) || accountNumber < 0 || accountNumber > MAX_ACCOUNT_NUMBER) {
    throw badMnemonic(`"accountNumber" expected an integer 0..${MAX_ACCOUNT_NUMBER}`);
  }
  const normalized = normalizeMnemonic(mnemonic);
  // Never quote the input: it is the user's secret.
  if (!validateMnemonic(normalized, wordlist)) throw badMnemonic(BAD_MNEMONIC_MESSAGE);
  return normalized;
}

/**
 * BIP32 private derivation (CKDpriv) from a BIP39 seed along `path`, a list of child indices
 * (hardened ones with 0x80000000 added). Returns the private key of the final node.
 * @throws {TypeError|RangeError} for a seed that is not 16..64 bytes or an index outside 0..2^32-1
 * @throws {IdentityError} IDENTITY_BAD_MNEMONIC in the ~2^-127 case where a node has no valid key
 */
export function derivePath(seed: Uint8Array, path: readonly number[]): Uint8Array {
  if (!(seed instanceof Uint8Array)) throw new TypeError('"seed" expected Uint8Array');
  if (seed.length < 16 || seed.length > 64) throw new RangeError(`"seed" expected 16..64 bytes, got ${seed.length}`);
  for (const index of path) {
    if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) {
      throw new RangeError('"path" expected integer indices 0..2^32-1');
    }
  }

  const master = hmac(sha512, MASTER_KEY, seed);
  let key: Uint8Array = master.slice(0, 32);
  let chainCode: Uint8Array = master.slice(32);
  master.fill(0);
  const masterInt = bytesToBigInt(key);
  if (masterInt === 0n || masterInt >= N) {
    key.fill(0);
    chainCode.fill(0);
    throw badMnemonic('BIP32 master key is invalid for this seed; use another mnemonic or passphrase');
  }

  const data = new Uint8Array(37);
  try {
    for (const index of path) {
      if (index >= HARDENED) {
        data[0] = 0;
        data.set(key, 1);
      } else {
        data.set(getPublicKey(key, true), 0);
      }
      data[33] = index >>> 24;
      data[34] = (index >>> 16) & 0xff;
      data[35] = (index >>> 8) & 0xff;
      data[36] = index & 0xff;
      const I = hmac(sha512, chainCode, data);
      data.fill(0);
      // BigInt for the mod-n addition: this runs once per login/import, not on a hot path.
      // BigInts cannot be wiped; the byte arrays are.
      const il = bytesToBigInt(I.subarray(0, 32));
      const child = (il + bytesToBigInt(key)) % N;
      key.fill(0);
      chainCode.fill(0);
      if (il >= N || child === 0n) {
        I.fill(0);
        throw badMnemonic(`BIP32 child key ${index} is invalid for this seed; use another mnemonic, passphrase or account`);
      }
      key = bigIntTo32Bytes(child);
      chainCode = I.slice(32);
      I.fill(0);
    }
    return key;
  } catch (e) {
    key.fill(0);
    throw e;
  } finally {
    chainCode.fill(0);
    data.fill(0);
  }
}

function bytesToBigInt(bytes: Uint8Array): bigint {
  let x = 0n;
  for (const b of bytes) x = (x << 8n) | BigInt(b);
  return x;
}

function bigIntTo32Bytes(x: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}
