/**
 * DeSoHashV1 in plain TypeScript, written step by step from node-api.md §5.5 and FIPS 202:
 * the bench baseline for wasm/hash.ts `desoHashV1` and the oracle of its differential test.
 *
 * Deliberately straightforward: the state is 25 lanes kept as 32-bit halves in a Uint32Array
 * (JS has no fast 64-bit integer), each step of a round is its own loop as in FIPS 202 §3.2, and
 * p is the reference formula verbatim. It is plain but not careless (no allocation per lane), so
 * the bench ratio measures the WASM core, not garbage collection. With `modified: false` it is plain SHA3-256, which the tests
 * compare with node:crypto so this port's Keccak is checked independently of the WASM one.
 * @module
 */

/** SHA3-256 rate in bytes (FIPS 202 §6.1). */
const RATE = 136;
const ROUNDS = 24;

/** ρ offsets r[x + 5y] (FIPS 202 §3.2.2, Table 2). */
// prettier-ignore
const RHO = [
  0, 1, 62, 28, 27,
  36, 44, 6, 55, 20,
  3, 10, 43, 25, 39,
  41, 45, 15, 21, 8,
  18, 2, 61, 56, 14,
];

/** ι round constants RC[ir] as [high, low] 32-bit halves (FIPS 202 §3.2.5). */
// prettier-ignore
const RC: ReadonlyArray<readonly [number, number]> = [
  [0x00000000, 0x00000001], [0x00000000, 0x00008082], [0x80000000, 0x0000808a], [0x80000000, 0x80008000],
  [0x00000000, 0x0000808b], [0x00000000, 0x80000001], [0x80000000, 0x80008081], [0x80000000, 0x00008009],
  [0x00000000, 0x0000008a], [0x00000000, 0x00000088], [0x00000000, 0x80008009], [0x00000000, 0x8000000a],
  [0x00000000, 0x8000808b], [0x80000000, 0x0000008b], [0x80000000, 0x00008089], [0x80000000, 0x00008003],
  [0x80000000, 0x00008002], [0x80000000, 0x00000080], [0x00000000, 0x0000800a], [0x80000000, 0x8000000a],
  [0x80000000, 0x80008081], [0x80000000, 0x00008080], [0x00000000, 0x80000001], [0x80000000, 0x80008008],
];

/** p's constants (node-api.md §5.5) as halves: R = 0x2492492492492490, F = 0xC000000000000003. */
const R_HI = 0x24924924;
const R_LO = 0x92492490;
const F_HI = 0xc0000000;
const F_LO = 0x00000003;

/** The mix XORed into the output (node-api.md §5.5). */
const MIX = Uint8Array.from(Buffer.from('8cb3a3bb4949e4ae468b6e7b4da02e34a55144b8b3e7be499855679ed8d0cff5', 'hex'));

// The state: lane i (= x + 5y) as halves hi = S[2i], lo = S[2i + 1]. Scratch arrays are
// module-level so a hash allocates only its output (the port is plain, not careless).
const S = new Uint32Array(50);
const B = new Uint32Array(50);
const C = new Uint32Array(10);
const D = new Uint32Array(10);

/** dst[2j..2j+1] = rotl(src[2i..2i+1], n) for a 64-bit lane kept as [hi, lo]. */
function rotlInto(dst: Uint32Array, j: number, src: Uint32Array, i: number, n: number): void {
  let hi = src[2 * i]!;
  let lo = src[2 * i + 1]!;
  if (n >= 32) {
    [hi, lo] = [lo, hi];
    n -= 32;
  }
  if (n === 0) {
    dst[2 * j] = hi;
    dst[2 * j + 1] = lo;
  } else {
    dst[2 * j] = (hi << n) | (lo >>> (32 - n));
    dst[2 * j + 1] = (lo << n) | (hi >>> (32 - n));
  }
}

/** p(a) = ((a & R) >> 2) | ((R >> 1) & a) | (((R >> 2) & a) << 2) | (a & F), verbatim on halves. */
function p(hi: number, lo: number, i: number): void {
  // a & R, shifted right by 2 across the halves.
  const arHi = hi & R_HI;
  const arLo = lo & R_LO;
  const t1Hi = arHi >>> 2;
  const t1Lo = (arLo >>> 2) | (arHi << 30);
  // (R >> 1) & a
  const r1Hi = R_HI >>> 1;
  const r1Lo = (R_LO >>> 1) | (R_HI << 31);
  const t2Hi = r1Hi & hi;
  const t2Lo = r1Lo & lo;
  // ((R >> 2) & a) << 2
  const r2Hi = R_HI >>> 2;
  const r2Lo = (R_LO >>> 2) | (R_HI << 30);
  const aHi = r2Hi & hi;
  const aLo = r2Lo & lo;
  const t3Hi = (aHi << 2) | (aLo >>> 30);
  const t3Lo = aLo << 2;
  // a & F
  const t4Hi = hi & F_HI;
  const t4Lo = lo & F_LO;
  S[2 * i] = t1Hi | t2Hi | t3Hi | t4Hi;
  S[2 * i + 1] = t1Lo | t2Lo | t3Lo | t4Lo;
}

/** One round on S: θ, ρ, π, χ, ι (FIPS 202 §3.3), then p on every lane when modified. */
function round(ir: number, modified: boolean): void {
  // θ: C[x] = A[x,0] ^ … ^ A[x,4]; D[x] = C[x-1] ^ rot(C[x+1], 1); A[x,y] ^= D[x].
  for (let x = 0; x < 5; x++) {
    for (let h = 0; h < 2; h++) {
      C[2 * x + h] = S[2 * x + h]! ^ S[2 * (x + 5) + h]! ^ S[2 * (x + 10) + h]! ^ S[2 * (x + 15) + h]! ^ S[2 * (x + 20) + h]!;
    }
  }
  for (let x = 0; x < 5; x++) {
    rotlInto(D, x, C, (x + 1) % 5, 1);
    D[2 * x]! ^= C[2 * ((x + 4) % 5)]!;
    D[2 * x + 1]! ^= C[2 * ((x + 4) % 5) + 1]!;
  }
  for (let i = 0; i < 25; i++) {
    S[2 * i]! ^= D[2 * (i % 5)]!;
    S[2 * i + 1]! ^= D[2 * (i % 5) + 1]!;
  }
  // ρ and π: B[y, 2x + 3y] = rot(A[x, y], r[x, y]).
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) rotlInto(B, y + 5 * ((2 * x + 3 * y) % 5), S, x + 5 * y, RHO[x + 5 * y]!);
  }
  // χ: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y]).
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      const i = x + 5 * y;
      const i1 = ((x + 1) % 5) + 5 * y;
      const i2 = ((x + 2) % 5) + 5 * y;
      for (let h = 0; h < 2; h++) S[2 * i + h] = B[2 * i + h]! ^ (~B[2 * i1 + h]! & B[2 * i2 + h]!);
    }
  }
  // ι
  const [rcHi, rcLo] = RC[ir]!;
  S[0]! ^= rcHi;
  S[1]! ^= rcLo;
  if (modified) for (let i = 0; i < 25; i++) p(S[2 * i]!, S[2 * i + 1]!, i);
}

/** SHA3-256 (modified: false) or sha3m-256 (modified: true) of data. */
export function sha3Variant256(data: Uint8Array, modified: boolean): Uint8Array {
  // pad10*1 with the SHA-3 domain suffix: 0x06 after the message, 0x80 in the last byte.
  const padded = new Uint8Array(Math.floor(data.length / RATE + 1) * RATE);
  padded.set(data);
  padded[data.length]! ^= 0x06;
  padded[padded.length - 1]! ^= 0x80;
  S.fill(0);
  for (let off = 0; off < padded.length; off += RATE) {
    // Lanes are little-endian (FIPS 202 §3.1.2, Appendix B.1).
    for (let i = 0; i < RATE / 8; i++) {
      const b = (k: number): number => padded[off + 8 * i + k]!;
      S[2 * i]! ^= b(4) | (b(5) << 8) | (b(6) << 16) | (b(7) << 24);
      S[2 * i + 1]! ^= b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
    }
    for (let ir = 0; ir < ROUNDS; ir++) round(ir, modified);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 4; i++) {
    for (let k = 0; k < 4; k++) {
      out[8 * i + k] = S[2 * i + 1]! >>> (8 * k);
      out[8 * i + 4 + k] = S[2 * i]! >>> (8 * k);
    }
  }
  return out;
}

/** DeSoHashV1(data) = sha3m-256(data) XOR mix (node-api.md §5.5). */
export function desoHashV1(data: Uint8Array): Uint8Array {
  const h = sha3Variant256(data, true);
  for (let i = 0; i < 32; i++) h[i]! ^= MIX[i]!;
  return h;
}
