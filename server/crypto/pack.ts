/**
 * Main-thread side of the worker wire format (layouts in workers/types.ts): each batch becomes
 * one exactly-sized ArrayBuffer, so Piscina.move can hand it to the worker without a copy, and
 * each reply is read back into one `WorkResult` per input item.
 *
 * Items whose fields have the wrong length never reach the worker: they are refused here, in
 * place, with a message naming the field; the rest of the batch goes on.
 * @module
 */
import {
  COMPACT_SIGNATURE_BYTES,
  DecryptMode,
  DecryptRequestOffset,
  ECDH_ITEM_BYTES,
  ECDH_REPLY_BYTES,
  EcdhItemOffset,
  EcdhReplyOffset,
  EncryptItemOffset,
  HASH_BYTES,
  HEADER_BYTES,
  ITEM_ERROR_MESSAGES,
  ItemStatus,
  MINE_REPLY_BYTES,
  MINE_REQUEST_BYTES,
  MessageStatus,
  MineReplyOffset,
  MineRequestOffset,
  PRIVATE_KEY_BYTES,
  PUBLIC_KEY_BYTES,
  RECOVER_ITEM_BYTES,
  RECOVER_REPLY_BYTES,
  RecoverItemOffset,
  RecoverReplyOffset,
  SHARED_SECRET_BYTES,
  SIGN_ITEM_BYTES,
  SIGN_REPLY_BYTES,
  SignItemOffset,
  SignReplyOffset,
  VERIFY_ITEM_BYTES,
  VerifyFlags,
  VerifyItemOffset,
  type WorkResult,
} from '../../workers/types.js';
import { packVariable, unpackVariable } from '../../workers/variable.js';

export interface VerifyItem {
  /** 33-byte compressed SEC1 public key. */
  publicKey: Uint8Array;
  /** 32-byte message hash (DeSo signs sha256d of the transaction bytes). */
  hash: Uint8Array;
  /** 64-byte compact signature r ‖ s. */
  signature: Uint8Array;
  /** Reject high-S signatures, as DeSo does for transactions. @default true */
  lowS?: boolean;
}

export interface RecoverItem {
  /** 32-byte message hash. */
  hash: Uint8Array;
  /** 64-byte compact signature r ‖ s. */
  signature: Uint8Array;
  /** Recovery id 0..3 (DeSo-DER: header byte − 0x31). */
  recovery: number;
}

export interface SignItem {
  privateKey: Uint8Array;
  hash: Uint8Array;
}

export interface RecoverableSignature {
  /** 64-byte compact r ‖ s, low-S. */
  signature: Uint8Array;
  /** Recovery id 0..3, as DeSo's identity service returns beside DER signatures. */
  recovery: number;
}

export interface EcdhItem {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

export interface MineRequest {
  /** 100-byte v1 header; its nonce field is overwritten by the scan. */
  header: Uint8Array;
  startNonce: bigint;
  /** Nonces to try, from startNonce upwards. */
  count: number;
  /** 32-byte big-endian target: a hash at or below it wins. */
  target: Uint8Array;
}

export type MineResult = { found: true; nonce: bigint; hash: Uint8Array } | { found: false };

/** One batch, packed. */
export interface PackedBatch {
  /** Well-formed items back to back; `bytes.buffer` is owned by this batch alone. */
  bytes: Uint8Array;
  /** Input index of each packed item, in packed order. */
  indices: number[];
  /** Input items refused before packing: index → reason. */
  refused: Map<number, string>;
  /** Number of input items. */
  count: number;
}

/** The reason a field is unfit, or null. */
function fieldError(name: string, value: Uint8Array, bytes: number): string | null {
  if (!(value instanceof Uint8Array)) return `"${name}" expected a Uint8Array of ${bytes} bytes, got ${typeof value}`;
  return value.length === bytes ? null : `"${name}" expected ${bytes} bytes, got ${value.length}`;
}

/**
 * Packs fixed-size items. `check` returns why an item is unfit (it is then refused) or null;
 * `write` copies a fit item into its slot.
 */
export function packFixed<T>(
  items: readonly T[],
  itemBytes: number,
  check: (item: T) => string | null,
  write: (item: T, slot: Uint8Array) => void,
): PackedBatch {
  const refused = new Map<number, string>();
  const indices: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const reason = check(items[i]!);
    if (reason === null) indices.push(i);
    else refused.set(i, reason);
  }
  const bytes = new Uint8Array(indices.length * itemBytes);
  for (let k = 0; k < indices.length; k++) {
    write(items[indices[k]!]!, bytes.subarray(k * itemBytes, (k + 1) * itemBytes));
  }
  return { bytes, indices, refused, count: items.length };
}

/** Merges refused items and the reply's per-packed-item results back into input order. */
export function mergeResults<T>(batch: PackedBatch, readPacked: (k: number) => WorkResult<T>): WorkResult<T>[] {
  const out = new Array<WorkResult<T>>(batch.count);
  for (const [i, error] of batch.refused) out[i] = { ok: false, error };
  for (let k = 0; k < batch.indices.length; k++) out[batch.indices[k]!] = readPacked(k);
  return out;
}

function checkReplyLength(reply: Uint8Array, expected: number, task: string): void {
  if (reply.length !== expected) throw new RangeError(`${task} reply expected ${expected} bytes, got ${reply.length}`);
}

function statusError(status: number): { ok: false; error: string } {
  return { ok: false, error: ITEM_ERROR_MESSAGES[status] ?? `unknown item status ${status}` };
}

// --- verifySignatures ------------------------------------------------------------------------

export function packVerifyItems(items: readonly VerifyItem[]): PackedBatch {
  return packFixed(
    items,
    VERIFY_ITEM_BYTES,
    (it) =>
      fieldError('publicKey', it.publicKey, PUBLIC_KEY_BYTES) ??
      fieldError('hash', it.hash, HASH_BYTES) ??
      fieldError('signature', it.signature, COMPACT_SIGNATURE_BYTES),
    (it, slot) => {
      slot.set(it.publicKey, VerifyItemOffset.publicKey);
      slot.set(it.hash, VerifyItemOffset.hash);
      slot.set(it.signature, VerifyItemOffset.signature);
      slot[VerifyItemOffset.flags] = it.lowS === false ? 0 : VerifyFlags.LowS;
    },
  );
}

/** Reply: one status byte per packed item. */
export function unpackVerifyReply(batch: PackedBatch, reply: Uint8Array): WorkResult<boolean>[] {
  checkReplyLength(reply, batch.indices.length, 'verifySignatures');
  return mergeResults(batch, (k) => {
    const status = reply[k]!;
    if (status === ItemStatus.Ok) return { ok: true, value: true };
    if (status === ItemStatus.Invalid) return { ok: true, value: false };
    return statusError(status);
  });
}

// --- recoverPublicKeys -----------------------------------------------------------------------

export function packRecoverItems(items: readonly RecoverItem[]): PackedBatch {
  return packFixed(
    items,
    RECOVER_ITEM_BYTES,
    (it) =>
      fieldError('hash', it.hash, HASH_BYTES) ??
      fieldError('signature', it.signature, COMPACT_SIGNATURE_BYTES) ??
      (Number.isInteger(it.recovery) && it.recovery >= 0 && it.recovery <= 3 ? null : `"recovery" expected an integer 0..3, got ${String(it.recovery)}`),
    (it, slot) => {
      slot.set(it.hash, RecoverItemOffset.hash);
      slot.set(it.signature, RecoverItemOffset.signature);
      slot[RecoverItemOffset.recovery] = it.recovery;
    },
  );
}

/** Reply: status ‖ 33-byte compressed key per packed item; keys are views over the reply. */
export function unpackRecoverReply(batch: PackedBatch, reply: Uint8Array): WorkResult<Uint8Array>[] {
  checkReplyLength(reply, batch.indices.length * RECOVER_REPLY_BYTES, 'recoverPublicKeys');
  return mergeResults(batch, (k) => {
    const at = k * RECOVER_REPLY_BYTES;
    const status = reply[at + RecoverReplyOffset.status]!;
    if (status !== ItemStatus.Ok) return statusError(status);
    const keyAt = at + RecoverReplyOffset.publicKey;
    return { ok: true, value: reply.subarray(keyAt, keyAt + PUBLIC_KEY_BYTES) };
  });
}

// --- hashHeaders -----------------------------------------------------------------------------

/**
 * Items of exactly `size` bytes each, back to back (packFixed refuses unfit items one by one;
 * headers and hashes are built by our own code, so a wrong length is a bug: it throws, naming
 * the index).
 */
function packExact(items: readonly Uint8Array[], size: number, name: string): Uint8Array {
  const bytes = new Uint8Array(items.length * size);
  items.forEach((item, i) => {
    if (item.length !== size) throw new RangeError(`"${name}[${i}]" expected ${size} bytes, got ${item.length}`);
    bytes.set(item, i * size);
  });
  return bytes;
}

export function packHeaders(headers: readonly Uint8Array[]): Uint8Array {
  return packExact(headers, HEADER_BYTES, 'headers');
}

/** Reply: n × 32-byte hashes; returned as views over the one reply buffer. */
export function unpackHashes(count: number, reply: Uint8Array, task = 'hashHeaders'): Uint8Array[] {
  checkReplyLength(reply, count * HASH_BYTES, task);
  return Array.from({ length: count }, (_, i) => reply.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES));
}

// --- merklePath ------------------------------------------------------------------------------

/** 32-byte hashes packed in order. */
export function packHashes(hashes: readonly Uint8Array[]): Uint8Array {
  return packExact(hashes, HASH_BYTES, 'hashes');
}

// --- mineNonces ------------------------------------------------------------------------------

/** Highest nonce count per request: a u32 on the wire. */
export const MAX_MINE_COUNT = 0xffff_ffff;

export function packMineRequest(req: MineRequest): Uint8Array {
  if (req.header.length !== HEADER_BYTES) throw new RangeError(`"header" expected ${HEADER_BYTES} bytes, got ${req.header.length}`);
  if (req.target.length !== HASH_BYTES) throw new RangeError(`"target" expected ${HASH_BYTES} bytes, got ${req.target.length}`);
  if (!Number.isInteger(req.count) || req.count < 0 || req.count > MAX_MINE_COUNT) {
    throw new RangeError(`"count" expected an integer in [0, ${MAX_MINE_COUNT}], got ${req.count}`);
  }
  if (req.startNonce < 0n || req.startNonce > 0xffff_ffff_ffff_ffffn) {
    throw new RangeError(`"startNonce" expected an unsigned 64-bit integer, got ${req.startNonce}`);
  }
  const bytes = new Uint8Array(MINE_REQUEST_BYTES);
  const view = new DataView(bytes.buffer);
  bytes.set(req.header, MineRequestOffset.header);
  view.setBigUint64(MineRequestOffset.startNonce, req.startNonce);
  view.setUint32(MineRequestOffset.count, req.count);
  bytes.set(req.target, MineRequestOffset.target);
  return bytes;
}

export function unpackMineReply(reply: Uint8Array): MineResult {
  checkReplyLength(reply, MINE_REPLY_BYTES, 'mineNonces');
  if (reply[MineReplyOffset.found] === 0) return { found: false };
  const view = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
  return {
    found: true,
    nonce: view.getBigUint64(MineReplyOffset.nonce),
    hash: reply.subarray(MineReplyOffset.hash, MineReplyOffset.hash + HASH_BYTES),
  };
}

// --- sign ------------------------------------------------------------------------------------

export function packSignItems(items: readonly SignItem[]): PackedBatch {
  return packFixed(
    items,
    SIGN_ITEM_BYTES,
    (it) => fieldError('privateKey', it.privateKey, PRIVATE_KEY_BYTES) ?? fieldError('hash', it.hash, HASH_BYTES),
    (it, slot) => {
      slot.set(it.privateKey, SignItemOffset.privateKey);
      slot.set(it.hash, SignItemOffset.hash);
    },
  );
}

export function unpackSignReply(batch: PackedBatch, reply: Uint8Array): WorkResult<RecoverableSignature>[] {
  checkReplyLength(reply, batch.indices.length * SIGN_REPLY_BYTES, 'sign');
  return mergeResults(batch, (k) => {
    const at = k * SIGN_REPLY_BYTES;
    const status = reply[at + SignReplyOffset.status]!;
    if (status !== ItemStatus.Ok) return statusError(status);
    const sigAt = at + SignReplyOffset.signature;
    return {
      ok: true,
      value: {
        signature: reply.subarray(sigAt, sigAt + COMPACT_SIGNATURE_BYTES),
        recovery: reply[at + SignReplyOffset.recovery]!,
      },
    };
  });
}

// --- ecdh ------------------------------------------------------------------------------------

export function packEcdhItems(items: readonly EcdhItem[]): PackedBatch {
  return packFixed(
    items,
    ECDH_ITEM_BYTES,
    (it) => fieldError('privateKey', it.privateKey, PRIVATE_KEY_BYTES) ?? fieldError('publicKey', it.publicKey, PUBLIC_KEY_BYTES),
    (it, slot) => {
      slot.set(it.privateKey, EcdhItemOffset.privateKey);
      slot.set(it.publicKey, EcdhItemOffset.publicKey);
    },
  );
}

export function unpackEcdhReply(batch: PackedBatch, reply: Uint8Array): WorkResult<Uint8Array>[] {
  checkReplyLength(reply, batch.indices.length * ECDH_REPLY_BYTES, 'ecdh');
  return mergeResults(batch, (k) => {
    const at = k * ECDH_REPLY_BYTES;
    const status = reply[at + EcdhReplyOffset.status]!;
    if (status !== ItemStatus.Ok) return statusError(status);
    const secretAt = at + EcdhReplyOffset.secret;
    return { ok: true, value: reply.subarray(secretAt, secretAt + SHARED_SECRET_BYTES) };
  });
}


// --- variable-length items: the layout is shared with the workers, so it lives there ------

export { packVariable, unpackVariable };

// --- decryptMessages / encryptMessages (message ECIES) ---------------------------------------

export interface DecryptRequest {
  /** The reader's private key (owner, messaging or group key). */
  privateKey: Uint8Array;
  /** V2: the other party's 33-byte public key; absent for V1 (encrypted to privateKey). */
  otherPublicKey?: Uint8Array;
  ciphertexts: readonly Uint8Array[];
}

/** A wrong-length key is the caller's bug for the whole request, so it throws. */
export function packDecryptRequest(req: DecryptRequest): Uint8Array {
  if (req.privateKey.length !== PRIVATE_KEY_BYTES) {
    throw new RangeError(`"privateKey" expected ${PRIVATE_KEY_BYTES} bytes, got ${req.privateKey.length}`);
  }
  if (req.otherPublicKey !== undefined && req.otherPublicKey.length !== PUBLIC_KEY_BYTES) {
    throw new RangeError(`"otherPublicKey" expected ${PUBLIC_KEY_BYTES} bytes, got ${req.otherPublicKey.length}`);
  }
  const table = packVariable(req.ciphertexts);
  const bytes = new Uint8Array(DecryptRequestOffset.ciphertexts + table.length);
  bytes.set(req.privateKey, DecryptRequestOffset.privateKey);
  bytes[DecryptRequestOffset.mode] = req.otherPublicKey ? DecryptMode.Shared : DecryptMode.Direct;
  if (req.otherPublicKey) bytes.set(req.otherPublicKey, DecryptRequestOffset.otherPublicKey);
  bytes.set(table, DecryptRequestOffset.ciphertexts);
  return bytes;
}

const utf8Decoder = new TextDecoder();

function readMessageItem(item: Uint8Array): WorkResult<Uint8Array> {
  if (item[0] === MessageStatus.Ok) return { ok: true, value: item.slice(1) };
  return { ok: false, error: utf8Decoder.decode(item.subarray(1)) };
}

export function unpackMessageReply(count: number, reply: Uint8Array): WorkResult<Uint8Array>[] {
  const items = unpackVariable(reply);
  if (items.length !== count) throw new RangeError(`message reply expected ${count} items, got ${items.length}`);
  return items.map(readMessageItem);
}

export interface EncryptItem {
  /** 33-byte compressed public key of the recipient (V1) or of the other party (V2). */
  recipientPublicKey: Uint8Array;
  plaintext: Uint8Array;
  /** V2 only: the sender's private key; the message is encrypted to the shared key. */
  senderPrivateKey?: Uint8Array;
}

export function packEncryptItems(items: readonly EncryptItem[]): PackedBatch {
  const fit: Uint8Array[] = [];
  const indices: number[] = [];
  const refused = new Map<number, string>();
  items.forEach((it, i) => {
    if (it.recipientPublicKey.length !== PUBLIC_KEY_BYTES) {
      refused.set(i, `"recipientPublicKey" expected ${PUBLIC_KEY_BYTES} bytes, got ${it.recipientPublicKey.length}`);
      return;
    }
    if (it.senderPrivateKey !== undefined && it.senderPrivateKey.length !== PRIVATE_KEY_BYTES) {
      refused.set(i, `"senderPrivateKey" expected ${PRIVATE_KEY_BYTES} bytes, got ${it.senderPrivateKey.length}`);
      return;
    }
    const item = new Uint8Array(EncryptItemOffset.plaintext + it.plaintext.length);
    item[EncryptItemOffset.mode] = it.senderPrivateKey ? DecryptMode.Shared : DecryptMode.Direct;
    if (it.senderPrivateKey) item.set(it.senderPrivateKey, EncryptItemOffset.senderPrivateKey);
    item.set(it.recipientPublicKey, EncryptItemOffset.recipientPublicKey);
    item.set(it.plaintext, EncryptItemOffset.plaintext);
    fit.push(item);
    indices.push(i);
  });
  const bytes = packVariable(fit);
  for (const item of fit) item.fill(0); // copies of private keys
  return { bytes, indices, refused, count: items.length };
}

export function unpackEncryptReply(batch: PackedBatch, reply: Uint8Array): WorkResult<Uint8Array>[] {
  const items = batch.indices.length === 0 ? [] : unpackVariable(reply);
  if (items.length !== batch.indices.length) throw new RangeError(`encrypt reply expected ${batch.indices.length} items, got ${items.length}`);
  return mergeResults(batch, (k) => readMessageItem(items[k]!));
}
