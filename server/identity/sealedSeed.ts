/**
 * `encryptedSeedHex`: the opaque handle the node gives an app at login and gets back with every
 * identity request (api-spec.md §4.1).
 *
 * The browser frame encrypts the seed under a per-hostname key with an unauthenticated
 * keystream (identity-and-crypto.md §2.4). The node instead seals it under one node secret,
 * shared by all server processes, with authenticated encryption built from the two primitives
 * the WASM core has (AES-128-CTR, HMAC-SHA-256), encrypt-then-MAC:
 *
 *   encKey = HMAC-SHA256(nodeSecret, ENC_LABEL)[0..16]
 *   macKey = HMAC-SHA256(nodeSecret, MAC_LABEL)
 *   ct     = AES-128-CTR(encKey, iv, secret32)            iv: 16 random bytes per seal
 *   ad     = u16be(len P) ‖ P ‖ u16be(len K) ‖ K          P = purpose, K = public key Base58Check (UTF-8)
 *   tag    = HMAC-SHA256(macKey, version ‖ iv ‖ ct ‖ ad ‖ u32be(len ct) ‖ u32be(len ad))
 *   handle = hex(version ‖ iv ‖ ct ‖ tag)                 81 bytes = 162 hex characters
 *
 * The associated data binds a handle to one public key and one purpose, so a handle issued for
 * user A (or for A's messaging randomness) cannot be replayed as user B's seed. The tag is
 * checked, in constant time, before anything is decrypted, and every way of failing gives the
 * same error, so a caller cannot tell a bad length from a bad tag from a wrong key.
 *
 * The frame's legacy scheme is not implemented: its key lives in the browser's storage for each
 * hostname, so a frame-issued handle can never be opened by the node anyway.
 * @module
 */
import { randomFillSync } from 'node:crypto';
import { aes128Ctr, AES128_KEY_BYTES, AES_IV_BYTES } from '../../wasm/aes.js';
import { DIGEST_BYTES, hmacSha256 } from '../../wasm/hash.js';
import { MAX_BASE58CHECK_CHARS } from '../keys/index.js';
import { bytesEqualConstantTime } from './constantTime.js';
import { IdentityError } from './errors.js';
import { checkSeed, SEED_BYTES } from './keys.js';

/** Bytes of the node secret: a full-strength HMAC key, used directly as a PRF key (no extract step). */
export const NODE_SECRET_BYTES = 32;
/** First byte of every handle; a new layout or KDF gets a new number, so old handles fail cleanly. */
export const SEAL_VERSION = 0x01;
/** Bytes of a sealed 32-byte secret: version(1) ‖ iv(16) ‖ ct(32) ‖ tag(32). */
export const SEALED_BYTES = 1 + AES_IV_BYTES + SEED_BYTES + DIGEST_BYTES;

/**
 * What a handle holds. `seed` is the owner (or derived) private key, checked as one;
 * `messaging-root` is a derived-key session's messaging root (keys.ts `messagingRoot`, a hash
 * of the messaging secret, never a seed) behind `encryptedMessagingKeyRandomness` (§1.4).
 */
export type SealPurpose = 'seed' | 'messaging-root';
const PURPOSES: readonly SealPurpose[] = ['seed', 'messaging-root'];

// Domain separation: the node secret may key other things later (e.g. JWT or cookie MACs);
// these labels make sure no other use can produce the same derived keys.
const ENC_LABEL = ascii('social-node/identity/sealed-seed/v1/aes-128-ctr');
const MAC_LABEL = ascii('social-node/identity/sealed-seed/v1/hmac-sha256');

const SEALED_HEX = new RegExp(`^[0-9a-f]{${SEALED_BYTES * 2}}$`);

function ascii(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, 'latin1'));
}

/** The one error every failed open gives: it names no input and no reason. */
function badHandle(): IdentityError {
  return new IdentityError('IDENTITY_BAD_SEED_HANDLE', 'encryptedSeedHex is invalid or was not issued for this key');
}

/** Config mistakes are programmer errors, reported as such (never the secret itself). */
function checkNodeSecret(nodeSecret: unknown): asserts nodeSecret is Uint8Array {
  if (!(nodeSecret instanceof Uint8Array) || nodeSecret.length !== NODE_SECRET_BYTES) {
    const got = nodeSecret instanceof Uint8Array ? `${nodeSecret.length} bytes` : `type=${typeof nodeSecret}`;
    throw new RangeError(`"nodeSecret" expected ${NODE_SECRET_BYTES} bytes, got ${got}`);
  }
}

function checkPurpose(purpose: unknown): asserts purpose is SealPurpose {
  if (!PURPOSES.includes(purpose as SealPurpose)) {
    throw new RangeError(`"purpose" expected one of ${PURPOSES.join(', ')}`);
  }
}

/** A public key string we are willing to bind: non-empty and no longer than any Base58Check key. */
function isBindableKey(publicKeyBase58Check: unknown): publicKeyBase58Check is string {
  return (
    typeof publicKeyBase58Check === 'string' &&
    publicKeyBase58Check.length > 0 &&
    publicKeyBase58Check.length <= MAX_BASE58CHECK_CHARS
  );
}

function associatedData(purpose: SealPurpose, publicKeyBase58Check: string): Uint8Array {
  const p = Buffer.from(purpose, 'utf8');
  const k = Buffer.from(publicKeyBase58Check, 'utf8');
  const ad = Buffer.alloc(2 + p.length + 2 + k.length);
  ad.writeUInt16BE(p.length, 0);
  p.copy(ad, 2);
  ad.writeUInt16BE(k.length, 2 + p.length);
  k.copy(ad, 4 + p.length);
  return new Uint8Array(ad);
}

interface SealKeys {
  encKey: Uint8Array;
  macKey: Uint8Array;
}

/** Derived per call: two HMACs cost about a microsecond, and no derived key outlives the call. */
function deriveKeys(nodeSecret: Uint8Array): SealKeys {
  const enc = hmacSha256(nodeSecret, ENC_LABEL);
  const encKey = enc.slice(0, AES128_KEY_BYTES);
  enc.fill(0);
  return { encKey, macKey: hmacSha256(nodeSecret, MAC_LABEL) };
}

function wipe(keys: SealKeys): void {
  keys.encKey.fill(0);
  keys.macKey.fill(0);
}

/** tag over version ‖ iv ‖ ct (the first 1 + 16 + 32 bytes of `sealed`) ‖ ad ‖ lengths. */
function computeTag(macKey: Uint8Array, head: Uint8Array, ad: Uint8Array): Uint8Array {
  const ctLen = head.length - 1 - AES_IV_BYTES;
  const msg = new Uint8Array(head.length + ad.length + 8);
  msg.set(head, 0);
  msg.set(ad, head.length);
  const view = new DataView(msg.buffer);
  // Lengths at the end make the split between ct and ad unambiguous whatever their sizes.
  view.setUint32(head.length + ad.length, ctLen);
  view.setUint32(head.length + ad.length + 4, ad.length);
  return hmacSha256(macKey, msg);
}

/**
 * Seals a 32-byte secret for one public key and purpose. Two seals of the same secret differ
 * (fresh random IV).
 * @throws {IdentityError} IDENTITY_BAD_SEED when purpose is `seed` and `seed32` is not a valid
 *   private key, or when `seed32` is not 32 bytes
 * @throws {RangeError} for a bad node secret, purpose or public key string (caller bugs)
 */
export function sealSeed(
  nodeSecret: Uint8Array,
  seed32: Uint8Array,
  publicKeyBase58Check: string,
  purpose: SealPurpose,
): string {
  checkNodeSecret(nodeSecret);
  checkPurpose(purpose);
  if (purpose === 'seed') {
    checkSeed(seed32);
  } else if (!(seed32 instanceof Uint8Array) || seed32.length !== SEED_BYTES) {
    throw new IdentityError('IDENTITY_BAD_SEED', `"seed32" expected ${SEED_BYTES} bytes`);
  }
  if (!isBindableKey(publicKeyBase58Check)) {
    throw new RangeError(`"publicKeyBase58Check" expected 1..${MAX_BASE58CHECK_CHARS} characters`);
  }
  const keys = deriveKeys(nodeSecret);
  try {
    const sealed = new Uint8Array(SEALED_BYTES);
    sealed[0] = SEAL_VERSION;
    const iv = sealed.subarray(1, 1 + AES_IV_BYTES);
    randomFillSync(iv);
    sealed.set(aes128Ctr(keys.encKey, iv, seed32), 1 + AES_IV_BYTES);
    const head = sealed.subarray(0, SEALED_BYTES - DIGEST_BYTES);
    sealed.set(computeTag(keys.macKey, head, associatedData(purpose, publicKeyBase58Check)), head.length);
    return Buffer.from(sealed).toString('hex');
  } finally {
    wipe(keys);
  }
}

/**
 * Opens a handle made by `sealSeed` with the same node secret, public key and purpose.
 * `sealedHex` and `publicKeyBase58Check` are request values, so any type may arrive.
 * @returns the 32-byte secret (a fresh array the caller may wipe)
 * @throws {IdentityError} IDENTITY_BAD_SEED_HANDLE for every bad, tampered or mismatched handle
 * @throws {RangeError} for a bad node secret or purpose (caller bugs)
 */
export function openSeed(
  nodeSecret: Uint8Array,
  sealedHex: string,
  publicKeyBase58Check: string,
  purpose: SealPurpose,
): Uint8Array {
  checkNodeSecret(nodeSecret);
  checkPurpose(purpose);
  const input: unknown = sealedHex;
  if (typeof input !== 'string' || !SEALED_HEX.test(input) || !isBindableKey(publicKeyBase58Check)) {
    throw badHandle();
  }
  const sealed = new Uint8Array(Buffer.from(input, 'hex'));
  // A wrong version is reported like a wrong tag: it is still only "not a handle we issued".
  if (sealed[0] !== SEAL_VERSION) throw badHandle();
  const head = sealed.subarray(0, SEALED_BYTES - DIGEST_BYTES);
  const tag = sealed.subarray(head.length);
  const keys = deriveKeys(nodeSecret);
  try {
    const expected = computeTag(keys.macKey, head, associatedData(purpose, publicKeyBase58Check));
    if (!bytesEqualConstantTime(expected, tag)) throw badHandle();
    const iv = sealed.subarray(1, 1 + AES_IV_BYTES);
    return aes128Ctr(keys.encKey, iv, sealed.subarray(1 + AES_IV_BYTES, head.length));
  } finally {
    wipe(keys);
  }
}
