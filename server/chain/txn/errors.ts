import { DomainError } from '../../errors.js';

/** A transaction's bytes do not follow the MsgDeSoTxn format; the message says where. */
export class TxnDecodeError extends DomainError {
  override readonly name = 'TxnDecodeError';
  override readonly code = 'TXN_MALFORMED';
  constructor(message: string) {
    super('TXN_MALFORMED', 'invalid', message);
  }
}

export function isTxnDecodeError(e: unknown): e is TxnDecodeError {
  return e instanceof TxnDecodeError;
}
