/**
 * Mounts the route tables: path lookup (with and without the /api/v0 prefix, as the reference
 * node serves both), CORS and OPTIONS, content-type and JSON checks, schema validation, and the
 * mapping of every outcome to a response. Independent of uWS: it maps an IncomingRequest to an
 * OutgoingResponse, so it is testable without a socket.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Network } from '../keys/index.js';
import { finishResponse, newResponseMemo, type ResponseCoding, type ResponseMemo } from './compression.js';
import { LimitedCaller, UNLIMITED_CALLER } from './authenticatedCaller.js';
import { ApiError, toErrorReply } from './errors.js';
import { JsonTooDeepError } from '../jsonDepth.js';
import { parseJsonText } from '../jsonText.js';
import { parseMultipart } from './multipart.js';
import { stringifyWithBigints } from './jsonWithBigints.js';
import type { RequestLimiter } from './rateLimit.js';
import type { Method, Reply, Route } from './route.js';
import type { IncomingRequest, OutgoingResponse } from './uws.js';
import { PayloadTooLarge } from './uws.js';
import { originListed } from './origins.js';
import { ResponseChecker } from './responseCheck.js';
import { responseBody, type ResponseNames } from './responseNames.js';

export const API_PREFIX = '/api/v0';

export interface RouterOptions {
  network: Network;
  corsOrigins: readonly string[];
  log: Logger;
  /** Extra headers on every response (e.g. the answering process id). */
  commonHeaders?: ReadonlyArray<readonly [string, string]>;
  /** Rate limits, checked after the route matched: by address before the body is read, by public key once the request authenticated as it. */
  rateLimiter?: RequestLimiter | null;
  /** Called once per dispatched request, after its response is ready (metrics). */
  onDispatched?: ((o: DispatchObservation) => void) | null;
  /** A request slower than this is logged at info (all at debug; 5xx at info too). @default 1000 */
  slowRequestMs?: number;
  /** Response field names (responseNames.ts). @default 'spec' */
  responseNames?: ResponseNames;
  /**
   * Check every 200 answer against its route's response schema and answer 500 naming the
   * field when it does not conform (`--check-responses`; the test nodes run with it). Off, it
   * costs one property read per request. @default false
   */
  checkResponses?: boolean;
}

/** One dispatched request, as metrics see it. */
export interface DispatchObservation {
  /** The matched route's path pattern (bounded: never the raw URL), `(unmatched)` or `(preflight)`. */
  route: string;
  method: string;
  status: number;
  /** From dispatch to a ready response (compression included), seconds. */
  seconds: number;
  /** Body bytes as sent. */
  bodyBytes: number;
  encoding: ResponseCoding;
}

const UNMATCHED = '(unmatched)';
const PREFLIGHT = '(preflight)';

interface ParamRoute {
  segments: string[];
  route: Route;
}

type Match =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'wrongMethod'; allow: Method[] }
  | { kind: 'notFound' };

const CORS_STATIC: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Headers', 'Origin, X-Requested-With, Content-Type, Accept, Authorization'],
  ['Access-Control-Allow-Methods', 'GET, POST, OPTIONS'],
  ['Access-Control-Max-Age', '600'],
];

/**
 * What a caller learned of its bodies: `bigint` once one held a bigint. A route whose answers
 * hold bigints (submit-transaction's nonce, say) then goes straight to the replacer instead of
 * a plain JSON.stringify that throws at the first bigint, after doing most of the work.
 */
export interface StringifyHint {
  bigint: boolean;
}

export function stringifyJson(body: unknown, hint?: StringifyHint): string {
  if (hint?.bigint === true) return stringifyWithBigints(body);
  try {
    return JSON.stringify(body);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    if (hint !== undefined) hint.bigint = true;
    return stringifyWithBigints(body);
  }
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export class Router {
  private readonly exact = new Map<string, Map<Method, Route>>();
  private readonly withParams: ParamRoute[] = [];
  /** Per GET route: its last answer's ETag and compressed forms (compression.ts). */
  private readonly memos = new WeakMap<Route, ResponseMemo>();
  /** Per route: whether its answers hold bigints (stringifyJson). */
  private readonly hints = new WeakMap<Route, StringifyHint>();
  readonly routes: Route[] = [];
  private readonly checker: ResponseChecker | null;

  constructor(
    tables: ReadonlyArray<readonly Route[]>,
    private readonly opts: RouterOptions,
  ) {
    for (const table of tables) for (const r of table) this.add(r);
    this.checker = opts.checkResponses ? new ResponseChecker(opts.responseNames ?? 'spec') : null;
  }

  private add(r: Route): void {
    if (!r.path.startsWith('/') || r.path.startsWith(API_PREFIX)) {
      throw new Error(`route path ${r.path} must start with / and omit ${API_PREFIX}`);
    }
    this.routes.push(r);
    if (r.path.includes('/:')) {
      this.withParams.push({ segments: r.path.split('/'), route: r });
      return;
    }
    let byMethod = this.exact.get(r.path);
    if (!byMethod) this.exact.set(r.path, (byMethod = new Map()));
    if (byMethod.has(r.method)) throw new Error(`duplicate route ${r.method} ${r.path}`);
    byMethod.set(r.method, r);
  }

  match(method: string, url: string): Match {
    let path = url.startsWith(API_PREFIX + '/') ? url.slice(API_PREFIX.length) : url;
    // StrictSlash in the reference: /x/ is /x.
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const byMethod = this.exact.get(path);
    if (byMethod) {
      const r = byMethod.get(method as Method);
      return r ? { kind: 'route', route: r, params: {} } : { kind: 'wrongMethod', allow: [...byMethod.keys()] };
    }
    const segments = path.split('/');
    const allow: Method[] = [];
    for (const p of this.withParams) {
      if (p.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const want = p.segments[i]!;
        const got = segments[i]!;
        if (want.startsWith(':')) {
          if (got === '') ok = false;
          else params[want.slice(1)] = decodeURIComponentSafe(got);
        } else ok = want === got;
      }
      if (!ok) continue;
      if (p.route.method === method) return { kind: 'route', route: p.route, params };
      allow.push(p.route.method);
    }
    return allow.length ? { kind: 'wrongMethod', allow } : { kind: 'notFound' };
  }

  /**
   * The body limit of the route a request goes to, when it sets its own (`Route.maxBodyBytes`);
   * undefined for every other request, which the server's `--max-body-bytes` bounds. Synchronous:
   * the server decides before it reads a byte of the body.
   */
  bodyLimit(method: string, url: string): number | undefined {
    const m = this.match(method, url);
    return m.kind === 'route' ? m.route.maxBodyBytes : undefined;
  }

  /**
   * An origin listed in --cors-origins (exactly or by a `https://*.x` pattern) is echoed, with
   * credentials; `*` lets any other origin read answers without credentials. Echoing every
   * origin with credentials would let any site make credentialed reads as the visitor.
   */
  private corsHeaders(origin: string | undefined): Array<readonly [string, string]> {
    const out: Array<readonly [string, string]> = [...CORS_STATIC];
    const allowed = this.opts.corsOrigins;
    // The answer depends on Origin only when some origin is listed by name.
    if (allowed.some((a) => a !== '*')) out.push(['Vary', 'Origin']);
    if (origin && originListed(allowed, origin)) {
      out.push(['Access-Control-Allow-Origin', origin], ['Access-Control-Allow-Credentials', 'true']);
    } else if (allowed.includes('*')) {
      out.push(['Access-Control-Allow-Origin', '*']);
    }
    return out;
  }

  /**
   * Maps one request to its response. Never throws; every failure becomes a 4xx/5xx. Large
   * compressible bodies are compressed when the client accepts it, and GET answers carry an
   * ETag (304 on a matching If-None-Match): compression.ts.
   */
  async dispatch(req: IncomingRequest): Promise<OutgoingResponse> {
    const started = performance.now();
    const matched: { route: Route | null } = { route: null };
    const answer = await this.answer(req, matched);
    const route = matched.route;
    let memo: ResponseMemo | undefined;
    if (route?.method === 'GET') {
      memo = this.memos.get(route);
      if (memo === undefined) this.memos.set(route, (memo = newResponseMemo()));
    }
    const { out, encoding } = await finishResponse(answer, req, { etag: route?.method === 'GET', memo }, this.opts.log);
    const ms = performance.now() - started;
    const pattern = route?.path ?? (req.method === 'OPTIONS' ? PREFLIGHT : UNMATCHED);
    this.opts.onDispatched?.({
      route: pattern,
      method: req.method,
      status: out.status,
      seconds: ms / 1000,
      bodyBytes: typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.byteLength,
      encoding,
    });
    this.logRequest(req.method, pattern, out.status, ms);
    return out;
  }

  /**
   * One line per request: at debug always, at info when it failed on our side (5xx) or took
   * longer than `slowRequestMs`. The route's pattern, never the URL (it may carry keys), and
   * never a body or header (they carry seeds and JWTs).
   */
  private logRequest(method: string, route: string, status: number, ms: number): void {
    const log = this.opts.log;
    const slow = ms >= (this.opts.slowRequestMs ?? 1000);
    if (status >= 500 || slow) log.info({ method, route, status, ms: Math.round(ms * 10) / 10 }, slow ? 'slow request' : 'request failed');
    else if (log.isLevelEnabled('debug')) log.debug({ method, route, status, ms: Math.round(ms * 10) / 10 }, 'request');
  }

  private async answer(req: IncomingRequest, matched: { route: Route | null }): Promise<OutgoingResponse> {
    const base = [...(this.opts.commonHeaders ?? []), ...this.corsHeaders(req.headers.origin)];
    try {
      if (req.method === 'OPTIONS') return { status: 200, headers: base, body: '' };
      const m = this.match(req.method, req.url);
      if (m.kind === 'notFound') throw new ApiError(404, `no such route: ${req.method} ${truncate(req.url)}`);
      if (m.kind === 'wrongMethod') {
        throw new ApiError(405, `method ${req.method} not allowed on ${truncate(req.url)}; use ${m.allow.join(', ')}`, {
          Allow: [...m.allow, 'OPTIONS'].join(', '),
        });
      }
      const { route, params } = m;
      matched.route = route;
      await this.opts.rateLimiter?.checkAddress(route, req.remoteAddress);
      let body: unknown;
      if (route.method === 'POST') {
        const type = mediaType(req.headers['content-type']);
        const expected = route.bodyType === 'multipart' ? 'multipart/form-data' : 'application/json';
        if (type !== expected) {
          throw new ApiError(400, `Content-Type must be ${expected}, got ${type ? JSON.stringify(truncate(type)) : 'none'}`);
        }
        const raw = await (req.body ?? Promise.resolve(Buffer.alloc(0)));
        body = route.bodyType === 'multipart' ? parseMultipart(raw, req.headers['content-type']!) : parseJsonBody(raw);
        if (route.body) body = route.body.parse(body, '', { network: this.opts.network });
      }
      const limiter = this.opts.rateLimiter;
      const ctx = {
        body,
        params,
        query: new URLSearchParams(req.query),
        headers: req.headers,
        remoteAddress: req.remoteAddress,
        log: this.opts.log,
        caller: limiter ? new LimitedCaller(limiter, route, req.remoteAddress) : UNLIMITED_CALLER,
      };
      const reply = await route.handle(ctx);
      let hint = this.hints.get(route);
      if (hint === undefined) this.hints.set(route, (hint = { bigint: false }));
      const out = encodeReply(reply, base, this.opts.responseNames ?? 'spec', hint);
      if (this.checker !== null && route.response !== undefined) {
        const problem = this.checker.violation(route.response, out);
        if (problem !== null) {
          this.opts.log.error({ route: route.path, problem }, 'answer does not conform to its response schema');
          throw new ApiError(500, `response check: ${route.method} ${route.path} answered what its response schema does not describe: ${problem}`);
        }
      }
      return out;
    } catch (err) {
      const e = toErrorReply(err, this.opts.log, matched.route?.errorPrefixes);
      return {
        status: e.status,
        headers: [...base, ...Object.entries(e.headers), ['Content-Type', 'application/json']],
        body: stringifyJson({ error: e.message }) + '\n',
        close: err instanceof PayloadTooLarge,
      };
    }
  }
}

function parseJsonBody(buf: Buffer): unknown {
  if (buf.length === 0) throw new ApiError(400, 'request body is empty; send a JSON object, e.g. {}');
  try {
    return parseJsonText(buf.toString('utf8'));
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw new ApiError(400, `request body refused: ${err.message}`);
    throw new ApiError(400, `malformed JSON in request body: ${(err as Error).message}`);
  }
}

function encodeReply(reply: Reply, base: Array<readonly [string, string]>, names: ResponseNames, hint: StringifyHint): OutgoingResponse {
  switch (reply.kind) {
    case 'json':
      return {
        status: reply.status,
        headers: [...base, ...Object.entries(reply.headers ?? {}), ['Content-Type', 'application/json']],
        // The reference answers with json.Encoder output: compact JSON and a newline.
        body: stringifyJson(responseBody(reply.body, names), hint) + '\n',
      };
    case 'raw':
      return {
        status: reply.status,
        headers: [...base, ...Object.entries(reply.headers ?? {}), ['Content-Type', reply.contentType]],
        body: reply.body,
      };
    case 'empty':
      return { status: reply.status, headers: [...base, ['Content-Type', 'application/json']], body: '' };
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function truncate(s: string, max = 100): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
