/**
 * AES-128-CTR through the WASM core (wasm/assembly/cipher/aes.ts, constant-time): the cipher of
 * ECIES message bodies (identity-and-crypto.md §3.1 step 5). The IV is the initial counter
 * block, incremented as one 128-bit big-endian integer per block; encryption and decryption are
 * the same operation.
 * @module
 */
import { checkBytes, core, type CoreExports } from './core.js';

/** AES-128 key bytes. */
export const AES128_KEY_BYTES = 16;
/** Counter block (IV) bytes. */
export const AES_IV_BYTES = 16;

/** The cipher exports of wasm/assembly/cipher/index.ts. */
interface CipherExports extends CoreExports {
  aes128Ctr(keyOff: number, ivOff: number, dataOff: number, len: number): void;
  aes128CtrInit(keyOff: number, ivOff: number): void;
  aes128CtrUpdate(dataOff: number, len: number): void;
  aes128CtrEnd(): void;
}

// Input region layout for one call: key ‖ iv ‖ data.
const KEY_OFF = 0;
const IV_OFF = KEY_OFF + AES128_KEY_BYTES;
const DATA_OFF = IV_OFF + AES_IV_BYTES;

/**
 * AES-128-CTR of data under key16 with initial counter block iv16, into out (data.length
 * bytes; out may be data itself). Returns out.
 */
export function aes128CtrInto(key: Uint8Array, iv: Uint8Array, data: Uint8Array, out: Uint8Array): Uint8Array {
  checkBytes('key', key, AES128_KEY_BYTES);
  checkBytes('iv', iv, AES_IV_BYTES);
  checkBytes('data', data);
  checkBytes('out', out, data.length);
  const c = core();
  const e = c.exports as CipherExports;
  const { input, output, ioBytes } = c;
  input.set(key, KEY_OFF);
  input.set(iv, IV_OFF);
  if (data.length <= ioBytes - DATA_OFF) {
    input.set(data, DATA_OFF);
    e.aes128Ctr(KEY_OFF, IV_OFF, DATA_OFF, data.length);
    out.set(output.subarray(0, data.length));
  } else {
    // Larger than the region: expand the key once, then whole-region chunks (a multiple of the
    // 16-byte block, so the counter carries over) and a final partial one.
    e.aes128CtrInit(KEY_OFF, IV_OFF);
    for (let off = 0; off < data.length; off += ioBytes) {
      const part = data.subarray(off, Math.min(off + ioBytes, data.length));
      input.set(part);
      e.aes128CtrUpdate(0, part.length);
      out.set(output.subarray(0, part.length), off);
    }
    e.aes128CtrEnd();
  }
  // The key (secret) does not stay in the shared input region.
  input.fill(0, KEY_OFF, KEY_OFF + AES128_KEY_BYTES);
  return out;
}

/** AES-128-CTR of data under key16 with initial counter block iv16. */
export function aes128Ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  checkBytes('data', data);
  return aes128CtrInto(key, iv, data, new Uint8Array(data.length));
}
