/**
 * Routes of this area: authorize-derived-key (reference node-api.md §4.2), and what the SDK's
 * derived-key login reads (social-graph.md §1): get-access-bytes,
 * get-transaction-spending-limit-hex-string, GET
 * get-transaction-spending-limit-response-from-hex/{hex}, GET get-single-derived-key/{owner}/{derived}.
 *
 * Builds an AUTHORIZE_DERIVED_KEY for the owner: the derived key, its expiration block, VALID
 * (or NOT_VALID with DeleteKey) and the owner's access signature in the metadata; ExtraData
 * `TransactionSpendingLimit` (the limit bytes as given), `DerivedKeyMemo` (hex of Memo, else
 * AppName) and, with DerivedKeySignature, `DerivedPublicKey` (the derived key will sign; only
 * then is the access signature checked before construction, services/derivedKeys.ts, as the
 * reference does). The chain rules (chain/rules/derivedKeys.ts) decide at submit time.
 *
 * Error texts keep the reference's wording after `AuthorizeDerivedKey: `, but never echo a key
 * string back: a private key pasted by mistake must not reach logs.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { txnJson } from '../chain/json.js';
import { getDerivedKey } from '../chain/state/derivedKeys.js';
import { chainKeys, type TipRecord } from '../chain/state/keys.js';
import { DERIVED_KEY_MEMO_EXTRA, TRANSACTION_SPENDING_LIMIT_EXTRA } from '../chain/rules/derivedKeys.js';
import { DERIVED_PUBLIC_KEY_EXTRA } from '../chain/rules/signatures.js';
import { AuthorizeDerivedKeyOperation, type AuthorizeDerivedKeyMetadata } from '../chain/txn/metadata.js';
import { decodeSpendingLimit, emptySpendingLimit, encodeSpendingLimit, type TransactionSpendingLimit } from '../chain/txn/spendingLimit.js';
import { badRequest, type ErrorPrefixes } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { transactionSpendingLimitSchema, userDerivedKeySchema } from './responses.js';
import { out, v } from '../schema.js';
import { toHex } from '../hex.js';
import { metamaskAccessBytes } from '../social/metamaskAccessBytes.js';
import { cachedRoute } from '../http/readCache.js';
import { spendingLimitFromJson, transactionSpendingLimitJson, type TransactionSpendingLimitJson } from '../social/spendingLimitRequest.js';
import { transactionSpendingLimitResponse } from '../social/spendingLimitResponse.js';
import { userDerivedKeyResponse } from '../social/users.js';
import { CONSTRUCTED_WITH_SPEND, constructedResponse, constructFields, constructForRequest } from './constructed.js';
import { checkAuthorization } from '../services/derivedKeys.js';
import { hexOr400 } from './requestHex.js';
import { decodeKeyOr400 } from './requestKeys.js';

const PREFIX = 'AuthorizeDerivedKey';
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

export const authorizeDerivedKeyBody = v.object({
  OwnerPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  DerivedPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  ExpirationBlock: v.optional(v.uint64(), 0n),
  /** Hex DER signature by the owner over the access bytes. */
  AccessSignature: v.optional(v.string({ maxLength: 1000 }), ''),
  DeleteKey: v.optional(v.boolean(), false),
  /** The transaction will be signed by the derived key (ExtraData DerivedPublicKey). */
  DerivedKeySignature: v.optional(v.boolean(), false),
  TransactionSpendingLimitHex: v.optional(v.string({ maxLength: 200_000 }), ''),
  Memo: v.optional(v.string({ maxLength: 10_000 }), ''),
  AppName: v.optional(v.string({ maxLength: 10_000 }), ''),
  ...constructFields,
});

export const getAccessBytesBody = v.object({
  DerivedPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  ExpirationBlock: v.optional(v.uint64(), 0n),
  /** Absent: the empty limit, as Go decodes a missing struct. */
  TransactionSpendingLimit: v.optional(transactionSpendingLimitJson),
});

export const getTransactionSpendingLimitHexStringBody = v.object({
  TransactionSpendingLimit: v.optional(transactionSpendingLimitJson),
});

/** The Transaction's TxnMeta carries the authorization (DerivedPublicKey, ExpirationBlock, OperationType, AccessSignature). */
export const authorizeDerivedKeyResponse = constructedResponse('AuthorizeDerivedKeyResponse', CONSTRUCTED_WITH_SPEND);
export const getAccessBytesResponse = out.object({
  TransactionSpendingLimitHex: out.hex(),
  AccessBytesHex: out.hex('The access bytes as MetaMask signs them'),
});
export const spendingLimitHexResponse = out.object({ HexString: out.hex() });
export const singleDerivedKeyResponse = out.object({ DerivedKey: userDerivedKeySchema });

/** A limit's hex in a path: far above any limit a transaction can carry (100 KB). */
const MAX_LIMIT_HEX_CHARS = 200_000;

export function derivedKeyRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  /** The client's limit as the chain's (SPENDING_LIMIT_REQUEST_INVALID when it cannot be one). */
  const limitOf = (j: TransactionSpendingLimitJson | undefined): TransactionSpendingLimit => (j === undefined ? emptySpendingLimit() : spendingLimitFromJson(j, network));
  /** The reference's wording of a limit that cannot be one, under each route's prefix. */
  const limitErrors = (prefix: string): ErrorPrefixes => ({ SPENDING_LIMIT_REQUEST_INVALID: `${prefix}: Error parsing transaction spending limit from response: ` });
  const keyOr400 = (value: string, field: string, message: string): Uint8Array => decodeKeyOr400(value, network, field, message);

  const decodeKey = (value: string, what: string, field: string): Uint8Array =>
    decodeKeyOr400(value, deps.config.network, field, `${PREFIX}: Problem decoding ${what} public key`);

  return [
    route({
      method: 'POST',
      path: '/authorize-derived-key',
      summary: 'Construct an AUTHORIZE_DERIVED_KEY: let a derived key sign for the owner within a spending limit (reference §4.2)',
      body: authorizeDerivedKeyBody,
      response: authorizeDerivedKeyResponse,
      errorPrefixes: { DERIVED_KEY_AUTHORIZATION_INVALID: `${PREFIX}: Problem creating transaction: ` },
      async handle({ body }) {
        if (body.OwnerPublicKeyBase58Check === '' || body.DerivedPublicKeyBase58Check === '') throw badRequest(`${PREFIX}: Must provide an owner and a derived key.`);
        const owner = decodeKey(body.OwnerPublicKeyBase58Check, 'owner', 'OwnerPublicKeyBase58Check');
        const derived = decodeKey(body.DerivedPublicKeyBase58Check, 'derived', 'DerivedPublicKeyBase58Check');
        if (Buffer.compare(owner, derived) === 0) throw badRequest(`${PREFIX}: Owner and derived public keys cannot be the same.`);
        const accessSignature = hexOr400(body.AccessSignature, `${PREFIX}: Couldn't decode access signature.`);
        const limitBytes = hexOr400(body.TransactionSpendingLimitHex, `${PREFIX}: Couldn't decode transaction spending limit hex.`);
        await checkAuthorization(deps, { owner, derived, expirationBlock: body.ExpirationBlock, limitBytes, accessSignature, derivedKeySignature: body.DerivedKeySignature });

        const metadata: AuthorizeDerivedKeyMetadata = {
          type: 'AUTHORIZE_DERIVED_KEY',
          derivedPublicKey: derived,
          expirationBlock: body.ExpirationBlock,
          operationType: body.DeleteKey ? AuthorizeDerivedKeyOperation.NOT_VALID : AuthorizeDerivedKeyOperation.VALID,
          accessSignature,
        };
        const extraData: Array<[Uint8Array, Uint8Array]> = [];
        if (limitBytes.length > 0) extraData.push([utf8(TRANSACTION_SPENDING_LIMIT_EXTRA), limitBytes]);
        const memo = body.Memo !== '' ? body.Memo : body.AppName;
        if (memo !== '') extraData.push([utf8(DERIVED_KEY_MEMO_EXTRA), utf8(Buffer.from(memo, 'utf8').toString('hex'))]);
        if (body.DerivedKeySignature) extraData.push([utf8(DERIVED_PUBLIC_KEY_EXTRA), derived]);

        const r = await constructForRequest(deps, { publicKey: owner, metadata, extraData, fields: body });
        return json({
          SpendAmountNanos: 0,
          TotalInputNanos: r.fields.TotalInputNanos,
          ChangeAmountNanos: r.fields.ChangeAmountNanos,
          FeeNanos: r.fields.FeeNanos,
          Transaction: txnJson(r.constructed.fields, {
            DerivedPublicKey: b64(derived),
            ExpirationBlock: body.ExpirationBlock,
            OperationType: metadata.operationType,
            AccessSignature: b64(accessSignature),
          }),
          TransactionHex: r.fields.TransactionHex,
          TxnHashHex: r.fields.TxnHashHex,
        });
      },
    }),
    route({
      method: 'POST',
      path: '/get-access-bytes',
      summary: 'A spending limit as the hex the owner signs into the access bytes, and the MetaMask text of the access bytes (social-graph §1.1)',
      body: getAccessBytesBody,
      response: getAccessBytesResponse,
      errorPrefixes: limitErrors('GetAccessBytes'),
      handle({ body }) {
        const derived = keyOr400(body.DerivedPublicKeyBase58Check, 'DerivedPublicKeyBase58Check', 'GetAccessBytes: Problem decoding derived public key');
        const limit = limitOf(body.TransactionSpendingLimit);
        return json({
          TransactionSpendingLimitHex: toHex(encodeSpendingLimit(limit)),
          AccessBytesHex: toHex(metamaskAccessBytes(derived, body.ExpirationBlock, limit, network)),
        });
      },
    }),
    route({
      method: 'POST',
      path: '/get-transaction-spending-limit-hex-string',
      summary: 'A spending limit as its hex (the bytes get-access-bytes answers; social-graph §1.2)',
      body: getTransactionSpendingLimitHexStringBody,
      response: spendingLimitHexResponse,
      errorPrefixes: limitErrors('GetTransactionSpendingLimitHexString'),
      handle({ body }) {
        return json({ HexString: toHex(encodeSpendingLimit(limitOf(body.TransactionSpendingLimit))) });
      },
    }),
    route({
      method: 'GET',
      path: '/get-transaction-spending-limit-response-from-hex/:TransactionSpendingLimitHex',
      summary: 'A spending limit hex read back as JSON (the bare limit object; ?blockHeight= is accepted, every height has the current encoding; social-graph §1.3)',
      response: transactionSpendingLimitSchema,
      errorPrefixes: { TXN_MALFORMED: 'GetTransactionSpendingLimitResponseFromHex: Error constructing TransactionSpendingLimit from bytes: ' },
      handle({ params, query }) {
        const prefix = 'GetTransactionSpendingLimitResponseFromHex';
        const text = params['TransactionSpendingLimitHex'] ?? '';
        if (text.length > MAX_LIMIT_HEX_CHARS) throw badRequest(`${prefix}: Error decoding transaction spending limit hex: over ${MAX_LIMIT_HEX_CHARS} characters`);
        const limitBytes = hexOr400(text, `${prefix}: Error decoding transaction spending limit hex`);
        const height = query.get('blockHeight');
        // The reference parses a signed 64-bit integer and refuses negatives. The dev chain runs
        // every encoder migration from its genesis, so any height reads the current layout.
        if (height !== null) {
          if (!/^[+-]?[0-9]{1,19}$/.test(height) || BigInt(height) > (1n << 63n) - 1n || BigInt(height) < -(1n << 63n)) {
            throw badRequest(`${prefix}: Error parsing blockHeight query param: expected a 64-bit integer`);
          }
          if (BigInt(height) < 0n) throw badRequest(`${prefix}: blockHeight query param must be uint64`);
        }
        const limit = decodeSpendingLimit(limitBytes);
        return json(transactionSpendingLimitResponse(limit, network));
      },
    }),
    cachedRoute(deps, {
      method: 'GET',
      path: '/get-single-derived-key/:OwnerPublicKeyBase58Check/:DerivedPublicKeyBase58Check',
      summary: "One derived key of an owner with its validity and remaining spending limit, mempool included (what the SDK refreshes after every submit; social-graph §1.5)",
      response: singleDerivedKeyResponse,
      async handle({ params }, chainState) {
        const prefix = 'GetSingleDerivedKey';
        const owner = keyOr400(params['OwnerPublicKeyBase58Check'] ?? '', 'ownerPublicKeyBase58Check', `${prefix}: Problem decoding owner public key`);
        const derived = keyOr400(params['DerivedPublicKeyBase58Check'] ?? '', 'derivedPublicKeyBase58Check', `${prefix}: Problem decoding derived public key`);
        // The tip through the recorded mined reads: IsValid changes with it, and every block
        // writes it, which drops a cached answer.
        const [record, tip] = await Promise.all([chainState.pending().then((s) => getDerivedKey(s, owner, derived)), chainState.mined().get<TipRecord>(chainKeys.tip)]);
        if (record === undefined) throw badRequest(`${prefix}: DerivedKey was not found`);
        if (tip === undefined) throw new Error('chain not initialised');
        return json({ DerivedKey: userDerivedKeyResponse(record, tip.height, network) });
      },
    }),
  ];
}
