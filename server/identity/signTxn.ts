/**
 * Transaction signing for the identity frame's `sign` method (identity-and-crypto.md §5.2–§5.4,
 * §2.6, §2.8).
 *
 * - The signer signs `hashToSign` = sha256d of the transaction with an empty signature field
 *   (v1 tail included), deterministic RFC 6979 without extra entropy, low-S: the frame's nonce,
 *   so our output equals the frame's byte for byte (the SDK adds random entropy, so its
 *   signatures differ but verify the same).
 * - The signature is minimal DER (`30 len 02 rlen r 02 slen s`). For a derived key the header
 *   byte 0x30 becomes 0x31 + recoveryId ("DeSo-DER", 0x31..0x34), so a verifier can recover the
 *   derived public key.
 * - It is spliced into the signature field (`uvarint len ‖ sig`); every other byte is kept.
 *
 * Errors: malformed transaction bytes and malformed DER signatures throw `TxnDecodeError`
 * (code TXN_MALFORMED); our own refusals throw `SignTxnError` (ALREADY_SIGNED, SIGN_FAILED).
 * @module
 */
import { decodeTxn, hashToSign, withSignature, type TxnEnvelope } from '../chain/txn/envelope.js';
import type { CryptoService } from '../crypto/service.js';
import { encodeDerSignature } from '../chain/txn/derSignature.js';

/** The DER codec lives with the transaction format; re-exported for the identity service. */
export { decodeDerSignature, encodeDerSignature } from '../chain/txn/derSignature.js';
import { signLevelFor } from './accessLevel.js';
import { DomainError } from '../errors.js';

export type SignTxnErrorCode = 'ALREADY_SIGNED' | 'SIGN_FAILED';

/** signTransaction refused or failed for a reason other than malformed transaction bytes. */
export class SignTxnError extends DomainError {
  override readonly name = 'SignTxnError';
  constructor(
    override readonly code: SignTxnErrorCode,
    message: string,
  ) {
    // A signature the crypto service failed to make is our fault, not the request's.
    super(code, code === 'ALREADY_SIGNED' ? 'invalid' : 'internal', message);
  }
}

export function isSignTxnError(e: unknown): e is SignTxnError {
  return e instanceof SignTxnError;
}

// ---------------------------------------------------------------------------------------------
// Access level
// ---------------------------------------------------------------------------------------------

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Largest fee a level-3 (ApproveLarge) grant signs without approval: a 100 KB transaction at the
 * mainnet floor of 1,000 nanos/KB, so every social transaction an app sends passes, while an app
 * holding a level-3 handle cannot burn the user's balance through the fee field (the frame's
 * rule looks only at outputs, and the balance model's fee is a field, not an output).
 */
export const LEVEL3_MAX_FEE_NANOS = 100_000n;

/**
 * Level `sign` needs for this transaction (§2.6, §2.8): 3 for a level-3 type whose outputs all
 * pay the transaction's own public key (no outputs counts) and whose fee is at most
 * LEVEL3_MAX_FEE_NANOS, else 4. A version-0 transaction with inputs pays an unknown fee
 * (inputs minus outputs): 4.
 */
export function signLevelForTxn(txn: TxnEnvelope): 3 | 4 {
  const outputsPayOnlySender = txn.outputs.every((o) => bytesEqual(o.publicKey, txn.publicKey));
  const feeWithinLevel3 = txn.v1 !== null ? txn.v1.feeNanos <= LEVEL3_MAX_FEE_NANOS : txn.inputs.length === 0;
  return feeWithinLevel3 ? signLevelFor(txn.txnType, outputsPayOnlySender) : 4;
}

// ---------------------------------------------------------------------------------------------
// Signing
// ---------------------------------------------------------------------------------------------

export interface SignTxnOpts {
  /** The key is a derived key: DeSo-DER header 0x31 + recoveryId instead of 0x30. */
  derived: boolean;
}

/**
 * Signs an unsigned transaction and returns the signed bytes (a fresh array; the input is not
 * modified, and the private key is neither kept nor wiped: it belongs to the caller).
 * @throws {TxnDecodeError} when `unsignedTxn` is not a well-formed transaction
 * @throws {SignTxnError} ALREADY_SIGNED when the signature field is not empty; SIGN_FAILED when
 *   the crypto service refuses the item (e.g. an invalid private key) or answers nonsense
 */
export async function signTransaction(
  crypto: CryptoService,
  unsignedTxn: Uint8Array,
  privateKey: Uint8Array,
  opts: SignTxnOpts,
): Promise<Uint8Array> {
  const txn = decodeTxn(unsignedTxn);
  if (txn.signature.length !== 0) {
    // The frame and the SDK splice at "the" unsigned 00 byte without checking; doing that to a
    // signed transaction would corrupt it, and re-signing silently would hide an app bug.
    throw new SignTxnError(
      'ALREADY_SIGNED',
      `transaction already carries a ${txn.signature.length}-byte signature; only an unsigned transaction (signature field 00) can be signed`,
    );
  }
  const hash = hashToSign(unsignedTxn);
  const [result] = await crypto.sign([{ privateKey, hash }]);
  if (result === undefined) throw new SignTxnError('SIGN_FAILED', 'signing failed: no result from the crypto service');
  if (!result.ok) throw new SignTxnError('SIGN_FAILED', `signing failed: ${result.error}`);
  const { signature, recovery } = result.value;
  if (signature.length !== 64 || !Number.isInteger(recovery) || recovery < 0 || recovery > 3) {
    throw new SignTxnError('SIGN_FAILED', 'signing failed: malformed signature from the crypto service');
  }
  const der = encodeDerSignature(signature, opts.derived === true ? recovery : undefined);
  // withSignature answers a Buffer that may be a view of Node's shared allocation pool; hand
  // back a plain array that owns its memory.
  return Uint8Array.from(withSignature(unsignedTxn, der));
}
