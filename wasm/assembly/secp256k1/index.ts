// Exports of this area; see wasm/assembly/index.ts.
export const secp256k1Version: i32 = 1;
