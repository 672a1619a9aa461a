import { DomainError } from '../../errors.js';

/**
 * TXN_MALFORMED: the bytes of a transaction do not decode; TXN_UNSIGNED_MALFORMED: the same
 * of an unsigned transaction a signature is to be put into (`signUnsigned`).
 */
export type TxnDecodeErrorCode = 'TXN_MALFORMED' | 'TXN_UNSIGNED_MALFORMED';

/** A transaction's bytes do not follow the MsgDeSoTxn format; the message says where. */
export class TxnDecodeError extends DomainError {
  override readonly name = 'TxnDecodeError';
  override readonly code: TxnDecodeErrorCode;
  constructor(message: string, code: TxnDecodeErrorCode = 'TXN_MALFORMED') {
    super(code, 'invalid', message);
    this.code = code;
  }
}

export function isTxnDecodeError(e: unknown): e is TxnDecodeError {
  return e instanceof TxnDecodeError;
}
