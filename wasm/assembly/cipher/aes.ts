// AES-128 encryption (FIPS 197) and CTR mode (SP 800-38A §6.5) over raw memory.
//
// Used for ECIES message bodies (identity-and-crypto.md §3.1 step 5), so the key and the data
// are secret. Classic T-table AES indexes memory with key- and data-dependent bytes, which leaks
// them through cache timing. Here no memory address and no branch depends on a secret:
//
// * SubBytes is a 256-entry lookup done in registers. The S-box is kept as 16 slices of 16
//   bytes. For slice k, i8x16.swizzle(slice, x ^ (k << 4)) returns S[x] in the lanes whose high
//   nibble is k and 0 in the others (swizzle gives 0 for indices >= 16), so XOR-ing the 16
//   swizzles yields S[x] for all 16 bytes. Swizzle lowers to PSHUFB on x64 and TBL on arm64,
//   whose timing does not depend on the index values; the slices are read from fixed addresses.
// * ShiftRows and MixColumns' row rotations are constant shuffles; xtime uses a sign-mask
//   compare, not a branch or a table.
//
// Cost against T-tables: a T-table round is 16 table loads and about as many XORs per block.
// The swizzle S-box is 48 SIMD operations per round (16 × xor, swizzle, xor) plus about 10 for
// ShiftRows/MixColumns: an estimated 2-3 times the instructions of T-tables, and no cache
// footprint beyond 256 constant bytes. Measured (bench/hash.bench.ts): 100 bytes with a fresh
// key in ~1.8 µs (2.5x node:crypto, whose per-call setup dominates), 16 KiB at ~95 MB/s
// (~0.05x node:crypto's AES-NI). A bitsliced AES (8 blocks per pass) should be about twice as
// fast on long inputs (estimate, not built), but its bitsliced key schedule costs about as much
// as encrypting 8 blocks; ECIES messages are short with a fresh key each, where the two are
// about even, so the simpler code won.

/** AES-128: Nk = 4 key words, Nr = 10 rounds (FIPS 197 §5, Figure 4). */
const ROUNDS: i32 = 10;
/** Round keys w[0..43] as 11 16-byte round keys (FIPS 197 §5.2). */
const ROUND_KEYS: usize = memory.data(16 * (ROUNDS + 1), 16);
/** Counter block T_j (SP 800-38A §6.5) as its numeric high and low u64 halves, kept across calls. */
const COUNTER: usize = memory.data(16, 16);
/** Keystream of a final partial block. */
const TAIL: usize = memory.data(16, 16);

/** The S-box (FIPS 197 §5.1.1, Figure 7), in 16 slices indexed by the high nibble. */
// prettier-ignore
const SBOX: usize = memory.data<u8>([
  0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
  0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
  0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
  0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
  0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
  0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
  0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
  0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
  0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
  0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
  0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
  0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
  0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
  0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
  0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
  0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
], 16);

/** Rcon[i] = x^(i-1) in GF(2^8), the first byte of the round constant word (FIPS 197 §5.2). */
// prettier-ignore
const RCON: usize = memory.data<u8>([0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36]);

/** One S-box slice: S[x] where x's high nibble is k, else 0 (see the header comment). */
@inline function sboxSlice(x: v128, k: usize): v128 {
  return i8x16.swizzle(v128.load(SBOX + (k << 4)), v128.xor(x, i8x16.splat(<i8>(k << 4))));
}

/**
 * SubBytes (FIPS 197 §5.1.1) on 16 bytes at once, constant-time. Two accumulators halve the
 * XOR dependency chain.
 */
@inline function SubBytes(x: v128): v128 {
  let a = sboxSlice(x, 0);
  let b = sboxSlice(x, 1);
  a = v128.xor(a, sboxSlice(x, 2));
  b = v128.xor(b, sboxSlice(x, 3));
  a = v128.xor(a, sboxSlice(x, 4));
  b = v128.xor(b, sboxSlice(x, 5));
  a = v128.xor(a, sboxSlice(x, 6));
  b = v128.xor(b, sboxSlice(x, 7));
  a = v128.xor(a, sboxSlice(x, 8));
  b = v128.xor(b, sboxSlice(x, 9));
  a = v128.xor(a, sboxSlice(x, 10));
  b = v128.xor(b, sboxSlice(x, 11));
  a = v128.xor(a, sboxSlice(x, 12));
  b = v128.xor(b, sboxSlice(x, 13));
  a = v128.xor(a, sboxSlice(x, 14));
  b = v128.xor(b, sboxSlice(x, 15));
  return v128.xor(a, b);
}

// The state s[r][c] is byte r + 4c of the block (FIPS 197 §3.4), i.e. lane r + 4c: a column is
// four consecutive lanes.

/** ShiftRows (FIPS 197 §5.1.2): s'[r][c] = s[r][(c + r) mod 4]. */
@inline function ShiftRows(s: v128): v128 {
  return i8x16.shuffle(s, s, 0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11);
}

/** Each column's bytes rotated by one row: lane r + 4c gets s[(r + 1) mod 4][c]. */
@inline function rotRows1(s: v128): v128 {
  return i8x16.shuffle(s, s, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12);
}

@inline function rotRows2(s: v128): v128 {
  return i8x16.shuffle(s, s, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
}

/** xtime (FIPS 197 §4.2.1): multiply every byte by x modulo x^8 + x^4 + x^3 + x + 1, branch-free. */
@inline function xtime(s: v128): v128 {
  // Bytes with the top bit set (negative as i8) get the reduction 0x1b XORed in.
  const carry = i8x16.lt_s(s, i8x16.splat(0));
  return v128.xor(i8x16.add(s, s), v128.and(carry, i8x16.splat(0x1b)));
}

/**
 * MixColumns (FIPS 197 §5.1.3): s'[r] = 2·s[r] ^ 3·s[r+1] ^ s[r+2] ^ s[r+3]
 *                                     = xtime(s[r] ^ s[r+1]) ^ s[r+1] ^ s[r+2] ^ s[r+3].
 */
@inline function MixColumns(s: v128): v128 {
  const s1 = rotRows1(s);
  const s23 = rotRows2(v128.xor(s, s1)); // s[r+2] ^ s[r+3]
  return v128.xor(v128.xor(xtime(v128.xor(s, s1)), s1), s23);
}

@inline function roundKey(i: usize): v128 {
  return v128.load(ROUND_KEYS + (i << 4));
}

/** Cipher (FIPS 197 §5.1, Figure 5) of one block with the expanded key. */
@inline function encryptBlock(input: v128): v128 {
  let s = v128.xor(input, roundKey(0));
  for (let r: usize = 1; r < <usize>ROUNDS; r++) {
    s = v128.xor(MixColumns(ShiftRows(SubBytes(s))), roundKey(r));
  }
  return v128.xor(ShiftRows(SubBytes(s)), roundKey(<usize>ROUNDS));
}

/** SubWord (FIPS 197 §5.2) of a little-endian word: the 4 bytes through the constant-time S-box. */
@inline function SubWord(w: u32): u32 {
  return i32x4.extract_lane(SubBytes(i32x4.splat(w)), 0);
}

/**
 * KeyExpansion (FIPS 197 §5.2, Figure 11) for Nk = 4. Words are loaded little-endian, so word
 * byte 0 is the low byte: RotWord([a0,a1,a2,a3]) = [a1,a2,a3,a0] is rotr(w, 8), and Rcon's
 * non-zero byte is XORed into the low byte.
 */
export function aes128ExpandKey(key: usize): void {
  memory.copy(ROUND_KEYS, key, 16);
  let w0 = load<u32>(key, 0);
  let w1 = load<u32>(key, 4);
  let w2 = load<u32>(key, 8);
  let w3 = load<u32>(key, 12);
  for (let i: usize = 1; i <= <usize>ROUNDS; i++) {
    w0 ^= SubWord(rotr<u32>(w3, 8)) ^ <u32>load<u8>(RCON + i - 1);
    w1 ^= w0;
    w2 ^= w1;
    w3 ^= w2;
    const p = ROUND_KEYS + (i << 4);
    store<u32>(p, w0, 0);
    store<u32>(p, w1, 4);
    store<u32>(p, w2, 8);
    store<u32>(p, w3, 12);
  }
}

/** Encrypts one 16-byte block at src into dst with the key set by aes128ExpandKey (FIPS 197 test vectors go through this). */
export function aes128EncryptBlock(src: usize, dst: usize): void {
  v128.store(dst, encryptBlock(v128.load(src)));
}

/** Sets the initial counter block T_1 (SP 800-38A §6.5) from the 16 bytes at iv. */
export function aes128CtrSetCounter(iv: usize): void {
  store<u64>(COUNTER, bswap<u64>(load<u64>(iv, 0)), 0);
  store<u64>(COUNTER, bswap<u64>(load<u64>(iv, 8)), 8);
}

/**
 * Current counter block as the 16 bytes AES encrypts, then the counter incremented as one
 * 128-bit big-endian integer mod 2^128 (identity-and-crypto.md §3.1 step 5: the whole block is
 * the counter, so ff…ff wraps to 00…00). The counter comes from the IV, which is public.
 */
@inline function nextCounterBlock(): v128 {
  const hi = load<u64>(COUNTER, 0);
  const lo = load<u64>(COUNTER, 8);
  const block = i64x2.replace_lane(i64x2.splat(bswap<u64>(hi)), 1, bswap<u64>(lo));
  const next = lo + 1;
  store<u64>(COUNTER, next, 8);
  store<u64>(COUNTER, hi + <u64>(next == 0), 0);
  return block;
}

/**
 * CTR mode (SP 800-38A §6.5): dst = src ^ keystream for len bytes, continuing from the current
 * counter. Call with whole blocks to continue later; a partial block ends the stream. src and
 * dst may be the same buffer (each block is read before it is written).
 */
export function aes128CtrXor(src: usize, len: i32, dst: usize): void {
  let n = <usize>max<i32>(len, 0);
  while (n >= 16) {
    v128.store(dst, v128.xor(v128.load(src), encryptBlock(nextCounterBlock())));
    src += 16;
    dst += 16;
    n -= 16;
  }
  if (n > 0) {
    v128.store(TAIL, encryptBlock(nextCounterBlock()));
    for (let i: usize = 0; i < n; i++) {
      store<u8>(dst + i, load<u8>(src + i) ^ load<u8>(TAIL + i));
    }
  }
}

/**
 * Best-effort hygiene once a stream is done: the round keys and the last keystream block do
 * not stay in static scratch (WASM memory is private to its thread; the key itself stays in the
 * caller's buffer).
 */
export function aes128Clear(): void {
  memory.fill(ROUND_KEYS, 0, 16 * (ROUNDS + 1));
  memory.fill(TAIL, 0, 16);
}

/**
 * AES-128-CTR of [src, src+len) with the 16-byte key and initial counter block iv, into dst
 * (dst may equal src). Encryption and decryption are the same operation.
 */
export function aes128CtrInto(key: usize, iv: usize, src: usize, len: i32, dst: usize): void {
  aes128ExpandKey(key);
  aes128CtrSetCounter(iv);
  aes128CtrXor(src, len, dst);
  aes128Clear();
}
