/**
 * Atomic transactions for the construction and submit routes (reference backend
 * routes/transaction.go SubmitAtomicTransaction, routes/dao_coin_exchange_with_fees.go): wrapping
 * constructed transactions into an incomplete atomic transaction and its response fields, and
 * completing one with the client's signed inner transactions. Knows no HTTP: failures are
 * AtomicRequestError with the backend's text, the route puts its prefix before it.
 * @module
 */
import { constructAtomic, type AtomicConstructed } from '../chain/constructAtomic.js';
import { txnJson } from '../chain/json.js';
import { decodeTxn, encodeTxn, hashToSign, txnHash, withSignature, type TxnFields } from '../chain/txn/envelope.js';
import { TxnDecodeError } from '../chain/txn/errors.js';
import { decodeMetadata, encodeMetadata, TxnType } from '../chain/txn/metadata.js';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import type { Constructed } from '../chain/construct.js';

/** A request the backend refuses before submitting (ATOMIC_REQUEST_INVALID, 400). */
export class AtomicRequestError extends DomainError {
  override readonly name = 'AtomicRequestError';
  constructor(message: string) {
    super('ATOMIC_REQUEST_INVALID', 'invalid', message);
  }
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The answer of a construction route that builds an atomic transaction (reference field names). */
export interface AtomicResponseFields {
  FeeNanos: bigint;
  Transaction: Record<string, unknown>;
  /** The incomplete (unsigned inner transactions) wrapper: submit it with submit-atomic-transaction. */
  TransactionHex: string;
  /** sha256d of the incomplete wrapper, as the reference answers it. */
  TxnHashHex: string;
  /** The inner transactions to sign, in order. */
  InnerTransactionHexes: string[];
}

/**
 * Wraps constructed transactions (in execution order) into an incomplete atomic transaction at
 * the request's fee rate (at least the chain's), as core's CreateAtomicTxnsWrapper does.
 */
export async function wrapConstructed(deps: Pick<AppDeps, 'chain'>, constructed: readonly Constructed[], minFeeRateNanosPerKB: bigint): Promise<{ atomic: AtomicConstructed; fields: AtomicResponseFields }> {
  const gp = await deps.chain.globalParams();
  const rate = minFeeRateNanosPerKB > gp.minimumNetworkFeeNanosPerKB ? minFeeRateNanosPerKB : gp.minimumNetworkFeeNanosPerKB;
  const atomic = constructAtomic(constructed.map((c) => c.fields), rate);
  return {
    atomic,
    fields: {
      FeeNanos: atomic.feeNanos,
      Transaction: txnJson(atomic.fields),
      TransactionHex: hex(atomic.bytes),
      TxnHashHex: hex(txnHash(atomic.bytes)),
      InnerTransactionHexes: atomic.inner.map((t) => hex(t.bytes)),
    },
  };
}

/** The fields of a transaction, from its bytes (the decoder's bookkeeping left out). */
function fieldsOf(bytes: Uint8Array): TxnFields {
  const { signatureField: _, ...fields } = decodeTxn(bytes);
  return fields;
}

/**
 * The backend's completion of an incomplete atomic transaction: each unsigned inner transaction
 * takes the signature of the signed transaction whose pre-signature hash (sha256d without the
 * signature) is its own; inner transactions already signed are kept.
 * @param signedInner - the client's signed inner transactions (any order)
 * @throws {AtomicRequestError} with the backend's text; {TxnDecodeError} for bytes that do not decode
 */
export function completeAtomic(incomplete: Uint8Array, signedInner: readonly Uint8Array[]): Uint8Array {
  const wrapper = fieldsOf(incomplete);
  if (wrapper.txnType !== TxnType.ATOMIC_TXNS_WRAPPER) throw new AtomicRequestError('IncompleteAtomicTransaction must be an atomic transaction');
  const signatures = new Map<string, Uint8Array>();
  signedInner.forEach((bytes, i) => {
    let signed;
    try {
      signed = decodeTxn(bytes);
    } catch (e) {
      if (e instanceof TxnDecodeError) throw new AtomicRequestError(`Problem deserializing signed transaction ${i} from bytes: ${e.message}`);
      throw e;
    }
    if (signed.signature.length === 0) throw new AtomicRequestError(`Signed transaction ${i} hex missing signature`);
    signatures.set(hex(hashToSign(bytes)), signed.signature);
  });
  const m = decodeMetadata(TxnType.ATOMIC_TXNS_WRAPPER, wrapper.metadata);
  if (m.type !== 'ATOMIC_TXNS_WRAPPER') throw new Error('an atomic wrapper with other metadata');
  const txns = m.txns.map((bytes, j) => {
    if (decodeTxn(bytes).signature.length !== 0) return bytes;
    const signature = signatures.get(hex(hashToSign(bytes)));
    if (signature === undefined) throw new AtomicRequestError(`Transaction ${j} in atomic transaction still missing signature`);
    return withSignature(bytes, signature);
  });
  return encodeTxn({ ...wrapper, metadata: encodeMetadata({ type: 'ATOMIC_TXNS_WRAPPER', txns }) });
}
