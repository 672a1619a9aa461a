/**
 * Pieces shared by both Store implementations: argument checks and commit preparation (so both
 * reject exactly the same inputs with the same StoreError codes) and subscriber delivery.
 */
import { decodeValue, encodeValue } from './codec.js';
import { StoreError, type Announcement, type Guard, type IndexRange, type WriteOp } from './types.js';

/** A WriteOp after validation, with its value already encoded. */
export type PreparedOp =
  | { op: 'set'; key: string; value: Buffer; ttlMs: number | undefined }
  | { op: 'del'; key: string }
  | { op: 'incr'; key: string; by: number }
  | { op: 'indexAdd'; key: string; members: string[] }
  | { op: 'indexRemove'; key: string; members: string[] };

/** A Guard with its expected value encoded; null means "key must be absent". */
export interface PreparedGuard {
  key: string;
  expected: Buffer | null;
}

/** A commit's Announcement after validation, its message encoded. */
export interface PreparedAnnouncement {
  channel: string;
  bytes: Buffer;
}

/** A validated IndexRange: at most one lower and one upper bound. */
export interface PreparedRange {
  lower: { value: string; inclusive: boolean } | undefined;
  upper: { value: string; inclusive: boolean } | undefined;
  reverse: boolean;
  limit: number | undefined;
}

function invalid(message: string): StoreError {
  return new StoreError('STORE_INVALID_ARGUMENT', message);
}

// Unpaired UTF-16 surrogates have no UTF-8 form (Redis would store U+FFFD), so two different JS
// strings could land on the same key. isWellFormed (ES2024, native in Node 20) finds them
// without a regexp run per key.
interface WellFormed {
  isWellFormed(): boolean;
}

/** Keys, channels, members and bounds: strings with a UTF-8 encoding. */
export function assertName(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string') throw invalid(`${what} must be a string, got ${typeof value}`);
  if (!(value as unknown as WellFormed).isWellFormed()) throw invalid(`${what} contains an unpaired UTF-16 surrogate`);
}

export function assertKeys(keys: unknown): asserts keys is readonly string[] {
  if (!Array.isArray(keys)) throw invalid('keys must be an array');
  for (const key of keys) assertName(key, 'key');
}

export function assertMembers(members: unknown): string[] {
  if (!Array.isArray(members)) throw invalid('index members must be an array of strings');
  for (const member of members) assertName(member, 'index member');
  return [...(members as string[])];
}

export function assertTtl(ttlMs: unknown): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw invalid(`ttlMs must be a positive integer number of milliseconds, got ${String(ttlMs)}`);
  }
  return ttlMs;
}

/** An expiring map entry's ttlMs: required, every entry expires. */
export function assertEntryTtl(ttlMs: unknown): number {
  const ttl = assertTtl(ttlMs);
  if (ttl === undefined) throw invalid('ttlMs must be given: every map entry expires');
  return ttl;
}

export function assertIncrement(by: unknown): number {
  if (typeof by !== 'number' || !Number.isSafeInteger(by)) {
    throw invalid(`counter increment must be a safe integer, got ${String(by)}`);
  }
  return by;
}

export function assertLimit(limit: unknown): number | undefined {
  if (limit === undefined) return undefined;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    throw invalid(`limit must be a non-negative integer, got ${String(limit)}`);
  }
  return limit;
}

export function prepareRange(range: IndexRange | undefined): PreparedRange {
  const r = range ?? {};
  if (typeof r !== 'object' || r === null) throw invalid('index range must be an object');
  if (r.gte !== undefined && r.gt !== undefined) throw invalid('index range: give gte or gt, not both');
  if (r.lte !== undefined && r.lt !== undefined) throw invalid('index range: give lte or lt, not both');
  const bound = (value: string | undefined, inclusive: boolean, what: string) => {
    if (value === undefined) return undefined;
    assertName(value, `index range ${what}`);
    return { value, inclusive };
  };
  return {
    lower: bound(r.gte, true, 'gte') ?? bound(r.gt, false, 'gt'),
    upper: bound(r.lte, true, 'lte') ?? bound(r.lt, false, 'lt'),
    reverse: r.reverse === true,
    limit: assertLimit(r.limit),
  };
}

/**
 * Validates and encodes a whole commit before anything is written, so an invalid op anywhere
 * in the list rejects the commit without side effects.
 */
export function prepareCommit(
  ops: readonly WriteOp[],
  guards: readonly Guard[] | undefined,
  announce?: Announcement,
): { ops: PreparedOp[]; guards: PreparedGuard[]; announce: PreparedAnnouncement | null } {
  if (!Array.isArray(ops)) throw invalid('commit ops must be an array');
  let preparedAnnounce: PreparedAnnouncement | null = null;
  if (announce !== undefined) {
    if (typeof announce !== 'object' || announce === null) throw invalid('commit announcement must be an object');
    assertName(announce.channel, 'announcement channel');
    preparedAnnounce = { channel: announce.channel, bytes: encodeValue(announce.message) };
  }
  if (guards !== undefined && !Array.isArray(guards)) throw invalid('commit guards must be an array');
  const preparedGuards = (guards ?? []).map((guard: Guard, i): PreparedGuard => {
    if (typeof guard !== 'object' || guard === null) throw invalid(`guard #${i} must be an object`);
    assertName(guard.key, `guard #${i} key`);
    if ('bytes' in guard) {
      if (guard.bytes === undefined) return { key: guard.key, expected: null };
      if (!(guard.bytes instanceof Uint8Array)) throw invalid(`guard #${i} bytes must be a Uint8Array or undefined`);
      return { key: guard.key, expected: Buffer.from(guard.bytes) };
    }
    return { key: guard.key, expected: guard.equals === undefined ? null : encodeValue(guard.equals) };
  });
  const preparedOps = ops.map((op: WriteOp, i): PreparedOp => {
    if (typeof op !== 'object' || op === null) throw invalid(`op #${i} must be an object`);
    assertName(op.key, `op #${i} key`);
    switch (op.op) {
      case 'set':
        return { op: 'set', key: op.key, value: encodeValue(op.value), ttlMs: assertTtl(op.ttlMs) };
      case 'del':
        return { op: 'del', key: op.key };
      case 'incr':
        return { op: 'incr', key: op.key, by: assertIncrement(op.by) };
      case 'indexAdd':
      case 'indexRemove':
        return { op: op.op, key: op.key, members: assertMembers(op.members) };
      default:
        throw invalid(`op #${i} has unknown kind ${String((op as { op: unknown }).op)}`);
    }
  });
  return { ops: preparedOps, guards: preparedGuards, announce: preparedAnnounce };
}

/** Hands a fresh decoded copy to one subscriber; its failures go to onError, never upward. */
export function deliver(
  onMessage: (message: unknown) => void,
  bytes: Uint8Array,
  onError: (err: unknown) => void,
): void {
  try {
    const result: unknown = onMessage(decodeValue(bytes));
    // An async callback's rejection would otherwise be an unhandled rejection (process exit).
    if (result instanceof Promise) result.catch(onError);
  } catch (err) {
    onError(err);
  }
}

/** Default sink for subscriber callback failures: visible on stderr, never fatal. */
export function warnSubscriberError(err: unknown): void {
  process.emitWarning(err instanceof Error ? err : new Error(String(err)), 'StoreSubscriberWarning');
}
