/** Small HTTP clients for e2e tests: fetch for normal requests, raw sockets for malformed ones. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export async function request(
  base: string,
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: init.headers,
    body: init.body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return request(base, path, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A JSON object answered by the node (fields typed loosely, as tests index into them). */
type ApiJson = Record<string, any>;

/** POST `body` to the node's `/api/v0/<path>`: the status and the JSON answer. */
export async function postApi(base: string, path: string, body: unknown): Promise<{ status: number; json: ApiJson }> {
  const r = await postJson(base, `/api/v0/${path}`, body);
  return { status: r.status, json: r.json as ApiJson };
}

/** postApi that must answer 200 (else an assertion naming the route and the answer). */
export async function okApi(base: string, path: string, body: unknown): Promise<ApiJson> {
  const r = await postApi(base, path, body);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.json)}`);
  return r.json;
}

export interface RawResult {
  status: number;
  head: string;
  body: string;
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

/**
 * Writes `parts` to a fresh TCP connection (with optional pauses between them) and reads one
 * response. For requests fetch refuses to send: lying Content-Length, chunked bodies, halves.
 */
export function rawRequest(port: number, parts: Array<string | Buffer>, pauseMs = 0, timeoutMs = 5_000): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let closed = false;
    const timer = setTimeout(() => {
      sock.destroy();
      finish();
    }, timeoutMs);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const text = data.toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) return reject(new Error(`no complete response; got ${JSON.stringify(text.slice(0, 200))}`));
      const head = text.slice(0, split);
      const status = Number(head.split(' ')[1]);
      resolve({ status, head, body: text.slice(split + 4), closed });
    };
    sock.on('data', (d) => {
      data = Buffer.concat([data, d]);
      const text = data.toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split !== -1) {
        const len = /content-length: (\d+)/i.exec(text.slice(0, split));
        if (len && data.length >= Buffer.byteLength(text.slice(0, split + 4)) + Number(len[1])) {
          // Whole response read; give the server a moment to close (or not).
          setTimeout(() => {
            finish();
            sock.destroy();
          }, 100);
        }
      }
    });
    // Only the server's FIN or reset counts; our own destroy() below does not.
    sock.on('end', () => {
      closed = true;
    });
    sock.on('error', () => {
      closed = true;
    });
    sock.on('connect', async () => {
      for (const p of parts) {
        if (sock.destroyed) break;
        sock.write(p);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}
