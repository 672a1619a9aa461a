/**
 * A small WebSocket client for e2e tests (the `ws` package): keeps every message received, lets
 * a test wait for a reply by id or for a count of messages, and always rejects on timeout
 * instead of hanging. `close()` is idempotent and safe in `after` hooks.
 */
import WebSocket from 'ws';

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
        resolve(client);
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
