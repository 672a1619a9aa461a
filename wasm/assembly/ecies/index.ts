// Exports of the message-ECIES area; see wasm/assembly/index.ts. Inputs in IN, results in
// OUT (wasm/assembly/io.ts); wasm/ecies.ts checks lengths before calling. Private keys are
// wiped from IN before returning.
import { inputPtr, outputPtr } from '../io';
import { geParseVar } from '../secp256k1/keys';
import { GE } from '../secp256k1/point';
import { decryptOne, encryptOne, sharedPrivateKey } from './ecies';

const Q: usize = memory.data(<i32>GE, 16);

/**
 * Batch decrypt with one private key. IN: priv(32) ‖ count × (u32 offset, u32 length) little-
 * endian, offsets into IN of each ciphertext. OUT: count × i32 status (plaintext length, or a
 * negative ECIES_ERR_*); plaintext i is written at OUT + offset_i (it is shorter than its
 * ciphertext, so items never overlap). One bad item never affects the others.
 */
export function eciesDecryptBatch(count: i32): void {
  const src = inputPtr();
  const dst = outputPtr();
  for (let i = 0; i < count; i++) {
    const entry = src + 32 + <usize>i * 8;
    const off = load<u32>(entry);
    const len = load<u32>(entry + 4);
    store<i32>(dst + <usize>i * 4, decryptOne(src, src + off, <i32>len, dst + off));
  }
  memory.fill(src, 0, 32);
}

/**
 * IN: public key (pubLen = 33 or 65 bytes) at 0, ephemeral private key at 65, IV at 97,
 * plaintext at 113. OUT: the ciphertext. Returns its length, 0 for an invalid key.
 */
export function eciesEncrypt(pubLen: i32, ptLen: i32): i32 {
  const src = inputPtr();
  let n = 0;
  if (geParseVar(Q, src, pubLen)) n = encryptOne(Q, src + 65, src + 97, src + 113, ptLen, outputPtr());
  memory.fill(src + 65, 0, 32);
  return n;
}

/**
 * V2 shared private key of IN priv(32) and IN[32..32+pubLen) public key: OUT[0..32) the SDK's
 * form, OUT[32..64) the identity frame's (they differ when x(a·B) has leading zero bytes).
 * Returns 1 when they differ, 0 when equal, -1 for an invalid key.
 */
export function eciesSharedPrivateKey(pubLen: i32): i32 {
  const src = inputPtr();
  const dst = outputPtr();
  let r = -1;
  if (geParseVar(Q, src + 32, pubLen)) r = sharedPrivateKey(dst, dst + 32, src, Q);
  memory.fill(src, 0, 32);
  return r;
}
