/**
 * Global params in chain state (core's GlobalParamsEntry, written by UPDATE_GLOBAL_PARAMS):
 * the values param updaters have set on chain, over defaults. Only the fields set on chain are
 * stored, so a field never set keeps following its default: before any update the chain
 * behaves exactly as the node is configured (`--create-profile-fee-nanos`, the chain
 * parameters' fee floor and nonce window), and afterwards the chain's value wins.
 *
 * Defaults of the fields this node has no other source for are core's: InitialGlobalParamsEntry
 * (0 for the exchange rate, NFT fee and copies) and DeSoTestnetParams' `Default…` values for the
 * proof-of-stake and mempool fields (read from deso-protocol/core lib/constants.go). This chain
 * stays proof of work, so those fields are recorded and served but steer nothing.
 * @module
 */
import { toHex } from '../../hex.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

export const globalParamsKeys = {
  /** StoredGlobalParams: the fields set on chain. */
  params: 'chain:global-params',
  /** `true` for a key named by ForbiddenBlockSignaturePubKey (PoS block signers; no effect on this PoW chain). */
  forbiddenBlockSigner: (pk33: Uint8Array): string => `chain:forbidden-block-signer:${toHex(pk33)}`,
};

/** Every global param, by this node's field name. */
export const GLOBAL_PARAM_FIELDS = [
  'usdCentsPerBitcoin',
  'minimumNetworkFeeNanosPerKB',
  'createProfileFeeNanos',
  'createNFTFeeNanos',
  'maxCopiesPerNFT',
  'maxNonceExpirationBlockHeightOffset',
  'stakeLockupEpochDuration',
  'validatorJailEpochDuration',
  'leaderScheduleMaxNumValidators',
  'validatorSetMaxNumValidators',
  'stakingRewardsMaxNumStakes',
  'stakingRewardsAPYBasisPoints',
  'epochDurationNumBlocks',
  'jailInactiveValidatorGracePeriodEpochs',
  'maximumVestedIntersectionsPerLockupTransaction',
  'feeBucketGrowthRateBasisPoints',
  'blockTimestampDriftNanoSecs',
  'mempoolMaxSizeBytes',
  'mempoolFeeEstimatorNumMempoolBlocks',
  'mempoolFeeEstimatorNumPastBlocks',
  'maxBlockSizeBytesPoS',
  'softMaxBlockSizeBytesPoS',
  'maxTxnSizeBytesPoS',
  'blockProductionIntervalMillisecondsPoS',
  'timeoutIntervalMillisecondsPoS',
] as const;

export type GlobalParamField = (typeof GLOBAL_PARAM_FIELDS)[number];
/** The params in effect (every field has a value). Two fields are signed in core (int). */
export type GlobalParams = Record<GlobalParamField, bigint>;
/** What the chain holds: only the fields some UPDATE_GLOBAL_PARAMS set. */
export type StoredGlobalParams = Partial<GlobalParams>;

/** Core's defaults for the fields the node configuration does not provide. */
export const CORE_GLOBAL_PARAM_DEFAULTS: Readonly<GlobalParams> = Object.freeze({
  usdCentsPerBitcoin: 0n,
  minimumNetworkFeeNanosPerKB: 0n,
  createProfileFeeNanos: 0n,
  createNFTFeeNanos: 0n,
  maxCopiesPerNFT: 0n,
  maxNonceExpirationBlockHeightOffset: 0n,
  stakeLockupEpochDuration: 3n,
  validatorJailEpochDuration: 3n,
  leaderScheduleMaxNumValidators: 100n,
  validatorSetMaxNumValidators: 1000n,
  stakingRewardsMaxNumStakes: 10_000n,
  stakingRewardsAPYBasisPoints: 0n,
  epochDurationNumBlocks: 144n,
  jailInactiveValidatorGracePeriodEpochs: 48n,
  maximumVestedIntersectionsPerLockupTransaction: 1000n,
  feeBucketGrowthRateBasisPoints: 1000n,
  blockTimestampDriftNanoSecs: 600_000_000_000n,
  mempoolMaxSizeBytes: 3n * 1024n * 1024n * 1024n,
  mempoolFeeEstimatorNumMempoolBlocks: 1n,
  mempoolFeeEstimatorNumPastBlocks: 50n,
  maxBlockSizeBytesPoS: 32_000n,
  softMaxBlockSizeBytesPoS: 16_000n,
  maxTxnSizeBytesPoS: 25_000n,
  blockProductionIntervalMillisecondsPoS: 1500n,
  timeoutIntervalMillisecondsPoS: 30_000n,
});

/** The node settings that stand in for global params until the chain sets them (a slice of ConnectRules). */
export interface GlobalParamsNodeDefaults {
  createProfileFeeNanos: bigint;
  minNetworkFeeNanosPerKB: bigint;
  maxNonceExpirationBlockHeightOffset: bigint;
}

export function globalParamsDefaults(node: GlobalParamsNodeDefaults): GlobalParams {
  return {
    ...CORE_GLOBAL_PARAM_DEFAULTS,
    createProfileFeeNanos: node.createProfileFeeNanos,
    minimumNetworkFeeNanosPerKB: node.minNetworkFeeNanosPerKB,
    maxNonceExpirationBlockHeightOffset: node.maxNonceExpirationBlockHeightOffset,
  };
}

/** The fields set on chain (empty before any UPDATE_GLOBAL_PARAMS). */
export async function getStoredGlobalParams(state: StateReader): Promise<StoredGlobalParams> {
  return (await state.get<StoredGlobalParams>(globalParamsKeys.params)) ?? {};
}

/**
 * The params in effect: the chain's values over `defaults`. A MaxNonceExpirationBlockHeightOffset
 * of 0 means "no limit" in core; this node keeps its own limit then (an unbounded nonce window
 * would let a signed transaction wait forever).
 */
export function effectiveGlobalParams(stored: StoredGlobalParams, defaults: GlobalParams): GlobalParams {
  const out = { ...defaults, ...stored };
  if (out.maxNonceExpirationBlockHeightOffset === 0n) out.maxNonceExpirationBlockHeightOffset = defaults.maxNonceExpirationBlockHeightOffset;
  return out;
}

export async function getGlobalParams(state: StateReader, defaults: GlobalParams): Promise<GlobalParams> {
  return effectiveGlobalParams(await getStoredGlobalParams(state), defaults);
}

/** Replaces the stored fields (a new object: views hand out shared records). */
export function putStoredGlobalParams(view: StateView, stored: StoredGlobalParams): void {
  view.set(globalParamsKeys.params, { ...stored });
}
