/**
 * One identity envelope in, one envelope out: shared by the WebSocket and the POST transport
 * (server/routes/identity.ts, server/node.ts). Never throws: every failure becomes an error
 * payload carrying the request's `id` when one was readable, with the HTTP status POST uses.
 * @module
 */
import type { Logger } from 'pino';
import { toErrorReply } from './errors.js';
import { errorResponse, parseFrame, parseFrameValue, type IdentityResponse } from '../identity/frames.js';
import type { IdentityService } from '../identity/service.js';

export interface FrameAnswer {
  /** 200 for an answer (including `approvalRequired`), 4xx/5xx for a refusal or failure. */
  status: number;
  response: IdentityResponse;
  /** HTTP headers of a refusal (e.g. `Retry-After` of a 429 or 503). */
  headers?: Readonly<Record<string, string>>;
}

export interface FrameChecks {
  /**
   * Runs before a `login` is handled; throws (an ApiError 429) to refuse it. Each login stores
   * a session for days, so logins take from their own, tighter rate limit.
   */
  beforeLogin?: () => Promise<void>;
}

/** `input` is either a socket message's text or a POST body already parsed as JSON. */
export async function answerFrame(
  service: IdentityService,
  input: { text: string } | { value: unknown },
  log: Logger,
  checks: FrameChecks = {},
): Promise<FrameAnswer> {
  const parsed = 'text' in input ? parseFrame(input.text) : parseFrameValue(input.value);
  if (!parsed.ok) return { status: 400, response: parsed.response };
  const { id, method } = parsed.request;
  try {
    if (method === 'login') await checks.beforeLogin?.();
    return { status: 200, response: await service.handle(parsed.request) };
  } catch (err) {
    // toErrorReply logs what is not the client's fault; messages it returns are safe to send.
    const e = toErrorReply(err, log.child({ identityMethod: method }));
    return { status: e.status, response: errorResponse(id, e.message), headers: e.headers };
  }
}

/** The text a refused socket message gets (too many in flight, binary frame). */
export function refusedFrame(text: string | null, reason: string): string {
  let id: string | null = null;
  if (text !== null) {
    const parsed = parseFrame(text);
    id = parsed.ok ? parsed.request.id : parsed.response.id;
  }
  return JSON.stringify(errorResponse(id, reason));
}
