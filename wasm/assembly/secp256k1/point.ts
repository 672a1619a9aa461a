/**
 * Points of secp256k1, y² = x³ + 7 over GF(p) (SEC 2 §2.4.1).
 *
 * Layouts (coordinates are normal-weak field elements, see field.ts, except that a Jacobian
 * Z may have magnitude 2: Z only ever enters products, never a subtraction, so gejDouble
 * skips normalizing 2·Y·Z, one carry pass fewer per doubling):
 *   affine   GE : x @0, y @40                          (80 bytes)
 *   Jacobian GEJ: X @0, Y @40, Z @80, infinity flag @120 (128 bytes), x = X/Z², y = Y/Z³
 *
 * Formulas (a = 0), with costs in field multiplications M and squarings S:
 *   gejDouble      2·(X, Y, Z), "dbl-2009-l" shape with D = X·Y² as a product: 3M + 4S
 *   gejAddGe       Jacobian + affine (mixed), "madd-2004-hmv" shape:             8M + 3S
 *   gejAddGeComplete  mixed, every case (double, opposite, infinity) by masks:   gejAddGe + gejDouble
 *   gejAddVar      Jacobian + Jacobian (table building only):                   12M + 4S
 * Functions without the `Var` suffix never branch on coordinates or flags (constant time);
 * gejDouble and gejAddGe handle no special cases, their callers guarantee the inputs are not
 * exceptional (see ecmult.ts for why the scalar recodings make that true) and use
 * gejAddGeComplete where they cannot. `Var` functions handle infinity, P + P and P + (−P)
 * by branching on public data.
 * @module
 */
import {
  FE, feAdd, feCmov, feCopy, feEqual, feInv, feInvVar, feIsZero, feIsZeroVar, feMul, feMulInt, feNeg,
  feNormWeak, feSetInt, feSqr, feSub,
} from './field';

export const GE: usize = 80;
export const GEJ: usize = 128;
const INF: usize = 120;

// Temporaries, one set per formula so that no formula clobbers another's.
const DT: usize = memory.data(<i32>(FE * 8), 8);
const AT: usize = memory.data(<i32>(FE * 12), 8);
const JT: usize = memory.data(<i32>(FE * 14), 8);
const CT: usize = memory.data(<i32>(GEJ * 2 + FE), 8);

/**
 * Zeroes the formula temporaries. Constant-time multiplications call it when done, so no
 * intermediate of a secret-scalar computation stays in linear memory (best-effort hygiene:
 * WASM memory is private to its thread, but a later bug could expose it).
 */
export function wipePointScratch(): void {
  memory.fill(DT, 0, FE * 8);
  memory.fill(AT, 0, FE * 12);
  memory.fill(CT, 0, GEJ * 2 + FE);
  memory.fill(ZT, 0, FE * 2);
}

@inline export function gejIsInf(a: usize): bool {
  return load<u32>(a + INF) != 0;
}

export function gejSetInf(r: usize): void {
  memory.fill(r, 0, GEJ);
  store<u32>(r + INF, 1);
}

export function gejSetGe(r: usize, a: usize): void {
  memory.copy(r, a, GE);
  feSetInt(r + 2 * FE, 1);
  store<u32>(r + INF, 0);
}

export function gejCopy(r: usize, a: usize): void {
  memory.copy(r, a, GEJ);
}

/** r = 2a; r may alias a. Infinity in, infinity out (a flag copy, no branch on coordinates). */
export function gejDouble(r: usize, a: usize): void {
  const A = DT, B = DT + FE, C = DT + 2 * FE, D = DT + 3 * FE, Z3 = DT + 4 * FE;
  const F = DT + 5 * FE, X3 = DT + 6 * FE, t = DT + 7 * FE;
  const X = a, Y = a + FE, Z = a + 2 * FE;
  feSqr(A, X); //                       X²
  feSqr(B, Y); //                       Y²
  feSqr(C, B); //                       Y⁴
  feMul(D, X, B); //                    X·Y²
  feMul(Z3, Y, Z); //                   Y·Z
  feMulInt(A, A, 3); //                 E = 3X²            (mag 3)
  feSqr(F, A); //                       E²
  feMulInt(t, D, 8); //                 8·X·Y²             (mag 8)
  feSub(X3, F, t, 8); //                X3 = E² − 8XY²
  feNormWeak(X3, X3);
  feMulInt(D, D, 4); //                 4XY²               (mag 4)
  feSub(D, D, X3, 1); //                4XY² − X3          (mag 6)
  feMul(D, A, D); //                    E·(4XY² − X3)
  feMulInt(C, C, 8); //                 8Y⁴                (mag 8)
  feSub(r + FE, D, C, 8); //            Y3
  feNormWeak(r + FE, r + FE);
  feAdd(r + 2 * FE, Z3, Z3); //        Z3 = 2YZ, left at magnitude 2 (see the layout note)
  feCopy(r, X3);
  store<u32>(r + INF, load<u32>(a + INF));
}

/** Shared core of the mixed additions: H = U2 − X1, R = S2 − Y1 at AT+3FE, AT+4FE. */
@inline function maddPrepare(a: usize, b: usize): void {
  const Z1Z1 = AT, U2 = AT + FE, S2 = AT + 2 * FE, H = AT + 3 * FE, R = AT + 4 * FE;
  feSqr(Z1Z1, a + 2 * FE); //           Z1²
  feMul(U2, b, Z1Z1); //                x2·Z1²
  feMul(S2, a + 2 * FE, Z1Z1); //       Z1³
  feMul(S2, b + FE, S2); //             y2·Z1³
  feSub(H, U2, a, 1); //                H = U2 − X1        (mag 3)
  feSub(R, S2, a + FE, 1); //           R = S2 − Y1        (mag 3)
}

/** Rest of the mixed addition from H, R (r may alias a). */
@inline function maddFinish(r: usize, a: usize): void {
  const H = AT + 3 * FE, R = AT + 4 * FE, HH = AT + 5 * FE, HHH = AT + 6 * FE, V = AT + 7 * FE;
  const t = AT + 8 * FE, X3 = AT + 9 * FE, Z3 = AT + 10 * FE, u = AT + 11 * FE;
  feSqr(HH, H); //                      H²
  feMul(HHH, H, HH); //                 H³
  feMul(V, a, HH); //                   V = X1·H²
  feMul(Z3, a + 2 * FE, H); //          Z3 = Z1·H
  feMulInt(t, V, 2);
  feAdd(t, t, HHH); //                  H³ + 2V            (mag 3)
  feSqr(X3, R); //                      R²
  feSub(X3, X3, t, 3); //               X3 = R² − H³ − 2V
  feNormWeak(X3, X3);
  feSub(t, V, X3, 1); //                V − X3             (mag 3)
  feMul(t, R, t); //                    R·(V − X3)
  feMul(u, a + FE, HHH); //             Y1·H³
  feSub(t, t, u, 1); //                 Y3                 (mag 3)
  feNormWeak(r + FE, t);
  feCopy(r, X3);
  feCopy(r + 2 * FE, Z3);
  store<u32>(r + INF, 0);
}

/**
 * r = a + b (Jacobian + affine), constant time, for a ≠ ±b and a not infinity (the callers'
 * recodings guarantee it). r may alias a.
 */
export function gejAddGe(r: usize, a: usize, b: usize): void {
  maddPrepare(a, b);
  maddFinish(r, a);
}

/**
 * r = a + b for any Jacobian a (infinity included) and affine b, constant time: the sum and
 * the double of a are both computed and the right one (or b itself, or infinity) is chosen
 * by masks, the infinity flag included. Costs a doubling on top of an addition, so the
 * scalar multiplications use it only where their recodings cannot exclude the special cases
 * (see ecmult.ts). r may alias a.
 */
export function gejAddGeComplete(r: usize, a: usize, b: usize): void {
  const dbl = CT, sum = CT + GEJ;
  gejDouble(dbl, a);
  maddPrepare(a, b);
  const hz = feIsZero(AT + 3 * FE), rz = feIsZero(AT + 4 * FE);
  maddFinish(sum, a);
  const aInf = load<u32>(a + INF) & 1;
  const same = hz & rz & (aInf ^ 1); //        a = b: the double
  const opposite = hz & (rz ^ 1) & (aInf ^ 1); // a = −b: infinity
  feCmov(sum, dbl, same);
  feCmov(sum + FE, dbl + FE, same);
  feCmov(sum + 2 * FE, dbl + 2 * FE, same);
  // a = ∞: the sum is b itself (Z = 1).
  feCmov(sum, b, aInf);
  feCmov(sum + FE, b + FE, aInf);
  feSetInt(dbl + 2 * FE, 1);
  feCmov(sum + 2 * FE, dbl + 2 * FE, aInf);
  store<u32>(sum + INF, opposite);
  gejCopy(r, sum);
}

/** r = a + b (Jacobian + affine), any inputs; variable time. r may alias a. */
export function gejAddGeVar(r: usize, a: usize, b: usize): void {
  if (gejIsInf(a)) {
    gejSetGe(r, b);
    return;
  }
  maddPrepare(a, b);
  if (feIsZeroVar(AT + 3 * FE)) {
    if (feIsZeroVar(AT + 4 * FE)) gejDouble(r, a);
    else gejSetInf(r);
    return;
  }
  maddFinish(r, a);
}

/** r = a + b (both Jacobian), any inputs; variable time (table building). r may alias a or b. */
export function gejAddVar(r: usize, a: usize, b: usize): void {
  if (gejIsInf(a)) {
    gejCopy(r, b);
    return;
  }
  if (gejIsInf(b)) {
    gejCopy(r, a);
    return;
  }
  const Z1Z1 = JT, Z2Z2 = JT + FE, U1 = JT + 2 * FE, U2 = JT + 3 * FE, S1 = JT + 4 * FE;
  const S2 = JT + 5 * FE, H = JT + 6 * FE, R = JT + 7 * FE, HH = JT + 8 * FE, HHH = JT + 9 * FE;
  const V = JT + 10 * FE, t = JT + 11 * FE, X3 = JT + 12 * FE, Z3 = JT + 13 * FE;
  feSqr(Z1Z1, a + 2 * FE);
  feSqr(Z2Z2, b + 2 * FE);
  feMul(U1, a, Z2Z2);
  feMul(U2, b, Z1Z1);
  feMul(S1, b + 2 * FE, Z2Z2);
  feMul(S1, a + FE, S1); //             S1 = Y1·Z2³
  feMul(S2, a + 2 * FE, Z1Z1);
  feMul(S2, b + FE, S2); //             S2 = Y2·Z1³
  feSub(H, U2, U1, 1);
  feSub(R, S2, S1, 1);
  if (feIsZeroVar(H)) {
    if (feIsZeroVar(R)) gejDouble(r, a);
    else gejSetInf(r);
    return;
  }
  feSqr(HH, H);
  feMul(HHH, H, HH);
  feMul(V, U1, HH);
  feMul(Z3, a + 2 * FE, b + 2 * FE);
  feMul(Z3, Z3, H);
  feMulInt(t, V, 2);
  feAdd(t, t, HHH);
  feSqr(X3, R);
  feSub(X3, X3, t, 3);
  feNormWeak(X3, X3);
  feSub(t, V, X3, 1);
  feMul(t, R, t);
  feMul(HH, S1, HHH);
  feSub(t, t, HH, 1);
  feNormWeak(r + FE, t);
  feCopy(r, X3);
  feCopy(r + 2 * FE, Z3);
  store<u32>(r + INF, 0);
}

/** Affine r from Jacobian a (not infinity): constant-time inversion. */
export function gejToGe(r: usize, a: usize): void {
  const zi = CT + 2 * GEJ;
  feInv(zi, a + 2 * FE);
  affineFromZinv(r, a, zi);
}

const ZT: usize = memory.data(<i32>(FE * 2), 8);

/** r = (X·zi², Y·zi³). zi may be clobbered. */
function affineFromZinv(r: usize, a: usize, zi: usize): void {
  const zi2 = ZT, t = ZT + FE;
  feSqr(zi2, zi);
  feMul(t, zi2, zi);
  feMul(r, a, zi2);
  feMul(r + FE, a + FE, t);
}

const BN_ACC: usize = memory.data(<i32>(FE * 2), 8);

/**
 * Affine copies of `count` Jacobian points (none at infinity) with one inversion
 * (Montgomery's trick). `scratch` holds count field elements. Variable time.
 */
export function geSetAllGejVar(dst: usize, src: usize, count: i32, scratch: usize): void {
  // scratch[i] = Z0·…·Zi
  feCopy(scratch, src + 2 * FE);
  for (let i = 1; i < count; i++) {
    feMul(scratch + <usize>i * FE, scratch + <usize>(i - 1) * FE, src + <usize>i * GEJ + 2 * FE);
  }
  const inv = BN_ACC, zi = BN_ACC + FE;
  feInvVar(inv, scratch + <usize>(count - 1) * FE);
  for (let i = count - 1; i > 0; i--) {
    const p = src + <usize>i * GEJ;
    feMul(zi, inv, scratch + <usize>(i - 1) * FE); // 1/Zi
    feMul(inv, inv, p + 2 * FE); //                   1/(Z0…Z(i−1))
    affineFromZinv(dst + <usize>i * GE, p, zi);
  }
  affineFromZinv(dst, src, inv);
}

/** 1 if the affine point (x, y) satisfies y² = x³ + 7. */
export function geIsOnCurve(a: usize): u32 {
  const t = ZT, u = ZT + FE;
  feSqr(t, a);
  feMul(t, t, a);
  feSetInt(u, 7);
  feAdd(t, t, u);
  feSqr(u, a + FE);
  return feEqual(t, u);
}
