/**
 * A small WebSocket client for e2e tests (the `ws` package): keeps every message received, lets
 * a test wait for a reply by id or for a count of messages, and always rejects on timeout
 * instead of hanging. `close()` is idempotent and safe in `after` hooks.
 *
 * On the node's identity and miner sockets, every message a test takes (`next`, `call`) must be
 * one of the server messages the node's OpenAPI document describes (`x-websockets`), so the
 * suites check the WebSocket protocols' documentation as they run (unless the node refuses this
 * client the document with 429: suites of tight rate limits run their sockets unchecked).
 */
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { documentIfAllowed, socketMessageViolation } from './openApiCheck.js';

/** The documented sockets: a path ending in one of these is checked against `x-websockets`. */
const DOCUMENTED_SOCKETS: Readonly<Record<string, string>> = { identity: '/api/v0/identity', miner: '/api/v0/miner' };

export interface WsMessage {
  text: string;
  isBinary: boolean;
  /** Parsed JSON, or undefined when the text is not JSON. */
  json: unknown;
}

export class WsClient {
  /** Every message received so far, in order. */
  readonly messages: WsMessage[] = [];
  /** Resolves when the socket is closed (by either side), with the close code. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Headers of the 101 upgrade response (lower-case names). */
  upgradeHeaders: Record<string, string | string[] | undefined> = {};
  private readonly listeners = new Set<() => void>();
  private isClosed = false;
  /** The node's document and this socket's path in it, when it is a documented socket. */
  private documented: { doc: Record<string, any>; path: string } | null = null;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => {
        this.isClosed = true;
        this.notify();
        resolve({ code, reason: reason.toString('utf8') });
      });
    });
    ws.on('message', (data, isBinary) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(new Uint8Array(data));
      const text = buf.toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      this.messages.push({ text, isBinary, json });
      this.notify();
    });
    ws.once('upgrade', (res) => {
      this.upgradeHeaders = res.headers;
    });
    // Errors after open also end in 'close'; keep them from becoming uncaught exceptions.
    ws.on('error', () => undefined);
  }

  /**
   * Opens a socket; rejects if the upgrade fails (`upgrade refused with HTTP <status>`) or takes
   * longer than timeoutMs. `opts` are the `ws` client's (e.g. `localAddress`, `headers`).
   */
  static connect(url: string, timeoutMs = 5_000, opts: WebSocket.ClientOptions = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, opts);
      const client = new WsClient(ws);
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`WebSocket ${url} did not open within ${timeoutMs} ms`));
      }, timeoutMs);
      ws.once('open', () => {
        clearTimeout(timer);
        const u = new URL(url);
        const socketPath = DOCUMENTED_SOCKETS[u.pathname.replace(/\/+$/, '').split('/').pop() ?? ''];
        if (socketPath === undefined) return resolve(client);
        // Read while the node is surely up; messages are checked against it as tests take them.
        documentIfAllowed(`${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}`).then(
          (doc) => {
            if (doc !== null) client.documented = { doc, path: socketPath };
            resolve(client);
          },
          (err: unknown) => {
            ws.terminate();
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      });
      ws.once('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        ws.terminate();
        reject(new Error(`WebSocket ${url} upgrade refused with HTTP ${res.statusCode}`));
      });
      ws.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  get isOpen(): boolean {
    return !this.isClosed && this.ws.readyState === WebSocket.OPEN;
  }

  send(data: string | Buffer, opts: { binary?: boolean } = {}): void {
    this.ws.send(data, { binary: opts.binary ?? typeof data !== 'string' });
  }

  /** Sends a JSON value as one text message. */
  sendJson(value: unknown): void {
    this.send(JSON.stringify(value));
  }

  /** Resolves once `done()` holds (checked on every message and on close), or rejects after timeoutMs. */
  waitUntil(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (done()) {
          cleanup();
          resolve();
        } else if (this.isClosed) {
          cleanup();
          reject(new Error(`socket closed while waiting for ${what} (${this.messages.length} messages received)`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${this.messages.length} messages received)`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** The first received message (from index `from`) matching `pred`, waiting for it if needed. */
  async next(pred: (m: WsMessage) => boolean, what: string, from = 0, timeoutMs = 10_000): Promise<WsMessage> {
    let found: WsMessage | undefined;
    await this.waitUntil(() => {
      found = this.messages.slice(from).find(pred);
      return found !== undefined;
    }, what, timeoutMs);
    if (this.documented !== null && !found!.isBinary) {
      assert.equal(socketMessageViolation(this.documented.doc, this.documented.path, found!.json), null, `${what}: a documented message (${found!.text.slice(0, 200)})`);
    }
    return found!;
  }

  /** Sends an envelope and resolves with the first reply carrying its id. */
  async call(frame: { id: string } & Record<string, unknown>, timeoutMs = 10_000): Promise<WsMessage> {
    const from = this.messages.length;
    this.sendJson(frame);
    return this.next((m) => (m.json as { id?: unknown } | undefined)?.id === frame.id, `reply to ${frame.id}`, from, timeoutMs);
  }

  /** Closes the socket (terminating it if the close handshake stalls). Idempotent. */
  async close(timeoutMs = 2_000): Promise<void> {
    if (!this.isClosed) {
      if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
      const timer = setTimeout(() => this.ws.terminate(), timeoutMs);
      await this.closed;
      clearTimeout(timer);
    }
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }
}
