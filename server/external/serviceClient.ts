/**
 * Calls to the outside services some routes stand in front of (TikTok's link shortener, Wyre),
 * each bounded: a timeout for the whole call (connect, answer and body), a cap on the answer's
 * size (read as it streams; the rest is never read), a cap on calls in flight per service, and
 * redirects never followed (the caller reads a redirect itself). The URLs are the operator's
 * configured base plus a path the route built from validated input, so a request never picks
 * where the node connects.
 *
 * Failures are domain errors naming the service: unreachable, timed out, too many calls in
 * flight or an answer over the size cap are `unavailable` (503, retry later); what the service
 * answered, whatever its status, is the caller's to map.
 * @module
 */
import { DomainError } from '../errors.js';

/**
 * Calls of one service in flight at once. A route that calls out holds no node resources while
 * it waits, but each call holds a socket and a timer; beyond this many the service is slower
 * than the node's clients and more calls only queue behind it.
 */
export const MAX_CALLS_IN_FLIGHT = 32;

/** Largest answer read from a service: a Wyre quote or reservation is under 2 KiB, a redirect has no body worth reading. */
export const MAX_ANSWER_BYTES = 256 * 1024;

export class ServiceError extends DomainError {
  override readonly name = 'ServiceError';
}

export interface ServiceAnswer {
  status: number;
  headers: Headers;
  /** At most MAX_ANSWER_BYTES (the call fails beyond it). */
  body: Buffer;
}

export interface ServiceCall {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Read the body (false: a redirect or a status is all the caller needs; the body is dropped). @default true */
  readBody?: boolean;
}

export class ServiceClient {
  private inFlight = 0;

  /**
   * @param service - the service's name in error messages ("Wyre")
   * @param timeoutMs - the whole call, body included (`--external-timeout-ms`)
   */
  constructor(
    readonly service: string,
    private readonly timeoutMs: number,
    private readonly maxAnswerBytes = MAX_ANSWER_BYTES,
  ) {}

  async call(c: ServiceCall): Promise<ServiceAnswer> {
    if (this.inFlight >= MAX_CALLS_IN_FLIGHT) {
      throw new ServiceError('SERVICE_BUSY', 'busy', `${this.service}: ${MAX_CALLS_IN_FLIGHT} calls already wait on the service; try again shortly`);
    }
    this.inFlight++;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await fetch(c.url, {
        method: c.method,
        ...(c.headers ? { headers: c.headers } : {}),
        ...(c.body !== undefined ? { body: c.body } : {}),
        redirect: 'manual',
        signal,
      });
      if (c.readBody === false) {
        await res.body?.cancel();
        return { status: res.status, headers: res.headers, body: Buffer.alloc(0) };
      }
      return { status: res.status, headers: res.headers, body: await this.readCapped(res) };
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      const timedOut = signal.aborted;
      throw new ServiceError(
        timedOut ? 'SERVICE_TIMEOUT' : 'SERVICE_UNREACHABLE',
        'unavailable',
        timedOut ? `${this.service} did not answer within ${this.timeoutMs} ms` : `${this.service} could not be reached`,
        { cause: err },
      );
    } finally {
      this.inFlight--;
    }
  }

  private async readCapped(res: Response): Promise<Buffer> {
    const declared = Number(res.headers.get('content-length') ?? NaN);
    const tooLarge = (): ServiceError => new ServiceError('SERVICE_ANSWER_TOO_LARGE', 'unavailable', `${this.service} answered more than ${this.maxAnswerBytes} bytes`);
    if (declared > this.maxAnswerBytes) {
      await res.body?.cancel();
      throw tooLarge();
    }
    if (res.body === null) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > this.maxAnswerBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
    return Buffer.concat(chunks, size);
  }
}
