export { KeyError, isKeyError, type KeyErrorCode } from './errors.js';
export {
  decodeBase58Check,
  encodeBase58Check,
  MAX_BASE58CHECK_CHARS,
  PREFIX_LENGTH,
  type Base58CheckParts,
} from './base58check.js';
export {
  decodePublicKey,
  encodePublicKey,
  isValidCompressedPoint,
  PRIVATE_KEY_PREFIXES,
  PUBLIC_KEY_LENGTH,
  PUBLIC_KEY_PREFIXES,
  PUBLIC_KEY_STRING_START,
  type Network,
} from './publicKey.js';
