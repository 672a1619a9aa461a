/** multipart/form-data parsing (server/http/multipart.ts): what FormData sends, and the refusals. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundaryOf, MAX_FIELD_BYTES, MAX_PART_HEADER_BYTES, MAX_PARTS, MultipartError, parseMultipart } from '../../server/http/multipart.js';

/** What fetch sends for a FormData: the body and its Content-Type. */
async function encoded(form: FormData): Promise<{ body: Buffer; type: string }> {
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), type: req.headers.get('content-type')! };
}

const B = 'XyZ';
const TYPE = `multipart/form-data; boundary=${B}`;
const part = (headers: string, data: string): string => `--${B}\r\n${headers}\r\n\r\n${data}\r\n`;
const fails = (body: string | Buffer, re: RegExp, type = TYPE): void =>
  assert.throws(() => parseMultipart(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), type), (e: unknown) => e instanceof MultipartError && re.test(e.message), String(re));

describe('parseMultipart', () => {
  it('reads the fields and files a FormData sends (the SDK’s uploadImage), the file a view of the body', async () => {
    const form = new FormData();
    form.append('UserPublicKeyBase58Check', 'tBCabc');
    form.append('JWT', 'a.b.c');
    const bytes = Buffer.from([0, 1, 2, 13, 10, 45, 45, 255]);
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'pic "1".png');
    const { body, type } = await encoded(form);
    const f = parseMultipart(body, type);
    assert.deepEqual([...f.fields], [['UserPublicKeyBase58Check', 'tBCabc'], ['JWT', 'a.b.c']]);
    const file = f.files.get('file')!;
    assert.deepEqual(file.data, bytes);
    assert.equal(file.contentType, 'image/png');
    assert.equal(file.data.buffer, body.buffer, 'no copy of the body');
  });

  it('keeps the first of a repeated name, takes a preamble, padding after a delimiter and a part without headers', () => {
    const body = `preamble\r\n--${B}  \r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n` + part('Content-Disposition: form-data; name="a"', '2') + `--${B}\r\n\r\nnothing\r\n--${B}--`;
    assert.throws(() => parseMultipart(Buffer.from(body), TYPE), /Content-Disposition/, 'a part without headers has no name');
    const ok = `preamble\r\n--${B}  \r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n` + part('Content-Disposition: form-data; name="a"', '2') + `--${B}--\r\nepilogue`;
    assert.deepEqual([...parseMultipart(Buffer.from(ok), TYPE).fields], [['a', '1']]);
  });

  it('takes a quoted boundary and an empty form', () => {
    assert.equal(boundaryOf('multipart/form-data; boundary="a b:c"'), 'a b:c');
    const f = parseMultipart(Buffer.from(`--${B}--\r\n`), TYPE);
    assert.equal(f.fields.size + f.files.size, 0);
  });

  it('refuses what is not a well-formed form', () => {
    fails('x', /names no boundary/, 'multipart/form-data');
    fails('x', /boundary must be/, `multipart/form-data; boundary=${'b'.repeat(71)}`);
    fails('no delimiter at all', /no delimiter line/);
    fails(part('Content-Disposition: form-data; name="a"', '1'), /not closed by a delimiter/);
    fails(`--${B}xx\r\n`, /must end with CRLF/);
    fails(part('Content-Type: text/plain', '1') + `--${B}--`, /Content-Disposition: form-data/);
    fails(part('Content-Disposition: attachment; name="a"', '1') + `--${B}--`, /Content-Disposition: form-data/);
    fails(part('Content-Disposition: form-data; filename="f"', '1') + `--${B}--`, /no form name/);
    fails(part('no colon here', '1') + `--${B}--`, /header line without a name/);
    fails(`--${B}\r\nContent-Disposition: form-data; name="a"; x="${'y'.repeat(MAX_PART_HEADER_BYTES)}"\r\n\r\n1\r\n--${B}--`, /headers must end with a blank line within/);
    fails(part('Content-Disposition: form-data; name="a"', 'v'.repeat(MAX_FIELD_BYTES + 1)) + `--${B}--`, /over 16384 bytes/);
    fails(Array.from({ length: MAX_PARTS + 1 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, '1')).join('') + `--${B}--`, /more than 16 parts/);
  });

  it('costs about its size: a 4 MB file in one pass', () => {
    const data = Buffer.alloc(4 << 20, 0x2d); // dashes, as close to a delimiter as bytes get
    const body = Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n`), data, Buffer.from(`\r\n--${B}--\r\n`)]);
    const t = process.hrtime.bigint();
    assert.equal(parseMultipart(body, TYPE).files.get('file')!.data.length, data.length);
    assert.ok(process.hrtime.bigint() - t < 2_000_000_000n, 'well under 2 s');
  });
});
