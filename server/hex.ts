/** Lower-case hex of a byte view (only its own bytes, whatever buffer it sits in). */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** The bytes of a hex string (callers validate the text first; Buffer stops at a bad digit). */
export function fromHex(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h, 'hex'));
}
