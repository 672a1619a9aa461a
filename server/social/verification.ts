/**
 * Verification badges (reference node-api.md §3 grant/remove-verification-badge, §9 prefixes 3
 * and 5): node-local state an admin writes, never on chain.
 *
 * Keys:
 * - `node:verified:<pk hex>` → the lower-cased username the badge was granted for. This is
 *   what social/profileEntry.ts reads for `IsVerified` in every ProfileEntryResponse; a rename
 *   loses the badge, as the reference's username → PKID map does.
 * - `node:verification:username:<lower-cased username>` → pk hex the username is verified
 *   for, or "" once removed (the reference keeps a ZeroPKID entry, so a removed username is
 *   still listed).
 * - index `node:verification:usernames` → every lower-cased username ever verified.
 * - `node:verification:log:<lower-cased username>` → VerificationAuditEntry[], newest first.
 *
 * Each grant or removal is one guarded commit of the map entry, the per-key flag(s) and the
 * log, so concurrent admins (any process) never leave them disagreeing.
 * @module
 */
import { DomainError } from '../errors.js';
import { toHex } from '../hex.js';
import type { Guard, Store, WriteOp } from '../store/types.js';
import { PROFILE_FLAGS_CHANGED, profileFlagKeys } from './profileEntry.js';

export const verificationKeys = {
  /** Per public key: the lower-cased username its badge is for (read by profileEntry.ts). */
  verified: profileFlagKeys.verified,
  username: (lower: string): string => `node:verification:username:${lower}`,
  usernames: 'node:verification:usernames',
  log: (lower: string): string => `node:verification:log:${lower}`,
};

/** One grant or removal (reference VerificationUsernameAuditLog). */
export interface VerificationAuditEntry {
  timestampNanos: bigint;
  /** The admin (Base58Check, or the dev-open-admin marker). */
  verifier: string;
  /** The admin's username at the time, "" without a profile. */
  verifierUsername: string;
  /** The username as the admin typed it. */
  verifiedUsername: string;
  /** The profile the username belonged to at the time. */
  verifiedPublicKey: Uint8Array;
  isRemoval: boolean;
}

/** Entries kept per username; older ones drop off (the node-wide admin audit log keeps every request). */
export const MAX_VERIFICATION_LOG_ENTRIES = 1000;
const MAX_CAS_ATTEMPTS = 20;

/** A removal of a badge that was never granted (VERIFICATION_NEVER_GRANTED, 400). */
export class VerificationError extends DomainError {
  override readonly name = 'VerificationError';
  constructor(message: string) {
    super('VERIFICATION_NEVER_GRANTED', 'invalid', message);
  }
}

export interface VerificationChange {
  /** As typed (validated by the caller: ^[a-zA-Z0-9_]+$, at most 25 bytes). */
  username: string;
  /** The public key of the profile that holds the username now. */
  publicKey: Uint8Array;
  verifier: string;
  verifierUsername: string;
  nowNanos: bigint;
}

/**
 * Applies a grant or removal in one guarded commit: the map entry, the per-key flags (the
 * previous holder's and the current profile's) and the prepended log entry.
 */
async function change(store: Store, c: VerificationChange, isRemoval: boolean): Promise<void> {
  const lower = c.username.toLowerCase();
  const entryKey = verificationKeys.username(lower);
  const logKey = verificationKeys.log(lower);
  const pkHex = toHex(c.publicKey);
  for (let i = 0; i < MAX_CAS_ATTEMPTS; i++) {
    const [previous, log] = await store.getMany<unknown>([entryKey, logKey]);
    if (isRemoval && previous === undefined) throw new VerificationError(`${lower} was never verified on this node; nothing to remove`);
    const prevHex = typeof previous === 'string' ? previous : '';
    // Per-key flags that name this username: the previous holder's, and the current profile's.
    const holders = [...new Set([prevHex, pkHex].filter((h) => h !== ''))];
    const flagKeys = holders.map((h) => verificationKeys.verified(new Uint8Array(Buffer.from(h, 'hex'))));
    const flags = flagKeys.length === 0 ? [] : await store.getMany<unknown>(flagKeys);
    const entry: VerificationAuditEntry = {
      timestampNanos: c.nowNanos,
      verifier: c.verifier,
      verifierUsername: c.verifierUsername,
      verifiedUsername: c.username,
      verifiedPublicKey: c.publicKey,
      isRemoval,
    };
    const ops: WriteOp[] = [
      { op: 'set', key: entryKey, value: isRemoval ? '' : pkHex },
      { op: 'indexAdd', key: verificationKeys.usernames, members: [lower] },
      { op: 'set', key: logKey, value: [entry, ...((log as VerificationAuditEntry[] | undefined) ?? [])].slice(0, MAX_VERIFICATION_LOG_ENTRIES) },
    ];
    const guards: Guard[] = [
      { key: entryKey, equals: previous },
      { key: logKey, equals: log },
    ];
    flagKeys.forEach((key, j) => {
      guards.push({ key, equals: flags[j] });
      const grantsThisKey = !isRemoval && key === verificationKeys.verified(c.publicKey);
      // A flag naming this username goes, unless this grant is for that very key.
      if (grantsThisKey) ops.push({ op: 'set', key, value: lower });
      else if (flags[j] === lower) ops.push({ op: 'del', key });
    });
    // IsVerified shows in cached profile answers (http/readCache.ts).
    ops.push(PROFILE_FLAGS_CHANGED);
    if (await store.commit(ops, guards)) return;
  }
  throw new Error(`verification of ${lower} is changing too often to update`);
}

/** Verifies `username` for the profile that holds it (reference AdminGrantVerificationBadge). */
export function grantVerification(store: Store, c: VerificationChange): Promise<void> {
  return change(store, c, false);
}

/**
 * Removes the badge of `username`: its map entry becomes "" (still listed) and no key is
 * verified for it any more.
 * @throws {VerificationError} when the username was never verified
 */
export function removeVerification(store: Store, c: VerificationChange): Promise<void> {
  return change(store, c, true);
}

/** Every username ever verified here (lower-cased, ascending), removed ones included. */
export function verifiedUsernames(store: Store): Promise<string[]> {
  return store.indexRange(verificationKeys.usernames);
}

/** The grants and removals of a username (any case), newest first. */
export async function verificationAuditLogs(store: Store, username: string): Promise<VerificationAuditEntry[]> {
  return (await store.get<VerificationAuditEntry[]>(verificationKeys.log(username.toLowerCase()))) ?? [];
}
