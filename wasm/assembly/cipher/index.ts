// Exports of this area; see wasm/assembly/index.ts.
export const cipherVersion: i32 = 1;
