// 4-way SHA-256 for batches: four messages of the same length at once, message k in lane k of
// every i32x4 value. Same algorithm as sha256.ts (FIPS 180-4 §6.2, RFC 6234 names), on vectors.
//
// Why: batches hash many equal-length items (headers, Merkle nodes). A SIMD round costs about
// 1.6 times a scalar one (WASM SIMD has no rotate, so each rotation is two shifts and an OR) but
// does four messages, so throughput is about 2.5 times the scalar code. Equal lengths mean every
// lane has the same number of blocks and the same padding layout, so no lane ever idles.

import { SHA256_H0, SHA256_K, SHA256_PAD64_W } from './sha256';

/** K[t] in all four lanes (FIPS 180-4 §4.2.2), splatted once at instantiation. */
const K4: usize = memory.data(64 * 16, 16);
/** Schedule of the 64-byte message padding block in all four lanes (see SHA256_PAD64_W). */
const PAD64_W4: usize = memory.data(64 * 16, 16);
/** Message schedule W0..W63, one v128 per word. */
const W4: usize = memory.data(64 * 16, 16);
/** Chaining values H0..H7, one v128 per word. */
const H4: usize = memory.data(8 * 16, 16);
/** Each lane's padded last block or two (FIPS 180-4 §5.1.1), lane k at 128k. */
const TAIL4: usize = memory.data(4 * 128, 16);

@inline function ROTR(x: v128, n: i32): v128 {
  return v128.or(i32x4.shr_u(x, n), i32x4.shl(x, 32 - n));
}

/** Ch(x, y, z): where x is 1 take y, else z; exactly a bitselect. */
@inline function CH(x: v128, y: v128, z: v128): v128 {
  return v128.bitselect(y, z, x);
}

/** Maj(x, y, z): where x and y agree that bit, else z. */
@inline function MAJ(x: v128, y: v128, z: v128): v128 {
  return v128.bitselect(z, x, v128.xor(x, y));
}

@inline function BSIG0(x: v128): v128 {
  return v128.xor(v128.xor(ROTR(x, 2), ROTR(x, 13)), ROTR(x, 22));
}

@inline function BSIG1(x: v128): v128 {
  return v128.xor(v128.xor(ROTR(x, 6), ROTR(x, 11)), ROTR(x, 25));
}

@inline function SSIG0(x: v128): v128 {
  return v128.xor(v128.xor(ROTR(x, 7), ROTR(x, 18)), i32x4.shr_u(x, 3));
}

@inline function SSIG1(x: v128): v128 {
  return v128.xor(v128.xor(ROTR(x, 17), ROTR(x, 19)), i32x4.shr_u(x, 10));
}

@inline function ADD(a: v128, b: v128): v128 {
  return i32x4.add(a, b);
}

/**
 * Loads the four big-endian words at byte offset `off` of the messages at p0..p3 and transposes
 * them into the four schedule words at w: word i of w gets word i of every message, in lane
 * order. Two byte shuffles interleave pairs of messages and byte-swap each word in the same
 * step; two 64-bit shuffles finish the 4×4 transpose.
 */
@inline function loadWords(w: usize, p0: usize, p1: usize, p2: usize, p3: usize, off: usize): void {
  const r0 = v128.load(p0 + off);
  const r1 = v128.load(p1 + off);
  const r2 = v128.load(p2 + off);
  const r3 = v128.load(p3 + off);
  // (bswap r0[0], bswap r1[0], bswap r0[1], bswap r1[1]) and the same for words 2, 3.
  const t0 = i8x16.shuffle(r0, r1, 3, 2, 1, 0, 19, 18, 17, 16, 7, 6, 5, 4, 23, 22, 21, 20);
  const t1 = i8x16.shuffle(r0, r1, 11, 10, 9, 8, 27, 26, 25, 24, 15, 14, 13, 12, 31, 30, 29, 28);
  const t2 = i8x16.shuffle(r2, r3, 3, 2, 1, 0, 19, 18, 17, 16, 7, 6, 5, 4, 23, 22, 21, 20);
  const t3 = i8x16.shuffle(r2, r3, 11, 10, 9, 8, 27, 26, 25, 24, 15, 14, 13, 12, 31, 30, 29, 28);
  v128.store(w, i64x2.shuffle(t0, t2, 0, 2), 0);
  v128.store(w, i64x2.shuffle(t0, t2, 1, 3), 16);
  v128.store(w, i64x2.shuffle(t1, t3, 0, 2), 32);
  v128.store(w, i64x2.shuffle(t1, t3, 1, 3), 48);
}

/** W16..W63 from W0..W15 (FIPS 180-4 §6.2.2 step 1), four lanes at once. */
@inline function expandSchedule(): void {
  for (let t: usize = 16 << 4; t < 64 << 4; t += 16) {
    const p = W4 + t;
    v128.store(p, ADD(ADD(SSIG1(v128.load(p - 32)), v128.load(p - 112)), ADD(SSIG0(v128.load(p - 240)), v128.load(p - 256))));
  }
}

/** The 64 rounds over the schedule at w, added into H4 (FIPS 180-4 §6.2.2 steps 2-4). */
function rounds(w: usize): void {
  let a = v128.load(H4, 0);
  let b = v128.load(H4, 16);
  let c = v128.load(H4, 32);
  let d = v128.load(H4, 48);
  let e = v128.load(H4, 64);
  let f = v128.load(H4, 80);
  let g = v128.load(H4, 96);
  let hh = v128.load(H4, 112);
  let t1: v128;
  // Eight rounds per iteration with rotating roles, as in sha256.ts `rounds`.
  for (let t: usize = 0; t < 64 << 4; t += 128) {
    const k = K4 + t;
    const x = w + t;
    t1 = ADD(ADD(ADD(hh, BSIG1(e)), ADD(CH(e, f, g), v128.load(k, 0))), v128.load(x, 0));
    d = ADD(d, t1);
    hh = ADD(t1, ADD(BSIG0(a), MAJ(a, b, c)));
    t1 = ADD(ADD(ADD(g, BSIG1(d)), ADD(CH(d, e, f), v128.load(k, 16))), v128.load(x, 16));
    c = ADD(c, t1);
    g = ADD(t1, ADD(BSIG0(hh), MAJ(hh, a, b)));
    t1 = ADD(ADD(ADD(f, BSIG1(c)), ADD(CH(c, d, e), v128.load(k, 32))), v128.load(x, 32));
    b = ADD(b, t1);
    f = ADD(t1, ADD(BSIG0(g), MAJ(g, hh, a)));
    t1 = ADD(ADD(ADD(e, BSIG1(b)), ADD(CH(b, c, d), v128.load(k, 48))), v128.load(x, 48));
    a = ADD(a, t1);
    e = ADD(t1, ADD(BSIG0(f), MAJ(f, g, hh)));
    t1 = ADD(ADD(ADD(d, BSIG1(a)), ADD(CH(a, b, c), v128.load(k, 64))), v128.load(x, 64));
    hh = ADD(hh, t1);
    d = ADD(t1, ADD(BSIG0(e), MAJ(e, f, g)));
    t1 = ADD(ADD(ADD(c, BSIG1(hh)), ADD(CH(hh, a, b), v128.load(k, 80))), v128.load(x, 80));
    g = ADD(g, t1);
    c = ADD(t1, ADD(BSIG0(d), MAJ(d, e, f)));
    t1 = ADD(ADD(ADD(b, BSIG1(g)), ADD(CH(g, hh, a), v128.load(k, 96))), v128.load(x, 96));
    f = ADD(f, t1);
    b = ADD(t1, ADD(BSIG0(c), MAJ(c, d, e)));
    t1 = ADD(ADD(ADD(a, BSIG1(f)), ADD(CH(f, g, hh), v128.load(k, 112))), v128.load(x, 112));
    e = ADD(e, t1);
    a = ADD(t1, ADD(BSIG0(b), MAJ(b, c, d)));
  }
  v128.store(H4, ADD(v128.load(H4, 0), a), 0);
  v128.store(H4, ADD(v128.load(H4, 16), b), 16);
  v128.store(H4, ADD(v128.load(H4, 32), c), 32);
  v128.store(H4, ADD(v128.load(H4, 48), d), 48);
  v128.store(H4, ADD(v128.load(H4, 64), e), 64);
  v128.store(H4, ADD(v128.load(H4, 80), f), 80);
  v128.store(H4, ADD(v128.load(H4, 96), g), 96);
  v128.store(H4, ADD(v128.load(H4, 112), hh), 112);
}

/** Compresses block `off` of each of the four messages at p0..p3 into H4. */
function compressBlocks(p0: usize, p1: usize, p2: usize, p3: usize, off: usize): void {
  for (let i: usize = 0; i < 64; i += 16) {
    loadWords(W4 + (i << 2), p0, p1, p2, p3, off + i);
  }
  expandSchedule();
  rounds(W4);
}

@inline function resetH4(): void {
  for (let j: usize = 0; j < 8; j++) {
    v128.store(H4 + (j << 4), i32x4.splat(load<u32>(SHA256_H0 + (j << 2))));
  }
}

/**
 * Writes the big-endian digest of lane k to dst_k: the inverse transpose of loadWords, H4 words
 * 0..3 then 4..7, byte-swapped on the way.
 */
@inline function storeDigests(d0: usize, d1: usize, d2: usize, d3: usize): void {
  for (let j: usize = 0; j < 32; j += 16) {
    const h0 = v128.load(H4 + (j << 2), 0);
    const h1 = v128.load(H4 + (j << 2), 16);
    const h2 = v128.load(H4 + (j << 2), 32);
    const h3 = v128.load(H4 + (j << 2), 48);
    const t0 = i8x16.shuffle(h0, h1, 3, 2, 1, 0, 19, 18, 17, 16, 7, 6, 5, 4, 23, 22, 21, 20);
    const t1 = i8x16.shuffle(h0, h1, 11, 10, 9, 8, 27, 26, 25, 24, 15, 14, 13, 12, 31, 30, 29, 28);
    const t2 = i8x16.shuffle(h2, h3, 3, 2, 1, 0, 19, 18, 17, 16, 7, 6, 5, 4, 23, 22, 21, 20);
    const t3 = i8x16.shuffle(h2, h3, 11, 10, 9, 8, 27, 26, 25, 24, 15, 14, 13, 12, 31, 30, 29, 28);
    v128.store(d0 + j, i64x2.shuffle(t0, t2, 0, 2));
    v128.store(d1 + j, i64x2.shuffle(t0, t2, 1, 3));
    v128.store(d2 + j, i64x2.shuffle(t1, t3, 0, 2));
    v128.store(d3 + j, i64x2.shuffle(t1, t3, 1, 3));
  }
}

/** Pads the last `rest` bytes at src into lane k's tail blocks; returns how many blocks (1 or 2). */
@inline function padTail(k: usize, src: usize, rest: usize, bitLen: u64): usize {
  const tail = TAIL4 + (k << 7);
  const blocks: usize = rest + 9 > 64 ? 2 : 1;
  memory.copy(tail, src, rest);
  store<u8>(tail + rest, 0x80);
  memory.fill(tail + rest + 1, 0, (blocks << 6) - rest - 9);
  store<u64>(tail + (blocks << 6) - 8, bswap<u64>(bitLen));
  return blocks;
}

/**
 * SHA-256 (or SHA-256d when `double`) of the four `len`-byte messages starting at src, src+len,
 * src+2·len, src+3·len into dst, dst+32, dst+64, dst+96.
 */
export function sha256x4Into(src: usize, len: i32, dst: usize, double: bool): void {
  const n = <usize>len;
  const p0 = src;
  const p1 = src + n;
  const p2 = p1 + n;
  const p3 = p2 + n;
  resetH4();
  const whole = n & ~63;
  for (let off: usize = 0; off < whole; off += 64) {
    compressBlocks(p0, p1, p2, p3, off);
  }
  if (n == 64) {
    // The padding block of a 64-byte message is constant: its schedule is precomputed.
    rounds(PAD64_W4);
  } else {
    const rest = n - whole;
    const bitLen = <u64>n << 3;
    const blocks = padTail(0, p0 + whole, rest, bitLen);
    padTail(1, p1 + whole, rest, bitLen);
    padTail(2, p2 + whole, rest, bitLen);
    padTail(3, p3 + whole, rest, bitLen);
    for (let off: usize = 0; off < blocks << 6; off += 64) {
      compressBlocks(TAIL4, TAIL4 + 128, TAIL4 + 256, TAIL4 + 384, off);
    }
  }
  if (double) {
    // Second pass: the 32-byte digest is one block whose words are H4 itself (the digest is H
    // written big-endian, and W words are read big-endian), then 0x80…, bit length 256.
    for (let j: usize = 0; j < 128; j += 16) {
      v128.store(W4 + j, v128.load(H4 + j));
    }
    v128.store(W4 + (8 << 4), i32x4.splat(0x80000000));
    memory.fill(W4 + (9 << 4), 0, 6 << 4);
    v128.store(W4 + (15 << 4), i32x4.splat(256));
    expandSchedule();
    resetH4();
    rounds(W4);
  }
  storeDigests(dst, dst + 32, dst + 64, dst + 96);
}

// Splatted tables, built once at instantiation (sha256.ts has built SHA256_PAD64_W by then: it
// is imported first, and AS runs top-level statements in import order).
for (let t: usize = 0; t < 64; t++) {
  v128.store(K4 + (t << 4), i32x4.splat(load<u32>(SHA256_K + (t << 2))));
  v128.store(PAD64_W4 + (t << 4), i32x4.splat(load<u32>(SHA256_PAD64_W + (t << 2))));
}
