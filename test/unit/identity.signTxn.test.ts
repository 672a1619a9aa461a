// Transaction signing for the identity `sign` method (identity-and-crypto.md §5.2–§5.4, §2.6,
// §2.8): against the SDK vectors (including the frame-equivalent deterministic references),
// against the deso-protocol SDK's own signTx, and against @noble/curves for DER and recovery.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { signTx } from 'deso-protocol';
import { decodeTxn, hashToSign, withSignature } from '../../server/chain/txn/envelope.js';
import { isTxnDecodeError } from '../../server/chain/txn/errors.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import {
  SignTxnError,
  decodeDerSignature,
  encodeDerSignature,
  isSignTxnError,
  LEVEL3_MAX_FEE_NANOS,
  signLevelForTxn,
  signTransaction,
} from '../../server/identity/signTxn.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface TxnVector {
  description: string;
  unsignedTxHex: string;
  hashToSignHex: string;
  signerSeedHex: string;
  signerPublicKeyCompressedHex: string;
  isDerivedKey: boolean;
  signedTxHex: string;
  signature: { firstByteHex: string; rHex: string; sHex: string; lowS: boolean; recoveryId?: number };
  deterministicRfc6979Reference: { signedHex: string };
}
const TXNS = readSharedVectors<{ transactions: TxnVector[] }>('sdk-vectors.json').transactions;

const N = secp256k1.Point.CURVE().n;
const HALF_N = N >> 1n;

const crypto = new InlineCrypto();
after(() => crypto.close());

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Deterministic byte stream (sha256 of a label and a counter), so failures reproduce. */
function byteStream(label: string): (n: number) => Uint8Array {
  let counter = 0;
  let pool = new Uint8Array(0);
  return (n: number) => {
    while (pool.length < n) {
      const block = createHash('sha256').update(`${label}:${counter++}`).digest();
      pool = Uint8Array.from([...pool, ...block]);
    }
    const out = pool.slice(0, n);
    pool = pool.slice(n);
    return out;
  };
}

function toBig(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytesToHex(bytes)}`);
}

function to32(v: bigint): Uint8Array {
  return hexToBytes(v.toString(16).padStart(64, '0'));
}

/** A private key in [1, n-1] from the stream. */
function randomSeed(next: (n: number) => Uint8Array): Uint8Array {
  return to32((toBig(next(32)) % (N - 1n)) + 1n);
}

function nobleVerify(compact: Uint8Array, hash: Uint8Array, publicKey: Uint8Array): boolean {
  return secp256k1.verify(compact, hash, publicKey, { prehash: false, lowS: true });
}

function nobleRecover(compact: Uint8Array, recovery: number, hash: Uint8Array): Uint8Array {
  return secp256k1.recoverPublicKey(Uint8Array.of(recovery, ...compact), hash, { prehash: false });
}

/** The signed transaction's bytes before and after its signature field, and the signature. */
function splitSigned(signed: Uint8Array): { prefix: Uint8Array; tail: Uint8Array; signature: Uint8Array } {
  const t = decodeTxn(signed);
  return { prefix: signed.subarray(0, t.signatureField.start), tail: signed.subarray(t.signatureField.end), signature: t.signature };
}

/**
 * Checks a signed transaction: same bytes as `unsigned` outside the signature field, a strict
 * (DeSo-)DER signature that verifies under `signerPublicKey` over hashToSign, low-S, header 0x30
 * for an owner key and 0x31 + recoveryId (recovering the signer) for a derived key.
 */
function assertSignedBy(signed: Uint8Array, unsigned: Uint8Array, signerPublicKey: Uint8Array, derived: boolean, who: string): void {
  const u = decodeTxn(unsigned);
  const { prefix, tail, signature } = splitSigned(signed);
  assert.equal(bytesToHex(prefix), bytesToHex(unsigned.subarray(0, u.signatureField.start)), `${who}: bytes before the signature field unchanged`);
  assert.equal(bytesToHex(tail), bytesToHex(unsigned.subarray(u.signatureField.end)), `${who}: bytes after the signature field unchanged`);
  const hash = hashToSign(unsigned);
  assert.equal(bytesToHex(hashToSign(signed)), bytesToHex(hash), `${who}: the signature is not part of what is signed`);
  const { compact, recoveryId } = decodeDerSignature(signature);
  assert.ok(nobleVerify(compact, hash, signerPublicKey), `${who}: signature verifies under the signer's key`);
  assert.ok(toBig(compact.subarray(32)) <= HALF_N, `${who}: low-S`);
  if (derived) {
    assert.ok(recoveryId !== null, `${who}: derived-key signature carries a recovery id (DeSo-DER)`);
    assert.equal(signature[0], 0x31 + recoveryId!, `${who}: DeSo-DER header`);
    assert.equal(bytesToHex(nobleRecover(compact, recoveryId!, hash)), bytesToHex(signerPublicKey), `${who}: recovery id recovers the signer`);
  } else {
    assert.equal(recoveryId, null, `${who}: owner signature is standard DER`);
    assert.equal(signature[0], 0x30, `${who}: DER header`);
  }
}

// ---------------------------------------------------------------------------------------------
// Vectors
// ---------------------------------------------------------------------------------------------

describe('signTransaction on the SDK vectors', () => {
  for (const v of TXNS) {
    it(`${v.description}: equals the deterministic RFC 6979 (frame) reference`, async () => {
      const unsigned = hexToBytes(v.unsignedTxHex);
      const copy = unsigned.slice();
      const signed = await signTransaction(crypto, unsigned, hexToBytes(v.signerSeedHex), { derived: v.isDerivedKey });
      assert.equal(Object.getPrototypeOf(signed), Uint8Array.prototype, 'a plain Uint8Array');
      assert.deepEqual(unsigned, copy, 'input not modified');
      assert.equal(bytesToHex(hashToSign(unsigned)), v.hashToSignHex, 'hash to sign as recorded');
      assert.equal(bytesToHex(signed), v.deterministicRfc6979Reference.signedHex);
      assertSignedBy(signed, unsigned, hexToBytes(v.signerPublicKeyCompressedHex), v.isDerivedKey, 'ours');
      // Same prefix and tail as the SDK's (randomized) signed transaction.
      const ours = splitSigned(signed);
      const sdk = splitSigned(hexToBytes(v.signedTxHex));
      assert.equal(bytesToHex(ours.prefix), bytesToHex(sdk.prefix), 'same bytes before the signature as the SDK');
      assert.equal(bytesToHex(ours.tail), bytesToHex(sdk.tail), 'same bytes after the signature as the SDK');
    });

    it(`${v.description}: the SDK's signedTxHex decodes and verifies`, () => {
      const unsigned = hexToBytes(v.unsignedTxHex);
      const signed = hexToBytes(v.signedTxHex);
      const { signature } = splitSigned(signed);
      const { compact, recoveryId } = decodeDerSignature(signature);
      assert.equal(bytesToHex(compact), v.signature.rHex + v.signature.sHex, 'r ‖ s as recorded');
      assert.equal(recoveryId, v.isDerivedKey ? v.signature.recoveryId : null, 'recovery id as recorded');
      assert.equal(signature[0]!.toString(16), v.signature.firstByteHex);
      assert.equal(bytesToHex(encodeDerSignature(compact)), '30' + bytesToHex(signature.subarray(1)), 'our DER re-encoding is the same bytes');
      assertSignedBy(signed, unsigned, hexToBytes(v.signerPublicKeyCompressedHex), v.isDerivedKey, 'SDK');
    });
  }

  it('the derived references differ from the owner encoding only in the header byte', async () => {
    for (const v of TXNS.filter((t) => t.isDerivedKey)) {
      const unsigned = hexToBytes(v.unsignedTxHex);
      const seed = hexToBytes(v.signerSeedHex);
      const asDerived = splitSigned(await signTransaction(crypto, unsigned, seed, { derived: true })).signature;
      const asOwner = splitSigned(await signTransaction(crypto, unsigned, seed, { derived: false })).signature;
      assert.equal(asOwner[0], 0x30, `${v.description}: owner header`);
      assert.ok(asDerived[0]! >= 0x31 && asDerived[0]! <= 0x34, `${v.description}: DeSo-DER header in 0x31..0x34`);
      assert.equal(bytesToHex(asDerived.subarray(1)), bytesToHex(asOwner.subarray(1)), `${v.description}: same DER body`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Interop with the SDK's signTx
// ---------------------------------------------------------------------------------------------

/** The vector's unsigned txn with a fresh v1 tail (fee, expiration height, partial id); v0 unchanged. */
function variant(unsignedHex: string, next: (n: number) => Uint8Array): Uint8Array {
  const unsigned = hexToBytes(unsignedHex);
  const t = decodeTxn(unsigned);
  if (t.v1 === null) return unsigned;
  const u32 = (): bigint => toBig(next(4));
  const tail = Buffer.concat([encodeUvarint(1), encodeUvarint(u32() % 100000n), encodeUvarint(u32()), encodeUvarint(toBig(next(7)))]);
  return Uint8Array.from(Buffer.concat([unsigned.subarray(0, t.signatureField.end), tail]));
}

describe('signTransaction agrees with deso-protocol signTx', () => {
  it('on fresh txns and keys, owner and derived: both verify, identical outside the signature', async () => {
    const next = byteStream('signTxn-interop');
    let checked = 0;
    for (const v of TXNS) {
      for (let i = 0; i < 4; i++) {
        const unsigned = variant(v.unsignedTxHex, next);
        const seed = randomSeed(next);
        const signer = secp256k1.getPublicKey(seed, true);
        for (const derived of [false, true]) {
          const ours = await signTransaction(crypto, unsigned, seed, { derived });
          const sdk = hexToBytes(await signTx(bytesToHex(unsigned), bytesToHex(seed), { isDerivedKey: derived }));
          const who = `${v.description} #${i} derived=${derived}`;
          assertSignedBy(ours, unsigned, signer, derived, `ours ${who}`);
          assertSignedBy(sdk, unsigned, signer, derived, `SDK ${who}`);
          const a = splitSigned(ours);
          const b = splitSigned(sdk);
          assert.equal(bytesToHex(a.prefix), bytesToHex(b.prefix), `${who}: same prefix`);
          assert.equal(bytesToHex(a.tail), bytesToHex(b.tail), `${who}: same tail`);
          checked++;
        }
      }
    }
    assert.equal(checked, TXNS.length * 4 * 2);
  });
});

// ---------------------------------------------------------------------------------------------
// DER
// ---------------------------------------------------------------------------------------------

/** A scalar in [1, n-1] of one of several shapes (plain, high bit, leading zero bytes, tiny, extremes). */
function randomScalar(next: (n: number) => Uint8Array, i: number): bigint {
  const raw = toBig(next(32));
  switch (i % 6) {
    case 0:
      return (raw % (N - 1n)) + 1n;
    case 1: // high bit set ⇒ a 00 pad byte
      return (raw % (N - (1n << 255n))) + (1n << 255n);
    case 2: {
      // 1..31 leading zero bytes, and sometimes the high bit of the first non-zero byte set
      const zeros = (next(1)[0]! % 31) + 1;
      const bits = BigInt(8 * (32 - zeros));
      const v = raw % (1n << bits);
      return next(1)[0]! & 1 ? v | (1n << (bits - 1n)) : v === 0n ? 1n : v;
    }
    case 3:
      return BigInt(next(1)[0]! % 255) + 1n;
    case 4:
      return next(1)[0]! & 1 ? N - 1n : 1n;
    default:
      return (raw % (N - 1n)) + 1n;
  }
}

describe('encodeDerSignature / decodeDerSignature', () => {
  it('round-trip 2,000 random signatures and match @noble/curves DER', () => {
    const next = byteStream('signTxn-der');
    let padded = 0;
    let stripped = 0;
    for (let i = 0; i < 2000; i++) {
      const r = randomScalar(next, i);
      const s = randomScalar(next, i + 3);
      const compact = Uint8Array.from([...to32(r), ...to32(s)]);
      const der = encodeDerSignature(compact);
      const noble = new secp256k1.Signature(r, s).toBytes('der');
      assert.deepEqual(der, noble, `DER of r=${r.toString(16)} s=${s.toString(16)} as noble`);
      const back = decodeDerSignature(der);
      assert.deepEqual(back.compact, compact, 'round trip');
      assert.equal(back.recoveryId, null);
      const parsed = secp256k1.Signature.fromBytes(der, 'der');
      assert.ok(parsed.r === r && parsed.s === s, 'noble parses our DER to the same r, s');
      const recovery = i % 4;
      const deso = der.slice();
      deso[0] = 0x31 + recovery;
      const d = decodeDerSignature(deso);
      assert.deepEqual(d.compact, compact, 'DeSo-DER round trip');
      assert.equal(d.recoveryId, recovery);
      if (der[4] === 0) padded++;
      if (der[3]! < 32) stripped++;
    }
    assert.ok(padded > 100, `high-bit integers exercised (${padded})`);
    assert.ok(stripped > 100, `leading-zero integers exercised (${stripped})`);
  });

  it('encodes zero as one 00 byte and refuses a compact signature that is not 64 bytes', () => {
    assert.equal(bytesToHex(encodeDerSignature(new Uint8Array(64))), '3006020100020100');
    assert.throws(() => encodeDerSignature(new Uint8Array(63)), RangeError);
    assert.throws(() => encodeDerSignature(new Uint8Array(65)), RangeError);
  });

  const good = (): Uint8Array => encodeDerSignature(hexToBytes(TXNS[0]!.signature.rHex + TXNS[0]!.signature.sHex));
  /** DER from raw r and s INTEGER bodies, lengths computed (or overridden). */
  const der = (rBody: string, sBody: string, header = 0x30): Uint8Array => {
    const r = hexToBytes(rBody);
    const s = hexToBytes(sBody);
    return Uint8Array.from([header, 4 + r.length + s.length, 0x02, r.length, ...r, 0x02, s.length, ...s]);
  };
  const bad = (name: string, bytes: Uint8Array, re?: RegExp): void => {
    assert.throws(
      () => decodeDerSignature(bytes),
      (e: unknown) => isTxnDecodeError(e) && (re === undefined || re.test(e.message)),
      `${name}: ${bytesToHex(bytes)}`,
    );
  };

  it('refuses malformed signatures with a TxnDecodeError', () => {
    const g = good();
    assert.equal(decodeDerSignature(g).recoveryId, null, 'the base case is valid');
    const x32 = '11'.repeat(32);
    bad('empty', new Uint8Array(0), /empty/);
    for (const header of [0x00, 0x2f, 0x35, 0x02, 0xff]) {
      const b = g.slice();
      b[0] = header;
      bad(`header ${header}`, b, /first byte/);
    }
    // Lengths.
    bad('sequence length too long', Uint8Array.from([0x30, g[1]! + 1, ...g.subarray(2)]), /sequence length/);
    bad('sequence length too short', Uint8Array.from([0x30, g[1]! - 1, ...g.subarray(2)]), /sequence length/);
    bad('truncated', g.subarray(0, g.length - 1));
    bad('too short overall', hexToBytes('3005020101020101'.slice(0, 14)), /length/);
    bad('long-form sequence length', Uint8Array.from([0x30, 0x81, g[1]!, ...g.subarray(2)]));
    bad('r length 0', der('', x32), /length 0/);
    bad('r length overruns', (() => { const b = g.slice(); b[3] = g[1]!; return b; })(), /r/);
    bad('s length overruns', der(x32, x32).map((b, i, a) => (i === 4 + 32 + 1 ? a[i]! + 1 : b)), /s/);
    bad('s length short (bytes left over)', der(x32, x32).map((b, i, a) => (i === 4 + 32 + 1 ? a[i]! - 1 : b)), /after/);
    bad('over 72 bytes', Uint8Array.from([0x30, 71, 0x02, 34, 0, 0x80, ...new Uint8Array(32), 0x02, 33, 0, 0x80, ...new Uint8Array(31)]), /length/);
    bad('wrong integer tag for r', (() => { const b = g.slice(); b[2] = 0x03; return b; })(), /INTEGER/);
    bad('wrong integer tag for s', (() => { const b = g.slice(); b[4 + g[3]!] = 0x03; return b; })(), /INTEGER/);
    // Integer encodings.
    bad('non-minimal r (00 before a byte < 0x80)', der('00' + x32, x32), /not minimal/);
    bad('non-minimal s (00 before a byte < 0x80)', der(x32, '0011'), /not minimal/);
    bad('non-minimal zero (00 00)', der('0000', x32), /not minimal/);
    bad('negative r', der('81' + '11'.repeat(31), x32), /negative/);
    bad('negative s', der(x32, 'ff'), /negative/);
    bad('33-byte r without a pad', der('01' + x32, x32), /longer than 32/);
    // Trailing bytes, with the sequence length covering them or not.
    bad('trailing byte outside the sequence', Uint8Array.from([...g, 0x00]), /sequence length/);
    bad('trailing byte inside the sequence', Uint8Array.from([0x30, g[1]! + 1, ...g.subarray(2), 0x00]), /after/);
    // DeSo-DER headers are only a header: the body is just as strict.
    bad('DeSo-DER with a non-minimal r', der('00' + x32, x32, 0x32), /not minimal/);
    // The largest valid sizes are accepted.
    const max = der('00' + 'ff'.repeat(32), '00' + 'ff'.repeat(32));
    assert.equal(max.length, 72);
    assert.equal(bytesToHex(decodeDerSignature(max).compact), 'ff'.repeat(64));
    assert.equal(bytesToHex(decodeDerSignature(der('01', '7f', 0x34)).compact), '00'.repeat(31) + '01' + '00'.repeat(31) + '7f');
    assert.equal(decodeDerSignature(der('01', '7f', 0x34)).recoveryId, 3);
  });
});

// ---------------------------------------------------------------------------------------------
// Access level
// ---------------------------------------------------------------------------------------------

const SENDER = hexToBytes(TXNS[0]!.signerPublicKeyCompressedHex);
const OTHER = hexToBytes(TXNS[1]!.signerPublicKeyCompressedHex);

/** A v1 txn with no inputs, the given outputs and type, transactor SENDER, fee `feeNanos`. */
function buildTxn(txnType: number, outputs: Uint8Array[], publicKey: Uint8Array = SENDER, feeNanos = 200n): Uint8Array {
  const parts: Uint8Array[] = [encodeUvarint(0), encodeUvarint(outputs.length)];
  for (const pk of outputs) parts.push(pk, encodeUvarint(1000));
  parts.push(encodeUvarint(txnType), encodeUvarint(2), Uint8Array.of(0xab, 0xcd));
  parts.push(encodeUvarint(publicKey.length), publicKey);
  parts.push(encodeUvarint(0), encodeUvarint(0));
  parts.push(encodeUvarint(1), encodeUvarint(feeNanos), encodeUvarint(300275), encodeUvarint(42));
  return Uint8Array.from(Buffer.concat(parts));
}

describe('signLevelForTxn', () => {
  const level = (bytes: Uint8Array): 3 | 4 => signLevelForTxn(decodeTxn(bytes));

  it('BASIC_TRANSFER needs 4, even paying only the sender', () => {
    assert.equal(level(hexToBytes(TXNS[0]!.unsignedTxHex)), 4);
    assert.equal(level(hexToBytes(TXNS[1]!.unsignedTxHex)), 4);
    assert.equal(level(buildTxn(2, [SENDER])), 4);
    assert.equal(level(buildTxn(2, [])), 4);
  });

  it('a level-3 type paying only the sender (or nobody) needs 3', () => {
    assert.equal(level(hexToBytes(TXNS[2]!.unsignedTxHex)), 3, 'FOLLOW vector (no outputs)');
    assert.equal(level(buildTxn(9, [])), 3);
    assert.equal(level(buildTxn(9, [SENDER])), 3);
    assert.equal(level(buildTxn(5, [])), 3);
    assert.equal(level(buildTxn(5, [SENDER, SENDER])), 3);
  });

  it('the same types paying another key need 4 (compared byte-wise)', () => {
    assert.equal(level(buildTxn(9, [OTHER])), 4);
    assert.equal(level(buildTxn(5, [SENDER, OTHER])), 4);
    const flipped = SENDER.slice();
    flipped[0] = flipped[0] === 0x02 ? 0x03 : 0x02;
    assert.equal(level(buildTxn(5, [flipped])), 4, 'same x, other parity prefix');
  });

  it('unknown, unlisted and level-4 types need 4', () => {
    assert.equal(level(buildTxn(23, [])), 4, 'MESSAGING_GROUP');
    assert.equal(level(buildTxn(44, [SENDER])), 4, 'ATOMIC_TXNS_WRAPPER');
    assert.equal(level(buildTxn(200, [])), 4, 'unassigned number');
    assert.equal(level(buildTxn(6, [])), 4, 'UPDATE_PROFILE');
    assert.equal(level(hexToBytes(TXNS[3]!.unsignedTxHex)), 4, 'AUTHORIZE_DERIVED_KEY vector');
  });

  it('a txn without a transactor key paying someone needs 4', () => {
    assert.equal(level(buildTxn(9, [OTHER], new Uint8Array(0))), 4);
  });

  it('a level-3 type whose fee is above LEVEL3_MAX_FEE_NANOS needs 4 (a level-3 grant cannot burn the balance as fee)', () => {
    assert.equal(level(buildTxn(5, [], SENDER, LEVEL3_MAX_FEE_NANOS)), 3, 'at the cap');
    assert.equal(level(buildTxn(5, [], SENDER, LEVEL3_MAX_FEE_NANOS + 1n)), 4, 'one nano above');
    assert.equal(level(buildTxn(9, [SENDER], SENDER, 10n ** 17n)), 4, 'the whole supply as fee');
  });
});

// ---------------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------------

describe('signTransaction refusals', () => {
  const seed = hexToBytes(TXNS[0]!.signerSeedHex);

  it('refuses an already signed txn with ALREADY_SIGNED', async () => {
    for (const v of TXNS) {
      for (const signedHex of [v.signedTxHex, v.deterministicRfc6979Reference.signedHex]) {
        await assert.rejects(
          signTransaction(crypto, hexToBytes(signedHex), seed, { derived: v.isDerivedKey }),
          (e: unknown) => isSignTxnError(e) && e instanceof SignTxnError && e.code === 'ALREADY_SIGNED' && /already/.test(e.message),
          v.description,
        );
      }
    }
    // Any non-empty signature field, even one byte.
    const oneByte = withSignature(hexToBytes(TXNS[0]!.unsignedTxHex), Uint8Array.of(0x30));
    await assert.rejects(signTransaction(crypto, oneByte, seed, { derived: false }), (e: unknown) => isSignTxnError(e) && e.code === 'ALREADY_SIGNED');
  });

  it('refuses malformed txn bytes with a TxnDecodeError', async () => {
    const unsigned = hexToBytes(TXNS[0]!.unsignedTxHex);
    const cases: Array<[string, Uint8Array]> = [
      ['empty', new Uint8Array(0)],
      ['truncated', unsigned.subarray(0, unsigned.length - 3)],
      ['trailing garbage', Uint8Array.from([...unsigned, 0x01, 0x02, 0x03, 0x04, 0x05])],
      ['type 0', hexToBytes('0000000000000000')],
      ['random bytes', hexToBytes('ffffffffffffffffffffff')],
    ];
    for (const [name, bytes] of cases) {
      await assert.rejects(signTransaction(crypto, bytes, seed, { derived: false }), (e: unknown) => isTxnDecodeError(e) && !isSignTxnError(e), name);
    }
  });

  it('reports an unusable private key as SIGN_FAILED', async () => {
    const unsigned = hexToBytes(TXNS[0]!.unsignedTxHex);
    for (const [name, key] of [
      ['zero', new Uint8Array(32)],
      ['n', to32(N)],
      ['31 bytes', new Uint8Array(31).fill(1)],
    ] as const) {
      await assert.rejects(
        signTransaction(crypto, unsigned, key, { derived: false }),
        (e: unknown) => isSignTxnError(e) && e.code === 'SIGN_FAILED' && /privateKey/.test(e.message),
        name,
      );
    }
  });
});
