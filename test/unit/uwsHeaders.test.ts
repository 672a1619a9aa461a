/**
 * The uWS helper's last guard against header injection (issue 17, item 1): a response whose
 * header name or value holds a control character (CR, LF, NUL, any C0 but tab, DEL) is not
 * written; the request is answered 500 through onInternalError instead. Checked on the raw
 * bytes a real uWS server sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen, loadUws, serve, unsafeHeaderName, type Listening, type OutgoingResponse } from '../../server/http/uws.js';
import { rawRequest } from '../helpers/http.js';

describe('unsafeHeaderName', () => {
  it('names the first header with a control character in its name or value', () => {
    for (const c of ['\r', '\n', '\u0000', '\u0001', '\u001f', '\u007f']) {
      assert.equal(unsafeHeaderName([['A', 'ok'], ['Content-Type', `image/png${c}X-Injected: yes`]]), 'Content-Type', JSON.stringify(c));
      assert.equal(unsafeHeaderName([[`X${c}Y`, 'ok']]), `X${c}Y`, JSON.stringify(c));
    }
  });

  it('accepts tabs and printable text', () => {
    assert.equal(unsafeHeaderName([['Content-Security-Policy', "default-src 'none'; sandbox"], ['X-Tab', 'a\tb'], ['Location', 'https://example.com/a%0d%0a']]), null);
  });
});

describe('serve', () => {
  const { uws } = loadUws();
  const app = uws.App();
  let server: Listening;
  const internalErrors: unknown[] = [];
  const answers: Record<string, OutgoingResponse> = {
    '/injected': { status: 200, headers: [['Content-Type', 'image/png\r\nSet-Cookie: pwn=1; Path=/\r\nX-Injected: yes']], body: 'x' },
    '/nul': { status: 302, headers: [['Location', '/a\u0000b']], body: '' },
    '/bad-name': { status: 200, headers: [['X-Injected: yes\r\nX-Other', 'v']], body: 'x' },
    '/fine': { status: 200, headers: [['Content-Type', 'text/plain'], ['X-Tab', 'a\tb']], body: 'fine' },
  };

  before(async () => {
    serve(app, (req) => answers[req.url]!, {
      maxBodyBytes: 1024,
      onInternalError: (err) => {
        internalErrors.push(err);
        return { status: 500, headers: [['Content-Type', 'application/json']], body: '{"error":"internal server error"}' };
      },
    });
    server = await listen(uws, app, '127.0.0.1', 0);
  });
  after(() => {
    server.stopListening();
  });

  it('answers 500 instead of writing a header with CR, LF or NUL, and reports it', async () => {
    for (const path of ['/injected', '/nul', '/bad-name']) {
      const before = internalErrors.length;
      const r = await rawRequest(server.port, [`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
      assert.equal(r.status, 500, path);
      assert.equal(r.body, '{"error":"internal server error"}');
      assert.doesNotMatch(r.head, /set-cookie|x-injected|image\/png|location/i, `${path}: nothing of the refused headers is written`);
      assert.equal(internalErrors.length, before + 1, `${path}: reported once`);
      assert.doesNotMatch(String(internalErrors.at(-1)), /pwn|\/a\u0000b/, 'the refused value is not in the report');
    }
  });

  it('writes safe headers as given', async () => {
    const r = await rawRequest(server.port, ['GET /fine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    assert.equal(r.status, 200);
    assert.match(r.head, /\r\nX-Tab: a\tb/i);
    assert.equal(r.body, 'fine');
  });
});
