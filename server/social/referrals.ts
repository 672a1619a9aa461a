/**
 * Referral codes (spec §2.8, §3 "Referral code", §4.6; reference node-api.md §2.5, §9): node
 * state, not chain state, kept in the store under `node:referral:`.
 *
 * Keys:
 * - `node:referral:info:<hash>` → ReferralRecord (the code's terms, counters and IsActive, in
 *   one value so that every change is one compare-and-set on it);
 * - index `node:referral:by-referrer:<pk hex>` → the codes a user owns (members: hash);
 * - index `node:referral:referees:<hash>` → the users who signed up with a code (members:
 *   pk hex, so listed in public-key byte order as the reference lists them by PKID);
 * - `node:referral:referred:<pk hex>` → `{ hash, atNanos }`: the code a user signed up with.
 *   A user is referred at most once, as the reference keeps one referral hash per user.
 *
 * A code is 8 Base58 characters (reference: the first 8 of Base58 of 16 random bytes; here 8
 * uniformly drawn Base58 characters, the same alphabet and length).
 *
 * Counters and amounts are bigint where the reference has uint64 that can pass 2^32: the
 * store's codec reads 64-bit integers back as bigint, and a compare-and-set guard compares
 * encoded bytes, so a value must re-encode to exactly what was stored.
 * @module
 */
import { randomInt } from 'node:crypto';
import { DomainError } from '../errors.js';
import { toHex } from '../hex.js';
import { BASE58_ALPHABET } from '../keys/base58check.js';
import type { Guard, Store, WriteOp } from '../store/types.js';

/** Largest referrer or referee reward an admin may set, in USD cents ($1000, as the reference). */
export const MAX_REFERRAL_AMOUNT_USD_CENTS = 100_000;
/** Characters of a generated code (reference generateNewReferralHash). */
export const REFERRAL_HASH_LENGTH = 8;
/**
 * Attempts of one compare-and-set before giving up. A retry happens only when another
 * request changed the same code between our read and our write; 20 in a row means sustained
 * contention on one code, which is worth surfacing as an error rather than spinning.
 */
const MAX_CAS_ATTEMPTS = 20;

const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]{1,64}$/;

export const referralKeys = {
  info: (hash: string): string => `node:referral:info:${hash}`,
  byReferrer: (pk33: Uint8Array): string => `node:referral:by-referrer:${toHex(pk33)}`,
  referees: (hash: string): string => `node:referral:referees:${hash}`,
  referred: (pk33: Uint8Array): string => `node:referral:referred:${toHex(pk33)}`,
};

export interface ReferralRecord {
  hash: string;
  /** The referrer's public key (this node has no identity swaps, so PKID = public key). */
  referrer: Uint8Array;
  referrerAmountUSDCents: number;
  refereeAmountUSDCents: number;
  /** 0 = no limit. */
  maxReferrals: bigint;
  requiresIdVerification: boolean;
  numIdVerificationAttempts: bigint;
  numIdVerificationSuccesses: bigint;
  totalReferrals: bigint;
  totalReferrerNativeNanos: bigint;
  totalRefereeNativeNanos: bigint;
  dateCreatedTStampNanos: bigint;
  isActive: boolean;
}

/** A code's terms as an admin sets them. */
export interface ReferralTerms {
  referrerAmountUSDCents: number;
  refereeAmountUSDCents: number;
  maxReferrals: bigint;
  requiresIdVerification: boolean;
}

/** A compare-and-set kept losing: transient, the client retries (REFERRAL_CONTENTION, 503). */
export class ReferralContentionError extends DomainError {
  override readonly name = 'ReferralContentionError';
  constructor(message: string) {
    super('REFERRAL_CONTENTION', 'busy', message);
  }
}

/** Whether a string can be a referral code at all (Base58 text); others are never looked up. */
export function isReferralHashText(s: string): boolean {
  return BASE58_TEXT.test(s);
}

export function newReferralHash(): string {
  let out = '';
  for (let i = 0; i < REFERRAL_HASH_LENGTH; i++) out += BASE58_ALPHABET[randomInt(BASE58_ALPHABET.length)];
  return out;
}

export async function getReferral(store: Store, hash: string): Promise<ReferralRecord | undefined> {
  return isReferralHashText(hash) ? store.get<ReferralRecord>(referralKeys.info(hash)) : undefined;
}

/** The codes `referrer` owns, in code order. */
export async function referralsOf(store: Store, referrer: Uint8Array): Promise<ReferralRecord[]> {
  const hashes = await store.indexRange(referralKeys.byReferrer(referrer));
  const records = await store.getMany<ReferralRecord>(hashes.map(referralKeys.info));
  return records.filter((r): r is ReferralRecord => r !== undefined);
}

/** The public keys (33 bytes) of the users who signed up with `hash`, in key order. */
export async function refereesOf(store: Store, hash: string): Promise<Uint8Array[]> {
  const members = await store.indexRange(referralKeys.referees(hash));
  return members.map((hex) => new Uint8Array(Buffer.from(hex, 'hex')));
}

/** The code a user signed up with, if any. */
export async function referredBy(store: Store, user: Uint8Array): Promise<{ hash: string; atNanos: bigint } | undefined> {
  return store.get(referralKeys.referred(user));
}

const nowNanos = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** Creates an active code for `referrer` with a fresh, unused hash. */
export async function createReferral(store: Store, referrer: Uint8Array, terms: ReferralTerms, opts: { nowNanos?: bigint; hash?: () => string } = {}): Promise<ReferralRecord> {
  const makeHash = opts.hash ?? newReferralHash;
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const record: ReferralRecord = {
      hash: makeHash(),
      referrer,
      ...terms,
      numIdVerificationAttempts: 0n,
      numIdVerificationSuccesses: 0n,
      totalReferrals: 0n,
      totalReferrerNativeNanos: 0n,
      totalRefereeNativeNanos: 0n,
      dateCreatedTStampNanos: opts.nowNanos ?? nowNanos(),
      isActive: true,
    };
    const created = await store.commit(
      [
        { op: 'set', key: referralKeys.info(record.hash), value: record },
        { op: 'indexAdd', key: referralKeys.byReferrer(referrer), members: [record.hash] },
      ],
      // A hash already in use (1 in 58^8 per existing code) is drawn again.
      [{ key: referralKeys.info(record.hash), equals: undefined }],
    );
    if (created) return record;
  }
  throw new ReferralContentionError('could not draw an unused referral hash');
}

/** A new record plus the other writes (and their preconditions) that go with it. */
interface RecordChange {
  next: ReferralRecord;
  ops?: WriteOp[];
  guards?: Guard[];
}

/**
 * Applies `change` to the stored record with compare-and-set, so concurrent sign-ups and admin
 * updates never lose each other's writes. `change` returns the new record and any extra ops
 * and guards, or a string (a refusal, returned as is). Undefined when the code does not exist.
 */
async function updateReferral<R extends string>(
  store: Store,
  hash: string,
  change: (r: ReferralRecord) => R | RecordChange | Promise<R | RecordChange>,
): Promise<ReferralRecord | R | undefined> {
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const current = await getReferral(store, hash);
    if (current === undefined) return undefined;
    const outcome = await change(current);
    if (typeof outcome === 'string') return outcome;
    const { next, ops = [], guards = [] } = outcome;
    const key = referralKeys.info(hash);
    if (await store.commit([{ op: 'set', key, value: next }, ...ops], [{ key, equals: current }, ...guards])) return next;
  }
  throw new ReferralContentionError(`referral hash ${hash} kept changing; try again`);
}

/** New terms and/or IsActive for a code; omitted fields keep their value. Undefined when unknown. */
export async function updateReferralTerms(store: Store, hash: string, update: Partial<ReferralTerms> & { isActive?: boolean }): Promise<ReferralRecord | undefined> {
  const defined = Object.fromEntries(Object.entries(update).filter(([, x]) => x !== undefined));
  const r = await updateReferral(store, hash, (current) => ({ next: { ...current, ...defined } }));
  return r as ReferralRecord | undefined;
}

export type ReferralSignupRefusal = 'UNKNOWN_REFERRAL_HASH' | 'REFERRAL_INACTIVE' | 'MAX_REFERRALS_REACHED' | 'ALREADY_REFERRED' | 'SELF_REFERRAL';

export type ReferralSignupResult = { ok: true; referral: ReferralRecord } | { ok: false; reason: ReferralSignupRefusal };

/**
 * Records that `newUser` (33-byte public key) signed up with `referralHash`: checks that the
 * code exists and is active, that the user is not its referrer and was never referred, and
 * that the code is below MaxReferrals (0 = unlimited); then, atomically, counts the referral, lists the user
 * among the code's referees and marks the user as referred. A compare-and-set on the code's
 * record (and on the user's absent marker) makes concurrent sign-ups each count exactly once
 * and never exceed MaxReferrals.
 *
 * Reward payouts (TotalRefererrerNativeNanos / TotalRefereeNativeNanos) and identity
 * verification counters are not moved: this node has no payout or verification flow.
 * Returns the refusal instead of throwing, so a sign-up never fails over a bad code.
 */
export async function recordReferralSignup(
  store: Store,
  referralHash: string,
  newUser: Uint8Array,
  opts: { nowNanos?: bigint } = {},
): Promise<ReferralSignupResult> {
  const markerKey = referralKeys.referred(newUser);
  const r = await updateReferral<ReferralSignupRefusal>(store, referralHash, async (current) => {
    if (!current.isActive) return 'REFERRAL_INACTIVE';
    if (toHex(current.referrer) === toHex(newUser)) return 'SELF_REFERRAL';
    if ((await store.get(markerKey)) !== undefined) return 'ALREADY_REFERRED';
    if (current.maxReferrals !== 0n && current.totalReferrals >= current.maxReferrals) return 'MAX_REFERRALS_REACHED';
    return {
      next: { ...current, totalReferrals: current.totalReferrals + 1n },
      ops: [
        { op: 'set', key: markerKey, value: { hash: referralHash, atNanos: opts.nowNanos ?? nowNanos() } },
        { op: 'indexAdd', key: referralKeys.referees(referralHash), members: [toHex(newUser)] },
      ],
      guards: [{ key: markerKey, equals: undefined }],
    };
  });
  if (r === undefined) return { ok: false, reason: 'UNKNOWN_REFERRAL_HASH' };
  if (typeof r === 'string') return { ok: false, reason: r };
  return { ok: true, referral: r };
}

/** Spec §2.8 `Info` (the spec's field names; the reference says RefereeAmountUSDCents, RequiresJumio, …DeSoNanos). */
export function referralInfoJson(r: ReferralRecord): Record<string, unknown> {
  return {
    ReferralHashBase58: r.hash,
    ReferrerPKID: [...r.referrer],
    ReferrerAmountUSDCents: r.referrerAmountUSDCents,
    ReferreeAmountUSDCents: r.refereeAmountUSDCents,
    MaxReferrals: r.maxReferrals,
    RequiresIdVerification: r.requiresIdVerification,
    NumIdVerificationAttempts: r.numIdVerificationAttempts,
    NumIdVerificationSuccesses: r.numIdVerificationSuccesses,
    TotalReferrals: r.totalReferrals,
    TotalRefererrerNativeNanos: r.totalReferrerNativeNanos,
    TotalRefereeNativeNanos: r.totalRefereeNativeNanos,
    DateCreatedTStampNanos: r.dateCreatedTStampNanos,
  };
}

/** The public summary of get-referral-info-for-referral-hash (reference SimpleReferralInfoResponse). */
export function simpleReferralInfoJson(r: ReferralRecord): Record<string, unknown> {
  return {
    IsActive: r.isActive,
    Info: {
      ReferralHashBase58: r.hash,
      ReferreeAmountUSDCents: r.refereeAmountUSDCents,
      MaxReferrals: r.maxReferrals,
      TotalReferrals: r.totalReferrals,
    },
  };
}
