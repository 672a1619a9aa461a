/**
 * Atomic transactions (core ATOMIC_TXNS_WRAPPER; backend routes/transaction.go
 * SubmitAtomicTransaction, routes/dao_coin_exchange_with_fees.go CreateDAOCoinLimitOrderWithFee;
 * the SDK's createNewCoin / updateCoinProperties): the construction routes answer an incomplete
 * atomic transaction (`TransactionHex`) and its inner transactions to sign
 * (`InnerTransactionHexes`); submit-atomic-transaction puts the signatures in and submits it.
 * The work is services/atomic.ts, daoCoinOrderWithFee.ts and coinProperties.ts.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { txnJson } from '../chain/json.js';
import { decodeTxn, signUnsigned } from '../chain/txn/envelope.js';
import { TransferRestrictionStatus, TRANSFER_RESTRICTION_STATUS_NAMES } from '../chain/state/daoCoins.js';
import { DESO_COIN } from '../chain/state/daoCoinLimitOrders.js';
import { DAOCoinLimitOrderFill } from '../chain/txn/metadata.js';
import { encodeBase58Check } from '../keys/base58check.js';
import { encodePublicKey, PUBLIC_KEY_PREFIXES } from '../keys/index.js';
import { hexOr400 } from './requestHex.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v, ValidationError, type Schema } from '../schema.js';
import { AtomicRequestError, completeAtomic } from '../services/atomic.js';
import { buildCoinSettings, type CoinSettings } from '../services/coinProperties.js';
import { createOrderWithFee, type CurrencyType } from '../services/daoCoinOrderWithFee.js';
import { resolvePublicKeyOrUsername } from '../social/keyOrUsername.js';
import { constructFields } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';
import { transactionSchema } from './responses.js';
import { MAX_FEE_RATE_NANOS_PER_KB } from './transactions.js';

const KEY = { maxLength: 200 } as const;
const TXN_HEX = { maxLength: 400_000 } as const;
/** Inner transactions one request may carry (a wrapper holds at most 100,000 bytes anyway). */
const MAX_INNER = 256;

/** Any JSON object (fields this node only checks for presence: the AMM config, preceding transactions). */
const anyObject: Schema<unknown> = {
  json: { type: 'object', additionalProperties: true },
  parse(x, path) {
    if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new ValidationError(path, 'a JSON object', x);
    return x;
  },
};

const submitAtomicBody = v.object({
  IncompleteAtomicTransactionHex: v.optional(v.string(TXN_HEX), ''),
  SignedInnerTransactionsHex: v.optional(v.array(v.string(TXN_HEX), MAX_INNER), []),
  UnsignedInnerTransactionsHex: v.optional(v.array(v.string(TXN_HEX), MAX_INNER), []),
  TransactionSignaturesHex: v.optional(v.array(v.string({ maxLength: 200 }), MAX_INNER), []),
});

const withFeeBody = v.object({
  TransactorPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  QuoteCurrencyPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  BaseCurrencyPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  OperationType: v.optional(v.string({ maxLength: 100 }), ''),
  FillType: v.optional(v.string({ maxLength: 100 }), ''),
  Price: v.optional(v.string({ maxLength: 200 }), ''),
  PriceCurrencyType: v.optional(v.string({ maxLength: 100 }), ''),
  Quantity: v.optional(v.string({ maxLength: 200 }), ''),
  QuantityCurrencyType: v.optional(v.string({ maxLength: 100 }), ''),
  SkipWhitelist: v.optional(v.boolean(), false),
  OptionalPrecedingTransactions: v.optional(v.array(anyObject, MAX_INNER), []),
  ...constructFields,
});

const BASIS_POINTS = v.int(0, 2 ** 53);
const coinCommonFields = {
  UpdaterPublicKey: v.optional(v.string(KEY), ''),
  NewProfileUsername: v.optional(v.string({ maxLength: 100 }), ''),
  NewCoinCategory: v.optional(v.string({ maxLength: 100 }), ''),
  CreatorRevsharePercentageBasisPoints: v.optional(BASIS_POINTS, 0),
  TradingFeeBasisPoints: v.optional(BASIS_POINTS, 0),
  CoinApyBasisPoints: v.optional(BASIS_POINTS, 0),
  DisableCreatorRevshareUpdate: v.optional(v.boolean(), false),
  DisableMintingOfNewCoins: v.optional(v.boolean(), false),
  DisableTradingFeeUpdate: v.optional(v.boolean(), false),
  ...constructFields,
};
const createNewCoinBody = v.object({
  ...coinCommonFields,
  DryRun: v.optional(v.boolean(), false),
  AmmConfig: v.optional(anyObject),
  AuctionDurationSeconds: v.optional(BASIS_POINTS, 0),
  OwnershipPercentageBasisPoints: v.optional(BASIS_POINTS, 0),
  LockPercentageOfCreatorMintedCoinsBasisPoints: v.optional(BASIS_POINTS, 0),
  LockDurationNanoSeconds: v.optional(BASIS_POINTS, 0),
  EnablePermanentlyUnrestrictedTransfers: v.optional(v.boolean(), false),
});
const updateCoinPropertiesBody = v.object({
  ...coinCommonFields,
  NewTransferRestrictionStatus: v.optional(v.string({ maxLength: 100 }), ''),
});

const atomicFields = {
  FeeNanos: out.uint64('The network fee: the sum of the inner transactions\' fees'),
  Transaction: transactionSchema,
  TransactionHex: out.hex('The incomplete atomic transaction (its inner transactions unsigned): submit it with submit-atomic-transaction'),
  TxnHashHex: out.hex('sha256d of the incomplete atomic transaction'),
  InnerTransactionHexes: out.array(out.hex(), 'The inner transactions, in order: sign each, then submit them with TransactionHex'),
};
const str = out.string;

export const submitAtomicResponse = out.named(
  'SubmitAtomicTransactionResponse',
  out.object({
    Transaction: transactionSchema,
    TxnHashHex: out.hex('The atomic transaction\'s final hash: what get-txn looks up'),
    TransactionIDBase58Check: out.string('The final hash, Base58Check'),
  }),
);

export const orderWithFeeResponse = out.named(
  'DAOCoinLimitOrderWithFeeResponse',
  out.object({
    ...atomicFields,
    QuoteCurrencyPriceInUsd: str('Always 0.000000000: this node has no USD price for a coin'),
    LimitAmount: str(),
    LimitAmountCurrencyType: str(),
    LimitAmountInUsd: str(),
    LimitReceiveAmount: str(),
    LimitReceiveAmountCurrencyType: str(),
    LimitReceiveAmountInUsd: str(),
    LimitPriceInQuoteCurrency: str(),
    LimitPriceInUsd: str(),
    ExecutionAmount: str(),
    ExecutionAmountCurrencyType: str(),
    ExecutionAmountUsd: str(),
    ExecutionReceiveAmount: str(),
    ExecutionReceiveAmountCurrencyType: str(),
    ExecutionReceiveAmountUsd: str(),
    ExecutionPriceInQuoteCurrency: str(),
    ExecutionPriceInUsd: str(),
    ExecutionFeePercentage: str(),
    ExecutionFeeAmountInQuoteCurrency: str(),
    ExecutionFeeAmountInUsd: str(),
    MarketTotalTradingFeeBasisPoints: str('Always 0: no market on this node sets trading fees'),
    MarketTradingFeeBasisPointsByUserPublicKey: out.record(out.int(), 'Always empty'),
  }),
);

const coinSettingsFields = {
  Transaction: transactionSchema,
  SignedAmmMetadataTxnHexes: out.array(out.hex(), 'Always empty: this node has no AMM'),
  UnsignedUserTxnHexes: out.array(out.hex(), 'The updater\'s transactions to sign (the same as InnerTransactionHexes)'),
  TransactionHex: atomicFields.TransactionHex,
  InnerTransactionHexes: atomicFields.InnerTransactionHexes,
};
export const createNewCoinResponse = out.named(
  'CreateNewCoinResponse',
  out.object({
    ConfigureMarketResponse: out.null('Always null: this node has no AMM'),
    PreExistingCoins: out.number('Coins in circulation before (whole coins)'),
    CoinsInAmm: out.number('Always 0'),
    UnlockedFounderCoins: out.number('PreExistingCoins: the founder keeps them, unlocked'),
    LockedFounderCoins: out.number('Always 0'),
    TotalCoinsAfterAmmStart: out.number('PreExistingCoins'),
    ...coinSettingsFields,
  }),
);
export const updateCoinPropertiesResponse = out.named('UpdateCoinPropertiesResponse', out.object(coinSettingsFields));

function hexBytes(s: string, what: string): Uint8Array {
  const message = `SubmitAtomicTransaction: Problem decoding ${what} hex: expected an even number of hex digits`;
  if (s.length === 0) throw badRequest(message);
  return hexOr400(s, message);
}

const FILL_TYPES: Readonly<Record<string, number>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, number>, {
    FILL_OR_KILL: DAOCoinLimitOrderFill.FILL_OR_KILL,
    IMMEDIATE_OR_CANCEL: DAOCoinLimitOrderFill.IMMEDIATE_OR_CANCEL,
    GOOD_TILL_CANCELLED: DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED,
  }),
);
const CURRENCY_TYPES = new Set<string>(['usd', 'quote', 'base']);

/** Backend IsDesoPkid: "DESO" or the zero key on either network. */
const isDesoIdentifier = (s: string): boolean => s === 'DESO' || s === encodePublicKey(DESO_COIN, 'mainnet') || s === encodePublicKey(DESO_COIN, 'testnet');

/** The request fields a coin-settings route refuses when set (this node cannot carry them out). */
function unsupportedCoinFields(body: Record<string, unknown>): string[] {
  const set = (k: string): boolean => {
    const x = body[k];
    return x !== undefined && x !== null && x !== 0 && x !== false && x !== '';
  };
  return [
    'AmmConfig',
    'AuctionDurationSeconds',
    'OwnershipPercentageBasisPoints',
    'LockPercentageOfCreatorMintedCoinsBasisPoints',
    'LockDurationNanoSeconds',
    'CreatorRevsharePercentageBasisPoints',
    'TradingFeeBasisPoints',
    'CoinApyBasisPoints',
    'DisableCreatorRevshareUpdate',
    'DisableTradingFeeUpdate',
    'NewCoinCategory',
  ].filter(set);
}

export function atomicRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const idBase58 = (hashHex: string): string => encodeBase58Check(PUBLIC_KEY_PREFIXES[network], new Uint8Array(Buffer.from(hashHex, 'hex')));
  const coinPrefix = (name: string) => ({ COIN_PROPERTIES_INVALID: `${name}: `, 'RuleError*': `${name}: `, DAO_COIN_ORDER_INVALID: `${name}: ` });
  return [
    route({
      method: 'POST',
      path: '/submit-atomic-transaction',
      summary: 'Complete an incomplete atomic transaction with its signed inner transactions and submit it to the mempool; answers its hash',
      body: submitAtomicBody,
      response: submitAtomicResponse,
      errorPrefixes: {
        ATOMIC_REQUEST_INVALID: 'SubmitAtomicTransaction: ',
        TXN_UNSIGNED_MALFORMED: 'SubmitAtomicTransaction: Problem deserializing unsigned transaction from bytes: ',
        TXN_MALFORMED: 'SubmitAtomicTransaction: Problem deserializing atomic transaction from bytes: ',
        'RuleError*': 'SubmitAtomicTransaction: Problem broadcasting transaction: ',
        CHAIN_MEMPOOL_BUSY: 'SubmitAtomicTransaction: ',
      },
      async handle({ body }) {
        const signed = body.SignedInnerTransactionsHex;
        const unsigned = body.UnsignedInnerTransactionsHex;
        if (signed.length > 0 && unsigned.length > 0) {
          throw badRequest('SubmitAtomicTransaction: Cannot submit both SignedInnerTransactionsHex and UnsignedInnerTransactionsHex. You must pick one or the other.');
        }
        if (unsigned.length > 0 && unsigned.length !== body.TransactionSignaturesHex.length) {
          throw badRequest('SubmitAtomicTransaction: Number of UnsignedInnerTransactionsHex must match number of TransactionSignaturesHex.');
        }
        if (body.IncompleteAtomicTransactionHex === '') throw badRequest('SubmitAtomicTransaction: IncompleteAtomicTransactionHex is required');
        const inner =
          unsigned.length > 0
            ? unsigned.map((u, i) => signUnsigned(hexBytes(u, `unsigned transaction ${i}`), hexBytes(body.TransactionSignaturesHex[i]!, `signature ${i}`)))
            : signed.map((s, i) => hexBytes(s, `signed transaction ${i}`));
        const bytes = completeAtomic(hexBytes(body.IncompleteAtomicTransactionHex, 'atomic transaction'), inner);
        const txn = decodeTxn(bytes);
        if (txn.v1 && (txn.v1.feeNanos * 1000n) / BigInt(bytes.length) > MAX_FEE_RATE_NANOS_PER_KB) {
          throw new AtomicRequestError('Transaction fee rate too high');
        }
        const r = await deps.chain.submitTransaction(bytes);
        return json({ Transaction: txnJson(r.txn), TxnHashHex: r.hashHex, TransactionIDBase58Check: idBase58(r.hashHex) });
      },
    }),
    route({
      method: 'POST',
      path: '/create-dao-coin-limit-order-with-fee',
      summary: 'Construct a DAO coin market or limit order stated as base/quote currencies, as an atomic transaction with its simulated execution (no market on this node charges trading fees)',
      body: withFeeBody,
      response: orderWithFeeResponse,
      errorPrefixes: { DAO_COIN_ORDER_INVALID: 'CreateDAOCoinLimitOrderWithFee: ', DAO_COIN_PRICE_INVALID: 'CreateDAOCoinLimitOrderWithFee: HandleMarketOrder: ' },
      async handle({ body }) {
        const fail = (msg: string) => badRequest(`CreateDAOCoinLimitOrderWithFee: ${msg}`);
        if (body.OperationType !== 'ASK' && body.OperationType !== 'BID') throw fail(`Invalid operation type: ${body.OperationType}. Options are: ASK, BID`);
        const fillType = FILL_TYPES[body.FillType];
        if (fillType === undefined) throw fail(`Invalid fill type: ${body.FillType}. Options are: FILL_OR_KILL, IMMEDIATE_OR_CANCEL, GOOD_TILL_CANCELLED`);
        const isMarket = !(Number.parseFloat(body.Price) > 0);
        if (isMarket && fillType === DAOCoinLimitOrderFill.GOOD_TILL_CANCELLED) throw fail('Market orders cannot be Good Till Cancelled');
        if (body.OptionalPrecedingTransactions.length > 0) throw fail('OptionalPrecedingTransactions are not supported by this node');
        for (const [field, value] of [['PriceCurrencyType', body.PriceCurrencyType], ['QuantityCurrencyType', body.QuantityCurrencyType]] as const) {
          if (!CURRENCY_TYPES.has(value) && !(field === 'PriceCurrencyType' && isMarket)) throw fail(`Invalid ${field} ${JSON.stringify(value)}: expected usd, quote or base`);
        }
        const transactor = decodeKeyOr400(body.TransactorPublicKeyBase58Check, network, 'TransactorPublicKeyBase58Check', 'CreateDAOCoinLimitOrderWithFee: Problem decoding transactor public key');
        const state = await deps.chain.pendingView();
        const coin = (s: string, field: string): Promise<Uint8Array> =>
          isDesoIdentifier(s) ? Promise.resolve(DESO_COIN) : resolvePublicKeyOrUsername(state, s, network, field, `CreateDAOCoinLimitOrderWithFee: Invalid ${field}: `);
        const quote = await coin(body.QuoteCurrencyPublicKeyBase58Check, 'QuoteCurrencyPublicKeyBase58Check');
        const base = await coin(body.BaseCurrencyPublicKeyBase58Check, 'BaseCurrencyPublicKeyBase58Check');
        if (Buffer.compare(quote, base) === 0) throw fail('the base and quote currencies must differ');
        const r = await createOrderWithFee(
          deps,
          state,
          {
            transactor,
            quote,
            base,
            isBuy: body.OperationType === 'BID',
            fillType,
            price: body.Price,
            priceCurrencyType: body.PriceCurrencyType as CurrencyType,
            quantity: body.Quantity,
            quantityCurrencyType: body.QuantityCurrencyType as CurrencyType,
          },
          body,
        );
        return json(r);
      },
    }),
    route({
      method: 'POST',
      path: '/create-new-coin',
      summary: 'Construct, as one atomic transaction of the updater\'s, what this chain carries of a new coin\'s settings: a username, permanently unrestricted transfers, minting disabled (AMM, lockup and trading-fee settings are refused)',
      body: createNewCoinBody,
      response: createNewCoinResponse,
      errorPrefixes: coinPrefix('CreateNewCoin'),
      async handle({ body }) {
        const updater = decodeKeyOr400(body.UpdaterPublicKey, network, 'UpdaterPublicKey', 'CreateNewCoin: Problem decoding UpdaterPublicKey');
        const settings: CoinSettings = {
          updater,
          newUsername: body.NewProfileUsername,
          transferRestrictionStatus: body.EnablePermanentlyUnrestrictedTransfers ? TransferRestrictionStatus.PERMANENTLY_UNRESTRICTED : null,
          disableMinting: body.DisableMintingOfNewCoins,
          unsupported: unsupportedCoinFields(body),
        };
        const built = await buildCoinSettings(deps, await deps.chain.pendingView(), settings, body, true);
        const a = built.atomic;
        return json({
          ConfigureMarketResponse: null,
          PreExistingCoins: built.preExistingCoins,
          CoinsInAmm: 0,
          UnlockedFounderCoins: built.preExistingCoins,
          LockedFounderCoins: 0,
          TotalCoinsAfterAmmStart: built.preExistingCoins,
          Transaction: a.Transaction,
          SignedAmmMetadataTxnHexes: [],
          UnsignedUserTxnHexes: a.InnerTransactionHexes,
          TransactionHex: a.TransactionHex,
          InnerTransactionHexes: a.InnerTransactionHexes,
        });
      },
    }),
    route({
      method: 'POST',
      path: '/update-coin-properties',
      summary: 'Construct, as one atomic transaction of the updater\'s, what this chain carries of a coin\'s new settings: a username, a transfer restriction, minting disabled (AMM, lockup and trading-fee settings are refused)',
      body: updateCoinPropertiesBody,
      response: updateCoinPropertiesResponse,
      errorPrefixes: coinPrefix('UpdateCoinProperties'),
      async handle({ body }) {
        const updater = decodeKeyOr400(body.UpdaterPublicKey, network, 'UpdaterPublicKey', 'UpdateCoinProperties: Problem decoding UpdaterPublicKey');
        let status: number | null = null;
        if (body.NewTransferRestrictionStatus !== '') {
          const found = Object.entries(TRANSFER_RESTRICTION_STATUS_NAMES).find(([, name]) => name === body.NewTransferRestrictionStatus);
          if (found === undefined) {
            throw badRequest(`UpdateCoinProperties: Invalid NewTransferRestrictionStatus ${JSON.stringify(body.NewTransferRestrictionStatus)}: expected one of ${Object.values(TRANSFER_RESTRICTION_STATUS_NAMES).join(', ')}`);
          }
          status = Number(found[0]);
        }
        const settings: CoinSettings = { updater, newUsername: body.NewProfileUsername, transferRestrictionStatus: status, disableMinting: body.DisableMintingOfNewCoins, unsupported: unsupportedCoinFields(body) };
        const a = (await buildCoinSettings(deps, await deps.chain.pendingView(), settings, body, false)).atomic;
        return json({ Transaction: a.Transaction, SignedAmmMetadataTxnHexes: [], UnsignedUserTxnHexes: a.InnerTransactionHexes, TransactionHex: a.TransactionHex, InnerTransactionHexes: a.InnerTransactionHexes });
      },
    }),
  ];
}
