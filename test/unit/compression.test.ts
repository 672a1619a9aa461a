import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  ASYNC_COMPRESS_MIN_BYTES,
  COMPRESS_MIN_BYTES,
  compressBody,
  encodedEtag,
  etagOf,
  finishResponse,
  ifNoneMatchMatches,
  isCompressible,
  negotiateEncoding,
  newResponseMemo,
} from '../../server/http/compression.js';
import type { OutgoingResponse } from '../../server/http/uws.js';

const bigJson = JSON.stringify({ UserList: Array.from({ length: 40 }, (_, i) => ({ Username: `user${i}`, Description: 'hello world '.repeat(3) })) });

describe('negotiateEncoding', () => {
  it('prefers br, then gzip, honouring q-values and *', () => {
    const cases: Array<[string | undefined, string | null]> = [
      [undefined, null],
      ['', null],
      ['identity', null],
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=1.0, br;q=0.5', 'gzip'],
      ['BR;Q=0.8, GZIP;q=0.8', 'br'],
      ['*', 'br'],
      ['*;q=0', null],
      ['br;q=0, gzip;q=0', null],
      ['*, br;q=0', 'gzip'],
      ['deflate', null],
    ];
    for (const [header, want] of cases) assert.equal(negotiateEncoding(header), want, String(header));
  });
});

describe('isCompressible', () => {
  it('compresses JSON and text, not images', () => {
    assert.equal(isCompressible('application/json'), true);
    assert.equal(isCompressible('application/json; charset=utf-8'), true);
    assert.equal(isCompressible('text/plain; version=0.0.4'), true);
    assert.equal(isCompressible('image/svg+xml'), true);
    assert.equal(isCompressible('image/png'), false);
    assert.equal(isCompressible('image/webp'), false);
  });
});

describe('compressBody', () => {
  it('round-trips with both codings, inline and on the thread pool', async () => {
    const small = Buffer.from(bigJson);
    const large = Buffer.from(bigJson.repeat(Math.ceil(ASYNC_COMPRESS_MIN_BYTES / bigJson.length) + 1));
    assert.ok(large.length >= ASYNC_COMPRESS_MIN_BYTES, 'large body takes the async path');
    for (const body of [small, large]) {
      assert.deepEqual(brotliDecompressSync(await compressBody(body, 'br')), body);
      assert.deepEqual(gunzipSync(await compressBody(body, 'gzip')), body);
    }
  });
});

describe('ETags', () => {
  it('are strong, quoted and follow the body only', () => {
    const tag = etagOf('{"a":1}\n');
    assert.match(tag, /^"[A-Za-z0-9_-]{22}"$/);
    assert.equal(etagOf(Buffer.from('{"a":1}\n')), tag);
    assert.notEqual(etagOf('{"a":2}\n'), tag);
    assert.equal(encodedEtag(tag, 'br'), `${tag.slice(0, -1)}-br"`);
  });

  it('If-None-Match matches the tag, weakly, in lists, with a coding suffix, and *', () => {
    const tag = etagOf('body');
    const opaque = tag.slice(1, -1);
    assert.equal(ifNoneMatchMatches(undefined, tag), false);
    assert.equal(ifNoneMatchMatches(tag, tag), true);
    assert.equal(ifNoneMatchMatches(`W/${tag}`, tag), true);
    assert.equal(ifNoneMatchMatches(`"other", ${tag}`, tag), true);
    assert.equal(ifNoneMatchMatches(`"${opaque}-gzip"`, tag), true);
    assert.equal(ifNoneMatchMatches(`"${opaque}-br"`, tag), true);
    assert.equal(ifNoneMatchMatches('*', tag), true);
    assert.equal(ifNoneMatchMatches('"other"', tag), false);
    assert.equal(ifNoneMatchMatches(`"${opaque}x"`, tag), false);
  });
});

describe('finishResponse', () => {
  const ok = (body: string | Uint8Array, contentType = 'application/json', status = 200): OutgoingResponse => ({
    status,
    headers: [['Content-Type', contentType], ['Vary', 'Origin']],
    body,
  });
  const headers = (o: OutgoingResponse) => new Map(o.headers.map(([k, v]) => [k.toLowerCase(), v]));
  const all = (o: OutgoingResponse, name: string) => o.headers.filter(([k]) => k.toLowerCase() === name).map(([, v]) => v);

  it('compresses a large JSON body with the accepted coding, says so, and varies on Accept-Encoding', async () => {
    const { out, encoding } = await finishResponse(ok(bigJson), { headers: { 'accept-encoding': 'gzip, br' } }, { etag: false });
    assert.equal(encoding, 'br');
    assert.equal(headers(out).get('content-encoding'), 'br');
    assert.deepEqual(all(out, 'vary'), ['Origin', 'Accept-Encoding']);
    assert.equal(brotliDecompressSync(out.body as Uint8Array).toString(), bigJson);
    const gz = await finishResponse(ok(bigJson), { headers: { 'accept-encoding': 'gzip' } }, { etag: false });
    assert.equal(gunzipSync(gz.out.body as Uint8Array).toString(), bigJson);
  });

  it('sends the body as it is without Accept-Encoding, still varying on it', async () => {
    const { out, encoding } = await finishResponse(ok(bigJson), { headers: {} }, { etag: false });
    assert.equal(encoding, 'identity');
    assert.equal(out.body, bigJson);
    assert.equal(headers(out).has('content-encoding'), false);
    assert.deepEqual(all(out, 'vary'), ['Origin', 'Accept-Encoding']);
  });

  it('never compresses small bodies, images, or non-200 answers', async () => {
    const small = 'x'.repeat(COMPRESS_MIN_BYTES - 1);
    const accept = { headers: { 'accept-encoding': 'br, gzip' } };
    for (const o of [ok(small), ok(new Uint8Array(5000), 'image/png'), ok(bigJson, 'application/json', 404)]) {
      const { out, encoding } = await finishResponse(o, accept, { etag: false });
      assert.equal(encoding, 'identity');
      assert.equal(out, o, 'passed through unchanged');
    }
  });

  it('tags GET answers and answers 304 without a body on a matching If-None-Match', async () => {
    const first = await finishResponse(ok('{"a":1}\n'), { headers: {} }, { etag: true });
    const tag = headers(first.out).get('etag')!;
    assert.equal(tag, etagOf('{"a":1}\n'));
    const again = await finishResponse(ok('{"a":1}\n'), { headers: { 'if-none-match': tag } }, { etag: true });
    assert.equal(again.out.status, 304);
    assert.equal(again.out.body, '');
    assert.equal(headers(again.out).get('etag'), tag);
    assert.equal(headers(again.out).has('content-type'), false);
    const changed = await finishResponse(ok('{"a":2}\n'), { headers: { 'if-none-match': tag } }, { etag: true });
    assert.equal(changed.out.status, 200);
  });

  it('gives a compressed representation its own tag, and 304s a revalidation of it', async () => {
    const accept = { 'accept-encoding': 'br' };
    const first = await finishResponse(ok(bigJson), { headers: accept }, { etag: true });
    const tag = headers(first.out).get('etag')!;
    assert.equal(tag, encodedEtag(etagOf(bigJson), 'br'));
    const again = await finishResponse(ok(bigJson), { headers: { ...accept, 'if-none-match': tag } }, { etag: true });
    assert.equal(again.out.status, 304);
    assert.equal(headers(again.out).get('etag'), tag);
    assert.deepEqual(all(again.out, 'vary'), ['Origin', 'Accept-Encoding']);
  });

  it('adds no ETag when told not to, to Cache-Control: no-store answers, or over a route’s own', async () => {
    const plain = await finishResponse(ok('{}'), { headers: {} }, { etag: false });
    assert.equal(headers(plain.out).has('etag'), false);
    const noStore: OutgoingResponse = { status: 200, headers: [['Content-Type', 'text/plain'], ['Cache-Control', 'no-store']], body: 'x' };
    assert.equal(headers((await finishResponse(noStore, { headers: {} }, { etag: true })).out).has('etag'), false);
    const own: OutgoingResponse = { status: 200, headers: [['Content-Type', 'text/plain'], ['ETag', '"mine"']], body: 'x' };
    assert.deepEqual(all((await finishResponse(own, { headers: {} }, { etag: true })).out, 'etag'), ['"mine"']);
  });

  it('with a memo, reuses the ETag and compressed bytes while the body is unchanged, and recomputes when it changes', async () => {
    const memo = newResponseMemo();
    const accept = { headers: { 'accept-encoding': 'br' } };
    const a = await finishResponse(ok(bigJson), accept, { etag: true, memo });
    const b = await finishResponse(ok(String(bigJson)), accept, { etag: true, memo });
    assert.equal(b.out.body, a.out.body, 'the same compressed Buffer');
    assert.equal(headers(b.out).get('etag'), headers(a.out).get('etag'));
    const changedJson = bigJson.replace('user0', 'user_');
    const c = await finishResponse(ok(changedJson), accept, { etag: true, memo });
    assert.notEqual(c.out.body, a.out.body);
    assert.equal(brotliDecompressSync(c.out.body as Uint8Array).toString(), changedJson);
    assert.equal(headers(c.out).get('etag'), encodedEtag(etagOf(changedJson), 'br'));
  });
});
