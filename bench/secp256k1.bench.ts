/**
 * secp256k1 on one thread: ours (WASM core, wasm/secp256k1.ts) against tiny-secp256k1
 * (libsecp256k1 compiled to WASM), @noble/curves (pure JS) and node:crypto (OpenSSL, native)
 * where it has the operation.
 *
 * Last results: 2026-11-22, Node v20.20.2, 2-core sandbox (AMD EPYC, shared: ±10% between
 * runs), `npx tsx bench/secp256k1.bench.ts`, release build:
 *   verify   ours  8,955/s (compact; DER 8,114/s)  tiny 3,212/s  noble 462/s  node:crypto 2,181/s
 *            → 2.79x tiny, 19.4x noble, 4.11x node:crypto
 *   sign     ours 17,216/s  tiny 5,950/s  noble 1,527/s  node:crypto 2,171/s (random k)
 *            → 2.89x tiny, 11.3x noble, 7.93x node:crypto
 *   ECDH     ours  8,969/s  tiny 4,010/s (pointMultiply)  noble 320/s  node:crypto 1,302/s
 *            → 2.24x tiny, 28.0x noble, 6.89x node:crypto
 *   pubkey   ours 24,265/s  tiny 8,056/s  noble 1,834/s  node:crypto 2,544/s
 *            → 3.01x tiny, 13.2x noble, 9.54x node:crypto
 * Earlier states of ours in the same setting (what each change bought):
 *   first correct version (Fermat field inverse, 4-bit k·G windows, looped limb helpers,
 *   plain 4-bit k·Q): verify 7,569/s, sign 12,213/s, ECDH 5,228/s, pubkey 15,974/s;
 *   unrolled limb helpers: ECDH ≈ 7,000/s, pubkey ≈ 18,000/s (quick runs, best of 7);
 *   5-bit k·G windows + keyed-HMAC reuse in RFC 6979: sign ≈ 16,200/s, pubkey ≈ 20,500/s;
 *   GLV for constant-time k·Q: ECDH 6,624 → 8,969/s.
 *
 * Notes on fairness: every task cycles through KEY_COUNT distinct keys and hashes; ours and
 * tiny take a 32-byte hash; node:crypto signs/verifies a 32-byte message it hashes itself
 * (≈ 0.3 µs of SHA-256 extra) with KeyObjects built once, and its signatures use a random
 * nonce; "ECDH" for tiny is pointMultiply (compressed x, no hashing), for node:crypto
 * diffieHellman over KeyObjects, for noble getSharedSecret.
 * @module
 */
import * as crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import * as tiny from 'tiny-secp256k1';
import { Bench } from 'tinybench';
import * as ours from '../wasm/secp256k1.js';
import { printResults, ratioLine, roundOptions, runRounds, type RoundResults } from './_shared.js';
import { absoluteFigure, type Figure } from './figures.js';

/** Distinct keys cycled through, so no single input's shape dominates. */
const KEY_COUNT = 64;
const BENCH_OPTIONS = roundOptions({ time: 2_000, warmupTime: 300 });

interface Fixture {
  sk: Uint8Array;
  pub33: Uint8Array;
  hash: Uint8Array;
  sig: Uint8Array;
  der: Uint8Array;
  nodePriv: crypto.KeyObject;
  nodePub: crypto.KeyObject;
  nodeSig: Buffer;
  otherPub33: Uint8Array;
  otherNodePub: crypto.KeyObject;
}

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64url');

function nodeKeys(sk: Uint8Array): { priv: crypto.KeyObject; pub: crypto.KeyObject } {
  const pub = secp256k1.getPublicKey(sk, false);
  const jwk = { kty: 'EC', crv: 'secp256k1', x: b64(pub.subarray(1, 33)), y: b64(pub.subarray(33)) };
  return {
    priv: crypto.createPrivateKey({ key: { ...jwk, d: b64(sk) }, format: 'jwk' }),
    pub: crypto.createPublicKey({ key: jwk, format: 'jwk' }),
  };
}

/** Deterministic: secret i = sha256("secp256k1.bench <i>"). */
function fixtures(): Fixture[] {
  const text = new TextEncoder();
  const secret = (i: number): Uint8Array => sha256(text.encode(`secp256k1.bench ${i}`));
  return Array.from({ length: KEY_COUNT }, (_, i) => {
    const sk = secret(i);
    const other = secret(i + KEY_COUNT);
    const hash = sha256(text.encode(`message ${i}`));
    const sig = secp256k1.sign(hash, sk, { prehash: false });
    const node = nodeKeys(sk);
    return {
      sk,
      pub33: secp256k1.getPublicKey(sk, true),
      hash,
      sig,
      der: secp256k1.Signature.fromBytes(sig).toBytes('der'),
      nodePriv: node.priv,
      nodePub: node.pub,
      nodeSig: crypto.sign('sha256', hash, { key: node.priv, dsaEncoding: 'ieee-p1363' }),
      otherPub33: secp256k1.getPublicKey(other, true),
      otherNodePub: nodeKeys(other).pub,
    };
  });
}

export async function run(): Promise<Figure[]> {
  const fx = fixtures();
  let i = 0;
  const next = (): Fixture => fx[(i = (i + 1) & (KEY_COUNT - 1))]!;
  // Results feed a sink checked at the end, so no task is optimised away or silently fails.
  let sink = 0;
  ours.init();

  const verify = new Bench({ name: 'ECDSA verify (32-byte hash, low-S enforced where supported)', ...BENCH_OPTIONS });
  verify
    .add('ours: verify compact', () => {
      const f = next();
      sink += ours.verify(f.sig, f.hash, f.pub33) ? 1 : 0;
    })
    .add('ours: verify DER', () => {
      const f = next();
      sink += ours.verify(f.der, f.hash, f.pub33) ? 1 : 0;
    })
    .add('tiny-secp256k1: verify', () => {
      const f = next();
      sink += tiny.verify(f.hash, f.pub33, f.sig, true) ? 1 : 0;
    })
    .add('noble: verify', () => {
      const f = next();
      sink += secp256k1.verify(f.sig, f.hash, f.pub33, { prehash: false }) ? 1 : 0;
    })
    .add('node:crypto: verify (SPKI KeyObject)', () => {
      const f = next();
      sink += crypto.verify('sha256', f.hash, { key: f.nodePub, dsaEncoding: 'ieee-p1363' }, f.nodeSig) ? 1 : 0;
    });

  const sign = new Bench({ name: 'ECDSA sign (RFC 6979 except node:crypto, low-S)', ...BENCH_OPTIONS });
  sign
    .add('ours: sign', () => {
      const f = next();
      sink += ours.sign(f.hash, f.sk).compact[0]!;
    })
    .add('tiny-secp256k1: sign', () => {
      const f = next();
      sink += tiny.sign(f.hash, f.sk)[0]!;
    })
    .add('noble: sign', () => {
      const f = next();
      sink += secp256k1.sign(f.hash, f.sk, { prehash: false })[0]!;
    })
    .add('node:crypto: sign (random k)', () => {
      const f = next();
      sink += crypto.sign('sha256', f.hash, { key: f.nodePriv, dsaEncoding: 'ieee-p1363' })[0]!;
    });

  const ecdh = new Bench({ name: 'ECDH (x coordinate of d·Q)', ...BENCH_OPTIONS });
  ecdh
    .add('ours: ecdh', () => {
      const f = next();
      sink += ours.ecdh(f.sk, f.otherPub33)[0]!;
    })
    .add('tiny-secp256k1: pointMultiply', () => {
      const f = next();
      sink += tiny.pointMultiply(f.otherPub33, f.sk)![1]!;
    })
    .add('noble: getSharedSecret', () => {
      const f = next();
      sink += secp256k1.getSharedSecret(f.sk, f.otherPub33)[1]!;
    })
    .add('node:crypto: diffieHellman', () => {
      const f = next();
      sink += crypto.diffieHellman({ privateKey: f.nodePriv, publicKey: f.otherNodePub })[0]!;
    });

  const pub = new Bench({ name: 'public key from private key (compressed)', ...BENCH_OPTIONS });
  const nodeEcdh = crypto.createECDH('secp256k1');
  pub
    .add('ours: getPublicKey', () => {
      sink += ours.getPublicKey(next().sk)[1]!;
    })
    .add('tiny-secp256k1: pointFromScalar', () => {
      sink += tiny.pointFromScalar(next().sk)![1]!;
    })
    .add('noble: getPublicKey', () => {
      sink += secp256k1.getPublicKey(next().sk)[1]!;
    })
    .add('node:crypto: ECDH.setPrivateKey + getPublicKey', () => {
      nodeEcdh.setPrivateKey(next().sk);
      sink += nodeEcdh.getPublicKey(null, 'compressed')[1]!;
    });

  const rounds = new Map<Bench, RoundResults>();
  for (const bench of [verify, sign, ecdh, pub]) {
    rounds.set(bench, await runRounds(bench));
    printResults(bench.name ?? '', bench);
  }
  if (sink === 0) throw new Error('secp256k1.bench: tasks produced no results');
  console.log('');
  const ratio = (label: string, name: string, bench: Bench, a: string, b: string): Figure => ratioLine(label, name, rounds.get(bench)!, a, b);
  const ops = (name: string, bench: Bench, task: string): Figure => absoluteFigure(name, rounds.get(bench)!.opsPerSec(task), 'ops/s');
  return [
    ratio('verify ours / tiny-secp256k1', 'verifyVsTinySecp', verify, 'ours: verify compact', 'tiny-secp256k1: verify'),
    ratio('verify ours / noble', 'verifyVsNoble', verify, 'ours: verify compact', 'noble: verify'),
    ratio('verify ours / node:crypto', 'verifyVsNodeCrypto', verify, 'ours: verify compact', 'node:crypto: verify (SPKI KeyObject)'),
    ratio('sign ours / tiny-secp256k1', 'signVsTinySecp', sign, 'ours: sign', 'tiny-secp256k1: sign'),
    ratio('sign ours / noble', 'signVsNoble', sign, 'ours: sign', 'noble: sign'),
    ratio('sign ours / node:crypto', 'signVsNodeCrypto', sign, 'ours: sign', 'node:crypto: sign (random k)'),
    ratio('ecdh ours / tiny-secp256k1', 'ecdhVsTinySecp', ecdh, 'ours: ecdh', 'tiny-secp256k1: pointMultiply'),
    ratio('ecdh ours / noble', 'ecdhVsNoble', ecdh, 'ours: ecdh', 'noble: getSharedSecret'),
    ratio('ecdh ours / node:crypto', 'ecdhVsNodeCrypto', ecdh, 'ours: ecdh', 'node:crypto: diffieHellman'),
    ratio('getPublicKey ours / tiny-secp256k1', 'getPublicKeyVsTinySecp', pub, 'ours: getPublicKey', 'tiny-secp256k1: pointFromScalar'),
    ratio('getPublicKey ours / noble', 'getPublicKeyVsNoble', pub, 'ours: getPublicKey', 'noble: getPublicKey'),
    ratio('getPublicKey ours / node:crypto', 'getPublicKeyVsNodeCrypto', pub, 'ours: getPublicKey', 'node:crypto: ECDH.setPrivateKey + getPublicKey'),
    ops('verifyOpsPerSec', verify, 'ours: verify compact'),
    ops('verifyDerOpsPerSec', verify, 'ours: verify DER'),
    ops('signOpsPerSec', sign, 'ours: sign'),
    ops('ecdhOpsPerSec', ecdh, 'ours: ecdh'),
    ops('getPublicKeyOpsPerSec', pub, 'ours: getPublicKey'),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
