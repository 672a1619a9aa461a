/**
 * Rules of UPDATE_GLOBAL_PARAMS, as core's `_connectUpdateGlobalParams` (deso-protocol/core
 * lib/block_view.go) and the backend's update-global-params (reference node-api.md §3):
 *
 * - Only a param updater may send it (`RuleErrorUserNotAuthorizedToUpdateGlobalParams`). Core's
 *   updaters are the fixed ParamUpdaterPublicKeys of its network; this node's are
 *   `--param-updater-public-keys` (ConnectRules.paramUpdaterPublicKeys), none by default.
 * - The metadata is empty; each value travels in the transaction's ExtraData under core's key
 *   (table below) as a uvarint (core UintToBuf), or a zig-zag varint (IntToBuf) for the two
 *   signed fields. A key that is absent or has an empty value leaves the param unchanged; a
 *   value is decoded as Go's binary.Uvarint/Varint do (a prefix; trailing bytes ignored) and
 *   checked against core's bounds where core has them.
 * - `ForbiddenBlockSignaturePubKey` (33 bytes, else `RuleErrorForbiddenPubKeyLength`) is
 *   recorded; proof-of-work blocks carry no signer, so it has no effect on this chain.
 *
 * Not enforced (core checks them, their inputs are not modelled here): the fee-bucket minimum
 * (MinimumNetworkFeeNanosPerKB × FeeBucketGrowthRateBasisPoints) and core's old
 * "output must be non-zero" rule, which the balance-model core no longer applies in practice
 * (its own tests update params with no outputs).
 *
 * The params then feed every later connect (rulesWithGlobalParams): the profile creation fee,
 * the fee floor (MinimumNetworkFeeNanosPerKB) and the nonce window.
 * @module
 */
import { toHex } from '../../hex.js';
import { CORE_GLOBAL_PARAM_DEFAULTS, effectiveGlobalParams, getStoredGlobalParams, globalParamsDefaults, globalParamsKeys, putStoredGlobalParams, type GlobalParamField, type StoredGlobalParams } from '../state/globalParams.js';
import type { StateReader } from '../state/reader.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { decodeMetadata, TxnType } from '../txn/metadata.js';
import { encodeUvarint } from '../txn/varint.js';
import type { ConnectContext, ConnectRules } from './connect.js';
import { RuleError, type RuleErrorCode } from './errors.js';
import type { HandlerEntry } from './handlers.js';

const NANOS_PER_UNIT = 1_000_000_000n;

/** One global param: where it travels and what core allows. */
export interface GlobalParamSpec {
  field: GlobalParamField;
  /** Request and response field name of the admin routes. */
  apiName: string;
  /** ExtraData key (core lib/constants.go `…Key`). */
  extraDataKey: string;
  /** Zig-zag varint (core IntToBuf) instead of uvarint (UintToBuf). */
  signed: boolean;
  /**
   * The reference route's rule for the request field: `int64` fields are sent when ≥ 0 (−1 =
   * unchanged), the others when > 0; both only when different from the current value.
   */
  request: 'int64' | 'positive';
  bounds?: { min: bigint; max: bigint; tooLow: RuleErrorCode; tooHigh: RuleErrorCode };
}

const bounds = (min: bigint, max: bigint, tooLow: RuleErrorCode, tooHigh: RuleErrorCode): GlobalParamSpec['bounds'] => ({ min, max, tooLow, tooHigh });
const pos = (field: GlobalParamField, apiName: string, extraDataKey = apiName, b?: GlobalParamSpec['bounds']): GlobalParamSpec => ({
  field,
  apiName,
  extraDataKey,
  signed: false,
  request: 'positive',
  ...(b ? { bounds: b } : {}),
});

/** Every param UPDATE_GLOBAL_PARAMS can set, in core's order. */
export const GLOBAL_PARAM_SPECS: readonly GlobalParamSpec[] = [
  {
    field: 'usdCentsPerBitcoin',
    apiName: 'USDCentsPerBitcoin',
    extraDataKey: 'USDCentsPerBitcoin',
    signed: false,
    request: 'int64',
    bounds: bounds(100n * 100n, 1_000_000n * 100n, 'RuleErrorExchangeRateTooLow', 'RuleErrorExchangeRateTooHigh'),
  },
  {
    field: 'minimumNetworkFeeNanosPerKB',
    apiName: 'MinimumNetworkFeeNanosPerKB',
    extraDataKey: 'MinNetworkFeeNanosPerKB',
    signed: false,
    request: 'int64',
    bounds: bounds(0n, 100n * NANOS_PER_UNIT, 'RuleErrorMinNetworkFeeTooLow', 'RuleErrorMinNetworkFeeTooHigh'),
  },
  {
    field: 'createProfileFeeNanos',
    apiName: 'CreateProfileFeeNanos',
    extraDataKey: 'CreateProfileFeeNanos',
    signed: false,
    request: 'int64',
    bounds: bounds(0n, 100n * NANOS_PER_UNIT, 'RuleErrorCreateProfileFeeTooLow', 'RuleErrorCreateProfileTooHigh'),
  },
  {
    field: 'createNFTFeeNanos',
    apiName: 'CreateNFTFeeNanos',
    extraDataKey: 'CreateNFTFeeNanos',
    signed: false,
    request: 'int64',
    bounds: bounds(0n, 100n * NANOS_PER_UNIT, 'RuleErrorCreateNFTFeeTooLow', 'RuleErrorCreateNFTFeeTooHigh'),
  },
  {
    field: 'maxCopiesPerNFT',
    apiName: 'MaxCopiesPerNFT',
    extraDataKey: 'MaxCopiesPerNFT',
    signed: false,
    request: 'int64',
    bounds: bounds(1n, 10_000n, 'RuleErrorMaxCopiesPerNFTTooLow', 'RuleErrorMaxCopiesPerNFTTooHigh'),
  },
  { field: 'maxNonceExpirationBlockHeightOffset', apiName: 'MaxNonceExpirationBlockHeightOffset', extraDataKey: 'MaxNonceExpirationBlockHeightOffset', signed: false, request: 'int64' },
  pos('stakeLockupEpochDuration', 'StakeLockupEpochDuration'),
  pos('validatorJailEpochDuration', 'ValidatorJailEpochDuration'),
  pos('leaderScheduleMaxNumValidators', 'LeaderScheduleMaxNumValidators'),
  pos('validatorSetMaxNumValidators', 'ValidatorSetMaxNumValidators'),
  pos('stakingRewardsMaxNumStakes', 'StakingRewardsMaxNumStakes'),
  pos('stakingRewardsAPYBasisPoints', 'StakingRewardsAPYBasisPoints'),
  pos('epochDurationNumBlocks', 'EpochDurationNumBlocks'),
  pos('jailInactiveValidatorGracePeriodEpochs', 'JailInactiveValidatorGracePeriodEpochs'),
  { field: 'maximumVestedIntersectionsPerLockupTransaction', apiName: 'MaximumVestedIntersectionsPerLockupTransaction', extraDataKey: 'MaximumVestedIntersectionsPerLockupTransaction', signed: true, request: 'positive' },
  // Core's key really ends in "Key".
  pos('feeBucketGrowthRateBasisPoints', 'FeeBucketGrowthRateBasisPoints', 'FeeBucketGrowthRateBasisPointsKey'),
  { field: 'blockTimestampDriftNanoSecs', apiName: 'BlockTimestampDriftNanoSecs', extraDataKey: 'BlockTimestampDriftNanoSecs', signed: true, request: 'positive' },
  pos('mempoolMaxSizeBytes', 'MempoolMaxSizeBytes'),
  pos('mempoolFeeEstimatorNumMempoolBlocks', 'MempoolFeeEstimatorNumMempoolBlocks'),
  pos('mempoolFeeEstimatorNumPastBlocks', 'MempoolFeeEstimatorNumPastBlocks'),
  pos('maxBlockSizeBytesPoS', 'MaxBlockSizeBytesPoS', 'MaxBlockSizeBytesPoS', bounds(1000n, 16_000_000n, 'RuleErrorMaxBlockSizeBytesTooLow', 'RuleErrorMaxBlockSizeBytesTooHigh')),
  pos('softMaxBlockSizeBytesPoS', 'SoftMaxBlockSizeBytesPoS', 'SoftMaxBlockSizeBytesPoS', bounds(1000n, 16_000_000n, 'RuleErrorSoftMaxBlockSizeBytesTooLow', 'RuleErrorSoftMaxBlockSizeBytesTooHigh')),
  pos('maxTxnSizeBytesPoS', 'MaxTxnSizeBytesPoS', 'MaxTxnSizeBytesPoS', bounds(1000n, 16_000_000n, 'RuleErrorMaxTxnSizeBytesTooLow', 'RuleErrorMaxTxnSizeBytesTooHigh')),
  pos('blockProductionIntervalMillisecondsPoS', 'BlockProductionIntervalMillisecondsPoS', 'BlockProductionIntervalPoS', bounds(1000n, 10_000n, 'RuleErrorBlockProductionIntervalPoSTooLow', 'RuleErrorBlockProductionIntervalPoSTooHigh')),
  pos('timeoutIntervalMillisecondsPoS', 'TimeoutIntervalMillisecondsPoS', 'TimeoutIntervalPoS', bounds(1000n, 60_000n, 'RuleErrorTimeoutIntervalPoSTooLow', 'RuleErrorTimeoutIntervalPoSTooHigh')),
];

export const FORBIDDEN_BLOCK_SIGNATURE_PUBKEY_KEY = 'ForbiddenBlockSignaturePubKey';

const U64 = 1n << 64n;

/** Go's binary.Uvarint: the value at the start of `b`, or null (empty, truncated, over 64 bits). */
export function goUvarint(b: Uint8Array): bigint | null {
  let x = 0n;
  let shift = 0n;
  for (let i = 0; i < b.length && i < 10; i++) {
    const byte = b[i]!;
    if (byte < 0x80) {
      if (i === 9 && byte > 1) return null;
      return x | (BigInt(byte) << shift);
    }
    x |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  }
  return null;
}

/** Go's binary.Varint (zig-zag). */
export function goVarint(b: Uint8Array): bigint | null {
  const ux = goUvarint(b);
  if (ux === null) return null;
  return (ux & 1n) === 1n ? -(ux >> 1n) - 1n : ux >> 1n;
}

/** Core's UintToBuf / IntToBuf for a param's value. */
export function encodeGlobalParamValue(spec: GlobalParamSpec, value: bigint): Uint8Array {
  if (!spec.signed) return encodeUvarint(value);
  if (value < -(U64 >> 1n) || value >= U64 >> 1n) throw new RangeError(`${spec.apiName}: ${value} is outside int64`);
  return encodeUvarint(value >= 0n ? value << 1n : ((-value) << 1n) - 1n);
}

/** Whether `pk33` is one of this chain's param updaters. */
export function isParamUpdaterOf(rules: ConnectRules, pk33: Uint8Array): boolean {
  return rules.paramUpdaterPublicKeys?.has(toHex(pk33)) ?? false;
}

/**
 * `rules` with the chain's global params in force at `state`: the profile creation fee, the
 * fee floor and the nonce window. Unchanged when no param was ever set.
 */
export async function rulesWithGlobalParams(state: StateReader, rules: ConnectRules): Promise<ConnectRules> {
  const stored = await getStoredGlobalParams(state);
  if (Object.keys(stored).length === 0) return rules;
  const gp = effectiveGlobalParams(stored, globalParamsDefaults(rules));
  return {
    ...rules,
    createProfileFeeNanos: gp.createProfileFeeNanos,
    minNetworkFeeNanosPerKB: gp.minimumNetworkFeeNanosPerKB,
    maxNonceExpirationBlockHeightOffset: gp.maxNonceExpirationBlockHeightOffset,
  };
}

const utf8 = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

/**
 * The params an UPDATE_GLOBAL_PARAMS's ExtraData sets, validated, over `stored`.
 * @throws {RuleError}
 */
export function applyGlobalParamsExtraData(stored: StoredGlobalParams, extraData: ReadonlyArray<readonly [Uint8Array, Uint8Array]>): StoredGlobalParams {
  const values = new Map(extraData.map(([k, v]) => [utf8(k), v]));
  const next: StoredGlobalParams = { ...stored };
  for (const spec of GLOBAL_PARAM_SPECS) {
    const bytes = values.get(spec.extraDataKey);
    if (bytes === undefined || bytes.length === 0) continue;
    const value = spec.signed ? goVarint(bytes) : goUvarint(bytes);
    if (value === null) {
      throw new RuleError('RuleErrorUpdateGlobalParamsValueMalformed', `ExtraData ${spec.extraDataKey}: unable to decode as ${spec.signed ? 'int64' : 'uint64'}`);
    }
    const b = spec.bounds;
    if (b && value < b.min) throw new RuleError(b.tooLow, `${spec.apiName} ${value} is below the minimum ${b.min}`);
    if (b && value > b.max) throw new RuleError(b.tooHigh, `${spec.apiName} ${value} is above the maximum ${b.max}`);
    next[spec.field] = value;
  }
  // The PoS size limits must fit the block size of the resulting entry (core's checks).
  const after = { ...CORE_GLOBAL_PARAM_DEFAULTS, ...next };
  if (values.get('SoftMaxBlockSizeBytesPoS')?.length && after.softMaxBlockSizeBytesPoS > after.maxBlockSizeBytesPoS) {
    throw new RuleError('RuleErrorSoftMaxBlockSizeBytesExceedsMaxBlockSizeBytes', `${after.softMaxBlockSizeBytesPoS} is above MaxBlockSizeBytesPoS ${after.maxBlockSizeBytesPoS}`);
  }
  if (values.get('MaxTxnSizeBytesPoS')?.length && after.maxTxnSizeBytesPoS > after.maxBlockSizeBytesPoS) {
    throw new RuleError('RuleErrorMaxTxnSizeBytesExceedsMaxBlockSizeBytes', `${after.maxTxnSizeBytesPoS} is above MaxBlockSizeBytesPoS ${after.maxBlockSizeBytesPoS}`);
  }
  return next;
}

async function connectUpdateGlobalParams(view: StateView, txn: TxnEnvelope, _info: unknown, ctx: ConnectContext): Promise<void> {
  decodeMetadata(txn.txnType, txn.metadata);
  if (!isParamUpdaterOf(ctx.rules, txn.publicKey)) {
    throw new RuleError('RuleErrorUserNotAuthorizedToUpdateGlobalParams', `${toHex(txn.publicKey)} is not a param updater of this chain`);
  }
  const stored = await getStoredGlobalParams(view);
  const next = applyGlobalParamsExtraData(stored, txn.extraData);
  const forbidden = txn.extraData.find(([k]) => utf8(k) === FORBIDDEN_BLOCK_SIGNATURE_PUBKEY_KEY)?.[1];
  if (forbidden !== undefined) {
    if (forbidden.length !== 33) throw new RuleError('RuleErrorForbiddenPubKeyLength', `${FORBIDDEN_BLOCK_SIGNATURE_PUBKEY_KEY} has ${forbidden.length} bytes, expected 33`);
    view.set(globalParamsKeys.forbiddenBlockSigner(forbidden), true);
  }
  if (Object.keys(next).length > 0) putStoredGlobalParams(view, next);
}

export const globalParamsHandlers: readonly HandlerEntry[] = [[TxnType.UPDATE_GLOBAL_PARAMS, connectUpdateGlobalParams]];
