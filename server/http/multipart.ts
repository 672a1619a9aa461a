/**
 * multipart/form-data bodies (RFC 7578 over RFC 2046's delimiters), for the one route that takes
 * them (upload-image, as the reference and the SDK send it). The body has already been read
 * whole, bounded by the route's `maxBodyBytes`; parsing is one forward pass over it with
 * `Buffer.indexOf`, and every part is a view of the body, never a copy, so a request costs about
 * its size however it is shaped. Counts and sizes that a sender could inflate are capped below.
 *
 * Each field and file is kept under its form name; a name given twice keeps its first part, as
 * Go's `Request.FormFile` and `Form[name][0]` read it.
 * @module
 */
import { DomainError } from '../errors.js';

/** A part with a `filename`: a file. */
export interface FormFile {
  filename: string;
  /** The part's own Content-Type ('' when it gave none); what the bytes are is the caller's check. */
  contentType: string;
  /** A view of the request body. */
  data: Buffer;
}

export interface MultipartForm {
  readonly kind: 'multipart';
  /** Text fields (UTF-8), by name. */
  readonly fields: ReadonlyMap<string, string>;
  readonly files: ReadonlyMap<string, FormFile>;
}

/** Parts per body: the SDK's upload sends three (file, JWT, key); more is not a form a route reads. */
export const MAX_PARTS = 16;
/** Header block of one part (its Content-Disposition and Content-Type lines). */
export const MAX_PART_HEADER_BYTES = 4096;
/** A text field (a JWT is under 1 KiB, a public key 55 characters). */
export const MAX_FIELD_BYTES = 16 * 1024;

/** A body that is not the multipart/form-data its Content-Type says (400). */
export class MultipartError extends DomainError {
  override readonly name = 'MultipartError';
  constructor(message: string) {
    super('MULTIPART_INVALID', 'invalid', `multipart/form-data body: ${message}`);
  }
}

/** RFC 2046 §5.1.1: 1 to 70 of these characters, the last not a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** `name=value` parameters of a header value after its first `;`, names lower-cased; quoted values unescaped. */
function headerParams(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of value.matchAll(/;\s*([A-Za-z0-9_*.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/g)) {
    const name = m[1]!.toLowerCase();
    const raw = m[2]!;
    if (!out.has(name)) out.set(name, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
  }
  return out;
}

/** The boundary of a multipart Content-Type header. */
export function boundaryOf(contentType: string): string {
  const boundary = headerParams(contentType).get('boundary');
  if (boundary === undefined) throw new MultipartError('the Content-Type names no boundary');
  if (!BOUNDARY.test(boundary)) throw new MultipartError('the boundary must be 1 to 70 characters of RFC 2046');
  return boundary;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Parses `body` as multipart/form-data with the boundary of `contentType`.
 * @throws {MultipartError} on a missing or bad boundary, a part without a form-data name, a
 *   part or field over its cap, more than MAX_PARTS parts, or a body that does not end with the
 *   closing delimiter
 */
export function parseMultipart(body: Buffer, contentType: string): MultipartForm {
  const boundary = boundaryOf(contentType);
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const nextDelimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  let pos: number;
  if (body.subarray(0, delimiter.length).equals(delimiter)) pos = delimiter.length;
  else {
    // A preamble before the first delimiter is allowed and ignored.
    const first = body.indexOf(nextDelimiter);
    if (first === -1) throw new MultipartError('no delimiter line with the boundary of the Content-Type');
    pos = first + nextDelimiter.length;
  }
  const fields = new Map<string, string>();
  const files = new Map<string, FormFile>();
  for (let parts = 0; ; parts++) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // `--`: the closing delimiter
    if (parts === MAX_PARTS) throw new MultipartError(`more than ${MAX_PARTS} parts`);
    // Transport padding (linear white space) may follow a delimiter.
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
    if (!body.subarray(pos, pos + 2).equals(CRLF)) throw new MultipartError('a delimiter line must end with CRLF');
    pos += 2;
    let headerText = '';
    let dataStart: number;
    if (body.subarray(pos, pos + 2).equals(CRLF)) dataStart = pos + 2; // no headers
    else {
      const end = body.subarray(pos, pos + MAX_PART_HEADER_BYTES + HEADER_END.length).indexOf(HEADER_END);
      if (end === -1) throw new MultipartError(`a part's headers must end with a blank line within ${MAX_PART_HEADER_BYTES} bytes`);
      headerText = body.toString('utf8', pos, pos + end);
      dataStart = pos + end + HEADER_END.length;
    }
    const next = body.indexOf(nextDelimiter, dataStart);
    if (next === -1) throw new MultipartError('a part is not closed by a delimiter line (truncated body?)');
    const data = body.subarray(dataStart, next);
    pos = next + nextDelimiter.length;

    let disposition: string | undefined;
    let partType = '';
    for (const line of headerText === '' ? [] : headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new MultipartError('a part header line without a name');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-disposition') disposition ??= value;
      else if (name === 'content-type') partType = value;
    }
    if (disposition === undefined || !/^form-data\s*(;|$)/i.test(disposition)) {
      throw new MultipartError('every part needs a Content-Disposition: form-data header');
    }
    const params = headerParams(disposition);
    const name = params.get('name');
    if (name === undefined || name === '') throw new MultipartError('a part has no form name');
    const filename = params.get('filename');
    if (filename !== undefined) {
      if (!files.has(name)) files.set(name, { filename, contentType: partType, data });
    } else {
      if (data.length > MAX_FIELD_BYTES) throw new MultipartError(`field ${JSON.stringify(name.slice(0, 40))} is over ${MAX_FIELD_BYTES} bytes`);
      if (!fields.has(name)) fields.set(name, data.toString('utf8'));
    }
  }
  return { kind: 'multipart', fields, files };
}

export function isMultipartForm(x: unknown): x is MultipartForm {
  return typeof x === 'object' && x !== null && (x as MultipartForm).kind === 'multipart';
}
