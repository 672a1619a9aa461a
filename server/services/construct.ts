/**
 * Building the unsigned transaction of a construction route (reference node-api.md §4.1): the
 * request's fee fields, its ExtraData map, `TransactionFees` as extra outputs, on the current
 * tip and global params, and the reference's common response fields. Route files
 * (routes/constructed.ts `constructFields`) parse the request; this module knows no HTTP.
 * @module
 */
import { constructTxn, type Constructed } from '../chain/construct.js';
import { txnJson } from '../chain/json.js';
import { txnHash, type TxnOutput } from '../chain/txn/envelope.js';
import type { TxnMetadata } from '../chain/txn/metadata.js';
import { encodeUvarint } from '../chain/txn/varint.js';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import { encodeBase58Check } from '../keys/base58check.js';
import { decodePublicKey, PUBLIC_KEY_PREFIXES } from '../keys/index.js';

/** A request value the transaction cannot carry (CONSTRUCT_REQUEST_INVALID, 400). */
export class ConstructRequestError extends DomainError {
  override readonly name = 'ConstructRequestError';
  constructor(message: string) {
    super('CONSTRUCT_REQUEST_INVALID', 'invalid', message);
  }
}

/** ExtraData keys whose values are Base58Check public keys (stored as 33 bytes). */
const PUBLIC_KEY_EXTRA = new Set(['DerivedPublicKey']);
/** ExtraData keys whose values are numbers (stored as uvarints, reference encoders). */
const UVARINT_EXTRA = new Set(['NodeSource']);
/** ExtraData keys whose values are booleans "0"/"1" (one byte). */
const BOOL_EXTRA = new Set(['IsQuotedReclout', 'IsQuotedRepost', 'IsFrozen']);

/**
 * A request's ExtraData map as transaction ExtraData: typed keys through their encoders,
 * everything else raw UTF-8 (reference §4.1). Keys sorted as the encoding requires.
 */
export function encodeExtraData(map: Record<string, string>, deps: Pick<AppDeps, 'config'>): Array<[Uint8Array, Uint8Array]> {
  const entries: Array<[Uint8Array, Uint8Array]> = Object.entries(map).map(([k, value]) => {
    let bytes: Uint8Array;
    if (PUBLIC_KEY_EXTRA.has(k)) bytes = decodePublicKey(value, deps.config.network, `ExtraData.${k}`);
    else if (UVARINT_EXTRA.has(k)) {
      if (!/^\d{1,19}$/.test(value)) throw new ConstructRequestError(`ExtraData.${k}: expected an unsigned integer, got ${JSON.stringify(value.slice(0, 40))}`);
      bytes = encodeUvarint(BigInt(value));
    } else if (BOOL_EXTRA.has(k)) {
      if (value !== '0' && value !== '1') throw new ConstructRequestError(`ExtraData.${k}: expected "0" or "1"`);
      bytes = Uint8Array.of(Number(value));
    } else bytes = new TextEncoder().encode(value);
    return [new TextEncoder().encode(k), bytes];
  });
  return entries.sort(([a], [b]) => Buffer.compare(a, b));
}

export interface ConstructRequest {
  /** Transactor public key, 33 bytes. */
  publicKey: Uint8Array;
  metadata: TxnMetadata;
  /** Outputs the type itself needs (send-deso's recipient); `TransactionFees` are appended. */
  outputs?: TxnOutput[];
  /** Already-encoded ExtraData entries (merged with the request's map; these win). */
  extraData?: Array<[Uint8Array, Uint8Array]>;
  /** The request's common fields (`constructFields`). */
  fields: { MinFeeRateNanosPerKB: bigint; TransactionFees: Array<{ PublicKeyBase58Check: { bytes: Uint8Array }; AmountNanos: bigint }>; ExtraData: Record<string, string> };
  /** Nanos the transaction spends beyond fee and outputs (e.g. a creator-coin buy). */
  extraSpendNanos?: bigint;
}

export interface ConstructedResponse {
  constructed: Constructed;
  /** The reference's common response fields; routes pick theirs. */
  fields: {
    SpendAmountNanos: bigint;
    TotalInputNanos: bigint;
    ChangeAmountNanos: number;
    FeeNanos: bigint;
    TransactionIDBase58Check: string;
    Transaction: Record<string, unknown>;
    TransactionHex: string;
    /** sha256d of the unsigned bytes: the digest to sign (reference quirk, §4.1). */
    TxnHashHex: string;
  };
}

/** Builds the unsigned transaction on the current tip and its response fields. */
export async function constructForRequest(deps: Pick<AppDeps, 'chain' | 'config'>, r: ConstructRequest): Promise<ConstructedResponse> {
  const tip = await deps.chain.tip();
  // Fee floor and nonce window as the chain applies them: on-chain global params over the defaults.
  const gp = await deps.chain.globalParams();
  const feeOutputs: TxnOutput[] = r.fields.TransactionFees.map((f) => ({ publicKey: f.PublicKeyBase58Check.bytes, amountNanos: f.AmountNanos }));
  const outputs = [...(r.outputs ?? []), ...feeOutputs];
  const own = r.extraData ?? [];
  const fromRequest = encodeExtraData(r.fields.ExtraData, deps).filter(([k]) => !own.some(([o]) => Buffer.compare(o, k) === 0));
  const extraData = [...own, ...fromRequest].sort(([a], [b]) => Buffer.compare(a, b));
  const constructed = constructTxn({
    publicKey: r.publicKey,
    metadata: r.metadata,
    outputs,
    extraData,
    minFeeRateNanosPerKB: r.fields.MinFeeRateNanosPerKB,
    networkMinFeeRateNanosPerKB: gp.minimumNetworkFeeNanosPerKB,
    tipHeight: tip.height,
    maxNonceExpirationBlockHeightOffset: gp.maxNonceExpirationBlockHeightOffset,
  });
  const spend = outputs.reduce((sum, o) => sum + o.amountNanos, 0n) + (r.extraSpendNanos ?? 0n);
  const network = deps.config.network;
  // Unsigned, the bytes are their own signing form: the id (hashToSign) and the reference's
  // TxnHashHex (sha256d of the bytes as they are) are one hash.
  const hash = txnHash(constructed.bytes);
  return {
    constructed,
    fields: {
      SpendAmountNanos: spend,
      TotalInputNanos: spend + constructed.feeNanos,
      ChangeAmountNanos: 0,
      FeeNanos: constructed.feeNanos,
      TransactionIDBase58Check: encodeBase58Check(PUBLIC_KEY_PREFIXES[network], hash),
      Transaction: txnJson(constructed.fields),
      TransactionHex: Buffer.from(constructed.bytes).toString('hex'),
      TxnHashHex: Buffer.from(hash).toString('hex'),
    },
  };
}
