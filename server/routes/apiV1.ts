/**
 * API v1, the exchange-style reads (backend routes/exchange.go: RoutePathAPIBlock,
 * RoutePathAPITransactionInfo), mounted at their own paths (`/api/v1/…`, not under /api/v0):
 * a block by height or hash with its transactions, and transactions by id, by public key
 * (paged, index-backed) or the mempool's. The reads and their costs are social/exchangeApi.ts.
 *
 * The reference answers its refusals as 400 `{"Error": …}`; this node answers 400 `{"error": …}`
 * as on every route.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { apiBlock, apiTransactionInfo, MAX_TRANSACTIONS_PER_PAGE, type ExchangeDeps } from '../social/exchangeApi.js';
import { extraDataTextSchema } from './responses.js';
import { decodeKeyOr400 } from './requestKeys.js';

const MAX_INT = Number.MAX_SAFE_INTEGER;

const blockBody = v.object({
  /** Ignored when HashHex is set. */
  Height: v.optional(v.int(-MAX_INT, MAX_INT), 0),
  HashHex: v.optional(v.string({ maxLength: 200 }), ''),
  FullBlock: v.optional(v.boolean(), false),
});

const transactionInfoBody = v.object({
  IsMempool: v.optional(v.boolean(), false),
  TransactionIDBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  PublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  IDsOnly: v.optional(v.boolean(), false),
  LastTransactionIDBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  LastPublicKeyTransactionIndex: v.optional(v.int(-MAX_INT, MAX_INT), 0),
  Limit: v.optional(v.int(0, MAX_INT), 0),
});

const headerSchema = out.named(
  'APIHeaderResponse',
  out.object({
    BlockHashHex: out.hex(),
    Version: out.int(),
    PrevBlockHashHex: out.hex(),
    TransactionMerkleRootHex: out.hex(),
    TstampSecs: out.int(),
    TstampNanoSecs: out.int('TstampSecs × 10^9 (a proof-of-work header has seconds only)'),
    Height: out.uint64(),
    Nonce: out.uint64(),
    ExtraNonce: out.uint64(),
  }),
);

const transactionResponseSchema = out.named(
  'APITransactionResponse',
  out.object({
    TransactionIDBase58Check: out.string('The transaction hash, Base58Check with the network’s public-key prefix'),
    TransactionHashHex: out.optional(out.hex()),
    RawTransactionHex: out.optional(out.hex('The signed transaction: everything the other fields show')),
    Inputs: out.optional(out.array(out.object({ TransactionIDBase58Check: out.string(), Index: out.int() }))),
    Outputs: out.optional(out.array(out.object({ PublicKeyBase58Check: out.publicKey(), AmountNanos: out.uint64() }))),
    SignatureHex: out.optional(out.hex('DER')),
    TransactionType: out.optional(out.string('Core’s type name, e.g. BASIC_TRANSFER')),
    BlockHashHex: out.optional(out.hex('The block that mined it; absent in the mempool and in by-id answers (as the reference)')),
    BlockInfo: out.optional(out.object({ Height: out.uint64(), TimestampSecs: out.uint64() })),
    TransactionMetadata: out.optional(
      out.object({
        BlockHashHex: out.string(),
        TxnIndexInBlock: out.int(),
        TxnType: out.string(),
        TransactorPublicKeyBase58Check: out.string('"" for a block reward'),
        AffectedPublicKeys: out.nullable(out.array(out.object({ PublicKeyBase58Check: out.publicKey(), Metadata: out.string('The role, as core names it') }))),
        TxnOutputs: out.nullable(out.array(out.object({ PublicKey: out.base64(), AmountNanos: out.uint64() }))),
        BasicTransferTxindexMetadata: out.object({
          TotalInputNanos: out.uint64(),
          TotalOutputNanos: out.uint64(),
          FeeNanos: out.uint64(),
          DiamondLevel: out.int(),
          PostHashHex: out.string(),
        }),
      }),
    ),
    ExtraData: out.optional(extraDataTextSchema),
    TxnNonce: out.optional(out.object({ ExpirationBlockHeight: out.uint64(), PartialID: out.uint64() })),
    TxnFeeNanos: out.optional(out.uint64()),
    TxnVersion: out.optional(out.int()),
  }),
);

export const apiBlockResponse = out.object({
  Header: headerSchema,
  Transactions: out.nullable(out.array(transactionResponseSchema, 'Every transaction, block reward first (FullBlock); null otherwise')),
});

export const apiTransactionInfoResponse = out.object({
  Transactions: out.array(transactionResponseSchema, 'Only TransactionIDBase58Check with IDsOnly'),
  LastTransactionIDBase58Check: out.string('IsMempool: the last one listed, to send back for the next page'),
  LastPublicKeyTransactionIndex: out.int('By public key: the place of the oldest one listed (height × 2^24 + index), to send back for the next page; 0 when none'),
  BalanceNanos: out.uint64('By public key: its balance, mempool included'),
});

export function apiV1Routes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const exchange = (): ExchangeDeps => ({ chain: deps.chain, store: deps.store, network });
  return [
    route({
      method: 'POST',
      path: '/api/v1/block',
      summary: 'API v1: a block by HashHex, else by Height on the main chain; its header, and with FullBlock its transactions',
      body: blockBody,
      response: apiBlockResponse,
      handle: async ({ body }) => json(await apiBlock(exchange(), { height: body.Height, hashHex: body.HashHex, fullBlock: body.FullBlock })),
    }),
    route({
      method: 'POST',
      path: '/api/v1/transaction-info',
      summary:
        `API v1: the mempool's transactions (IsMempool), one transaction by TransactionIDBase58Check (Base58Check or hex), ` +
        `or a public key's transactions newest first, paged by LastPublicKeyTransactionIndex (Limit 1–${MAX_TRANSACTIONS_PER_PAGE}; each page reads its own)`,
      body: transactionInfoBody,
      response: apiTransactionInfoResponse,
      async handle({ body }) {
        const publicKey =
          body.IsMempool || body.PublicKeyBase58Check === '' ? null : decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'APITransactionInfo: Problem parsing PublicKeyBase58Check');
        return json(
          await apiTransactionInfo(exchange(), {
            isMempool: body.IsMempool,
            transactionId: body.TransactionIDBase58Check,
            publicKey,
            idsOnly: body.IDsOnly,
            lastTransactionId: body.LastTransactionIDBase58Check,
            lastPublicKeyTransactionIndex: body.LastPublicKeyTransactionIndex,
            limit: body.Limit,
          }),
        );
      },
    }),
  ];
}
