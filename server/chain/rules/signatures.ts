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

/** One entry per transaction: null when its signature is good, else the RuleError to answer. */
export async function checkSignatures(crypto: CryptoService, txns: readonly SignedTxn[], derivedKeysOf: DerivedKeysOf): Promise<(RuleError | null)[]> {
  const results: (RuleError | null)[] = new Array(txns.length).fill(null);
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
        const authorized = await derivedKeysOf(txn.publicKey);
        signers = named !== undefined ? authorized.filter((k) => Buffer.compare(k, named) === 0) : authorized;
        if (signers.length === 0) return fail('RuleErrorDerivedKeyNotAuthorized', 'the signing derived key is not authorized by the transaction\'s owner');
      }
      const hash = hashToSign(bytes);
      for (const publicKey of signers) {
        items.push({ publicKey, hash, signature: sig.compact, lowS: true });
        owners.push(i);
      }
    }),
  );
  const verdicts = items.length === 0 ? [] : await crypto.verifySignatures(items);
  const good = new Set<number>();
  verdicts.forEach((v, k) => {
    if (v.ok && v.value) good.add(owners[k]!);
  });
  for (const i of new Set(owners)) {
    if (!good.has(i)) results[i] = new RuleError('RuleErrorInvalidTransactionSignature', 'the signature does not verify for the transaction\'s signer');
  }
  return results;
}
