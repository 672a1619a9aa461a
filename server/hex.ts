/** Lower-case hex of a byte view (only its own bytes, whatever buffer it sits in). */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}
