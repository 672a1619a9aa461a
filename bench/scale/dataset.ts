/**
 * The scale bench's data set (bench/scale.bench.ts): who the users are and what each one
 * writes, a fixed proportion per block of users, so 10k and 100k profiles hold the same mix.
 *
 * Per 10 users (one ring): 10 profiles, 10 DMs (user j of the ring writes once to user j+1, so
 * every user is in exactly 2 DM threads), and on average 2 resting DAO coin orders.
 * Per 100 users: user 0 of the hundred creates a DAO coin (mints 1000 coins, sends 10 coins to
 * each of users 1–10); users 1–10 each rest one ask, users 11–20 one bid, on that coin against
 * the native coin, asks far above bids so nothing fills (a book of 20 orders per coin).
 * Per 1000 users: one long DM thread of LONG_THREAD_MESSAGES messages between users 50 and 550
 * of the thousand, for paged thread reads.
 * Everyone is funded FUND_NANOS first, from the bench's funder key (the miner's reward key).
 *
 * A profile is a username of 13 characters, an 80-byte description and no picture; a DM's
 * encrypted text is DM_TEXT_BYTES random bytes (an ECIES ciphertext of a ~50-character message
 * is about that long).
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

/** Users per DM ring. */
export const RING_USERS = 10;
/** Users per DAO coin (its creator, askers and bidders among them). */
export const COIN_USERS = 100;
export const ASKERS_PER_COIN = 10;
export const BIDDERS_PER_COIN = 10;
/** Users per long DM thread. Sizes are multiples of this. */
export const LONG_THREAD_USERS = 1000;
export const LONG_THREAD_MESSAGES = 100;
/** The two ends of a long thread, as offsets within their thousand (plain users otherwise). */
export const LONG_THREAD_ENDS = [50, 550] as const;
/** Native coin each user gets: fees of its writes (~300–500 nanos each, 50 for a long-thread end), its bid (≤ 10,000) and the write-rate transfers. */
export const FUND_NANOS = 50_000n;
/** Coins a creator mints and sends to each asker, in whole coins. */
export const COINS_MINTED = 1000n;
export const COINS_PER_ASKER = 10n;
export const DM_TEXT_BYTES = 160;
const DESCRIPTION_BYTES = 80;

export interface ScaleUser {
  index: number;
  secret: Uint8Array;
  pk33: Uint8Array;
  /** Base58Check, testnet. */
  pk: string;
  username: string;
  description: string;
}

const text = new TextEncoder();
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** A key of the run `seed`, named `label` (users are labelled by their index). */
export function makeKey(seed: string, label: string): { secret: Uint8Array; pk33: Uint8Array; pk: string } {
  const secret = sha256(text.encode(`scale key ${seed} ${label}`));
  const pk33 = getPublicKey(secret, true);
  return { secret, pk33, pk: encodePublicKey(pk33, 'testnet') };
}

/**
 * User `index` of the run `seed`: the key is sha256 of both; the username starts with a letter
 * spread evenly over a–z (so a one-letter UsernamePrefix matches ~1/26 of all users at every
 * size), then 8 hex digits, then the index in base 36 (unique).
 */
export function makeUser(seed: string, index: number): ScaleUser {
  const { secret, pk33, pk } = makeKey(seed, String(index));
  const h = sha256(text.encode(`scale name ${seed} ${index}`));
  const username = `${LETTERS[h[0]! % 26]}${Buffer.from(h.subarray(1, 5)).toString('hex')}${index.toString(36)}`;
  const head = `Scale bench user ${username}, one of many. `;
  const description = head.padEnd(DESCRIPTION_BYTES, 'lorem ipsum dolor sit amet ').slice(0, DESCRIPTION_BYTES);
  return { index, secret, pk33, pk, username, description };
}

/** The user that `index` writes its ring DM to. */
export function ringPartner(index: number): number {
  const base = index - (index % RING_USERS);
  return base + ((index - base + 1) % RING_USERS);
}

export function isCoinCreator(index: number): boolean {
  return index % COIN_USERS === 0;
}

/** The coin creator of the hundred `index` is in. */
export function coinCreatorOf(index: number): number {
  return index - (index % COIN_USERS);
}

/** 1-based rank among its coin's askers, or 0. */
export function askerRank(index: number): number {
  const k = index % COIN_USERS;
  return k >= 1 && k <= ASKERS_PER_COIN ? k : 0;
}

/** 1-based rank among its coin's bidders, or 0. */
export function bidderRank(index: number): number {
  const k = (index % COIN_USERS) - ASKERS_PER_COIN;
  return k >= 1 && k <= BIDDERS_PER_COIN ? k : 0;
}

/** The long threads whose first end lies in [from, to): [a, b] user indexes. */
export function longThreadsIn(from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let base = from - (from % LONG_THREAD_USERS); base < to; base += LONG_THREAD_USERS) {
    const a = base + LONG_THREAD_ENDS[0];
    const b = base + LONG_THREAD_ENDS[1];
    if (a >= from && b < to) out.push([a, b]);
  }
  return out;
}

/**
 * A user that writes nothing but its profile and ring DM: no coin role, no long thread. Read
 * bodies use these so that each answer (thread list, user record) has the same size at every
 * data size.
 */
export function isPlainUser(index: number): boolean {
  const inThousand = index % LONG_THREAD_USERS;
  return !isCoinCreator(index) && askerRank(index) === 0 && bidderRank(index) === 0 && !(LONG_THREAD_ENDS as readonly number[]).includes(inThousand);
}

/** Up to `count` plain users spread evenly over [0, size). */
export function spreadPlainUsers(size: number, count: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < count; k++) {
    let i = Math.floor(((k + 0.5) * size) / count);
    while (i < size && !isPlainUser(i)) i++;
    if (i < size && out[out.length - 1] !== i) out.push(i);
  }
  return out;
}

/** Checks a --sizes list: ascending multiples of LONG_THREAD_USERS. */
export function checkSizes(sizes: readonly number[]): void {
  if (sizes.length === 0) throw new RangeError('"sizes" expected at least one size');
  for (let i = 0; i < sizes.length; i++) {
    const s = sizes[i]!;
    if (!Number.isSafeInteger(s) || s < LONG_THREAD_USERS || s % LONG_THREAD_USERS !== 0) {
      throw new RangeError(`"sizes" expected multiples of ${LONG_THREAD_USERS}, got ${s}`);
    }
    if (i > 0 && s <= sizes[i - 1]!) throw new RangeError(`"sizes" expected ascending sizes, got ${sizes.join(',')}`);
  }
}
