/**
 * Request schemas: one declaration per route gives validation (here), typed handler input, and
 * (later) the OpenAPI document. JSON field names are matched as Go's encoding/json does it:
 * exact name first, then case-insensitively; unknown fields are ignored.
 */
import { decodePublicKey, encodePublicKey, type Network } from '../keys/index.js';
import { ApiError } from './errors.js';

export interface ParseContext {
  network: Network;
}

/**
 * JSON Schema fragment (2020-12, the dialect of OpenAPI 3.1) describing what a schema accepts;
 * server/http/openapi.ts publishes it and builds example requests from it.
 */
export type JsonSchema = Record<string, unknown>;

/** The `format` of Base58Check public keys (a custom format; JSON Schema treats it as an annotation). */
export const PUBLIC_KEY_FORMAT = 'base58check-public-key';

export interface Schema<T> {
  readonly json: JsonSchema;
  parse(value: unknown, path: string, ctx: ParseContext): T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

export class ValidationError extends ApiError {
  constructor(path: string, expected: string, got?: unknown) {
    super(400, got === undefined ? `${path}: ${expected}` : `${path}: expected ${expected}, got ${describe(got)}`);
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return v.length > 40 ? `a string of length ${v.length}` : `string ${JSON.stringify(v)}`;
  if (typeof v === 'number') return `number ${v}`;
  return typeof v;
}

export interface StringOptions {
  maxLength?: number;
  pattern?: RegExp;
  /** Human name of the pattern for error messages, e.g. "hex". */
  patternName?: string;
}

function string(opts: StringOptions = {}): Schema<string> {
  const { maxLength = 1 << 20, pattern, patternName } = opts;
  // A JSON Schema pattern is the bare source: flags other than `u` would change its meaning.
  if (pattern && pattern.flags.replace('u', '') !== '') {
    throw new Error(`v.string pattern ${pattern} has flags; JSON Schema patterns have none (only u is allowed)`);
  }
  return {
    json: {
      type: 'string',
      maxLength,
      ...(pattern ? { pattern: pattern.source } : {}),
      ...(patternName ? { description: patternName } : {}),
    },
    parse(v, path) {
      if (typeof v !== 'string') throw new ValidationError(path, 'a string', v);
      if (v.length > maxLength) throw new ValidationError(path, `expected at most ${maxLength} characters, got ${v.length}`);
      if (pattern && !pattern.test(v)) throw new ValidationError(path, patternName ?? `a string matching ${pattern}`, v);
      return v;
    },
  };
}

function boolean(): Schema<boolean> {
  return {
    json: { type: 'boolean' },
    parse(v, path) {
      if (typeof v !== 'boolean') throw new ValidationError(path, 'true or false', v);
      return v;
    },
  };
}

/** A JSON integer within [min, max] (both safe integers). */
function int(min: number, max: number): Schema<number> {
  return {
    json: { type: 'integer', minimum: min, maximum: max },
    parse(v, path) {
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new ValidationError(path, 'an integer', v);
      if (v < min || v > max) throw new ValidationError(path, `an integer from ${min} to ${max}`, v);
      return v;
    },
  };
}

const U64_MAX = (1n << 64n) - 1n;

/**
 * An unsigned 64-bit integer. JSON numbers above 2^53 have already lost precision in
 * JSON.parse, so a decimal string is accepted too (clients send e.g. StartTimestampString).
 */
function uint64(): Schema<bigint> {
  return {
    json: {
      oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^[0-9]{1,20}$' }],
      description: `unsigned 64-bit integer (at most ${U64_MAX}); send values above 2^53 as a decimal string`,
    },
    parse(v, path) {
      let n: bigint;
      if (typeof v === 'number' && Number.isInteger(v) && v >= 0) n = BigInt(v);
      else if (typeof v === 'string' && /^[0-9]{1,20}$/.test(v)) n = BigInt(v);
      else throw new ValidationError(path, 'an unsigned 64-bit integer', v);
      if (n > U64_MAX) throw new ValidationError(path, 'an unsigned 64-bit integer', v);
      return n;
    },
  };
}

export interface PublicKey {
  /** Base58Check with this node's network prefix. */
  base58: string;
  /** 33-byte compressed secp256k1 point. */
  bytes: Uint8Array;
}

/** A Base58Check public key of this node's network; checksum, length and curve point checked. */
function publicKey(): Schema<PublicKey> {
  return {
    json: {
      type: 'string',
      format: PUBLIC_KEY_FORMAT,
      pattern: '^[1-9A-HJ-NP-Za-km-z]{50,60}$',
      description: "Base58Check public key of this node's network (BC… on mainnet, tBC… on testnet)",
    },
    parse(v, path, ctx) {
      if (typeof v !== 'string') throw new ValidationError(path, 'a Base58Check public key string', v);
      const bytes = decodePublicKey(v, ctx.network, path);
      return { base58: encodePublicKey(bytes, ctx.network), bytes };
    },
  };
}

function array<T>(item: Schema<T>, maxItems = 10_000): Schema<T[]> {
  return {
    json: { type: 'array', items: item.json, maxItems },
    parse(v, path, ctx) {
      if (!Array.isArray(v)) throw new ValidationError(path, 'an array', v);
      if (v.length > maxItems) throw new ValidationError(path, `expected at most ${maxItems} items, got ${v.length}`);
      return v.map((x, i) => item.parse(x, `${path}[${i}]`, ctx));
    },
  };
}

/**
 * Keys a client-supplied map may not have: on a plain object they reach the prototype chain,
 * and msgpackr (the store codec) reads `__proto__` back as `__proto_`, so such a record would
 * never compare equal to itself again.
 */
export const FORBIDDEN_MAP_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function record<T>(value: Schema<T>, maxEntries = 10_000): Schema<Record<string, T>> {
  return {
    json: {
      type: 'object',
      additionalProperties: value.json,
      maxProperties: maxEntries,
      description: `keys ${[...FORBIDDEN_MAP_KEYS].join(', ')} are refused`,
    },
    parse(v, path, ctx) {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ValidationError(path, 'an object', v);
      const entries = Object.entries(v);
      if (entries.length > maxEntries) throw new ValidationError(path, `expected at most ${maxEntries} entries`);
      // Keys first: the refusal names the key whatever the values are.
      const forbidden = entries.find(([k]) => FORBIDDEN_MAP_KEYS.has(k));
      if (forbidden) throw new ValidationError(path, `the key ${JSON.stringify(forbidden[0])} is not allowed (${[...FORBIDDEN_MAP_KEYS].join(', ')} never are)`);
      const out: Record<string, T> = Object.create(null);
      for (const [k, x] of entries) out[k] = value.parse(x, `${path}.${k}`, ctx);
      return out;
    },
  };
}

/** A field that may be absent (or null, which Go treats as absent); `fallback` fills it then. */
export interface Optional<T> {
  readonly optional: true;
  readonly schema: Schema<T>;
  readonly fallback: T | undefined;
}

function optional<T>(schema: Schema<T>): Optional<T | undefined>;
function optional<T>(schema: Schema<T>, fallback: T): Optional<T>;
function optional<T>(schema: Schema<T>, fallback?: T): Optional<T | undefined> {
  return { optional: true, schema, fallback };
}

type Field = Schema<unknown> | Optional<unknown>;
type FieldValue<F> = F extends Optional<infer T> ? T : F extends Schema<infer T> ? T : never;
export type ObjectOf<F extends Record<string, Field>> = { [K in keyof F]: FieldValue<F[K]> };

function isOptional(f: Field): f is Optional<unknown> {
  return (f as Optional<unknown>).optional === true;
}

function object<F extends Record<string, Field>>(fields: F): Schema<ObjectOf<F>> {
  const names = Object.keys(fields);
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const n of names) {
    const f = fields[n]!;
    if (isOptional(f)) {
      const fallback = jsonValue(f.fallback);
      properties[n] = fallback === undefined ? f.schema.json : { ...f.schema.json, default: fallback };
    } else {
      properties[n] = f.json;
      required.push(n);
    }
  }
  return {
    json: { type: 'object', properties, required, additionalProperties: true },
    parse(v, path, ctx) {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) {
        throw new ValidationError(path || 'request body', 'a JSON object', v);
      }
      // Go's encoding/json: an exact key match wins over a case-insensitive one.
      const found = new Map<string, unknown>();
      const exact = new Set<string>();
      for (const [k, x] of Object.entries(v)) {
        if (Object.hasOwn(fields, k)) {
          found.set(k, x);
          exact.add(k);
          continue;
        }
        const canonical = byLower.get(k.toLowerCase());
        if (canonical !== undefined && !exact.has(canonical)) found.set(canonical, x);
      }
      const out: Record<string, unknown> = {};
      for (const n of names) {
        const f = fields[n]!;
        const x = found.get(n);
        const fieldPath = path ? `${path}.${n}` : n;
        if (x === undefined || x === null) {
          if (!isOptional(f)) throw new ValidationError(fieldPath, 'is required');
          out[n] = f.fallback;
        } else {
          out[n] = (isOptional(f) ? f.schema : f).parse(x, fieldPath, ctx);
        }
      }
      return out as ObjectOf<F>;
    },
  };
}

/**
 * A field's fallback as the JSON `default` annotation, when it has a JSON form (bigint as a
 * number when safe, else a decimal string; anything holding bytes or undefined has none).
 */
function jsonValue(x: unknown): unknown {
  if (typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x))) return x;
  if (typeof x === 'bigint') return x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x.toString();
  if (Array.isArray(x)) {
    const items = x.map(jsonValue);
    return items.includes(undefined) ? undefined : items;
  }
  if (typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, y] of Object.entries(x)) {
      const j = jsonValue(y);
      if (j === undefined) return undefined;
      out[k] = j;
    }
    return out;
  }
  return undefined;
}

export const v = { string, boolean, int, uint64, publicKey, array, record, object, optional };
