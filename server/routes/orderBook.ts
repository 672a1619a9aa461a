/**
 * Token order book reads, spec §4.5 (reference node-api.md §2.4). Logic in social/orderBook.ts.
 *
 * Field names: the spec's `…OrUsername` names, plus the SDK's
 * `DAOCoin2CreatorPublicKeyBase58CheckOrUsername` (the spec's `…OrUsername2` reads as a typo of
 * it; both are accepted) and the reference's `…PublicKeyBase58Check` names.
 *
 * Paging (an addition): `NumToFetch` (1..1,000) answers one page of the same list with
 * `NextStartAfter` (null on the last page), to send back as `StartAfter`; without it, every
 * order, as the reference.
 *
 * State: `TxnStatus` as in the reference — absent, `""` or `InMempool` reads the pending view
 * (tip plus mempool, so an order shows as soon as it is accepted), `Committed` the mined state.
 */
import type { AppDeps } from '../deps.js';
import type { IndexedStateReader } from '../chain/state/daoCoins.js';
import { cachedRoute, type ChainReads } from '../http/readCache.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { daoCoinLimitOrderEntrySchema } from './responses.js';
import { out, v } from '../schema.js';
import { resolvePublicKeyOrUsername } from '../social/keyOrUsername.js';
import { isNativeIdentifier, MAX_ORDERS_PER_PAGE, pairOrders, pairOrdersPage, resolveCoin, transactorOrders } from '../social/orderBook.js';

const ID = { maxLength: 200 };
const TXN_STATUSES = ['InMempool', 'Committed'] as const;

export const getDAOCoinLimitOrdersBody = v.object({
  DAOCoin1CreatorPublicKeyBase58CheckOrUsername: v.optional(v.string(ID)),
  DAOCoin2CreatorPublicKeyBase58CheckOrUsername: v.optional(v.string(ID)),
  DAOCoin2CreatorPublicKeyBase58CheckOrUsername2: v.optional(v.string(ID)),
  DAOCoin1CreatorPublicKeyBase58Check: v.optional(v.string(ID)),
  DAOCoin2CreatorPublicKeyBase58Check: v.optional(v.string(ID)),
  TxnStatus: v.optional(v.string({ maxLength: 20 }), ''),
  /** Paging (not in the reference, which always answers every order): orders per page. */
  NumToFetch: v.optional(v.int(1, MAX_ORDERS_PER_PAGE)),
  /** The previous page's `NextStartAfter`. */
  StartAfter: v.optional(v.string({ maxLength: 300 })),
});

export const getDAOCoinLimitOrdersResponse = out.named(
  'GetDAOCoinLimitOrdersResponse',
  out.object({
    Orders: out.array(daoCoinLimitOrderEntrySchema),
    NextStartAfter: out.optional(out.nullable(out.string('With NumToFetch: send as StartAfter for the next page; null on the last page. Absent without NumToFetch'))),
  }),
);

export const getTransactorDAOCoinLimitOrdersResponse = out.object({ Orders: out.array(daoCoinLimitOrderEntrySchema) });

export const getTransactorDAOCoinLimitOrdersBody = v.object({
  TransactorPublicKeyBase58CheckOrUsername: v.optional(v.string(ID)),
  TransactorPublicKeyBase58Check: v.optional(v.string(ID)),
  BuyingCoinPublicKeyBase58Check: v.optional(v.string(ID), ''),
  SellingCoinPublicKeyBase58Check: v.optional(v.string(ID), ''),
  TxnStatus: v.optional(v.string({ maxLength: 20 }), ''),
});

/** The first of several accepted spellings of one field that the request carries. */
function firstGiven(values: Array<string | undefined>, name: string, prefix: string): string {
  const given = values.find((x) => x !== undefined);
  if (given === undefined) throw badRequest(`${prefix}${name} is required (the empty string is the native currency)`);
  return given;
}

export function orderBookRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;

  const stateFor = async (chainState: ChainReads, txnStatus: string, prefix: string): Promise<IndexedStateReader> => {
    if (txnStatus === '' || txnStatus === 'InMempool') return chainState.pending();
    if (txnStatus === 'Committed') return chainState.mined();
    throw badRequest(`${prefix}Invalid TxnStatus: ${txnStatus}. Options are {${TXN_STATUSES.join(', ')}}.`);
  };

  return [
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-dao-coin-limit-orders',
      summary: 'All open limit orders between two coins, both directions (spec §4.5); with NumToFetch, one page of them and NextStartAfter',
      body: getDAOCoinLimitOrdersBody,
      response: getDAOCoinLimitOrdersResponse,
      async handle({ body }, chainState) {
        const P = 'GetDAOCoinLimitOrders: ';
        const coin1 = firstGiven([body.DAOCoin1CreatorPublicKeyBase58CheckOrUsername, body.DAOCoin1CreatorPublicKeyBase58Check], 'DAOCoin1CreatorPublicKeyBase58CheckOrUsername', P);
        const coin2 = firstGiven(
          [body.DAOCoin2CreatorPublicKeyBase58CheckOrUsername, body.DAOCoin2CreatorPublicKeyBase58CheckOrUsername2, body.DAOCoin2CreatorPublicKeyBase58Check],
          'DAOCoin2CreatorPublicKeyBase58CheckOrUsername',
          P,
        );
        if (isNativeIdentifier(coin1, network) && isNativeIdentifier(coin2, network)) {
          throw badRequest(`${P}Must provide either a DAOCoin1CreatorPublicKeyBase58CheckOrUsername or DAOCoin2CreatorPublicKeyBase58CheckOrUsername or both`);
        }
        const state = await stateFor(chainState, body.TxnStatus, P);
        const [pk1, pk2] = await Promise.all([
          resolveCoin(state, coin1, network, 'DAOCoin1CreatorPublicKeyBase58CheckOrUsername', `${P}Invalid DAOCoin1CreatorPublicKeyBase58CheckOrUsername: `),
          resolveCoin(state, coin2, network, 'DAOCoin2CreatorPublicKeyBase58CheckOrUsername', `${P}Invalid DAOCoin2CreatorPublicKeyBase58CheckOrUsername: `),
        ]);
        if (body.NumToFetch === undefined) {
          if (body.StartAfter !== undefined) throw badRequest(`${P}StartAfter needs NumToFetch (the page size)`);
          return json({ Orders: await pairOrders(state, pk1, pk2, network) });
        }
        const page = await pairOrdersPage(state, pk1, pk2, network, { numToFetch: body.NumToFetch, startAfter: body.StartAfter ?? null }, P);
        return json({ Orders: page.orders, NextStartAfter: page.next });
      },
    }),
    cachedRoute(deps, {
      method: 'POST',
      path: '/get-transactor-dao-coin-limit-orders',
      summary: 'All open limit orders a user created, optionally of one coin (spec §4.5)',
      body: getTransactorDAOCoinLimitOrdersBody,
      response: getTransactorDAOCoinLimitOrdersResponse,
      async handle({ body }, chainState) {
        const P = 'GetTransactorDAOCoinLimitOrders: ';
        const given = firstGiven([body.TransactorPublicKeyBase58CheckOrUsername, body.TransactorPublicKeyBase58Check], 'TransactorPublicKeyBase58CheckOrUsername', P);
        if (given === '') throw badRequest(`${P}must provide a TransactorPublicKeyBase58CheckOrUsername`);
        const state = await stateFor(chainState, body.TxnStatus, P);
        const transactor = await resolvePublicKeyOrUsername(state, given, network, 'TransactorPublicKeyBase58CheckOrUsername', `${P}Invalid TransactorPublicKeyBase58CheckOrUsername: `);
        // Filters: "" (or absent) means no filter here, as in the reference; "DESO" is the native coin.
        const filterCoin = async (s: string, field: string): Promise<Uint8Array | undefined> =>
          s === '' ? undefined : resolveCoin(state, s, network, field, `${P}Invalid ${field}: `);
        const [buying, selling] = await Promise.all([
          filterCoin(body.BuyingCoinPublicKeyBase58Check, 'BuyingCoinPublicKeyBase58Check'),
          filterCoin(body.SellingCoinPublicKeyBase58Check, 'SellingCoinPublicKeyBase58Check'),
        ]);
        const filter = { ...(buying ? { buying } : {}), ...(selling ? { selling } : {}) };
        return json({ Orders: await transactorOrders(state, transactor, network, filter) });
      },
    }),
  ];
}
