import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResponseParser, type ParsedResponse } from '../../bench/http/responseParser.js';
import { KeepAliveConnection } from '../../bench/http/keepAliveClient.js';

function parsed(keepBody: boolean): { parser: ResponseParser; out: ParsedResponse[] } {
  const out: ParsedResponse[] = [];
  return { parser: new ResponseParser(keepBody, (r) => out.push(r)), out };
}

const CL = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"a":"xyz"}';
const CHUNKED = 'HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\nConnection: close\r\n\r\n4\r\nabcd\r\n3;x=1\r\nefg\r\n0\r\n\r\n';

describe('bench ResponseParser', () => {
  it('reads a Content-Length answer fed one byte at a time', () => {
    const { parser, out } = parsed(true);
    parser.expect();
    for (const b of Buffer.from(CL)) assert.equal(parser.feed(Buffer.from([b])), true);
    assert.deepEqual(out.map((r) => [r.status, r.body!.toString(), r.closeAfter]), [[200, '{"a":"xyz"}', false]]);
    assert.equal(parser.waiting, false);
  });

  it('joins chunked bodies and sees Connection: close, across split feeds', () => {
    const { parser, out } = parsed(true);
    parser.expect();
    const bytes = Buffer.from(CHUNKED);
    assert.equal(parser.feed(bytes.subarray(0, 75)), true);
    assert.equal(parser.feed(bytes.subarray(75, 84)), true);
    assert.equal(parser.feed(bytes.subarray(84)), true);
    assert.deepEqual(out.map((r) => [r.status, r.body!.toString(), r.closeAfter]), [[404, 'abcdefg', true]]);
  });

  it('reads two pipelined answers from one chunk, without bodies when not kept', () => {
    const { parser, out } = parsed(false);
    parser.expect();
    parser.expect();
    assert.equal(parser.feed(Buffer.from(CL + CHUNKED)), true);
    assert.deepEqual(out.map((r) => [r.status, r.body]), [[200, null], [404, null]]);
  });

  it('refuses bytes nobody asked for, a non-HTTP status line and a body without a length', () => {
    assert.equal(parsed(true).parser.feed(Buffer.from(CL)), false);
    const a = parsed(true);
    a.parser.expect();
    assert.equal(a.parser.feed(Buffer.from('SMTP/1.0 hello\r\n\r\n')), false);
    const b = parsed(true);
    b.parser.expect();
    assert.equal(b.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\n\r\nrest')), false);
  });
});

describe('bench KeepAliveConnection', () => {
  it('sends requests in turn on one socket, and reconnects after Connection: close', async () => {
    const sockets = new Set<unknown>();
    let n = 0;
    const server = createServer((req, res) => {
      sockets.add(req.socket);
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        n++;
        res.writeHead(n === 2 ? 503 : 200, { 'Content-Type': 'application/json', ...(n === 2 ? { Connection: 'close' } : {}) });
        res.end(JSON.stringify({ n, path: req.url, body }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = new KeepAliveConnection((server.address() as AddressInfo).port);
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await c.post('/p', `{"i":${i}}`));
      assert.deepEqual(
        answers.map((a) => [a.status, JSON.parse(a.text)]),
        [0, 1, 2, 3].map((i) => [i === 1 ? 503 : 200, { n: i + 1, path: '/p', body: `{"i":${i}}` }]),
      );
      assert.equal(sockets.size, 2);
      await assert.rejects(Promise.all([c.post('/p', '{}'), c.post('/p', '{}')]), /one request at a time/);
    } finally {
      c.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('rejects when the server goes away mid-answer', async () => {
    const server = createServer((req) => req.socket.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = new KeepAliveConnection((server.address() as AddressInfo).port);
    try {
      await assert.rejects(c.post('/p', '{}'), /closed the connection|ECONNRESET/);
    } finally {
      c.close();
      await new Promise((r) => server.close(r));
    }
  });
});
