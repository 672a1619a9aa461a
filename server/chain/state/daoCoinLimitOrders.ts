/**
 * The DAO coin order book in chain state (reference node-api.md §7.1): order records by
 * OrderID, an index per (buying, selling) coin pair whose byte order is matching priority, and
 * an index per transactor. DESO is the 33-zero-byte key (core's ZeroPKID).
 *
 * Pair-index members sort as core's `IsBetterMatchingOrderThan`: higher exchange rate first,
 * then lower block height (FIFO), then higher OrderID bytes. Rate and OrderID are stored
 * complemented so that ascending byte order is best-first; the real OrderID follows.
 * @module
 */
import { toHex } from '../../hex.js';
import type { IndexedStateReader } from './daoCoins.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

/** The native coin's "creator" in the book (core ZeroPKID). */
export const DESO_COIN = new Uint8Array(33);

export function isDesoCoin(creator33: Uint8Array): boolean {
  return creator33.length === 33 && creator33.every((b) => b === 0);
}

export interface DAOCoinLimitOrder {
  /** Hash of the transaction that placed the order, 32 bytes. */
  orderId: Uint8Array;
  transactor: Uint8Array;
  buyingCreator: Uint8Array;
  sellingCreator: Uint8Array;
  /** Selling-coin base units per buying-coin base unit, ×1e38. */
  scaledExchangeRate: bigint;
  /** ASK: selling-coin base units left to sell; BID: buying-coin base units left to buy. */
  quantityToFillInBaseUnits: bigint;
  /** DAOCoinLimitOrderOperation (ASK 1, BID 2). */
  operationType: number;
  /** DAOCoinLimitOrderFill (GTC 1, IOC 2, FOK 3). */
  fillType: number;
  blockHeight: bigint;
}

const MAX_UINT256 = (1n << 256n) - 1n;

export const daoCoinOrderKeys = {
  order: (orderId32: Uint8Array): string => `chain:dao:order:${toHex(orderId32)}`,
  /** Open orders buying `buying` with `selling`, best first. */
  book: (buying33: Uint8Array, selling33: Uint8Array): string => `chain:dao:book:${toHex(buying33)}:${toHex(selling33)}`,
  /** A transactor's open orders: members `buyingHex:sellingHex:orderIdHex`. */
  byTransactor: (transactor33: Uint8Array): string => `chain:dao:orders-by:${toHex(transactor33)}`,
};

/** Pair-index member: ascending order is matching priority; ends with the OrderID hex. */
export function bookMember(o: DAOCoinLimitOrder): string {
  const rate = (MAX_UINT256 - o.scaledExchangeRate).toString(16).padStart(64, '0');
  const height = o.blockHeight.toString(16).padStart(16, '0');
  const idComplement = toHex(o.orderId.map((b) => 0xff - b));
  return `${rate}:${height}:${idComplement}:${toHex(o.orderId)}`;
}

function transactorMember(o: DAOCoinLimitOrder): string {
  return `${toHex(o.buyingCreator)}:${toHex(o.sellingCreator)}:${toHex(o.orderId)}`;
}

const lastField = (member: string): Uint8Array => new Uint8Array(Buffer.from(member.slice(member.lastIndexOf(':') + 1), 'hex'));

export async function getOrder(state: StateReader, orderId32: Uint8Array): Promise<DAOCoinLimitOrder | undefined> {
  return state.get<DAOCoinLimitOrder>(daoCoinOrderKeys.order(orderId32));
}

/** Stores a new order or an order's new remaining quantity (its index positions never move). */
export function putOrder(view: StateView, o: DAOCoinLimitOrder): void {
  view.set(daoCoinOrderKeys.order(o.orderId), o);
  view.indexAdd(daoCoinOrderKeys.book(o.buyingCreator, o.sellingCreator), [bookMember(o)]);
  view.indexAdd(daoCoinOrderKeys.byTransactor(o.transactor), [transactorMember(o)]);
}

export function deleteOrder(view: StateView, o: DAOCoinLimitOrder): void {
  view.delete(daoCoinOrderKeys.order(o.orderId));
  view.indexRemove(daoCoinOrderKeys.book(o.buyingCreator, o.sellingCreator), [bookMember(o)]);
  view.indexRemove(daoCoinOrderKeys.byTransactor(o.transactor), [transactorMember(o)]);
}

async function loadAll(state: StateReader, ids: Uint8Array[]): Promise<DAOCoinLimitOrder[]> {
  const orders = await Promise.all(ids.map((id) => getOrder(state, id)));
  return orders.filter((o): o is DAOCoinLimitOrder => o !== undefined);
}

/**
 * Book members read at a time by `bookOrders`: a taker usually crosses a few resting orders,
 * so a page costs about what the match needs; a taker that crosses many reads more pages.
 */
export const BOOK_PAGE = 16;

/**
 * Open orders buying `buying33` with `selling33`, best first, read a page at a time as the
 * caller goes on: matching that stops at the first order whose price does not cross reads no
 * further into the book. The caller may change orders it was given between pages (their
 * members, and so the next page's start, never move).
 */
export async function* bookOrders(state: IndexedStateReader, buying33: Uint8Array, selling33: Uint8Array): AsyncGenerator<DAOCoinLimitOrder> {
  let after: string | undefined;
  for (;;) {
    const page = await pairBookPage(state, buying33, selling33, after, BOOK_PAGE);
    yield* page.orders;
    if (!page.more) return;
    after = page.last;
  }
}

/**
 * Up to `limit` open orders buying `buying33` with `selling33`, best first, after the book
 * member `after` (from the start when undefined), with the last member read (a page cursor)
 * and whether the book goes on past it.
 */
export async function pairBookPage(
  state: IndexedStateReader,
  buying33: Uint8Array,
  selling33: Uint8Array,
  after: string | undefined,
  limit: number,
): Promise<{ orders: DAOCoinLimitOrder[]; last: string | undefined; more: boolean }> {
  const key = daoCoinOrderKeys.book(buying33, selling33);
  // One member past the page tells whether there is another page.
  const members = await state.indexRange(key, after === undefined ? { limit: limit + 1 } : { gt: after, limit: limit + 1 });
  const page = members.slice(0, limit);
  return { orders: await loadAll(state, page.map(lastField)), last: page[page.length - 1] ?? after, more: members.length > limit };
}

/** Whether `member` has the shape of a pair-book member (`bookMember`). */
export function isBookMember(member: string): boolean {
  return /^[0-9a-f]{64}:[0-9a-f]{16}:[0-9a-f]{64}:[0-9a-f]{64}$/.test(member);
}

/** Open orders buying `buying33` with `selling33`, in matching priority (best first). */
export async function ordersForPair(state: IndexedStateReader, buying33: Uint8Array, selling33: Uint8Array): Promise<DAOCoinLimitOrder[]> {
  const members = await state.indexRange(daoCoinOrderKeys.book(buying33, selling33));
  return loadAll(state, members.map(lastField));
}

/**
 * A transactor's open orders, optionally only those buying and/or selling a given coin
 * (reference get-transactor-dao-coin-limit-orders: an absent coin means no filter).
 */
export async function ordersForTransactor(
  state: IndexedStateReader,
  transactor33: Uint8Array,
  filter: { buying?: Uint8Array; selling?: Uint8Array } = {},
): Promise<DAOCoinLimitOrder[]> {
  const key = daoCoinOrderKeys.byTransactor(transactor33);
  const prefix = filter.buying ? `${toHex(filter.buying)}:${filter.selling ? `${toHex(filter.selling)}:` : ''}` : '';
  // ';' follows ':' in byte order, so [prefix, prefix;) is exactly the members starting with it.
  const members = prefix ? await state.indexRange(key, { gte: prefix, lt: `${prefix.slice(0, -1)};` }) : await state.indexRange(key);
  const wanted = filter.selling && !filter.buying ? members.filter((m) => m.split(':')[1] === toHex(filter.selling!)) : members;
  return loadAll(state, wanted.map(lastField));
}
