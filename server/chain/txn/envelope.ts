/**
 * The MsgDeSoTxn envelope (reference node-api.md §5.1, §5.4): everything but the per-type
 * metadata, which stays raw bytes here. Enough to hash, sign, splice a signature and tell what
 * a transaction pays to whom; the typed metadata codecs build on it.
 *
 *   uvarint nInputs  ‖ (txid 32 ‖ uvarint index)*
 *   uvarint nOutputs ‖ (pk 33 ‖ uvarint amountNanos)*
 *   uvarint txnType ‖ uvarint len ‖ metadata
 *   uvarint len ‖ publicKey
 *   uvarint nKeys ‖ (bytes key ‖ bytes value)*          ExtraData, keys ascending
 *   uvarint len ‖ signature                              00 when unsigned
 *   [v1: uvarint version ‖ uvarint fee ‖ uvarint expirationBlockHeight ‖ uvarint partialId]
 */
import { sha256d } from '../../../wasm/hash.js';
import { TxnDecodeError } from './errors.js';
import { encodeUvarint, Reader } from './varint.js';
import { PUBLIC_KEY_BYTES } from './sizes.js';

export interface TxnInput {
  txid: Uint8Array;
  index: bigint;
}

export interface TxnOutput {
  publicKey: Uint8Array;
  amountNanos: bigint;
}

export interface TxnV1Fields {
  version: bigint;
  feeNanos: bigint;
  nonceExpirationBlockHeight: bigint;
  noncePartialId: bigint;
}

export interface TxnEnvelope {
  inputs: TxnInput[];
  outputs: TxnOutput[];
  txnType: number;
  metadata: Uint8Array;
  /** Empty for block rewards. */
  publicKey: Uint8Array;
  /** In wire order (ascending byte order of keys). */
  extraData: Array<[Uint8Array, Uint8Array]>;
  /** Empty when unsigned. */
  signature: Uint8Array;
  /** Null for a version-0 transaction (nothing after the signature). */
  v1: TxnV1Fields | null;
  /** Where the signature field (its length uvarint included) starts and ends in the bytes. */
  signatureField: { start: number; end: number };
}


function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/**
 * The type of a transaction, read past its inputs and outputs only: for scans that want a few
 * types out of whole blocks (the hot feed's posts), without decoding every transaction. Reads
 * the same fields decodeTxn reads first, with the same checks.
 * @throws {TxnDecodeError} the header up to the type is malformed
 */
export function txnTypeOf(bytes: Uint8Array): number {
  const r = new Reader(bytes);
  const nInputs = r.length('inputs count', 33);
  for (let i = 0; i < nInputs; i++) {
    r.skip(32, `input ${i} txid`);
    r.uvarint(`input ${i} index`);
  }
  const nOutputs = r.length('outputs count', 34);
  for (let i = 0; i < nOutputs; i++) {
    r.skip(PUBLIC_KEY_BYTES, `output ${i} public key`);
    r.uvarint(`output ${i} amount`);
  }
  return readTxnType(r);
}

/** The type field that follows the outputs: 1-255. */
function readTxnType(r: Reader): number {
  const type = r.uvarint('txn type');
  if (type === 0n || type > 255n) throw new TxnDecodeError(`txn type: ${type} is not a transaction type`);
  return Number(type);
}

export function decodeTxn(bytes: Uint8Array): TxnEnvelope {
  const r = new Reader(bytes);
  const nInputs = r.length('inputs count', 33);
  const inputs: TxnInput[] = [];
  for (let i = 0; i < nInputs; i++) inputs.push({ txid: r.take(32, `input ${i} txid`), index: r.uvarint(`input ${i} index`) });
  const nOutputs = r.length('outputs count', 34);
  const outputs: TxnOutput[] = [];
  for (let i = 0; i < nOutputs; i++) {
    outputs.push({ publicKey: r.take(PUBLIC_KEY_BYTES, `output ${i} public key`), amountNanos: r.uvarint(`output ${i} amount`) });
  }
  const type = readTxnType(r);
  const metadata = r.varBytes('metadata');
  const publicKey = r.varBytes('public key');
  if (publicKey.length !== 0 && publicKey.length !== PUBLIC_KEY_BYTES) {
    throw new TxnDecodeError(`public key: expected ${PUBLIC_KEY_BYTES} bytes, got ${publicKey.length}`);
  }
  const nKeys = r.length('extra data count', 2);
  const extraData: Array<[Uint8Array, Uint8Array]> = [];
  for (let i = 0; i < nKeys; i++) {
    const key = r.varBytes(`extra data key ${i}`);
    const value = r.varBytes(`extra data value ${i}`);
    if (extraData.some(([k]) => compareBytes(k, key) === 0)) throw new TxnDecodeError(`extra data: duplicate key ${Buffer.from(key).toString('latin1').slice(0, 64)}`);
    // Core writes keys in ascending byte order and hashes its own re-serialization, so any
    // other order can never carry a valid signature (the SDK's string sort can produce one).
    const prev = extraData[extraData.length - 1];
    if (prev !== undefined && compareBytes(prev[0], key) > 0) {
      throw new TxnDecodeError('extra data: keys must be in ascending byte order (as core serializes them)');
    }
    extraData.push([key, value]);
  }
  const sigStart = r.pos;
  const signature = r.varBytes('signature');
  const sigEnd = r.pos;
  let v1: TxnV1Fields | null = null;
  if (r.remaining > 0) {
    v1 = {
      version: r.uvarint('txn version'),
      feeNanos: r.uvarint('txn fee'),
      nonceExpirationBlockHeight: r.uvarint('nonce expiration block height'),
      noncePartialId: r.uvarint('nonce partial id'),
    };
    if (r.remaining > 0) throw new TxnDecodeError(`${r.remaining} bytes after the end of the transaction`);
  }
  return { inputs, outputs, txnType: type, metadata, publicKey, extraData, signature, v1, signatureField: { start: sigStart, end: sigEnd } };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

/** The bytes with the signature field replaced by `signature` (empty ⇒ the unsigned `00`). */
export function withSignature(bytes: Uint8Array, signature: Uint8Array, signatureField = decodeTxn(bytes).signatureField): Uint8Array {
  return concat([
    bytes.subarray(0, signatureField.start),
    encodeUvarint(signature.length),
    signature,
    bytes.subarray(signatureField.end),
  ]);
}

/**
 * A signed transaction from its unsigned bytes and a signature (submit-transaction's
 * `UnsignedTransactionHex` + `TransactionSignatureHex`).
 * @throws {TxnDecodeError} TXN_UNSIGNED_MALFORMED when the unsigned bytes do not decode
 */
export function signUnsigned(unsigned: Uint8Array, signature: Uint8Array): Uint8Array {
  try {
    return withSignature(unsigned, signature);
  } catch (e) {
    // Same message, the code says which bytes: the client sent two transactions' worth of hex.
    if (e instanceof TxnDecodeError) throw new TxnDecodeError(e.message, 'TXN_UNSIGNED_MALFORMED');
    throw e;
  }
}

/** The digest a signer signs: sha256d of the transaction with an empty signature (§5.4). */
export function hashToSign(bytes: Uint8Array, decoded?: Pick<TxnEnvelope, 'signatureField'>): Uint8Array {
  return sha256d(withSignature(bytes, new Uint8Array(0), decoded?.signatureField));
}

/**
 * The transaction id: sha256d of the bytes as they are (signature included), once they decode
 * as a transaction. `decoded` (`decodeTxn(bytes)` already made by the caller) skips decoding
 * them again: submit-transaction decoded each one three times.
 */
export function txnHash(bytes: Uint8Array, decoded?: TxnEnvelope): Uint8Array {
  if (decoded === undefined) decodeTxn(bytes);
  return sha256d(bytes);
}

/** What `encodeTxn` needs: an envelope without the decoder's bookkeeping. */
export type TxnFields = Omit<TxnEnvelope, 'signatureField'>;

/**
 * Serializes a transaction (§5.1). ExtraData is written in ascending byte order of its keys, as
 * core re-serializes it, whatever order the caller gives; duplicate keys are refused.
 * @throws {TxnDecodeError} on a malformed field (wrong key length, duplicate ExtraData key)
 */
export function encodeTxn(t: TxnFields): Uint8Array {
  const parts: Uint8Array[] = [encodeUvarint(t.inputs.length)];
  for (const i of t.inputs) {
    if (i.txid.length !== 32) throw new TxnDecodeError('input txid: expected 32 bytes');
    parts.push(i.txid, encodeUvarint(i.index));
  }
  parts.push(encodeUvarint(t.outputs.length));
  for (const o of t.outputs) {
    if (o.publicKey.length !== PUBLIC_KEY_BYTES) throw new TxnDecodeError(`output public key: expected ${PUBLIC_KEY_BYTES} bytes`);
    parts.push(o.publicKey, encodeUvarint(o.amountNanos));
  }
  if (t.publicKey.length !== 0 && t.publicKey.length !== PUBLIC_KEY_BYTES) throw new TxnDecodeError(`public key: expected ${PUBLIC_KEY_BYTES} bytes`);
  parts.push(encodeUvarint(t.txnType), encodeUvarint(t.metadata.length), t.metadata, encodeUvarint(t.publicKey.length), t.publicKey);
  const extra = [...t.extraData].sort(([a], [b]) => compareBytes(a, b));
  for (let i = 1; i < extra.length; i++) {
    if (compareBytes(extra[i - 1]![0], extra[i]![0]) === 0) throw new TxnDecodeError('extra data: duplicate key');
  }
  parts.push(encodeUvarint(extra.length));
  for (const [k, v] of extra) parts.push(encodeUvarint(k.length), k, encodeUvarint(v.length), v);
  parts.push(encodeUvarint(t.signature.length), t.signature);
  if (t.v1 !== null) {
    parts.push(encodeUvarint(t.v1.version), encodeUvarint(t.v1.feeNanos), encodeUvarint(t.v1.nonceExpirationBlockHeight), encodeUvarint(t.v1.noncePartialId));
  }
  return new Uint8Array(concat(parts));
}
