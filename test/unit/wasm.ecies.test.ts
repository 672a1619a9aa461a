// Message ECIES of identity-and-crypto.md §3 in the WASM core: byte-exact against the official
// SDK's vectors, differential against an all-node:crypto implementation, the §3.6 quirk.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, createECDH, createHash, createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { eciesEncryptNode } from '../../bench/baselines/eciesNodeCrypto.js';
import { decodePublicKey } from '../../server/keys/index.js';
import {
  decrypt,
  decryptBatch,
  decryptSharedBatch,
  encrypt,
  encryptShared,
  ECIES_OVERHEAD,
  sharedPrivateKey,
} from '../../wasm/ecies.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface SdkVectors {
  keys: Array<{ id: string; publicKeyCompressedHex: string }>;
  v1Legacy: Array<{ recipient: string; recipientSeedHex: string; plaintext: string; ciphertextHex: string; ephemeralPrivateKeyHex: string; ivHex: string }>;
  v2SharedSecret: Array<{
    senderSeedHex: string;
    senderPublicKeyBase58Check: string;
    recipientSeedHex: string;
    recipientPublicKeyBase58Check: string;
    sharedPrivateKeyHex: string;
    sharedPublicKeyUncompressedHex: string;
    messages: Array<{ plaintext: string; ciphertextHex: string; ephemeralPrivateKeyHex: string; parsed: { ivHex: string } }>;
  }>;
  v2DoubleEncoded: { recipientSeedHex: string; senderPublicKeyBase58Check: string; doubleEncodedHex: string; expectedPlaintext: string };
  edgeLeadingZeroSharedSecret: {
    senderSeedHex: string;
    recipientSeedHex: string;
    senderPublicKeyBase58Check: string;
    recipientPublicKeyBase58Check: string;
    sdkSharedPrivateKeyHex: string;
    identityFrameSharedPrivateKeyHex: string;
    plaintext: string;
    sdkCiphertextHex: string;
  };
}

const V = readSharedVectors<SdkVectors>('sdk-vectors.json');
const pub = (b58: string): Uint8Array => decodePublicKey(b58, 'mainnet', 'key');
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('ECIES V1 (SDK encrypt/decrypt)', () => {
  for (const [i, v] of V.v1Legacy.entries()) {
    it(`vector v1Legacy[${i}] decrypts and re-encrypts byte-for-byte`, () => {
      assert.equal(text(decrypt(hexToBytes(v.recipientSeedHex), hexToBytes(v.ciphertextHex))), v.plaintext);
      const recipient = hexToBytes(V.keys.find((k) => k.id === v.recipient)!.publicKeyCompressedHex);
      const ct = encrypt(recipient, utf8(v.plaintext), { ephemeralPrivateKey: hexToBytes(v.ephemeralPrivateKeyHex), iv: hexToBytes(v.ivHex) });
      assert.equal(hex(ct), v.ciphertextHex);
    });
  }
});

describe('ECIES V2 shared secret (SDK encryptChatMessage/decryptChatMessage)', () => {
  for (const [i, pair] of V.v2SharedSecret.entries()) {
    it(`pair ${i}: shared key, every message both ways, and byte-exact encryption`, () => {
      const senderPriv = hexToBytes(pair.senderSeedHex);
      const recipientPriv = hexToBytes(pair.recipientSeedHex);
      const senderPub = pub(pair.senderPublicKeyBase58Check);
      const recipientPub = pub(pair.recipientPublicKeyBase58Check);
      assert.equal(hex(sharedPrivateKey(senderPriv, recipientPub).sdk), pair.sharedPrivateKeyHex);
      assert.equal(hex(sharedPrivateKey(recipientPriv, senderPub).sdk), pair.sharedPrivateKeyHex, 'symmetric');
      const cts = pair.messages.map((m) => hexToBytes(m.ciphertextHex));
      for (const [who, priv, other] of [['recipient', recipientPriv, senderPub], ['sender', senderPriv, recipientPub]] as const) {
        const out = decryptSharedBatch(priv, other, cts);
        out.forEach((r, k) => {
          assert.ok(r.ok, `${who} decrypts message ${k}`);
          assert.equal(text(r.value), pair.messages[k]!.plaintext);
        });
      }
      for (const m of pair.messages) {
        const ct = encryptShared(senderPriv, recipientPub, utf8(m.plaintext), {
          ephemeralPrivateKey: hexToBytes(m.ephemeralPrivateKeyHex),
          iv: hexToBytes(m.parsed.ivHex),
        });
        assert.equal(hex(ct), m.ciphertextHex);
      }
    });
  }

  it('decrypts a double-hex-encoded ciphertext as the SDK does (v2DoubleEncoded)', () => {
    const v = V.v2DoubleEncoded;
    const [r] = decryptSharedBatch(hexToBytes(v.recipientSeedHex), pub(v.senderPublicKeyBase58Check), [hexToBytes(v.doubleEncodedHex)]);
    assert.ok(r!.ok, 'decrypts');
    assert.equal(text(r!.value), v.expectedPlaintext);
  });
});

/** The identity frame's ECIES: KDF over Z at minimal length (elliptic's toArray()). */
function frameEncrypt(recipientPub: Uint8Array, plaintext: Uint8Array, eph: Uint8Array, iv: Uint8Array): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(eph);
  let z = ecdh.computeSecret(recipientPub);
  while (z.length > 0 && z[0] === 0) z = z.subarray(1);
  const k = createHash('sha256').update(Buffer.from([0, 0, 0, 1])).update(z).digest();
  const macKey = createHash('sha256').update(k.subarray(16)).digest();
  const c = createCipheriv('aes-128-ctr', k.subarray(0, 16), iv);
  const body = Buffer.concat([c.update(plaintext), c.final()]);
  const tag = createHmac('sha256', macKey).update(iv).update(body).digest();
  return Buffer.concat([ecdh.getPublicKey(null, 'uncompressed'), iv, body, tag]);
}

describe('§3.6 leading-zero ECDH coordinate', () => {
  const v = V.edgeLeadingZeroSharedSecret;
  const senderPriv = hexToBytes(v.senderSeedHex);
  const recipientPriv = hexToBytes(v.recipientSeedHex);
  const senderPub = pub(v.senderPublicKeyBase58Check);
  const recipientPub = pub(v.recipientPublicKeyBase58Check);

  it('derives the SDK and the frame shared keys of the vector', () => {
    const keys = sharedPrivateKey(senderPriv, recipientPub);
    assert.equal(hex(keys.sdk), v.sdkSharedPrivateKeyHex);
    assert.equal(hex(keys.frame), v.identityFrameSharedPrivateKeyHex);
    assert.equal(keys.differ, true, 'the core reports the two forms differ');
    assert.equal(sharedPrivateKey(hexToBytes(V.v2SharedSecret[0]!.senderSeedHex), pub(V.v2SharedSecret[0]!.recipientPublicKeyBase58Check)).differ, false);
  });

  it("decrypts the SDK's ciphertext and one made the frame's way", () => {
    const [sdk] = decryptSharedBatch(recipientPriv, senderPub, [hexToBytes(v.sdkCiphertextHex)]);
    assert.ok(sdk!.ok, 'SDK ciphertext decrypts');
    assert.equal(text(sdk!.value), v.plaintext);
    // The frame encrypts to the public key of ITS shared private key.
    const frameSharedPub = getPublicKey(hexToBytes(v.identityFrameSharedPrivateKeyHex), false);
    const frameCt = frameEncrypt(frameSharedPub, utf8('from the frame'), randomBytes(32), randomBytes(16));
    const [r] = decryptSharedBatch(recipientPriv, senderPub, [frameCt]);
    assert.ok(r!.ok, 'frame ciphertext decrypts');
    assert.equal(text(r!.value), "from the frame");
  });

  it('decrypts V1 ciphertexts whose ephemeral ECDH x starts with zero, made either way', () => {
    const recipient = randomBytes(32);
    const recipientPubKey = getPublicKey(recipient, true);
    let found = 0;
    for (let tries = 0; tries < 20_000 && found < 3; tries++) {
      const eph = randomBytes(32);
      const ecdh = createECDH('secp256k1');
      ecdh.setPrivateKey(eph);
      if (ecdh.computeSecret(recipientPubKey)[0] !== 0) continue;
      found++;
      const iv = randomBytes(16);
      const msg = utf8(`leading zero ${found}`);
      assert.equal(text(decrypt(recipient, frameEncrypt(recipientPubKey, msg, eph, iv))), `leading zero ${found}`);
      assert.equal(text(decrypt(recipient, eciesEncryptNode(recipientPubKey, msg, eph, iv))), `leading zero ${found}`);
    }
    assert.equal(found, 3, 'found ephemeral keys with a leading-zero ECDH x');
  });
});

describe('ECIES batch decrypt', () => {
  const priv = randomBytes(32);
  const pubKey = getPublicKey(priv, true);

  it('answers each item on its own: short, bad key, bad MAC, wrong recipient', () => {
    const good = encrypt(pubKey, utf8('fine'));
    const badMac = Buffer.from(good);
    badMac[badMac.length - 1]! ^= 1;
    const badEph = Buffer.from(good);
    badEph[1]! ^= 0xff;
    const wrongKey = encrypt(getPublicKey(randomBytes(32)), utf8('not for you'));
    const results = decryptBatch(priv, [good, good.subarray(0, ECIES_OVERHEAD - 1), badEph, badMac, wrongKey, new Uint8Array(0), good]);
    assert.deepEqual(
      results.map((r) => (r.ok ? text(r.value) : r.error)),
      ['fine', `ciphertext shorter than ${ECIES_OVERHEAD} bytes`, 'invalid ephemeral public key', 'incorrect MAC', 'incorrect MAC', `ciphertext shorter than ${ECIES_OVERHEAD} bytes`, 'fine'],
    );
  });

  it('accepts the empty message (exactly 113 bytes), as the SDK does', () => {
    const ct = encrypt(pubKey, new Uint8Array(0));
    assert.equal(ct.length, ECIES_OVERHEAD);
    assert.equal(decrypt(priv, ct).length, 0);
  });

  it('splits batches larger than the I/O region', () => {
    const msgs = Array.from({ length: 2500 }, (_, i) => utf8(`message ${i} `.padEnd(100, '.')));
    const cts = msgs.map((m) => encrypt(pubKey, m));
    const results = decryptBatch(priv, cts);
    assert.equal(results.length, msgs.length);
    results.forEach((r, i) => assert.ok(r.ok && text(r.value) === text(msgs[i]!), `item ${i}`));
  });

  it('refuses bad input lengths with a RangeError naming the argument', () => {
    assert.throws(() => decryptBatch(new Uint8Array(31), []), /"privateKey" expected 32 bytes, got 31/);
    assert.throws(() => encrypt(new Uint8Array(32), utf8('x')), /"publicKey" expected 33 or 65 bytes, got 32/);
  });
});

describe('ECIES differential against node:crypto (10,000 random messages)', () => {
  it('node:crypto decrypts every ciphertext we make, and we decrypt its ciphertexts', () => {
    // node:crypto's secp256k1 ECDH costs ~1 ms a scalar multiplication, so recipients are
    // drawn from a fixed set of keys whose ECDH objects are made once; every ciphertext still
    // has a fresh ephemeral key, and every fourth run also goes node:crypto → WASM.
    const recipients = Array.from({ length: 64 }, () => {
      const priv = randomBytes(32);
      const ecdh = createECDH('secp256k1');
      ecdh.setPrivateKey(priv);
      return { priv, ecdh };
    });
    let run = 0;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.nat(63), fc.boolean(), (plaintext, who, compressedKey) => {
        const r = recipients[who]!;
        const pubKey = getPublicKey(r.priv, compressedKey);
        const ours = encrypt(pubKey, plaintext);
        assert.equal(hex(nodeDecryptWith(r.ecdh, ours)), hex(plaintext));
        if (run++ % 4 === 0) {
          const theirs = eciesEncryptNode(pubKey, plaintext, randomBytes(32), randomBytes(16));
          assert.equal(hex(decrypt(r.priv, theirs)), hex(plaintext));
        }
      }),
      { numRuns: 10_000 },
    );
  });
});

/** §3.1 decrypt with node:crypto, given the recipient's prepared ECDH object. */
function nodeDecryptWith(ecdh: ReturnType<typeof createECDH>, ct: Uint8Array): Buffer {
  const b = Buffer.from(ct);
  const z = ecdh.computeSecret(b.subarray(0, 65));
  const k = createHash('sha256').update(Buffer.from([0, 0, 0, 1])).update(z).digest();
  const macKey = createHash('sha256').update(k.subarray(16)).digest();
  const iv = b.subarray(65, 81);
  const body = b.subarray(81, b.length - 32);
  assert.equal(createHmac('sha256', macKey).update(iv).update(body).digest('hex'), hex(b.subarray(b.length - 32)), 'tag');
  const d = createDecipheriv('aes-128-ctr', k.subarray(0, 16), iv);
  return Buffer.concat([d.update(body), d.final()]);
}
