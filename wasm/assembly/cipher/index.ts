// Exports of the cipher area; see wasm/assembly/index.ts. Inputs are read from the IN region at
// the given offsets and results written to the OUT region (wasm/assembly/io.ts); the JS wrapper
// in wasm/aes.ts checks every offset and length against the region size before calling.

import { inputPtr, outputPtr } from '../io';
import { aes128Clear, aes128CtrInto, aes128CtrSetCounter, aes128CtrXor, aes128ExpandKey } from './aes';

/** OUT[0..len) = AES-128-CTR of IN[dataOff..dataOff+len), key IN[keyOff..+16), counter block IN[ivOff..+16). */
export function aes128Ctr(keyOff: i32, ivOff: i32, dataOff: i32, len: i32): void {
  const src = inputPtr();
  aes128CtrInto(src + <usize>keyOff, src + <usize>ivOff, src + <usize>dataOff, len, outputPtr());
}

/** Starts a streamed AES-128-CTR (for inputs larger than IN): key IN[keyOff..+16), counter block IN[ivOff..+16). */
export function aes128CtrInit(keyOff: i32, ivOff: i32): void {
  const src = inputPtr();
  aes128ExpandKey(src + <usize>keyOff);
  aes128CtrSetCounter(src + <usize>ivOff);
}

/**
 * OUT[0..len) = the next len bytes of the stream applied to IN[dataOff..dataOff+len). len must
 * be a multiple of 16 except in the last call.
 */
export function aes128CtrUpdate(dataOff: i32, len: i32): void {
  aes128CtrXor(inputPtr() + <usize>dataOff, len, outputPtr());
}

/** Ends a streamed AES-128-CTR: wipes the round keys (see aes128Clear). */
export function aes128CtrEnd(): void {
  aes128Clear();
}
