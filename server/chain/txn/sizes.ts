/**
 * Byte sizes of the chain's wire format, in one place (every codec, rule and state module that
 * checks a length reads them here). The crypto workers' wire protocol (workers/types.ts) is a
 * layer below and keeps its own, equal, constants.
 * @module
 */

/** A compressed secp256k1 public key (also a PKID). */
export const PUBLIC_KEY_BYTES = 33;
/** A transaction, block or post hash (sha256d). */
export const HASH_BYTES = 32;
/** An access group key name, zero-padded. */
export const GROUP_KEY_NAME_BYTES = 32;
/** A uint256 amount, big-endian. */
export const U256_BYTES = 32;
