/**
 * What every construction route shares (reference node-api.md §4.1): the fee fields of the
 * request (`constructFields`). Building the transaction and its response fields is the
 * service services/construct.ts, re-exported here for the route files.
 * @module
 */
import { out, v, type ResponseSchema } from '../schema.js';
import { transactionSchema } from './responses.js';

export { constructForRequest, encodeExtraData, type ConstructedResponse, type ConstructRequest } from '../services/construct.js';

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
