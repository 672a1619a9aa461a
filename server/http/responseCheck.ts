/**
 * Checks a JSON value against a JSON Schema (2020-12, the keywords schema.ts and openapi.ts
 * emit): the router's `--check-responses` mode (every 200 answer against its route's response
 * schema) and the tests (answers against the published OpenAPI document) share it.
 *
 * Keywords: $ref (local, `#/…`), type, properties, required, additionalProperties, items,
 * minItems, maxItems, maxProperties, anyOf, oneOf, enum, const, pattern, minLength,
 * maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum. Everything else is an
 * annotation (description, format, default, contentEncoding, …) and checks nothing.
 * @module
 */
import { responseComponents, type JsonSchema, type ResponseSchema } from '../schema.js';
import { schemaWithNames, type ResponseNames } from './responseNames.js';

export interface CheckOptions {
  /** The document `$ref`s resolve in (`#/components/schemas/X` → root.components.schemas.X). */
  root?: unknown;
  /**
   * Objects with `properties` and no `additionalProperties` accept no other field (the check
   * of a node's own answers: an undocumented field is a failure). Off: JSON Schema's reading.
   */
  closed?: boolean;
}

type J = Record<string, unknown>;
const isObject = (x: unknown): x is J => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Nesting beyond this is a schema that refers to itself without end. */
const MAX_DEPTH = 64;

function typeOf(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
}

function typeMatches(want: string, x: unknown): boolean {
  const got = typeOf(x);
  return want === got || (want === 'number' && got === 'integer');
}

function resolveRef(root: unknown, ref: string): JsonSchema {
  if (!ref.startsWith('#/')) throw new Error(`$ref ${ref}: only local references are supported`);
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) at = isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  if (!isObject(at)) throw new Error(`$ref ${ref} does not resolve`);
  return at;
}

/** A short, value-free description of `x` for messages (answers may carry user data). */
function shown(x: unknown): string {
  const t = typeOf(x);
  if (t === 'string') return `a string of length ${(x as string).length}`;
  if (t === 'integer' || t === 'number' || t === 'boolean' || t === 'null') return `${t} ${String(x)}`;
  return t;
}

/**
 * Where `value` first fails `schema` and how (`$.Profile.Username: expected string, got
 * null`), or null when it conforms.
 * @throws {Error} when a `$ref` does not resolve in `opts.root`
 */
export function schemaViolation(schema: JsonSchema, value: unknown, opts: CheckOptions = {}, at = '$', depth = 0): string | null {
  if (depth > MAX_DEPTH) throw new Error(`${at}: schema nesting beyond ${MAX_DEPTH}`);
  const s = schema as J;
  const next = (sub: unknown, x: unknown, where: string): string | null => schemaViolation(sub as JsonSchema, x, opts, where, depth + 1);
  if (typeof s['$ref'] === 'string') {
    const e = next(resolveRef(opts.root, s['$ref']), value, at);
    if (e) return e;
  }
  if (s['type'] !== undefined) {
    const types = (Array.isArray(s['type']) ? s['type'] : [s['type']]) as string[];
    if (!types.some((t) => typeMatches(t, value))) return `${at}: expected ${types.join(' or ')}, got ${shown(value)}`;
  }
  if ('const' in s && JSON.stringify(s['const']) !== JSON.stringify(value)) return `${at}: expected ${JSON.stringify(s['const'])}, got ${shown(value)}`;
  if (Array.isArray(s['enum']) && !s['enum'].some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return `${at}: expected one of ${JSON.stringify(s['enum'])}, got ${shown(value)}`;
  }
  if (Array.isArray(s['anyOf'])) {
    const failures = (s['anyOf'] as unknown[]).map((sub) => next(sub, value, at));
    if (failures.every((f) => f !== null)) return `${at}: matches none of anyOf (${failures.join('; ')})`;
  }
  if (Array.isArray(s['oneOf'])) {
    const failures = (s['oneOf'] as unknown[]).map((sub) => next(sub, value, at));
    const matched = failures.filter((f) => f === null).length;
    if (matched !== 1) return matched === 0 ? `${at}: matches none of oneOf (${failures.join('; ')})` : `${at}: matches ${matched} branches of oneOf, not one`;
  }
  if (typeof value === 'string') {
    if (typeof s['maxLength'] === 'number' && [...value].length > s['maxLength']) return `${at}: longer than ${s['maxLength']} characters`;
    if (typeof s['minLength'] === 'number' && [...value].length < s['minLength']) return `${at}: shorter than ${s['minLength']} characters`;
    if (typeof s['pattern'] === 'string' && !new RegExp(s['pattern'], 'u').test(value)) return `${at}: ${shown(value)} does not match ${s['pattern']}`;
  }
  if (typeof value === 'number') {
    if (typeof s['minimum'] === 'number' && value < s['minimum']) return `${at}: ${value} is below the minimum ${s['minimum']}`;
    if (typeof s['maximum'] === 'number' && value > s['maximum']) return `${at}: ${value} is above the maximum ${s['maximum']}`;
    if (typeof s['exclusiveMinimum'] === 'number' && value <= s['exclusiveMinimum']) return `${at}: ${value} is not above ${s['exclusiveMinimum']}`;
    if (typeof s['exclusiveMaximum'] === 'number' && value >= s['exclusiveMaximum']) return `${at}: ${value} is not below ${s['exclusiveMaximum']}`;
  }
  if (Array.isArray(value)) {
    if (typeof s['maxItems'] === 'number' && value.length > s['maxItems']) return `${at}: more than ${s['maxItems']} items`;
    if (typeof s['minItems'] === 'number' && value.length < s['minItems']) return `${at}: fewer than ${s['minItems']} items`;
    if (s['items'] !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const e = next(s['items'], value[i], `${at}[${i}]`);
        if (e) return e;
      }
    }
  }
  if (isObject(value)) {
    const props = (isObject(s['properties']) ? s['properties'] : {}) as J;
    if (typeof s['maxProperties'] === 'number' && Object.keys(value).length > s['maxProperties']) return `${at}: more than ${s['maxProperties']} fields`;
    for (const k of (Array.isArray(s['required']) ? s['required'] : []) as string[]) {
      if (!Object.hasOwn(value, k)) return `${at}: missing required field ${k}`;
    }
    const extra = s['additionalProperties'] ?? (opts.closed && s['properties'] !== undefined ? false : undefined);
    for (const [k, x] of Object.entries(value)) {
      if (Object.hasOwn(props, k)) {
        const e = next(props[k], x, `${at}.${k}`);
        if (e) return e;
      } else if (extra === false) {
        return `${at}: field ${k} is not in the schema`;
      } else if (isObject(extra)) {
        const e = next(extra, x, `${at}.${k}`);
        if (e) return e;
      }
    }
  }
  return null;
}

/** The parts of an answer the check reads. */
export interface CheckedAnswer {
  status: number;
  headers: ReadonlyArray<readonly [string, string]>;
  body: string | Uint8Array;
}

/**
 * Checks 200 answers against their routes' response schemas (the router's `--check-responses`
 * mode): an answer that does not conform is a fault of the node, reported as a 500 naming the
 * field, so every e2e suite fails on a route whose answer and document disagree.
 */
export class ResponseChecker {
  private readonly roots = new Map<ResponseNames, unknown>();
  private readonly schemas = new WeakMap<ResponseSchema, JsonSchema>();

  constructor(private readonly names: ResponseNames) {}

  /** Why `answer` does not conform to `response`, or null (also for statuses other than 200). */
  violation(response: ResponseSchema, answer: CheckedAnswer): string | null {
    if (answer.status !== 200) return null;
    const length = typeof answer.body === 'string' ? answer.body.length : answer.body.byteLength;
    if (response.empty) return length === 0 ? null : `expected an empty body, got ${length} bytes`;
    if (response.orEmpty && length === 0) return null;
    const type = answer.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
    if (!/^application\/json\b/i.test(type)) return `expected application/json, got ${JSON.stringify(type)}`;
    let value: unknown;
    try {
      value = JSON.parse(typeof answer.body === 'string' ? answer.body : Buffer.from(answer.body).toString('utf8'));
    } catch {
      return 'the body is not JSON';
    }
    let schema = this.schemas.get(response);
    if (schema === undefined) this.schemas.set(response, (schema = schemaWithNames(response.json, this.names)));
    return schemaViolation(schema, value, { root: this.root(), closed: true });
  }

  /** The named schemas as a document `$ref`s resolve in, under this node's response names. */
  private root(): unknown {
    let root = this.roots.get(this.names);
    if (root === undefined) {
      root = schemaWithNames({ components: { schemas: Object.fromEntries(responseComponents()) } }, this.names);
      this.roots.set(this.names, root);
    }
    return root;
  }
}
