/**
 * Whether a JWT that failed for the key it was presented for is valid for another key: its
 * signer is recovered from the signature (recovery ids 0 and 1; 2 and 3 need r ≥ n, which never
 * occurs in practice) and the token verified again, in full, for each candidate. The route
 * layer's authorization (routes/adminAuth.ts) answers 403 rather than 401 then.
 *
 * Any 64-byte string whose r is an x coordinate recovers to *some* key, so a forged token can
 * land here too; "this token is valid only for another key" is still true of it, and nothing
 * is learnt that the caller could not compute.
 * @module
 */
import type { CryptoService } from '../crypto/service.js';
import { decodePublicKey, encodePublicKey, type Network } from '../keys/index.js';
import { sha256 } from '../../wasm/hash.js';
import { isJwtError, MAX_JWT_CHARS, type JwtVerifier } from './jwt.js';

/** The recovery ids worth trying: 2 and 3 mean r ≥ n (probability ~2^-128). */
const RECOVERY_IDS = [0, 1] as const;
const JWT_SIGNATURE_BYTES = 64;

export interface JwtSignerDeps {
  jwt: JwtVerifier;
  crypto: CryptoService;
  network: Network;
}

/** Whether `jwt` verifies (signature and claims) for a key other than `claimed` (Base58Check). */
export async function jwtValidForAnotherKey(deps: JwtSignerDeps, claimed: string, jwt: string): Promise<boolean> {
  if (jwt.length > MAX_JWT_CHARS) return false;
  const parts = jwt.split('.');
  if (parts.length !== 3) return false;
  const signature = new Uint8Array(Buffer.from(parts[2]!, 'base64url'));
  if (signature.length !== JWT_SIGNATURE_BYTES) return false;
  const hash = sha256(Buffer.from(`${parts[0]}.${parts[1]}`, 'latin1'));
  const recovered = await deps.crypto.recoverPublicKeys(RECOVERY_IDS.map((recovery) => ({ hash, signature, recovery })));
  const claimedKey = encodePublicKey(decodePublicKey(claimed, deps.network, 'PublicKeyBase58Check'), deps.network);
  for (const r of recovered) {
    if (!r.ok) continue;
    const candidate = encodePublicKey(r.value, deps.network);
    if (candidate === claimedKey) continue;
    try {
      await deps.jwt.verify(candidate, jwt);
      return true;
    } catch (err) {
      if (!isJwtError(err)) throw err;
    }
  }
  return false;
}
