/** A transaction's bytes do not follow the MsgDeSoTxn format; the message says where. */
export class TxnDecodeError extends Error {
  override readonly name = 'TxnDecodeError';
  readonly code = 'TXN_MALFORMED';
}

export function isTxnDecodeError(e: unknown): e is TxnDecodeError {
  return e instanceof TxnDecodeError;
}
