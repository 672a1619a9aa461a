/**
 * A public key a request names, decoded, or a 400 `<prefix>: <what is wrong>`. The message
 * never echoes the input: a string pasted into a public-key field could be a private key, and
 * error bodies end up in logs. Every route decodes its key fields through this one function.
 * @module
 */
import { decodePublicKey, type Network } from '../keys/index.js';

/** @throws {KeyError} (400) with `prefix: ` before the decoder's message */
export function decodeKeyOr400(s: string, network: Network, field: string, prefix: string): Uint8Array {
  return decodePublicKey(s, network, field, `${prefix}: `);
}
