/**
 * decryptMessages task: message ECIES decryption of a batch with one private key, V1 (to that
 * key) or V2 (shared with another party); layout in workers/types.ts. One bad ciphertext fails
 * its item only. The request (holding the private key) is zeroed before returning.
 * @module
 */
import { decryptBatch, decryptSharedBatch, type DecryptResult } from '../../wasm/ecies.js';
import { DecryptMode, DecryptRequestOffset, MessageStatus } from '../types.js';
import { packVariable, unpackVariable } from '../variable.js';

const utf8 = new TextEncoder();

/** One reply item: status ‖ plaintext, or status ‖ reason. */
export function messageItem(r: DecryptResult): Uint8Array {
  const body = r.ok ? r.value : utf8.encode(r.error);
  const item = new Uint8Array(1 + body.length);
  item[0] = r.ok ? MessageStatus.Ok : MessageStatus.Failed;
  item.set(body, 1);
  return item;
}

export function decryptMessages(request: Uint8Array): Uint8Array {
  try {
    if (request.length < DecryptRequestOffset.ciphertexts) {
      throw new RangeError(`decryptMessages request expected at least ${DecryptRequestOffset.ciphertexts} bytes, got ${request.length}`);
    }
    const privateKey = request.subarray(0, 32);
    const mode = request[DecryptRequestOffset.mode];
    const ciphertexts = unpackVariable(request.subarray(DecryptRequestOffset.ciphertexts));
    let results: DecryptResult[];
    if (mode === DecryptMode.Direct) {
      results = decryptBatch(privateKey, ciphertexts);
    } else if (mode === DecryptMode.Shared) {
      const other = request.subarray(DecryptRequestOffset.otherPublicKey, DecryptRequestOffset.ciphertexts);
      try {
        results = decryptSharedBatch(privateKey, other, ciphertexts);
      } catch {
        // An invalid key fails every item alike, with a reason that names no key bytes.
        results = ciphertexts.map(() => ({ ok: false, error: 'invalid private key or other party public key' }));
      }
    } else {
      throw new RangeError(`decryptMessages mode expected 0 or 1, got ${mode}`);
    }
    return packVariable(results.map(messageItem));
  } finally {
    request.fill(0);
  }
}
