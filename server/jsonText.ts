/**
 * JSON text from clients, read as Go's encoding/json reads it: an unpaired UTF-16 surrogate in
 * a string ("invalid UTF-16 surrogate pairs", which only a `\u` escape can spell once the bytes
 * are decoded as UTF-8) becomes U+FFFD instead of reaching the handlers. Left as is, such a
 * string is not valid Unicode: store keys refuse it (server/store/shared.ts), and a username
 * or access group name made of it turned a request into a 500.
 * @module
 */
import { assertJsonDepth } from './jsonDepth.js';

/** A `\u` escape of a surrogate (D800–DFFF) anywhere in the text: the cheap pre-check. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const wellFormed = (s: string): string => s.replace(LONE_SURROGATE, '\ufffd');

/**
 * JSON.parse of client text: nesting bounded (server/jsonDepth.ts), and every unpaired
 * surrogate in string values and object keys replaced by U+FFFD (Go's behaviour).
 * @throws {JsonTooDeepError} (server/jsonDepth.ts) when the text nests deeper than MAX_JSON_DEPTH
 * @throws {SyntaxError} when the text is not JSON
 */
export function parseJsonText(text: string): unknown {
  assertJsonDepth(text);
  const value: unknown = JSON.parse(text);
  if (!SURROGATE_ESCAPE.test(text)) return value;
  if (typeof value === 'string') return wellFormed(value);
  // Iterative: a body may nest as deep as JSON.parse allows.
  const pending: object[] = value !== null && typeof value === 'object' ? [value] : [];
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const v = node[key];
      const fixed = typeof v === 'string' ? wellFormed(v) : v;
      if (fixed !== null && typeof fixed === 'object') pending.push(fixed);
      const fixedKey = Array.isArray(node) ? key : wellFormed(key);
      if (fixedKey !== key) delete node[key];
      if (fixedKey !== key || fixed !== v) {
        // defineProperty: a "__proto__" key stays an own field, as JSON.parse made it.
        Object.defineProperty(node, fixedKey, { value: fixed, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return value;
}
