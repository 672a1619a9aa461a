/**
 * Building unsigned transactions as the reference constructors do (node-api.md §4.1): version
 * 1, no inputs, a random nonce expiring a little before the node's limit, and a fee for the
 * largest the transaction can become once signed.
 * @module
 */
import { encodeTxn, type TxnFields, type TxnOutput } from './txn/envelope.js';
import type { TxnMetadata } from './txn/metadata.js';
import { encodeMetadata, TxnType } from './txn/metadata.js';
import { randomU64 } from './random.js';

/** Bytes a DER signature adds at most (72 + length byte + slack, as the reference's 74). */
export const MAX_SIGNATURE_BYTES = 74;
const U64_MAX = (1n << 64n) - 1n;

export interface ConstructOptions {
  /** Transactor (signer's owner) public key, 33 bytes. */
  publicKey: Uint8Array;
  metadata: TxnMetadata;
  outputs?: TxnOutput[];
  extraData?: Array<[Uint8Array, Uint8Array]>;
  /** Fee rate asked for; the network minimum applies when higher. */
  minFeeRateNanosPerKB: bigint;
  networkMinFeeRateNanosPerKB: bigint;
  tipHeight: bigint;
  maxNonceExpirationBlockHeightOffset: bigint;
}

export interface Constructed {
  bytes: Uint8Array;
  fields: TxnFields;
  feeNanos: bigint;
}

export function constructTxn(o: ConstructOptions): Constructed {
  const rate = o.minFeeRateNanosPerKB > o.networkMinFeeRateNanosPerKB ? o.minFeeRateNanosPerKB : o.networkMinFeeRateNanosPerKB;
  const txnType = TxnType[o.metadata.type];
  const base: TxnFields = {
    inputs: [],
    outputs: o.outputs ?? [],
    txnType,
    metadata: encodeMetadata(o.metadata),
    publicKey: o.publicKey,
    extraData: o.extraData ?? [],
    signature: new Uint8Array(0),
    v1: { version: 1n, feeNanos: 0n, nonceExpirationBlockHeight: U64_MAX, noncePartialId: U64_MAX },
  };
  // The fee pays for the largest form: u64-max nonce fields, a maximal signature; repeat until
  // the fee's own varint length stops changing it.
  let fee = 0n;
  for (let i = 0; i < 4; i++) {
    const size = BigInt(encodeTxn({ ...base, v1: { ...base.v1!, feeNanos: fee } }).length + MAX_SIGNATURE_BYTES);
    const next = (size * rate + 999n) / 1000n;
    if (next === fee) break;
    fee = next;
  }
  const offset = o.maxNonceExpirationBlockHeightOffset;
  const fields: TxnFields = {
    ...base,
    v1: {
      version: 1n,
      feeNanos: fee,
      // As the reference: tip + 1 + offset − 10, leaving a few blocks for the txn to be mined.
      nonceExpirationBlockHeight: o.tipHeight + 1n + (offset > 10n ? offset - 10n : offset),
      noncePartialId: randomU64(),
    },
  };
  return { bytes: encodeTxn(fields), fields, feeNanos: fee };
}
