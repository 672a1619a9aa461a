/**
 * Response compression and validators: content-coding negotiation (Accept-Encoding), brotli or
 * gzip for compressible bodies of at least COMPRESS_MIN_BYTES, and strong ETags from a hash of
 * the body with If-None-Match → 304. The router applies them to every response
 * (`finishResponse`); routes never see them.
 *
 * Measured (bench/compression.bench.ts, 2026-11-24, Node 20, 2 vCPU shared with other test
 * runs, tinybench means; JSON user lists whose keys and hashes are random and so
 * incompressible, as in real answers), CPU per body and size after as % of the body:
 *            gzip-1          gzip-6          br-1            br-4
 *   1.3 KiB   16 µs 45.5%     19 µs 45.5%     12 µs 46.0%     30 µs 44.1%
 *   11 KiB    39 µs 27.8%     54 µs 27.4%     28 µs 27.3%     92 µs 25.8%
 *   86 KiB   381 µs 25.6%    703 µs 24.9%    183 µs 23.5%    622 µs 23.4%
 * Brotli quality 1 is the fastest at every size and as small as gzip-6; higher levels gain
 * ≤ 1.5 points for 2-4x the CPU, so both codecs run at their fastest level. The same brotli-1
 * on the libuv thread pool took 120-180 µs longer per body (the hop and a fresh stream), and
 * end to end (same bench, uWS node, 16 connections) a 137 KB openapi.json went out as 11.6 KB
 * (br) at 1.24x the identity req/s, a 12.7 KB get-users-stateless answer as 1.5 KB at
 * 0.95x (that route's own work dominates).
 * @module
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Logger } from 'pino';
import type { IncomingRequest, OutgoingResponse } from './uws.js';

export type ContentCoding = 'br' | 'gzip';
/** The coding a response went out with. */
export type ResponseCoding = ContentCoding | 'identity';

/**
 * Bodies below this are sent as they are: a 1 KiB JSON body shrinks to ~45% (≈ 560 bytes
 * saved, well under one TCP segment's worth of difference), and below it the ~40-byte codec
 * framing and the CPU outweigh the gain.
 */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Bodies at least this large are compressed on the libuv thread pool (async zlib) rather than
 * on the event loop: at ~64 KiB inline brotli-1 (≈ 130 µs) costs as much as the async hop
 * (120-180 µs), and every larger body would block every other request for longer.
 */
export const ASYNC_COMPRESS_MIN_BYTES = 64 * 1024;

/** Brotli quality (0-11): 1, see the table above. */
export const BROTLI_QUALITY = 1;
/** gzip level (1-9): 1, see the table above. */
export const GZIP_LEVEL = 1;

const brotliAsync = promisify(zlib.brotliCompress);
const gzipAsync = promisify(zlib.gzip);

/** Media types worth compressing; images, fonts and archives already are. */
export function isCompressible(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return (
    type === 'application/json' ||
    type.startsWith('text/') ||
    type.endsWith('+json') ||
    type.endsWith('+xml') ||
    type === 'application/xml' ||
    type === 'application/javascript'
  );
}

/**
 * The coding to answer with for an Accept-Encoding header (RFC 9110 §12.5.3): brotli if
 * acceptable, else gzip, else none. Codings with q=0 are refused; `*` stands for every coding
 * not named; a missing header means no preference, which we take as "none" (as browsers and
 * curl --compressed always send the header).
 */
export function negotiateEncoding(acceptEncoding: string | undefined): ContentCoding | null {
  if (acceptEncoding === undefined || acceptEncoding === '') return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) weight = Number(m[1]);
    }
    if (!Number.isFinite(weight)) weight = 0;
    q.set(name, Math.max(weight, q.get(name) ?? -1));
  }
  const star = q.get('*');
  const weightOf = (coding: string): number => q.get(coding) ?? (coding === 'gzip' ? q.get('x-gzip') : undefined) ?? star ?? 0;
  const br = weightOf('br');
  const gzip = weightOf('gzip');
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}

/** Compresses `body` with `coding`: inline below ASYNC_COMPRESS_MIN_BYTES, on the thread pool above. */
export async function compressBody(body: Uint8Array, coding: ContentCoding): Promise<Buffer> {
  if (coding === 'br') {
    const opts = {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    };
    return body.byteLength >= ASYNC_COMPRESS_MIN_BYTES ? brotliAsync(body, opts) : zlib.brotliCompressSync(body, opts);
  }
  const opts = { level: GZIP_LEVEL };
  return body.byteLength >= ASYNC_COMPRESS_MIN_BYTES ? gzipAsync(body, opts) : zlib.gzipSync(body, opts);
}

/**
 * A strong ETag for a body: 128 bits of its SHA-256, base64url. Identical bodies give identical
 * tags on every process, so a cluster behind one address answers 304 consistently.
 */
export function etagOf(body: string | Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/**
 * The ETag of a compressed representation. A strong validator must differ between codings
 * (RFC 9110 §8.8.1), so the coding is appended inside the quotes.
 */
export function encodedEtag(etag: string, coding: ContentCoding): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}

/**
 * Whether an If-None-Match header matches the representation tagged `etag` (the identity tag):
 * `*`, or any listed tag equal to it under the weak comparison that If-None-Match uses
 * (RFC 9110 §13.1.2), with or without a coding suffix added by `encodedEtag`.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.slice(1, -1);
  for (const m of header.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    const tag = m[1]!;
    if (tag === opaque || tag === `${opaque}-br` || tag === `${opaque}-gzip`) return true;
  }
  return false;
}

/**
 * The last answer of one GET route with its ETag and compressed forms, reused while the route
 * answers the same body (openapi.json, exchange rates, an unchanged picture): a 136 KB
 * openapi.json then costs a comparison instead of a SHA-256 and a compression per request.
 */
export interface ResponseMemo {
  body: string | Uint8Array | undefined;
  etag: string | undefined;
  encoded: Map<ContentCoding, Buffer>;
}

export function newResponseMemo(): ResponseMemo {
  return { body: undefined, etag: undefined, encoded: new Map() };
}

function sameBody(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a === b || (a.byteLength === b.byteLength && Buffer.compare(a, b) === 0);
}

function headerValue(headers: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([k]) => k.toLowerCase() === lower)?.[1];
}

/**
 * The last step of every response (Router.dispatch): for a 200 with a body,
 * - `etag` (GET routes): a strong ETag, and 304 without a body when If-None-Match matches it;
 *   skipped when the route set its own ETag or `Cache-Control: no-store`;
 * - a compressible body of at least COMPRESS_MIN_BYTES is compressed with the coding the
 *   client prefers (`Content-Encoding`), and such responses say `Vary: Accept-Encoding`
 *   whether compressed or not, so caches keep the codings apart.
 * Anything else passes through. A compression failure sends the body as it is (logged).
 */
export async function finishResponse(
  out: OutgoingResponse,
  req: Pick<IncomingRequest, 'headers'>,
  opts: { etag: boolean; memo?: ResponseMemo },
  log?: Pick<Logger, 'warn'>,
): Promise<{ out: OutgoingResponse; encoding: ResponseCoding }> {
  const identity = { out, encoding: 'identity' as const };
  if (out.status !== 200) return identity;
  const size = typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.byteLength;
  if (size === 0) return identity;
  const headers = [...out.headers];
  const memo = opts.memo;
  if (memo !== undefined && (memo.body === undefined || !sameBody(memo.body, out.body))) {
    memo.body = out.body;
    memo.etag = undefined;
    memo.encoded.clear();
  }
  const noStore = /no-store/i.test(headerValue(headers, 'Cache-Control') ?? '');
  let etag: string | undefined;
  if (opts.etag && !noStore && headerValue(headers, 'ETag') === undefined) {
    etag = memo?.etag ?? etagOf(out.body);
    if (memo !== undefined) memo.etag = etag;
  }
  const compressible =
    size >= COMPRESS_MIN_BYTES && headerValue(headers, 'Content-Encoding') === undefined && isCompressible(headerValue(headers, 'Content-Type') ?? '');
  if (compressible) headers.push(['Vary', 'Accept-Encoding']);
  const coding = compressible ? negotiateEncoding(req.headers['accept-encoding']) : null;

  if (etag !== undefined && ifNoneMatchMatches(req.headers['if-none-match'], etag)) {
    // The validators and Vary a 200 would carry; no content headers, no body (RFC 9110 §15.4.5).
    const kept = headers.filter(([k]) => !/^content-(type|encoding|length)$/i.test(k));
    kept.push(['ETag', coding === null ? etag : encodedEtag(etag, coding)]);
    return { out: { ...out, status: 304, headers: kept, body: '' }, encoding: 'identity' };
  }

  let body = out.body;
  let encoding: ResponseCoding = 'identity';
  if (coding !== null) {
    const bytes = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
    try {
      let compressed = memo?.encoded.get(coding);
      if (compressed === undefined) {
        compressed = await compressBody(bytes, coding);
        // Another request may have replaced the memo's body while this one compressed.
        if (memo !== undefined && memo.body === out.body) memo.encoded.set(coding, compressed);
      }
      if (compressed.byteLength < size) {
        body = compressed;
        encoding = coding;
        headers.push(['Content-Encoding', coding]);
      }
    } catch (err) {
      log?.warn({ msg: (err as Error)?.message, coding }, 'response compression failed; sending the body uncompressed');
    }
  }
  if (etag !== undefined) headers.push(['ETag', encoding === 'identity' ? etag : encodedEtag(etag, encoding)]);
  if (encoding === 'identity' && headers.length === out.headers.length) return identity;
  return { out: { ...out, headers, body }, encoding };
}
