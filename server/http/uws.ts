/**
 * The one module that touches uWebSockets.js. It owns uWS's lifetime rules:
 * - `req` is stack-allocated: everything needed (method, url, query, headers) is copied
 *   synchronously, before any await;
 * - `onAborted` and `onData` are attached synchronously, before any await;
 * - `onData` chunks are copied (uWS reuses the memory after the callback returns);
 * - responses are written only inside `res.cork()`, and never after an abort.
 */
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import { STATUS_CODES } from 'node:http';
import type * as Uws from 'uWebSockets.js';
import type { ClientAddresses, ForwardingHeaders } from './clientAddress.js';
import { ApiError } from './errors.js';
import { selectUws, UWS_BUILDS, type UwsLoader, type UwsRuntime } from './uwsBuild.js';

const require = createRequire(import.meta.url);

export type UwsModule = typeof Uws;

export interface LoadedUws {
  uws: UwsModule;
  /** Which shipped build (uwsBuild.ts UWS_BUILDS). */
  build: string;
  /** True when no native binary loaded and the pure-JS server runs (only with `allowFallback`). */
  isFallback: boolean;
  /** Why each build tried before it was not used. */
  skipped: string[];
}

/** No shipped build has a native binary for this Node and platform, and the fallback was not allowed. */
export class UwsUnavailableError extends Error {
  override readonly name = 'UwsUnavailableError';
}

/** Whether a `.node` addon under the package's directory has been loaded (the Truffle build's only trace of a native load). */
function loadedNativeAddon(packageName: string): boolean {
  const pkgDir = dirname(require.resolve(`${packageName}/package.json`)) + sep;
  return Object.keys(require.cache).some((f) => f.startsWith(pkgDir) && f.endsWith('.node'));
}

/** Requires a package, saying "not installed" rather than a resolver stack when it is absent. */
function requirePackage(packageName: string): UwsModule {
  try {
    return require(packageName) as UwsModule;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'MODULE_NOT_FOUND' && e.message.includes(`'${packageName}'`)) {
      throw new Error('not installed (an optional dependency; npm ci installs it)');
    }
    throw err;
  }
}

/** The real loaders of the shipped builds, by package. */
const LOADERS: Readonly<Record<string, UwsLoader<UwsModule>>> = {
  // Falls back silently to pure JS when no binary matches: the loaded addon tells.
  'uWebSockets.js': () => {
    const uws = requirePackage('uWebSockets.js');
    return { uws, native: loadedNativeAddon('uWebSockets.js') };
  },
  // Throws when no binary matches (or dlopen fails, e.g. on glibc < 2.38).
  '@btc-vision/uwebsockets.js': () => ({ uws: requirePackage('@btc-vision/uwebsockets.js'), native: true }),
};

/** This process's Node, platform and glibc (process.report names the glibc a Linux Node runs on). */
export function currentRuntime(): UwsRuntime {
  let glibc: string | null = null;
  if (process.platform === 'linux') {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    glibc = report?.header?.glibcVersionRuntime ?? null;
  }
  return { nodeVersion: process.versions.node, platform: process.platform, arch: process.arch, glibc };
}

/**
 * Loads the shipped uWS build that has a native binary for this Node and platform (uwsBuild.ts
 * chooses). Without one, throws UwsUnavailableError saying why each build was not used, unless
 * `allowFallback`: then the pure-JS server runs (`isFallback`), for development only.
 */
export function loadUws(opts: { allowFallback?: boolean } = {}): LoadedUws {
  const candidates = UWS_BUILDS.map((spec) => ({ spec, load: LOADERS[spec.packageName]! }));
  const chosen = selectUws(currentRuntime(), candidates, opts.allowFallback ?? false);
  if (chosen.kind === 'refused') throw new UwsUnavailableError(chosen.message);
  return { uws: chosen.uws, build: chosen.build, isFallback: chosen.kind === 'fallback', skipped: chosen.skipped };
}

export interface IncomingRequest {
  /** Upper-case method. */
  method: string;
  url: string;
  query: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The client: the TCP peer, or behind a trusted proxy the address it reports (clientAddress.ts). */
  remoteAddress: string;
  /** The request body, collected up to the size limit; null for methods without a body. */
  body: Promise<Buffer> | null;
}

export interface OutgoingResponse {
  status: number;
  headers: ReadonlyArray<readonly [string, string]>;
  body: string | Uint8Array;
  /** Close the connection after answering (used when an unread body remains). */
  close?: boolean;
}

export type Dispatch = (req: IncomingRequest) => OutgoingResponse | Promise<OutgoingResponse>;

const STATUS_LINES = new Map<number, string>(
  Object.entries(STATUS_CODES).map(([code, text]) => [Number(code), `${code} ${text ?? ''}`]),
);

/**
 * The request headers routes may read. Copying a fixed list is cheaper than req.forEach and
 * works on the pure-JS fallback, which lacks forEach.
 */
export const COPIED_HEADERS = [
  'content-type',
  'content-length',
  'origin',
  'accept-encoding',
  'if-none-match',
  'x-forwarded-for',
  'user-agent',
  // The URLs a route answers with that point back at this node (upload-image's ImageURL).
  'host',
] as const;

function queryOf(req: Uws.HttpRequest): string {
  try {
    return req.getQuery() ?? '';
  } catch {
    return ''; // the fallback's getQuery throws on URLs without a query
  }
}

function remoteAddress(res: Uws.HttpResponse): string {
  try {
    return Buffer.from(res.getRemoteAddressAsText()).toString();
  } catch {
    return ''; // not implemented by the pure-JS fallback
  }
}

/**
 * Every X-Forwarded-For and Forwarded line of a request, each name's lines joined in order:
 * getHeader answers only the first line of a repeated header, which may be one the client
 * wrote ahead of its proxy's.
 */
function forwardingHeaders(req: Uws.HttpRequest): ForwardingHeaders {
  const xff: string[] = [];
  const fwd: string[] = [];
  try {
    req.forEach((name, value) => {
      if (name === 'x-forwarded-for') xff.push(value);
      else if (name === 'forwarded') fwd.push(value);
    });
  } catch {
    // The pure-JS fallback has no forEach: the first lines only.
    xff.push(req.getHeader('x-forwarded-for'));
    fwd.push(req.getHeader('forwarded'));
  }
  return {
    ...(xff.some((v) => v !== '') ? { xForwardedFor: xff.join(',') } : {}),
    ...(fwd.some((v) => v !== '') ? { forwarded: fwd.join(',') } : {}),
  };
}

/** The client of a request or upgrade: the peer, or what a trusted proxy reports. Synchronous: `req` is read. */
function clientAddressOf(res: Uws.HttpResponse, req: Uws.HttpRequest, resolver: ClientAddresses | null | undefined): string {
  const peer = remoteAddress(res);
  if (!resolver?.trusts(peer)) return peer;
  return resolver.resolve(peer, forwardingHeaders(req));
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class PayloadTooLarge extends ApiError {
  constructor(limit: number) {
    super(413, `request body is larger than the limit of ${limit} bytes`);
  }
}

function collectBody(res: Uws.HttpResponse, contentLength: string, limit: number): Promise<Buffer> {
  const declared = contentLength === '' ? -1 : Number(contentLength);
  if (declared > limit) {
    // Rejected before a byte is read; the unread body means the connection must close.
    return Promise.reject(new PayloadTooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) {
        done = true;
        reject(new PayloadTooLarge(limit));
        return;
      }
      // Copy: uWS frees the chunk's memory when this callback returns.
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        done = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      }
    });
  });
}

/** C0 controls but tab, and DEL: a CR or LF in a header would end it and start another. */
const HEADER_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * The name of the first header whose name or value holds a control character, or null.
 * uWS writes headers as given, so this is the last stop before header injection.
 */
export function unsafeHeaderName(headers: OutgoingResponse['headers']): string | null {
  for (const [name, value] of headers) if (HEADER_CONTROL.test(name) || HEADER_CONTROL.test(value)) return name;
  return null;
}

/** Answered when even the internal-error response would carry an unsafe header. */
const BARE_500: OutgoingResponse = { status: 500, headers: [['Content-Type', 'application/json']], body: '{"error":"internal server error"}' };

export interface ServeOptions {
  maxBodyBytes: number;
  /** A route's own body limit for this method and path (Router.bodyLimit), in place of `maxBodyBytes`. */
  bodyLimit?: (method: string, url: string) => number | undefined;
  /** Called once per request when its response is written or it was aborted. */
  onSettled?: () => void;
  /** Called once per request as it arrives. */
  onStart?: () => void;
  /** When true, every response closes its connection (set while shutting down). */
  closeConnections?: () => boolean;
  /** Last resort: dispatch threw or rejected (it should never). */
  onInternalError: (err: unknown) => OutgoingResponse;
  /** Resolves clients behind trusted proxies (`--trust-proxy`); absent: the TCP peer is the client. */
  clientAddress?: ClientAddresses | null;
}

/**
 * One request's answer: written at most once, never after an abort. A class rather than
 * closures per request: the dev runtime (tsx, esbuild keepNames) names every closure bound to
 * a variable with a property definition each time it is created, ~1% of a busy event loop.
 */
class Exchange {
  private aborted = false;
  private settled = false;
  /**
   * Whether the whole body was read: if not when answering, the connection must close so the
   * unread rest is not taken for the next request.
   */
  private bodyComplete = true;

  constructor(
    private readonly res: Uws.HttpResponse,
    private readonly opts: ServeOptions,
  ) {}

  /** The client went away: nothing is written any more. */
  abort(): void {
    this.aborted = true;
    this.settle();
  }

  /** A request body is being read; until it all was, answering closes the connection. */
  expectBody(reading: Promise<Buffer>): void {
    this.bodyComplete = false;
    reading.then(
      () => {
        this.bodyComplete = true;
      },
      () => undefined,
    );
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.opts.onSettled?.();
  }

  write(answer: OutgoingResponse): void {
    if (this.aborted || this.settled) return;
    let out = answer;
    const unsafe = unsafeHeaderName(out.headers);
    if (unsafe !== null) {
      // A bug upstream (stored data reached a header): refuse rather than write it. The value is not logged.
      out = this.opts.onInternalError(new Error(`refused to write response header ${JSON.stringify(unsafe)}: it holds a control character`));
      if (unsafeHeaderName(out.headers) !== null) out = BARE_500;
    }
    const res = this.res;
    const close = (out.close ?? false) || !this.bodyComplete || (this.opts.closeConnections?.() ?? false);
    res.cork(() => {
      res.writeStatus(STATUS_LINES.get(out.status) ?? `${out.status} Unknown`);
      for (const [k, v] of out.headers) res.writeHeader(k, v);
      // A 304 has no body and must not claim one (end() writes Content-Length: 0). Only the
      // no-argument form writes no length: endWithoutBody(undefined, …) writes 2^63. The rare
      // 304 that must also close (shutdown) keeps end('', true).
      if (out.status === 304 && !close) res.endWithoutBody();
      else res.end(out.body, close);
    });
    this.settle();
  }
}

/** Routes every request on `app` through `dispatch`, honouring the uWS rules above. */
export function serve(app: Uws.TemplatedApp, dispatch: Dispatch, opts: ServeOptions): void {
  app.any('/*', (res, req) => {
    opts.onStart?.();
    const exchange = new Exchange(res, opts);
    res.onAborted(() => exchange.abort());

    // getMethod (lower-case) rather than getCaseSensitiveMethod: the pure-JS fallback lacks the latter.
    const method = req.getMethod().toUpperCase();
    const headers: Record<string, string> = {};
    for (const name of COPIED_HEADERS) {
      const value = req.getHeader(name);
      if (value !== '') headers[name] = value;
    }
    const url = req.getUrl();
    const q = url.indexOf('?'); // the fallback server leaves the query in the url
    const incoming: IncomingRequest = {
      method,
      url: q === -1 ? url : url.slice(0, q),
      query: q === -1 ? queryOf(req) : url.slice(q + 1),
      headers,
      remoteAddress: clientAddressOf(res, req, opts.clientAddress),
      body: null,
    };
    if (METHODS_WITH_BODY.has(method)) {
      const limit = opts.bodyLimit?.(method, incoming.url) ?? opts.maxBodyBytes;
      incoming.body = collectBody(res, headers['content-length'] ?? '', limit);
      // The router may answer without reading the body (404, 405, bad content type).
      exchange.expectBody(incoming.body);
    }

    let result: OutgoingResponse | Promise<OutgoingResponse>;
    try {
      result = dispatch(incoming);
    } catch (err) {
      exchange.write(opts.onInternalError(err));
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (answer) => exchange.write(answer),
        (err: unknown) => exchange.write(opts.onInternalError(err)),
      );
    } else {
      exchange.write(result);
    }
  });
}

export interface Listening {
  port: number;
  /** Stops accepting connections; open keep-alive connections stay until closed by peers or exit. */
  stopListening(): void;
}

export function listen(uws: UwsModule, app: Uws.TemplatedApp, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) {
        reject(new Error(`could not listen on ${host}:${port} (port in use or address not available); change --port or --host`));
        return;
      }
      let open = true;
      resolve({
        port: uws.us_socket_local_port(socket),
        stopListening() {
          if (open) uws.us_listen_socket_close(socket);
          open = false;
        },
      });
    });
  });
}

/** One WebSocket endpoint of JSON text messages, each answered independently. */
export interface WebSocketEndpoint {
  /** Largest accepted message; a larger one closes the socket (uWS's limit, code 1009). */
  maxPayloadBytes: number;
  /** Messages of one socket being handled at once; more are answered with `busyReply` at once. */
  maxInFlightPerSocket: number;
  /**
   * Handles one text message; the reply (if not null) is sent on the socket if it is still
   * open. `socket` lets an endpoint push messages later (subscriptions).
   */
  onMessage(text: string, socket: SocketHandle): Promise<string | null>;
  /** Called once when a socket closed (after which its handle's `send` does nothing). */
  onClose?: (socket: SocketHandle) => void;
  /**
   * Reply to a message refused because the socket has too many in flight, is binary, or is over
   * its rate limit; `status` is the HTTP status the refusal would have (503 when absent).
   */
  refusedReply(text: string | null, reason: string, status?: number): string;
  /** Admission of sockets and their messages (socketLimits.ts); absent: every one is admitted. */
  gate?: SocketGate;
  /** Called when a message starts and when it is answered (or its socket closed first). */
  onStart?: () => void;
  onSettled?: () => void;
  /** Headers of the 101 upgrade response (e.g. which server process holds the socket). */
  upgradeHeaders?: ReadonlyArray<readonly [string, string]>;
  /** Resolves clients behind trusted proxies (`--trust-proxy`); absent: the TCP peer is the client. */
  clientAddress?: ClientAddresses | null;
}

/** An upgrade answered with this HTTP response instead of 101. */
export interface UpgradeRefusal {
  status: number;
  message: string;
  headers?: ReadonlyArray<readonly [string, string]>;
}

/** A message answered with this refusal instead of being handled. */
export interface MessageRefusal {
  status: number;
  reason: string;
}

/** Who may open a socket and how often it may send (the per-address caps and rate limits). */
export interface SocketGate {
  /** At each upgrade, before the 101: null admits it; else the refusal answered instead. */
  admit(remoteAddress: string, origin: string): UpgradeRefusal | null;
  /** An admitted socket of this address opened, and later closed (each exactly once). */
  opened(remoteAddress: string): void;
  closed(remoteAddress: string): void;
  /** Before each message is handled: null handles it; else it is answered with the refusal. Never rejects. */
  admitMessage(remoteAddress: string): Promise<MessageRefusal | null>;
}

/**
 * Messages refused in a row (rate limited) after which a socket is closed (1008): a client told
 * to retry later that keeps sending is flooding, and answering each refusal still costs.
 */
export const FLOOD_REFUSALS_BEFORE_CLOSE = 100;

export interface WebSocketServer {
  /** Open sockets right now. */
  readonly openSockets: number;
  /** Closes every open socket (1001 going away), e.g. at shutdown after in-flight work drained. */
  closeAll(): void;
}

/** A socket as endpoints see it: safe to keep and to send on after it closed. */
export interface SocketHandle {
  readonly id: number;
  readonly open: boolean;
  /** The client's address: the peer as uWS gives it (empty on the pure-JS fallback), or what a trusted proxy reported. */
  readonly remoteAddress: string;
  /** Sends a text message; false when the socket is closed or the message was dropped. */
  send(text: string): boolean;
}

interface SocketState {
  open: boolean;
  inFlight: number;
  remoteAddress: string;
  /** Messages refused by the gate since the last one it admitted. */
  refusedInRow: number;
  handle?: SocketHandle;
}

let nextSocketId = 1;

/**
 * Serves `endpoint` on each pattern. The rules of uWS apply here too: the message ArrayBuffer
 * is only valid during the callback (copied at once), and a socket is never touched after its
 * close callback (tracked in its user data).
 */
export function serveWebSocket(app: Uws.TemplatedApp, patterns: readonly string[], endpoint: WebSocketEndpoint): WebSocketServer {
  const sockets = new Set<Uws.WebSocket<SocketState>>();
  const behavior: Uws.WebSocketBehavior<SocketState> = {
    maxPayloadLength: endpoint.maxPayloadBytes,
    // Replies are buffered up to this much for a slow reader before further sends are dropped;
    // the client then sees missing answers rather than the node growing without bound.
    maxBackpressure: 16 * 1024 * 1024,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const address = clientAddressOf(res, req, endpoint.clientAddress);
      const refusal = endpoint.gate?.admit(address, req.getHeader('origin')) ?? null;
      if (refusal !== null) {
        res.cork(() => {
          res.writeStatus(STATUS_LINES.get(refusal.status) ?? `${refusal.status} Refused`);
          for (const [name, value] of refusal.headers ?? []) res.writeHeader(name, value);
          res.writeHeader('Content-Type', 'application/json');
          res.end(JSON.stringify({ error: refusal.message }), true);
        });
        return;
      }
      if (endpoint.upgradeHeaders?.length) {
        // uWS writes 101 itself unless a status was written; headers need it written first.
        res.writeStatus('101 Switching Protocols');
        for (const [name, value] of endpoint.upgradeHeaders) res.writeHeader(name, value);
      }
      res.upgrade<SocketState>(
        { open: true, inFlight: 0, remoteAddress: address, refusedInRow: 0 },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    open: (ws) => {
      sockets.add(ws);
      const state = ws.getUserData();
      endpoint.gate?.opened(state.remoteAddress);
      state.handle = {
        id: nextSocketId++,
        remoteAddress: state.remoteAddress,
        get open() {
          return state.open;
        },
        send(text: string): boolean {
          if (!state.open) return false;
          let sent = 0;
          ws.cork(() => {
            sent = ws.send(text, false);
          });
          // 2 = dropped (over maxBackpressure); 0 = buffered; 1 = sent.
          return sent !== 2;
        },
      };
    },
    message: (ws, message, isBinary) => {
      const state = ws.getUserData();
      if (isBinary) {
        ws.send(endpoint.refusedReply(null, 'binary frames are not accepted; send JSON text'), false);
        return;
      }
      // Copy now: uWS reuses the buffer after this callback returns.
      const text = Buffer.from(message).toString('utf8');
      if (state.inFlight >= endpoint.maxInFlightPerSocket) {
        ws.send(endpoint.refusedReply(text, `more than ${endpoint.maxInFlightPerSocket} requests in flight on this socket; wait for answers`), false);
        return;
      }
      state.inFlight++;
      endpoint.onStart?.();
      const admitted = endpoint.gate ? endpoint.gate.admitMessage(state.remoteAddress) : Promise.resolve(null);
      admitted
        .then((refusal) => {
          if (refusal === null) {
            state.refusedInRow = 0;
            return endpoint.onMessage(text, state.handle!);
          }
          if (++state.refusedInRow >= FLOOD_REFUSALS_BEFORE_CLOSE && state.open) {
            ws.end(1008, 'rate limited: too many messages refused in a row; slow down and reconnect');
            return null;
          }
          return endpoint.refusedReply(text, refusal.reason, refusal.status);
        })
        .then(
          (reply) => {
            state.inFlight--;
            if (state.open && reply !== null) ws.cork(() => ws.send(reply, false));
            endpoint.onSettled?.();
          },
          () => {
            // onMessage answers its own errors; a rejection here is a bug already logged there.
            state.inFlight--;
            endpoint.onSettled?.();
          },
        );
    },
    close: (ws) => {
      const state = ws.getUserData();
      state.open = false;
      sockets.delete(ws);
      endpoint.gate?.closed(state.remoteAddress);
      if (state.handle) endpoint.onClose?.(state.handle);
    },
  };
  for (const p of patterns) app.ws<SocketState>(p, behavior);
  return {
    get openSockets() {
      return sockets.size;
    },
    closeAll() {
      for (const ws of [...sockets]) {
        if (ws.getUserData().open) ws.end(1001, 'server shutting down');
      }
    },
  };
}
