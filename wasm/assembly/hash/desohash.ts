// DeSoHashV1, the proof-of-work hash of block headers v1 (node-api.md §5.5):
//
//   DeSoHashV1(x) = sha3m-256(x) XOR MIX
//
// where sha3m-256 is SHA3-256 (FIPS 202: rate 1088 bits, domain padding 0x06 … 0x80, 24 rounds
// of Keccak-p[1600]) except that after each round's χ and ι steps every lane goes through the
// bit permutation P below. Everything else (θ, ρ, π, χ, ι, round constants) is FIPS 202 §3.2.

/** Sponge rate of SHA3-256 in bytes (FIPS 202 §6.1: r = 1600 - 2·256 bits). */
const RATE: i32 = 136;
/** Lanes absorbed per block (RATE / 8). */
const RATE_LANES: i32 = 17;
/** Bytes of a v1 header (node-api.md §5.5). */
export const HEADER_V1_BYTES: i32 = 100;
/** Offset of the u64 big-endian Nonce in a v1 header: Version(4) ‖ Prev(32) ‖ Merkle(32) ‖ Tstamp(8) ‖ Height(8). */
export const HEADER_V1_NONCE_OFFSET: i32 = 84;

/** Round constants RC[ir] for ι (FIPS 202 §3.2.5, Algorithm 5 rc(t), precomputed as is customary). */
// prettier-ignore
const RC: usize = memory.data<u64>([
  0x0000000000000001, 0x0000000000008082, 0x800000000000808a, 0x8000000080008000,
  0x000000000000808b, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
  0x000000000000008a, 0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
  0x000000008000808b, 0x800000000000008b, 0x8000000000008089, 0x8000000000008003,
  0x8000000000008002, 0x8000000000000080, 0x000000000000800a, 0x800000008000000a,
  0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
], 16);

/**
 * The XOR mask applied to the 32-byte sponge output (node-api.md §5.5), read as four
 * little-endian lanes so it applies lane-wise: bytes 8cb3a3bb4949e4ae 468b6e7b4da02e34
 * a55144b8b3e7be49 9855679ed8d0cff5.
 */
// prettier-ignore
const MIX: usize = memory.data<u64>([
  0xaee44949bba3b38c, 0x342ea04d7b6e8b46, 0x49bee7b3b84451a5, 0xf5cfd0d89e675598,
], 16);

/** R of the lane permutation p (node-api.md §5.5); F = 0xC000000000000003 only marks fixed bits (see P). */
const P_R: u64 = 0x2492492492492490;

/** Keccak state: 25 little-endian u64 lanes, lane (x, y) at index x + 5y (FIPS 202 §3.1.2). */
const STATE: usize = memory.data(200, 16);
/**
 * Two interleaved states for the 2-way SIMD permutation: lane i of state 0 at 16i, of state 1
 * at 16i + 8, so one v128 load gives lane i of both.
 */
const STATE2: usize = memory.data(400, 16);

// The permutation is written once, generic over its lane type: u64 hashes one message; v128
// holds the same lane of two messages (i64x2), so batches and mining hash two headers per pass,
// about twice the headers per second of the u64 instantiation (bench/hash.bench.ts) although
// each SIMD rotation is three operations instead of one.
// Each helper picks its operations at compile time (isVector<T>() is a constant, and the
// compiler drops the branch not taken).

@inline function XOR<T>(a: T, b: T): T {
  if (isVector<T>()) return v128.xor(a, b);
  return a ^ b;
}

/** ~a & b, the χ term. */
@inline function ANDN<T>(a: T, b: T): T {
  if (isVector<T>()) return v128.andnot(b, a);
  return ~a & b;
}

/** Rotate each 64-bit lane left by n (1..63); WASM SIMD has no rotate, so two shifts. */
@inline function ROT<T>(x: T, n: i32): T {
  if (isVector<T>()) return v128.or(i64x2.shl(x, n), i64x2.shr_u(x, 64 - n));
  return rotl<u64>(x, <u64>n);
}

/**
 * p(a) = ((a & R) >> 2) | ((R >> 1) & a) | (((R >> 2) & a) << 2) | (a & F)   (node-api.md §5.5)
 *
 * R has bits 4, 7, …, 61; R >> 1 bits 3, 6, …, 60; R >> 2 bits 2, 5, …, 59; F bits 0, 1, 62, 63.
 * Those four masks partition the 64 bits, so p swaps bit j with bit j + 2 for every j in R >> 2
 * and keeps the rest. That swap is written as one delta swap (6 operations instead of 9); the
 * JS port in bench/baselines/desoHashV1.ts keeps the literal formula and the tests compare both.
 */
@inline function P<T>(a: T): T {
  if (isVector<T>()) {
    const t = v128.and(v128.xor(a, i64x2.shr_u(a, 2)), i64x2.splat(P_R >> 2));
    return v128.xor(v128.xor(a, t), i64x2.shl(t, 2));
  }
  const t = (a ^ (a >> 2)) & (P_R >> 2);
  return a ^ t ^ (t << 2);
}

/** ι's round constant for round index ir (byte offset into RC), in every lane. */
@inline function RCAT<T>(ir: usize): T {
  if (isVector<T>()) return i64x2.splat(load<u64>(RC + ir));
  return load<u64>(RC + ir);
}

/** Lane i of the state at s (lanes of T's size, packed). */
@inline function LANE<T>(s: usize, i: usize): T {
  return load<T>(s + i * sizeof<T>());
}

@inline function SETLANE<T>(s: usize, i: usize, v: T): void {
  store<T>(s + i * sizeof<T>(), v);
}

/**
 * The 24 modified Keccak-p[1600] rounds over the state at s (FIPS 202 §3.3 Rnd = ι∘χ∘π∘ρ∘θ,
 * then P on every lane). Fully unrolled over locals: lane aXY is (x = X, y = Y); bXY is
 * B[X, Y] = ρπ output, B[y, 2x + 3y] = ROT(A[x, y], r[x, y]) with r from FIPS 202 Table 2.
 */
@inline function keccakRounds<T>(s: usize): void {
  let a00 = LANE<T>(s, 0), a10 = LANE<T>(s, 1), a20 = LANE<T>(s, 2), a30 = LANE<T>(s, 3), a40 = LANE<T>(s, 4);
  let a01 = LANE<T>(s, 5), a11 = LANE<T>(s, 6), a21 = LANE<T>(s, 7), a31 = LANE<T>(s, 8), a41 = LANE<T>(s, 9);
  let a02 = LANE<T>(s, 10), a12 = LANE<T>(s, 11), a22 = LANE<T>(s, 12), a32 = LANE<T>(s, 13), a42 = LANE<T>(s, 14);
  let a03 = LANE<T>(s, 15), a13 = LANE<T>(s, 16), a23 = LANE<T>(s, 17), a33 = LANE<T>(s, 18), a43 = LANE<T>(s, 19);
  let a04 = LANE<T>(s, 20), a14 = LANE<T>(s, 21), a24 = LANE<T>(s, 22), a34 = LANE<T>(s, 23), a44 = LANE<T>(s, 24);

  for (let ir: usize = 0; ir < 24 * 8; ir += 8) {
    // θ (§3.2.1): C[x] = column parity, D[x] = C[x-1] ^ ROT(C[x+1], 1), A[x, y] ^= D[x].
    const c0 = XOR<T>(XOR<T>(XOR<T>(XOR<T>(a00, a01), a02), a03), a04);
    const c1 = XOR<T>(XOR<T>(XOR<T>(XOR<T>(a10, a11), a12), a13), a14);
    const c2 = XOR<T>(XOR<T>(XOR<T>(XOR<T>(a20, a21), a22), a23), a24);
    const c3 = XOR<T>(XOR<T>(XOR<T>(XOR<T>(a30, a31), a32), a33), a34);
    const c4 = XOR<T>(XOR<T>(XOR<T>(XOR<T>(a40, a41), a42), a43), a44);
    const d0 = XOR<T>(c4, ROT<T>(c1, 1));
    const d1 = XOR<T>(c0, ROT<T>(c2, 1));
    const d2 = XOR<T>(c1, ROT<T>(c3, 1));
    const d3 = XOR<T>(c2, ROT<T>(c4, 1));
    const d4 = XOR<T>(c3, ROT<T>(c0, 1));

    // ρ (§3.2.2) and π (§3.2.3) together, θ's D folded in.
    const b00 = XOR<T>(a00, d0);
    const b02 = ROT<T>(XOR<T>(a10, d1), 1);
    const b04 = ROT<T>(XOR<T>(a20, d2), 62);
    const b01 = ROT<T>(XOR<T>(a30, d3), 28);
    const b03 = ROT<T>(XOR<T>(a40, d4), 27);
    const b13 = ROT<T>(XOR<T>(a01, d0), 36);
    const b10 = ROT<T>(XOR<T>(a11, d1), 44);
    const b12 = ROT<T>(XOR<T>(a21, d2), 6);
    const b14 = ROT<T>(XOR<T>(a31, d3), 55);
    const b11 = ROT<T>(XOR<T>(a41, d4), 20);
    const b21 = ROT<T>(XOR<T>(a02, d0), 3);
    const b23 = ROT<T>(XOR<T>(a12, d1), 10);
    const b20 = ROT<T>(XOR<T>(a22, d2), 43);
    const b22 = ROT<T>(XOR<T>(a32, d3), 25);
    const b24 = ROT<T>(XOR<T>(a42, d4), 39);
    const b34 = ROT<T>(XOR<T>(a03, d0), 41);
    const b31 = ROT<T>(XOR<T>(a13, d1), 45);
    const b33 = ROT<T>(XOR<T>(a23, d2), 15);
    const b30 = ROT<T>(XOR<T>(a33, d3), 21);
    const b32 = ROT<T>(XOR<T>(a43, d4), 8);
    const b42 = ROT<T>(XOR<T>(a04, d0), 18);
    const b44 = ROT<T>(XOR<T>(a14, d1), 2);
    const b41 = ROT<T>(XOR<T>(a24, d2), 61);
    const b43 = ROT<T>(XOR<T>(a34, d3), 56);
    const b40 = ROT<T>(XOR<T>(a44, d4), 14);

    // χ (§3.2.4): A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y]); ι (§3.2.5) on lane (0, 0);
    // then the DeSo change: P on every lane.
    a00 = P<T>(XOR<T>(XOR<T>(b00, ANDN<T>(b10, b20)), RCAT<T>(ir)));
    a10 = P<T>(XOR<T>(b10, ANDN<T>(b20, b30)));
    a20 = P<T>(XOR<T>(b20, ANDN<T>(b30, b40)));
    a30 = P<T>(XOR<T>(b30, ANDN<T>(b40, b00)));
    a40 = P<T>(XOR<T>(b40, ANDN<T>(b00, b10)));
    a01 = P<T>(XOR<T>(b01, ANDN<T>(b11, b21)));
    a11 = P<T>(XOR<T>(b11, ANDN<T>(b21, b31)));
    a21 = P<T>(XOR<T>(b21, ANDN<T>(b31, b41)));
    a31 = P<T>(XOR<T>(b31, ANDN<T>(b41, b01)));
    a41 = P<T>(XOR<T>(b41, ANDN<T>(b01, b11)));
    a02 = P<T>(XOR<T>(b02, ANDN<T>(b12, b22)));
    a12 = P<T>(XOR<T>(b12, ANDN<T>(b22, b32)));
    a22 = P<T>(XOR<T>(b22, ANDN<T>(b32, b42)));
    a32 = P<T>(XOR<T>(b32, ANDN<T>(b42, b02)));
    a42 = P<T>(XOR<T>(b42, ANDN<T>(b02, b12)));
    a03 = P<T>(XOR<T>(b03, ANDN<T>(b13, b23)));
    a13 = P<T>(XOR<T>(b13, ANDN<T>(b23, b33)));
    a23 = P<T>(XOR<T>(b23, ANDN<T>(b33, b43)));
    a33 = P<T>(XOR<T>(b33, ANDN<T>(b43, b03)));
    a43 = P<T>(XOR<T>(b43, ANDN<T>(b03, b13)));
    a04 = P<T>(XOR<T>(b04, ANDN<T>(b14, b24)));
    a14 = P<T>(XOR<T>(b14, ANDN<T>(b24, b34)));
    a24 = P<T>(XOR<T>(b24, ANDN<T>(b34, b44)));
    a34 = P<T>(XOR<T>(b34, ANDN<T>(b44, b04)));
    a44 = P<T>(XOR<T>(b44, ANDN<T>(b04, b14)));
  }

  SETLANE<T>(s, 0, a00); SETLANE<T>(s, 1, a10); SETLANE<T>(s, 2, a20); SETLANE<T>(s, 3, a30); SETLANE<T>(s, 4, a40);
  SETLANE<T>(s, 5, a01); SETLANE<T>(s, 6, a11); SETLANE<T>(s, 7, a21); SETLANE<T>(s, 8, a31); SETLANE<T>(s, 9, a41);
  SETLANE<T>(s, 10, a02); SETLANE<T>(s, 11, a12); SETLANE<T>(s, 12, a22); SETLANE<T>(s, 13, a32); SETLANE<T>(s, 14, a42);
  SETLANE<T>(s, 15, a03); SETLANE<T>(s, 16, a13); SETLANE<T>(s, 17, a23); SETLANE<T>(s, 18, a33); SETLANE<T>(s, 19, a43);
  SETLANE<T>(s, 20, a04); SETLANE<T>(s, 21, a14); SETLANE<T>(s, 22, a24); SETLANE<T>(s, 23, a34); SETLANE<T>(s, 24, a44);
}

/** The permutation on one state (25 u64 lanes at s). */
export function keccakFDeso(s: usize): void {
  keccakRounds<u64>(s);
}

/** The permutation on two interleaved states (STATE2 layout) at once. */
function keccakFDeso2(s: usize): void {
  keccakRounds<v128>(s);
}

/** XORs the last `len` (< RATE) message bytes and the SHA-3 padding into the state. */
@inline function absorbLastBlock(src: usize, len: i32): void {
  // Whole lanes first (a 100-byte header is 12 lanes and 4 bytes), then the odd bytes.
  const lanesEnd = <usize>(len & ~7);
  for (let i: usize = 0; i < lanesEnd; i += 8) {
    store<u64>(STATE + i, load<u64>(STATE + i) ^ load<u64>(src + i));
  }
  for (let i = lanesEnd; i < <usize>len; i++) {
    store<u8>(STATE + i, load<u8>(STATE + i) ^ load<u8>(src + i));
  }
  // SHA-3 domain bits 01 plus the first pad10*1 bit give 0x06; the last pad bit is 0x80 at the
  // end of the rate (FIPS 202 §6.1, Appendix B.2). When len = RATE - 1 they share a byte (0x86).
  store<u8>(STATE + <usize>len, load<u8>(STATE + <usize>len) ^ 0x06);
  store<u8>(STATE + <usize>(RATE - 1), load<u8>(STATE + <usize>(RATE - 1)) ^ 0x80);
}

/**
 * First 32 bytes of a state XOR MIX into dst (the squeeze needs no further permutation:
 * 32 < RATE). The state's lanes are `stride` bytes apart (8 single, 16 interleaved).
 */
@inline function squeezeMixed(state: usize, stride: usize, dst: usize): void {
  for (let i: usize = 0; i < 4; i++) {
    store<u64>(dst + (i << 3), load<u64>(state + i * stride) ^ load<u64>(MIX + (i << 3)));
  }
}

/** Starts a sponge: the all-zero state (FIPS 202 §4, Algorithm 8 step 5). */
export function desoHashV1Reset(): void {
  memory.fill(STATE, 0, 200);
}

/**
 * Absorbs the whole RATE-byte blocks of [src, src+len) (FIPS 202 Algorithm 8 step 6) and
 * returns how many bytes that was. A stream that feeds whole blocks needs no partial-block
 * buffer, so the JS wrapper streams in multiples of RATE.
 */
export function desoHashV1AbsorbBlocks(src: usize, len: i32): i32 {
  let done: i32 = 0;
  while (len - done >= RATE) {
    const block = src + <usize>done;
    for (let i: usize = 0; i < <usize>RATE_LANES * 8; i += 8) {
      store<u64>(STATE + i, load<u64>(STATE + i) ^ load<u64>(block + i));
    }
    keccakFDeso(STATE);
    done += RATE;
  }
  return done;
}

/** Absorbs the rest of the message [src, src+len), pads, and writes the 32-byte hash to dst. */
export function desoHashV1Finish(src: usize, len: i32, dst: usize): void {
  const done = desoHashV1AbsorbBlocks(src, len);
  absorbLastBlock(src + <usize>done, len - done);
  keccakFDeso(STATE);
  squeezeMixed(STATE, 8, dst);
}

/** DeSoHashV1 of [src, src+len) (any length; a v1 header is 100 bytes) into dst[0..32). */
export function desoHashV1Into(src: usize, len: i32, dst: usize): void {
  desoHashV1Reset();
  desoHashV1Finish(src, len, dst);
}

/**
 * Writes the padded 100-byte header at src as the first block into a zeroed state whose lanes
 * are `stride` bytes apart. A header is one block (100 < RATE): lanes 0..11 are header bytes
 * 0..95; lane 12 holds bytes 96..99 and the 0x06 domain/pad byte at 100; lane 16 ends with the
 * final 0x80 pad byte at 135 (FIPS 202 §6.1).
 */
@inline function writeHeaderBlock(state: usize, stride: usize, src: usize): void {
  for (let i: usize = 0; i < 12; i++) {
    store<u64>(state + i * stride, load<u64>(src + (i << 3)));
  }
  store<u64>(state + 12 * stride, <u64>load<u32>(src + 96) | (<u64>0x06 << 32));
  store<u64>(state + 16 * stride, <u64>0x80 << 56);
}

/**
 * DeSoHashV1 of `count` consecutive 100-byte headers at src into dst (32 bytes each), two per
 * permutation with the v128 instantiation; an odd last header goes through the single one.
 */
export function desoHashV1BatchInto(src: usize, count: i32, dst: usize): void {
  let i: i32 = 0;
  for (; i + 2 <= count; i += 2) {
    const a = src + <usize>i * <usize>HEADER_V1_BYTES;
    memory.fill(STATE2, 0, 400);
    writeHeaderBlock(STATE2, 16, a);
    writeHeaderBlock(STATE2 + 8, 16, a + <usize>HEADER_V1_BYTES);
    keccakFDeso2(STATE2);
    const out = dst + (<usize>i << 5);
    squeezeMixed(STATE2, 16, out);
    squeezeMixed(STATE2 + 8, 16, out + 32);
  }
  if (i < count) {
    desoHashV1Into(src + <usize>i * <usize>HEADER_V1_BYTES, HEADER_V1_BYTES, dst + (<usize>i << 5));
  }
}

/** The padded header being mined, its 25 lanes each splatted to both halves of a v128. */
const TEMPLATE2: usize = memory.data(400, 16);

/**
 * Big-endian compare of the 32-byte hash in a state (after MIX) with the target: true iff
 * hash <= target (node-api.md §5.5). Lane i holds bytes 8i..8i+7 little-endian, so its
 * byte-swap is that slice as a big-endian u64. Branches only on public data (the miner's hash).
 */
@inline function hashAtMost(state: usize, stride: usize, target: usize): bool {
  for (let i: usize = 0; i < 4; i++) {
    const h = bswap<u64>(load<u64>(state + i * stride) ^ load<u64>(MIX + (i << 3)));
    const t = bswap<u64>(load<u64>(target + (i << 3)));
    if (h != t) return h < t;
  }
  return true;
}

/**
 * Scans nonces start, start+1, … (count of them, wrapping mod 2^64) in the 100-byte header at
 * `header`, the Nonce being the u64 big-endian at HEADER_V1_NONCE_OFFSET. Returns the index i of
 * the first nonce whose DeSoHashV1 is <= the 32-byte big-endian target, writing that hash to dst;
 * -1 when none in range qualifies. The header bytes themselves are left unchanged.
 */
export function desoHashV1MineInto(header: usize, start: u64, count: i32, target: usize, dst: usize): i32 {
  // Only the Nonce changes between attempts, so the padded block is built once. Lane 10 holds
  // bytes 80..87 (Nonce bytes 0..3 at 84..87), lane 11 bytes 88..95 (Nonce bytes 4..7 at 88..91).
  memory.fill(STATE, 0, 200);
  writeHeaderBlock(STATE, 8, header);
  for (let i: usize = 0; i < 25; i++) {
    v128.store(TEMPLATE2 + (i << 4), i64x2.splat(load<u64>(STATE + (i << 3))));
  }
  const lane10 = load<u64>(STATE, 80) & 0x00000000ffffffff;
  const lane11 = load<u64>(STATE, 88) & 0xffffffff00000000;
  // Two nonces per permutation (start + i in the low half, start + i + 1 in the high half);
  // the low one is checked first so the first qualifying nonce wins.
  for (let i: i32 = 0; i < count; i += 2) {
    for (let j: usize = 0; j < 400; j += 16) {
      v128.store(STATE2 + j, v128.load(TEMPLATE2 + j));
    }
    // Nonce big-endian: its high half goes to bytes 84..87, its low half to 88..91.
    const be0 = bswap<u64>(start + <u64>i);
    const be1 = bswap<u64>(start + <u64>i + 1);
    v128.store(STATE2 + 160, i64x2.replace_lane(i64x2.splat(lane10 | (be0 << 32)), 1, lane10 | (be1 << 32)));
    v128.store(STATE2 + 176, i64x2.replace_lane(i64x2.splat(lane11 | (be0 >> 32)), 1, lane11 | (be1 >> 32)));
    keccakFDeso2(STATE2);
    if (hashAtMost(STATE2, 16, target)) {
      squeezeMixed(STATE2, 16, dst);
      return i;
    }
    if (i + 1 < count && hashAtMost(STATE2 + 8, 16, target)) {
      squeezeMixed(STATE2 + 8, 16, dst);
      return i + 1;
    }
  }
  return -1;
}
