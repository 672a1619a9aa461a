/**
 * DeSo public keys: 33-byte compressed secp256k1 points, written as Base58Check with a
 * per-network prefix. Only public data passes through here, so variable-time code is fine.
 * @module
 */
import { decodeBase58Check, encodeBase58Check } from './base58check.js';
import { KeyError } from './errors.js';
import { LruMap } from '../lru.js';

export type Network = 'mainnet' | 'testnet';

type Prefix = readonly [number, number, number];

/**
 * Base58Check version prefixes (shared/reference/node-api.md §6). Mainnet public keys encode
 * to 55 characters starting `BC1`, testnet ones to 54 starting `tBC`.
 * Tuples rather than Uint8Array so they can be frozen.
 */
export const PUBLIC_KEY_PREFIXES: Readonly<Record<Network, Prefix>> = Object.freeze({
  mainnet: Object.freeze([0xcd, 0x14, 0x00] as const),
  testnet: Object.freeze([0x11, 0xc2, 0x00] as const),
});

/** Known only so that a private key sent as a public key gets a clear message (same §6). */
export const PRIVATE_KEY_PREFIXES: Readonly<Record<Network, Prefix>> = Object.freeze({
  mainnet: Object.freeze([0x35, 0x00, 0x00] as const),
  testnet: Object.freeze([0x4f, 0x06, 0x1b] as const),
});

/** How a public key string of each network starts. */
export const PUBLIC_KEY_STRING_START: Readonly<Record<Network, string>> = { mainnet: 'BC1', testnet: 'tBC' };
const NETWORKS: readonly Network[] = ['mainnet', 'testnet'];

export const PUBLIC_KEY_LENGTH = 33;

/**
 * Read routes write the same few keys over and over (25 messages name 4 keys each); Base58Check
 * costs ~11 µs a key (double SHA-256 and a quadratic base conversion), a lookup here ~0.6 µs.
 * Bounded, ~200 bytes an entry; keys are public, so caching them leaks nothing.
 */
const ENCODED_CACHE_ENTRIES = 32_768;
const ENCODED: Readonly<Record<Network, LruMap<string, string>>> = { mainnet: new LruMap(ENCODED_CACHE_ENTRIES), testnet: new LruMap(ENCODED_CACHE_ENTRIES) };

/** secp256k1 field prime p = 2^256 - 2^32 - 977 and curve constant b (y^2 = x^3 + 7), SEC 2 §2.4.1. */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const B = 7n;

/**
 * Does not check that the bytes are a curve point: the order book encodes ZeroPKID (33 zero
 * bytes) as a key string, and stored keys were validated when they came in.
 */
export function encodePublicKey(key33: Uint8Array, network: Network): string {
  if (key33.length !== PUBLIC_KEY_LENGTH) {
    throw new RangeError(`"key33" expected ${PUBLIC_KEY_LENGTH} bytes, got ${key33.length}`);
  }
  const cache = ENCODED[network];
  const id = Buffer.from(key33.buffer, key33.byteOffset, PUBLIC_KEY_LENGTH).toString('latin1');
  let text = cache.get(id);
  if (text === undefined) {
    text = encodeBase58Check(PUBLIC_KEY_PREFIXES[network], key33);
    cache.set(id, text);
  }
  return text;
}


/**
 * Decodes an untrusted Base58Check public key for this node's network. Stricter than the
 * reference node, which ignores the prefix (node-api.md §6): a key for the other network is
 * refused rather than silently re-encoded with ours.
 * @param field - request field name, used in error messages
 * @param context - prepended to error messages as given, e.g. `SendDeSo: Problem decoding
 *   sender public key: ` (KeyError `context`)
 * @returns the 33-byte compressed key
 * @throws {KeyError} KEY_EMPTY, KEY_INVALID_BASE58, KEY_BAD_CHECKSUM, KEY_WRONG_NETWORK,
 *   KEY_BAD_LENGTH, KEY_NOT_ON_CURVE
 */
export function decodePublicKey(s: string, network: Network, field: string, context = ''): Uint8Array {
  const { prefix, payload } = decodeBase58Check(s, field, undefined, context);
  if (!prefixEquals(prefix, PUBLIC_KEY_PREFIXES[network])) {
    throw new KeyError(
      'KEY_WRONG_NETWORK',
      field,
      `expected a ${network} public key (prefix ${PUBLIC_KEY_STRING_START[network]}), got ${describePrefix(prefix)}`,
      context,
    );
  }
  if (payload.length !== PUBLIC_KEY_LENGTH) {
    throw new KeyError('KEY_BAD_LENGTH', field, `expected ${PUBLIC_KEY_LENGTH} bytes, got ${payload.length}`, context);
  }
  if (!isValidCompressedPoint(payload)) {
    const tag = payload[0] ?? 0;
    const detail =
      tag === 0x02 || tag === 0x03
        ? 'expected a secp256k1 point, got an x coordinate that is not on the curve'
        : `expected a compressed point (first byte 02 or 03), got first byte ${hexByte(tag)}`;
    throw new KeyError('KEY_NOT_ON_CURVE', field, detail, context);
  }
  return payload;
}

/**
 * SEC 1 §2.3.4 check for a compressed point: tag 02/03, x < p, and x^3 + 7 a square mod p.
 * Which root (the tag's parity) does not matter: if y works, so does p - y.
 */
export function isValidCompressedPoint(key33: Uint8Array): boolean {
  if (key33.length !== PUBLIC_KEY_LENGTH) return false;
  const tag = key33[0];
  if (tag !== 0x02 && tag !== 0x03) return false;
  const x = readUint256(key33, 1);
  if (x >= P) return false;
  const rhs = (((x * x) % P) * x + B) % P;
  // y = 0 has only the even root. Unreachable on secp256k1 (prime order, so no point of
  // order 2), kept so the function stays exact rather than relying on that fact.
  if (rhs === 0n) return tag === 0x02;
  return isQuadraticResidue(rhs);
}

/**
 * Legendre symbol (a|p) == 1 for 0 < a < p, computed as the Jacobi symbol by quadratic
 * reciprocity (equal for prime p). Only shifts, masks and `%` on shrinking operands, so it
 * beats any modpow: on Node 20 the whole check takes ~20 µs (bench/keys.bench.ts), against
 * ~80 µs for noble's Point.fromBytes (square root by addition chain) and ~110 µs for Euler's
 * criterion a^((p-1)/2) with a 5-bit sliding-window BigInt modpow (prototyped, not kept).
 */
function isQuadraticResidue(a: bigint): boolean {
  let n = P;
  let sign = 1;
  while (a !== 0n) {
    // (2|n) = -1 exactly when n ≡ 3 or 5 (mod 8); n is fixed during this loop.
    const nMod8 = n & 7n;
    const twoFlips = nMod8 === 3n || nMod8 === 5n;
    while ((a & 1n) === 0n) {
      a >>= 1n;
      if (twoFlips) sign = -sign;
    }
    // Reciprocity: (a|n) = -(n|a) when both are ≡ 3 (mod 4).
    if ((a & 3n) === 3n && (n & 3n) === 3n) sign = -sign;
    const next = n % a;
    n = a;
    a = next;
  }
  // n is gcd(a, p) = 1 for any a not divisible by p.
  return n === 1n && sign === 1;
}

/** Big-endian 32 bytes at `offset`; four 64-bit reads are ~2.5x faster than parsing hex. */
function readUint256(bytes: Uint8Array, offset: number): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 32);
  return (
    (view.getBigUint64(0) << 192n) |
    (view.getBigUint64(8) << 128n) |
    (view.getBigUint64(16) << 64n) |
    view.getBigUint64(24)
  );
}

function prefixEquals(actual: Uint8Array, expected: Prefix): boolean {
  return actual[0] === expected[0] && actual[1] === expected[1] && actual[2] === expected[2];
}

function describePrefix(prefix: Uint8Array): string {
  for (const net of NETWORKS) {
    if (prefixEquals(prefix, PUBLIC_KEY_PREFIXES[net])) return `a ${net} key`;
    if (prefixEquals(prefix, PRIVATE_KEY_PREFIXES[net])) return `a ${net} private key`;
  }
  return `unknown prefix ${Array.from(prefix, hexByte).join(' ')}`;
}

function hexByte(b: number): string {
  return b.toString(16).padStart(2, '0');
}
