/**
 * Loading of the shared test vectors in `../shared/vectors/` (beside the repository) and
 * hex helpers for them.
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHARED_VECTORS_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'vectors');

/**
 * Parses `<repo>/../shared/vectors/<name>` (e.g. `sdk-vectors.json`, `wycheproof/…`).
 * The type parameter is the caller's claim about the file's shape; nothing checks it.
 */
export function readSharedVectors<T = unknown>(name: string): T {
  const file = path.resolve(SHARED_VECTORS_DIR, name);
  // Names come from test code, but a typo like '../x' should fail loudly, not read elsewhere.
  if (!file.startsWith(SHARED_VECTORS_DIR + path.sep)) {
    throw new RangeError(`"name" expected a path inside ${SHARED_VECTORS_DIR}, got ${name}`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Strict: odd length or a non-hex character throws (Buffer.from(s, 'hex') would truncate). */
export function hexToBytes(hex: string): Uint8Array {
  if (!HEX.test(hex)) {
    throw new RangeError(`"hex" expected an even-length hex string, got ${JSON.stringify(hex.slice(0, 60))}`);
  }
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** `fooHex` → `foo`; never for keys without a non-empty name before `Hex`. */
type HexBase<K> = K extends `${infer Base}Hex` ? (Base extends '' ? never : Base) : never;
type IsHexField<T, K extends keyof T> = [HexBase<K>] extends [never] ? false : T[K] extends string ? true : false;

/** Type of `deepHexToBytes(value)`: each `fooHex: string` becomes `foo: Uint8Array`, recursively. */
export type DeepHexToBytes<T> = T extends readonly (infer U)[]
  ? DeepHexToBytes<U>[]
  : T extends object
    ? {
        [K in keyof T as IsHexField<T, K> extends true ? HexBase<K> : K]: IsHexField<T, K> extends true
          ? Uint8Array
          : DeepHexToBytes<T[K]>;
      }
    : T;

/**
 * Turns every string property named `<name>Hex` into a Uint8Array property `<name>`,
 * through nested objects and arrays, so vector files keep hex and tests get bytes.
 * Other values are copied unchanged.
 */
export function deepHexToBytes<T>(value: T): DeepHexToBytes<T> {
  return convert(value) as DeepHexToBytes<T>;
}

function convert(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(convert);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.endsWith('Hex') && key.length > 3 && typeof v === 'string') {
      out[key.slice(0, -3)] = hexToBytes(v);
    } else {
      out[key] = convert(v);
    }
  }
  return out;
}
