/**
 * Unsigned transaction envelopes for rule tests that connect a transaction directly (no
 * signature, a fixed nonce): the metadata's own type, no inputs or outputs.
 */
import type { TxnEnvelope } from '../../server/chain/txn/envelope.js';
import { encodeMetadata, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';

export function txnOf(publicKey: Uint8Array, meta: TxnMetadata, extraData: Array<[Uint8Array, Uint8Array]> = []): TxnEnvelope {
  return {
    inputs: [],
    outputs: [],
    txnType: TxnType[meta.type],
    metadata: encodeMetadata(meta),
    publicKey,
    extraData,
    signature: new Uint8Array(0),
    v1: { version: 1n, feeNanos: 0n, nonceExpirationBlockHeight: 100n, noncePartialId: 1n },
    signatureField: { start: 0, end: 0 },
  };
}
