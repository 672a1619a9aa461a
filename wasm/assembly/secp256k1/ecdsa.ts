/**
 * ECDSA over secp256k1 (SEC 1 §4.1) on 32-byte message hashes, signatures as 64-byte
 * compact r ‖ s (big-endian). DER is handled by the JS wrapper.
 *
 * - sign: RFC 6979 §3.2 deterministic nonce with HMAC-SHA-256 (optionally with the §3.6
 *   additional data k′, as noble's `extraEntropy` and so the deso-protocol SDK use it), low-S
 *   normalization, recovery id. Constant time in the private key and the nonce: k·G by
 *   ecmultGen, k⁻¹ by constant-time safegcd, scalar products without branches. Branches
 *   depend only on public results (r = 0, s = 0, s > n/2, the recovery id).
 * - verify: variable time (public inputs); optional low-S enforcement.
 * - recover: the public key from (hash, r, s, recid), as DeSo-DER derived-key signatures need.
 * @module
 */
import { hmacSha256Absorb, hmacSha256Finish, hmacSha256Key, HMAC_CTX_BYTES } from '../hash/hmac';
import { FE, feAdd, feEqual, feFromWords, feIsOddNormalized, feMul, feNormalize, feSqr, feToBytes, wipeFieldScratch } from './field';
import { ecmultDoubleVar, ecmultGen } from './ecmult';
import { geSetXoVar } from './keys';
import { modInv, modInvVar, MOD_N } from './modinv';
import { GE, GEJ, gejIsInf, gejToGe } from './point';
import { SC, scAdd, scFromBytes, scIsHigh, scIsZero, scMul, scNeg, scOrderWords, scToBytes, wipeScalarScratch } from './scalar';

const SR: usize = memory.data(<i32>SC, 8);
const SS: usize = memory.data(<i32>SC, 8);
const SE: usize = memory.data(<i32>SC, 8);
const SW: usize = memory.data(<i32>SC, 8);
const U1: usize = memory.data(<i32>SC, 8);
const U2: usize = memory.data(<i32>SC, 8);
const RJ: usize = memory.data(<i32>GEJ, 16);
const RA: usize = memory.data(<i32>GE, 16);
const FT: usize = memory.data(<i32>(FE * 3), 8);
const XB: usize = memory.data(32, 8);

// Secret scratch for signing; wiped before returning.
const SD: usize = memory.data(<i32>SC, 8);
const SK: usize = memory.data(<i32>SC, 8);
const SKI: usize = memory.data(<i32>SC, 8);
const ST: usize = memory.data(<i32>SC, 8);
const DRBG_K: usize = memory.data(32, 8);
const DRBG_V: usize = memory.data(32, 8);
const DRBG_X: usize = memory.data(32, 8);
const DRBG_H: usize = memory.data(32, 8);
const HMAC_CTX: usize = memory.data(HMAC_CTX_BYTES, 16);
const KEYED_CTX: usize = memory.data(HMAC_CTX_BYTES, 16);
const BYTE: usize = memory.data(8, 8);

/** p − n: r + n is a valid x coordinate only when r < p − n (SEC 1 §4.1.4 step 1.1). */
// prettier-ignore
const P_MINUS_N_WORDS: StaticArray<u32> = [0x2FC9BAEE, 0x402DA172, 0x50B75FC4, 0x45512319, 0x1, 0, 0, 0];

/** 1 if a < b as eight-word little-endian numbers (variable time). */
function wordsLessVar(a: usize, b: usize): bool {
  for (let i: isize = 7; i >= 0; i--) {
    const x = load<u32>(a + (<usize>i << 2)), y = load<u32>(b + (<usize>i << 2));
    if (x != y) return x < y;
  }
  return false;
}

/** Parses r ‖ s at sig into SR, SS; false unless both are in [1, n). */
function parseRS(sig: usize): bool {
  if (scFromBytes(SR, sig) || scFromBytes(SS, sig + 32)) return false;
  return !scIsZero(SR) && !scIsZero(SS);
}

/**
 * Verifies the compact signature at sig over the 32-byte hash for the affine public key q.
 * lowS: reject s > n/2 (BIP 62 / DeSo's RuleErrorTxnSigHasHighS).
 */
export function ecdsaVerifyVar(hash: usize, sig: usize, q: usize, lowS: bool): bool {
  if (!parseRS(sig)) return false;
  if (lowS && scIsHigh(SS)) return false;
  scFromBytes(SE, hash); // e = hash mod n
  modInvVar(SW, SS, MOD_N);
  scMul(U1, SE, SW);
  scMul(U2, SR, SW);
  ecmultDoubleVar(RJ, U1, q, U2);
  if (gejIsInf(RJ)) return false;
  // x(R) mod n = r  ⇔  X = r·Z² or (r < p − n and X = (r + n)·Z²), with no inversion.
  const rf = FT, z2 = FT + FE, t = FT + 2 * FE;
  feFromWords(rf, SR);
  feSqr(z2, RJ + 2 * FE);
  feMul(t, rf, z2);
  if (feEqual(RJ, t)) return true;
  if (!wordsLessVar(SR, changetype<usize>(P_MINUS_N_WORDS))) return false;
  feFromWords(t, scOrderWords());
  feAdd(rf, rf, t);
  feMul(t, rf, z2);
  return feEqual(RJ, t) != 0;
}

/**
 * Recovers the affine public key into out from (hash, r ‖ s, recid) (SEC 1 §4.1.6):
 * R = (r + (recid & 2 ? n : 0), parity recid & 1), Q = r⁻¹·(s·R − e·G).
 */
export function ecdsaRecoverVar(out: usize, hash: usize, sig: usize, recid: i32): bool {
  if (recid < 0 || recid > 3 || !parseRS(sig)) return false;
  // x = r or r + n (must stay below p).
  memory.copy(XB, SR, 32);
  if (recid & 2) {
    if (!wordsLessVar(SR, changetype<usize>(P_MINUS_N_WORDS))) return false;
    let carry: u64 = 0;
    const nw = scOrderWords();
    for (let i: usize = 0; i < 32; i += 4) {
      const v = (load<u32>(SR + i) as u64) + (load<u32>(nw + i) as u64) + carry;
      store<u32>(XB + i, v as u32);
      carry = v >> 32;
    }
  }
  // geSetXoVar takes big-endian bytes.
  const xbe = FT;
  for (let i: usize = 0; i < 8; i++) store<u32>(xbe + 28 - (i << 2), bswap<u32>(load<u32>(XB + (i << 2))));
  if (!geSetXoVar(RA, xbe, <u32>(recid & 1))) return false;
  scFromBytes(SE, hash);
  modInvVar(SW, SR, MOD_N);
  scMul(U1, SE, SW);
  scNeg(U1, U1); //      −e/r
  scMul(U2, SS, SW); //  s/r
  ecmultDoubleVar(RJ, U1, RA, U2);
  if (gejIsInf(RJ)) return false;
  gejToGe(out, RJ);
  return true;
}

/**
 * Keys KEYED_CTX with the current K. The HMAC-DRBG computes several HMACs under one K
 * (steps e, g and each h); keying once and copying the keyed context saves the two
 * key-block compressions per reuse (4 of ≈ 28 compressions in a signature).
 */
function drbgRekey(): void {
  hmacSha256Key(KEYED_CTX, DRBG_K, 32);
}

/** One HMAC-SHA-256 under the keyed K of the given parts (absent parts have length 0). */
function drbgHmac(dst: usize, a: usize, aLen: i32, b: usize, bLen: i32, c: usize, cLen: i32, d: usize, dLen: i32, e: usize, eLen: i32): void {
  memory.copy(HMAC_CTX, KEYED_CTX, HMAC_CTX_BYTES);
  hmacSha256Absorb(HMAC_CTX, a, aLen);
  if (bLen) hmacSha256Absorb(HMAC_CTX, b, bLen);
  if (cLen) hmacSha256Absorb(HMAC_CTX, c, cLen);
  if (dLen) hmacSha256Absorb(HMAC_CTX, d, dLen);
  if (eLen) hmacSha256Absorb(HMAC_CTX, e, eLen);
  hmacSha256Finish(HMAC_CTX, dst);
}

function wipeSign(): void {
  memory.fill(SD, 0, SC);
  memory.fill(SK, 0, SC);
  memory.fill(SKI, 0, SC);
  memory.fill(ST, 0, SC);
  memory.fill(DRBG_K, 0, 32);
  memory.fill(DRBG_V, 0, 32);
  memory.fill(DRBG_X, 0, 32);
  memory.fill(KEYED_CTX, 0, HMAC_CTX_BYTES);
  memory.fill(HMAC_CTX, 0, HMAC_CTX_BYTES);
  memory.fill(RA, 0, GE);
  memory.fill(RJ, 0, GEJ);
  memory.fill(SS, 0, SC);
  wipeFieldScratch();
  wipeScalarScratch();
}

/**
 * Signs the 32-byte hash with the private key at priv (big-endian, must be in [1, n)).
 * Writes r ‖ s (low-S) to out[0..64) and the recovery id to out[64]. `extra`/`extraLen` is
 * RFC 6979 §3.6 additional data (extraLen 0 for plain RFC 6979). Returns false for an
 * invalid private key.
 */
export function ecdsaSign(out: usize, hash: usize, priv: usize, extra: usize, extraLen: i32): bool {
  const overflow = scFromBytes(SD, priv);
  if ((overflow | scIsZero(SD)) != 0) {
    wipeSign();
    return false;
  }
  // RFC 6979 §3.2: x = int2octets(d), h1 = bits2octets(hash) = (hash mod n) as 32 bytes.
  scToBytes(DRBG_X, SD);
  scFromBytes(SE, hash);
  scToBytes(DRBG_H, SE);
  memory.fill(DRBG_V, 0x01, 32); // b
  memory.fill(DRBG_K, 0x00, 32); // c
  store<u8>(BYTE, 0x00);
  drbgRekey();
  drbgHmac(DRBG_K, DRBG_V, 32, BYTE, 1, DRBG_X, 32, DRBG_H, 32, extra, extraLen); // d
  drbgRekey();
  drbgHmac(DRBG_V, DRBG_V, 32, 0, 0, 0, 0, 0, 0, 0, 0); //                           e
  store<u8>(BYTE, 0x01);
  drbgHmac(DRBG_K, DRBG_V, 32, BYTE, 1, DRBG_X, 32, DRBG_H, 32, extra, extraLen); // f
  drbgRekey();
  drbgHmac(DRBG_V, DRBG_V, 32, 0, 0, 0, 0, 0, 0, 0, 0); //                           g
  for (;;) {
    // h: T = V (qlen = hlen = 256, one block), k = bits2int(T).
    drbgHmac(DRBG_V, DRBG_V, 32, 0, 0, 0, 0, 0, 0, 0, 0);
    const kOverflow = scFromBytes(SK, DRBG_V);
    if (!(kOverflow | scIsZero(SK)) && signWithNonce(out)) break;
    store<u8>(BYTE, 0x00);
    drbgHmac(DRBG_K, DRBG_V, 32, BYTE, 1, 0, 0, 0, 0, 0, 0);
    drbgRekey();
    drbgHmac(DRBG_V, DRBG_V, 32, 0, 0, 0, 0, 0, 0, 0, 0);
  }
  wipeSign();
  return true;
}

/** s = k⁻¹·(e + r·d) with k in SK, d in SD, e in SE. False when r or s is 0 (retry). */
function signWithNonce(out: usize): bool {
  ecmultGen(RJ, SK);
  gejToGe(RA, RJ);
  feToBytes(out, RA); //                      x(R), big-endian
  const yn = FT;
  feNormalize(yn, RA + FE);
  let recid = <i32>feIsOddNormalized(yn);
  if (scFromBytes(SR, out)) recid |= 2; //     x ≥ n (probability ~2^−127)
  if (scIsZero(SR)) return false;
  modInv(SKI, SK, MOD_N);
  scMul(ST, SR, SD);
  scAdd(ST, ST, SE);
  scMul(SS, SKI, ST);
  if (scIsZero(SS)) return false;
  if (scIsHigh(SS)) {
    scNeg(SS, SS);
    recid ^= 1;
  }
  scToBytes(out, SR);
  scToBytes(out + 32, SS);
  store<u8>(out + 64, <u8>recid);
  return true;
}

/** 1 if the 32 bytes at priv are a valid private key (1 ≤ d < n). Constant time. */
export function privateKeyValid(priv: usize): bool {
  const overflow = scFromBytes(SD, priv);
  const ok = (overflow | scIsZero(SD)) == 0;
  memory.fill(SD, 0, SC);
  wipeScalarScratch();
  return ok;
}
