/**
 * Request schemas: one declaration per route gives validation (here), typed handler input, and
 * (later) the OpenAPI document. JSON field names are matched as Go's encoding/json does it:
 * exact name first, then case-insensitively; unknown fields are ignored.
 */
import { DomainError } from './errors.js';
import { decodePublicKey, encodePublicKey, type Network } from './keys/index.js';

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

/** A value that does not fit its schema (REQUEST_INVALID, 400): names the path, never echoes long input. */
export class ValidationError extends DomainError {
  override readonly name = 'ValidationError';
  constructor(path: string, expected: string, got?: unknown) {
    super('REQUEST_INVALID', 'invalid', got === undefined ? `${path}: ${expected}` : `${path}: expected ${expected}, got ${describe(got)}`);
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

/** A finite JSON number within [min, max] (a multiplier, a fraction). */
function number(min: number, max: number): Schema<number> {
  return {
    json: { type: 'number', minimum: min, maximum: max },
    parse(v, path) {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new ValidationError(path, 'a number', v);
      if (v < min || v > max) throw new ValidationError(path, `a number from ${min} to ${max}`, v);
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

export const v = { string, boolean, int, number, uint64, publicKey, array, record, object, optional };

// ---------------------------------------------------------------------------------------------
// Response schemas

/**
 * What a route answers with 200: a JSON Schema that the OpenAPI document publishes
 * (openapi.ts) and that the router checks every answer against under `--check-responses`
 * (responseCheck.ts; the test nodes run with it). One declaration per route, next to its body
 * schema, so the document cannot drift from what the handlers send.
 *
 * Objects list every field they carry. The check treats an object that has `properties` and no
 * `additionalProperties` as closed, so a field a handler adds without documenting it fails the
 * e2e suites; the published schema leaves such objects open (JSON Schema's default), so a
 * client keeps working when a field is added later.
 */
export interface ResponseSchema {
  readonly json: JsonSchema;
  /** The route answers 200 with an empty body (the reference's answer to several writes). */
  readonly empty?: true;
  /** Some 200 answers of the route are empty, the others are `json` (say when in its description). */
  readonly orEmpty?: true;
}

/** A named schema lives once under `#/components/schemas/<name>`; uses are `$ref`s. */
const RESPONSE_COMPONENTS = new Map<string, JsonSchema>();

/** Every named response schema, by name (openapi.ts publishes those a document uses). */
export function responseComponents(): ReadonlyMap<string, JsonSchema> {
  return RESPONSE_COMPONENTS;
}

/** A field of `out.object` that may be absent (`omitempty` in the reference's Go structs). */
interface OutOptional {
  readonly outOptional: true;
  readonly schema: ResponseSchema;
}
type OutField = ResponseSchema | OutOptional;
const isOutOptional = (f: OutField): f is OutOptional => (f as OutOptional).outOptional === true;

const described = (json: JsonSchema, description: string | undefined): JsonSchema => (description === undefined ? json : { ...json, description });

/** The response-side builders (`v` is the request side). */
export const out = {
  string: (description?: string): ResponseSchema => ({ json: described({ type: 'string' }, description) }),
  /** A string matching `pattern` (no flags, as request patterns). */
  pattern: (pattern: RegExp, description?: string): ResponseSchema => ({ json: described({ type: 'string', pattern: pattern.source }, description) }),
  /** Lower-case hex of some bytes ("" for none). */
  hex: (description?: string): ResponseSchema => ({ json: described({ type: 'string', pattern: '^[0-9a-f]*$' }, description) }),
  /** Bytes as Go's encoding/json writes a []byte: standard base64. */
  base64: (description?: string): ResponseSchema => ({ json: described({ type: 'string', contentEncoding: 'base64' }, description) }),
  /** A Base58Check public key of the node's network ("" where the answer says so). */
  publicKey: (description?: string): ResponseSchema => ({ json: described({ type: 'string', format: PUBLIC_KEY_FORMAT }, description) }),
  boolean: (description?: string): ResponseSchema => ({ json: described({ type: 'boolean' }, description) }),
  /** A JSON integer (int, int64 or a uint64 known to stay below 2^53). */
  int: (description?: string): ResponseSchema => ({ json: described({ type: 'integer' }, description) }),
  /**
   * A Go uint64, written as a JSON number as Go writes it: values above 2^53 lose precision in
   * a JavaScript JSON.parse (amounts in nanos stay far below that in practice).
   */
  uint64: (description?: string): ResponseSchema => ({ json: described({ type: 'integer', minimum: 0, format: 'uint64' }, description) }),
  /** A JSON number that may have a fraction (Go float64). */
  number: (description?: string): ResponseSchema => ({ json: described({ type: 'number' }, description) }),
  /** Always null (a field the reference keeps for shape compatibility). */
  null: (description?: string): ResponseSchema => ({ json: described({ type: 'null' }, description) }),
  /** One of these values. */
  enum: (values: readonly (string | number | boolean)[], description?: string): ResponseSchema => ({ json: described({ enum: [...values] }, description) }),
  literal: (value: string | number | boolean, description?: string): ResponseSchema => ({ json: described({ const: value }, description) }),
  array: (item: ResponseSchema, description?: string): ResponseSchema => ({ json: described({ type: 'array', items: item.json }, description) }),
  /** An object keyed by strings the answer chooses (public keys, hashes), each value `value`. */
  record: (value: ResponseSchema, description?: string): ResponseSchema => ({ json: described({ type: 'object', additionalProperties: value.json }, description) }),
  /** The value, or null (Go's nil pointer, slice or map). */
  nullable: (s: ResponseSchema): ResponseSchema => {
    const j = s.json;
    if (typeof j['type'] === 'string' && j['enum'] === undefined && j['const'] === undefined) return { json: { ...j, type: [j['type'], 'null'] } };
    return { json: { anyOf: [j, { type: 'null' }] } };
  },
  /** One (or more) of these shapes. */
  anyOf: (options: readonly ResponseSchema[], description?: string): ResponseSchema => ({ json: described({ anyOf: options.map((o) => o.json) }, description) }),
  /** A field of `out.object` that the answer leaves out in some cases (say which in `description`). */
  optional: (schema: ResponseSchema): OutOptional => ({ outOptional: true, schema }),
  /** An object with exactly these fields (see ResponseSchema on closed objects). */
  object: (fields: Readonly<Record<string, OutField>>, description?: string): ResponseSchema => {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [name, f] of Object.entries(fields)) {
      if (isOutOptional(f)) properties[name] = f.schema.json;
      else {
        properties[name] = f.json;
        required.push(name);
      }
    }
    return { json: described({ type: 'object', properties, required }, description) };
  },
  /**
   * An object whose fields this document does not list (the transaction metadata of every
   * transaction type, a document of its own): a documented free-form object, never `{}`.
   */
  freeObject: (description: string): ResponseSchema => ({ json: { type: 'object', additionalProperties: true, description } }),
  /** The same schema with a description of this use. */
  describe: (s: ResponseSchema, description: string): ResponseSchema => ({ json: { ...s.json, description } }),
  /**
   * `s` published once as `#/components/schemas/<name>` and referenced from every use; a
   * generated client gets a type of that name. Defining one name twice differently throws.
   */
  named: (name: string, s: ResponseSchema): ResponseSchema => {
    const existing = RESPONSE_COMPONENTS.get(name);
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(s.json)) throw new Error(`response schema ${name} is defined twice`);
    RESPONSE_COMPONENTS.set(name, s.json);
    return { json: { $ref: `#/components/schemas/${name}` } };
  },
  /** A 200 with an empty body. */
  empty: (): ResponseSchema => ({ json: {}, empty: true }),
  /** `s`, or an empty body (a route with two kinds of answer, e.g. by operation). */
  orEmpty: (s: ResponseSchema): ResponseSchema => ({ json: s.json, orEmpty: true }),
};
