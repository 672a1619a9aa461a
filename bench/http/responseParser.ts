/**
 * Incremental HTTP/1.1 response parser for the benches' raw keep-alive sockets (the load
 * generator and the keep-alive client): Content-Length and chunked bodies, `Connection: close`,
 * bodiless statuses. Several times cheaper per request than the node:http client, so a bench
 * that shares the machine's cores with the node spends them on the node.
 * @module
 */

const CR = 13;
const LF = 10;
const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const H_CONTENT_LENGTH = Buffer.from('content-length:', 'latin1');
const H_TRANSFER_ENCODING = Buffer.from('transfer-encoding:', 'latin1');
const H_CONNECTION = Buffer.from('connection:', 'latin1');

/** Parser states. */
const S_HEADERS = 0;
const S_BODY = 1;
const S_CHUNK_SIZE = 2;
const S_CHUNK_DATA = 3;
const S_TRAILERS = 4;

/** Case-insensitive match of a lower-case header name at `p`; ASCII letters, '-' and ':' only. */
function nameAt(data: Buffer, p: number, end: number, lower: Buffer): boolean {
  if (p + lower.length > end) return false;
  for (let i = 0; i < lower.length; i++) if ((data[p + i]! | 0x20) !== lower[i]) return false;
  return true;
}

function skipSpaces(data: Buffer, p: number, end: number): number {
  while (p < end && (data[p] === 32 || data[p] === 9)) p++;
  return p;
}

function lineEnd(data: Buffer, p: number, end: number): number {
  while (p < end && data[p] !== CR) p++;
  return p;
}

export interface ParsedResponse {
  status: number;
  /** The body (chunks joined), when the parser keeps bodies; null otherwise. */
  body: Buffer | null;
  /** The server said `Connection: close`: no further response comes on this socket. */
  closeAfter: boolean;
}

export class ResponseParser {
  private state = S_HEADERS;
  private leftover: Buffer | null = null;
  private status = 0;
  private remaining = 0;
  private closeAfter = false;
  private parts: Buffer[] = [];
  /** Responses asked for and not yet complete. */
  private expected = 0;

  /**
   * @param keepBody whether `onResponse` gets the body (a load generator only counts responses)
   * @param onResponse called once per complete response, in order
   */
  constructor(
    private readonly keepBody: boolean,
    private readonly onResponse: (r: ParsedResponse) => void,
  ) {}

  /** A request was sent: one more response is expected. */
  expect(): void {
    this.expected++;
  }

  /** Whether a response is expected and not complete. */
  get waiting(): boolean {
    return this.expected > 0;
  }

  /**
   * Takes the next bytes of the socket. False when they are not a valid response, or arrive
   * when none was asked for: the caller drops the connection.
   */
  feed(chunk: Buffer): boolean {
    let data = chunk;
    if (this.leftover !== null) {
      data = Buffer.concat([this.leftover, chunk]);
      this.leftover = null;
    }
    let p = 0;
    const end = data.length;
    while (p < end) {
      if (this.expected === 0) return false; // bytes nobody asked for
      switch (this.state) {
        case S_HEADERS: {
          const h = data.indexOf(HEADER_END, p);
          if (h === -1) {
            this.leftover = data.subarray(p);
            return true;
          }
          // "HTTP/1.1 200 OK"
          if (h - p < 12 || data[p] !== 0x48 || data[p + 8] !== 32) return false;
          this.status = (data[p + 9]! - 48) * 100 + (data[p + 10]! - 48) * 10 + (data[p + 11]! - 48);
          this.closeAfter = false;
          let length = -1;
          let chunked = false;
          // Each header line starts after a CRLF; h points at the blank line's CRLF.
          for (let q = data.indexOf(LF, p) + 1; q > 0 && q < h + 2; q = data.indexOf(LF, q) + 1) {
            const first = data[q]! | 0x20;
            if (first === 0x63 /* c */ && nameAt(data, q, h, H_CONTENT_LENGTH)) {
              let v = skipSpaces(data, q + H_CONTENT_LENGTH.length, h);
              length = 0;
              for (; v < h && data[v]! >= 48 && data[v]! <= 57; v++) length = length * 10 + data[v]! - 48;
            } else if (first === 0x63 && nameAt(data, q, h, H_CONNECTION)) {
              const v = skipSpaces(data, q + H_CONNECTION.length, h);
              this.closeAfter = data.toString('latin1', v, lineEnd(data, v, h)).toLowerCase().includes('close');
            } else if (first === 0x74 /* t */ && nameAt(data, q, h, H_TRANSFER_ENCODING)) {
              const v = skipSpaces(data, q + H_TRANSFER_ENCODING.length, h);
              chunked = data.toString('latin1', v, lineEnd(data, v, h)).toLowerCase().includes('chunked');
            }
          }
          p = h + 4;
          if (chunked) {
            this.state = S_CHUNK_SIZE;
          } else if (length >= 0) {
            this.state = S_BODY;
            this.remaining = length;
            if (length === 0) this.complete();
          } else if (this.status === 204 || this.status === 304 || (this.status >= 100 && this.status < 200)) {
            this.complete();
          } else {
            return false; // read-until-close bodies are not supported; the servers benched send a length
          }
          break;
        }
        case S_BODY: {
          const take = Math.min(this.remaining, end - p);
          if (this.keepBody) this.parts.push(data.subarray(p, p + take));
          p += take;
          this.remaining -= take;
          if (this.remaining === 0) this.complete();
          break;
        }
        case S_CHUNK_SIZE: {
          const lf = data.indexOf(LF, p);
          if (lf === -1) {
            this.leftover = data.subarray(p);
            return true;
          }
          const size = parseInt(data.toString('latin1', p, lf), 16); // stops at ';' or CR
          if (!Number.isFinite(size) || size < 0) return false;
          p = lf + 1;
          if (size === 0) this.state = S_TRAILERS;
          else {
            this.state = S_CHUNK_DATA;
            this.remaining = size + 2; // data and its CRLF
          }
          break;
        }
        case S_CHUNK_DATA: {
          const take = Math.min(this.remaining, end - p);
          // The chunk's own bytes, not its closing CRLF.
          if (this.keepBody) this.parts.push(data.subarray(p, p + Math.max(0, Math.min(take, this.remaining - 2))));
          p += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = S_CHUNK_SIZE;
          break;
        }
        case S_TRAILERS: {
          const lf = data.indexOf(LF, p);
          if (lf === -1) {
            this.leftover = data.subarray(p);
            return true;
          }
          const empty = lf === p || (lf === p + 1 && data[p] === CR);
          p = lf + 1;
          if (empty) this.complete();
          break;
        }
      }
    }
    return true;
  }

  private complete(): void {
    this.expected--;
    this.state = S_HEADERS;
    let body: Buffer | null = null;
    if (this.keepBody) {
      body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
      this.parts = [];
    }
    this.onResponse({ status: this.status, body, closeAfter: this.closeAfter });
  }
}
