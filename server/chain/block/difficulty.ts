/**
 * Difficulty retargeting (reference node-api.md §5.7): the target of the block after `tip`.
 *
 *   bpr = floor(window / blockTime)                    (blocks per retarget; dev 3, mainnet 288)
 *   tip.height <= bpr                  ⇒ min target     (the first window is skipped)
 *   tip.height % bpr != 0              ⇒ tip.target     (the parent's target, unchanged)
 *   otherwise (a retarget point)       ⇒ min(min target,
 *        floor(tip.target × clamp(actual, floor(T / f), T × f) / T))
 *   where T = window secs, f = max retarget factor, and
 *   actual = tip.tstampSecs − tstampSecs(ancestor at tip.height − bpr)
 *
 * Checked against deso-protocol/core lib/blockchain.go `CalcNextDifficultyTarget` (code search;
 * facts only) and its tests in lib/blockchain_test.go (`TestCalcNextDifficultyTarget*`, whose
 * expected sequences test/unit/chain.block.test.ts replays). Details §5.7 leaves open, all
 * following core:
 *   - "parent's target" is the target the tip itself was mined against (core
 *     `lastNode.DifficultyTarget`), i.e. `tip.target` here;
 *   - the lower clamp is the integer floor(T / f) (core: int64 division), the product is
 *     divided last with floor division (core big.Int Div on non-negative values);
 *   - a tip older than its window start (actual < 0: timestamps only need to exceed the parent's
 *     over one block, not over a window) clamps to floor(T / f) like any fast window — core gets
 *     there through int64 wrap-around;
 *   - the cap compares values: the result is never numerically greater (easier) than the min target;
 *   - not in core: with `params.hardestTargetHex` set (the dev chain), never smaller (harder) than it;
 *   - a tip with no parent (core: nil lastNode) does not arise here: the genesis tip has height 0,
 *     which is <= bpr and so gets the min target.
 * Heights and timestamps here are bigint, so nothing wraps at 2^32 as core's uint32 heights would.
 * @module
 */
import { BlockError } from './errors.js';
import { blocksPerRetarget, minDifficultyTarget, type ChainParams } from './params.js';

const TARGET_BYTES = 32;
const TWO_256 = 1n << 256n;

/** What the retarget rule needs of the current tip. */
export interface TargetTip {
  height: bigint;
  /** The 32-byte big-endian target the tip was mined against. */
  target: Uint8Array;
  tstampSecs: bigint;
}

/** Looks up the TstampSecs of the main-chain ancestor of the tip at `height`. */
export type AncestorTstamp = (height: bigint) => bigint | Promise<bigint>;

/** A 32-byte big-endian target as a bigint. TARGET when not 32 bytes. */
export function targetToBigint(target: Uint8Array): bigint {
  if (!(target instanceof Uint8Array) || target.length !== TARGET_BYTES) {
    const got = target instanceof Uint8Array ? `${target.length} bytes` : typeof target;
    throw new BlockError('TARGET', `target expected ${TARGET_BYTES} bytes, got ${got}`);
  }
  let n = 0n;
  for (const b of target) n = (n << 8n) | BigInt(b);
  return n;
}

/** A bigint in [0, 2^256) as 32 big-endian bytes. TARGET otherwise. */
export function bigintToTarget(n: bigint): Uint8Array {
  if (typeof n !== 'bigint' || n < 0n || n >= TWO_256) {
    throw new BlockError('TARGET', `target value expected a bigint in [0, 2^256), got ${String(n)}`);
  }
  const out = new Uint8Array(TARGET_BYTES);
  let v = n;
  for (let i = TARGET_BYTES - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/**
 * Expected number of hashes to meet `target`: floor(2^256 / (target + 1)), since a uniform
 * 256-bit hash is <= target with probability (target + 1) / 2^256. (Core's
 * `ExpectedWorkForBlockHash` uses the same formula with its max hash.) Dev/testnet min target:
 * 455; mainnet min target: 8,388,672.
 */
export function expectedHashes(target: Uint8Array): bigint {
  return TWO_256 / (targetToBigint(target) + 1n);
}

/**
 * The retarget step on its own: floor(parentTarget × clamp(actualSecs, floor(T/f), T·f) / T),
 * capped at the min target (and at the hardest target, when the params have one). `actualSecs`
 * may be negative (clamped like any fast window).
 */
export function retarget(params: ChainParams, parentTarget: Uint8Array, actualSecs: bigint): Uint8Array {
  if (typeof actualSecs !== 'bigint') {
    throw new BlockError('TARGET', `actualSecs expected a bigint, got ${typeof actualSecs}`);
  }
  const min = targetToBigint(minDifficultyTarget(params));
  const parent = targetToBigint(parentTarget);
  const window = params.timeBetweenDifficultyRetargetsSecs;
  const f = params.maxDifficultyRetargetFactor;
  const lo = window / f;
  const hi = window * f;
  const clipped = actualSecs < lo ? lo : actualSecs > hi ? hi : actualSecs;
  const next = (parent * clipped) / window;
  const hardest = params.hardestTargetHex ? BigInt(`0x${params.hardestTargetHex}`) : 0n;
  return bigintToTarget(next > min ? min : next < hardest ? hardest : next);
}

/** What the rule decides before any ancestor lookup. */
type Plan = { target: Uint8Array } | { ancestorHeight: bigint };

function plan(params: ChainParams, tip: TargetTip): Plan {
  const bpr = blocksPerRetarget(params);
  if (typeof tip.height !== 'bigint' || tip.height < 0n) {
    throw new BlockError('HEIGHT_RANGE', `tip height expected a non-negative bigint, got ${String(tip.height)}`);
  }
  if (typeof tip.tstampSecs !== 'bigint') {
    throw new BlockError('TARGET', `tip tstampSecs expected a bigint, got ${typeof tip.tstampSecs}`);
  }
  targetToBigint(tip.target); // length check
  if (tip.height <= bpr) return { target: minDifficultyTarget(params) };
  if (tip.height % bpr !== 0n) return { target: Uint8Array.from(tip.target) };
  return { ancestorHeight: tip.height - bpr };
}

function finish(params: ChainParams, tip: TargetTip, ancestorTstamp: bigint): Uint8Array {
  if (typeof ancestorTstamp !== 'bigint') {
    throw new BlockError('TARGET', `ancestor tstampSecs expected a bigint, got ${typeof ancestorTstamp}`);
  }
  return retarget(params, tip.target, tip.tstampSecs - ancestorTstamp);
}

/**
 * The 32-byte target of the block after `tip` (§5.7). `getAncestorTstamp` is called at most
 * once, only at a retarget point, with `tip.height − blocksPerRetarget`; it may be async.
 * The result is always a fresh array.
 */
export async function nextTarget(params: ChainParams, tip: TargetTip, getAncestorTstamp: AncestorTstamp): Promise<Uint8Array> {
  const p = plan(params, tip);
  if ('target' in p) return p.target;
  return finish(params, tip, await getAncestorTstamp(p.ancestorHeight));
}

/** nextTarget for a synchronous ancestor lookup (tests, in-memory chains). */
export function nextTargetSync(params: ChainParams, tip: TargetTip, getAncestorTstamp: (height: bigint) => bigint): Uint8Array {
  const p = plan(params, tip);
  if ('target' in p) return p.target;
  return finish(params, tip, getAncestorTstamp(p.ancestorHeight));
}
