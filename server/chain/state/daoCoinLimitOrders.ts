/**
 * The DAO coin order book in chain state (reference node-api.md §7.1): order records by
 * OrderID, an index per (buying, selling) coin pair whose byte order is matching priority, and
 * an index per transactor. DESO is the 33-zero-byte key (core's ZeroPKID).
 *
 * | key                              | holds                                                  |
 * |----------------------------------|--------------------------------------------------------|
 * | `o:<order id>`                   | StoredOrder                                            |
 * | index `o-book:<buying><selling>` | `bookMember` of each open order of the pair            |
 * | index `o-by:<transactor>`        | `<order id>` of each open order of the transactor      |
 *
 * Keys and ids are key text (keyText.ts). Pair-index members sort as core's
 * `IsBetterMatchingOrderThan`: higher exchange rate first, then lower block height (FIFO),
 * then higher OrderID bytes: one byte string of the rate as a descending ordered integer, the
 * height as an ascending one and the complemented OrderID (which gives the OrderID back).
 * @module
 */
import { packBig, unpackBig } from './compactValues.js';
import { bytesText, joinBytes, orderedUint, orderedUintDescending, readOrderedUint, textBytes } from './keyText.js';
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

export const daoCoinOrderKeys = {
  order: (orderId32: Uint8Array): string => `o:${bytesText(orderId32)}`,
  /** Open orders buying `buying` with `selling`, best first. */
  book: (buying33: Uint8Array, selling33: Uint8Array): string => `o-book:${bytesText(buying33)}${bytesText(selling33)}`,
  /** A transactor's open orders: members are OrderIDs. */
  byTransactor: (transactor33: Uint8Array): string => `o-by:${bytesText(transactor33)}`,
};

const complement = (b: Uint8Array): Uint8Array => b.map((x) => 0xff - x);

/** Pair-index member: ascending order is matching priority; ends with the complemented OrderID. */
export function bookMember(o: DAOCoinLimitOrder): string {
  return bytesText(joinBytes(orderedUintDescending(o.scaledExchangeRate), orderedUint(o.blockHeight), complement(o.orderId)));
}

/** The fields of a pair-index member, or undefined when it is not one. */
function parseBookMember(member: string): { rate: bigint; height: bigint; orderId: Uint8Array } | undefined {
  let bytes: Uint8Array;
  try {
    bytes = textBytes(member);
  } catch {
    return undefined;
  }
  if (bytes.length < 2 + 32) return undefined;
  const rate = readOrderedUint(bytes, 0, true);
  if (rate.end >= bytes.length) return undefined;
  const height = readOrderedUint(bytes, rate.end);
  if (bytes.length - height.end !== 32) return undefined;
  return { rate: rate.value, height: height.value, orderId: complement(bytes.subarray(height.end)) };
}

/** The OrderID of a pair-index member. */
export function orderIdOfBookMember(member: string): Uint8Array {
  const parsed = parseBookMember(member);
  if (parsed === undefined) throw new RangeError('not a pair-index member');
  return parsed.orderId;
}

/** Coin keys as stored: DESO (33 zero bytes) as an empty key. */
const packCoin = (creator33: Uint8Array): Uint8Array => (isDesoCoin(creator33) ? new Uint8Array(0) : creator33);
const unpackCoin = (stored: Uint8Array): Uint8Array => (stored.length === 0 ? new Uint8Array(33) : stored);

/** An order as stored: without its OrderID (its key names it), amounts as `packBig`. */
type StoredOrder = [
  transactor: Uint8Array,
  buyingCreator: Uint8Array,
  sellingCreator: Uint8Array,
  scaledExchangeRate: number | bigint,
  quantityToFillInBaseUnits: number | bigint,
  operationType: number,
  fillType: number,
  blockHeight: number | bigint,
];

export async function getOrder(state: StateReader, orderId32: Uint8Array): Promise<DAOCoinLimitOrder | undefined> {
  const s = await state.get<StoredOrder>(daoCoinOrderKeys.order(orderId32));
  if (s === undefined) return undefined;
  const [transactor, buying, selling, rate, quantity, operationType, fillType, height] = s;
  return {
    orderId: orderId32,
    transactor,
    buyingCreator: unpackCoin(buying),
    sellingCreator: unpackCoin(selling),
    scaledExchangeRate: unpackBig(rate),
    quantityToFillInBaseUnits: unpackBig(quantity),
    operationType,
    fillType,
    blockHeight: unpackBig(height),
  };
}

/** Stores a new order or an order's new remaining quantity (its index positions never move). */
export function putOrder(view: StateView, o: DAOCoinLimitOrder): void {
  const stored: StoredOrder = [
    o.transactor,
    packCoin(o.buyingCreator),
    packCoin(o.sellingCreator),
    packBig(o.scaledExchangeRate),
    packBig(o.quantityToFillInBaseUnits),
    o.operationType,
    o.fillType,
    packBig(o.blockHeight),
  ];
  view.set(daoCoinOrderKeys.order(o.orderId), stored);
  view.indexAdd(daoCoinOrderKeys.book(o.buyingCreator, o.sellingCreator), [bookMember(o)]);
  view.indexAdd(daoCoinOrderKeys.byTransactor(o.transactor), [bytesText(o.orderId)]);
}

export function deleteOrder(view: StateView, o: DAOCoinLimitOrder): void {
  view.delete(daoCoinOrderKeys.order(o.orderId));
  view.indexRemove(daoCoinOrderKeys.book(o.buyingCreator, o.sellingCreator), [bookMember(o)]);
  view.indexRemove(daoCoinOrderKeys.byTransactor(o.transactor), [bytesText(o.orderId)]);
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
  return { orders: await loadAll(state, page.map(orderIdOfBookMember)), last: page[page.length - 1] ?? after, more: members.length > limit };
}

/** Whether `member` has the shape of a pair-book member (`bookMember`). */
export function isBookMember(member: string): boolean {
  const parsed = parseBookMember(member);
  // The text of those bytes, exactly: no trailing bits or characters of another member.
  return parsed !== undefined && bytesText(textBytes(member)) === member;
}

/** Open orders buying `buying33` with `selling33`, in matching priority (best first). */
export async function ordersForPair(state: IndexedStateReader, buying33: Uint8Array, selling33: Uint8Array): Promise<DAOCoinLimitOrder[]> {
  const members = await state.indexRange(daoCoinOrderKeys.book(buying33, selling33));
  return loadAll(state, members.map(orderIdOfBookMember));
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
  const ids = await state.indexRange(daoCoinOrderKeys.byTransactor(transactor33));
  const same = (a: Uint8Array, b: Uint8Array | undefined): boolean => b === undefined || Buffer.compare(a, b) === 0;
  const orders = (await loadAll(state, ids.map(textBytes))).filter((o) => same(o.buyingCreator, filter.buying) && same(o.sellingCreator, filter.selling));
  // By (buying, selling, OrderID) bytes, as core's transactor index lists them.
  const sortKey = (o: DAOCoinLimitOrder): Buffer => Buffer.concat([o.buyingCreator, o.sellingCreator, o.orderId]);
  return orders.sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
}
