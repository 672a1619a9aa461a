/**
 * What every construction route shares (reference node-api.md §4.1): the fee fields of the
 * request (`constructFields`). Building the transaction and its response fields is the
 * service services/construct.ts, re-exported here for the route files.
 * @module
 */
import { v } from '../http/schema.js';

export { constructForRequest, encodeExtraData, type ConstructedResponse, type ConstructRequest } from '../services/construct.js';

/** Request fields every constructor accepts. Spread into a route's `v.object({...})`. */
export const constructFields = {
  MinFeeRateNanosPerKB: v.optional(v.uint64(), 0n),
  /** Extra outputs paid by the transactor (app fees), reference `TransactionFees`. */
  TransactionFees: v.optional(v.array(v.object({ PublicKeyBase58Check: v.publicKey(), AmountNanos: v.uint64() }), 100), []),
  ExtraData: v.optional(v.record(v.string({ maxLength: 100_000 }), 100), {}),
};
