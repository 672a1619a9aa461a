/**
 * One msgpack array of byte strings: how the commit script (scripts/commit.lua) gets its
 * fields in one Redis argument, decoded there by `cmsgpack.unpack`. Redis's cmsgpack reads no
 * msgpack `bin` type, so every field, text or bytes, is a msgpack `str` holding raw bytes (Lua
 * strings are byte strings). Text is UTF-8.
 *
 * Written by hand rather than by msgpackr (which writes bytes as `bin`): short ASCII text is
 * copied char by char without a native call; longer and other text goes through Buffer.write.
 * @module
 */

/** Strings this long or longer are written by Buffer.write; shorter ones char by char. */
const NATIVE_WRITE_CHARS = 32;

/** Header bytes reserved for the array: array 32 (0xdd and a 4-byte count). */
const ARRAY_HEADER = 5;

export class LuaPayload {
  private buf = Buffer.allocUnsafe(4096);
  private at = ARRAY_HEADER;
  private count = 0;

  /** @param nativeFromChars strings at least this long go through Buffer.write (Infinity: none; for the bench's baseline) */
  constructor(private readonly nativeFromChars: number = NATIVE_WRITE_CHARS) {}

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  /**
   * A str header sized for up to `maxBytes`, at `this.at`; answers where its length goes. Not
   * always the shortest form: msgpack allows any, and the length is only known once written.
   */
  private header(maxBytes: number): { at: number; size: 1 | 2 | 4 } {
    const at = this.at;
    if (maxBytes <= 0xff) {
      this.buf[at] = 0xd9;
      this.at += 2;
      return { at: at + 1, size: 1 };
    }
    if (maxBytes <= 0xffff) {
      this.buf[at] = 0xda;
      this.at += 3;
      return { at: at + 1, size: 2 };
    }
    this.buf[at] = 0xdb;
    this.at += 5;
    return { at: at + 1, size: 4 };
  }

  private length(h: { at: number; size: 1 | 2 | 4 }, n: number): void {
    if (h.size === 1) this.buf[h.at] = n;
    else if (h.size === 2) this.buf.writeUInt16BE(n, h.at);
    else this.buf.writeUInt32BE(n, h.at);
  }

  /** Appends text (UTF-8). */
  text(s: string): this {
    return this.joined(s, '', '');
  }

  /**
   * Appends `a + b + c` as one element without building the string: a store key is its
   * prefix, its kind and its name, and reading a concatenation char by char would first copy
   * it flat.
   */
  joined(a: string, b: string, c: string): this {
    const max = (a.length + b.length + c.length) * 3;
    this.reserve(max + 5);
    const h = this.header(max);
    const start = this.at;
    const end = this.put(c, this.put(b, this.put(a, start)));
    this.length(h, end - start);
    this.at = end;
    this.count++;
    return this;
  }

  /**
   * Writes `s` as UTF-8 at `start` (room reserved); answers where it ends. Short ASCII without a
   * native call: Buffer.write costs ~60 ns a call whatever the length, the loop ~2.5 ns a char
   * (bench/luaPayload.bench.ts).
   */
  private put(s: string, start: number): number {
    const buf = this.buf;
    const n = s.length;
    if (n >= this.nativeFromChars) return start + buf.write(s, start, 'utf8');
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return start + buf.write(s, start, n * 3, 'utf8');
      buf[start + i] = c;
    }
    return start + n;
  }

  /** Appends raw bytes. */
  bytes(b: Uint8Array): this {
    this.reserve(b.length + 5);
    const h = this.header(b.length);
    this.buf.set(b, this.at);
    this.length(h, b.length);
    this.at += b.length;
    this.count++;
    return this;
  }

  /** The array (a view of the writer's memory: append nothing after). */
  finish(): Buffer {
    this.buf[0] = 0xdd;
    this.buf.writeUInt32BE(this.count, 1);
    return this.buf.subarray(0, this.at);
  }
}
