// The one place data crosses the WASM boundary. JS writes inputs into IN and reads results
// from OUT through typed-array views made once per instance (wasm/core.ts); no GC object ever
// crosses. Sizes: IN holds a batch of work items (headers, signatures, a chunk of messages);
// the JS wrappers split larger inputs.

/** Bytes in each I/O region. */
export const IO_BYTES: i32 = 256 * 1024;

const IN: usize = memory.data(IO_BYTES, 16);
const OUT: usize = memory.data(IO_BYTES, 16);

export function inputPtr(): usize {
  return IN;
}

export function outputPtr(): usize {
  return OUT;
}

export function ioBytes(): i32 {
  return IO_BYTES;
}
