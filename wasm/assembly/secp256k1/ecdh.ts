/**
 * ECDH on secp256k1 (SEC 1 §3.3.1): the x coordinate of d·Q as 32 big-endian bytes, always
 * all 32 (leading zero bytes kept, as the deso-protocol SDK hashes them; the identity frame's
 * minimal-length form is an ECIES-layer quirk, see identity-and-crypto.md §3.6).
 * Constant time in d (ecmultConst, constant-time inversion); Q is validated by the caller's
 * parse (on the curve, coordinates < p; the cofactor is 1, so every such point is in the group).
 * @module
 */
import { ecmultConst } from './ecmult';
import { FE, feInv, feMul, feSqr, feToBytes, wipeFieldScratch } from './field';
import { GEJ, wipePointScratch } from './point';
import { SC, scFromBytes, scIsZero, wipeScalarScratch } from './scalar';

const D: usize = memory.data(<i32>SC, 8);
const RJ: usize = memory.data(<i32>GEJ, 16);
const T: usize = memory.data(<i32>(FE * 2), 8);

/** out[0..32) = x(d·Q) for the private key at priv and affine Q. False for an invalid key. */
export function ecdh(out: usize, priv: usize, q: usize): bool {
  const overflow = scFromBytes(D, priv);
  let ok = (overflow | scIsZero(D)) == 0;
  if (ok) {
    ecmultConst(RJ, q, D);
    // x = X / Z²
    feInv(T, RJ + 2 * FE);
    feSqr(T + FE, T);
    feMul(T, RJ, T + FE);
    feToBytes(out, T);
  }
  memory.fill(D, 0, SC);
  memory.fill(RJ, 0, GEJ);
  memory.fill(T, 0, FE * 2);
  wipeFieldScratch();
  wipePointScratch();
  wipeScalarScratch();
  return ok;
}
