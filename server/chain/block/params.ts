/**
 * Chain parameters (reference node-api.md §5.7) for the proof-of-work dev chain, plus the
 * mainnet and testnet numbers for reference and for tests of the difficulty and reward rules.
 *
 * Numbers checked against deso-protocol/core lib/constants.go (`DeSoMainnetParams`,
 * `DeSoTestnetParams`, `EnableRegtest`, `MainnetForkHeights`, `TestnetForkHeights`) and
 * lib/network.go (`MaxBlockRewardDataSizeBytes`) with the code search:
 *
 * | field                              | mainnet        | testnet      | regtest (testnet + EnableRegtest) |
 * |------------------------------------|----------------|--------------|-----------------------------------|
 * | TimeBetweenBlocks                  | 5 min          | 1 min        | 2 s                               |
 * | TimeBetweenDifficultyRetargets     | 24 h (288 blk) | 3 min (3)    | 6 s (3)                           |
 * | MaxDifficultyRetargetFactor        | 4              | 2            | 2                                 |
 * | MinDifficultyTargetHex             | 000001FFFF00…  | 0090000000…  | 0090000000…                       |
 * | BlockRewardMaturity                | 3 h            | 5 min        | 0                                 |
 * | MaxTstampOffsetSeconds             | 7200           | 7200         | 7200                              |
 * | MaxBlockSizeBytes (PoW)            | 16,000,000     | 1,000,000    | 1,000,000                         |
 * | MinerMaxBlockSizeBytes             | 2,000,000      | 1,000,000    | 1,000,000                         |
 * | BalanceModelBlockHeight            | 226,839        | 683,058      | 1                                 |
 * | ProofOfStake2ConsensusCutover      | (not set here) | (not set)    | 300 (30 accelerated)              |
 *
 * MaxBlockRewardDataSizeBytes is 250 on every network. Core's genesis block (shared by mainnet
 * and testnet) has TstampSecs 1610948544.
 * @module
 */
import { BlockError } from './errors.js';

export interface ChainParams {
  /** A label for logs. */
  readonly name: string;
  /** Target time between blocks, seconds (core TimeBetweenBlocks). */
  readonly timeBetweenBlocksSecs: bigint;
  /** Length of a difficulty window, seconds (core TimeBetweenDifficultyRetargets). */
  readonly timeBetweenDifficultyRetargetsSecs: bigint;
  /** A retarget moves the target by at most this factor either way (core MaxDifficultyRetargetFactor). */
  readonly maxDifficultyRetargetFactor: bigint;
  /** The easiest allowed target, 64 hex chars (32 bytes big-endian); also the genesis target. */
  readonly minDifficultyTargetHex: string;
  /** Seconds before a block reward may be spent (core BlockRewardMaturity; in blocks: this / timeBetweenBlocksSecs). */
  readonly blockRewardMaturitySecs: bigint;
  /** First height at which transactions use the balance model (v1, nonces, no UTXO inputs). */
  readonly balanceModelHeight: bigint;
  /** First proof-of-stake height: from here on the PoW block reward is 0. Null: never (the chain stays PoW). */
  readonly posCutoverHeight: bigint | null;
  /**
   * Largest allowed `nonce.ExpirationBlockHeight − height` for a txn mined at `height`, and the
   * offset the transaction constructors use (`tip + 1 + offset − 10`, node-api.md §4.1).
   * Core's initial global params leave MaxNonceExpirationBlockHeightOffset at 0, which means
   * "no upper check" in core's validator; the constructors then fall back to 86400. This node
   * uses 86400 for both, so every txn its constructors build is valid and an absurd expiration is
   * still refused. (Core's constant DefaultMaxNonceExpirationBlockHeightOffset = 288 is only
   * used by some tooling, not by consensus.)
   */
  readonly maxNonceExpirationBlockHeightOffset: bigint;
  /** Fee floor in nanos per KB (global param MinimumNetworkFeeNanosPerKB; core's initial value is 0). */
  readonly minNetworkFeeNanosPerKB: bigint;
  /** Largest block accepted, bytes (core MaxBlockSizeBytesPoW). */
  readonly maxBlockSizeBytes: number;
  /** Largest block template the producer builds, bytes (core MinerMaxBlockSizeBytes). */
  readonly minerMaxBlockSizeBytes: number;
  /**
   * Most bytes of transactions the mempool holds; an admission past it is refused
   * (RuleErrorMempoolFull) until a block makes room. Node policy, not consensus.
   */
  readonly mempoolMaxSizeBytes: number;
  /** Largest ExtraData of a block-reward txn, bytes (core MaxBlockRewardDataSizeBytes). */
  readonly maxBlockRewardExtraDataBytes: number;
  /** A block's TstampSecs may be at most this far past the node's clock (core MaxTstampOffsetSeconds). */
  readonly maxTimestampFutureSecs: bigint;
  /**
   * How far a block's TstampSecs must be past its parent's: 1 in core (strictly later), 0 on the
   * dev chain (not in core; at or after the parent's). Timestamps are whole seconds, so with 1 a
   * chain that mines several blocks a second runs ahead of the clock by a second per extra block
   * until it reaches maxTimestampFutureSecs, and from then on may mine one block a second: the
   * dev chain's built-in miner makes ~7 blocks a second under 2,000 writes a second (~20 minutes
   * to the limit; a 100k-profile bench node reached it within an hour of writes), and its blocks
   * then grew to ~2,000 transactions with commits of up to 200 ms. With 0, blocks of one second
   * share it and the chain's time stays the clock's.
   */
  readonly minSecsAfterParent: bigint;
  /**
   * The hardest target retargeting may reach, or null for none (core has none). The dev chain
   * sets one so a burst of instant blocks (the built-in miner mines within ~100 ms of a
   * transaction) can never push the work past what a CPU does in well under a second.
   */
  readonly hardestTargetHex: string | null;
  /** TstampSecs of the genesis block this node creates. */
  readonly genesisTstampSecs: bigint;
}

/** Core's genesis header timestamp (2021-01-18T05:42:24Z). */
export const DESO_GENESIS_TSTAMP_SECS = 1_610_948_544n;

/**
 * The dev chain's hardest target: 16× the min target's work, ~7,300 hashes (a few ms of WASM).
 * Under a stream of writes the dev chain sits at this cap, so it decides how often the built-in
 * miner can close a block. At 256× (~116,000 hashes) blocks came ~3.5 a second with ~600
 * transactions each, and a block that size holds admissions up for its whole commit (p99
 * submit-to-visible 42-62 ms at ~2,600 writes a second, 3,000-profile probe); at 16× blocks are
 * paced by the miner's spacing instead (~10 a second, ~250 transactions, p99 33-37 ms), and the
 * proof of work costs a sixteenth of the CPU it did.
 */
export const DEV_HARDEST_TARGET_HEX = '0009000000000000000000000000000000000000000000000000000000000000';

/** Testnet / regtest min target. */
export const TESTNET_MIN_TARGET_HEX = '0090000000000000000000000000000000000000000000000000000000000000';
/** Mainnet min target. */
export const MAINNET_MIN_TARGET_HEX = '000001ffff000000000000000000000000000000000000000000000000000000';

/**
 * The dev chain: regtest-like (testnet + EnableRegtest). 2 s blocks, 6 s windows ⇒ 3 blocks
 * per retarget, factor 2, rewards spendable at once, balance model from height 1, all other
 * forks from 0. Min target 0x0090…00: a hash meets it with probability (0x90·2^240 + 1)/2^256
 * ≈ 144/65536, i.e. about 455 hashes per block on average (`expectedHashes` in difficulty.ts),
 * well under a millisecond with the WASM miner at ~0.5 µs per hash, so dev blocks are paced by
 * whoever submits them rather than by work. Because retargets are clamped at this min target,
 * blocks that come slower than 2 s never make mining easier than that; and because they are
 * clamped at `hardestTargetHex` too, blocks that come much faster never make it harder than
 * ~7,300 hashes. A block may share its parent's second (minSecsAfterParent 0): the built-in
 * miner closes many blocks a second, and with core's step of 1 s their timestamps ran ahead of
 * the clock into maxTimestampFutureSecs.
 *
 * Unlike regtest (PoS cutover at 300), the dev chain never cuts over: posCutoverHeight is null,
 * so every PoW block pays 1 DESO + fees until the §5.7 schedule says otherwise. Set it to 300n to
 * reproduce regtest's zero rewards from height 300.
 */
export const DEV_CHAIN_PARAMS: ChainParams = Object.freeze({
  name: 'dev',
  timeBetweenBlocksSecs: 2n,
  timeBetweenDifficultyRetargetsSecs: 6n,
  maxDifficultyRetargetFactor: 2n,
  minDifficultyTargetHex: TESTNET_MIN_TARGET_HEX,
  blockRewardMaturitySecs: 0n,
  balanceModelHeight: 1n,
  posCutoverHeight: null,
  maxNonceExpirationBlockHeightOffset: 86_400n,
  minNetworkFeeNanosPerKB: 0n,
  maxBlockSizeBytes: 1_000_000,
  minerMaxBlockSizeBytes: 1_000_000,
  mempoolMaxSizeBytes: 10_000_000,
  maxBlockRewardExtraDataBytes: 250,
  maxTimestampFutureSecs: 7_200n,
  minSecsAfterParent: 0n,
  hardestTargetHex: DEV_HARDEST_TARGET_HEX,
  genesisTstampSecs: DESO_GENESIS_TSTAMP_SECS,
});

/** Mainnet numbers (reference only: this node does not join mainnet). */
export const MAINNET_PARAMS: ChainParams = Object.freeze({
  name: 'mainnet',
  timeBetweenBlocksSecs: 300n,
  timeBetweenDifficultyRetargetsSecs: 86_400n,
  maxDifficultyRetargetFactor: 4n,
  minDifficultyTargetHex: MAINNET_MIN_TARGET_HEX,
  blockRewardMaturitySecs: 3n * 3600n,
  balanceModelHeight: 226_839n,
  posCutoverHeight: null,
  maxNonceExpirationBlockHeightOffset: 86_400n,
  minNetworkFeeNanosPerKB: 0n,
  maxBlockSizeBytes: 16_000_000,
  minerMaxBlockSizeBytes: 2_000_000,
  mempoolMaxSizeBytes: 250_000_000,
  maxBlockRewardExtraDataBytes: 250,
  maxTimestampFutureSecs: 7_200n,
  minSecsAfterParent: 1n,
  hardestTargetHex: null,
  genesisTstampSecs: DESO_GENESIS_TSTAMP_SECS,
});

/** Testnet numbers (reference only). */
export const TESTNET_PARAMS: ChainParams = Object.freeze({
  name: 'testnet',
  timeBetweenBlocksSecs: 60n,
  timeBetweenDifficultyRetargetsSecs: 180n,
  maxDifficultyRetargetFactor: 2n,
  minDifficultyTargetHex: TESTNET_MIN_TARGET_HEX,
  blockRewardMaturitySecs: 300n,
  balanceModelHeight: 683_058n,
  posCutoverHeight: null,
  maxNonceExpirationBlockHeightOffset: 86_400n,
  minNetworkFeeNanosPerKB: 0n,
  maxBlockSizeBytes: 1_000_000,
  minerMaxBlockSizeBytes: 1_000_000,
  mempoolMaxSizeBytes: 250_000_000,
  maxBlockRewardExtraDataBytes: 250,
  maxTimestampFutureSecs: 7_200n,
  minSecsAfterParent: 1n,
  hardestTargetHex: null,
  genesisTstampSecs: DESO_GENESIS_TSTAMP_SECS,
});

/**
 * What `--network` selects of the dev chain this node runs (its difficulty, rewards and forks
 * stay the dev chain's on both): the fee floor and the mempool byte limit.
 *
 * - Fee floor: mainnet takes the reference node's default minimum fee rate (core's
 *   `--min_fee_rate_nanos_per_kb`, 1000 nanos/KB), so a public node never admits free
 *   transactions; testnet keeps the dev chain's 0 (core's initial global param).
 * - Mempool: core's legacy mempool holds up to 250 MB (MaxTotalTransactionSizeBytes) in
 *   memory; this node keeps its mempool in the store and replays it on every change, so it
 *   defaults to 10 MB (ten 1 MB blocks) on both networks. Never unbounded.
 *
 * Both are overridable (--min-fee-rate-nanos-per-kb, --mempool-max-size-bytes); every process
 * of one chain must agree on the fee floor (blocks are checked against it).
 */
export const NETWORK_POLICY: Readonly<Record<'testnet' | 'mainnet', { minNetworkFeeNanosPerKB: bigint; mempoolMaxSizeBytes: number }>> = Object.freeze({
  testnet: { minNetworkFeeNanosPerKB: 0n, mempoolMaxSizeBytes: 10_000_000 },
  mainnet: { minNetworkFeeNanosPerKB: 1000n, mempoolMaxSizeBytes: 10_000_000 },
});

/** The dev chain's parameters with the network's policy (NETWORK_POLICY), and any override. */
export function devChainParams(
  network: 'testnet' | 'mainnet',
  overrides: { minNetworkFeeNanosPerKB?: bigint | undefined; mempoolMaxSizeBytes?: number | undefined } = {},
): ChainParams {
  const policy = NETWORK_POLICY[network];
  return Object.freeze({
    ...DEV_CHAIN_PARAMS,
    minNetworkFeeNanosPerKB: overrides.minNetworkFeeNanosPerKB ?? policy.minNetworkFeeNanosPerKB,
    mempoolMaxSizeBytes: overrides.mempoolMaxSizeBytes ?? policy.mempoolMaxSizeBytes,
  });
}

/**
 * Seconds a block timestamp is past the latest one a block may carry at the clock `nowMs`
 * (maxTimestampFutureSecs past it); 0 when it is within that.
 */
export function secondsPastFutureLimit(params: ChainParams, tstampSecs: bigint, nowMs: number): bigint {
  const latest = BigInt(Math.floor(nowMs / 1000)) + params.maxTimestampFutureSecs;
  return tstampSecs > latest ? tstampSecs - latest : 0n;
}

const TARGET_HEX = /^[0-9a-fA-F]{64}$/;

/** Throws PARAMS when the difficulty numbers cannot work (checked where they are used). */
export function checkDifficultyParams(params: ChainParams): void {
  const { timeBetweenBlocksSecs: tbb, timeBetweenDifficultyRetargetsSecs: window, maxDifficultyRetargetFactor: f } = params;
  if (typeof tbb !== 'bigint' || tbb <= 0n) {
    throw new BlockError('PARAMS', `timeBetweenBlocksSecs expected a positive bigint, got ${String(tbb)}`);
  }
  if (typeof window !== 'bigint' || window < tbb) {
    throw new BlockError('PARAMS', `timeBetweenDifficultyRetargetsSecs expected a bigint >= timeBetweenBlocksSecs, got ${String(window)}`);
  }
  if (typeof f !== 'bigint' || f < 1n) {
    throw new BlockError('PARAMS', `maxDifficultyRetargetFactor expected a bigint >= 1, got ${String(f)}`);
  }
  if (typeof params.minDifficultyTargetHex !== 'string' || !TARGET_HEX.test(params.minDifficultyTargetHex)) {
    throw new BlockError('PARAMS', `minDifficultyTargetHex expected 64 hex chars, got ${String(params.minDifficultyTargetHex)}`);
  }
  const hardest = params.hardestTargetHex ?? null;
  if (hardest !== null && (typeof hardest !== 'string' || !TARGET_HEX.test(hardest) || BigInt(`0x${hardest}`) > BigInt(`0x${params.minDifficultyTargetHex}`))) {
    throw new BlockError('PARAMS', `hardestTargetHex expected null or 64 hex chars no easier than the min target, got ${String(hardest)}`);
  }
}

/** Blocks per difficulty window: floor(window / block time), as core computes it (dev: 3, mainnet: 288). */
export function blocksPerRetarget(params: ChainParams): bigint {
  checkDifficultyParams(params);
  return params.timeBetweenDifficultyRetargetsSecs / params.timeBetweenBlocksSecs;
}

/** Block-reward maturity in blocks: floor(maturity / block time) (dev: 0, mainnet: 36, testnet: 5). */
export function blockRewardMaturityBlocks(params: ChainParams): bigint {
  checkDifficultyParams(params);
  return params.blockRewardMaturitySecs / params.timeBetweenBlocksSecs;
}

/** The min-difficulty target as 32 fresh bytes. */
export function minDifficultyTarget(params: ChainParams): Uint8Array {
  checkDifficultyParams(params);
  return new Uint8Array(Buffer.from(params.minDifficultyTargetHex, 'hex'));
}
