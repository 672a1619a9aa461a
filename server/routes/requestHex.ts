/**
 * Hex a request names, decoded, or a 400 with the route's message. Every route that decodes a
 * hex field and refuses bad hex with a 400 goes through this one function.
 * @module
 */
import { parseHex } from '../hex.js';
import { badRequest } from '../http/errors.js';

/** @throws {ApiError} (400) `message` when `s` is not an even number of hex digits */
export function hexOr400(s: string, message: string): Uint8Array {
  const bytes = parseHex(s);
  if (bytes === null) throw badRequest(message);
  return bytes;
}
