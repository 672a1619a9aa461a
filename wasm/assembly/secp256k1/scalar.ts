/**
 * Arithmetic modulo the group order n (SEC 2 §2.4.1):
 * n = FFFFFFFF FFFFFFFF FFFFFFFF FFFFFFFE BAAEDCE6 AF48A03B BFD25E8C D0364141.
 *
 * Representation: eight u32 words, little-endian (32 bytes), always fully reduced (< n).
 * Scalar work is a small share of every operation (a handful of products per sign/verify),
 * so plain 32×32→64 schoolbook rows are enough; the one expensive scalar operation, the
 * inversion, lives in modinv.ts.
 *
 * Reduction of a 512-bit product uses 2^256 ≡ C = 2^256 − n (129 bits) three times, then one
 * masked subtraction of n.
 *
 * Constant time: everything here runs a fixed instruction sequence for every value (fixed
 * loop bounds, carries by arithmetic, selections by masks) except functions suffixed `Var`,
 * which serve verification of public data.
 * @module
 */

/** Bytes per scalar. */
export const SC: usize = 32;

// prettier-ignore
const N_WORDS: StaticArray<u32> = [0xD0364141, 0xBFD25E8C, 0xAF48A03B, 0xBAAEDCE6, 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF];
/** C = 2^256 − n. */
// prettier-ignore
const C_WORDS: StaticArray<u32> = [0x2FC9BEBF, 0x402DA173, 0x50B75FC4, 0x45512319, 0x1];
/** ⌊n/2⌋: s is "high" (malleable) when s > this. */
// prettier-ignore
const N_HALF_WORDS: StaticArray<u32> = [0x681B20A0, 0xDFE92F46, 0x57A4501D, 0x5D576E73, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0x7FFFFFFF];

/** GLV (Gallant–Lambert–Vanstone): λ is a cube root of unity mod n with λ·(x, y) = (β·x, y). */
// prettier-ignore
const LAMBDA_WORDS: StaticArray<u32> = [0x1B23BD72, 0xDF02967C, 0x20816678, 0x122E22EA, 0x8812645A, 0xA5261C02, 0xC05C30E0, 0x5363AD4C];
/**
 * Short basis of the lattice {(a, b) : a + b·λ ≡ 0 mod n}, from the extended Euclidean
 * algorithm on (n, λ) (GLV §4): v1 = (a1, b1), v2 = (a2, b2) with
 * a1 = b2 = 0x3086D221A7D46BCDE86C90E49284EB15, b1 = −0xE4437ED6010E88286F547FA90ABFE4C3,
 * a2 = 0x114CA50F7A8E2F3F657C1108D9D44CFD8. G1 = round(2^384·b2/n), G2 = round(2^384·(−b1)/n);
 * MINUS_B1 = −b1, MINUS_B2 = n − b2.
 */
// prettier-ignore
const G1_WORDS: StaticArray<u32> = [0x45DBB031, 0xE893209A, 0x71E8CA7F, 0x3DAA8A14, 0x9284EB15, 0xE86C90E4, 0xA7D46BCD, 0x3086D221];
// prettier-ignore
const G2_WORDS: StaticArray<u32> = [0x8AC47F71, 0x1571B4AE, 0x9DF506C6, 0x221208AC, 0x0ABFE4C4, 0x6F547FA9, 0x010E8828, 0xE4437ED6];
// prettier-ignore
const MINUS_B1_WORDS: StaticArray<u32> = [0x0ABFE4C3, 0x6F547FA9, 0x010E8828, 0xE4437ED6, 0, 0, 0, 0];
// prettier-ignore
const MINUS_B2_WORDS: StaticArray<u32> = [0x3DB1562C, 0xD765CDA8, 0x0774346D, 0x8A280AC5, 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF];

@inline function nw(i: usize): u64 {
  return load<u32>(changetype<usize>(N_WORDS) + (i << 2)) as u64;
}

// Scratch: a 512-bit product and the intermediate sums of the reduction.
const PROD: usize = memory.data(16 * 4 + 8, 8);
const RED: usize = memory.data(16 * 4, 8);
const SPL_A: usize = memory.data(<i32>SC, 8);
const SPL_B: usize = memory.data(<i32>SC, 8);
const DIFF: usize = memory.data(<i32>SC, 8);

/** dst[0..na+nb) = a[0..na) · b[0..nb) (word arrays). Fixed sequence for fixed sizes. */
function mulWords(dst: usize, a: usize, na: usize, b: usize, nb: usize): void {
  memory.fill(dst, 0, (na + nb) << 2);
  for (let i: usize = 0; i < na; i++) {
    const ai = load<u32>(a + (i << 2)) as u64;
    let carry: u64 = 0;
    for (let j: usize = 0; j < nb; j++) {
      const at = dst + ((i + j) << 2);
      // ≤ (2^32−1)² + 2·(2^32−1) = 2^64 − 1: never overflows.
      const t = ai * (load<u32>(b + (j << 2)) as u64) + (load<u32>(at) as u64) + carry;
      store<u32>(at, t as u32);
      carry = t >> 32;
    }
    store<u32>(dst + ((i + nb) << 2), carry as u32);
  }
}

/** dst[0..nd) += src[0..ns) with a carry run through the whole of dst. Returns the carry out. */
function addWords(dst: usize, nd: usize, src: usize, ns: usize): u32 {
  let carry: u64 = 0;
  for (let i: usize = 0; i < nd; i++) {
    const s = i < ns ? (load<u32>(src + (i << 2)) as u64) : 0;
    const t = (load<u32>(dst + (i << 2)) as u64) + s + carry;
    store<u32>(dst + (i << 2), t as u32);
    carry = t >> 32;
  }
  return carry as u32;
}

/**
 * r = a − n if a ≥ n else a, for a 9-word value (top word `top` ∈ {0, 1}) below 2n.
 * Masked, constant time. Returns 1 if n was subtracted.
 */
function condSubN(r: usize, a: usize, top: u32): u32 {
  let borrow: i64 = 0;
  for (let i: usize = 0; i < 8; i++) {
    const t = (load<u32>(a + (i << 2)) as i64) - (nw(i) as i64) + borrow;
    store<u32>(DIFF + (i << 2), t as u32);
    borrow = t >> 32; // 0 or −1
  }
  // a ≥ n ⇔ the top word absorbs the final borrow.
  const ge = <u32>((top as i64) + borrow >= 0);
  const take = 0 - ge;
  for (let i: usize = 0; i < 32; i += 4) {
    store<u32>(r + i, (load<u32>(a + i) & ~take) | (load<u32>(DIFF + i) & take));
  }
  return ge;
}

/** r = x mod n for the 512-bit x at PROD (three folds by C, one masked subtraction). */
function reduce512(r: usize): void {
  const C = changetype<usize>(C_WORDS);
  // Step 1: x = L + H·C, H·C < 2^385: 13 words.
  mulWords(RED, PROD + 32, 8, C, 5);
  addWords(RED, 13, PROD, 8);
  // Step 2: x = L' + H'·C, H' = words 8..12 (< 2^130): < 2^260, 9 words.
  mulWords(PROD, RED + 32, 5, C, 5); // 10 words, top one 0
  addWords(PROD, 10, RED, 8);
  // Step 3: x = L'' + H''·C, H'' = word 8 (< 16): < 2^256 + 2^133.
  mulWords(RED, PROD + 32, 1, C, 5); // 6 words
  store<u32>(RED + 24, 0);
  store<u32>(RED + 28, 0);
  store<u32>(RED + 32, 0);
  const top = addWords(RED, 8, PROD, 8);
  // x < 2n now: one conditional subtraction.
  condSubN(r, RED, top);
}

/** Zeroes the product scratch (it held products with the private key and the nonce). */
export function wipeScalarScratch(): void {
  memory.fill(PROD, 0, 16 * 4 + 8);
  memory.fill(RED, 0, 16 * 4);
  memory.fill(DIFF, 0, SC);
}

/** r = a·b mod n. Constant time. */
export function scMul(r: usize, a: usize, b: usize): void {
  mulWords(PROD, a, 8, b, 8);
  reduce512(r);
}

/** r = (a + b) mod n. Constant time. */
export function scAdd(r: usize, a: usize, b: usize): void {
  let carry: u64 = 0;
  for (let i: usize = 0; i < 32; i += 4) {
    const t = (load<u32>(a + i) as u64) + (load<u32>(b + i) as u64) + carry;
    store<u32>(RED + i, t as u32);
    carry = t >> 32;
  }
  condSubN(r, RED, carry as u32);
}

/** r = −a mod n (0 stays 0). Constant time. */
export function scNeg(r: usize, a: usize): void {
  const nz = scIsZero(a) ^ 1;
  const mask = 0 - nz;
  let borrow: i64 = 0;
  for (let i: usize = 0; i < 8; i++) {
    const t = (((nw(i) as u32) & mask) as i64) - (load<u32>(a + (i << 2)) as i64) + borrow;
    store<u32>(r + (i << 2), t as u32);
    borrow = t >> 32;
  }
}

/** 1 if a = 0. Constant time. */
export function scIsZero(a: usize): u32 {
  let acc: u32 = 0;
  for (let i: usize = 0; i < 32; i += 4) acc |= load<u32>(a + i);
  return (((acc as u64) - 1) >> 63) as u32;
}

/** 1 if a > ⌊n/2⌋ (a "high-S" value). Constant time. */
export function scIsHigh(a: usize): u32 {
  let borrow: i64 = 0;
  for (let i: usize = 0; i < 8; i++) {
    const t = (load<u32>(changetype<usize>(N_HALF_WORDS) + (i << 2)) as i64) - (load<u32>(a + (i << 2)) as i64) + borrow;
    borrow = t >> 32;
  }
  return (borrow & 1) as u32;
}

/**
 * Big-endian 32 bytes → scalar reduced mod n. Returns 1 if the input was ≥ n (and so was
 * reduced), else 0. Constant time.
 */
export function scFromBytes(r: usize, src: usize): u32 {
  for (let i: usize = 0; i < 8; i++) store<u32>(RED + (i << 2), bswap<u32>(load<u32>(src + 28 - (i << 2))));
  return condSubN(r, RED, 0);
}

export function scToBytes(dst: usize, a: usize): void {
  for (let i: usize = 0; i < 8; i++) store<u32>(dst + 28 - (i << 2), bswap<u32>(load<u32>(a + (i << 2))));
}

/** r = flag ? a : r, flag ∈ {0, 1}, without branching. */
export function scCmov(r: usize, a: usize, flag: u32): void {
  const m = 0 - flag;
  for (let i: usize = 0; i < 32; i += 4) {
    const x = load<u32>(r + i);
    store<u32>(r + i, x ^ ((x ^ load<u32>(a + i)) & m));
  }
}

/** `count` (≤ 32) bits of a starting at bit `offset`; bits past 255 read as 0. */
@inline export function scBits(a: usize, offset: u32, count: u32): u32 {
  const w = offset >> 5;
  const sh = offset & 31;
  let v = load<u32>(a + (w << 2)) >>> sh;
  if (sh != 0 && w < 7) v |= load<u32>(a + ((w + 1) << 2)) << (32 - sh);
  return count == 32 ? v : v & ((1 << count) - 1);
}

/** round(a·g / 2^384) for the GLV constants g (a < 2^256, g < 2^256): fits in 129 bits. */
function mulShift384(r: usize, a: usize, g: usize): void {
  mulWords(PROD, a, 8, g, 8);
  const round = load<u32>(PROD + 44) >>> 31;
  let carry: u64 = round as u64;
  for (let i: usize = 0; i < 4; i++) {
    const t = (load<u32>(PROD + 48 + (i << 2)) as u64) + carry;
    store<u32>(r + (i << 2), t as u32);
    carry = t >> 32;
  }
  store<u32>(r + 16, carry as u32);
  store<u32>(r + 20, 0);
  store<u32>(r + 24, 0);
  store<u32>(r + 28, 0);
}

/**
 * GLV split: k ≡ k1 + k2·λ (mod n) with |k1|, |k2| < 2^128, returned as residues mod n (the
 * caller takes n − k when a value is high). c1 = round(k·b2/n), c2 = round(−k·b1/n) come
 * from the precomputed G1, G2 by one 256×256 product each (GLV §4 with Babai rounding).
 * Constant time (fixed-length products, masked reductions), so ECDH uses it on secrets.
 * Measured ≈ 1 µs.
 */
export function scSplitLambda(k1: usize, k2: usize, k: usize): void {
  mulShift384(SPL_A, k, changetype<usize>(G1_WORDS)); // c1
  mulShift384(SPL_B, k, changetype<usize>(G2_WORDS)); // c2
  scMul(SPL_A, SPL_A, changetype<usize>(MINUS_B1_WORDS));
  scMul(SPL_B, SPL_B, changetype<usize>(MINUS_B2_WORDS));
  scAdd(k2, SPL_A, SPL_B); // k2 = −c1·b1 − c2·b2
  scMul(SPL_A, k2, changetype<usize>(LAMBDA_WORDS));
  scNeg(SPL_A, SPL_A);
  scAdd(k1, k, SPL_A); // k1 = k − k2·λ
  memory.fill(SPL_A, 0, SC);
  memory.fill(SPL_B, 0, SC);
}

/** The order n as words (for callers that need to compare against it). */
export function scOrderWords(): usize {
  return changetype<usize>(N_WORDS);
}
