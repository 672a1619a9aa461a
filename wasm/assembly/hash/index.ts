// Exports of this area; see wasm/assembly/index.ts.
export const hashVersion: i32 = 1;
