import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LuaPayload } from '../../server/store/luaPayload.js';

/** Reads the array back as cmsgpack does: every element a str of raw bytes. */
function decode(buf: Buffer): Buffer[] {
  assert.equal(buf[0], 0xdd, 'array 32');
  const count = buf.readUInt32BE(1);
  const out: Buffer[] = [];
  let at = 5;
  for (let i = 0; i < count; i++) {
    const tag = buf[at]!;
    let len: number;
    if (tag === 0xd9) [len, at] = [buf[at + 1]!, at + 2];
    else if (tag === 0xda) [len, at] = [buf.readUInt16BE(at + 1), at + 3];
    else if (tag === 0xdb) [len, at] = [buf.readUInt32BE(at + 1), at + 5];
    else throw new Error(`element ${i}: tag 0x${tag.toString(16)} is not a str 8/16/32`);
    out.push(buf.subarray(at, at + len));
    at += len;
  }
  assert.equal(at, buf.length, 'nothing after the last element');
  return out;
}

describe('LuaPayload (commit.lua argument)', () => {
  it('writes text as UTF-8 and bytes as they are, each a msgpack str, in order', () => {
    const texts = ['', 'a', 'é', '中文', '😀', 'a\u0000b', 'x'.repeat(85), 'x'.repeat(86), 'ü'.repeat(21_845), 'y'.repeat(21_846), 'mixed ascii then ü'];
    const bytes = [0, 1, 255, 256, 65_535, 65_536, 100_000].map((n) => Buffer.from(new Uint8Array(n).map((_, i) => (i * 13) & 0xff)));
    const p = new LuaPayload();
    for (const t of texts) p.text(t);
    for (const b of bytes) p.bytes(b);
    const got = decode(p.finish());
    assert.deepEqual(got.slice(0, texts.length).map((b) => b.toString('utf8')), texts);
    assert.deepEqual(got.slice(texts.length), bytes);
  });

  it('joins three parts into one element without building the string, any of them non-ASCII', () => {
    const parts: Array<[string, string, string]> = [['sn:', 'v:', 'key'], ['', '', ''], ['pré', 'x:', 'ü😀'], ['a', '中', ''], ['', '', 'z'.repeat(100)]];
    const p = new LuaPayload();
    for (const [a, b, c] of parts) p.joined(a, b, c);
    assert.deepEqual(decode(p.finish()).map((b) => b.toString('utf8')), parts.map((x) => x.join('')));
  });

  it('writes short text char by char and long text natively to the same bytes (2,000 random parts, 0-80 chars)', () => {
    const alphabet = ['a', 'Z', '0', ':', '-', '_', 'é', 'ü', '中', '😀', '\u007f', '\u0080'];
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const text = (): string => {
      const ascii = next(2) === 0;
      let s = '';
      for (let len = next(81); s.length < len; ) s += alphabet[next(ascii ? 6 : alphabet.length)]!;
      return s;
    };
    const parts = Array.from({ length: 2_000 }, (): [string, string, string] => [text(), text(), text()]);
    const p = new LuaPayload();
    for (const [a, b, c] of parts) p.joined(a, b, c);
    assert.deepEqual(decode(p.finish()), parts.map((x) => Buffer.from(x.join(''), 'utf8')));
  });

  it('grows past its first buffer and keeps what it wrote', () => {
    const p = new LuaPayload();
    const items = Array.from({ length: 20_000 }, (_, i) => `key:${i}:${'z'.repeat(i % 50)}`);
    for (const t of items) p.text(t);
    assert.deepEqual(decode(p.finish()).map((b) => b.toString()), items);
  });

  it('writes lone surrogates as the replacement character, as every other UTF-8 encoder here', () => {
    const got = decode(new LuaPayload().text('a\ud800b').finish());
    assert.equal(got[0]!.toString('utf8'), Buffer.from('a\ud800b', 'utf8').toString('utf8'));
  });
});
