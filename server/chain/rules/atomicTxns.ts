/**
 * ATOMIC_TXNS_WRAPPER (core lib/block_view_atomic_txns.go): a wrapper whose metadata carries
 * signed inner transactions that connect in order, all of them or none.
 *
 * The wrapper itself is nobody's: public key 33 zero bytes, no signature, no inputs, no outputs,
 * nonce {0, 0}, and a fee equal to the sum of the inner fees (core `_verifyAtomicTxnsWrapper`).
 * The inner transactions form a circular doubly linked list in their ExtraData: each names the
 * atomic hash of the next (`NxtAtmcHsh`) and of the previous (`PrvAtmcHsh`), and only the first
 * carries `AtmcChnLen`, which pins where the chain starts (core `_verifyAtomicTxnsChain`). An
 * atomic hash is sha256d of the transaction without its signature and without those two links
 * (core `MsgDeSoTxn.AtomicHash`), so the links can be computed before anyone signs. A
 * transaction with both links is only valid inside a wrapper (RuleErrorAtomicTxnsRequiresWrapper).
 *
 * Each inner transaction connects as a transaction of its own (its signature, nonce, fee floor,
 * balance and type rules), on a child view of the wrapper's that only folds into the caller's
 * view once every one has connected: a failing inner transaction leaves no write behind. Inner
 * transactions write no notifications (core's txindex lists them under the wrapper; this
 * node's notification reads render the transaction at a block position, the wrapper's).
 *
 * Core checks `blockHeight >= ProofOfStake1StateSetupBlockHeight` first
 * (RuleErrorAtomicTxnBeforeBlockHeight); the dev chain this node runs sets that fork at 0, so
 * every height qualifies and the check is left out.
 * @module
 */
import { sha256d } from '../../../wasm/hash.js';
import type { StateView } from '../state/view.js';
import { decodeTxn, encodeTxn, type TxnEnvelope, type TxnFields } from '../txn/envelope.js';
import { TxnDecodeError } from '../txn/errors.js';
import { decodeMetadata, TxnType } from '../txn/metadata.js';
import { PUBLIC_KEY_BYTES } from '../txn/sizes.js';
import type { ConnectContext, Connected, TxnInfo } from './connect.js';
import { RuleError } from './errors.js';
import { rulesWithGlobalParams } from './globalParams.js';

/** ExtraData key of the first inner transaction: `uvarint(number of inner transactions)` (core AtomicTxnsChainLength). */
export const ATOMIC_TXNS_CHAIN_LENGTH = 'AtmcChnLen';
/** ExtraData key: the atomic hash of the next inner transaction, circularly (core NextAtomicTxnPreHash). */
export const NEXT_ATOMIC_TXN_PRE_HASH = 'NxtAtmcHsh';
/** ExtraData key: the atomic hash of the previous inner transaction, circularly (core PreviousAtomicTxnPreHash). */
export const PREVIOUS_ATOMIC_TXN_PRE_HASH = 'PrvAtmcHsh';

/** Core's ZeroPublicKey: the wrapper's transactor. */
export const ZERO_PUBLIC_KEY = new Uint8Array(PUBLIC_KEY_BYTES);

const U64_MAX = (1n << 64n) - 1n;

const keyText = (k: Uint8Array): string => Buffer.from(k).toString('latin1');

/** The ExtraData value under `key`, if any. */
export function extraValue(t: Pick<TxnFields, 'extraData'>, key: string): Uint8Array | undefined {
  return t.extraData.find(([k]) => keyText(k) === key)?.[1];
}

/** Core IsAtomicTxnsInnerTxn: both links are present in ExtraData. */
export function isAtomicInnerTxn(t: Pick<TxnFields, 'extraData'>): boolean {
  return extraValue(t, NEXT_ATOMIC_TXN_PRE_HASH) !== undefined && extraValue(t, PREVIOUS_ATOMIC_TXN_PRE_HASH) !== undefined;
}

/** Core MsgDeSoTxn.AtomicHash: sha256d of the transaction without its signature and its two links. */
export function atomicHash(t: TxnFields): Uint8Array {
  const extraData = t.extraData.filter(([k]) => {
    const name = keyText(k);
    return name !== NEXT_ATOMIC_TXN_PRE_HASH && name !== PREVIOUS_ATOMIC_TXN_PRE_HASH;
  });
  return sha256d(encodeTxn({ ...t, extraData, signature: new Uint8Array(0) }));
}

/** One inner transaction of a wrapper: its bytes as the metadata carries them, decoded. */
export interface InnerTxn {
  bytes: Uint8Array;
  txn: TxnEnvelope;
}

/** Decoded once per wrapper envelope: signature checks, prefetch and connect all ask. */
const innerCache = new WeakMap<TxnEnvelope, InnerTxn[]>();

/**
 * The inner transactions of a wrapper, decoded (cached per envelope).
 * @throws {TxnDecodeError} when the wrapper's metadata does not decode
 */
export function innerTxnsOf(wrapper: TxnEnvelope): InnerTxn[] {
  let inner = innerCache.get(wrapper);
  if (inner === undefined) {
    const m = decodeMetadata(TxnType.ATOMIC_TXNS_WRAPPER, wrapper.metadata);
    if (m.type !== 'ATOMIC_TXNS_WRAPPER') throw new TxnDecodeError('ATOMIC_TXNS_WRAPPER: metadata of another type');
    inner = m.txns.map((bytes) => ({ bytes, txn: decodeTxn(bytes) }));
    innerCache.set(wrapper, inner);
  }
  return inner;
}

/**
 * A wrapper's signer, as admission and blocks carry it (TxnInfo.signer, MempoolEntry.signer):
 * the keys that signed its inner transactions, 33 bytes each, concatenated in order.
 */
export function joinInnerSigners(signers: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(signers));
}

/** The inner signers a wrapper's signer joins (joinInnerSigners); `n` of them. */
export function splitInnerSigners(signer: Uint8Array, n: number): Uint8Array[] {
  if (signer.length !== n * PUBLIC_KEY_BYTES) throw new Error(`an atomic wrapper's signer holds ${signer.length} bytes, not ${n} keys of ${PUBLIC_KEY_BYTES}`);
  return Array.from({ length: n }, (_, i) => signer.subarray(i * PUBLIC_KEY_BYTES, (i + 1) * PUBLIC_KEY_BYTES));
}

/**
 * Core `_verifyAtomicTxnsWrapper`, in its order: the wrapper's own fields.
 * @throws {RuleError}
 */
export function verifyAtomicTxnsWrapper(wrapper: TxnEnvelope, inner: readonly InnerTxn[]): void {
  if (Buffer.compare(wrapper.publicKey, ZERO_PUBLIC_KEY) !== 0) {
    throw new RuleError('RuleErrorAtomicTxnsWrapperPublicKeyMustBeZero', 'the wrapper\'s public key must be 33 zero bytes');
  }
  if (wrapper.signature.length !== 0) throw new RuleError('RuleErrorAtomicTxnsWrapperSignatureMustBeNil', 'the wrapper is signed; only its inner transactions are');
  if (wrapper.inputs.length !== 0) throw new RuleError('RuleErrorAtomicTxnsWrapperMustHaveZeroInputs', `${wrapper.inputs.length} inputs`);
  if (wrapper.outputs.length !== 0) throw new RuleError('RuleErrorAtomicTxnsWrapperMustHaveZeroOutputs', `${wrapper.outputs.length} outputs`);
  let innerFees = 0n;
  for (const { txn } of inner) {
    innerFees += txn.v1?.feeNanos ?? 0n;
    if (innerFees > U64_MAX) throw new RuleError('RuleErrorAtomicTxnsWrapperHasInternalFeeOverflow', 'the inner fees sum past 2^64-1');
  }
  const fee = wrapper.v1?.feeNanos ?? 0n;
  if (fee !== innerFees) throw new RuleError('RuleErrorAtomicTxnsWrapperMustHaveEqualFeeToInternalTxns', `wrapper fee ${fee} nanos, inner fees ${innerFees} nanos`);
  // A version-0 wrapper has no nonce to be zero (core would dereference a nil one).
  if (wrapper.v1 === null) throw new RuleError('RuleErrorNonceRequired', 'an atomic wrapper is a version 1 transaction with a zeroed nonce');
  if (wrapper.v1.nonceExpirationBlockHeight !== 0n || wrapper.v1.noncePartialId !== 0n) {
    throw new RuleError('RuleErrorAtomicTxnsWrapperMustHaveZeroedNonce', `nonce {${wrapper.v1.nonceExpirationBlockHeight}, ${wrapper.v1.noncePartialId}}`);
  }
}

/**
 * Core `_verifyAtomicTxnsChain`: the inner transactions are atomic ones, start with the one
 * chain length key, and link to each other circularly by atomic hash.
 * @throws {RuleError}
 */
export function verifyAtomicTxnsChain(inner: readonly InnerTxn[]): void {
  if (inner.length === 0) throw new RuleError('RuleErrorAtomicTxnsHasNoTransactions', 'the wrapper carries no transactions');
  const hashes: Uint8Array[] = [];
  inner.forEach(({ txn }, i) => {
    if (txn.txnType === TxnType.ATOMIC_TXNS_WRAPPER) throw new RuleError('RuleErrorAtomicTxnsHasAtomicTxnsInnerTxn', `inner transaction ${i} is itself a wrapper`);
    if (!isAtomicInnerTxn(txn)) throw new RuleError('RuleErrorAtomicTxnsHasNonAtomicInnerTxn', `inner transaction ${i} lacks the ${NEXT_ATOMIC_TXN_PRE_HASH}/${PREVIOUS_ATOMIC_TXN_PRE_HASH} links`);
    const start = extraValue(txn, ATOMIC_TXNS_CHAIN_LENGTH) !== undefined;
    if (!start && i === 0) throw new RuleError('RuleErrorAtomicTxnsMustStartWithChainLength', `inner transaction 0 lacks ${ATOMIC_TXNS_CHAIN_LENGTH}`);
    if (start && i > 0) throw new RuleError('RuleErrorAtomicTxnsHasMoreThanOneStartPoint', `inner transaction ${i} also carries ${ATOMIC_TXNS_CHAIN_LENGTH}`);
    hashes.push(atomicHash(txn));
  });
  const n = inner.length;
  inner.forEach(({ txn }, i) => {
    const next = extraValue(txn, NEXT_ATOMIC_TXN_PRE_HASH)!;
    const prev = extraValue(txn, PREVIOUS_ATOMIC_TXN_PRE_HASH)!;
    if (Buffer.compare(next, hashes[(i + 1) % n]!) !== 0) throw new RuleError('RuleErrorAtomicTxnsHasBrokenChain', `inner transaction ${i}: ${NEXT_ATOMIC_TXN_PRE_HASH} is not the atomic hash of transaction ${(i + 1) % n}`);
    if (Buffer.compare(prev, hashes[(i - 1 + n) % n]!) !== 0) throw new RuleError('RuleErrorAtomicTxnsHasBrokenChain', `inner transaction ${i}: ${PREVIOUS_ATOMIC_TXN_PRE_HASH} is not the atomic hash of transaction ${(i - 1 + n) % n}`);
  });
}

/** Connects one non-wrapper transaction (connect.ts connectSingleTxn). */
export type ConnectSingle = (view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext) => Promise<Connected>;

/**
 * Core `_connectAtomicTxnsWrapper`: the wrapper's fee floor, its own fields, the chain, then
 * each inner transaction on a child view in order; the child folds into `view` only when all
 * of them connected. An inner failure keeps its code; the detail names the inner transaction.
 * @throws {RuleError}
 */
export async function connectAtomicTxnsWrapper(view: StateView, wrapper: TxnEnvelope, info: TxnInfo, ctx: ConnectContext, connectSingle: ConnectSingle): Promise<Connected> {
  let inner: InnerTxn[];
  try {
    inner = innerTxnsOf(wrapper);
  } catch (e) {
    if (e instanceof TxnDecodeError) throw new RuleError('RuleErrorTxnMetadataMalformed', e.message);
    throw e;
  }
  // Core _verifyAtomicTxnsSize: the inner fees together pay for the wrapper's bytes too.
  const rules = await rulesWithGlobalParams(view, ctx.rules);
  const fee = wrapper.v1?.feeNanos ?? 0n;
  if (fee * 1000n < rules.minNetworkFeeNanosPerKB * BigInt(info.size)) {
    throw new RuleError('RuleErrorTxnFeeBelowNetworkMinimum', `the wrapper's fee ${fee} nanos for ${info.size} bytes is below ${rules.minNetworkFeeNanosPerKB} nanos/KB`);
  }
  verifyAtomicTxnsWrapper(wrapper, inner);
  verifyAtomicTxnsChain(inner);
  const signers = splitInnerSigners(info.signer, inner.length);
  const child = view.child();
  for (const [i, { bytes, txn }] of inner.entries()) {
    // No place in the block (indexInBlock): a notification names a block position and the
    // reads render the transaction there, which is the wrapper; inner transactions notify no one.
    const innerInfo: TxnInfo = { hash: sha256d(bytes), size: bytes.length, signer: signers[i]! };
    try {
      await connectSingle(child, txn, innerInfo, ctx);
    } catch (e) {
      if (e instanceof RuleError) {
        const detail = e.message.startsWith(`${e.code}: `) ? e.message.slice(e.code.length + 2) : e.message;
        throw new RuleError(e.code, `inner transaction ${i} of ${inner.length}: ${detail}`);
      }
      throw e;
    }
  }
  child.commitTo();
  return { feeNanos: fee };
}
