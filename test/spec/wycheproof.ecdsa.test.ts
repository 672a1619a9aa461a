/**
 * Wycheproof ECDSA secp256k1/SHA-256 vectors (../shared/vectors/wycheproof/) against the WASM
 * verifier: every case of both files.
 *
 * - ecdsa_secp256k1_sha256_test.json (EcdsaVerify): plain ECDSA, high-S accepted → lowS: false.
 * - ecdsa_secp256k1_sha256_bitcoin_test.json (EcdsaBitcoinVerify): s > n/2 must be rejected
 *   → lowS: true (the DeSo node rule, node-api.md §5.4).
 * Signatures are ASN.1 DER; our parser is strict DER, so every BER variant ("BerEncodedSignature",
 * "InvalidEncoding", ...) must come out false, which is what both files expect.
 *
 * Skip list: none. Neither file has "acceptable" cases; the code still treats them as
 * "either outcome" should a future file add some.
 *
 * Each group's key is also tried in compressed form: the outcome must not depend on the
 * encoding of the public key.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { compress, verify } from '../../wasm/secp256k1.js';
import { hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface EcdsaTest {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface EcdsaFile {
  numberOfTests: number;
  testGroups: Array<{ type: string; publicKey: { uncompressed: string }; sha: string; tests: EcdsaTest[] }>;
}

/** tcIds deliberately not run, with the reason. Empty: every case is run. */
const SKIP: ReadonlyMap<number, string> = new Map();

const FILES = [
  { name: 'ecdsa_secp256k1_sha256_test.json', lowS: false },
  { name: 'ecdsa_secp256k1_sha256_bitcoin_test.json', lowS: true },
] as const;

const sha256 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest());

for (const file of FILES) {
  describe(`wycheproof ${file.name}`, () => {
    const data = readSharedVectors<EcdsaFile>(`wycheproof/${file.name}`);

    it('has the expected number of cases', () => {
      const count = data.testGroups.reduce((n, g) => n + g.tests.length, 0);
      assert.equal(count, data.numberOfTests);
    });

    it(`every case matches its expected result (lowS: ${file.lowS})`, () => {
      let run = 0;
      const failures: string[] = [];
      for (const group of data.testGroups) {
        assert.equal(group.sha, 'SHA-256');
        const pub65 = hexToBytes(group.publicKey.uncompressed);
        const pub33 = compress(pub65);
        for (const t of group.tests) {
          if (SKIP.has(t.tcId)) continue;
          run++;
          const hash = sha256(hexToBytes(t.msg));
          const sig = hexToBytes(t.sig);
          const got65 = verify(sig, hash, pub65, { lowS: file.lowS });
          const got33 = verify(sig, hash, pub33, { lowS: file.lowS });
          if (got65 !== got33) failures.push(`tcId ${t.tcId}: compressed/uncompressed keys disagree`);
          if (t.result === 'acceptable') continue;
          if (got65 !== (t.result === 'valid')) {
            failures.push(`tcId ${t.tcId} (${t.comment}; ${t.flags.join(',')}): expected ${t.result}, got ${got65}`);
          }
        }
      }
      assert.deepEqual(failures, []);
      assert.equal(run, data.numberOfTests - SKIP.size);
    });

    it('valid signatures stop verifying when the message changes', () => {
      for (const group of data.testGroups) {
        const pub = hexToBytes(group.publicKey.uncompressed);
        for (const t of group.tests) {
          if (t.result !== 'valid') continue;
          const hash = sha256(hexToBytes(t.msg));
          hash[31]! ^= 1;
          assert.equal(verify(hexToBytes(t.sig), hash, pub, { lowS: file.lowS }), false, `tcId ${t.tcId}`);
        }
      }
    });
  });
}
