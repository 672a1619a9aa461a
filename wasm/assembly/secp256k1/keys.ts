/**
 * Public-key encodings (SEC 1 §2.3.3–2.3.4): 33-byte compressed (02/03 ‖ x) and 65-byte
 * uncompressed (04 ‖ x ‖ y). Hybrid (06/07) and the 1-byte infinity encoding are rejected,
 * as are coordinates ≥ p and x values with no square root (not on the curve).
 * Parsing is variable time: public keys are public.
 * @module
 */
import { FE, feAdd, feFromBytes, feIsOddNormalized, feMul, feNeg, feNormalize, feSetInt, feSqr, feSqrt, feToBytes } from './field';
import { geIsOnCurve } from './point';

const KT: usize = memory.data(<i32>(FE * 3), 8);

/**
 * r = the affine point whose x is at src (big-endian) and whose y has the given parity.
 * Returns false if x ≥ p or x³ + 7 is not a square.
 */
export function geSetXoVar(r: usize, src: usize, odd: u32): bool {
  if (!feFromBytes(r, src)) return false;
  const t = KT, seven = KT + FE;
  feSqr(t, r);
  feMul(t, t, r);
  feSetInt(seven, 7);
  feAdd(t, t, seven);
  if (!feSqrt(r + FE, t)) return false;
  feNormalize(r + FE, r + FE);
  if (feIsOddNormalized(r + FE) != odd) {
    feNeg(r + FE, r + FE, 1);
    feNormalize(r + FE, r + FE);
  }
  return true;
}

/** Parses a 33- or 65-byte public key at src into affine r. */
export function geParseVar(r: usize, src: usize, len: i32): bool {
  if (len == 33) {
    const prefix = load<u8>(src);
    if (prefix != 0x02 && prefix != 0x03) return false;
    return geSetXoVar(r, src + 1, prefix & 1);
  }
  if (len == 65) {
    if (load<u8>(src) != 0x04) return false;
    if (!feFromBytes(r, src + 1) || !feFromBytes(r + FE, src + 33)) return false;
    return geIsOnCurve(r) != 0;
  }
  return false;
}

/** Writes affine a as 33 (compressed) or 65 bytes at dst; returns the length. */
export function geSerialize(dst: usize, a: usize, compressed: bool): i32 {
  const y = KT + 2 * FE;
  feNormalize(y, a + FE);
  feToBytes(dst + 1, a);
  if (compressed) {
    store<u8>(dst, <u8>(0x02 | feIsOddNormalized(y)));
    return 33;
  }
  store<u8>(dst, 0x04);
  feToBytes(dst + 33, y);
  return 65;
}
