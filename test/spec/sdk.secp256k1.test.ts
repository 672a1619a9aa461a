/**
 * secp256k1 against the deso-protocol SDK vectors (../shared/vectors/sdk-vectors.json,
 * identity-and-crypto.md §9): keys derive byte for byte, every recorded signature verifies,
 * DeSo-DER signatures recover their signer, and, with the recorded extra entropy (RFC 6979
 * §3.6, noble's `extraEntropy`), our signer reproduces the SDK's signatures exactly; without
 * it, the frame-equivalent deterministic signatures (`deterministicRfc6979Reference`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ecdh,
  getPublicKey,
  parseDesoDer,
  recoverPublicKey,
  sign,
  toDer,
  toDesoDer,
  verify,
} from '../../wasm/secp256k1.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface SdkKey {
  id: string;
  privateKeyHex: string;
  publicKeyCompressedHex: string;
  publicKeyUncompressedHex: string;
  defaultKeyMessaging: { privateKeyHex: string; publicKeyCompressedHex: string };
}
interface SigCheck {
  standardDerHex: string;
  rHex: string;
  sHex: string;
  lowS: boolean;
  verifies: boolean;
  recoveryId?: number;
  recoveredPublicKeyCompressedHex?: string;
}
interface SdkTxn {
  description: string;
  hashToSignHex: string;
  signerSeedHex: string;
  signerPublicKeyCompressedHex: string;
  isDerivedKey: boolean;
  extraEntropyHex?: string;
  splice: { unsignedSignatureFieldOffset: number; signatureHex: string };
  signature: SigCheck;
  deterministicRfc6979Reference: { signedHex: string };
}
interface SdkJwt {
  signerSeedHex: string;
  signingInputSha256Hex: string;
  signatureRHex: string;
  signatureSHex: string;
  verifyingPublicKeyCompressedHex: string;
  rngDraws: string[];
}
interface SdkVectors {
  keys: SdkKey[];
  transactions: SdkTxn[];
  jwt: SdkJwt[];
  v2SharedSecret: Array<{ senderSeedHex: string; recipientSeedHex: string; ecdhSharedXHex: string }>;
  edgeLeadingZeroSharedSecret: { senderSeedHex: string; recipientSeedHex: string; ecdhSharedX32Hex: string };
  derivedKeyAuthorization: {
    ownerSeedHex: string;
    accessBytesHashHex: string;
    accessSignatureDerHex: string;
    messagingKeyHashHex: string;
    messagingKeySignatureDerHex: string;
  };
}

const v = readSharedVectors<SdkVectors>('sdk-vectors.json');
const h = hexToBytes;

/** The signature field of a signed transaction: uvarint length (< 128 here) then the bytes. */
function signatureField(signedHex: string, offset: number): Uint8Array {
  const bytes = h(signedHex);
  const len = bytes[offset]!;
  assert.ok(len < 0x80);
  return bytes.subarray(offset + 1, offset + 1 + len);
}

describe('secp256k1 against the deso-protocol SDK vectors', () => {
  it('keys: public keys derive byte for byte (incl. 1, n−1, leading zero bytes) and default messaging keys', () => {
    assert.ok(v.keys.length >= 5);
    for (const k of v.keys) {
      assert.equal(bytesToHex(getPublicKey(h(k.privateKeyHex))), k.publicKeyCompressedHex, k.id);
      assert.equal(bytesToHex(getPublicKey(h(k.privateKeyHex), false)), k.publicKeyUncompressedHex, k.id);
      const m = k.defaultKeyMessaging;
      assert.equal(bytesToHex(getPublicKey(h(m.privateKeyHex))), m.publicKeyCompressedHex, k.id);
    }
  });

  for (const t of v.transactions) {
    it(`transaction "${t.description}": verifies, recovers, and re-signs byte for byte`, () => {
      const hash = h(t.hashToSignHex);
      const seed = h(t.signerSeedHex);
      assert.equal(bytesToHex(getPublicKey(seed)), t.signerPublicKeyCompressedHex);
      const pub = h(t.signerPublicKeyCompressedHex);
      const sig = t.signature;
      assert.equal(verify(h(sig.standardDerHex), hash, pub), sig.verifies);

      const spliced = h(t.splice.signatureHex);
      const parsed = parseDesoDer(spliced)!;
      assert.ok(parsed !== null);
      assert.equal(bytesToHex(parsed.compact), sig.rHex + sig.sHex);
      if (t.isDerivedKey) {
        assert.equal(parsed.recovery, sig.recoveryId);
        assert.equal(bytesToHex(recoverPublicKey(hash, parsed.compact, parsed.recovery!)!), sig.recoveredPublicKeyCompressedHex);
      } else {
        assert.equal(parsed.recovery, null);
      }

      // Deterministic RFC 6979 (the identity frame's signature, elliptic canonical).
      const det = sign(hash, seed);
      const detField = signatureField(t.deterministicRfc6979Reference.signedHex, t.splice.unsignedSignatureFieldOffset);
      const detBytes = t.isDerivedKey ? toDesoDer(det.compact, det.recovery) : toDer(det.compact);
      assert.equal(bytesToHex(detBytes), bytesToHex(detField));

      // The SDK's own signature: RFC 6979 with its recorded 32 bytes of extra entropy.
      if (t.extraEntropyHex !== undefined) {
        const sdk = sign(hash, seed, { extraEntropy: h(t.extraEntropyHex) });
        const sdkBytes = t.isDerivedKey ? toDesoDer(sdk.compact, sdk.recovery) : toDer(sdk.compact);
        assert.equal(bytesToHex(sdkBytes), t.splice.signatureHex);
      }
    });
  }

  it('JWTs: r ‖ s verify against the recorded key and re-sign exactly with the recorded entropy', () => {
    for (const j of v.jwt) {
      const hash = h(j.signingInputSha256Hex);
      const compact = h(j.signatureRHex + j.signatureSHex);
      const pub = h(j.verifyingPublicKeyCompressedHex);
      assert.ok(verify(compact, hash, pub, { lowS: false }));
      assert.equal(bytesToHex(getPublicKey(h(j.signerSeedHex))), j.verifyingPublicKeyCompressedHex);
      assert.equal(j.rngDraws.length, 1);
      const again = sign(hash, h(j.signerSeedHex), { extraEntropy: h(j.rngDraws[0]!) });
      assert.equal(bytesToHex(again.compact), j.signatureRHex + j.signatureSHex);
    }
  });

  it('derived-key authorization: access and messaging-key signatures verify under the owner key', () => {
    const d = v.derivedKeyAuthorization;
    const owner = getPublicKey(h(d.ownerSeedHex));
    assert.ok(verify(h(d.accessSignatureDerHex), h(d.accessBytesHashHex), owner));
    assert.ok(verify(h(d.messagingKeySignatureDerHex), h(d.messagingKeyHashHex), owner));
    assert.equal(verify(h(d.accessSignatureDerHex), h(d.messagingKeyHashHex), owner), false);
  });

  it('ECDH: shared x coordinates match the SDK both ways, leading zero byte kept', () => {
    for (const s of v.v2SharedSecret) {
      const a = h(s.senderSeedHex), b = h(s.recipientSeedHex);
      assert.equal(bytesToHex(ecdh(a, getPublicKey(b))), s.ecdhSharedXHex);
      assert.equal(bytesToHex(ecdh(b, getPublicKey(a, false))), s.ecdhSharedXHex);
    }
    const e = v.edgeLeadingZeroSharedSecret;
    const x = ecdh(h(e.senderSeedHex), getPublicKey(h(e.recipientSeedHex)));
    assert.equal(x.length, 32);
    assert.equal(x[0], 0);
    assert.equal(bytesToHex(x), e.ecdhSharedX32Hex);
  });
});
