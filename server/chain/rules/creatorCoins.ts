/**
 * Rules of CREATOR_COIN buy and sell, as core's `HelpConnectCreatorCoinBuy/Sell` with every
 * fork active (regtest): a 1-basis-point trade fee burned, the founder reward paid in native
 * coin on buys by others, the polynomial curve for a coin's first mint and the Bancor curve
 * after it, the auto-sell threshold, and the buyer's/seller's minimum-output checks. And
 * CREATOR_COIN_TRANSFER, as core's `HelpConnectCoinTransfer` for creator coins.
 *
 * The curve must give core's answers to the nano. Core computes it with big.Float at 53 bits,
 * round-to-nearest-even, and its own log/exp (lib/deso_math.go): every such operation on 53-bit
 * inputs is exactly an IEEE double operation, so JavaScript numbers reproduce it. The one
 * wider step is `Pow`'s exponent `w·log z`, kept exact at 117 bits; the two operations that
 * consume it are rounded here from the exact product with bigint arithmetic.
 * @module
 */
import { toHex } from '../../hex.js';
import { isValidCompressedPoint } from '../../keys/index.js';
import { getBalance, setBalance } from '../state/balances.js';
import { deleteHolding, getHolding, putHolding, type HoldingRecord } from '../state/creatorCoins.js';
import { getProfile, putProfile, type ProfileRecord } from '../state/profiles.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { CreatorCoinOperation, decodeMetadata, TxnType, type CreatorCoinMetadata, type CreatorCoinTransferMetadata } from '../txn/metadata.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';

/** Core's creator-coin parameters (same on mainnet, testnet and regtest). */
export const CREATOR_COIN_PARAMS = {
  tradeFeeBasisPoints: 1n,
  slope: 0.003,
  reserveRatio: 0.3333333,
  /** Buys must mint at least this; a sell leaving less than this sells everything. */
  autoSellThresholdNanos: 10n,
} as const;

// --- core's big.Float(53) math ------------------------------------------------------------

const NANOS_PER_UNIT = 1e9;
const U64_MAX = (1n << 64n) - 1n;

/** x = m·2^e exactly (finite x). */
function exact(x: number): { m: bigint; e: number } {
  if (x === 0) return { m: 0n, e: 0 };
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const hi = dv.getUint32(0);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(dv.getUint32(4));
  let e = -1074;
  if (biased !== 0) {
    m |= 1n << 52n;
    e = biased - 1075;
  }
  return { m: hi >>> 31 ? -m : m, e };
}

const bitLength = (v: bigint): number => (v === 0n ? 0 : v.toString(2).length);

/** m·2^e rounded to 53 bits, ties to even (big.Float's ToNearestEven at FloatPrecision 53). */
function round53(m: bigint, e: number): number {
  if (m === 0n) return 0;
  let a = m < 0n ? -m : m;
  const shift = bitLength(a) - 53;
  if (shift > 0) {
    const rest = a & ((1n << BigInt(shift)) - 1n);
    const half = 1n << BigInt(shift - 1);
    a >>= BigInt(shift);
    if (rest > half || (rest === half && (a & 1n) === 1n)) a += 1n;
    e += shift;
  }
  const r = ldexp(Number(a), e);
  return m < 0n ? -r : r;
}

/** y·2^k without intermediate overflow (big.Float SetMantExp). */
function ldexp(y: number, k: number): number {
  let r = y;
  for (; k > 1000; k -= 1000) r *= 2 ** 1000;
  for (; k < -1000; k += 1000) r *= 2 ** -1000;
  return r * 2 ** k;
}

/** Mantissa in [0.5, 1) and exponent (big.Float MantExp). */
function mantExp(x: number): [number, number] {
  const { m, e } = exact(x);
  const n = bitLength(m);
  return [Number(m) / 2 ** n, e + n];
}

const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
const LOG2E = 1.44269504088896338700e0;
const SQRT2_OVER_2 = 1.41421356237309504880168872420969807856967187537694807317667974 / 2;
const [L1, L2, L3, L4, L5, L6, L7] = [
  6.666666666666735130e-1, 3.999999999940941908e-1, 2.857142874366239149e-1, 2.222219843214978396e-1, 1.818357216161805012e-1, 1.531383769920937332e-1,
  1.479819860511658591e-1,
];
const [P1, P2, P3, P4, P5] = [1.66666666666666657415e-1, -2.77777777770155933842e-3, 6.61375632143793436117e-5, -1.65339022054652515390e-6, 4.13813679705723846039e-8];

/** Core's BigFloatLog (x > 0). */
function bigFloatLog(x: number): number {
  let [f1, ki] = mantExp(x);
  if (f1 < SQRT2_OVER_2) {
    f1 *= 2;
    ki--;
  }
  const f = f1 - 1;
  const k = ki;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
  const t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
  const R = t1 + t2;
  const hfsq = 0.5 * (f * f);
  return k * LN2_HI - ((hfsq - (s * (hfsq + R) + k * LN2_LO)) - f);
}

/** Core's BigFloatExp of z = w·logZ, where z is the exact (117-bit) product. */
function bigFloatExpOfProduct(w: number, logZ: number): number {
  const a = exact(w);
  const b = exact(logZ);
  const zm = a.m * b.m;
  const ze = a.e + b.e;
  const l2e = exact(LOG2E);
  const scaled = round53(l2e.m * zm, l2e.e + ze);
  const k = zm < 0n ? Math.trunc(scaled - 0.5) : zm > 0n ? Math.trunc(scaled + 0.5) : 0;
  const kHi = exact(k * LN2_HI);
  const e = Math.min(ze, kHi.e);
  const hi = round53((zm << BigInt(ze - e)) - (kHi.m << BigInt(kHi.e - e)), e);
  const lo = k * LN2_LO;
  const r = hi - lo;
  const t = r * r;
  const c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  const y = 1 - ((lo - (r * c) / (2 - c)) - hi);
  return ldexp(y, k);
}

/** Core's BigFloatPow for z ≥ 0, w ≥ 0 (the curve's only uses). */
function bigFloatPow(z: number, w: number): number {
  if (z < 0 || w < 0) throw new RangeError(`pow(${z}, ${w}): negative argument`);
  if (z === 0) return 0;
  if (w === 0) return 1;
  if (w === 1) return z;
  return bigFloatExpOfProduct(w, bigFloatLog(z));
}

/** big.Float.Uint64(): truncated toward zero, clamped to [0, 2^64-1]. */
function toUint64(x: number): bigint {
  if (!(x > 0)) return 0n;
  if (x >= 2 ** 64) return U64_MAX;
  return BigInt(Math.trunc(x));
}

const units = (nanos: bigint): number => Number(nanos) / NANOS_PER_UNIT;

/** Coins minted for `nanos` native (after fee and founder reward) on a coin at (supply, locked). */
export function creatorCoinToMint(nanos: bigint, supplyNanos: bigint, lockedNanos: bigint): bigint {
  const { slope, reserveRatio: rr } = CREATOR_COIN_PARAMS;
  const d = units(nanos);
  const s = units(supplyNanos);
  if (lockedNanos === 0n) {
    // First mint: the polynomial curve ((dB + m·RR·s^(1/RR)) / (m·RR))^RR − s.
    const ret = bigFloatPow((d + slope * (rr * bigFloatPow(s, 1 / rr))) / (slope * rr), rr) - s;
    return toUint64(ret * NANOS_PER_UNIT);
  }
  // Bancor: S0·((1 + dB/B0)^RR − 1).
  const b = units(lockedNanos);
  return toUint64(s * (bigFloatPow(1 + d / b, rr) - 1) * NANOS_PER_UNIT);
}

/** Native nanos (before the trade fee) returned for selling `coins` of a coin at (supply, locked). */
export function nativeToReturn(coinNanos: bigint, supplyNanos: bigint, lockedNanos: bigint): bigint {
  const rr = CREATOR_COIN_PARAMS.reserveRatio;
  // Bancor: B0·(1 − (1 − dS/S0)^(1/RR)).
  const b = units(lockedNanos);
  return toUint64(b * (1 - bigFloatPow(1 - units(coinNanos) / units(supplyNanos), 1 / rr)) * NANOS_PER_UNIT);
}

const afterTradeFee = (nanos: bigint): bigint => (nanos * (10_000n - CREATOR_COIN_PARAMS.tradeFeeBasisPoints)) / 10_000n;

// --- connect --------------------------------------------------------------------------------

async function profileOf(view: StateView, creator33: Uint8Array): Promise<ProfileRecord> {
  const p = await getProfile(view, creator33);
  if (p === undefined) throw new RuleError('RuleErrorCreatorCoinOperationOnNonexistentProfile', `no profile for ${toHex(creator33)}`);
  return p;
}

async function connectBuy(view: StateView, txn: TxnEnvelope, m: CreatorCoinMetadata): Promise<void> {
  const { autoSellThresholdNanos } = CREATOR_COIN_PARAMS;
  const buyer = txn.publicKey;
  // The native sold leaves the buyer's balance before anything else (core's balance model).
  const balance = await getBalance(view, buyer);
  if (balance < m.desoToSellNanos) throw new RuleError('RuleErrorInsufficientBalance', `balance ${balance} nanos is less than the ${m.desoToSellNanos} nanos sold for creator coin`);
  setBalance(view, buyer, balance - m.desoToSellNanos);

  const profile = await profileOf(view, m.profilePublicKey);
  if (m.desoToSellNanos === 0n) throw new RuleError('RuleErrorCreatorCoinBuyMustTradeNonZeroDeSo', 'DeSoToSellNanos is 0');
  const afterFees = afterTradeFee(m.desoToSellNanos);
  if (afterFees === 0n) throw new RuleError('RuleErrorCreatorCoinBuyMustTradeNonZeroDeSoAfterFees', `${m.desoToSellNanos} nanos is nothing after the trade fee`);
  const selfBuy = Buffer.compare(buyer, profile.publicKey) === 0;
  // The creator's cut, in native coin, unless the creator buys their own coin.
  const founderRewardNanos = selfBuy ? 0n : (afterFees * profile.creatorBasisPoints) / 10_000n;
  const lockedNanos = afterFees - founderRewardNanos;
  if (lockedNanos === 0n) throw new RuleError('RuleErrorCreatorCoinBuyMustTradeNonZeroDeSoAfterFounderReward', 'nothing is left after the founder reward');

  const coin = profile.creatorCoin;
  const minted = creatorCoinToMint(lockedNanos, coin.coinsInCirculationNanos, coin.nanosLocked);
  if (minted < autoSellThresholdNanos) {
    throw new RuleError('RuleErrorCreatorCoinBuyMustSatisfyAutoSellThresholdNanos', `${minted} coin nanos minted is below the ${autoSellThresholdNanos}-nano threshold`);
  }
  const circulation = coin.coinsInCirculationNanos + minted;
  if (m.minCreatorCoinExpectedNanos !== 0n && minted < m.minCreatorCoinExpectedNanos) {
    throw new RuleError('RuleErrorCreatorCoinLessThanMinimumSetByUser', `${minted} coin nanos is less than the ${m.minCreatorCoinExpectedNanos} expected`);
  }

  const before = await getHolding(view, buyer, profile.publicKey);
  const held = before?.balanceNanos ?? 0n;
  putHolding(view, buyer, profile.publicKey, { balanceNanos: held + minted, hasPurchased: true }, before);
  // Core writes the creator's own entry on every buy, with the (coin) founder reward it no longer pays.
  if (!selfBuy && (await getHolding(view, profile.publicKey, profile.publicKey)) === undefined) {
    putHolding(view, profile.publicKey, profile.publicKey, { balanceNanos: 0n, hasPurchased: false }, undefined);
  }
  putProfile(
    view,
    {
      ...profile,
      creatorCoin: {
        nanosLocked: coin.nanosLocked + lockedNanos,
        coinsInCirculationNanos: circulation,
        coinWatermarkNanos: circulation > coin.coinWatermarkNanos ? circulation : coin.coinWatermarkNanos,
        numberOfHolders: coin.numberOfHolders + (held === 0n ? 1n : 0n),
      },
    },
    profile,
  );
  if (founderRewardNanos > 0n) setBalance(view, profile.publicKey, (await getBalance(view, profile.publicKey)) + founderRewardNanos);
}

async function connectSell(view: StateView, txn: TxnEnvelope, m: CreatorCoinMetadata): Promise<void> {
  const seller = txn.publicKey;
  const profile = await profileOf(view, m.profilePublicKey);
  const before = await getHolding(view, seller, profile.publicKey);
  if (before === undefined) throw new RuleError('RuleErrorCreatorCoinSellerBalanceEntryDoesNotExist', `${toHex(seller)} never held this coin`);
  if (m.creatorCoinToSellNanos === 0n) throw new RuleError('RuleErrorCreatorCoinSellMustTradeNonZeroCreatorCoin', 'CreatorCoinToSellNanos is 0');
  if (m.creatorCoinToSellNanos > before.balanceNanos) {
    throw new RuleError('RuleErrorCreatorCoinSellInsufficientCoins', `selling ${m.creatorCoinToSellNanos} coin nanos exceeds the balance of ${before.balanceNanos}`);
  }
  const coin = profile.creatorCoin;
  if (coin.nanosLocked === 0n) throw new RuleError('RuleErrorCreatorCoinSellNotAllowedWhenZeroDeSoLocked', 'no native coin is locked in this creator coin');

  // A remainder below the threshold is sold too, so no dust is left behind.
  const sold = before.balanceNanos - m.creatorCoinToSellNanos < CREATOR_COIN_PARAMS.autoSellThresholdNanos ? before.balanceNanos : m.creatorCoinToSellNanos;
  let returned = nativeToReturn(sold, coin.coinsInCirculationNanos, coin.nanosLocked);
  // Rounding may offer more than is locked.
  if (returned > coin.nanosLocked) returned = coin.nanosLocked;
  if (sold > coin.coinsInCirculationNanos) {
    throw new RuleError('RuleErrorCreatorCoinSellInsufficientCoins', `selling ${sold} coin nanos exceeds the ${coin.coinsInCirculationNanos} in circulation`);
  }
  const holders = coin.numberOfHolders - (before.balanceNanos === sold ? 1n : 0n);
  // The last holder leaving resets the curve to its initial state.
  const next = holders === 0n ? { nanosLocked: 0n, coinsInCirculationNanos: 0n } : { nanosLocked: coin.nanosLocked - returned, coinsInCirculationNanos: coin.coinsInCirculationNanos - sold };
  const remaining = before.balanceNanos - sold;
  const after: HoldingRecord = { balanceNanos: remaining, hasPurchased: remaining === 0n ? false : before.hasPurchased };
  putHolding(view, seller, profile.publicKey, after, before);
  putProfile(view, { ...profile, creatorCoin: { ...coin, ...next, numberOfHolders: holders } }, profile);

  const received = afterTradeFee(returned);
  if (m.minDesoExpectedNanos !== 0n && received < m.minDesoExpectedNanos) {
    throw new RuleError('RuleErrorDeSoReceivedIsLessThanMinimumSetBySeller', `${received} nanos is less than the ${m.minDesoExpectedNanos} expected`);
  }
  setBalance(view, seller, (await getBalance(view, seller)) + received);
}

async function connectCreatorCoin(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeMetadata(txn.txnType, txn.metadata) as CreatorCoinMetadata;
  if (m.operationType === CreatorCoinOperation.BUY) return connectBuy(view, txn, m);
  if (m.operationType === CreatorCoinOperation.SELL) return connectSell(view, txn, m);
  // Core has no rule error for these: AddDeSo is "not implemented", anything else unknown.
  throw new RuleError('RuleErrorCreatorCoinOperationNotSupported', `operation type ${m.operationType} is not supported (0 buy, 1 sell)`);
}

// --- transfer -------------------------------------------------------------------------------

/** ExtraData keys of the creator-coin diamonds core accepted before its DeSoDiamondsBlockHeight fork. */
const LEGACY_DIAMOND_KEY = 'DiamondPostHash';

const sameKey = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/**
 * CREATOR_COIN_TRANSFER (core `HelpConnectCoinTransfer`, isDAOCoin false), in core's order of
 * checks. A sender left with less than the auto-sell threshold gives the rest to the receiver
 * too (no dust holdings); an emptied sender's entry is deleted. The coin's holder count moves
 * with who holds it; the curve (locked native, supply) does not change.
 */
async function connectCreatorCoinTransfer(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeMetadata(txn.txnType, txn.metadata) as CreatorCoinTransferMetadata;
  const sender = txn.publicKey;
  // Core's replay guard from UTXO days: the transactor must pay something (fee or outputs).
  const paid = (txn.v1?.feeNanos ?? 0n) + txn.outputs.reduce((sum, o) => sum + o.amountNanos, 0n);
  if (paid === 0n) throw new RuleError('RuleErrorCoinTransferRequiresNonZeroInput', 'a coin transfer must pay a fee');
  // The codec takes 33-byte keys only, so core's …PubKeySize errors cannot arise here.
  if (!isValidCompressedPoint(m.receiverPublicKey)) throw new RuleError('RuleErrorCoinTransferInvalidReceiverPubKey', 'the receiver public key is not a valid secp256k1 key');
  if (sameKey(sender, m.receiverPublicKey)) throw new RuleError('RuleErrorCoinTransferCannotTransferToSelf', 'sender and receiver are the same key');
  if (!isValidCompressedPoint(m.profilePublicKey)) throw new RuleError('RuleErrorCoinTransferInvalidProfilePubKey', 'the profile public key is not a valid secp256k1 key');
  const profile = await getProfile(view, m.profilePublicKey);
  if (profile === undefined) throw new RuleError('RuleErrorCoinTransferOnNonexistentProfile', `no profile for public key ${toHex(m.profilePublicKey)}`);
  const creator = profile.publicKey;

  const senderBefore = await getHolding(view, sender, creator);
  if (senderBefore === undefined) throw new RuleError('RuleErrorCoinTransferBalanceEntryDoesNotExist', `${toHex(sender)} never held this coin`);
  const amount = m.creatorCoinToTransferNanos;
  const threshold = CREATOR_COIN_PARAMS.autoSellThresholdNanos;
  if (amount < threshold) {
    throw new RuleError('RuleErrorCreatorCoinTransferMustBeGreaterThanMinThreshold', `${amount} coin nanos is below the ${threshold}-nano minimum`);
  }
  if (amount > senderBefore.balanceNanos) {
    throw new RuleError('RuleErrorCoinTransferInsufficientCoins', `transferring ${amount} coin nanos exceeds the balance of ${senderBefore.balanceNanos}`);
  }

  const receiverBefore = await getHolding(view, m.receiverPublicKey, creator);
  let senderLeft = senderBefore.balanceNanos - amount;
  let received = amount;
  if (senderLeft < threshold) {
    // Swept: the sender keeps no dust.
    received += senderLeft;
    senderLeft = 0n;
  }
  const receiverHad = receiverBefore?.balanceNanos ?? 0n;
  putHolding(view, m.receiverPublicKey, creator, { balanceNanos: receiverHad + received, hasPurchased: receiverBefore?.hasPurchased ?? false }, receiverBefore);
  if (senderLeft > 0n) putHolding(view, sender, creator, { ...senderBefore, balanceNanos: senderLeft }, senderBefore);
  else deleteHolding(view, sender, creator, senderBefore);

  let holders = profile.creatorCoin.numberOfHolders;
  if (receiverHad === 0n) holders += 1n;
  if (senderLeft === 0n) holders -= 1n;
  putProfile(view, { ...profile, creatorCoin: { ...profile.creatorCoin, numberOfHolders: holders } }, profile);

  // Diamonds rode on creator-coin transfers before core's DeSoDiamondsBlockHeight fork (height
  // 0 on regtest, so every block here is past it); now they are basic transfers.
  if (txn.extraData.some(([k]) => Buffer.from(k).toString('latin1') === LEGACY_DIAMOND_KEY)) {
    throw new RuleError('RuleErrorCreatorCoinTransferHasDiamondsAfterDeSoBlockHeight', 'diamonds are sent as basic transfers, not with creator coins');
  }
}

export const creatorCoinHandlers: readonly HandlerEntry[] = [
  [TxnType.CREATOR_COIN, connectCreatorCoin],
  [TxnType.CREATOR_COIN_TRANSFER, connectCreatorCoinTransfer],
];
