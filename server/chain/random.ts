/** Random 64-bit values for nonces, extra nonces and partial ids (not secrets). */
import { randomBytes } from 'node:crypto';

export function randomU64(): bigint {
  return randomBytes(8).readBigUInt64BE(0);
}
