/**
 * What every construction route shares (reference node-api.md §4.1): the fee fields of the
 * request, ExtraData maps, `TransactionFees` as extra outputs, and the response fields of an
 * unsigned transaction. Area route files pick the fields their reference route answers.
 * @module
 */
import type { AppDeps } from '../app.js';
import { constructTxn, type Constructed } from '../chain/construct.js';
import { txnJson } from '../chain/json.js';
import { hashToSign, type TxnOutput } from '../chain/txn/envelope.js';
import type { TxnMetadata } from '../chain/txn/metadata.js';
import { encodeUvarint } from '../chain/txn/varint.js';
import { encodeBase58Check } from '../keys/base58check.js';
import { decodePublicKey, PUBLIC_KEY_PREFIXES } from '../keys/index.js';
import { badRequest } from '../http/errors.js';
import { out, v, type ResponseSchema } from '../http/schema.js';
import { transactionSchema } from './responses.js';
import { sha256d } from '../../wasm/hash.js';

/** Request fields every constructor accepts. Spread into a route's `v.object({...})`. */
export const constructFields = {
  MinFeeRateNanosPerKB: v.optional(v.uint64(), 0n),
  /** Extra outputs paid by the transactor (app fees), reference `TransactionFees`. */
  TransactionFees: v.optional(v.array(v.object({ PublicKeyBase58Check: v.publicKey(), AmountNanos: v.uint64() }), 100), []),
  ExtraData: v.optional(v.record(v.string({ maxLength: 100_000 }), 100), {}),
};

/** Response fields of an unsigned transaction (`ConstructedResponse.fields`); routes pick theirs. */
export const constructedFields = {
  SpendAmountNanos: out.uint64('Nanos the transaction pays out besides its fee (outputs, a creator-coin buy, the profile creation fee)'),
  TotalInputNanos: out.uint64('SpendAmountNanos plus FeeNanos'),
  ChangeAmountNanos: out.uint64('Always 0: this chain keeps balances, not UTXOs'),
  FeeNanos: out.uint64(),
  TransactionIDBase58Check: out.string('The digest to sign, Base58Check'),
  Transaction: transactionSchema,
  TransactionHex: out.hex('The unsigned transaction: sign it, then submit it with submit-transaction'),
  TxnHashHex: out.hex('sha256d of the unsigned transaction, the digest to sign (as the reference); the final hash comes from submit-transaction'),
};
type ConstructedField = keyof typeof constructedFields;

/**
 * The response schema of a construction route, published as `name`: the common fields it
 * answers (`pick`, in the reference's order) and its own (`extra`).
 */
export function constructedResponse(name: string, pick: readonly ConstructedField[], extra: Readonly<Record<string, ResponseSchema>> = {}): ResponseSchema {
  return out.named(name, out.object({ ...Object.fromEntries(pick.map((k) => [k, constructedFields[k]])), ...extra }));
}

/** The five fields most construction routes answer. */
export const BASIC_CONSTRUCTED: readonly ConstructedField[] = ['TotalInputNanos', 'ChangeAmountNanos', 'FeeNanos', 'Transaction', 'TransactionHex'];
/** Those five and the digest to sign. */
export const CONSTRUCTED_WITH_HASH: readonly ConstructedField[] = [...BASIC_CONSTRUCTED, 'TxnHashHex'];
/** SpendAmountNanos, those five and the digest to sign. */
export const CONSTRUCTED_WITH_SPEND: readonly ConstructedField[] = ['SpendAmountNanos', ...CONSTRUCTED_WITH_HASH];

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
export function encodeExtraData(map: Record<string, string>, deps: AppDeps): Array<[Uint8Array, Uint8Array]> {
  const entries: Array<[Uint8Array, Uint8Array]> = Object.entries(map).map(([k, value]) => {
    let bytes: Uint8Array;
    if (PUBLIC_KEY_EXTRA.has(k)) bytes = decodePublicKey(value, deps.config.network, `ExtraData.${k}`);
    else if (UVARINT_EXTRA.has(k)) {
      if (!/^\d{1,19}$/.test(value)) throw badRequest(`ExtraData.${k}: expected an unsigned integer, got ${JSON.stringify(value.slice(0, 40))}`);
      bytes = encodeUvarint(BigInt(value));
    } else if (BOOL_EXTRA.has(k)) {
      if (value !== '0' && value !== '1') throw badRequest(`ExtraData.${k}: expected "0" or "1"`);
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
export async function constructForRequest(deps: AppDeps, r: ConstructRequest): Promise<ConstructedResponse> {
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
  return {
    constructed,
    fields: {
      SpendAmountNanos: spend,
      TotalInputNanos: spend + constructed.feeNanos,
      ChangeAmountNanos: 0,
      FeeNanos: constructed.feeNanos,
      TransactionIDBase58Check: encodeBase58Check(PUBLIC_KEY_PREFIXES[network], hashToSign(constructed.bytes)),
      Transaction: txnJson(constructed.fields),
      TransactionHex: Buffer.from(constructed.bytes).toString('hex'),
      TxnHashHex: Buffer.from(sha256d(constructed.bytes)).toString('hex'),
    },
  };
}
