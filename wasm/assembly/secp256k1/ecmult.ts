/**
 * Scalar multiplication: constant-time k·G (public keys, signing), constant-time k·Q (ECDH),
 * and variable-time u1·G + u2·Q (verification, recovery).
 *
 * Tables are built on first use (≈ 8 ms once per thread, most of it before the engine's
 * optimizing tier kicks in) rather than shipped as data, so the binary stays small and the
 * only source of truth for G is the two coordinates below. They take 225 KiB of linear
 * memory (zero-initialized, so not in the binary).
 * @module
 */
import { FE, feCmov, feCopy, feFromBytes, feFromWords, feMul, feNeg, feNormWeak, feSqr } from './field';
import {
  GE, GEJ, gejAddGe, gejAddGeComplete, gejAddGeVar, gejAddVar, gejDouble, gejIsInf, gejSetGe,
  gejSetInf, gejCopy, geSetAllGejVar, wipePointScratch,
} from './point';
import { SC, scBits, scCmov, scIsHigh, scNeg, scSplitLambda } from './scalar';

/** Offset of the infinity flag in a Jacobian point (point.ts layout). */
const INF_OFFSET: usize = 120;

/** G (SEC 2 §2.4.1) as big-endian bytes: x ‖ y. */
// prettier-ignore
const G_BYTES: StaticArray<u8> = [
  0x79, 0xBE, 0x66, 0x7E, 0xF9, 0xDC, 0xBB, 0xAC, 0x55, 0xA0, 0x62, 0x95, 0xCE, 0x87, 0x0B, 0x07,
  0x02, 0x9B, 0xFC, 0xDB, 0x2D, 0xCE, 0x28, 0xD9, 0x59, 0xF2, 0x81, 0x5B, 0x16, 0xF8, 0x17, 0x98,
  0x48, 0x3A, 0xDA, 0x77, 0x26, 0xA3, 0xC4, 0x65, 0x5D, 0xA4, 0xFB, 0xFC, 0x0E, 0x11, 0x08, 0xA8,
  0xFD, 0x17, 0xB4, 0x48, 0xA6, 0x85, 0x54, 0x19, 0x9C, 0x47, 0xD0, 0x8F, 0xFB, 0x10, 0xD4, 0xB8,
];
/** β: a cube root of unity mod p with λ·(x, y) = (β·x, y); little-endian words. */
// prettier-ignore
const BETA_WORDS: StaticArray<u32> = [0x719501EE, 0xC1396C28, 0x12F58995, 0x9CF04975, 0xAC3434E9, 0x6E64479E, 0x657C0710, 0x7AE96A2B];

const G_AFF: usize = memory.data(<i32>GE, 8);
const BETA: usize = memory.data(<i32>FE, 8);

// ---------------------------------------------------------------------------------------
// Constant-time k·G: signed fixed windows over a per-window table, no doublings.
//
// k is first made odd (k or n − k; the result's y is negated back by mask). An odd k has a
// "regular" signed radix-2^W expansion k = Σ d_i·2^(W·i), i = 0..GEN_WINDOWS−1, with every
// d_i odd, |d_i| < 2^W and the top one positive: d_i = (((k >> W·i) mod 2^(W+1)) | 1) − 2^W,
// d_top = (k >> W·top) | 1. So every window adds exactly one table point, ±(2j+1)·2^(W·i)·G,
// found by scanning all 2^(W−1) entries of the window with masks.
// No addition is exceptional except possibly the last: the partial sum A before window i
// satisfies |A| < 2^(W·i) ≤ |d_i|·2^(W·i) and |A| + |d_i|·2^(W·i) < 2^(W·(i+1)) ≤ n for
// i < top, so A ≢ ±d_i·2^(W·i) (mod n). The top window is added with gejAddGeComplete: it
// can meet the doubling case (k = 2^256 − n does, see the tests).
//
// W = 5: 52 windows × 16 entries × 80 bytes = 65 KiB. Fewer windows means fewer additions
// but longer masked scans; measured k·G (best of 7): W = 4 (64 windows × 8) ≈ 41 µs,
// W = 5 ≈ 35 µs. W = 6 would scan 32 entries per window for 43 additions: the scans
// (≈ 10 ns per entry) would eat the saving.
// ---------------------------------------------------------------------------------------
const GEN_W: i32 = 5;
const GEN_ENTRIES: i32 = 1 << (GEN_W - 1);
const GEN_WINDOWS: i32 = (256 + GEN_W - 1) / GEN_W;
const GEN_TABLE: usize = memory.data(<i32>GE * GEN_ENTRIES * GEN_WINDOWS, 16);

// ---------------------------------------------------------------------------------------
// Variable-time u1·G + u2·Q: GLV split of both scalars into 128-bit halves, wNAF digits,
// Shamir's trick (one shared chain of ~129 doublings for the four half-scalars, instead of
// ~256 without GLV: ≈ 38 µs of doublings saved per verification at ≈ 0.3 µs each).
// G side: odd multiples (2j+1)·G, j < 2^(WNAF_G−2), precomputed (WNAF_G = 12: 1024 entries,
// 80 KiB, plus the λ·G copy with (β·x, y)); ≈ 20 additions for both G halves.
// Q side: odd multiples of Q (WNAF_Q = 5, 8 entries) built per call with one batched
// inversion; ≈ 43 additions for both Q halves. WNAF_Q = 6 would save ≈ 6 additions (≈ 3.5 µs)
// but cost 8 more table additions and a longer batch, so no gain; measured u1·G + u2·Q
// ≈ 80 µs of a ≈ 110 µs verification (the rest: pubkey decompression ≈ 9 µs, s⁻¹ ≈ 3 µs).
// ---------------------------------------------------------------------------------------
const WNAF_G: i32 = 12;
const G_ODD_COUNT: i32 = 1 << (WNAF_G - 2);
const G_ODD: usize = memory.data(<i32>GE * G_ODD_COUNT, 16);
const G_ODD_LAM: usize = memory.data(<i32>GE * G_ODD_COUNT, 16);
const WNAF_Q: i32 = 5;
const Q_ODD_COUNT: i32 = 1 << (WNAF_Q - 2);
const Q_ODD: usize = memory.data(<i32>GE * Q_ODD_COUNT, 16);
const Q_ODD_LAM: usize = memory.data(<i32>GE * Q_ODD_COUNT, 16);

/** wNAF digit arrays (i32 per bit position) for the four half-scalars. */
const WNAF_LEN: i32 = 132;
const NAF: usize = memory.data(4 * 4 * WNAF_LEN, 16);

// Table-building scratch: BUILD_CHUNK Jacobian points and their prefix products.
const BUILD_CHUNK: i32 = 64;
const BUILD_J: usize = memory.data(<i32>GEJ * BUILD_CHUNK, 16);
const BUILD_Z: usize = memory.data(<i32>FE * BUILD_CHUNK, 16);

// Per-call scratch.
const R_TMP: usize = memory.data(<i32>(GEJ * 3), 16);
const P_TMP: usize = memory.data(<i32>(GE * 2), 16);
const K_ODD: usize = memory.data(<i32>(SC * 2), 16);
const S_TMP: usize = memory.data(<i32>(SC * 4), 16);

let tablesReady = false;

/** Builds every table on first use. */
export function ensureTables(): void {
  if (tablesReady) return;
  feFromBytes(G_AFF, changetype<usize>(G_BYTES));
  feFromBytes(G_AFF + FE, changetype<usize>(G_BYTES) + 32);
  feFromWords(BETA, changetype<usize>(BETA_WORDS));
  buildGenTable();
  buildOddMultiples(G_ODD, G_AFF, G_ODD_COUNT);
  for (let i = 0; i < G_ODD_COUNT; i++) {
    const src = G_ODD + <usize>i * GE, dst = G_ODD_LAM + <usize>i * GE;
    feMul(dst, src, BETA);
    feCopy(dst + FE, src + FE);
  }
  tablesReady = true;
}

/**
 * dst[j] = (2j+1)·P (affine) for j < count, P affine (public). Variable time.
 *
 * The chain adds D = 2P to itself with *mixed* additions by working on an isomorphic curve:
 * with D = (X_D, Y_D, Z_D) Jacobian, the map (x, y) ↦ (x·Z_D², y·Z_D³) sends y² = x³ + 7 to
 * y² = x³ + 7·Z_D⁶, where D is the affine (X_D, Y_D); the a = 0 formulas do not involve b, so
 * the same code adds there. A point (X′, Y′, Z′) found on that curve is (X′, Y′, Z′·Z_D) on
 * ours. Chunks of BUILD_CHUNK points then share one inversion. Each step is a mixed addition
 * (8M + 3S) instead of a Jacobian one (12M + 4S), for one extra product (Z′·Z_D).
 */
function buildOddMultiples(dst: usize, p: usize, count: i32): void {
  const d = R_TMP, acc = R_TMP + GEJ, dAff = P_TMP;
  gejSetGe(acc, p);
  gejDouble(d, acc);
  const zd = d + 2 * FE;
  feCopy(dAff, d);
  feCopy(dAff + FE, d + FE);
  // P on the isomorphic curve: (x·Z_D², y·Z_D³, 1).
  const zd2 = BUILD_Z;
  feSqr(zd2, zd);
  feMul(acc, acc, zd2);
  feMul(zd2, zd2, zd);
  feMul(acc + FE, acc + FE, zd2);
  for (let base = 0; base < count; base += BUILD_CHUNK) {
    const n = min(BUILD_CHUNK, count - base);
    for (let j = 0; j < n; j++) {
      const e = BUILD_J + <usize>j * GEJ;
      gejCopy(e, acc);
      feMul(e + 2 * FE, e + 2 * FE, zd);
      gejAddGeVar(acc, acc, dAff);
    }
    geSetAllGejVar(dst + <usize>base * GE, BUILD_J, n, BUILD_Z);
  }
}

function buildGenTable(): void {
  const base = R_TMP + 2 * GEJ, twoB = R_TMP, acc = R_TMP + GEJ;
  gejSetGe(base, G_AFF);
  for (let w = 0; w < GEN_WINDOWS; w++) {
    // Window w: (2j+1)·B, B = 2^(W·w)·G.
    gejDouble(twoB, base);
    gejCopy(acc, base);
    for (let j = 0; j < GEN_ENTRIES; j++) {
      gejCopy(BUILD_J + <usize>j * GEJ, acc);
      gejAddVar(acc, acc, twoB);
    }
    geSetAllGejVar(GEN_TABLE + <usize>(w * GEN_ENTRIES) * GE, BUILD_J, GEN_ENTRIES, BUILD_Z);
    for (let i = 0; i < GEN_W; i++) gejDouble(base, base);
  }
}

/** r = table[idx] for idx < count, reading every entry (masked copy): constant time. */
function lookupCT(r: usize, table: usize, count: i32, idx: u32): void {
  memory.fill(r, 0, GE);
  for (let j = 0; j < count; j++) {
    const hit = <u32>(<u32>j == idx);
    const e = table + <usize>j * GE;
    feCmov(r, e, hit);
    feCmov(r + FE, e + FE, hit);
  }
}

/** Odd-ify: K_ODD = k if k is odd, else n − k. Returns 1 if negated. Constant time. */
function makeOdd(k: usize): u32 {
  const flip = (load<u32>(k) & 1) ^ 1;
  memory.copy(K_ODD, k, SC);
  scNeg(K_ODD + SC, k);
  scCmov(K_ODD, K_ODD + SC, flip);
  return flip;
}

/** Signed odd digit i of the regular expansion of K_ODD (window W), as |d| index + sign. */
@inline function regularDigit(i: i32, w: i32, windows: i32): i32 {
  if (i == windows - 1) return <i32>(scBits(K_ODD, <u32>(w * i), <u32>(256 - w * i)) | 1);
  return <i32>(scBits(K_ODD, <u32>(w * i), <u32>(w + 1)) | 1) - (1 << w);
}

/** P_TMP = sign(d)·table[(|d| − 1)/2] with a masked lookup and a masked negation. */
function selectSigned(table: usize, count: i32, d: i32): void {
  const s = d >> 31;
  const abs = (d ^ s) - s;
  lookupCT(P_TMP, table, count, <u32>((abs - 1) >> 1));
  feNeg(P_TMP + GE + FE, P_TMP + FE, 1);
  feNormWeak(P_TMP + GE + FE, P_TMP + GE + FE);
  feCmov(P_TMP + FE, P_TMP + GE + FE, <u32>(s & 1));
}

/** r = Y-negate(r) when flag (masked). */
function condNegateY(r: usize, flag: u32): void {
  const t = P_TMP + GE;
  feNeg(t, r + FE, 1);
  feNormWeak(t, t);
  feCmov(r + FE, t, flag);
}

/** Wipes the secret-dependent scratch of a constant-time multiplication. */
function wipe(): void {
  memory.fill(K_ODD, 0, SC * 2);
  memory.fill(P_TMP, 0, GE * 2);
  wipePointScratch();
}

/**
 * r = k·G (Jacobian), k in [1, n): constant time in k (see the note on GEN_TABLE).
 */
export function ecmultGen(r: usize, k: usize): void {
  ensureTables();
  const flip = makeOdd(k);
  for (let i = 0; i < GEN_WINDOWS; i++) {
    selectSigned(GEN_TABLE + <usize>(i * GEN_ENTRIES) * GE, GEN_ENTRIES, regularDigit(i, GEN_W, GEN_WINDOWS));
    if (i == 0) gejSetGe(r, P_TMP);
    else if (i < GEN_WINDOWS - 1) gejAddGe(r, r, P_TMP);
    else gejAddGeComplete(r, r, P_TMP);
  }
  condNegateY(r, flip);
  wipe();
}

// ---------------------------------------------------------------------------------------
// Constant-time k·Q (ECDH): GLV split, then one Horner chain over both halves.
//
// k ≡ k1 + k2·λ (mod n) with |k1|, |k2| < 2^128 (scSplitLambda, constant time). Half j is
// s_j·m_j with a sign s_j and a magnitude m_j; the regular recoding needs an odd magnitude,
// so m′_j = m_j + e_j with e_j = 1 when m_j is even, and e_j·s_j·P_j is subtracted at the end
// (masked). m′_j < 2^128 has a regular signed radix-16 expansion over 33 windows (as in
// ecmultGen: digits odd, |d| < 16, top digit positive), and
//   R = Σ_i 16^i·(d1_i·s1·Q + d2_i·s2·λQ),
// evaluated from the top: 128 doublings, 66 additions, against 252 and 63 for plain k·Q
// with 4-bit windows. Measured k·Q (best of 7 on the shared, noisy 2-core sandbox):
// ≈ 115 µs → 85–105 µs; ECDH end to end (bench means) 155 µs → 115 µs.
//
// Exceptional additions. Before window i the accumulator is 16·(A1·Q + A2·λQ) with
// |16·A_j| < m′_j/16^i + 16 and A_j ≠ 0 (the top digit dominates). Adding d·Q (or d·λQ) is
// exceptional only if a vector like (16·A1 ∓ d, 16·A2) lies in the lattice
// {(x, y) : x + y·λ ≡ 0 (mod n)}, whose shortest non-zero vector has length 2^127.87
// (Lagrange-reduced basis of the GLV lattice). For i ≥ 1 these vectors are shorter than
// 2^124.6 and non-zero, so they never are; window 0 and the two corrections use
// gejAddGeComplete, which handles every case with masks.
// ---------------------------------------------------------------------------------------
const GLV_WINDOWS: i32 = 33;
const GLV_K: usize = memory.data(<i32>(SC * 4), 16);
const GLV_Q: usize = memory.data(<i32>(GE * 2), 16);

/** Digit i of the regular radix-16 expansion of the odd value at m (33 windows). */
@inline function glvDigit(m: usize, i: i32): i32 {
  if (i == GLV_WINDOWS - 1) return <i32>(scBits(m, 128, 4) | 1);
  return <i32>(scBits(m, <u32>(4 * i), 5) | 1) - 16;
}

/** P_TMP = (sign·d)·table[(|d|−1)/2] where neg flips the sign; masked lookup and negation. */
function selectSignedFlip(table: usize, d: i32, neg: u32): void {
  const s = d >> 31;
  const abs = (d ^ s) - s;
  lookupCT(P_TMP, table, 8, <u32>((abs - 1) >> 1));
  feNeg(P_TMP + GE + FE, P_TMP + FE, 1);
  feNormWeak(P_TMP + GE + FE, P_TMP + GE + FE);
  feCmov(P_TMP + FE, P_TMP + GE + FE, (<u32>s & 1) ^ neg);
}

/**
 * m = |k| (k a residue mod n standing for a value in (−n/2, n/2]) made odd: writes m′ to m
 * and returns (neg, even) packed as neg | even << 1. Constant time.
 */
function signedOddMagnitude(m: usize, k: usize, tmp: usize): u32 {
  const neg = scIsHigh(k);
  memory.copy(m, k, SC);
  scNeg(tmp, k);
  scCmov(m, tmp, neg);
  const even = (load<u32>(m) & 1) ^ 1;
  let carry: u64 = even as u64;
  for (let i: usize = 0; i < 32; i += 4) {
    const t = (load<u32>(m + i) as u64) + carry;
    store<u32>(m + i, t as u32);
    carry = t >> 32;
  }
  return neg | (even << 1);
}

/**
 * r = k·Q (Jacobian, never infinity) for affine Q on the curve and k in [1, n): constant
 * time in k. The tables of odd multiples of Q and λQ depend only on the public Q and are
 * built in variable time.
 */
export function ecmultConst(r: usize, q: usize, k: usize): void {
  ensureTables();
  buildOddMultiples(Q_ODD, q, 8);
  for (let i = 0; i < 8; i++) {
    const src = Q_ODD + <usize>i * GE, dst = Q_ODD_LAM + <usize>i * GE;
    feMul(dst, src, BETA);
    feCopy(dst + FE, src + FE);
  }
  const k1 = GLV_K, k2 = GLV_K + SC, m1 = GLV_K + 2 * SC, m2 = GLV_K + 3 * SC;
  scSplitLambda(k1, k2, k);
  const f1 = signedOddMagnitude(m1, k1, K_ODD), f2 = signedOddMagnitude(m2, k2, K_ODD);
  const neg1 = f1 & 1, neg2 = f2 & 1;
  const top = GLV_WINDOWS - 1;
  selectSignedFlip(Q_ODD, glvDigit(m1, top), neg1);
  gejSetGe(r, P_TMP);
  selectSignedFlip(Q_ODD_LAM, glvDigit(m2, top), neg2);
  gejAddGe(r, r, P_TMP);
  for (let i = top - 1; i >= 0; i--) {
    for (let j = 0; j < 4; j++) gejDouble(r, r);
    selectSignedFlip(Q_ODD, glvDigit(m1, i), neg1);
    if (i > 0) gejAddGe(r, r, P_TMP);
    else gejAddGeComplete(r, r, P_TMP);
    selectSignedFlip(Q_ODD_LAM, glvDigit(m2, i), neg2);
    if (i > 0) gejAddGe(r, r, P_TMP);
    else gejAddGeComplete(r, r, P_TMP);
  }
  // Undo the odd-making: subtract s_j·P_j where m_j was even (masked).
  const t = R_TMP + 2 * GEJ;
  correct(r, t, Q_ODD, neg1, f1 >> 1);
  correct(r, t, Q_ODD_LAM, neg2, f2 >> 1);
  memory.fill(GLV_K, 0, SC * 4);
  wipe();
}

/** r −= s·table[0] when flag (s = −1 when neg), with a complete addition and a masked select. */
function correct(r: usize, t: usize, table: usize, neg: u32, flag: u32): void {
  // −s·P: y negated unless s is negative.
  feCopy(GLV_Q, table);
  feNeg(GLV_Q + FE, table + FE, 1);
  feNormWeak(GLV_Q + FE, GLV_Q + FE);
  feCmov(GLV_Q + FE, table + FE, neg);
  gejAddGeComplete(t, r, GLV_Q);
  feCmov(r, t, flag);
  feCmov(r + FE, t + FE, flag);
  feCmov(r + 2 * FE, t + 2 * FE, flag);
  const inf = load<u32>(r + INF_OFFSET);
  store<u32>(r + INF_OFFSET, inf ^ ((inf ^ load<u32>(t + INF_OFFSET)) & (0 - flag)));
}

/**
 * Width-w NAF of a (< 2^128) into out (i32 per bit, zeroed first): Σ out[i]·2^i = a, every
 * non-zero digit odd with |digit| < 2^(w−1), any two non-zero digits ≥ w apart.
 * Returns the index of the highest non-zero digit + 1. Variable time.
 */
function wnafVar(out: usize, a: usize, w: i32): i32 {
  memory.fill(out, 0, 4 * WNAF_LEN);
  const bits: i32 = 129;
  let carry: u32 = 0;
  let bit: i32 = 0;
  let len: i32 = 0;
  while (bit < bits) {
    if (scBits(a, <u32>bit, 1) == carry) {
      bit++;
      continue;
    }
    const now = min(w, bits - bit);
    let word = <i32>(scBits(a, <u32>bit, <u32>now) + carry);
    carry = <u32>(word >> (w - 1)) & 1;
    word -= <i32>(carry << w);
    store<i32>(out + (<usize>bit << 2), word);
    bit += now;
    len = bit;
  }
  return len;
}

/** Adds ±table[(|d|−1)/2] to r (variable time); negate flips the sign. */
@inline function addDigit(r: usize, table: usize, d: i32, negate: bool): void {
  if (d == 0) return;
  let neg = d < 0;
  const e = table + <usize>(((neg ? -d : d) - 1) >> 1) * GE;
  if (neg != negate) {
    feCopy(P_TMP, e);
    feNeg(P_TMP + FE, e + FE, 1);
    feNormWeak(P_TMP + FE, P_TMP + FE);
    gejAddGeVar(r, r, P_TMP);
  } else {
    gejAddGeVar(r, r, e);
  }
}

/**
 * r = u1·G + u2·Q (Jacobian; may be infinity), Q affine on the curve. Variable time:
 * verification and recovery only.
 */
export function ecmultDoubleVar(r: usize, u1: usize, q: usize, u2: usize): void {
  ensureTables();
  const a1 = S_TMP, a2 = S_TMP + SC, b1 = S_TMP + 2 * SC, b2 = S_TMP + 3 * SC;
  scSplitLambda(a1, a2, u1);
  scSplitLambda(b1, b2, u2);
  // Each half as (magnitude, sign): magnitudes < 2^128.
  const na1 = scIsHigh(a1) != 0, na2 = scIsHigh(a2) != 0, nb1 = scIsHigh(b1) != 0, nb2 = scIsHigh(b2) != 0;
  if (na1) scNeg(a1, a1);
  if (na2) scNeg(a2, a2);
  if (nb1) scNeg(b1, b1);
  if (nb2) scNeg(b2, b2);
  const n0 = NAF, n1 = NAF + 4 * WNAF_LEN, n2 = NAF + 8 * WNAF_LEN, n3 = NAF + 12 * WNAF_LEN;
  let len = wnafVar(n0, a1, WNAF_G);
  len = max(len, wnafVar(n1, a2, WNAF_G));
  len = max(len, wnafVar(n2, b1, WNAF_Q));
  len = max(len, wnafVar(n3, b2, WNAF_Q));
  buildOddMultiples(Q_ODD, q, Q_ODD_COUNT);
  for (let i = 0; i < Q_ODD_COUNT; i++) {
    const src = Q_ODD + <usize>i * GE, dst = Q_ODD_LAM + <usize>i * GE;
    feMul(dst, src, BETA);
    feCopy(dst + FE, src + FE);
  }
  gejSetInf(r);
  for (let i = len - 1; i >= 0; i--) {
    if (!gejIsInf(r)) gejDouble(r, r);
    const o = <usize>i << 2;
    addDigit(r, G_ODD, load<i32>(n0 + o), na1);
    addDigit(r, G_ODD_LAM, load<i32>(n1 + o), na2);
    addDigit(r, Q_ODD, load<i32>(n2 + o), nb1);
    addDigit(r, Q_ODD_LAM, load<i32>(n3 + o), nb2);
  }
}

/** The generator, affine (after ensureTables). */
export function generatorGe(): usize {
  ensureTables();
  return G_AFF;
}
