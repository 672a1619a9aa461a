/**
 * The WASM secp256k1 (wasm/secp256k1.ts) against @noble/curves, differentially, plus the edge
 * cases a verifier and a signer must get right.
 *
 * Runs per primitive: SECP256K1_DIFF_RUNS (default 10,000, the floor). Where noble's
 * own answer costs milliseconds (verify and recover on arbitrary inputs, its ECDH) the run
 * count is SECP256K1_DIFF_RUNS_SLOW (default: the same; the file then takes about 75 s on the
 * 2-core sandbox; a smaller value is for quick local iterations only). Elsewhere noble's answer
 * is obtained on a cheap route: ours must verify every noble signature and recover noble's
 * public key from it; x(a·B) is compared with noble's (a·b mod n)·G.
 * Scalars are biased towards the edges: small values, n − small, 2^k ± small.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import {
  compress,
  decompress,
  ecdh,
  getPublicKey,
  isValidPrivateKey,
  isValidPublicKey,
  parseDer,
  parseDesoDer,
  recoverPublicKey,
  sign,
  signDer,
  toDer,
  toDesoDer,
  verify,
  packVerifyRecord,
  verifyBatch,
  verifyBatchPacked,
  VERIFY_RECORD_BYTES,
  type VerifyItem,
} from '../../wasm/secp256k1.js';
import { core } from '../../wasm/core.js';
import { bytesToHex, hexToBytes } from '../helpers/vectors.js';

const RUNS = Number(process.env.SECP256K1_DIFF_RUNS ?? 10_000);
const RUNS_SLOW = Number(process.env.SECP256K1_DIFF_RUNS_SLOW ?? RUNS);

const N = secp256k1.Point.CURVE().n;
const P = secp256k1.Point.CURVE().p;
const HALF_N = N >> 1n;

const mod = (a: bigint, m = N): bigint => ((a % m) + m) % m;
const toBytes32 = (v: bigint): Uint8Array => hexToBytes(v.toString(16).padStart(64, '0'));
const toBig = (b: Uint8Array): bigint => BigInt(`0x${bytesToHex(b) || '0'}`);

/** Scalars in [1, n), often at the edges. */
const scalar = fc.oneof(
  { weight: 8, arbitrary: fc.bigInt({ min: 1n, max: N - 1n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 1n << 20n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 1n << 20n }).map((d) => N - d) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 255 }), fc.bigInt({ min: -(1n << 10n), max: 1n << 10n }))
      .map(([k, d]) => mod((1n << BigInt(k)) + d))
      .filter((v) => v !== 0n),
  },
);
const hash32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

function nobleSign(hash: Uint8Array, sk: Uint8Array, extraEntropy?: Uint8Array): { compact: Uint8Array; recovery: number } {
  const rec = secp256k1.sign(hash, sk, { prehash: false, format: 'recovered', ...(extraEntropy ? { extraEntropy } : {}) });
  return { compact: rec.subarray(1), recovery: rec[0]! };
}

function nobleVerify(sig: Uint8Array, hash: Uint8Array, pub: Uint8Array, lowS: boolean): boolean {
  try {
    return secp256k1.verify(sig, hash, pub, { prehash: false, lowS });
  } catch {
    return false;
  }
}

function nobleRecover(hash: Uint8Array, compact: Uint8Array, recovery: number): Uint8Array | null {
  try {
    const sig = new Uint8Array(65);
    sig[0] = recovery;
    sig.set(compact, 1);
    return secp256k1.recoverPublicKey(sig, hash, { prehash: false });
  } catch {
    return null;
  }
}

function noblePoint(bytes: Uint8Array): InstanceType<typeof secp256k1.Point> | null {
  try {
    return secp256k1.Point.fromBytes(bytes);
  } catch {
    return null;
  }
}

describe('secp256k1 (WASM) against @noble/curves', () => {
  it(`getPublicKey: ${RUNS} scalars, both encodings`, () => {
    fc.assert(
      fc.property(scalar, (d) => {
        const sk = toBytes32(d);
        const point = secp256k1.Point.BASE.multiply(d);
        assert.equal(bytesToHex(getPublicKey(sk)), point.toHex(true));
        assert.equal(bytesToHex(getPublicKey(sk, false)), point.toHex(false));
      }),
      { numRuns: RUNS },
    );
  });

  it(`sign: ${RUNS} signatures byte-identical to noble (RFC 6979, low-S, recovery id); ours verifies and recovers them`, () => {
    fc.assert(
      fc.property(scalar, hash32, fc.option(hash32, { freq: 4 }), (d, hash, extra) => {
        const sk = toBytes32(d);
        const expected = nobleSign(hash, sk, extra ?? undefined);
        const got = sign(hash, sk, extra === null ? {} : { extraEntropy: extra });
        assert.equal(bytesToHex(got.compact), bytesToHex(expected.compact));
        assert.equal(got.recovery, expected.recovery);
        assert.ok(toBig(got.compact.subarray(32)) <= HALF_N);
        const pub = secp256k1.getPublicKey(sk, true);
        assert.equal(verify(expected.compact, hash, pub), true);
        assert.equal(verify(toDer(expected.compact), hash, pub), true);
        assert.equal(bytesToHex(recoverPublicKey(hash, expected.compact, expected.recovery)!), bytesToHex(pub));
      }),
      { numRuns: RUNS },
    );
  });

  it(`verify: ${RUNS_SLOW} corrupted signatures, hashes and keys agree with noble (lowS on and off)`, () => {
    const corruption = fc.constantFrom('sigBit', 'hashBit', 'otherKey', 'highS', 'rPlusN', 'randomSig', 'none');
    fc.assert(
      fc.property(scalar, hash32, corruption, fc.nat(511), fc.boolean(), (d, hash, kind, bit, lowS) => {
        const sk = toBytes32(d);
        let pub = secp256k1.getPublicKey(sk, (bit & 1) === 0);
        const sig = Uint8Array.from(nobleSign(hash, sk).compact);
        const h = Uint8Array.from(hash);
        if (kind === 'sigBit') sig[bit >> 3]! ^= 1 << (bit & 7);
        if (kind === 'hashBit') h[(bit >> 3) & 31]! ^= 1 << (bit & 7);
        if (kind === 'otherKey') pub = secp256k1.getPublicKey(toBytes32(d === N - 1n ? 1n : d + 1n), true);
        if (kind === 'highS') sig.set(toBytes32(N - toBig(sig.subarray(32))), 32);
        if (kind === 'rPlusN') {
          const r = toBig(sig.subarray(0, 32)) + N;
          if (r < 1n << 256n) sig.set(toBytes32(r), 0);
        }
        if (kind === 'randomSig') sig.set(secp256k1.utils.randomSecretKey(), bit & 32);
        assert.equal(verify(sig, h, pub, { lowS }), nobleVerify(sig, h, pub, lowS), `${kind} lowS=${lowS}`);
      }),
      { numRuns: RUNS_SLOW },
    );
  });

  it(`recoverPublicKey: ${RUNS_SLOW} arbitrary (r, s, recid) agree with noble`, () => {
    const rs = fc.oneof(scalar, fc.constantFrom(0n, N, N + 1n, (1n << 256n) - 1n, P - N, P - N - 1n));
    fc.assert(
      fc.property(hash32, rs, rs, fc.integer({ min: 0, max: 3 }), (hash, r, s, recid) => {
        const compact = new Uint8Array(64);
        compact.set(toBytes32(mod(r, 1n << 256n)), 0);
        compact.set(toBytes32(mod(s, 1n << 256n)), 32);
        const expected = nobleRecover(hash, compact, recid);
        const got = recoverPublicKey(hash, compact, recid);
        assert.equal(got === null ? null : bytesToHex(got), expected === null ? null : bytesToHex(expected));
      }),
      { numRuns: RUNS_SLOW },
    );
  });

  it(`ecdh: ${RUNS} pairs, x(a·B) = x((a·b mod n)·G) from noble`, () => {
    fc.assert(
      fc.property(scalar, scalar, fc.boolean(), (a, b, compressed) => {
        const pubB = secp256k1.Point.BASE.multiply(b).toBytes(compressed);
        const expected = secp256k1.Point.BASE.multiply(mod(a * b)).toBytes(true).subarray(1);
        assert.equal(bytesToHex(ecdh(toBytes32(a), pubB)), bytesToHex(expected));
      }),
      { numRuns: RUNS },
    );
  });

  it(`ecdh: ${Math.min(RUNS_SLOW, 500)} pairs against noble getSharedSecret directly`, () => {
    fc.assert(
      fc.property(scalar, scalar, (a, b) => {
        const pubB = secp256k1.Point.BASE.multiply(b).toBytes(true);
        const expected = secp256k1.getSharedSecret(toBytes32(a), pubB, true).subarray(1);
        assert.equal(bytesToHex(ecdh(toBytes32(a), pubB)), bytesToHex(expected));
      }),
      { numRuns: Math.min(RUNS_SLOW, 500) },
    );
  });

  it(`compress/decompress/isValidPublicKey: ${RUNS} encodings (valid points and arbitrary bytes) agree with noble`, () => {
    const encoding = fc.oneof(
      scalar.chain((d) => fc.boolean().map((c) => secp256k1.Point.BASE.multiply(d).toBytes(c))),
      fc.tuple(fc.constantFrom(2, 3), fc.uint8Array({ minLength: 32, maxLength: 32 })).map(([p, x]) => Uint8Array.from([p, ...x])),
      fc.tuple(fc.constantFrom(0, 1, 2, 3, 4, 5, 6, 7, 0xff), fc.uint8Array({ minLength: 64, maxLength: 64 })).map(([p, xy]) =>
        Uint8Array.from([p, ...xy]),
      ),
      // x ≥ p with a valid prefix
      fc.bigInt({ min: P, max: (1n << 256n) - 1n }).map((x) => Uint8Array.from([2, ...toBytes32(x)])),
    );
    fc.assert(
      fc.property(encoding, (bytes) => {
        const point = noblePoint(bytes);
        // noble also accepts hybrid 06/07 nowhere and 1-byte infinity nowhere: prefixes agree.
        assert.equal(isValidPublicKey(bytes), point !== null);
        if (point === null) {
          assert.throws(() => compress(bytes), RangeError);
          assert.throws(() => decompress(bytes), RangeError);
          return;
        }
        assert.equal(bytesToHex(compress(bytes)), point.toHex(true));
        assert.equal(bytesToHex(decompress(bytes)), point.toHex(false));
      }),
      { numRuns: RUNS },
    );
  });

  it('isValidPrivateKey agrees with noble on boundary-biased values', () => {
    const any = fc.oneof(scalar, fc.constantFrom(0n, N, N + 1n, (1n << 256n) - 1n), fc.bigInt({ min: N, max: (1n << 256n) - 1n }));
    fc.assert(
      fc.property(any, (d) => {
        const sk = toBytes32(d);
        assert.equal(isValidPrivateKey(sk), secp256k1.utils.isValidSecretKey(sk));
      }),
      { numRuns: Math.min(RUNS, 2_000) },
    );
  });
});

describe('secp256k1 (WASM) edge cases', () => {
  const G33 = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  const G65 =
    '0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
  const hash = hexToBytes('ab'.repeat(32));

  it('private keys 1 and n−1 give ±G; 0, n, n+1, 2^256−1 are rejected without echoing the key', () => {
    assert.equal(bytesToHex(getPublicKey(toBytes32(1n))), G33);
    assert.equal(bytesToHex(getPublicKey(toBytes32(1n), false)), G65);
    assert.equal(bytesToHex(getPublicKey(toBytes32(N - 1n))), `03${G33.slice(2)}`);
    for (const bad of [0n, N, N + 1n, (1n << 256n) - 1n]) {
      const sk = toBytes32(bad);
      assert.equal(isValidPrivateKey(sk), false);
      for (const op of [() => getPublicKey(sk), () => sign(hash, sk), () => ecdh(sk, hexToBytes(G33))]) {
        assert.throws(op, (e: unknown) => {
          assert.ok(e instanceof RangeError);
          assert.ok(!e.message.includes(bytesToHex(sk)) && !e.message.includes(bad.toString(16)));
          return true;
        });
      }
    }
  });

  it('signs and verifies with the boundary keys 1, 2, n−2, n−1', () => {
    for (const d of [1n, 2n, N - 2n, N - 1n]) {
      const sk = toBytes32(d);
      const got = sign(hash, sk);
      assert.equal(bytesToHex(got.compact), bytesToHex(nobleSign(hash, sk).compact));
      assert.ok(verify(got.compact, hash, getPublicKey(sk)));
      assert.equal(bytesToHex(recoverPublicKey(hash, got.compact, got.recovery)!), bytesToHex(getPublicKey(sk)));
      assert.equal(bytesToHex(ecdh(sk, hexToBytes(G33))), bytesToHex(getPublicKey(sk).subarray(1)));
    }
  });

  it('k·G whose last window meets the doubling case (k = 2^256 − n and n − that) still matches', () => {
    // With 5-bit windows the top digit is always 1·2^255, and for k = 2^256 − n the partial
    // sum before it is (2^255 − n)·G = 2^255·G: the final addition is a doubling.
    const c = (1n << 256n) - N;
    for (const k of [c, N - c, c + 2n, N - c - 2n, 1n << 255n, (1n << 255n) + 1n, N - (1n << 255n)]) {
      const sk = toBytes32(k);
      assert.equal(bytesToHex(getPublicKey(sk, false)), secp256k1.Point.BASE.multiply(k).toHex(false), k.toString(16));
      assert.equal(bytesToHex(sign(hash, sk).compact), bytesToHex(nobleSign(hash, sk).compact));
    }
  });

  it('ECDH keys whose GLV halves are zero, even, odd or extreme match noble', () => {
    // λ: a cube root of unity mod n (the GLV endomorphism's eigenvalue).
    const LAMBDA = 0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72n;
    const keys = [
      1n, 2n, 3n, 4n, LAMBDA, mod(2n * LAMBDA), LAMBDA + 1n, LAMBDA - 1n, LAMBDA + 2n, N - LAMBDA, N - LAMBDA - 1n,
      mod(LAMBDA * LAMBDA), mod(LAMBDA << 64n), 1n << 127n, (1n << 128n) - 1n, 1n << 128n, (1n << 128n) + 1n,
      mod(LAMBDA * ((1n << 127n) + 1n)), N - 1n, N - 2n, N >> 1n, (N >> 1n) + 1n,
    ];
    const q = secp256k1.Point.BASE.multiply(0x1234567890abcdefn);
    for (const k of keys) {
      assert.equal(bytesToHex(ecdh(toBytes32(k), q.toBytes(true))), q.multiply(k).toHex(true).slice(2), k.toString(16));
      assert.equal(bytesToHex(ecdh(toBytes32(k), hexToBytes(G33))), secp256k1.Point.BASE.multiply(k).toHex(true).slice(2), k.toString(16));
    }
  });

  it('ECDH with keys just below the order (k = n − 2j) matches', () => {
    for (let j = 1n; j <= 15n; j++) {
      const k = N - 2n * j;
      assert.equal(bytesToHex(ecdh(toBytes32(k), hexToBytes(G33))), secp256k1.Point.BASE.multiply(k).toHex(true).slice(2));
    }
  });

  it('ECDH keeps leading zero bytes of x (32 bytes always)', () => {
    // Search a few keys for an x(a·G) that starts with a zero byte (≈ 1 in 256).
    for (let a = 1n; ; a++) {
      const x = ecdh(toBytes32(a), hexToBytes(G33));
      assert.equal(x.length, 32);
      if (x[0] === 0) {
        assert.equal(bytesToHex(x), secp256k1.Point.BASE.multiply(a).toHex(true).slice(2));
        break;
      }
    }
  });

  it('rejects invalid public keys everywhere', () => {
    const sk = toBytes32(7n);
    const sig = sign(hash, sk).compact;
    const invalid = [
      new Uint8Array(0),
      new Uint8Array(33),
      hexToBytes(`00${G33.slice(2)}`),
      hexToBytes(`01${G33.slice(2)}`),
      hexToBytes(`04${G33.slice(2)}`),
      hexToBytes(`05${G33.slice(2)}`),
      hexToBytes(`06${G65.slice(2)}`), // hybrid
      hexToBytes(`07${G65.slice(2)}`),
      hexToBytes(`02${(P).toString(16)}`), // x = p
      hexToBytes(`02${(P + 1n).toString(16)}`),
      hexToBytes(`02${'00'.repeat(32)}`), // x = 0: 7 is not a square mod p
      hexToBytes(`02${'00'.repeat(31)}05`), // no square root
      hexToBytes(`${G65.slice(0, -2)}b9`), // y off by one
      hexToBytes(`04${'00'.repeat(64)}`),
      hexToBytes(`04${G65.slice(2, 66)}${P.toString(16)}`),
      hexToBytes(G33 + '00'),
      hexToBytes(G65.slice(0, -2)),
    ];
    for (const pub of invalid) {
      assert.equal(isValidPublicKey(pub), false, bytesToHex(pub));
      assert.equal(verify(sig, hash, pub), false, bytesToHex(pub));
      if (pub.length === 33 || pub.length === 65) {
        assert.throws(() => compress(pub), RangeError);
        assert.throws(() => ecdh(sk, pub), RangeError);
      }
    }
  });

  it('r or s equal to 0 or ≥ n never verify; recovery refuses them', () => {
    const sk = toBytes32(12345n);
    const pub = getPublicKey(sk);
    const { compact, recovery } = sign(hash, sk);
    const r = toBig(compact.subarray(0, 32)), s = toBig(compact.subarray(32));
    const cases: Array<[bigint, bigint]> = [
      [0n, s], [r, 0n], [0n, 0n], [N, s], [r, N], [r + N, s], [r, s + N], [(1n << 256n) - 1n, s], [r, (1n << 256n) - 1n],
    ];
    for (const [rr, ss] of cases) {
      if (rr >= 1n << 256n || ss >= 1n << 256n) continue;
      const bad = Uint8Array.from([...toBytes32(rr), ...toBytes32(ss)]);
      assert.equal(verify(bad, hash, pub, { lowS: false }), false);
      assert.equal(recoverPublicKey(hash, bad, recovery), null);
    }
  });

  it('x(R) ≥ n: verify reduces x(R) mod n, recovery uses recid bit 2, and r ≥ p − n never matches r + n', () => {
    const modP = (a: bigint): bigint => mod(a, P);
    const powP = (b: bigint, e: bigint): bigint => {
      let r = 1n;
      for (b = modP(b); e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
      return r;
    };
    /** A curve point with this x, or null. */
    const lift = (x: bigint): InstanceType<typeof secp256k1.Point> | null => {
      const y = powP(x ** 3n + 7n, (P + 1n) / 4n);
      return modP(y * y) === modP(x ** 3n + 7n) ? secp256k1.Point.fromAffine({ x, y }) : null;
    };
    const inv = (a: bigint): bigint => secp256k1.Point.Fn.inv(mod(a));
    /** A public key for which (r, s) signs e given the nonce point R: Q = (s·R − e·G)/r. */
    const keyFor = (R: InstanceType<typeof secp256k1.Point>, r: bigint, s: bigint, e: bigint) =>
      R.multiply(s).subtract(secp256k1.Point.BASE.multiply(e)).multiply(inv(r));
    const e = 0x1234n;
    const h = toBytes32(e);
    const s = 0x5678n;
    // R with the largest valid x below p: x ≥ n, r = x − n just below p − n.
    let x = P - 1n;
    let R = lift(x);
    while (R === null) R = lift(--x);
    let r = x - N;
    assert.ok(r < P - N);
    const Q = keyFor(R, r, s, e);
    const sig = Uint8Array.from([...toBytes32(r), ...toBytes32(s)]);
    assert.equal(verify(sig, h, Q.toBytes(true)), true);
    assert.equal(nobleVerify(sig, h, Q.toBytes(true), true), true);
    const recid = 2 | Number(R.y & 1n);
    assert.equal(bytesToHex(recoverPublicKey(h, sig, recid)!), Q.toHex(true));
    // R with a tiny x: r = x + p − n is in [1, n) but x(R) mod n ≠ r, so nothing may verify.
    x = 1n;
    R = lift(x);
    while (R === null) R = lift(++x);
    r = x + P - N;
    const Q2 = keyFor(R, r, s, e);
    const sig2 = Uint8Array.from([...toBytes32(r), ...toBytes32(s)]);
    assert.equal(verify(sig2, h, Q2.toBytes(true)), false);
    assert.equal(nobleVerify(sig2, h, Q2.toBytes(true), true), false);
    for (let id = 0; id < 4; id++) {
      const got = recoverPublicKey(h, sig2, id);
      assert.equal(got === null ? null : bytesToHex(got), (() => { const x = nobleRecover(h, sig2, id); return x === null ? null : bytesToHex(x); })());
    }
  });

  it('low-S boundary: s = ⌊n/2⌋ is low, s = ⌊n/2⌋ + 1 is high', () => {
    const e = 0xabcdefn;
    const h = toBytes32(e);
    const R = secp256k1.Point.BASE.multiply(0x777n);
    const r = mod(R.x);
    for (const [s, high] of [[HALF_N, false], [HALF_N + 1n, true], [1n, false], [N - 1n, true]] as const) {
      const Q = R.multiply(s).subtract(secp256k1.Point.BASE.multiply(e)).multiply(secp256k1.Point.Fn.inv(r));
      const sig = Uint8Array.from([...toBytes32(r), ...toBytes32(s)]);
      const pub = Q.toBytes(true);
      assert.equal(verify(sig, h, pub, { lowS: false }), true, s.toString(16));
      assert.equal(verify(sig, h, pub, { lowS: true }), !high, s.toString(16));
      assert.equal(nobleVerify(sig, h, pub, true), !high);
    }
  });

  it('high-S: accepted only with lowS: false, and sign never emits it', () => {
    const sk = toBytes32(999n);
    const pub = getPublicKey(sk);
    const { compact } = sign(hash, sk);
    const high = Uint8Array.from(compact);
    high.set(toBytes32(N - toBig(compact.subarray(32))), 32);
    assert.equal(verify(high, hash, pub), false);
    assert.equal(verify(high, hash, pub, { lowS: true }), false);
    assert.equal(verify(high, hash, pub, { lowS: false }), true);
  });

  it('hash ≥ n is reduced mod n (e = bits2int(hash) mod n)', () => {
    const sk = toBytes32(31337n);
    const big = hexToBytes('ff'.repeat(32));
    const got = sign(big, sk);
    assert.equal(bytesToHex(got.compact), bytesToHex(nobleSign(big, sk).compact));
    assert.ok(verify(got.compact, big, getPublicKey(sk)));
    assert.ok(verify(sign(new Uint8Array(32), sk).compact, new Uint8Array(32), getPublicKey(sk)));
  });

  it('strict DER: malformed encodings are rejected, canonical ones round-trip', () => {
    const sk = toBytes32(4242n);
    const pub = getPublicKey(sk);
    const der = signDer(hash, sk);
    assert.ok(verify(der, hash, pub));
    assert.equal(bytesToHex(toDer(parseDer(der)!)), bytesToHex(der));
    const body = der.subarray(2);
    const rLen = der[3]!;
    const r = der.subarray(4, 4 + rLen);
    const s = der.subarray(6 + rLen);
    const seq = (...parts: ArrayLike<number>[]): Uint8Array => {
      const inner = parts.flatMap((p) => Array.from(p));
      return Uint8Array.from([0x30, inner.length, ...inner]);
    };
    const int = (v: ArrayLike<number>): number[] => [0x02, v.length, ...Array.from(v)];
    const malformed: Record<string, Uint8Array> = {
      'long-form sequence length': Uint8Array.from([0x30, 0x81, der[1]!, ...body]),
      'wrong sequence tag': Uint8Array.from([0x31, ...der.subarray(1)]),
      'length too long': Uint8Array.from([0x30, der[1]! + 1, ...body]),
      'length too short': Uint8Array.from([0x30, der[1]! - 1, ...body]),
      'trailing byte': Uint8Array.from([...seq(int(r), int(s)), 0]),
      'trailing byte inside sequence': seq(int(r), int(s), [0]),
      'padded r': seq(int([0, ...r]), int(s)),
      'negative s': seq(int(r), int([0x80 | s[s[0] === 0 ? 1 : 0]!, ...s.subarray(s[0] === 0 ? 2 : 1)])),
      'empty r': seq([0x02, 0x00], int(s)),
      'wrong integer tag': seq([0x03, ...int(r).slice(1)], int(s)),
      'missing s': seq(int(r)),
      'r over 33 bytes': seq(int([0, 0, ...r]), int(s)),
      'extra integer': seq(int(r), int(s), int([1])),
      'empty': new Uint8Array(0),
      'just a header': Uint8Array.from([0x30, 0x00]),
    };
    for (const [name, bytes] of Object.entries(malformed)) {
      assert.equal(parseDer(bytes), null, name);
      assert.equal(verify(bytes, hash, pub), false, name);
    }
    // A 1-byte r and s (small values) is well-formed DER.
    assert.equal(bytesToHex(parseDer(hexToBytes('3006020101020102'))!), `${'00'.repeat(31)}01${'00'.repeat(31)}02`);
  });

  it('DeSo-DER: header 0x31 + recovery id round-trips and recovers the signer', () => {
    const sk = toBytes32(0xdecafn);
    const { compact, recovery } = sign(hash, sk);
    const deso = toDesoDer(compact, recovery);
    assert.equal(deso[0], 0x31 + recovery);
    const parsed = parseDesoDer(deso)!;
    assert.equal(parsed.recovery, recovery);
    assert.equal(bytesToHex(recoverPublicKey(hash, parsed.compact, parsed.recovery!)!), bytesToHex(getPublicKey(sk)));
    assert.equal(parseDesoDer(toDer(compact))!.recovery, null);
    for (const header of [0x2f, 0x35, 0x00]) {
      const bad = Uint8Array.from(deso);
      bad[0] = header;
      assert.equal(parseDesoDer(bad), null);
    }
    assert.equal(deso[0], 0x31 + recovery, 'parseDesoDer must not modify its input');
  });

  it('verifyBatch: same answers as verify, a malformed item only fails itself', () => {
    const items: VerifyItem[] = [];
    const expected: boolean[] = [];
    for (let i = 0; i < 3000; i++) {
      const sk = toBytes32(BigInt(i + 1) * 0x1234567n);
      const h = hexToBytes(i.toString(16).padStart(64, '0'));
      const pub = getPublicKey(sk, i % 3 !== 0);
      let signature: Uint8Array = i % 2 === 0 ? sign(h, sk).compact : signDer(h, sk);
      let publicKey = pub;
      let hashBytes = h;
      switch (i % 7) {
        case 1: signature = Uint8Array.from(signature); signature[10]! ^= 4; break;
        case 2: signature = new Uint8Array(5); break;
        case 3: publicKey = new Uint8Array(33); break;
        case 4: hashBytes = new Uint8Array(31); break;
      }
      items.push({ signature, hash: hashBytes, publicKey });
      expected.push(i % 7 === 0 || i % 7 >= 5 ? true : i % 7 === 1 ? verify(signature, h, publicKey) : false);
    }
    const got = verifyBatch(items);
    assert.deepEqual(got, expected);
    assert.deepEqual(verifyBatch([]), []);
    // The same through a caller-packed buffer (records of items that pack at all).
    const packable = items.map((item, i) => ({ item, i })).filter(({ item }) => packVerifyRecord(new Uint8Array(VERIFY_RECORD_BYTES), 0, item));
    const packed = new Uint8Array(packable.length * VERIFY_RECORD_BYTES);
    packable.forEach(({ item }, j) => packVerifyRecord(packed, j * VERIFY_RECORD_BYTES, item));
    const bytes = verifyBatchPacked(packed, packable.length);
    assert.deepEqual(Array.from(bytes, (b) => b === 1), packable.map(({ i }) => expected[i]));
    assert.throws(() => verifyBatchPacked(packed, packable.length + 1), RangeError);
  });

  it('secret hygiene: private keys are wiped from IN and the ECDH secret from OUT', () => {
    const { input, output } = core();
    const sk = toBytes32(0x5eed5eedn);
    const isWiped = (view: Uint8Array, from: number, to: number): boolean => view.subarray(from, to).every((b) => b === 0);
    getPublicKey(sk);
    assert.ok(isWiped(input, 0, 32));
    sign(hash, sk, { extraEntropy: new Uint8Array(32).fill(7) });
    assert.ok(isWiped(input, 32, 96));
    ecdh(sk, hexToBytes(G33));
    assert.ok(isWiped(input, 0, 32));
    assert.ok(isWiped(output, 0, 32));
    assert.throws(() => ecdh(sk, hexToBytes(`02${'00'.repeat(32)}`)));
    assert.ok(isWiped(input, 0, 32));
  });

  it('argument checks throw with the input named and the length given', () => {
    const sk = toBytes32(5n);
    assert.throws(() => sign(new Uint8Array(31), sk), { name: 'RangeError', message: '"hash" expected 32 bytes, got 31' });
    assert.throws(() => sign(hash, new Uint8Array(33)), { name: 'RangeError', message: '"secretKey" expected 32 bytes, got 33' });
    assert.throws(() => getPublicKey('00' as unknown as Uint8Array), { name: 'TypeError', message: '"secretKey" expected Uint8Array, got type=string' });
    assert.throws(() => verify(new Uint8Array(64), new Uint8Array(33), hexToBytes(G33)), { message: '"hash" expected 32 bytes, got 33' });
    assert.throws(() => ecdh(sk, new Uint8Array(34)), { message: '"publicKey" expected 33 or 65 bytes, got 34' });
    assert.throws(() => recoverPublicKey(hash, new Uint8Array(64), 4), RangeError);
  });
});
