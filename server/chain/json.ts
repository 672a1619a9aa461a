/**
 * The `Transaction` object of construct and submit responses: MsgDeSoTxn as Go's encoding/json
 * writes it (reference node-api.md §0.1): byte slices as base64, uint64 as numbers.
 * @module
 */
import type { TxnEnvelope } from './txn/envelope.js';

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

export function txnJson(t: TxnEnvelope | Omit<TxnEnvelope, 'signatureField'>, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    TxInputs: t.inputs.map((i) => ({ TxID: [...i.txid], Index: Number(i.index) })),
    TxOutputs: t.outputs.map((o) => ({ PublicKey: b64(o.publicKey), AmountNanos: o.amountNanos })),
    TxnMeta: meta,
    PublicKey: b64(t.publicKey),
    ExtraData: t.extraData.length === 0 ? null : Object.fromEntries(t.extraData.map(([k, v]) => [Buffer.from(k).toString('utf8'), b64(v)])),
    Signature: t.signature.length === 0 ? null : { Sign: b64(t.signature) },
    TxnVersion: Number(t.v1?.version ?? 0n),
    TxnFeeNanos: t.v1?.feeNanos ?? 0n,
    TxnNonce: t.v1 ? { ExpirationBlockHeight: t.v1.nonceExpirationBlockHeight, PartialID: t.v1.noncePartialId } : null,
    TxnTypeJSON: t.txnType,
  };
}
