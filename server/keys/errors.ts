/**
 * Coded errors for key decoding (kind invalid: the HTTP layer answers 400, http/errors.ts);
 * messages name the request field and what was expected.
 *
 * Messages never contain the input itself: a user who pastes a private key into a
 * public-key field must not find it in our logs. At most one offending character is quoted.
 * @module
 */
import { DomainError } from '../errors.js';

export type KeyErrorCode =
  | 'KEY_EMPTY'
  | 'KEY_INVALID_BASE58'
  | 'KEY_BAD_CHECKSUM'
  | 'KEY_WRONG_NETWORK'
  | 'KEY_BAD_LENGTH'
  | 'KEY_NOT_ON_CURVE';

export class KeyError extends DomainError {
  override readonly name = 'KeyError';
  override readonly code: KeyErrorCode;
  /** Request field the value came from, e.g. `PublicKeyBase58Check`. */
  readonly field: string;

  /**
   * @param detail - what was expected and what was found; the field name is prepended.
   * @param context - what the caller was doing, prepended as given (e.g. `SendDeSo: Problem
   *   decoding sender public key: `), so the error is born with the message the client reads.
   */
  constructor(code: KeyErrorCode, field: string, detail: string, context = '') {
    super(code, 'invalid', `${context}${field}: ${detail}`);
    this.code = code;
    this.field = field;
  }
}

export function isKeyError(err: unknown): err is KeyError {
  return err instanceof KeyError;
}
