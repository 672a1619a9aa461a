/**
 * One keep-alive HTTP/1.1 connection on a raw `node:net` socket, one request at a time, for
 * benches that send their own bodies in order (bench/scale/submit.ts): ~60-80 µs of CPU per
 * request here against ~200 µs through the node:http client (measured 2026-11-26 on the
 * 2-core machine, submit-transaction at 32 in flight), CPU the node under test would otherwise
 * share with its client. Reconnects when the server closes between requests.
 * @module
 */
import { connect, type Socket } from 'node:net';
import { ResponseParser } from './responseParser.js';

export interface KeepAliveResponse {
  status: number;
  text: string;
}

export class KeepAliveConnection {
  private socket: Socket | null = null;
  private parser: ResponseParser | null = null;
  private waiter: { resolve(r: KeepAliveResponse): void; reject(e: Error): void } | null = null;

  constructor(
    private readonly port: number,
    private readonly host = '127.0.0.1',
  ) {}

  /** POSTs a JSON body; rejects when the connection fails or the answer is not HTTP. */
  post(path: string, body: string): Promise<KeepAliveResponse> {
    if (this.waiter !== null) return Promise.reject(new Error('KeepAliveConnection: one request at a time'));
    const bytes = Buffer.from(body, 'utf8');
    const head = `POST ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`;
    return new Promise<KeepAliveResponse>((resolve, reject) => {
      this.waiter = { resolve, reject };
      const socket = this.socket ?? this.open();
      this.parser!.expect();
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), bytes]));
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): Socket {
    const socket = connect({ port: this.port, host: this.host, noDelay: true });
    const parser = new ResponseParser(true, ({ status, body, closeAfter }) => {
      if (closeAfter) this.drop(socket);
      this.settle((w) => w.resolve({ status, text: body!.toString('utf8') }));
    });
    socket.on('data', (chunk: Buffer) => {
      if (!parser.feed(chunk)) {
        this.drop(socket);
        this.settle((w) => w.reject(new Error('KeepAliveConnection: not an HTTP/1.1 response')));
      }
    });
    const lost = (err?: Error): void => {
      this.drop(socket);
      if (parser.waiting) this.settle((w) => w.reject(err ?? new Error('KeepAliveConnection: the server closed the connection mid-answer')));
    };
    socket.on('error', lost);
    socket.on('close', () => lost());
    this.socket = socket;
    this.parser = parser;
    return socket;
  }

  /** Forgets a socket (a later request opens a new one). */
  private drop(socket: Socket): void {
    if (this.socket === socket) {
      this.socket = null;
      this.parser = null;
    }
    socket.destroy();
  }

  private settle(f: (w: { resolve(r: KeepAliveResponse): void; reject(e: Error): void }) => void): void {
    const w = this.waiter;
    this.waiter = null;
    if (w !== null) f(w);
  }
}
