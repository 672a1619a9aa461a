/**
 * Message ECIES (identity-and-crypto.md §3.1) written with node:crypto only: the baseline the
 * WASM core's decrypt is measured against in bench/ecies.bench.ts, and an independent second
 * implementation for differential tests.
 */
import { createCipheriv, createDecipheriv, createECDH, createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** E(65) ‖ IV(16) ‖ C ‖ tag(32). */
export const ECIES_OVERHEAD = 65 + 16 + 32;

function keys(sharedX: Buffer): { encKey: Buffer; macKey: Buffer } {
  // One block of the counter KDF: SHA256(BE32(1) ‖ Z).
  const k = createHash('sha256').update(Buffer.from([0, 0, 0, 1])).update(sharedX).digest();
  return { encKey: k.subarray(0, 16), macKey: createHash('sha256').update(k.subarray(16, 32)).digest() };
}

function ecdhX(priv: Uint8Array, pub: Uint8Array): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(priv);
  // computeSecret returns the 32-byte x coordinate, zero-padded (the SDK's behaviour, §3.6).
  return ecdh.computeSecret(pub);
}

export function eciesDecryptNode(priv: Uint8Array, ciphertext: Uint8Array): Buffer {
  if (ciphertext.length < ECIES_OVERHEAD) throw new Error('ciphertext too short');
  const ct = Buffer.from(ciphertext.buffer, ciphertext.byteOffset, ciphertext.length);
  const ephemeral = ct.subarray(0, 65);
  const iv = ct.subarray(65, 81);
  const body = ct.subarray(81, ct.length - 32);
  const tag = ct.subarray(ct.length - 32);
  const { encKey, macKey } = keys(ecdhX(priv, ephemeral));
  const expected = createHmac('sha256', macKey).update(iv).update(body).digest();
  if (!timingSafeEqual(expected, tag)) throw new Error('bad MAC');
  const d = createDecipheriv('aes-128-ctr', encKey, iv);
  return Buffer.concat([d.update(body), d.final()]);
}

export function eciesEncryptNode(pub: Uint8Array, plaintext: Uint8Array, ephemeralPriv: Uint8Array, iv: Uint8Array): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(ephemeralPriv);
  const ephemeralPub = ecdh.getPublicKey(null, 'uncompressed');
  const { encKey, macKey } = keys(ecdh.computeSecret(pub));
  const c = createCipheriv('aes-128-ctr', encKey, iv);
  const body = Buffer.concat([c.update(plaintext), c.final()]);
  const tag = createHmac('sha256', macKey).update(iv).update(body).digest();
  return Buffer.concat([ephemeralPub, iv, body, tag]);
}
