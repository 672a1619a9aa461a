/**
 * The offset-table layout for variable-length items, used on both sides of the thread
 * boundary (server/crypto/pack.ts and the ECIES tasks).
 * @module
 */

/**
 * Offset-table layout for variable-length items (messages, ciphertexts):
 *   count(u32) ‖ offsets((count + 1) × u32) ‖ data
 * Item i is data[offsets[i], offsets[i + 1]); offsets are relative to the start of data, so a
 * reader checks them against data's length alone. Big-endian like the fixed layouts.
 */
export function packVariable(items: readonly Uint8Array[]): Uint8Array {
  const tableBytes = 4 * (items.length + 2);
  let dataBytes = 0;
  for (const it of items) dataBytes += it.length;
  if (dataBytes > 0xffff_ffff) throw new RangeError(`"items" expected at most 4 GiB in total, got ${dataBytes} bytes`);
  const bytes = new Uint8Array(tableBytes + dataBytes);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, items.length);
  let offset = 0;
  items.forEach((it, i) => {
    view.setUint32(4 + 4 * i, offset);
    bytes.set(it, tableBytes + offset);
    offset += it.length;
  });
  view.setUint32(4 + 4 * items.length, offset);
  return bytes;
}

/**
 * Views over each item of a packVariable buffer (no copy). Throws RangeError on a truncated
 * buffer or offsets that decrease or run past the data: the buffer came from another thread,
 * but a corrupt table must never read outside it.
 */
export function unpackVariable(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length < 8) throw new RangeError(`"bytes" expected at least 8 bytes (count and one offset), got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0);
  const tableBytes = 4 * (count + 2);
  if (tableBytes > bytes.length) {
    throw new RangeError(`"bytes" expected an offset table of ${tableBytes} bytes for ${count} items, got ${bytes.length} bytes in all`);
  }
  const data = bytes.subarray(tableBytes);
  const out = new Array<Uint8Array>(count);
  let start = view.getUint32(4);
  if (start !== 0) throw new RangeError(`"bytes" expected the first offset to be 0, got ${start}`);
  for (let i = 0; i < count; i++) {
    const end = view.getUint32(4 + 4 * (i + 1));
    if (end < start || end > data.length) {
      throw new RangeError(`"bytes" item ${i} expected an end offset in [${start}, ${data.length}], got ${end}`);
    }
    out[i] = data.subarray(start, end);
    start = end;
  }
  if (start !== data.length) throw new RangeError(`"bytes" expected ${start} data bytes, got ${data.length}`);
  return out;
}
