/**
 * Access levels and `accessLevelHmac` (identity-and-crypto.md §2.3, §2.5, §2.6, §2.8).
 *
 * The HMAC keeps the browser frame's exact formula, HMAC-SHA256(key = ASCII of the 64-char
 * seed hex, message = decimal level), so apps that cache or compare the value keep working.
 * Only the comparison differs: the frame compares strings with `===`; we compare in constant
 * time.
 * @module
 */
import { hmacSha256 } from '../../wasm/hash.js';
import { bytesEqualConstantTime } from './constantTime.js';
import { IdentityError } from './errors.js';

/** §2.3. Level 1 is defined but never granted by the frame. */
export const AccessLevel = Object.freeze({
  None: 0,
  Unused: 1,
  ApproveAll: 2,
  ApproveLarge: 3,
  Full: 4,
} as const);
export type AccessLevel = (typeof AccessLevel)[keyof typeof AccessLevel];

/**
 * The frame API methods gated by an access level (api-spec.md §4.1). Not frames.ts's
 * IdentityMethod: that one also lists the login steps, which have no level.
 */
export type LevelGatedMethod = 'sign' | 'encrypt' | 'decrypt' | 'jwt';

/**
 * Lowest level each method accepts (§2.7). `sign` is listed at its minimum, 3: the level a given
 * transaction needs is `signLevelFor(txnType, outputsPayOnlySender)`, 3 or 4.
 */
export const METHOD_LEVELS: Readonly<Record<LevelGatedMethod, AccessLevel>> = Object.freeze({
  sign: AccessLevel.ApproveLarge,
  encrypt: AccessLevel.ApproveAll,
  decrypt: AccessLevel.ApproveAll,
  jwt: AccessLevel.ApproveAll,
});

/**
 * Transaction types that level 3 (ApproveLarge) may sign without approval (§2.8), by TxnType
 * number (node-api.md §5.2). Every other type, listed in §2.8 or not (MESSAGING_GROUP 23,
 * ATOMIC_TXNS_WRAPPER 44, types added later), needs level 4: an unknown type must never be
 * signed silently.
 */
export const SIGN_LEVEL_3_TXN_TYPES: ReadonlyMap<number, string> = new Map([
  [4, 'PRIVATE_MESSAGE'],
  [5, 'SUBMIT_POST'],
  [9, 'FOLLOW'],
  [10, 'LIKE'],
  [27, 'CREATE_USER_ASSOCIATION'],
  [28, 'DELETE_USER_ASSOCIATION'],
  [29, 'CREATE_POST_ASSOCIATION'],
  [30, 'DELETE_POST_ASSOCIATION'],
  [31, 'ACCESS_GROUP'],
  [32, 'ACCESS_GROUP_MEMBERS'],
  [33, 'NEW_MESSAGE'],
  [39, 'UNJAIL_VALIDATOR'],
]);

/**
 * Level `sign` needs for one transaction: 3 for a level-3 type whose outputs pay only the
 * transaction's own public key (no outputs counts), else 4. This folds the frame's two rules
 * into one number: §2.8 picks 3 or 4 by type, and §2.6 `approveSpending` refuses a level-3
 * session any transaction that pays another key, which is the same as requiring 4.
 * UPDATE_PROFILE (6) needs 4, as in the frame (§7 item 11).
 */
export function signLevelFor(txnType: number, outputsPayOnlySender: boolean): 3 | 4 {
  return SIGN_LEVEL_3_TXN_TYPES.has(txnType) && outputsPayOnlySender === true ? 3 : 4;
}

/** True for an integer 0..4. Payload values come from JSON, so anything may arrive. */
export function isAccessLevel(value: unknown): value is AccessLevel {
  return typeof value === 'number' && Number.isInteger(value) && value >= AccessLevel.None && value <= AccessLevel.Full;
}

/** 64 hex characters (any case, keyed as written, like the frame). */
const SEED_HEX = /^[0-9a-fA-F]{64}$/;
/** The frame compares the lower-case hex digest with `===`, so only lower case can ever match. */
const HMAC_HEX = /^[0-9a-f]{64}$/;

const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

/** HMAC bytes; the ASCII key copy is wiped because it is the seed in another encoding. */
function hmacBytes(seedHex: string, level: AccessLevel): Uint8Array {
  const key = ascii(seedHex);
  try {
    return hmacSha256(key, ascii(String(level)));
  } finally {
    key.fill(0);
  }
}

/**
 * The frame's `accessLevelHmac` (§2.5), lower-case hex.
 * @throws {IdentityError} IDENTITY_BAD_SEED, IDENTITY_BAD_ACCESS_LEVEL
 */
export function accessLevelHmac(seedHex: string, level: AccessLevel): string {
  if (typeof seedHex !== 'string' || !SEED_HEX.test(seedHex)) {
    throw new IdentityError('IDENTITY_BAD_SEED', '"seedHex" expected 64 hex characters');
  }
  if (!isAccessLevel(level)) {
    throw new IdentityError('IDENTITY_BAD_ACCESS_LEVEL', `"accessLevel" expected an integer 0..4, got ${describe(level)}`);
  }
  return Buffer.from(hmacBytes(seedHex, level)).toString('hex');
}

/**
 * The frame's `hasAccessLevel` (§2.5): the claimed `level` is a valid level >= `required` and
 * `hmacHex` is the HMAC of `seedHex` for that claimed level, compared in constant time.
 * `level` and `hmacHex` are the app's payload values, so they are typed `unknown`; anything
 * malformed answers false (the caller then answers `{approvalRequired: true}`).
 * @throws {IdentityError} IDENTITY_BAD_SEED only for a bad `seedHex`, which is the node's own
 *   value (just opened from the sealed handle), never the app's
 */
export function checkAccessLevel(seedHex: string, level: unknown, hmacHex: unknown, required: AccessLevel): boolean {
  if (typeof seedHex !== 'string' || !SEED_HEX.test(seedHex)) {
    throw new IdentityError('IDENTITY_BAD_SEED', '"seedHex" expected 64 hex characters');
  }
  if (!isAccessLevel(required)) {
    throw new RangeError(`"required" expected an integer 0..4, got ${describe(required)}`);
  }
  if (!isAccessLevel(level) || level < required) return false;
  if (typeof hmacHex !== 'string' || !HMAC_HEX.test(hmacHex)) return false;
  return bytesEqualConstantTime(hmacBytes(seedHex, level), new Uint8Array(Buffer.from(hmacHex, 'hex')));
}

/** Short, safe description of an untrusted value for an error message. */
function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : `type=${typeof value}`;
}
