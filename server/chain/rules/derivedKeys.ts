/**
 * Derived keys: AUTHORIZE_DERIVED_KEY and the check that a derived key may sign a transaction
 * (not connected yet: no derived key is authorized, so a derived signer is refused).
 * @module
 */
import type { TxnEnvelope } from '../txn/envelope.js';
import type { StateView } from '../state/view.js';
import type { ConnectContext, TxnInfo } from './connect.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';

export const derivedKeyHandlers: readonly HandlerEntry[] = [];

/**
 * Called after a transaction signed by `info.signer` (≠ its public key) connected in `view`:
 * throws unless the owner authorized that derived key for this transaction.
 */
export async function checkDerivedKeySigner(_view: StateView, _txn: TxnEnvelope, _info: TxnInfo, _ctx: ConnectContext): Promise<void> {
  throw new RuleError('RuleErrorDerivedKeyNotAuthorized', 'the signing derived key is not authorized by the transaction\'s owner');
}
