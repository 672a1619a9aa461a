/**
 * Connecting transactions to state under the balance model (reference node-api.md §5.1: v1
 * transactions, no UTXO inputs, nonces; from height 1 on the dev chain). Every connect runs in
 * a child view and only folds into its parent when every rule holds.
 *
 * The type-independent part is the same for every transaction: the transactor pays the fee and
 * every output from its balance, outputs are credited, and the nonce is spent. Type handlers
 * (`TYPE_HANDLERS`) add the type's own effects and rules; a type without one is refused.
 * Signatures are checked before this, in the crypto pool (signatures.ts).
 * @module
 */
import type { CryptoService } from '../../crypto/service.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { TxnType } from '../txn/metadata.js';
import { getBalance, setBalance } from '../state/balances.js';
import { spendNonce } from '../state/nonces.js';
import { chainKeys } from '../state/keys.js';
import type { StateView } from '../state/view.js';
import { checkDerivedKeySigner } from './derivedKeys.js';
import { RuleError } from './errors.js';
import { TxnDecodeError } from '../txn/errors.js';
import { TYPE_HANDLERS } from './handlers.js';
import { rulesWithGlobalParams } from './globalParams.js';
import { derivedKeyKeys } from '../state/derivedKeys.js';
import { indexConnectedTxn } from './notifications.js';
import { connectAtomicTxnsWrapper, innerTxnsOf, isAtomicInnerTxn, splitInnerSigners } from './atomicTxns.js';
import { addKeyTxns } from '../state/keyTxns.js';

export { getBalance, setBalance };

/**
 * The rule parameters connect needs (a slice of ChainParams). The first three are defaults:
 * once an UPDATE_GLOBAL_PARAMS sets MaxNonceExpirationBlockHeightOffset,
 * MinimumNetworkFeeNanosPerKB or CreateProfileFeeNanos, connect applies the chain's value
 * (rules/globalParams.ts rulesWithGlobalParams).
 */
export interface ConnectRules {
  /** A nonce may expire at most this many blocks after the block it is mined in. */
  maxNonceExpirationBlockHeightOffset: bigint;
  /** Fee floor: fee × 1000 ≥ rate × size in bytes. */
  minNetworkFeeNanosPerKB: bigint;
  /**
   * Burned when a profile is created (core global param CreateProfileFeeNanos): the node's
   * `--create-profile-fee-nanos` until the chain sets it; every process of one node must agree
   * on it, as on every consensus rule.
   */
  createProfileFeeNanos: bigint;
  /**
   * Keys (33-byte hex) that may send UPDATE_GLOBAL_PARAMS and SWAP_IDENTITY
   * (`--param-updater-public-keys`); absent = none.
   */
  paramUpdaterPublicKeys?: ReadonlySet<string>;
}

/** Largest native amount one output may carry (core MaxNanos-style bound, 3e16). */
export const MAX_OUTPUT_NANOS = 30_000_000_000_000_000n;

/** What every transaction of one block (or of the mempool's next block) shares. */
export interface ConnectContext {
  /** Height of the block the transaction is (to be) mined in. */
  height: bigint;
  rules: ConnectRules;
  /** For rules that check signatures inside metadata (derived-key access signatures). */
  crypto: CryptoService;
}

/** Facts about one signed transaction, known before it connects. */
export interface TxnInfo {
  /** Final transaction hash (sha256d of the signed bytes): post hashes, order ids. */
  hash: Uint8Array;
  /** Bytes of the signed transaction (for the fee rate). */
  size: number;
  /** The key whose signature verified: the transaction's public key, or a derived key of it. */
  signer: Uint8Array;
  /**
   * Its place in the block at `ConnectContext.height` (the block reward is 0): in a block, its
   * index; in the mempool, its place in the pending replay, which is its index in the block that
   * mines the replay's transactions in order. Indexes notifications (rules/notifications.ts);
   * absent (a simulation) writes none.
   */
  indexInBlock?: number;
}

export interface Connected {
  feeNanos: bigint;
}

/**
 * A transaction type's own rules and effects, run in the transaction's child view after the
 * fee, outputs and nonce. Decodes its metadata itself (decodeMetadata throws TxnDecodeError for
 * malformed bytes; connect turns that into RuleErrorTxnMetadataMalformed).
 */
export type TypeHandler = (view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext) => Promise<void>;

/**
 * State keys connecting `txn` reads whatever its type: its nonce, the balances it moves, and
 * the derived key that signed it. Admission reads them for a whole batch in one round trip
 * (StateView.prefetch); type handlers read the rest themselves.
 */
export function commonReads(txn: TxnEnvelope, signer: Uint8Array): string[] {
  if (txn.txnType === TxnType.ATOMIC_TXNS_WRAPPER) {
    // Its inner transactions' reads (nothing when the wrapper is malformed: connect refuses it).
    let inner;
    try {
      inner = innerTxnsOf(txn);
    } catch {
      return [];
    }
    if (signer.length !== inner.length * 33) return [];
    const signers = splitInnerSigners(signer, inner.length);
    return inner.flatMap((t, i) => (t.txn.txnType === TxnType.ATOMIC_TXNS_WRAPPER ? [] : commonReads(t.txn, signers[i]!)));
  }
  const keys: string[] = [];
  if (txn.publicKey.length !== 33) return keys;
  if (txn.v1 !== null) keys.push(chainKeys.nonce(txn.publicKey, txn.v1.nonceExpirationBlockHeight, txn.v1.noncePartialId));
  keys.push(chainKeys.balance(txn.publicKey));
  for (const o of txn.outputs) if (o.publicKey.length === 33) keys.push(chainKeys.balance(o.publicKey));
  if (Buffer.compare(signer, txn.publicKey) !== 0) keys.push(derivedKeyKeys.entry(txn.publicKey, signer));
  return keys;
}

/**
 * Connects a user transaction (anything but a block reward) into `view`: an atomic wrapper's
 * inner transactions all or none (rules/atomicTxns.ts), any other on its own. For a wrapper,
 * `info.signer` joins its inner transactions' signers (atomicTxns.ts joinInnerSigners).
 * @throws {RuleError}
 */
export async function connectTransaction(view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext): Promise<Connected> {
  if (txn.txnType === TxnType.ATOMIC_TXNS_WRAPPER) return connectAtomicTxnsWrapper(view, txn, info, ctx, connectSingleTxn);
  // Core: from ProofOfStake1StateSetupBlockHeight (0 on the dev chain) a linked transaction
  // connects only inside its wrapper, so nobody can take one transaction out of a set.
  if (isAtomicInnerTxn(txn)) throw new RuleError('RuleErrorAtomicTxnsRequiresWrapper', 'this transaction carries atomic links (NxtAtmcHsh/PrvAtmcHsh): submit it inside its atomic wrapper');
  return connectSingleTxn(view, txn, info, ctx);
}

/** Core _connectSingleTxn: one transaction that is not a wrapper, linked or not. */
async function connectSingleTxn(view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext): Promise<Connected> {
  const size = info.size;
  if (txn.txnType === TxnType.BLOCK_REWARD) throw new RuleError('RuleErrorBlockRewardNotFirst', 'a block reward is only allowed as the first transaction of a block');
  const handler = TYPE_HANDLERS.get(txn.txnType);
  if (handler === undefined) throw new RuleError('RuleErrorTxnTypeNotSupported', `transaction type ${txn.txnType} is not supported by this node yet`);
  if (txn.inputs.length !== 0) throw new RuleError('RuleErrorBalanceModelDoesNotUseUTXOInputs', `${txn.inputs.length} inputs`);
  if (txn.publicKey.length !== 33) throw new RuleError('RuleErrorTxnMustHavePublicKey', 'the transaction has no public key');
  const v1 = txn.v1;
  if (v1 === null || v1.version < 1n) throw new RuleError('RuleErrorNonceRequired', 'balance-model transactions are version 1 with a fee and a nonce');

  // The chain's global params (fee floor, nonce window, profile fee) override the node's defaults.
  const rules = await rulesWithGlobalParams(view, ctx.rules);
  ctx = rules === ctx.rules ? ctx : { ...ctx, rules };
  const { height } = ctx;
  if (v1.nonceExpirationBlockHeight < height) {
    throw new RuleError('RuleErrorNonceExpired', `nonce expired at height ${v1.nonceExpirationBlockHeight}, block height is ${height}`);
  }
  if (v1.nonceExpirationBlockHeight > height + rules.maxNonceExpirationBlockHeightOffset) {
    throw new RuleError('RuleErrorNonceExpirationTooFarInFuture', `nonce expires at ${v1.nonceExpirationBlockHeight}, more than ${rules.maxNonceExpirationBlockHeightOffset} blocks after ${height}`);
  }
  if (v1.feeNanos * 1000n < rules.minNetworkFeeNanosPerKB * BigInt(size)) {
    throw new RuleError('RuleErrorTxnFeeBelowNetworkMinimum', `fee ${v1.feeNanos} nanos for ${size} bytes is below ${rules.minNetworkFeeNanosPerKB} nanos/KB`);
  }

  const child = view.child();
  if (!(await spendNonce(child, txn.publicKey, v1.nonceExpirationBlockHeight, v1.noncePartialId))) {
    throw new RuleError('RuleErrorReusedNonce', 'this nonce was already used by this public key');
  }

  let spend = v1.feeNanos;
  for (const o of txn.outputs) {
    if (o.amountNanos > MAX_OUTPUT_NANOS) throw new RuleError('RuleErrorOutputExceedsMax', `output of ${o.amountNanos} nanos is over ${MAX_OUTPUT_NANOS}`);
    spend += o.amountNanos;
  }
  const balance = await getBalance(child, txn.publicKey);
  if (balance < spend) throw new RuleError('RuleErrorInsufficientBalance', `balance ${balance} nanos is less than the ${spend} nanos this transaction spends`);
  setBalance(child, txn.publicKey, balance - spend);
  for (const o of txn.outputs) setBalance(child, o.publicKey, (await getBalance(child, o.publicKey)) + o.amountNanos);

  try {
    await handler(child, txn, info, ctx);
  } catch (e) {
    if (e instanceof TxnDecodeError) throw new RuleError('RuleErrorTxnMetadataMalformed', e.message);
    throw e;
  }
  // A derived key's authorization and spending limit are checked against the effects.
  if (Buffer.compare(info.signer, txn.publicKey) !== 0) await checkDerivedKeySigner(child, txn, info, ctx);
  await indexConnectedTxn(child, txn, info, ctx);
  child.commitTo();
  return { feeNanos: v1.feeNanos };
}

/**
 * Connects a block's reward transaction (reference §5.6): no inputs, exactly one output, no
 * signature, no public key, output ≤ reward + fees. It is the block's transaction 0 at `height`
 * in its output key's transactions (state/keyTxns.ts).
 * @throws {RuleError}
 */
export async function connectBlockReward(view: StateView, txn: TxnEnvelope, maxAllowedNanos: bigint, maxExtraDataBytes: number, height: bigint): Promise<void> {
  if (txn.txnType !== TxnType.BLOCK_REWARD) throw new RuleError('RuleErrorBlockRewardNotFirst', 'the first transaction of a block must be its block reward');
  if (txn.inputs.length !== 0) throw new RuleError('RuleErrorBlockRewardTxnNotAllowedToHaveInputs', `${txn.inputs.length} inputs`);
  if (txn.outputs.length !== 1) throw new RuleError('RuleErrorBlockRewardTxnMustHaveOneOutput', `${txn.outputs.length} outputs`);
  if (txn.signature.length !== 0) throw new RuleError('RuleErrorBlockRewardTxnNotAllowedToHaveSignature', 'the block reward is signed');
  if (txn.metadata.length > maxExtraDataBytes) throw new RuleError('RuleErrorBlockRewardExtraDataTooLong', `${txn.metadata.length} bytes of extra data`);
  const out = txn.outputs[0]!;
  if (out.amountNanos > maxAllowedNanos) {
    throw new RuleError('RuleErrorBlockRewardExceedsMaxAllowed', `reward output ${out.amountNanos} nanos is over the ${maxAllowedNanos} nanos of reward and fees`);
  }
  setBalance(view, out.publicKey, (await getBalance(view, out.publicKey)) + out.amountNanos);
  addKeyTxns(view, height, 0, [out.publicKey]);
}
