/**
 * Wycheproof ECDH secp256k1 vectors (../shared/vectors/wycheproof/ecdh_secp256k1_test.json)
 * against the WASM ECDH: every case.
 *
 * Public keys come as X.509 SubjectPublicKeyInfo. We accept exactly the two named-curve
 * encodings DeSo could ever hand us (id-ecPublicKey + secp256k1 OID, with an uncompressed or a
 * compressed point) and reject every other ASN.1 form (explicit curve parameters, unused
 * parameters, BER lengths, wrong OIDs). That satisfies all three outcomes:
 *   valid      → must parse and give exactly `shared` (all 473 use the plain encoding);
 *   invalid    → must be rejected, by the SPKI parser or by ECDH's point validation;
 *   acceptable → either rejected, or the result equals `shared`.
 * Private keys are big-endian integers of any length (a leading 00 sign byte, or short forms);
 * they are normalised to 32 bytes.
 *
 * Skip list: none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ecdh } from '../../wasm/secp256k1.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface EcdhTest {
  tcId: number;
  comment: string;
  flags: string[];
  public: string;
  private: string;
  shared: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface EcdhFile {
  numberOfTests: number;
  testGroups: Array<{ curve: string; encoding: string; tests: EcdhTest[] }>;
}

/** tcIds deliberately not run, with the reason. Empty: every case is run. */
const SKIP: ReadonlyMap<number, string> = new Map();

/** SEQUENCE { SEQUENCE { OID id-ecPublicKey, OID secp256k1 }, BIT STRING (0 unused bits) … }. */
const SPKI_UNCOMPRESSED = hexToBytes('3056301006072a8648ce3d020106052b8104000a034200');
const SPKI_COMPRESSED = hexToBytes('3036301006072a8648ce3d020106052b8104000a032200');

function startsWith(a: Uint8Array, prefix: Uint8Array): boolean {
  return a.length >= prefix.length && prefix.every((b, i) => a[i] === b);
}

/** The point inside a named-curve secp256k1 SPKI, or null for any other encoding. */
function spkiPoint(der: Uint8Array): Uint8Array | null {
  if (der.length === SPKI_UNCOMPRESSED.length + 65 && startsWith(der, SPKI_UNCOMPRESSED)) {
    return der.subarray(SPKI_UNCOMPRESSED.length);
  }
  if (der.length === SPKI_COMPRESSED.length + 33 && startsWith(der, SPKI_COMPRESSED)) {
    return der.subarray(SPKI_COMPRESSED.length);
  }
  return null;
}

function privateKey32(hex: string): Uint8Array {
  const v = BigInt(`0x${hex}`);
  return hexToBytes(v.toString(16).padStart(64, '0'));
}

/** ECDH outcome: the shared x as hex, or the reason it was rejected. */
function run(t: EcdhTest): { shared: string } | { rejected: string } {
  const point = spkiPoint(hexToBytes(t.public));
  if (point === null) return { rejected: 'spki' };
  try {
    return { shared: bytesToHex(ecdh(privateKey32(t.private), point)) };
  } catch (e) {
    return { rejected: (e as Error).message };
  }
}

describe('wycheproof ecdh_secp256k1_test.json', () => {
  const data = readSharedVectors<EcdhFile>('wycheproof/ecdh_secp256k1_test.json');

  it('has the expected number of cases', () => {
    assert.equal(data.testGroups.reduce((n, g) => n + g.tests.length, 0), data.numberOfTests);
    for (const g of data.testGroups) assert.equal(g.curve, 'secp256k1');
  });

  it('every case matches its expected result', () => {
    const failures: string[] = [];
    const seen = { valid: 0, invalid: 0, acceptable: 0, acceptableRejected: 0 };
    for (const group of data.testGroups) {
      for (const t of group.tests) {
        if (SKIP.has(t.tcId)) continue;
        seen[t.result]++;
        const got = run(t);
        const where = `tcId ${t.tcId} (${t.comment}; ${t.flags.join(',')})`;
        if (t.result === 'valid') {
          if (!('shared' in got) || got.shared !== t.shared) failures.push(`${where}: expected ${t.shared}, got ${JSON.stringify(got)}`);
        } else if (t.result === 'invalid') {
          if ('shared' in got) failures.push(`${where}: expected rejection, got ${got.shared}`);
        } else if ('shared' in got) {
          if (got.shared !== t.shared) failures.push(`${where}: acceptable case gave a different secret ${got.shared}`);
        } else {
          seen.acceptableRejected++;
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(seen.valid + seen.invalid + seen.acceptable, data.numberOfTests - SKIP.size);
  });

  it('compressed and uncompressed forms of the same key agree on every valid case', () => {
    for (const group of data.testGroups) {
      for (const t of group.tests) {
        if (t.result !== 'valid') continue;
        const point = spkiPoint(hexToBytes(t.public));
        assert.ok(point !== null && point.length === 65, `tcId ${t.tcId}`);
        const compressed = Uint8Array.from(point.subarray(0, 33));
        compressed[0] = 0x02 | (point[64]! & 1);
        assert.equal(bytesToHex(ecdh(privateKey32(t.private), compressed)), t.shared, `tcId ${t.tcId}`);
      }
    }
  });
});
