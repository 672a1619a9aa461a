/**
 * The key and record layout of the LMDB store (lmdb.ts): one LMDB database of binary keys, each
 * led by a kind byte:
 *
 * | key                                       | value                                  |
 * |-------------------------------------------|----------------------------------------|
 * | `v` key                                   | record: 0x00 + msgpack, or 0x01 + expiry (u64 BE epoch ms) + msgpack |
 * | `c` key                                   | counter (float64 LE)                   |
 * | `x` len(key) (u16 BE) key 0x01 member     | empty: one index member                |
 * | `n` key                                   | member count of index `key` (float64 LE) |
 * | `e` expiry (u64 BE) key                   | empty: a value that expires then       |
 * | `m` name                                  | store metadata (format, network)       |
 *
 * LMDB keys are ordered by their bytes, so an index is a key range and members come out in
 * UTF-8 byte order, as Redis BYLEX gives them. Members and keys are UTF-8, which has no 0xFF
 * byte: `prefix + 0xFF` bounds every key that starts with `prefix`.
 *
 * Counters and sizes are float64: exact for every safe integer, as JS numbers are.
 * @module
 */
import { StoreError } from './types.js';

/**
 * Longest key (UTF-8 bytes) the store takes. LMDB keys are at most 1978 bytes (4 KiB pages);
 * this leaves room for the kind byte, an expiry, and an index member after the key.
 */
export const MAX_KEY_BYTES = 1024;
/** LMDB's own limit on a whole key (lmdb-js with 4 KiB pages). */
const LMDB_MAX_KEY_BYTES = 1978;

export const VALUE = 0x76; // v
export const COUNTER = 0x63; // c
export const INDEX = 0x78; // x
export const INDEX_SIZE = 0x6e; // n
export const EXPIRY = 0x65; // e
export const META = 0x6d; // m

export const NO_EXPIRY = 0x00;
export const HAS_EXPIRY = 0x01;
/** Between an index's header and each member: `header 0x00` sorts below every member, `header 0x02` above. */
export const MEMBER_MARK = 0x01;
export const EMPTY = Buffer.alloc(0);

function invalid(message: string): StoreError {
  return new StoreError('STORE_INVALID_ARGUMENT', message);
}

/** `kind` + the UTF-8 of `name` (checked against MAX_KEY_BYTES). */
export function kindKey(kind: number, name: string): Buffer {
  const n = Buffer.byteLength(name);
  if (n > MAX_KEY_BYTES) throw invalid(`key is ${n} bytes of UTF-8; the LMDB store takes keys up to ${MAX_KEY_BYTES} bytes`);
  const out = Buffer.allocUnsafe(1 + n);
  out[0] = kind;
  out.write(name, 1, 'utf8');
  return out;
}

/** `x` len key: every member key of this index starts with it (then MEMBER_MARK). */
export function indexHeader(key: string): Buffer {
  const name = kindKey(INDEX, key);
  const out = Buffer.allocUnsafe(name.length + 2);
  out[0] = INDEX;
  out.writeUInt16BE(name.length - 1, 1);
  name.copy(out, 3, 1);
  return out;
}

/** header + mark + suffix (bytes). */
export function withSuffix(header: Buffer, mark: number, suffix: Buffer | string = EMPTY): Buffer {
  const tail = typeof suffix === 'string' ? Buffer.from(suffix, 'utf8') : suffix;
  const out = Buffer.allocUnsafe(header.length + 1 + tail.length);
  header.copy(out, 0);
  out[header.length] = mark;
  tail.copy(out, header.length + 1);
  return out;
}

export function memberKey(header: Buffer, member: string): Buffer {
  const key = withSuffix(header, MEMBER_MARK, member);
  if (key.length > LMDB_MAX_KEY_BYTES) {
    throw invalid(`index member of ${key.length - header.length - 1} bytes is too long for index key of ${header.length - 3} bytes (LMDB keys: ${LMDB_MAX_KEY_BYTES} bytes)`);
  }
  return key;
}

export function expiryKey(expiresAt: number, key: string): Buffer {
  const n = Buffer.byteLength(key);
  const out = Buffer.allocUnsafe(9 + n);
  out[0] = EXPIRY;
  out.writeBigUInt64BE(BigInt(expiresAt), 1);
  out.write(key, 9, 'utf8');
  return out;
}

/** The exclusive upper bound of every expiry key due at or before `nowMs`. */
export function expiryBound(nowMs: number): Buffer {
  const out = Buffer.allocUnsafe(9);
  out[0] = EXPIRY;
  out.writeBigUInt64BE(BigInt(nowMs + 1), 1);
  return out;
}

export function recordExpiry(record: Buffer): number | undefined {
  return record[0] === HAS_EXPIRY ? Number(record.readBigUInt64BE(1)) : undefined;
}

export function recordPayload(record: Buffer): Buffer {
  return record.subarray(record[0] === HAS_EXPIRY ? 9 : 1);
}

export function number64(buf: Buffer | undefined): number {
  return buf === undefined ? 0 : buf.readDoubleLE(0);
}

export function asNumber64(n: number): Buffer {
  const out = Buffer.allocUnsafe(8);
  out.writeDoubleLE(n, 0);
  return out;
}

/** A set's record: the expiry bytes are filled in when the transaction runs (its clock). */
export function setRecord(payload: Buffer, ttlMs: number | undefined): Buffer {
  const head = ttlMs === undefined ? 1 : 9;
  const out = Buffer.allocUnsafe(head + payload.length);
  out[0] = ttlMs === undefined ? NO_EXPIRY : HAS_EXPIRY;
  payload.copy(out, head);
  return out;
}
