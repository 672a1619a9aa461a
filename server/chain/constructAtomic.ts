/**
 * Building an unsigned atomic transaction from unsigned transactions, as core's
 * Blockchain.CreateAtomicTxnsWrapper does: the first carries `AtmcChnLen`, every one the atomic
 * hashes of its neighbours (rules/atomicTxns.ts), each one's fee is raised to pay for the links,
 * and the wrapper's fee is the sum of theirs; when that sum does not pay for the wrapper's own
 * bytes at the fee rate, the difference goes onto the first transaction and the links are
 * computed again (a fee is part of what an atomic hash covers).
 *
 * The client signs each inner transaction (their hex is answered apart) and submit-atomic-
 * transaction splices the signatures in.
 * @module
 */
import { ATOMIC_TXNS_CHAIN_LENGTH, atomicHash, NEXT_ATOMIC_TXN_PRE_HASH, PREVIOUS_ATOMIC_TXN_PRE_HASH, ZERO_PUBLIC_KEY } from './rules/atomicTxns.js';
import { MAX_SIGNATURE_BYTES } from './construct.js';
import { encodeTxn, type TxnFields } from './txn/envelope.js';
import { decodeMetadata, encodeMetadata, TxnType } from './txn/metadata.js';
import { encodeUvarint } from './txn/varint.js';

/** Rounds of fee adjustment before giving up: each can only grow a fee's varint, 10 bytes at most. */
const MAX_FEE_ROUNDS = 16;

export interface AtomicConstructed {
  /** The unsigned ("incomplete") wrapper. */
  bytes: Uint8Array;
  fields: TxnFields;
  /** The wrapper's fee: the sum of the inner fees. */
  feeNanos: bigint;
  /** The inner transactions as the wrapper carries them, unsigned: what the client signs. */
  inner: Array<{ bytes: Uint8Array; fields: TxnFields }>;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const isKey = (k: Uint8Array, name: string): boolean => Buffer.from(k).toString('latin1') === name;

/** ExtraData with `key` set to `value` (replacing it), ascending as the encoding requires. */
function withExtra(extra: TxnFields['extraData'], key: string, value: Uint8Array): TxnFields['extraData'] {
  return [...extra.filter(([k]) => !isKey(k, key)), [text(key), value] as [Uint8Array, Uint8Array]].sort(([a], [b]) => Buffer.compare(a, b));
}

/**
 * Core UpdateTxnFee: the fee, and for a DAO coin limit order the FeeNanos its metadata repeats
 * (the rules require the two to be equal).
 */
function withFee(t: TxnFields, feeNanos: bigint): TxnFields {
  const v1 = { ...t.v1!, feeNanos };
  if (t.txnType !== TxnType.DAO_COIN_LIMIT_ORDER) return { ...t, v1 };
  const m = decodeMetadata(t.txnType, t.metadata);
  if (m.type !== 'DAO_COIN_LIMIT_ORDER') throw new Error('a DAO_COIN_LIMIT_ORDER with other metadata');
  return { ...t, v1, metadata: encodeMetadata({ ...m, feeNanos }) };
}

/** The fee `t` needs at `rate` once signed (its bytes plus a maximal signature), raised to a fixpoint. */
function feeFor(t: TxnFields, rate: bigint, extraBytes: number): bigint {
  let fee = t.v1!.feeNanos;
  for (let i = 0; i < MAX_FEE_ROUNDS; i++) {
    const size = BigInt(encodeTxn(withFee(t, fee)).length + extraBytes);
    const need = (size * rate + 999n) / 1000n;
    if (need <= fee) return fee;
    fee = need;
  }
  throw new Error('the fee of an atomic transaction did not settle');
}

/**
 * Chains `unsigned` (version 1 transactions, in execution order) into an atomic wrapper.
 * @param rate - fee rate in nanos per KB (the request's, at least the network's)
 * @param extraData - the wrapper's own ExtraData (core does not constrain it)
 */
export function constructAtomic(unsigned: readonly TxnFields[], rate: bigint, extraData: TxnFields['extraData'] = []): AtomicConstructed {
  if (unsigned.length === 0) throw new RangeError('an atomic transaction needs at least one transaction');
  if (unsigned.some((t) => t.v1 === null || t.signature.length !== 0)) throw new RangeError('atomic inner transactions must be unsigned version 1 transactions');
  // The start point first, so the first transaction's atomic hash covers it.
  let chain = unsigned.map((t, i) => (i === 0 ? { ...t, extraData: withExtra(t.extraData, ATOMIC_TXNS_CHAIN_LENGTH, encodeUvarint(unsigned.length)) } : { ...t }));
  // Each pays for its two 32-byte links (placeholders of the final size) and its signature.
  const placeholder = new Uint8Array(32);
  chain = chain.map((t) => {
    const linked = { ...t, extraData: withExtra(withExtra(t.extraData, NEXT_ATOMIC_TXN_PRE_HASH, placeholder), PREVIOUS_ATOMIC_TXN_PRE_HASH, placeholder) };
    return withFee(linked, feeFor(linked, rate, MAX_SIGNATURE_BYTES));
  });
  for (let round = 0; round < MAX_FEE_ROUNDS; round++) {
    const hashes = chain.map(atomicHash);
    const n = chain.length;
    chain = chain.map((t, i) => ({
      ...t,
      extraData: withExtra(withExtra(t.extraData, NEXT_ATOMIC_TXN_PRE_HASH, hashes[(i + 1) % n]!), PREVIOUS_ATOMIC_TXN_PRE_HASH, hashes[(i - 1 + n) % n]!),
    }));
    const innerBytes = chain.map((t) => encodeTxn(t));
    const feeNanos = chain.reduce((sum, t) => sum + t.v1!.feeNanos, 0n);
    const fields: TxnFields = {
      inputs: [],
      outputs: [],
      txnType: TxnType.ATOMIC_TXNS_WRAPPER,
      metadata: encodeMetadata({ type: 'ATOMIC_TXNS_WRAPPER', txns: innerBytes }),
      publicKey: ZERO_PUBLIC_KEY,
      extraData,
      signature: new Uint8Array(0),
      v1: { version: 1n, feeNanos, nonceExpirationBlockHeight: 0n, noncePartialId: 0n },
    };
    // Once signed, each inner transaction grows by its signature (and its length varint).
    const need = feeFor(fields, rate, n * (MAX_SIGNATURE_BYTES + 1));
    if (need <= feeNanos) {
      return { bytes: encodeTxn(fields), fields, feeNanos, inner: chain.map((t, i) => ({ bytes: innerBytes[i]!, fields: t })) };
    }
    chain[0] = withFee(chain[0]!, chain[0]!.v1!.feeNanos + (need - feeNanos));
  }
  throw new Error('the fee of an atomic transaction did not settle');
}
