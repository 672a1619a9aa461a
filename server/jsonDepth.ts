/**
 * A bound on the nesting of JSON from outside (request bodies, socket frames, JWTs, post
 * bodies), checked before JSON.parse: its cost grows with depth far faster than with size.
 * @module
 */

/**
 * Deepest nesting of arrays and objects accepted from a client. No request of the API nests
 * past a handful of levels; without a bound, 1 MiB of `[[[…` costs JSON.parse a third of a
 * second of the event loop.
 */
export const MAX_JSON_DEPTH = 64;

/** JSON text nested deeper than {@link MAX_JSON_DEPTH}: refused before it is parsed. */
export class JsonTooDeepError extends SyntaxError {
  override readonly name = 'JsonTooDeepError';
  constructor(readonly maxDepth: number) {
    super(`JSON nests arrays and objects more than ${maxDepth} deep`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Throws {@link JsonTooDeepError} when `text` nests arrays and objects deeper than `max`: one
 * linear pass that skips string contents (escapes included), far cheaper than JSON.parse.
 * Text that is not JSON is left for JSON.parse to refuse.
 */
export function assertJsonDepth(text: string, max = MAX_JSON_DEPTH): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // To the closing quote; a backslash escapes the unit after it.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) throw new JsonTooDeepError(max);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
}
