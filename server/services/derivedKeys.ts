/**
 * The checks authorize-derived-key makes before it builds the transaction (reference
 * AuthorizeDerivedKey): the spending limit decodes, the key outlives the block the transaction
 * can be mined in, and, when the derived key will sign the transaction itself, the owner's
 * access signature covers derived key, expiration block and limit. The chain rules
 * (chain/rules/derivedKeys.ts) decide again at submit time.
 * @module
 */
import { accessHash } from '../chain/rules/derivedKeys.js';
import { decodeDerSignature } from '../chain/txn/derSignature.js';
import { isTxnDecodeError } from '../chain/txn/errors.js';
import { decodeSpendingLimit } from '../chain/txn/spendingLimit.js';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../errors.js';

/**
 * An authorization the chain would refuse (DERIVED_KEY_AUTHORIZATION_INVALID, 400); the route
 * puts the reference's `AuthorizeDerivedKey: Problem creating transaction: ` before it.
 */
export class DerivedKeyAuthorizationError extends DomainError {
  override readonly name = 'DerivedKeyAuthorizationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DERIVED_KEY_AUTHORIZATION_INVALID', 'invalid', message, options);
  }
}

export interface Authorization {
  owner: Uint8Array;
  derived: Uint8Array;
  expirationBlock: bigint;
  /** The spending limit as given (may be empty). */
  limitBytes: Uint8Array;
  /** The owner's DER signature over sha256d(access bytes). */
  accessSignature: Uint8Array;
  /** The derived key will sign the transaction (only then is the access signature checked, as the reference does). */
  derivedKeySignature: boolean;
}

/** @throws {DerivedKeyAuthorizationError} naming the first check that fails */
export async function checkAuthorization(deps: Pick<AppDeps, 'chain' | 'crypto'>, a: Authorization): Promise<void> {
  if (a.limitBytes.length > 0) {
    try {
      decodeSpendingLimit(a.limitBytes);
    } catch (e) {
      if (isTxnDecodeError(e)) throw new DerivedKeyAuthorizationError(`Problem decoding transaction spending limit: ${e.message}`, { cause: e });
      throw e;
    }
  }
  const tip = await deps.chain.tip();
  // The transaction is mined at tip + 1 at the earliest; the key must outlive that block.
  if (a.expirationBlock <= tip.height + 1n) throw new DerivedKeyAuthorizationError('Expired access signature');
  if (!a.derivedKeySignature) return;
  if (a.limitBytes.length === 0) throw new DerivedKeyAuthorizationError('a transaction the derived key signs needs TransactionSpendingLimitHex, which the access signature covers');
  await checkAccessSignature(deps, a);
}

/** The owner's DER signature over sha256d(access bytes), verified in the crypto pool. */
async function checkAccessSignature(deps: Pick<AppDeps, 'crypto'>, a: Authorization): Promise<void> {
  const refuse = (why: string, cause?: unknown): DerivedKeyAuthorizationError => new DerivedKeyAuthorizationError(`Problem verifying access signature: ${why}`, { cause });
  let sig;
  try {
    sig = decodeDerSignature(a.accessSignature);
  } catch (e) {
    if (isTxnDecodeError(e)) throw refuse(e.message, e);
    throw e;
  }
  if (sig.recoveryId !== null) throw refuse('expected a DER signature (header 0x30)');
  const hash = accessHash(a.derived, a.expirationBlock, a.limitBytes);
  const [result] = await deps.crypto.verifySignatures([{ publicKey: a.owner, hash, signature: sig.compact, lowS: false }]);
  if (!result?.ok || !result.value) throw refuse("it is not the owner's signature over the derived key, expiration block and spending limit");
}
