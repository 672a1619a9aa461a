/**
 * encryptMessages task: message ECIES encryption, V1 (to the recipient's key) or V2 (to the
 * shared key of sender and recipient); layout in workers/types.ts. Ephemeral keys and IVs come
 * from this thread's CSPRNG. The request (holding private keys) is zeroed before returning.
 * @module
 */
import { encrypt, encryptShared } from '../../wasm/ecies.js';
import { DecryptMode, EncryptItemOffset } from '../types.js';
import { packVariable, unpackVariable } from '../variable.js';
import { messageItem } from './decryptMessages.js';

function encryptItem(item: Uint8Array): Uint8Array {
  if (item.length < EncryptItemOffset.plaintext) {
    return messageItem({ ok: false, error: `item expected at least ${EncryptItemOffset.plaintext} bytes, got ${item.length}` });
  }
  const mode = item[EncryptItemOffset.mode];
  const senderKey = item.subarray(EncryptItemOffset.senderPrivateKey, EncryptItemOffset.recipientPublicKey);
  const recipient = item.subarray(EncryptItemOffset.recipientPublicKey, EncryptItemOffset.plaintext);
  const plaintext = item.subarray(EncryptItemOffset.plaintext);
  try {
    if (mode === DecryptMode.Direct) return messageItem({ ok: true, value: encrypt(recipient, plaintext) });
    if (mode === DecryptMode.Shared) return messageItem({ ok: true, value: encryptShared(senderKey, recipient, plaintext) });
    return messageItem({ ok: false, error: `mode expected 0 or 1, got ${mode}` });
  } catch {
    return messageItem({ ok: false, error: 'invalid recipient public key or sender private key' });
  }
}

export function encryptMessages(request: Uint8Array): Uint8Array {
  try {
    return packVariable(unpackVariable(request).map(encryptItem));
  } finally {
    request.fill(0);
  }
}
