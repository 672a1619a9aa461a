// SHA-256 (FIPS 180-4 §6.2) over raw memory: no allocation, no GC object, only static scratch.
//
// Other AS modules use the stable entry points below (the secp256k1 area hashes messages and runs
// RFC 6979 through HMAC on top of them):
//   sha256Into(src, len, dst)   one-shot digest of [src, src+len) into dst[0..32)
//   sha256dInto(src, len, dst)  SHA-256(SHA-256(x)), the DeSo/Bitcoin double hash
// and the streaming context functions sha256Reset / sha256Absorb / sha256Finish for callers that
// keep their own 128-byte context (HMAC keeps two). Batches of equal-length items go through the
// 4-way SIMD version in sha256x4.ts, which shares the constant tables exported here.
//
// Function names follow RFC 6234 §5.1 (CH, MAJ, BSIG0, BSIG1, SSIG0, SSIG1), which are
// FIPS 180-4 §4.1.2's Ch, Maj, Σ0, Σ1, σ0, σ1.

/** Round constants K0..K63 (FIPS 180-4 §4.2.2): the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
// prettier-ignore
export const SHA256_K: usize = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
], 16);

/** Initial hash value H(0) (FIPS 180-4 §5.3.3): the first 32 bits of the fractional parts of the square roots of the first 8 primes. */
// prettier-ignore
export const SHA256_H0: usize = memory.data<u32>([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
], 16);

/** Message schedule W0..W63 of the block being compressed (FIPS 180-4 §6.2.2 step 1). */
const W: usize = memory.data(64 * 4, 16);

/**
 * Schedule of the padding block of a 64-byte message (0x80, 55 zero bytes, bit length 512).
 * That block is the same for every 64-byte message, so its schedule is expanded once here and
 * hashing 64 bytes (a Merkle node: left‖right) skips that block's whole schedule step (16 loads
 * and 48 expansions), about a third of its compression.
 */
export const SHA256_PAD64_W: usize = memory.data(64 * 4, 16);

/** Bytes a caller reserves for one streaming context (see the CTX_* layout). */
export const SHA256_CTX_BYTES: i32 = 128;
// Context layout: chaining value H0..H7 as native u32, then a 64-byte partial block, its fill,
// and the total message length in bytes (FIPS 180-4 §5.1.1 caps it at 2^64 bits; u64 bytes is ample).
const CTX_H: usize = 0;
const CTX_BUF: usize = 32;
const CTX_FILL: usize = 96;
const CTX_TOTAL: usize = 104;

/** Context behind the one-shot sha256Into; callers with their own streams use their own context. */
const ONE_SHOT: usize = memory.data(SHA256_CTX_BYTES, 16);
/** First digest of sha256dInto, hashed again. */
const INNER: usize = memory.data(32, 16);

@inline function CH(x: u32, y: u32, z: u32): u32 {
  // (x & y) ^ (~x & z), one operation shorter: where x is 1 take y, else z.
  return z ^ (x & (y ^ z));
}

@inline function MAJ(x: u32, y: u32, z: u32): u32 {
  // (x & y) ^ (x & z) ^ (y & z), one operation shorter.
  return (x & y) | (z & (x | y));
}

@inline function BSIG0(x: u32): u32 {
  return rotr<u32>(x, 2) ^ rotr<u32>(x, 13) ^ rotr<u32>(x, 22);
}

@inline function BSIG1(x: u32): u32 {
  return rotr<u32>(x, 6) ^ rotr<u32>(x, 11) ^ rotr<u32>(x, 25);
}

@inline function SSIG0(x: u32): u32 {
  return rotr<u32>(x, 7) ^ rotr<u32>(x, 18) ^ (x >>> 3);
}

@inline function SSIG1(x: u32): u32 {
  return rotr<u32>(x, 17) ^ rotr<u32>(x, 19) ^ (x >>> 10);
}

/** Big-endian 32-bit word at p (FIPS 180-4 §3.1: words are big-endian; WASM memory is little-endian). */
@inline function loadBE32(p: usize): u32 {
  return bswap<u32>(load<u32>(p));
}

/** W16..W63 from W0..W15 (FIPS 180-4 §6.2.2 step 1). */
@inline function expandSchedule(w: usize): void {
  for (let t: usize = 16; t < 64; t++) {
    const p = w + (t << 2);
    store<u32>(p, SSIG1(load<u32>(p - 8)) + load<u32>(p - 28) + SSIG0(load<u32>(p - 60)) + load<u32>(p - 64));
  }
}

/**
 * The 64 rounds over a ready schedule, added into the chaining value at h
 * (FIPS 180-4 §6.2.2 steps 2-4).
 */
@inline function rounds(h: usize, w: usize): void {
  let a = load<u32>(h, 0);
  let b = load<u32>(h, 4);
  let c = load<u32>(h, 8);
  let d = load<u32>(h, 12);
  let e = load<u32>(h, 16);
  let f = load<u32>(h, 20);
  let g = load<u32>(h, 24);
  let hh = load<u32>(h, 28);
  let t1: u32;
  // Eight rounds per iteration. A round of §6.2.2 step 3 moves every working variable down one
  // place; instead the names rotate: each line computes T1, adds it into the variable playing d
  // (the new e), and writes T1 + T2 into the variable playing h (the new a). After eight lines
  // every variable is back in its own role, so no value is ever copied.
  for (let t: usize = 0; t < 256; t += 32) {
    const k = SHA256_K + t;
    const x = w + t;
    t1 = hh + BSIG1(e) + CH(e, f, g) + load<u32>(k, 0) + load<u32>(x, 0);
    d += t1;
    hh = t1 + BSIG0(a) + MAJ(a, b, c);
    t1 = g + BSIG1(d) + CH(d, e, f) + load<u32>(k, 4) + load<u32>(x, 4);
    c += t1;
    g = t1 + BSIG0(hh) + MAJ(hh, a, b);
    t1 = f + BSIG1(c) + CH(c, d, e) + load<u32>(k, 8) + load<u32>(x, 8);
    b += t1;
    f = t1 + BSIG0(g) + MAJ(g, hh, a);
    t1 = e + BSIG1(b) + CH(b, c, d) + load<u32>(k, 12) + load<u32>(x, 12);
    a += t1;
    e = t1 + BSIG0(f) + MAJ(f, g, hh);
    t1 = d + BSIG1(a) + CH(a, b, c) + load<u32>(k, 16) + load<u32>(x, 16);
    hh += t1;
    d = t1 + BSIG0(e) + MAJ(e, f, g);
    t1 = c + BSIG1(hh) + CH(hh, a, b) + load<u32>(k, 20) + load<u32>(x, 20);
    g += t1;
    c = t1 + BSIG0(d) + MAJ(d, e, f);
    t1 = b + BSIG1(g) + CH(g, hh, a) + load<u32>(k, 24) + load<u32>(x, 24);
    f += t1;
    b = t1 + BSIG0(c) + MAJ(c, d, e);
    t1 = a + BSIG1(f) + CH(f, g, hh) + load<u32>(k, 28) + load<u32>(x, 28);
    e += t1;
    a = t1 + BSIG0(b) + MAJ(b, c, d);
  }
  store<u32>(h, load<u32>(h, 0) + a, 0);
  store<u32>(h, load<u32>(h, 4) + b, 4);
  store<u32>(h, load<u32>(h, 8) + c, 8);
  store<u32>(h, load<u32>(h, 12) + d, 12);
  store<u32>(h, load<u32>(h, 16) + e, 16);
  store<u32>(h, load<u32>(h, 20) + f, 20);
  store<u32>(h, load<u32>(h, 24) + g, 24);
  store<u32>(h, load<u32>(h, 28) + hh, 28);
}

/** Compresses the 64-byte block at `block` (any alignment) into the chaining value at h. */
function compress(h: usize, block: usize): void {
  for (let t: usize = 0; t < 64; t += 4) {
    store<u32>(W + t, loadBE32(block + t));
  }
  expandSchedule(W);
  rounds(h, W);
}

/** The padding block of a 64-byte message, from its precomputed schedule. */
function compressPad64(h: usize): void {
  rounds(h, SHA256_PAD64_W);
}

/** Writes the chaining value at h to dst as the big-endian digest (FIPS 180-4 §6.2.2, final H). */
@inline function writeDigest(h: usize, dst: usize): void {
  for (let i: usize = 0; i < 32; i += 4) {
    store<u32>(dst + i, bswap<u32>(load<u32>(h + i)));
  }
}

/** Starts a new message in the context at ctx. */
export function sha256Reset(ctx: usize): void {
  memory.copy(ctx + CTX_H, SHA256_H0, 32);
  store<i32>(ctx + CTX_FILL, 0);
  store<u64>(ctx + CTX_TOTAL, 0);
}

/**
 * Adds [src, src+len) to the message. Whole blocks are compressed straight from src; only a
 * partial block is copied into the context.
 */
export function sha256Absorb(ctx: usize, src: usize, len: i32): void {
  if (len <= 0) return;
  store<u64>(ctx + CTX_TOTAL, load<u64>(ctx + CTX_TOTAL) + <u64>len);
  let fill = load<i32>(ctx + CTX_FILL);
  let n = <usize>len;
  if (fill > 0) {
    const take = min<usize>(64 - <usize>fill, n);
    memory.copy(ctx + CTX_BUF + <usize>fill, src, take);
    fill += <i32>take;
    src += take;
    n -= take;
    if (fill < 64) {
      store<i32>(ctx + CTX_FILL, fill);
      return;
    }
    compress(ctx + CTX_H, ctx + CTX_BUF);
    fill = 0;
  }
  while (n >= 64) {
    compress(ctx + CTX_H, src);
    src += 64;
    n -= 64;
  }
  if (n > 0) memory.copy(ctx + CTX_BUF, src, n);
  store<i32>(ctx + CTX_FILL, <i32>n);
}

/**
 * Pads (FIPS 180-4 §5.1.1: a 1 bit, zeros, the 64-bit big-endian bit length), compresses the
 * last block(s) and writes the 32-byte digest to dst. The context must be reset before reuse.
 */
export function sha256Finish(ctx: usize, dst: usize): void {
  const h = ctx + CTX_H;
  const buf = ctx + CTX_BUF;
  const total = load<u64>(ctx + CTX_TOTAL);
  let fill = <usize>load<i32>(ctx + CTX_FILL);
  if (total == 64) {
    // The padding block of a 64-byte message is constant: use its precomputed schedule.
    compressPad64(h);
  } else {
    store<u8>(buf + fill, 0x80);
    fill++;
    if (fill > 56) {
      // No room for the length in this block: pad it out and put the length in one more.
      memory.fill(buf + fill, 0, 64 - fill);
      compress(h, buf);
      fill = 0;
    }
    memory.fill(buf + fill, 0, 56 - fill);
    store<u64>(buf + 56, bswap<u64>(total << 3));
    compress(h, buf);
  }
  writeDigest(h, dst);
}

/** SHA-256 of the 32 bytes at src into dst: the second pass of SHA-256d, one block built in place. */
function sha256Of32(src: usize, dst: usize): void {
  // The block is the 32 bytes, 0x80, zeros and the bit length 256 (FIPS 180-4 §5.1.1), so the
  // schedule's first 16 words are written directly instead of going through a padded buffer.
  for (let t: usize = 0; t < 32; t += 4) {
    store<u32>(W + t, loadBE32(src + t));
  }
  store<u32>(W, 0x80000000, 32);
  memory.fill(W + 36, 0, 24);
  store<u32>(W, 256, 60);
  expandSchedule(W);
  const h = ONE_SHOT + CTX_H;
  memory.copy(h, SHA256_H0, 32);
  rounds(h, W);
  writeDigest(h, dst);
}

/** SHA-256 of [src, src+len) into dst[0..32). dst may overlap src. */
export function sha256Into(src: usize, len: i32, dst: usize): void {
  sha256Reset(ONE_SHOT);
  sha256Absorb(ONE_SHOT, src, len);
  sha256Finish(ONE_SHOT, dst);
}

/** SHA-256(SHA-256(x)) of [src, src+len) into dst[0..32). dst may overlap src. */
export function sha256dInto(src: usize, len: i32, dst: usize): void {
  sha256Into(src, len, INNER);
  sha256Of32(INNER, dst);
}

/** Second pass of SHA-256d for a caller that ran the first pass on its own context. */
export function sha256Digest32Into(src: usize, dst: usize): void {
  sha256Of32(src, dst);
}

// The padding block of a 64-byte message, expanded once at instantiation (see SHA256_PAD64_W).
store<u32>(SHA256_PAD64_W, 0x80000000, 0);
memory.fill(SHA256_PAD64_W + 4, 0, 56);
store<u32>(SHA256_PAD64_W, 512, 60);
expandSchedule(SHA256_PAD64_W);
