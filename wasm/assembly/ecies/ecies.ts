/**
 * Message ECIES of the DeSo identity service and SDK (identity-and-crypto.md §3.1):
 *   E = e·G (65 bytes, uncompressed) ‖ IV (16) ‖ AES-128-CTR(encKey, IV, m) ‖ HMAC-SHA256(macKey, IV ‖ C)
 * with Z = x(e·P) (32 bytes), K = SHA256(BE32(1) ‖ Z), encKey = K[0..16), macKey = SHA256(K[16..32)).
 * One call per message does the ECDH, both hashes, the MAC and the cipher, so a batch of
 * messages crosses the WASM boundary once.
 *
 * §3.6 quirk: the identity frame serialises Z at minimal length, so when Z starts with zero
 * bytes it hashes fewer than 32. Decryption tries the SDK's 32-byte form first and, only if the
 * MAC fails and Z has leading zeros, the frame's form, so both peers' ciphertexts decrypt.
 * @module
 */
import { aes128CtrInto } from '../cipher/aes';
import { hmacSha256Into } from '../hash/hmac';
import { sha256Into } from '../hash/sha256';
import { ecdh } from '../secp256k1/ecdh';
import { ecmultGen } from '../secp256k1/ecmult';
import { geParseVar, geSerialize } from '../secp256k1/keys';
import { GE, GEJ, gejToGe } from '../secp256k1/point';
import { privateKeyValid } from '../secp256k1/ecdsa';
import { SC, scFromBytes } from '../secp256k1/scalar';

/** Bytes a ciphertext adds to its plaintext: E(65) + IV(16) + tag(32). */
export const ECIES_OVERHEAD: i32 = 113;

export const ECIES_ERR_SHORT: i32 = -1;
export const ECIES_ERR_EPHEMERAL_KEY: i32 = -2;
export const ECIES_ERR_MAC: i32 = -3;
export const ECIES_ERR_PRIVATE_KEY: i32 = -4;

// Scratch: KDF input (4 + 32), K (32), macKey (32), expected tag (32), Z (32), point, scalar.
const KDF_IN: usize = memory.data(36, 8);
const K: usize = memory.data(32, 8);
const MAC_KEY: usize = memory.data(32, 8);
const TAG: usize = memory.data(32, 8);
const Z: usize = memory.data(32, 8);
const P: usize = memory.data(<i32>GE, 16);
const PJ: usize = memory.data(<i32>GEJ, 16);
const E: usize = memory.data(<i32>SC, 8);

function wipe(): void {
  memory.fill(KDF_IN, 0, 36);
  memory.fill(K, 0, 32);
  memory.fill(MAC_KEY, 0, 32);
  memory.fill(TAG, 0, 32);
  memory.fill(Z, 0, 32);
  memory.fill(PJ, 0, GEJ);
  memory.fill(E, 0, SC);
}

/** Leading zero bytes of Z (the frame drops them before hashing). */
function leadingZeros(z: usize): i32 {
  let n = 0;
  while (n < 32 && load<u8>(z + n) == 0) n++;
  return n;
}

/** K = SHA256(BE32(1) ‖ Z[skip..32)); encKey = K[0..16), macKey = SHA256(K[16..32)). */
function deriveKeys(z: usize, skip: i32): void {
  store<u32>(KDF_IN, 0x01000000); // BE32(1)
  memory.copy(KDF_IN + 4, z + skip, 32 - skip);
  sha256Into(KDF_IN, 36 - skip, K);
  sha256Into(K + 16, 16, MAC_KEY);
}

/** 1 when the 32 bytes at a and b are equal; constant time. */
function equal32(a: usize, b: usize): bool {
  let diff: u64 = 0;
  for (let i: usize = 0; i < 32; i += 8) diff |= load<u64>(a + i) ^ load<u64>(b + i);
  return diff == 0;
}

/** Whether the tag of ciphertext body (IV ‖ C at ivc, ivcLen bytes) under the current keys is tag. */
function macMatches(ivc: usize, ivcLen: i32, tag: usize): bool {
  hmacSha256Into(MAC_KEY, 32, ivc, ivcLen, TAG);
  return equal32(TAG, tag);
}

/** K of the shared-secret (V2) scheme: SHA256(BE32(1) ‖ x(d·Q)), in both Z forms. */
export function sharedPrivateKey(outSdk: usize, outFrame: usize, priv: usize, q: usize): i32 {
  if (!ecdh(Z, priv, q)) {
    wipe();
    return -1;
  }
  const zeros = leadingZeros(Z);
  deriveKeys(Z, 0);
  memory.copy(outSdk, K, 32);
  deriveKeys(Z, zeros);
  memory.copy(outFrame, K, 32);
  wipe();
  return zeros > 0 ? 1 : 0;
}

/**
 * Decrypts ct[0..len) with priv into out (len − 113 bytes). Returns the plaintext length or a
 * negative ECIES_ERR_*. Nothing is written to out unless the MAC verified.
 */
export function decryptOne(priv: usize, ct: usize, len: i32, out: usize): i32 {
  if (len < ECIES_OVERHEAD) return ECIES_ERR_SHORT;
  if (!geParseVar(P, ct, 65)) return ECIES_ERR_EPHEMERAL_KEY;
  if (!ecdh(Z, priv, P)) {
    wipe();
    return ECIES_ERR_PRIVATE_KEY;
  }
  const iv = ct + 65;
  const ivcLen = len - 65 - 32;
  const tag = ct + len - 32;
  deriveKeys(Z, 0);
  let ok = macMatches(iv, ivcLen, tag);
  if (!ok) {
    // MAC failure is public; only then is the frame's shorter-Z derivation tried.
    const zeros = leadingZeros(Z);
    if (zeros > 0) {
      deriveKeys(Z, zeros);
      ok = macMatches(iv, ivcLen, tag);
    }
  }
  let result = ECIES_ERR_MAC;
  if (ok) {
    const ptLen = len - ECIES_OVERHEAD;
    aes128CtrInto(K, iv, iv + 16, ptLen, out);
    result = ptLen;
  }
  wipe();
  return result;
}

/**
 * Encrypts pt[0..ptLen) to public key q with ephemeral private key eph and IV iv, writing
 * 113 + ptLen bytes to out. Returns that length, or 0 for an invalid ephemeral key.
 */
export function encryptOne(q: usize, eph: usize, iv: usize, pt: usize, ptLen: i32, out: usize): i32 {
  if (!privateKeyValid(eph)) return 0;
  scFromBytes(E, eph);
  ecmultGen(PJ, E);
  gejToGe(P, PJ);
  geSerialize(out, P, false);
  if (!ecdh(Z, eph, q)) {
    wipe();
    return 0;
  }
  deriveKeys(Z, 0);
  memory.copy(out + 65, iv, 16);
  aes128CtrInto(K, iv, pt, ptLen, out + 81);
  hmacSha256Into(MAC_KEY, 32, out + 65, 16 + ptLen, out + 81 + ptLen);
  wipe();
  return ECIES_OVERHEAD + ptLen;
}
