/**
 * Transaction signature checks (reference node-api.md §5.4), batched through the crypto pool.
 *
 * - DER (`0x30…`): signed by the transaction's public key, or by the derived key named in
 *   ExtraData `DerivedPublicKey`.
 * - DeSo-DER (`0x31..0x34`): signed by a derived key, which the recovery id in the header
 *   names: the pool recovers it (a recovered key always verifies, so nothing else is checked).
 *
 * Whether a derived signer is authorized by the owner is state, checked when the transaction
 * connects (derivedKeys.ts `checkDerivedKeySigner`); here only "who signed" is settled.
 * High-S signatures are refused (the reference does, from height 0 on regtest).
 * @module
 */
import type { CryptoService } from '../../crypto/service.js';
import type { RecoverItem, VerifyItem } from '../../crypto/pack.js';
import { decodeDerSignature } from '../txn/derSignature.js';
import { hashToSign, type TxnEnvelope } from '../txn/envelope.js';
import { RuleError, type RuleErrorCode } from './errors.js';
import { TxnDecodeError } from '../txn/errors.js';
import { TxnType } from '../txn/metadata.js';
import { innerTxnsOf, joinInnerSigners } from './atomicTxns.js';

/** ExtraData key naming the derived key that signed (§5.4 variant a). */
export const DERIVED_PUBLIC_KEY_EXTRA = 'DerivedPublicKey';

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

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

/** The derived key named in ExtraData, if any. */
export function namedDerivedKey(txn: TxnEnvelope): Uint8Array | undefined {
  return txn.extraData.find(([k]) => Buffer.from(k).toString('latin1') === DERIVED_PUBLIC_KEY_EXTRA)?.[1];
}

/**
 * One verdict per transaction, as checkOwnSignatures gives; an atomic wrapper's inner
 * transactions are checked in the same batch, and its verdict is the first inner failure or,
 * when all verify, its inner signers joined (atomicTxns.ts joinInnerSigners). A wrapper's own
 * signature is not checked here: connect requires it to be empty.
 */
export async function checkSignatures(crypto: CryptoService, txns: readonly SignedTxn[]): Promise<SignatureVerdict[]> {
  if (!txns.some(({ txn }) => txn.txnType === TxnType.ATOMIC_TXNS_WRAPPER)) return checkOwnSignatures(crypto, txns);
  const flat: SignedTxn[] = [];
  /** Per transaction: where its units start in `flat` and how many, or a verdict already known. */
  const plan: Array<{ at: number; n: number; wrapper: boolean } | SignatureVerdict> = txns.map((t) => {
    if (t.txn.txnType !== TxnType.ATOMIC_TXNS_WRAPPER) {
      flat.push(t);
      return { at: flat.length - 1, n: 1, wrapper: false };
    }
    let inner;
    try {
      inner = innerTxnsOf(t.txn);
    } catch (e) {
      if (e instanceof TxnDecodeError) return { error: new RuleError('RuleErrorTxnMetadataMalformed', e.message), signer: t.txn.publicKey };
      throw e;
    }
    const at = flat.length;
    flat.push(...inner);
    return { at, n: inner.length, wrapper: true };
  });
  const verdicts = await checkOwnSignatures(crypto, flat);
  return plan.map((p, i) => {
    if (!('at' in p)) return p;
    if (!p.wrapper) return verdicts[p.at]!;
    const own = verdicts.slice(p.at, p.at + p.n);
    const bad = own.findIndex((v) => v.error !== null);
    if (bad >= 0) {
      const e = own[bad]!.error!;
      return { error: new RuleError(e.code, `inner transaction ${bad} of ${p.n}: ${e.message.slice(e.code.length + 2)}`), signer: txns[i]!.txn.publicKey };
    }
    return { error: null, signer: joinInnerSigners(own.map((v) => v.signer)) };
  });
}

/** Marks transaction i refused (a module function: see http/uws.ts Exchange on closures per call). */
function failVerdict(verdicts: SignatureVerdict[], i: number, code: RuleErrorCode, detail: string): void {
  verdicts[i]!.error = new RuleError(code, detail);
}

async function checkOwnSignatures(crypto: CryptoService, txns: readonly SignedTxn[]): Promise<SignatureVerdict[]> {
  const verdicts: SignatureVerdict[] = txns.map(({ txn }) => ({ error: null, signer: txn.publicKey }));
  const verify: VerifyItem[] = [];
  const verifyOwners: number[] = [];
  const recover: RecoverItem[] = [];
  const recoverOwners: number[] = [];

  txns.forEach(({ bytes, txn }, i) => {
    if (txn.signature.length === 0) return failVerdict(verdicts, i, 'RuleErrorInvalidTransactionSignature', 'the transaction is not signed');
    let sig;
    try {
      sig = decodeDerSignature(txn.signature);
    } catch (e) {
      return failVerdict(verdicts, i, 'RuleErrorInvalidTransactionSignature', (e as Error).message);
    }
    const s = BigInt(`0x${Buffer.from(sig.compact.subarray(32)).toString('hex')}`);
    if (s > HALF_N) return failVerdict(verdicts, i, 'RuleErrorTxnSigHasHighS', 'signatures must be low-S');
    const named = namedDerivedKey(txn);
    const hash = hashToSign(bytes, txn);
    if (sig.recoveryId !== null) {
      if (named !== undefined) return failVerdict(verdicts, i, 'RuleErrorDerivedKeyHasBothExtraDataAndRecoveryId', 'use either ExtraData DerivedPublicKey or a DeSo-DER signature, not both');
      recover.push({ hash, signature: sig.compact, recovery: sig.recoveryId });
      recoverOwners.push(i);
      return;
    }
    if (named !== undefined) {
      if (named.length !== 33) return failVerdict(verdicts, i, 'RuleErrorDerivedKeyInvalidExtraData', 'ExtraData DerivedPublicKey is not a 33-byte public key');
      verdicts[i]!.signer = named;
    }
    verify.push({ publicKey: verdicts[i]!.signer, hash, signature: sig.compact, lowS: true });
    verifyOwners.push(i);
  });

  const [verified, recovered] = await Promise.all([
    verify.length === 0 ? [] : crypto.verifySignatures(verify),
    recover.length === 0 ? [] : crypto.recoverPublicKeys(recover),
  ]);
  verified.forEach((v, k) => {
    if (!(v.ok && v.value)) failVerdict(verdicts, verifyOwners[k]!, 'RuleErrorInvalidTransactionSignature', 'the signature does not verify for the transaction\'s signer');
  });
  recovered.forEach((r, k) => {
    const i = recoverOwners[k]!;
    if (!r.ok) return failVerdict(verdicts, i, 'RuleErrorDerivedKeyInvalidRecoveryId', `the DeSo-DER signature names no public key: ${r.error}`);
    verdicts[i]!.signer = r.value.slice();
  });
  // An owner is never its own derived key: a derived-key encoding that names the owner would
  // otherwise pass as an owner signature without the derived-key check.
  verdicts.forEach((v, i) => {
    const txn = txns[i]!.txn;
    if (v.error === null && v.signer !== txn.publicKey && Buffer.compare(v.signer, txn.publicKey) === 0) {
      failVerdict(verdicts, i, 'RuleErrorDerivedKeyNotAuthorized', 'the derived key a signature names is the owner key itself');
    }
  });
  return verdicts;
}
