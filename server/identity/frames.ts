/**
 * The identity frame envelope (spec §4.1; identity-and-crypto.md §2.1):
 *   request  {id, service: "identity", method, payload}
 *   response {id, service: "identity", payload}   (no `method`: that is how the two differ)
 * Parsing never throws: a malformed request becomes an error response that carries the
 * request's `id` whenever one could be read, so a client can match it.
 */
import { parseJsonText } from '../jsonText.js';

export const IDENTITY_SERVICE = 'identity';

/** Methods of the frame API this node serves: the spec's four plus the login steps they need. */
export const IDENTITY_METHODS = ['login', 'approve', 'logout', 'sign', 'encrypt', 'decrypt', 'jwt'] as const;
export type IdentityMethod = (typeof IDENTITY_METHODS)[number];

/** Longest accepted id; ids are UUIDs in practice. */
export const MAX_ID_LENGTH = 128;

export interface IdentityRequest {
  id: string;
  method: IdentityMethod;
  payload: Record<string, unknown>;
}

export interface IdentityResponse {
  id: string | null;
  service: typeof IDENTITY_SERVICE;
  payload: Record<string, unknown>;
}

export type ParsedFrame = { ok: true; request: IdentityRequest } | { ok: false; response: IdentityResponse };

export function response(id: string | null, payload: Record<string, unknown>): IdentityResponse {
  return { id, service: IDENTITY_SERVICE, payload };
}

export function errorResponse(id: string | null, message: string): IdentityResponse {
  return response(id, { error: message });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses one envelope from its JSON text (a socket message), or an already-parsed value. */
export function parseFrame(input: string | unknown): ParsedFrame {
  if (typeof input !== 'string') return parseFrameValue(input);
  let value: unknown;
  try {
    value = parseJsonText(input);
  } catch (err) {
    return { ok: false, response: errorResponse(null, `malformed JSON: ${(err as Error).message}`) };
  }
  return parseFrameValue(value);
}

/**
 * Checks an already-parsed envelope (a POST body). A string here is a JSON string body, not
 * envelope text: it is refused like any other non-object, never parsed a second time.
 */
export function parseFrameValue(value: unknown): ParsedFrame {
  if (!isPlainObject(value)) return { ok: false, response: errorResponse(null, 'frame must be a JSON object') };
  const rawId = value.id;
  const id = typeof rawId === 'string' && rawId.length > 0 && rawId.length <= MAX_ID_LENGTH ? rawId : null;
  const fail = (message: string): ParsedFrame => ({ ok: false, response: errorResponse(id, message) });
  if (id === null) {
    return fail(
      typeof rawId === 'string' && rawId.length > MAX_ID_LENGTH
        ? `"id" expected at most ${MAX_ID_LENGTH} characters, got ${rawId.length}`
        : '"id" expected a non-empty string',
    );
  }
  if (value.service !== IDENTITY_SERVICE) return fail(`"service" expected "${IDENTITY_SERVICE}"`);
  const method = value.method;
  if (typeof method !== 'string' || !(IDENTITY_METHODS as readonly string[]).includes(method)) {
    return fail(`"method" expected one of ${IDENTITY_METHODS.join(', ')}`);
  }
  const payload = value.payload ?? {};
  if (!isPlainObject(payload)) return fail('"payload" expected an object');
  return { ok: true, request: { id, method: method as IdentityMethod, payload } };
}
