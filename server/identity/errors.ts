/**
 * Coded errors of the identity service (server/identity/). server/http/errors.ts maps each code
 * to an HTTP status in one place.
 *
 * Messages never contain a seed, a sealed handle, a key, or any other input bytes: these values
 * are secrets or stand in for them, and error messages end up in logs.
 * @module
 */
import { DomainError } from '../errors.js';

export type IdentityErrorCode =
  /**
   * An `encryptedSeedHex` (or sealed messaging randomness) that does not open: malformed,
   * tampered, sealed for another public key or purpose, or sealed under another node secret.
   * One code and one message for all of these, so a caller learns nothing about which part
   * failed.
   */
  | 'IDENTITY_BAD_SEED_HANDLE'
  /** A seed that is not 32 bytes / 64 hex characters encoding a private key 1 <= d < n. */
  | 'IDENTITY_BAD_SEED'
  /** An access level that is not an integer 0..4. */
  | 'IDENTITY_BAD_ACCESS_LEVEL'
  /**
   * A BIP39 mnemonic import/creation request that cannot be served: a mnemonic that is not a
   * valid English BIP39 phrase (word count, unknown word, checksum), a passphrase
   * ("extraText") or account number of the wrong type or range, an unsupported strength, or the
   * astronomically rare BIP32 node that has no valid key. Messages never quote the mnemonic.
   */
  | 'IDENTITY_BAD_MNEMONIC';

export class IdentityError extends DomainError {
  override readonly name = 'IdentityError';
  constructor(
    override readonly code: IdentityErrorCode,
    message: string,
  ) {
    super(code, 'invalid', message);
  }
}

export function isIdentityError(e: unknown): e is IdentityError {
  return e instanceof IdentityError;
}

/** A request the identity service refuses for what it asks (answered `{error}`, HTTP 400 on POST). */
export class IdentityRequestError extends DomainError {
  override readonly name = 'IdentityRequestError';
  constructor(message: string) {
    super('IDENTITY_REQUEST_INVALID', 'invalid', message);
  }
}
