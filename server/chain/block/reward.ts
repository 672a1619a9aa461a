/**
 * The PoW block reward schedule (reference node-api.md §5.7, core `CalcBlockRewardNanos`).
 *
 *   heights [0, 32060)                 1     DESO
 *   [32060, 32348)                     0.75  DESO   (the "deflation bomb" ramp: one 288-block day each)
 *   [32348, 32636)                     0.5   DESO
 *   [32636, 32924)                     0.25  DESO
 *   [32924, 33212)                     0.125 DESO
 *   [33212, 15 × 105120 = 1,576,800)   0.1   DESO
 *   [1,576,800, 32 × 105120 = 3,363,840) 0.05 DESO
 *   [3,363,840, ∞)                     0
 *   and 0 at every height >= params.posCutoverHeight when that is set.
 *
 * Boundaries checked against deso-protocol/core lib/supply.go (`MiningSupplyIntervals`,
 * `CalcBlockRewardNanos`; code search, facts only): BlocksPerDay = 12 × 24 = 288, BlocksPerYear =
 * 288 × 365 = 105,120, DeflationBombBlockRewardAdjustmentBlockHeight = 32060; each interval starts
 * at its StartBlockHeight inclusive, heights past the last interval pay 0, and height 0 pays the
 * first interval's 1 DESO. The stored core versions take only the height; the "0 at any PoS
 * height" rule of §5.7 (newer core passes params) is applied here through posCutoverHeight.
 * Core's heights are uint32; here a height is any non-negative bigint.
 * @module
 */
import { BlockError } from './errors.js';
import type { ChainParams } from './params.js';

export const NANOS_PER_DESO = 1_000_000_000n;
export const BLOCKS_PER_DAY = 288n;
export const BLOCKS_PER_YEAR = 365n * BLOCKS_PER_DAY;
export const DEFLATION_BOMB_HEIGHT = 32_060n;

export interface MiningInterval {
  readonly startHeight: bigint;
  readonly rewardNanos: bigint;
}

/** The schedule: each entry applies from startHeight (inclusive) until the next entry's start. */
export const MINING_SUPPLY_INTERVALS: readonly MiningInterval[] = Object.freeze([
  { startHeight: 0n, rewardNanos: NANOS_PER_DESO },
  { startHeight: DEFLATION_BOMB_HEIGHT, rewardNanos: (NANOS_PER_DESO * 3n) / 4n },
  { startHeight: DEFLATION_BOMB_HEIGHT + BLOCKS_PER_DAY, rewardNanos: NANOS_PER_DESO / 2n },
  { startHeight: DEFLATION_BOMB_HEIGHT + 2n * BLOCKS_PER_DAY, rewardNanos: NANOS_PER_DESO / 4n },
  { startHeight: DEFLATION_BOMB_HEIGHT + 3n * BLOCKS_PER_DAY, rewardNanos: NANOS_PER_DESO / 8n },
  { startHeight: DEFLATION_BOMB_HEIGHT + 4n * BLOCKS_PER_DAY, rewardNanos: NANOS_PER_DESO / 10n },
  { startHeight: 15n * BLOCKS_PER_YEAR, rewardNanos: NANOS_PER_DESO / 20n },
  { startHeight: 32n * BLOCKS_PER_YEAR, rewardNanos: 0n },
].map((i) => Object.freeze(i)));

/** The block reward in nanos for a block at `height` (fees not included). */
export function blockRewardNanos(height: bigint, params: Pick<ChainParams, 'posCutoverHeight'>): bigint {
  if (typeof height !== 'bigint' || height < 0n) {
    throw new BlockError('HEIGHT_RANGE', `height expected a non-negative bigint, got ${String(height)}`);
  }
  const cutover = params.posCutoverHeight;
  if (cutover !== null && cutover !== undefined && height >= cutover) return 0n;
  let reward = 0n;
  for (const interval of MINING_SUPPLY_INTERVALS) {
    if (interval.startHeight > height) break;
    reward = interval.rewardNanos;
  }
  return reward;
}
