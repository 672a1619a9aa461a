/**
 * Routes of this area: authorize-derived-key (reference node-api.md §4.2).
 *
 * Builds an AUTHORIZE_DERIVED_KEY for the owner: the derived key, its expiration block, VALID
 * (or NOT_VALID with DeleteKey) and the owner's access signature in the metadata; ExtraData
 * `TransactionSpendingLimit` (the limit bytes as given), `DerivedKeyMemo` (hex of Memo, else
 * AppName) and, with DerivedKeySignature, `DerivedPublicKey` (the derived key will sign; only
 * then is the access signature checked here, as the reference does). The chain rules
 * (chain/rules/derivedKeys.ts) decide at submit time.
 *
 * Error texts keep the reference's wording after `AuthorizeDerivedKey: `, but never echo a key
 * string back: a private key pasted by mistake must not reach logs.
 * @module
 */
import type { AppDeps } from '../app.js';
import { txnJson } from '../chain/json.js';
import { accessBytes, DERIVED_KEY_MEMO_EXTRA, TRANSACTION_SPENDING_LIMIT_EXTRA } from '../chain/rules/derivedKeys.js';
import { DERIVED_PUBLIC_KEY_EXTRA } from '../chain/rules/signatures.js';
import { TxnDecodeError } from '../chain/txn/errors.js';
import { AuthorizeDerivedKeyOperation, type AuthorizeDerivedKeyMetadata } from '../chain/txn/metadata.js';
import { decodeSpendingLimit } from '../chain/txn/spendingLimit.js';
import { decodeDerSignature } from '../chain/txn/derSignature.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { v } from '../http/schema.js';
import { decodePublicKey, isKeyError } from '../keys/index.js';
import { sha256d } from '../../wasm/hash.js';
import { constructFields, constructForRequest } from './constructed.js';

const PREFIX = 'AuthorizeDerivedKey';
const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const hexBytes = (s: string): Uint8Array | null => (HEX.test(s) ? new Uint8Array(Buffer.from(s, 'hex')) : null);

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

export function derivedKeyRoutes(deps: AppDeps): Route[] {
  const decodeKey = (value: string, what: string, field: string): Uint8Array => {
    try {
      return decodePublicKey(value, deps.config.network, field);
    } catch (e) {
      if (isKeyError(e)) throw badRequest(`${PREFIX}: Problem decoding ${what} public key: ${e.message}`);
      throw e;
    }
  };
  const cannotCreate = (why: string): Error => badRequest(`${PREFIX}: Problem creating transaction: ${why}`);

  return [
    route({
      method: 'POST',
      path: '/authorize-derived-key',
      summary: 'Construct an AUTHORIZE_DERIVED_KEY: let a derived key sign for the owner within a spending limit (reference §4.2)',
      body: authorizeDerivedKeyBody,
      async handle({ body }) {
        if (body.OwnerPublicKeyBase58Check === '' || body.DerivedPublicKeyBase58Check === '') throw badRequest(`${PREFIX}: Must provide an owner and a derived key.`);
        const owner = decodeKey(body.OwnerPublicKeyBase58Check, 'owner', 'OwnerPublicKeyBase58Check');
        const derived = decodeKey(body.DerivedPublicKeyBase58Check, 'derived', 'DerivedPublicKeyBase58Check');
        if (Buffer.compare(owner, derived) === 0) throw badRequest(`${PREFIX}: Owner and derived public keys cannot be the same.`);
        const accessSignature = hexBytes(body.AccessSignature);
        if (accessSignature === null) throw badRequest(`${PREFIX}: Couldn't decode access signature.`);
        const limitBytes = hexBytes(body.TransactionSpendingLimitHex);
        if (limitBytes === null) throw badRequest(`${PREFIX}: Couldn't decode transaction spending limit hex.`);
        if (limitBytes.length > 0) {
          try {
            decodeSpendingLimit(limitBytes);
          } catch (e) {
            if (e instanceof TxnDecodeError) throw cannotCreate(`Problem decoding transaction spending limit: ${e.message}`);
            throw e;
          }
        }

        const tip = await deps.chain.tip();
        // The transaction is mined at tip + 1 at the earliest; the key must outlive that block.
        if (body.ExpirationBlock <= tip.height + 1n) throw cannotCreate('Expired access signature');
        if (body.DerivedKeySignature) {
          if (limitBytes.length === 0) throw cannotCreate('a transaction the derived key signs needs TransactionSpendingLimitHex, which the access signature covers');
          await checkAccessSignature(deps, owner, derived, body.ExpirationBlock, limitBytes, accessSignature, cannotCreate);
        }

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

        let r;
        try {
          r = await constructForRequest(deps, { publicKey: owner, metadata, extraData, fields: body });
        } catch (e) {
          if (e instanceof RangeError) throw cannotCreate(e.message);
          throw e;
        }
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
  ];
}

/** The owner's DER signature over sha256d(access bytes), verified in the crypto pool. */
async function checkAccessSignature(
  deps: AppDeps,
  owner: Uint8Array,
  derived: Uint8Array,
  expirationBlock: bigint,
  limitBytes: Uint8Array,
  signature: Uint8Array,
  cannotCreate: (why: string) => Error,
): Promise<void> {
  let compact: Uint8Array;
  try {
    const sig = decodeDerSignature(signature);
    if (sig.recoveryId !== null) throw cannotCreate('Problem verifying access signature: expected a DER signature (header 0x30)');
    compact = sig.compact;
  } catch (e) {
    if (e instanceof TxnDecodeError) throw cannotCreate(`Problem verifying access signature: ${e.message}`);
    throw e;
  }
  const hash = sha256d(accessBytes(derived, expirationBlock, limitBytes));
  const [result] = await deps.crypto.verifySignatures([{ publicKey: owner, hash, signature: compact, lowS: false }]);
  if (!result?.ok || !result.value) throw cannotCreate('Problem verifying access signature: it is not the owner\'s signature over the derived key, expiration block and spending limit');
}
