/**
 * Transaction signature checks (reference node-api.md §5.4), batched through the crypto pool.
 *
 * - DER (`0x30…`): signed by the transaction's public key, or by the derived key named in
 *   ExtraData `DerivedPublicKey`, which the owner must have authorized.
 * - DeSo-DER (`0x31..0x34`): signed by an authorized derived key of the owner; the recovery id
 *   would name it, but checking the signature against each of the owner's authorized derived
 *   keys gives the same answer without a recovery step on the event loop.
 * High-S signatures are refused (the reference does, from height 0 on regtest).
 * @module
 */
import type { CryptoService } from '../../crypto/service.js';
import type { VerifyItem } from '../../crypto/pack.js';
import { decodeDerSignature } from '../../identity/signTxn.js';
import { hashToSign, type TxnEnvelope } from '../txn/envelope.js';
import { RuleError } from './errors.js';

/** ExtraData key naming the derived key that signed (§5.4 variant a). */
export const DERIVED_PUBLIC_KEY_EXTRA = 'DerivedPublicKey';

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** The owner's derived keys that may sign at `height` (none until derived keys are on chain). */
export type DerivedKeysOf = (owner: Uint8Array) => Promise<Uint8Array[]>;

export interface SignedTxn {
  bytes: Uint8Array;
  txn: TxnEnvelope;
}

/**
 * One verdict per transaction: the RuleError to answer, or null and the key that signed (the
 * transaction's public key, or a derived key whose authorization connect then checks).
 */
export interface SignatureVerdict {
  error: RuleError | null;
  signer: Uint8Array;
}

export async function checkSignatures(crypto: CryptoService, txns: readonly SignedTxn[], derivedKeysOf: DerivedKeysOf): Promise<SignatureVerdict[]> {
  const results: (RuleError | null)[] = new Array(txns.length).fill(null);
  const signerOf: Uint8Array[] = txns.map(({ txn }) => txn.publicKey);
  const items: VerifyItem[] = [];
  const owners: number[] = [];
  await Promise.all(
    txns.map(async ({ bytes, txn }, i) => {
      const fail = (code: ConstructorParameters<typeof RuleError>[0], detail: string): void => {
        results[i] = new RuleError(code, detail);
      };
      if (txn.signature.length === 0) return fail('RuleErrorInvalidTransactionSignature', 'the transaction is not signed');
      let sig;
      try {
        sig = decodeDerSignature(txn.signature);
      } catch (e) {
        return fail('RuleErrorInvalidTransactionSignature', (e as Error).message);
      }
      const s = BigInt(`0x${Buffer.from(sig.compact.subarray(32)).toString('hex')}`);
      if (s > HALF_N) return fail('RuleErrorTxnSigHasHighS', 'signatures must be low-S');
      const named = txn.extraData.find(([k]) => Buffer.from(k).toString('latin1') === DERIVED_PUBLIC_KEY_EXTRA)?.[1];
      if (sig.recoveryId !== null && named !== undefined) {
        return fail('RuleErrorDerivedKeyHasBothExtraDataAndRecoveryId', 'use either ExtraData DerivedPublicKey or a DeSo-DER signature, not both');
      }
      let signers: Uint8Array[];
      if (sig.recoveryId === null && named === undefined) {
        signers = [txn.publicKey];
      } else {
        // A named derived key is verified here and its authorization checked when the
        // transaction connects (checkDerivedKeySigner); a DeSo-DER signature is tried against
        // the owner's derived keys.
        if (named !== undefined && named.length !== 33) return fail('RuleErrorDerivedKeyInvalidExtraData', 'ExtraData DerivedPublicKey is not a 33-byte public key');
        signers = named !== undefined ? [named] : await derivedKeysOf(txn.publicKey);
        if (signers.length === 0) return fail('RuleErrorDerivedKeyNotAuthorized', 'the signing derived key is not authorized by the transaction\'s owner');
      }
      const hash = hashToSign(bytes);
      for (const publicKey of signers) {
        items.push({ publicKey, hash, signature: sig.compact, lowS: true });
        owners.push(i);
      }
      if (signers.length === 1) signerOf[i] = signers[0]!;
    }),
  );
  const verdicts = items.length === 0 ? [] : await crypto.verifySignatures(items);
  const good = new Set<number>();
  verdicts.forEach((v, k) => {
    if (v.ok && v.value) {
      good.add(owners[k]!);
      signerOf[owners[k]!] = items[k]!.publicKey;
    }
  });
  for (const i of new Set(owners)) {
    if (!good.has(i)) results[i] = new RuleError('RuleErrorInvalidTransactionSignature', 'the signature does not verify for the transaction\'s signer');
  }
  return results.map((error, i) => ({ error, signer: signerOf[i]! }));
}
