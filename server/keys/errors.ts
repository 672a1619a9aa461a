/**
 * Coded errors for key decoding. Route code maps `code` to an HTTP status in one place;
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

  /** @param detail - what was expected and what was found; the field name is prepended. */
  constructor(code: KeyErrorCode, field: string, detail: string) {
    super(code, 'invalid', `${field}: ${detail}`);
    this.code = code;
    this.field = field;
  }
}

export function isKeyError(err: unknown): err is KeyError {
  return err instanceof KeyError;
}
