/**
 * Message ECIES (identity-and-crypto.md §3) over the WASM core: V1 (to an owner or access-group
 * key), V2 shared-secret messages, batch decryption. Inputs are copied into the core's IN region
 * and results out of OUT; nothing else crosses the boundary.
 */
import { randomBytes } from 'node:crypto';
import { checkBytes, core } from './core.js';
import { getPublicKey } from './secp256k1.js';

/** Bytes a ciphertext adds to its plaintext: ephemeral key 65 + IV 16 + tag 32. */
export const ECIES_OVERHEAD = 113;

interface EciesExports {
  eciesDecryptBatch(count: number): void;
  eciesEncrypt(pubLen: number, ptLen: number): number;
  eciesSharedPrivateKey(pubLen: number): number;
}

const ERRORS: Record<number, string> = {
  [-1]: `ciphertext shorter than ${ECIES_OVERHEAD} bytes`,
  [-2]: 'invalid ephemeral public key',
  [-3]: 'incorrect MAC',
  [-4]: 'invalid private key',
};

export type DecryptResult = { ok: true; value: Uint8Array } | { ok: false; error: string };

function exportsOf(): { e: EciesExports; input: Uint8Array; output: Uint8Array; capacity: number } {
  const c = core();
  return { e: c.exports as unknown as EciesExports, input: c.input, output: c.output, capacity: c.ioBytes };
}

/**
 * Ciphertexts stored by the SDK's local construction arrive as the UTF-8 bytes of their hex
 * (§3.5); like the SDK, a first byte other than 2, 3 or 4 means "decode the hex once more".
 */
export function unwrapDoubleHex(ct: Uint8Array): Uint8Array {
  const first = ct[0];
  if (first === undefined || (first >= 2 && first <= 4)) return ct;
  const text = Buffer.from(ct.buffer, ct.byteOffset, ct.length).toString('latin1');
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return ct;
  return Buffer.from(text, 'hex');
}

/**
 * Decrypts many ciphertexts with one private key; one result per input, in order. A bad item
 * (short, bad key, wrong MAC) gives an error result and never affects the others.
 */
export function decryptBatch(privateKey: Uint8Array, ciphertexts: readonly Uint8Array[]): DecryptResult[] {
  checkBytes('privateKey', privateKey, 32);
  const { e, input, output, capacity } = exportsOf();
  const view = new DataView(input.buffer, input.byteOffset, capacity);
  const status = new DataView(output.buffer, output.byteOffset, capacity);
  // Most items one call can take: each needs a table entry and at least the overhead.
  const maxItems = Math.floor((capacity - 32) / (8 + ECIES_OVERHEAD));
  const results: DecryptResult[] = new Array(ciphertexts.length);
  let i = 0;
  while (i < ciphertexts.length) {
    // IN = priv(32) ‖ table(8 per item) ‖ ciphertexts; fill until the next one does not fit.
    const first = i;
    const tableEnd = 32 + 8 * Math.min(ciphertexts.length - i, maxItems);
    let dataEnd = tableEnd;
    let count = 0;
    while (i < ciphertexts.length && 32 + 8 * count < tableEnd) {
      const ct = unwrapDoubleHex(ciphertexts[i]!);
      let off = 0;
      if (ct.length > capacity - tableEnd) {
        results[i] = { ok: false, error: `ciphertext of ${ct.length} bytes exceeds the batch limit of ${capacity - tableEnd}` };
      } else if (dataEnd + ct.length > capacity) {
        break;
      } else {
        input.set(ct, dataEnd);
        off = dataEnd;
        dataEnd += ct.length;
      }
      view.setUint32(32 + 8 * count, off, true);
      view.setUint32(36 + 8 * count, off === 0 ? 0 : ct.length, true);
      count++;
      i++;
    }
    input.set(privateKey, 0);
    e.eciesDecryptBatch(count);
    for (let k = 0; k < count; k++) {
      const idx = first + k;
      if (results[idx]) continue; // oversized: answered above
      const n = status.getInt32(k * 4, true);
      const off = view.getUint32(32 + 8 * k, true);
      results[idx] = n >= 0 ? { ok: true, value: output.slice(off, off + n) } : { ok: false, error: ERRORS[n] ?? `error ${n}` };
    }
  }
  return results;
}

/** Decrypts one ciphertext; throws on failure. */
export function decrypt(privateKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const [r] = decryptBatch(privateKey, [ciphertext]);
  if (!r!.ok) throw new Error(`decrypt: ${r!.error}`);
  return r!.value;
}

export interface EncryptOptions {
  /** Ephemeral private key; random by default (fixed only to reproduce vectors). */
  ephemeralPrivateKey?: Uint8Array;
  /** 16-byte IV; random by default. */
  iv?: Uint8Array;
}

/** Encrypts to a 33- or 65-byte public key (V1, and the building block of V2). */
export function encrypt(publicKey: Uint8Array, plaintext: Uint8Array, opts: EncryptOptions = {}): Uint8Array {
  checkBytes('publicKey', publicKey, 33, 65);
  const { e, input, output, capacity } = exportsOf();
  if (plaintext.length > capacity - ECIES_OVERHEAD) {
    throw new RangeError(`"plaintext" expected at most ${capacity - ECIES_OVERHEAD} bytes, got ${plaintext.length}`);
  }
  const iv = opts.iv ?? randomBytes(16);
  checkBytes('iv', iv, 16);
  for (let attempt = 0; attempt < 4; attempt++) {
    // A random 32-byte string is a valid key except with probability ~2^-128.
    const eph = opts.ephemeralPrivateKey ?? randomBytes(32);
    checkBytes('ephemeralPrivateKey', eph, 32);
    input.set(publicKey, 0);
    input.set(eph, 65);
    input.set(iv, 97);
    input.set(plaintext, 113);
    const n = e.eciesEncrypt(publicKey.length, plaintext.length);
    input.fill(0, 113, 113 + plaintext.length);
    if (n > 0) return output.slice(0, n);
    if (opts.ephemeralPrivateKey) break;
  }
  throw new Error('encrypt: invalid public key or ephemeral private key');
}

export interface SharedKeys {
  /** The SDK's shared private key: KDF of the 32-byte x(a·B). */
  sdk: Uint8Array;
  /** The identity frame's: KDF of x at minimal length (differs when x has leading zero bytes). */
  frame: Uint8Array;
  /** Whether the two differ, as the core reports it (x(a·B) starts with a zero byte). */
  differ: boolean;
}

/** V2 shared private key between privateKey and publicKey, in both peers' forms (§3.3, §3.6). */
export function sharedPrivateKey(privateKey: Uint8Array, publicKey: Uint8Array): SharedKeys {
  checkBytes('privateKey', privateKey, 32);
  checkBytes('publicKey', publicKey, 33, 65);
  const { e, input, output } = exportsOf();
  input.set(privateKey, 0);
  input.set(publicKey, 32);
  const r = e.eciesSharedPrivateKey(publicKey.length);
  if (r < 0) throw new Error('sharedPrivateKey: invalid private or public key');
  return { sdk: output.slice(0, 32), frame: output.slice(32, 64), differ: r === 1 };
}

/**
 * V2 decrypt of messages exchanged with `otherPublicKey`: both parties use the shared key. Items
 * that fail under the SDK's shared key are retried under the frame's when the two differ.
 */
export function decryptSharedBatch(privateKey: Uint8Array, otherPublicKey: Uint8Array, ciphertexts: readonly Uint8Array[]): DecryptResult[] {
  const keys = sharedPrivateKey(privateKey, otherPublicKey);
  const results = decryptBatch(keys.sdk, ciphertexts);
  if (keys.differ) {
    const failed = results.flatMap((r, i) => (r.ok ? [] : [i]));
    if (failed.length > 0) {
      const retried = decryptBatch(keys.frame, failed.map((i) => ciphertexts[i]!));
      failed.forEach((idx, k) => {
        if (retried[k]!.ok) results[idx] = retried[k]!;
      });
    }
  }
  keys.sdk.fill(0);
  keys.frame.fill(0);
  return results;
}

/** V2 encrypt: to the public key of the SDK-form shared private key of (privateKey, otherPublicKey). */
export function encryptShared(privateKey: Uint8Array, otherPublicKey: Uint8Array, plaintext: Uint8Array, opts: EncryptOptions = {}): Uint8Array {
  const keys = sharedPrivateKey(privateKey, otherPublicKey);
  try {
    return encrypt(getPublicKey(keys.sdk, false), plaintext, opts);
  } finally {
    keys.sdk.fill(0);
    keys.frame.fill(0);
  }
}
