// Exports of the secp256k1 area; see wasm/assembly/index.ts. Every export reads its inputs
// from IN and writes results to OUT (wasm/assembly/io.ts); the JS wrapper wasm/secp256k1.ts
// checks lengths before calling, so these trust the lengths they are given. Secret inputs
// (private keys) are wiped from IN before returning.

import { inputPtr, outputPtr } from '../io';
import { ecdh } from './ecdh';
import { ecdsaRecoverVar, ecdsaSign, ecdsaVerifyVar, privateKeyValid } from './ecdsa';
import { ecmultGen, ensureTables } from './ecmult';
import { geParseVar, geSerialize } from './keys';
import { GE, GEJ, gejToGe } from './point';
import { SC, scFromBytes, wipeScalarScratch } from './scalar';
import { wipeFieldScratch } from './field';

const Q: usize = memory.data(<i32>GE, 16);
const PJ: usize = memory.data(<i32>GEJ, 16);
const PA: usize = memory.data(<i32>GE, 16);
const K: usize = memory.data(<i32>SC, 8);

/** verifyBatch record: flags(1) ‖ public key(65: 33-byte compressed zero-padded, or 65) ‖ hash(32) ‖ r‖s(64). */
export const SECP_VERIFY_RECORD_BYTES: i32 = 162;
/** flags bit 0: reject high-S signatures. */
export const SECP_FLAG_LOW_S: i32 = 1;

/** Builds the precomputed tables now (otherwise the first operation does, ≈ 8 ms). */
export function secp256k1Init(): void {
  ensureTables();
}

/** OUT = public key (33 bytes if compressed, else 65) of the private key IN[0..32). 0 if invalid. */
export function secp256k1PublicKey(compressed: i32): i32 {
  const src = inputPtr();
  let len = 0;
  if (privateKeyValid(src)) {
    scFromBytes(K, src);
    ecmultGen(PJ, K);
    gejToGe(PA, PJ);
    len = geSerialize(outputPtr(), PA, compressed != 0);
  }
  memory.fill(src, 0, 32);
  memory.fill(K, 0, SC);
  memory.fill(PJ, 0, GEJ);
  memory.fill(PA, 0, GE);
  wipeFieldScratch();
  wipeScalarScratch();
  return len;
}

/** 1 if IN[0..32) is a valid private key (1 ≤ d < n); the key is wiped from IN. Constant time. */
export function secp256k1PrivateKeyValid(): i32 {
  const ok = privateKeyValid(inputPtr());
  memory.fill(inputPtr(), 0, 32);
  return ok ? 1 : 0;
}

/** Re-encodes the public key IN[0..pubLen) to OUT (33 or 65 bytes); returns the length, 0 if invalid. */
export function secp256k1PublicKeyConvert(pubLen: i32, compressed: i32): i32 {
  if (!geParseVar(Q, inputPtr(), pubLen)) return 0;
  return geSerialize(outputPtr(), Q, compressed != 0);
}

/**
 * Signs hash IN[0..32) with private key IN[32..64), RFC 6979 additional data
 * IN[64..64+extraLen). OUT[0..64) = r ‖ s (low-S), OUT[64] = recovery id. Returns 1, or 0 for
 * an invalid private key. The key and the additional data are wiped from IN.
 */
export function secp256k1Sign(extraLen: i32): i32 {
  const src = inputPtr();
  const ok = ecdsaSign(outputPtr(), src, src + 32, src + 64, extraLen);
  memory.fill(src + 32, 0, 32 + extraLen);
  return ok ? 1 : 0;
}

/**
 * 1 if r ‖ s = IN[32..96) is a valid signature of hash IN[0..32) by the public key
 * IN[96..96+pubLen). flags: SECP_FLAG_LOW_S.
 */
export function secp256k1Verify(pubLen: i32, flags: i32): i32 {
  const src = inputPtr();
  if (!geParseVar(Q, src + 96, pubLen)) return 0;
  return ecdsaVerifyVar(src, src + 32, Q, (flags & SECP_FLAG_LOW_S) != 0) ? 1 : 0;
}

/**
 * Verifies `count` records of SECP_VERIFY_RECORD_BYTES in IN; OUT[i] = 1 if record i verifies,
 * else 0 (a malformed record only fails itself). Returns the number that verified.
 */
export function secp256k1VerifyBatch(count: i32): i32 {
  const src = inputPtr(), dst = outputPtr();
  let valid = 0;
  for (let i = 0; i < count; i++) {
    const rec = src + <usize>i * <usize>SECP_VERIFY_RECORD_BYTES;
    const prefix = load<u8>(rec + 1);
    const pubLen = prefix == 0x04 ? 65 : 33;
    let ok = geParseVar(Q, rec + 1, pubLen) && ecdsaVerifyVar(rec + 66, rec + 98, Q, (load<u8>(rec) & SECP_FLAG_LOW_S) != 0);
    store<u8>(dst + <usize>i, ok ? 1 : 0);
    if (ok) valid++;
  }
  return valid;
}

/**
 * OUT = the public key (33 or 65 bytes) recovered from hash IN[0..32), r ‖ s IN[32..96) and
 * recid (0..3). Returns its length, or 0 if nothing can be recovered.
 */
export function secp256k1Recover(recid: i32, compressed: i32): i32 {
  const src = inputPtr();
  if (!ecdsaRecoverVar(PA, src, src + 32, recid)) return 0;
  return geSerialize(outputPtr(), PA, compressed != 0);
}

/**
 * OUT[0..32) = x coordinate of d·Q for private key d = IN[0..32) and public key
 * Q = IN[32..32+pubLen). Returns 1, 0 for an invalid public key, -1 for an invalid private key.
 * The private key is wiped from IN.
 */
export function secp256k1Ecdh(pubLen: i32): i32 {
  const src = inputPtr();
  let res = 0;
  if (geParseVar(Q, src + 32, pubLen)) res = ecdh(outputPtr(), src, Q) ? 1 : -1;
  memory.fill(src, 0, 32);
  return res;
}
