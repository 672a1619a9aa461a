/**
 * The one value encoding shared by every Store implementation: msgpack via msgpackr.
 * Encoded bytes are also what `commit` guards compare, so both stores must use this codec.
 */
import { Packr } from 'msgpackr';
import { StoreError } from './types.js';

const packr = new Packr({
  // Plain msgpack maps (no record extension), so bytes depend only on the value itself.
  useRecords: false,
  // bigint of any size round-trips as bigint; small numbers stay numbers.
  useBigIntExtension: true,
  int64AsType: 'bigint',
  mapsAsObjects: true,
  // Without this, decoded Uint8Arrays are views into the source buffer, so mutating a read
  // value would mutate the stored bytes of the memory store.
  copyBuffers: true,
});

/** Encodes one store value. Rejects values that cannot be stored (use delete for undefined). */
export function encodeValue(value: unknown): Buffer {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    throw new StoreError(
      'STORE_INVALID_ARGUMENT',
      `cannot store a top-level ${value === undefined ? 'undefined' : typeof value} value (use delete to remove a key)`,
    );
  }
  try {
    return packr.pack(value);
  } catch (err) {
    // Cyclic structures overflow the stack; unknown types throw. Neither is storable.
    throw new StoreError('STORE_INVALID_ARGUMENT', `value cannot be encoded: ${errorMessage(err)}`);
  }
}

/** Decodes bytes written by `encodeValue`. Anything else is reported as STORE_CORRUPT. */
export function decodeValue(buf: Uint8Array): unknown {
  try {
    return packr.unpack(buf);
  } catch (err) {
    throw new StoreError('STORE_CORRUPT', `stored value cannot be decoded: ${errorMessage(err)}`);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
