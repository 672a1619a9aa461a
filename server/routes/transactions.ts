/**
 * The write path (reference node-api.md §4): construct an unsigned transaction, then submit it
 * signed. Construction routes answer the reference's fields; `submit-transaction` validates
 * against the tip plus the mempool and answers the final transaction hash, which `get-txn`
 * then finds in the mempool or a block (social-graph.md §1.6; the SDK's waitForTransactionFound).
 */
import type { AppDeps } from '../deps.js';
import { txnJson } from '../chain/json.js';
import { decodeTxn, signUnsigned } from '../chain/txn/envelope.js';
import { encodeBase58Check } from '../keys/base58check.js';
import { hexOr400 } from './requestHex.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { postEntrySchema, transactionSchema } from './responses.js';
import { PUBLIC_KEY_PREFIXES } from '../keys/index.js';
import { minedTxnLocation } from '../chain/state/minedTxns.js';
import { resolvePublicKeyOrUsername } from '../social/keyOrUsername.js';
import { submittedPostEntryResponse } from '../social/postEntry.js';
import { constructedResponse, constructForRequest } from './constructed.js';

/** Reference: a fee rate above this is refused as a mistake. */
export const MAX_FEE_RATE_NANOS_PER_KB = 100_000_000n;

export const submitTransactionBody = v.object({
  TransactionHex: v.optional(v.string({ maxLength: 400_000 })),
  UnsignedTransactionHex: v.optional(v.string({ maxLength: 400_000 })),
  TransactionSignatureHex: v.optional(v.string({ maxLength: 200 })),
});

export const sendDesoBody = v.object({
  SenderPublicKeyBase58Check: v.publicKey(),
  RecipientPublicKeyOrUsername: v.string({ maxLength: 100 }),
  AmountNanos: v.int(-(2 ** 53), 2 ** 53),
  MinFeeRateNanosPerKB: v.optional(v.uint64(), 0n),
});

export const getTxnBody = v.object({
  TxnHashHex: v.optional(v.string({ maxLength: 200 }), ''),
  /** `InMempool` (also when empty): in the mempool or a block; `Committed`: in a block. */
  TxnStatus: v.optional(v.string({ maxLength: 100 }), ''),
});

const TXN_STATUSES = ['InMempool', 'Committed'];

export const submitTransactionResponse = out.named(
  'SubmitTransactionResponse',
  out.object({
    Transaction: transactionSchema,
    TxnHashHex: out.hex('The final (signed) transaction hash: what get-txn looks up, and a new post’s hash'),
    TransactionIDBase58Check: out.string('The final hash, Base58Check'),
    PostEntryResponse: out.nullable(out.describe(postEntrySchema, 'The post a SUBMIT_POST created or edited; null for other types')),
  }),
);

export const sendDesoResponse = constructedResponse('SendDeSoResponse', [
  'SpendAmountNanos',
  'TotalInputNanos',
  'ChangeAmountNanos',
  'FeeNanos',
  'TransactionIDBase58Check',
  'Transaction',
  'TransactionHex',
  'TxnHashHex',
]);

export const getTxnResponse = out.object({ TxnFound: out.boolean() });

function hexBytes(s: string, what: string): Uint8Array {
  const message = `SubmitTransactionRequest: Problem deserializing ${what} hex: expected an even number of hex digits`;
  if (s.length === 0) throw badRequest(message);
  return hexOr400(s, message);
}

export function transactionRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const idBase58 = (hash32: Uint8Array): string => encodeBase58Check(PUBLIC_KEY_PREFIXES[network], hash32);
  return [
    route({
      method: 'POST',
      path: '/submit-transaction',
      summary: 'Submit a signed transaction to the mempool; answers its hash (reference §4.3)',
      body: submitTransactionBody,
      response: submitTransactionResponse,
      errorPrefixes: {
        TXN_UNSIGNED_MALFORMED: 'SubmitTransactionRequest: Problem deserializing unsigned transaction from bytes: ',
        TXN_MALFORMED: 'SubmitTransactionRequest: Problem deserializing transaction from bytes: ',
        'RuleError*': 'SubmitTransaction: Problem processing transaction: ',
        CHAIN_MEMPOOL_BUSY: 'SubmitTransaction: ',
      },
      async handle({ body }) {
        let bytes: Uint8Array;
        if (body.TransactionHex !== undefined && body.UnsignedTransactionHex !== undefined) {
          throw badRequest('SubmitTransactionRequest: Cannot submit both TransactionHex and UnsignedTransactionHex. You must pick one or the other.');
        }
        if (body.UnsignedTransactionHex !== undefined) {
          if (body.TransactionSignatureHex === undefined) throw badRequest('SubmitTransactionRequest: Must provide TransactionSignatureHex when submitting UnsignedTransactionHex.');
          const unsigned = hexBytes(body.UnsignedTransactionHex, 'unsigned transaction');
          const signature = hexBytes(body.TransactionSignatureHex, 'signature');
          bytes = signUnsigned(unsigned, signature);
        } else if (body.TransactionHex !== undefined) {
          bytes = hexBytes(body.TransactionHex, 'transaction');
        } else {
          throw badRequest('SubmitTransactionRequest: TransactionHex is required');
        }
        const txn = decodeTxn(bytes);
        if (txn.v1 && (txn.v1.feeNanos * 1000n) / BigInt(bytes.length) > MAX_FEE_RATE_NANOS_PER_KB) {
          throw badRequest('SubmitTransactionRequest: Transaction fee rate too high');
        }
        const r = await deps.chain.submitTransaction(bytes, txn);
        return json({
          Transaction: txnJson(r.txn),
          TxnHashHex: r.hashHex,
          TransactionIDBase58Check: idBase58(new Uint8Array(Buffer.from(r.hashHex, 'hex'))),
          PostEntryResponse: await submittedPostEntryResponse(deps, r),
        });
      },
    }),
    route({
      method: 'POST',
      path: '/send-deso',
      summary: 'Construct a native-coin transfer (reference §4.2); sign and submit it',
      body: sendDesoBody,
      response: sendDesoResponse,
      async handle({ body }) {
        // A username (any case) is looked up with the mempool applied, as the reference does.
        const recipientKey = await resolvePublicKeyOrUsername(await deps.chain.pendingView(), body.RecipientPublicKeyOrUsername, network, 'RecipientPublicKeyOrUsername', 'SendDeSo: ');
        const sender = body.SenderPublicKeyBase58Check.bytes;
        // The reference's TransactionFees and ExtraData are not read by this route (yet).
        const fields = { MinFeeRateNanosPerKB: body.MinFeeRateNanosPerKB, TransactionFees: [], ExtraData: {} };
        const transfer = (amountNanos: bigint) =>
          constructForRequest(deps, { publicKey: sender, metadata: { type: 'BASIC_TRANSFER' }, outputs: [{ publicKey: recipientKey, amountNanos }], fields });
        let amount: bigint;
        if (body.AmountNanos < 0) {
          // "Send max": everything but the fee of the transaction that sends it.
          const balance = await deps.chain.balance(sender);
          const probe = await transfer(balance);
          amount = balance - probe.constructed.feeNanos;
          if (amount <= 0n) throw badRequest(`SendDeSo: balance ${balance} nanos does not cover the fee of ${probe.constructed.feeNanos} nanos`);
        } else {
          amount = BigInt(body.AmountNanos);
        }
        return json((await transfer(amount)).fields);
      },
    }),
    route({
      method: 'POST',
      path: '/get-txn',
      summary: 'Whether a transaction (by its final hash) is in the mempool or a main-chain block (TxnStatus Committed: a block only); a few reads, whatever the chain length',
      body: getTxnBody,
      response: getTxnResponse,
      async handle({ body }) {
        if (body.TxnHashHex === '') throw badRequest('GetTxn: Must provide a TxnHashHex.');
        // The reference echoes the text; this node does not (it could be anything pasted).
        if (!/^[0-9a-fA-F]{64}$/.test(body.TxnHashHex)) throw badRequest('GetTxn: Error parsing post hash: expected 64 hex characters (a 32-byte transaction hash)');
        const status = body.TxnStatus === '' ? 'InMempool' : body.TxnStatus;
        if (!TXN_STATUSES.includes(status)) throw badRequest(`GetTxn: Invalid TxnStatus: ${status}. Options are {InMempool, Committed}`);
        const hashHex = body.TxnHashHex.toLowerCase();
        // Mempool first: a block moves a transaction out of it in the commit that records it as
        // mined, so looking in this order it is seen in one or the other.
        const found = (status === 'InMempool' && (await deps.chain.inMempool(hashHex))) || (await minedTxnLocation(deps.store, hashHex)) !== undefined;
        return json({ TxnFound: found });
      },
    }),
  ];
}
