/**
 * Node-local user metadata (the reference's global-state UserMetadata, node-api.md §9): email
 * and phone (PII, never on chain), message read state, blocked public keys and the admin
 * moderation flags (tutorial progress is social/tutorial.ts's record). One record per public
 * key under `social:user:<pk hex>`; the message read state, the one part that grows with use,
 * has its own record (`social:readstate:<pk hex>`, at most {@link MAX_READ_STATE_CONTACTS}
 * contacts) so that public reads of the small record (get-users-stateless) never decode it.
 * Blocks live in an index per blocker (`social:blocks:<blocker hex>`, members = blocked pk
 * hex) so "did A block B" is one range read. Records are written compare-and-set against the
 * stored bytes, so concurrent updates from any process never lose each other's fields.
 *
 * Moderation (admin/update-user-global-metadata): `removeEverywhere` is the reference's
 * blacklist, `removeFromLeaderboard` its graylist, `whitelistPosts` its global-feed whitelist.
 * The record is the source of truth; every record write also keeps the indexes
 * `social:blacklist` / `social:graylist` (members: pk hex) in step, in the same commit, so the
 * lists can be read without a scan. Each flag change is logged per user, newest first, in
 * `social:filterlog:<list>:<pk hex>` (the reference's filter audit logs, which it keys by
 * username; a key survives renames and users without profiles).
 *
 * `social:users` indexes every public key (hex) that has a record or blocks, for the admin
 * listing (admin/get-all-user-global-metadata).
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { toHex } from '../hex.js';
import type { Guard, Store, WriteOp } from '../store/types.js';
import { PROFILE_FLAGS_CHANGED } from './profileEntry.js';
import { indexHas } from '../store/indexHas.js';

export const userMetadataKeys = {
  record: (pk33: Uint8Array): string => `social:user:${toHex(pk33)}`,
  /** Contact key (Base58Check) → messages read, of one user. */
  readState: (pk33: Uint8Array): string => `social:readstate:${toHex(pk33)}`,
  /** Index of the public keys (hex) `blocker` blocked. */
  blocks: (blocker33: Uint8Array): string => `social:blocks:${toHex(blocker33)}`,
  /** Index of every public key (hex) with a record or blocks. */
  users: 'social:users',
  /** Index of the public keys (hex) whose record has `removeEverywhere`. */
  blacklist: 'social:blacklist',
  /** Index of the public keys (hex) whose record has `removeFromLeaderboard`. */
  graylist: 'social:graylist',
  /** FilterAuditEntry[] of one user and list, newest first. */
  filterLog: (list: FilterList, pk33: Uint8Array): string => `social:filterlog:${list}:${toHex(pk33)}`,
};

export interface EmailVerification {
  /** SHA-256 (hex) of the code mailed; the code itself is never stored. */
  codeHashHex: string;
  /** The address the code was sent to (a later change of address voids it). */
  email: string;
  /** Unix milliseconds. */
  expiresAtMs: number;
}

export interface UserMetadataRecord {
  email: string;
  emailVerified: boolean;
  phoneNumber: string;
  phoneNumberCountryCode: string;
  emailVerification: EmailVerification | null;
  /** Blacklisted: the user's content is shown nowhere on this node (reference RemoveEverywhere). */
  removeEverywhere: boolean;
  /** Graylisted: left off leaderboards (reference RemoveFromLeaderboard). */
  removeFromLeaderboard: boolean;
  /** Whitelisted for the global feed (reference WhitelistPosts). */
  whitelistPosts: boolean;
}

export function emptyUserMetadata(): UserMetadataRecord {
  return {
    email: '',
    emailVerified: false,
    phoneNumber: '',
    phoneNumberCountryCode: '',
    emailVerification: null,
    removeEverywhere: false,
    removeFromLeaderboard: false,
    whitelistPosts: false,
  };
}

/** A stored record: records written before the read state had its own key still hold it. */
type StoredUserMetadata = Partial<UserMetadataRecord> & { messageReadStateByContact?: ReadState };

/** The record with every field, without the read state an older record may still hold. */
function fullRecord(stored: StoredUserMetadata | undefined): UserMetadataRecord {
  const { messageReadStateByContact: _legacy, ...rest } = stored ?? {};
  return { ...emptyUserMetadata(), ...rest };
}

/** The stored record, or the empty one (the reference's "missing ⇒ zero struct"). */
export async function getUserMetadata(store: Store, pk33: Uint8Array): Promise<UserMetadataRecord> {
  return fullRecord(await store.get<StoredUserMetadata>(userMetadataKeys.record(pk33)));
}

const MAX_CAS_ATTEMPTS = 20;

/**
 * Read-modify-write of one user's record, compare-and-set against the stored bytes so that a
 * concurrent writer (another request, another process) is retried, never overwritten.
 * `change` may run more than once; it must be a pure function of the record it is given, and
 * answers that same record when nothing changes (then nothing is written).
 */
export async function updateUserMetadata(store: Store, pk33: Uint8Array, change: (m: UserMetadataRecord) => UserMetadataRecord): Promise<UserMetadataRecord> {
  const key = userMetadataKeys.record(pk33);
  const hex = toHex(pk33);
  for (let i = 0; i < MAX_CAS_ATTEMPTS; i++) {
    const read = await store.getStored<StoredUserMetadata>(key);
    const stored = read?.value;
    const current = fullRecord(stored);
    const next = change(current);
    if (next === current) return next;
    const ops: WriteOp[] = [{ op: 'set', key, value: next }];
    const guards: Guard[] = [{ key, bytes: read?.bytes }];
    const legacy = stored?.messageReadStateByContact;
    if (legacy !== undefined) {
      // An older record's read state moves to its own key, unless that key was written since.
      const readStateKey = userMetadataKeys.readState(pk33);
      const current = await store.getStored(readStateKey);
      if (current === undefined) ops.push({ op: 'set', key: readStateKey, value: legacy });
      guards.push({ key: readStateKey, bytes: current?.bytes });
    }
    ops.push(
      { op: 'indexAdd', key: userMetadataKeys.users, members: [hex] },
      // The list indexes follow the record in the same commit.
      { op: next.removeEverywhere ? 'indexAdd' : 'indexRemove', key: userMetadataKeys.blacklist, members: [hex] },
      { op: next.removeFromLeaderboard ? 'indexAdd' : 'indexRemove', key: userMetadataKeys.graylist, members: [hex] },
    );
    // IsBlacklisted / IsGraylisted show in cached profile answers (http/readCache.ts).
    if (Boolean(stored?.removeEverywhere) !== next.removeEverywhere || Boolean(stored?.removeFromLeaderboard) !== next.removeFromLeaderboard) ops.push(PROFILE_FLAGS_CHANGED);
    if (await store.commit(ops, guards)) return next;
  }
  throw new Error(`user metadata of ${toHex(pk33)} is changing too often to update`);
}

// --- message read state ----------------------------------------------------------------------

/** Contact public key (Base58Check) → messages read (client-defined). */
export type ReadState = Record<string, number>;

/**
 * Contacts one user's read state may hold: far more than anyone messages, and with keys that
 * are public keys (about 55 characters) it bounds the record to about 330 KB.
 */
export const MAX_READ_STATE_CONTACTS = 5000;
/** Longest contact key accepted: a Base58Check public key is 54 or 55 characters. */
export const MAX_READ_STATE_KEY_CHARS = 64;

/** A user's read state; {} when none. */
export async function getMessageReadState(store: Store, pk33: Uint8Array): Promise<ReadState> {
  return (await store.get<ReadState>(userMetadataKeys.readState(pk33))) ?? legacyReadState(store, pk33);
}

/** The read state a record of an older version still holds (until updateUserMetadata moves it out); {} when none. */
async function legacyReadState(store: Store, pk33: Uint8Array): Promise<ReadState> {
  return (await store.get<StoredUserMetadata>(userMetadataKeys.record(pk33)))?.messageReadStateByContact ?? {};
}

/**
 * `current` with `updates` over it (a key's new count replaces its old one), or null when the
 * result would hold more than {@link MAX_READ_STATE_CONTACTS} contacts.
 */
export function mergeReadState(current: ReadState, updates: ReadState): ReadState | null {
  const next: ReadState = Object.assign(Object.create(null) as ReadState, current);
  let size = Object.keys(next).length;
  for (const [k, n] of Object.entries(updates)) {
    if (k.length > MAX_READ_STATE_KEY_CHARS) throw new Error(`read state contact key of ${k.length} characters (at most ${MAX_READ_STATE_KEY_CHARS})`);
    if (!Object.hasOwn(next, k) && ++size > MAX_READ_STATE_CONTACTS) return null;
    next[k] = n;
  }
  return next;
}

/**
 * Merges `updates` into a user's read state, compare-and-set. Returns false, writing nothing,
 * when the result would exceed {@link MAX_READ_STATE_CONTACTS}.
 */
export async function updateMessageReadState(store: Store, pk33: Uint8Array, updates: ReadState): Promise<boolean> {
  const key = userMetadataKeys.readState(pk33);
  const hex = toHex(pk33);
  for (let i = 0; i < MAX_CAS_ATTEMPTS; i++) {
    const read = await store.getStored<ReadState>(key);
    // Before its first write, the read state may still be in an older record.
    const current = read?.value ?? (await legacyReadState(store, pk33));
    const next = mergeReadState(current, updates);
    if (next === null) return false;
    const ops: WriteOp[] = [
      { op: 'set', key, value: next },
      { op: 'indexAdd', key: userMetadataKeys.users, members: [hex] },
    ];
    if (await store.commit(ops, [{ key, bytes: read?.bytes }])) return true;
  }
  throw new Error(`message read state of ${hex} is changing too often to update`);
}

/** The first `limit` public keys (hex, ascending) with metadata on this node. */
export async function usersWithMetadata(store: Store, limit: number): Promise<string[]> {
  return store.indexRange(userMetadataKeys.users, { limit });
}

// --- moderation ------------------------------------------------------------------------------

export interface ModerationFlags {
  /** Reference IsBlacklisted (RemoveEverywhere). */
  isBlacklisted: boolean;
  /** Reference IsGraylisted (RemoveFromLeaderboard). */
  isGraylisted: boolean;
}

/**
 * The blacklist/graylist state of a public key, as get-single-profile and get-users-stateless
 * answer it (`IsBlacklisted`, `IsGraylisted`).
 */
export async function moderationFlags(store: Store, pk33: Uint8Array): Promise<ModerationFlags> {
  const m = await getUserMetadata(store, pk33);
  return { isBlacklisted: m.removeEverywhere, isGraylisted: m.removeFromLeaderboard };
}

/** Every blacklisted public key (hex, ascending). */
export async function blacklistedKeysHex(store: Store): Promise<Set<string>> {
  return new Set(await store.indexRange(userMetadataKeys.blacklist));
}

export type FilterList = 'whitelist' | 'graylist' | 'blacklist';

/** One change of a user's list membership (reference FilterAuditLog). */
export interface FilterAuditEntry {
  timestampNanos: bigint;
  filter: FilterList;
  /** The admin who made the change (Base58Check, or the dev-open-admin marker). */
  updater: string;
  /** The admin's username at the time, "" without a profile. */
  updaterUsername: string;
  updatedPublicKey: Uint8Array;
  /** The user's username at the time, "" without a profile. */
  updatedUsername: string;
  /** True when the user was taken off the list. */
  isRemoval: boolean;
}

/** Entries kept per user and list; older ones drop off (the node-wide admin audit log keeps every request). */
export const MAX_FILTER_LOG_ENTRIES = 1000;

/**
 * Puts `entry` first in the array at `key`, keeping at most `max` entries, compare-and-set so
 * concurrent writers from any process are retried, never lost.
 */
export async function prependLogEntry<T>(store: Store, key: string, entry: T, max: number): Promise<void> {
  for (let i = 0; i < MAX_CAS_ATTEMPTS; i++) {
    const read = await store.getStored<T[]>(key);
    const next = [entry, ...(read?.value ?? [])].slice(0, max);
    if (await store.commit([{ op: 'set', key, value: next }], [{ key, bytes: read?.bytes }])) return;
  }
  throw new Error(`log ${key} is changing too often to update`);
}

export async function appendFilterAuditLog(store: Store, entry: FilterAuditEntry): Promise<void> {
  await prependLogEntry(store, userMetadataKeys.filterLog(entry.filter, entry.updatedPublicKey), entry, MAX_FILTER_LOG_ENTRIES);
}

/** A user's changes on one list, newest first. */
export async function filterAuditLogs(store: Store, pk33: Uint8Array, list: FilterList): Promise<FilterAuditEntry[]> {
  return (await store.get<FilterAuditEntry[]>(userMetadataKeys.filterLog(list, pk33))) ?? [];
}

// --- blocks -----------------------------------------------------------------------------------

/** Blocks (or, with `unblock`, unblocks) `blocked` for `blocker`. Idempotent. */
export async function setBlocked(store: Store, blocker33: Uint8Array, blocked33: Uint8Array, unblock: boolean): Promise<void> {
  const key = userMetadataKeys.blocks(blocker33);
  await store.commit([
    { op: unblock ? 'indexRemove' : 'indexAdd', key, members: [toHex(blocked33)] },
    { op: 'indexAdd', key: userMetadataKeys.users, members: [toHex(blocker33)] },
    // Blocks hide posts, comments and notifications in cached answers (http/readCache.ts).
    PROFILE_FLAGS_CHANGED,
  ]);
}

/** Whether `blocker` has blocked `other` on this node. */
export async function isBlockedBy(store: Store, blocker33: Uint8Array, other33: Uint8Array): Promise<boolean> {
  return indexHas(store, userMetadataKeys.blocks(blocker33), toHex(other33));
}

/** Every public key `blocker` blocked (hex, ascending). */
export async function blockedKeysHex(store: Store, blocker33: Uint8Array): Promise<Set<string>> {
  return new Set(await store.indexRange(userMetadataKeys.blocks(blocker33)));
}

/**
 * Spec §4.4: a blocked user's comments on the blocker's posts are hidden for every reader.
 * True when the author of the post commented on (`parentPoster`) blocked the commenter. A
 * poster's own comments on their own post are never hidden.
 */
export async function isCommentHidden(store: Store, parentPoster33: Uint8Array, commenter33: Uint8Array): Promise<boolean> {
  if (Buffer.compare(parentPoster33, commenter33) === 0) return false;
  return isBlockedBy(store, parentPoster33, commenter33);
}

/**
 * Filters comments for display: drops those whose commenter the parent post's author blocked.
 * For feed routes that list the comments of one post (one index read for the whole list).
 */
export async function visibleComments<C extends { posterPublicKey: Uint8Array }>(store: Store, parentPoster33: Uint8Array, comments: readonly C[]): Promise<C[]> {
  if (comments.length === 0) return [];
  const blocked = await blockedKeysHex(store, parentPoster33);
  if (blocked.size === 0) return [...comments];
  return comments.filter((c) => Buffer.compare(c.posterPublicKey, parentPoster33) === 0 || !blocked.has(toHex(c.posterPublicKey)));
}

// --- email verification ----------------------------------------------------------------------

/** What a verification mail carries. `code` is a secret: only the recipient may see it. */
export interface VerificationMail {
  to: string;
  publicKeyBase58Check: string;
  code: string;
}

/** Where verification mails go. Plug a real transport in with {@link setMailer}. */
export interface Mailer {
  sendVerificationEmail(mail: VerificationMail): Promise<void>;
}

/** `a***@example.com`: enough to recognise an address in a log, not to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

interface InfoLogger {
  info(obj: object, msg: string): void;
}

/** The default: no transport, so the mail is logged — without its code or the full address. */
export function logMailer(log: InfoLogger): Mailer {
  return {
    async sendVerificationEmail(mail) {
      log.info({ to: maskEmail(mail.to), publicKey: mail.publicKeyBase58Check }, 'email verification requested; no mail transport is configured, so no mail was sent');
    },
  };
}

const mailers = new WeakMap<object, Mailer>();

/** Installs the mailer a process (identified by its deps object) sends verification mails with. */
export function setMailer(owner: object, mailer: Mailer): void {
  mailers.set(owner, mailer);
}

export function mailerFor(owner: object, log: InfoLogger): Mailer {
  return mailers.get(owner) ?? logMailer(log);
}

export const EMAIL_VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;

const sha256Hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** A fresh verification code and the record entry that checks it. */
export function newEmailVerification(email: string, nowMs: number): { code: string; entry: EmailVerification } {
  const code = randomBytes(24).toString('base64url');
  return { code, entry: { codeHashHex: sha256Hex(code), email, expiresAtMs: nowMs + EMAIL_VERIFICATION_TTL_MS } };
}

/**
 * Marks the email verified when `code` is the one mailed for the current address and has not
 * expired. Returns whether it was accepted; a used code cannot be used again.
 */
export async function confirmEmailVerification(store: Store, pk33: Uint8Array, code: string, nowMs = Date.now()): Promise<boolean> {
  let accepted = false;
  await updateUserMetadata(store, pk33, (m) => {
    const v = m.emailVerification;
    accepted = v !== null && v.email === m.email && v.expiresAtMs > nowMs && v.codeHashHex === sha256Hex(code);
    return accepted ? { ...m, emailVerified: true, emailVerification: null } : m;
  });
  return accepted;
}

/** Why no new code was issued: the user has no email address, or it is verified already. */
export type EmailRenewalRefusal = 'noEmail' | 'verified';

/**
 * A fresh verification code for the user's current, unverified address (resend-verify-email):
 * it replaces the previous code, which stops working, and restarts the expiry.
 */
export async function renewEmailVerification(store: Store, pk33: Uint8Array, nowMs = Date.now()): Promise<{ ok: true; email: string; code: string } | { ok: false; reason: EmailRenewalRefusal }> {
  let result: { ok: true; email: string; code: string } | { ok: false; reason: EmailRenewalRefusal } = { ok: false, reason: 'noEmail' };
  await updateUserMetadata(store, pk33, (m) => {
    if (m.email === '') return (result = { ok: false, reason: 'noEmail' }), m;
    if (m.emailVerified) return (result = { ok: false, reason: 'verified' }), m;
    const { code, entry } = newEmailVerification(m.email, nowMs);
    result = { ok: true, email: m.email, code };
    return { ...m, emailVerification: entry };
  });
  return result;
}
