/**
 * A public key a request names, decoded, or a 400 `<prefix>: <what is wrong>`. The message
 * never echoes the input: a string pasted into a public-key field could be a private key, and
 * error bodies end up in logs. Every route decodes its key fields through this one function.
 * @module
 */
import { badRequest } from '../http/errors.js';
import { decodePublicKey, isKeyError, type Network } from '../keys/index.js';

export function decodeKeyOr400(s: string, network: Network, field: string, prefix: string): Uint8Array {
  try {
    return decodePublicKey(s, network, field);
  } catch (e) {
    if (isKeyError(e)) throw badRequest(`${prefix}: ${e.message}`);
    throw e;
  }
}
