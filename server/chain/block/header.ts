/**
 * The v1 block header (reference node-api.md §5.5): exactly 100 bytes,
 *
 *   off  0  u32be Version (= 1)
 *   off  4  PrevBlockHash[32]
 *   off 36  TransactionMerkleRoot[32]
 *   off 68  u64be TstampSecs     (must fit u32)
 *   off 76  u64be Height         (must fit u32)
 *   off 84  u64be Nonce
 *   off 92  u64be ExtraNonce
 *
 * Block hash = PoW hash = DeSoHashV1(header bytes); a header is valid PoW iff the hash read as a
 * big-endian integer is <= the 32-byte big-endian target.
 *
 * Differences from core (deso-protocol/core lib/network.go, checked with the code search):
 * core's `EncodeHeaderVersion1` refuses TstampSecs / Height > 2^32-1 but its decoder does not
 * check them, and it decodes any version other than 1 with the v0 (80-byte) layout. Here
 * `decodeHeader` is strict on both (HEADER_RANGE, HEADER_VERSION): a node that only mines and
 * accepts v1 blocks has no use for the v0 layout, and the u32 limit is what core enforces on
 * every header it serializes (so also on every header it hashes).
 * @module
 */
import { desoHashV1 } from '../../../wasm/hash.js';
import { BlockError } from './errors.js';
import { HASH_BYTES } from '../txn/sizes.js';

/** Size of a v1 header. */
export const HEADER_BYTES = 100;
/** The only header version this node produces and accepts. */
export const HEADER_VERSION_1 = 1;
/** Byte offsets of the fields in a v1 header. */
export const HEADER_OFFSETS = {
  version: 0,
  prevBlockHash: 4,
  transactionMerkleRoot: 36,
  tstampSecs: 68,
  height: 76,
  nonce: 84,
  extraNonce: 92,
} as const;

const U32_MAX = 0xffff_ffffn;
const U64_MAX = (1n << 64n) - 1n;

export interface BlockHeader {
  version: number;
  /** 32 bytes. */
  prevBlockHash: Uint8Array;
  /** 32 bytes. */
  transactionMerkleRoot: Uint8Array;
  /** Seconds since the epoch; fits u32. */
  tstampSecs: bigint;
  /** Fits u32. */
  height: bigint;
  /** u64. */
  nonce: bigint;
  /** u64 (the header field; the template's extra nonce lives in the block-reward ExtraData, §5.6). */
  extraNonce: bigint;
}

function checkRange(name: string, value: bigint, max: bigint): void {
  if (typeof value !== 'bigint' || value < 0n || value > max) {
    throw new BlockError('HEADER_RANGE', `header ${name} expected a bigint in [0, ${max}], got ${String(value)}`);
  }
}

function checkHash(name: string, value: Uint8Array): void {
  if (!(value instanceof Uint8Array) || value.length !== HASH_BYTES) {
    const got = value instanceof Uint8Array ? `${value.length} bytes` : typeof value;
    throw new BlockError('HEADER_FIELD', `header ${name} expected ${HASH_BYTES} bytes, got ${got}`);
  }
}

/**
 * The 100 header bytes. Refuses (HEADER_RANGE / HEADER_FIELD) what core's encoder refuses or
 * cannot write: a version outside u32, TstampSecs / Height beyond u32, nonces beyond u64, hash
 * fields that are not 32 bytes. The version is written as given (not forced to 1), so tests
 * and tools can build headers that decodeHeader must reject.
 */
export function encodeHeader(h: BlockHeader): Uint8Array {
  if (!Number.isInteger(h.version) || h.version < 0 || h.version > 0xffff_ffff) {
    throw new BlockError('HEADER_RANGE', `header version expected a u32, got ${String(h.version)}`);
  }
  checkHash('prevBlockHash', h.prevBlockHash);
  checkHash('transactionMerkleRoot', h.transactionMerkleRoot);
  checkRange('tstampSecs', h.tstampSecs, U32_MAX);
  checkRange('height', h.height, U32_MAX);
  checkRange('nonce', h.nonce, U64_MAX);
  checkRange('extraNonce', h.extraNonce, U64_MAX);
  const out = new Uint8Array(HEADER_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(HEADER_OFFSETS.version, h.version, false);
  out.set(h.prevBlockHash, HEADER_OFFSETS.prevBlockHash);
  out.set(h.transactionMerkleRoot, HEADER_OFFSETS.transactionMerkleRoot);
  view.setBigUint64(HEADER_OFFSETS.tstampSecs, h.tstampSecs, false);
  view.setBigUint64(HEADER_OFFSETS.height, h.height, false);
  view.setBigUint64(HEADER_OFFSETS.nonce, h.nonce, false);
  view.setBigUint64(HEADER_OFFSETS.extraNonce, h.extraNonce, false);
  return out;
}

/**
 * Parses exactly 100 bytes. HEADER_LENGTH for any other length, HEADER_VERSION unless Version
 * is 1, HEADER_RANGE when TstampSecs or Height is >= 2^32. The hash fields are copies, so the
 * result does not change when the input buffer is reused.
 */
export function decodeHeader(bytes: Uint8Array): BlockHeader {
  if (!(bytes instanceof Uint8Array) || bytes.length !== HEADER_BYTES) {
    const got = bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes;
    throw new BlockError('HEADER_LENGTH', `header expected ${HEADER_BYTES} bytes, got ${got}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(HEADER_OFFSETS.version, false);
  if (version !== HEADER_VERSION_1) {
    throw new BlockError('HEADER_VERSION', `header version expected ${HEADER_VERSION_1}, got ${version}`);
  }
  const tstampSecs = view.getBigUint64(HEADER_OFFSETS.tstampSecs, false);
  const height = view.getBigUint64(HEADER_OFFSETS.height, false);
  if (tstampSecs > U32_MAX) {
    throw new BlockError('HEADER_RANGE', `header tstampSecs expected to fit u32, got ${tstampSecs}`);
  }
  if (height > U32_MAX) {
    throw new BlockError('HEADER_RANGE', `header height expected to fit u32, got ${height}`);
  }
  return {
    version,
    prevBlockHash: bytes.slice(HEADER_OFFSETS.prevBlockHash, HEADER_OFFSETS.prevBlockHash + HASH_BYTES),
    transactionMerkleRoot: bytes.slice(
      HEADER_OFFSETS.transactionMerkleRoot,
      HEADER_OFFSETS.transactionMerkleRoot + HASH_BYTES,
    ),
    tstampSecs,
    height,
    nonce: view.getBigUint64(HEADER_OFFSETS.nonce, false),
    extraNonce: view.getBigUint64(HEADER_OFFSETS.extraNonce, false),
  };
}

/**
 * The block hash / PoW hash of 100 header bytes: DeSoHashV1 through the WASM core, on the
 * calling thread (about a microsecond). For bulk hashing or mining use the crypto pool
 * (server/crypto/service.ts `hashHeaders` / `mine`). The bytes are not decoded, so any
 * 100 bytes hash (e.g. the all-zero vector); other lengths are HEADER_LENGTH.
 */
export function headerHash(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length !== HEADER_BYTES) {
    const got = bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes;
    throw new BlockError('HEADER_LENGTH', `header expected ${HEADER_BYTES} bytes, got ${got}`);
  }
  return desoHashV1(bytes);
}

/**
 * Whether a 32-byte hash, read as a big-endian integer, is <= the 32-byte big-endian target
 * (§5.5: equality meets the target). TARGET when either is not 32 bytes.
 */
export function hashMeetsTarget(hash32: Uint8Array, target32: Uint8Array): boolean {
  if (!(hash32 instanceof Uint8Array) || hash32.length !== HASH_BYTES) {
    throw new BlockError('TARGET', `hash expected ${HASH_BYTES} bytes`);
  }
  if (!(target32 instanceof Uint8Array) || target32.length !== HASH_BYTES) {
    throw new BlockError('TARGET', `target expected ${HASH_BYTES} bytes`);
  }
  for (let i = 0; i < HASH_BYTES; i++) {
    const a = hash32[i]!;
    const b = target32[i]!;
    if (a !== b) return a < b;
  }
  return true;
}
