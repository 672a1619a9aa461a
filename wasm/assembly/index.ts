// Exports only: each area keeps its own index.
export { inputPtr, outputPtr, ioBytes } from './io';
export * from './hash/index';
export * from './cipher/index';
export * from './secp256k1/index';
export * from './ecies/index';
