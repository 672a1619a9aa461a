/** Lower-case hex of a byte view (only its own bytes, whatever buffer it sits in). */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** The bytes of a hex string (callers validate the text first; Buffer stops at a bad digit). */
export function fromHex(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h, 'hex'));
}

/**
 * The bytes of `h` when it is hex (an even number of hex digits, either case), else null. One
 * pass instead of a regular expression and then the decoding: Buffer decodes up to the first
 * bad digit, so a bad text decodes short.
 */
export function parseHex(h: string): Uint8Array | null {
  const decoded = Buffer.from(h, 'hex');
  return decoded.length * 2 === h.length ? new Uint8Array(decoded) : null;
}
