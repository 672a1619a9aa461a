/**
 * Wire types between the crypto pool (server/crypto/pool.ts) and its worker (workers/crypto.ts).
 *
 * Every task takes one Uint8Array over one ArrayBuffer (moved, not copied, with Piscina.move)
 * and returns one Uint8Array the same way. No object graph crosses the thread boundary: the
 * layouts below are the whole protocol, and server/crypto/pack.ts is the only code that writes
 * or reads them on the main thread. Integers are big-endian, as in DeSo's own encodings.
 * @module
 */

/** Named exports of workers/crypto.ts, passed to `pool.run(bytes, { name })`. */
export type TaskName =
  | 'verifySignatures'
  | 'recoverPublicKeys'
  | 'hashHeaders'
  | 'merklePath'
  | 'mineNonces'
  | 'sign'
  | 'ecdh'
  | 'decryptMessages'
  | 'encryptMessages';

/** One item's outcome: a bad item fails alone, never its whole batch. */
export type WorkResult<T> = { ok: true; value: T } | { ok: false; error: string };

// ---------------------------------------------------------------------------------------------
// Per-item status byte. Each item of a sign, ecdh or recover reply starts with it; a verify
// reply item is nothing else. Ok (and, for verify, Invalid) are `ok` results; any other value
// is that item's error, worded by ITEM_ERROR_MESSAGES.

export const ItemStatus = {
  /** verify: the signature does not match (a well-formed item; `{ok: true, value: false}`). */
  Invalid: 0,
  /** verify: the signature matches; sign/ecdh/recover: the value bytes that follow are the result. */
  Ok: 1,
  BadPublicKey: 2,
  BadSignature: 3,
  BadFlags: 4,
  BadPrivateKey: 5,
  /** recover: no public key gives this signature (r or s out of range, or r names no curve point). */
  Unrecoverable: 6,
  /** recover: the recovery id is not 0..3. */
  BadRecoveryId: 7,
} as const;
export type ItemStatus = (typeof ItemStatus)[keyof typeof ItemStatus];

/** Messages for the error statuses; they name the field and what was expected, never its bytes. */
export const ITEM_ERROR_MESSAGES: Readonly<Record<number, string>> = {
  [ItemStatus.BadPublicKey]: '"publicKey" expected a compressed secp256k1 point on the curve',
  [ItemStatus.BadSignature]: '"signature" expected r and s in [1, n-1]',
  [ItemStatus.BadFlags]: '"flags" expected only known bits (VerifyFlags)',
  [ItemStatus.BadPrivateKey]: '"privateKey" expected a scalar in [1, n-1]',
  [ItemStatus.Unrecoverable]: '"signature" recovers no public key (r and s in [1, n-1], r the x coordinate of a curve point)',
  [ItemStatus.BadRecoveryId]: '"recovery" expected an integer 0..3',
};

// ---------------------------------------------------------------------------------------------
// verifySignatures
//   request: n × VERIFY_ITEM_BYTES, item = publicKey(33, compressed SEC1) ‖ hash(32) ‖
//            signature(64, compact r ‖ s) ‖ flags(1, VerifyFlags)
//   reply:   n × 1 status byte (Valid / Invalid / Bad*)

export const PUBLIC_KEY_BYTES = 33;
export const PRIVATE_KEY_BYTES = 32;
export const HASH_BYTES = 32;
export const COMPACT_SIGNATURE_BYTES = 64;

export const VerifyItemOffset = {
  publicKey: 0,
  hash: 33,
  signature: 65,
  flags: 129,
} as const;
export const VERIFY_ITEM_BYTES = 130;

export const VerifyFlags = {
  /**
   * Reject signatures with s > n/2 (BIP-62 low-S; DeSo's RuleErrorTxnSigHasHighS). pack.ts
   * sets it unless the item says `lowS: false`.
   */
  LowS: 0b0000_0001,
} as const;
/** Every flag bit we understand; an item with any other bit set is BadFlags. */
export const VERIFY_FLAGS_KNOWN = VerifyFlags.LowS;

// ---------------------------------------------------------------------------------------------
// recoverPublicKeys (ECDSA public-key recovery: DeSo-DER signatures name their derived key so)
//   request: n × RECOVER_ITEM_BYTES, item = hash(32) ‖ signature(64, compact r ‖ s) ‖ recovery(1, 0..3)
//   reply:   n × RECOVER_REPLY_BYTES, item = status(1) ‖ publicKey(33, compressed; zeros unless Ok)

export const RecoverItemOffset = { hash: 0, signature: 32, recovery: 96 } as const;
export const RECOVER_ITEM_BYTES = 97;
export const RecoverReplyOffset = { status: 0, publicKey: 1 } as const;
export const RECOVER_REPLY_BYTES = 34;

// ---------------------------------------------------------------------------------------------
// merklePath
//   request: n × HASH_BYTES, the txn hashes of a block's leaves 1..n (n >= 0), in block order
//   reply:   k × HASH_BYTES, the siblings of leaf 0 from the leaf level up (k = 0 for n = 0)

// ---------------------------------------------------------------------------------------------
// hashHeaders
//   request: n × HEADER_BYTES, DeSo block headers v1 as encoded for hashing
//   reply:   n × HASH_BYTES, DeSoHashV1 of each (all items are well-formed by construction:
//            the pool refuses a request whose length is not a multiple of HEADER_BYTES)

/**
 * DeSo header v1: version(4) ‖ prevBlockHash(32) ‖ txnMerkleRoot(32) ‖ tstampSecs(8) ‖
 * height(8) ‖ nonce(8) ‖ extraNonce(8) = 100 bytes, big-endian integers
 * (deso-protocol/core lib/network.go, EncodeHeaderVersion1).
 */
export const HEADER_BYTES = 100;
export const HeaderOffset = {
  nonce: 84,
  extraNonce: 92,
} as const;

// ---------------------------------------------------------------------------------------------
// mineNonces
//   request: header template(100) ‖ startNonce(u64) ‖ count(u32) ‖ target(32, big-endian)
//   reply:   found(1: 0 or 1) ‖ nonce(u64) ‖ hash(32); nonce and hash are zero when not found

export const MineRequestOffset = {
  header: 0,
  startNonce: 100,
  count: 108,
  target: 112,
} as const;
export const MINE_REQUEST_BYTES = 144;

export const MineReplyOffset = {
  found: 0,
  nonce: 1,
  hash: 9,
} as const;
export const MINE_REPLY_BYTES = 41;

// ---------------------------------------------------------------------------------------------
// sign
//   request: n × SIGN_ITEM_BYTES, item = privateKey(32) ‖ hash(32)
//   reply:   n × SIGN_REPLY_BYTES, item = status(1) ‖ signature(64, compact low-S r ‖ s) ‖ recovery(1)

export const SignItemOffset = { privateKey: 0, hash: 32 } as const;
export const SIGN_ITEM_BYTES = 64;
export const SignReplyOffset = { status: 0, signature: 1, recovery: 65 } as const;
export const SIGN_REPLY_BYTES = 66;

// ---------------------------------------------------------------------------------------------
// ecdh
//   request: n × ECDH_ITEM_BYTES, item = privateKey(32) ‖ publicKey(33)
//   reply:   n × ECDH_REPLY_BYTES, item = status(1) ‖ sharedSecret(32, x coordinate)

export const EcdhItemOffset = { privateKey: 0, publicKey: 32 } as const;
export const ECDH_ITEM_BYTES = 65;
export const EcdhReplyOffset = { status: 0, secret: 1 } as const;
export const ECDH_REPLY_BYTES = 33;
export const SHARED_SECRET_BYTES = 32;

// ---------------------------------------------------------------------------------------------
// decryptMessages (message ECIES, identity-and-crypto.md §3)
//   request: privateKey(32) ‖ mode(1: DecryptMode) ‖ otherPublicKey(33; zeros for Direct) ‖
//            ciphertexts (packVariable)
//   reply:   packVariable of n × (status(1: Ok or DecryptFailed) ‖ plaintext, or the UTF-8 reason)

export const DecryptMode = {
  /** V1: the ciphertexts were encrypted to privateKey's public key. */
  Direct: 0,
  /** V2: encrypted to the shared key of privateKey and otherPublicKey (either party decrypts). */
  Shared: 1,
} as const;
export type DecryptMode = (typeof DecryptMode)[keyof typeof DecryptMode];
export const DecryptRequestOffset = { privateKey: 0, mode: 32, otherPublicKey: 33, ciphertexts: 66 } as const;

/** Item status of decrypt/encrypt replies; a failed item carries its reason as UTF-8 text. */
export const MessageStatus = { Ok: 1, Failed: 0 } as const;

// ---------------------------------------------------------------------------------------------
// encryptMessages
//   request: packVariable of n × (mode(1: DecryptMode) ‖ senderPrivateKey(32; zeros for Direct) ‖
//            recipientPublicKey(33) ‖ plaintext)
//   reply:   packVariable of n × (status(1) ‖ ciphertext, or the UTF-8 reason)

export const EncryptItemOffset = { mode: 0, senderPrivateKey: 1, recipientPublicKey: 33, plaintext: 66 } as const;
