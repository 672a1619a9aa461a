/**
 * The token order book reads of spec §4.5 (reference node-api.md §2.4, §7.3) as plain
 * functions over a state reader: resolving a coin given as public key or username, and the
 * open orders of a pair or of a transactor, shaped as spec §2.7 order objects.
 *
 * Choices where spec and reference differ (the spec wins):
 * - A coin side may be a username; the empty string is the native currency (the reference
 *   knows only keys and `"DESO"`; `"DESO"` and the all-zero key are accepted here too).
 * - The native side of an order is shown as `""` (the reference writes `"DESO"`).
 * - `Orders` is always an array (the reference answers null when there are none).
 * Orders the conversions of §7.3 cannot show (zero quantity, a rate too small to invert) are
 * skipped, as the reference skips them.
 * @module
 */
import { orderResponse, PriceConversionError, type DAOCoinLimitOrderEntryResponse } from '../chain/daoCoinPrices.js';
import { DESO_COIN, isBookMember, isDesoCoin, ordersForPair, ordersForTransactor, pairBookPage, type DAOCoinLimitOrder } from '../chain/state/daoCoinLimitOrders.js';
import type { IndexedStateReader } from '../chain/state/daoCoins.js';
import type { StateReader } from '../chain/state/reader.js';
import { toHex } from '../hex.js';
import { DomainError } from '../errors.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { resolvePublicKeyOrUsername } from './keyOrUsername.js';

/** An order-book read refused for what it asks (a key, username or cursor that is not one). */
export class OrderBookRequestError extends DomainError {
  override readonly name = 'OrderBookRequestError';
  constructor(message: string) {
    super('ORDER_BOOK_REQUEST_INVALID', 'invalid', message);
  }
}

/** Order response of spec §2.7 (plus the reference's decimal `Price` and `Quantity`). */
export type OrderEntryResponse = DAOCoinLimitOrderEntryResponse;

/** DAOCoinLimitOrderOperationType (core): 1 ASK, 2 BID. */
const OPERATION_NAMES: Readonly<Record<number, 'ASK' | 'BID'>> = { 1: 'ASK', 2: 'BID' };

/** The reference's names of the native coin, besides the spec's empty string. */
export function isNativeIdentifier(s: string, network: Network): boolean {
  return s === '' || s === 'DESO' || s === encodePublicKey(DESO_COIN, network);
}

/**
 * A coin side: the native coin (33 zero bytes, as in the book) or a creator's key, given as
 * public key or username (social/keyOrUsername.ts; `context` before its messages).
 */
export async function resolveCoin(state: StateReader, s: string, network: Network, field: string, context: string): Promise<Uint8Array> {
  return isNativeIdentifier(s, network) ? DESO_COIN : resolvePublicKeyOrUsername(state, s, network, field, context);
}

const coinText = (creator33: Uint8Array, network: Network): string => (isDesoCoin(creator33) ? '' : encodePublicKey(creator33, network));

/** One order as spec §2.7 shows it, or null when §7.3 cannot convert it. */
export function orderEntry(o: DAOCoinLimitOrder, network: Network): OrderEntryResponse | null {
  const side = OPERATION_NAMES[o.operationType];
  if (side === undefined) return null;
  try {
    const r = orderResponse({
      orderIdHex: toHex(o.orderId),
      transactor: encodePublicKey(o.transactor, network),
      // orderResponse recognises the native side by the reference's "DESO".
      buying: isDesoCoin(o.buyingCreator) ? 'DESO' : encodePublicKey(o.buyingCreator, network),
      selling: isDesoCoin(o.sellingCreator) ? 'DESO' : encodePublicKey(o.sellingCreator, network),
      scaledExchangeRate: o.scaledExchangeRate,
      quantityToFillInBaseUnits: o.quantityToFillInBaseUnits,
      side,
    });
    return {
      ...r,
      BuyingDAOCoinCreatorPublicKeyBase58Check: coinText(o.buyingCreator, network),
      SellingDAOCoinCreatorPublicKeyBase58Check: coinText(o.sellingCreator, network),
    };
  } catch (e) {
    if (e instanceof PriceConversionError) return null;
    throw e;
  }
}

function entries(orders: DAOCoinLimitOrder[], network: Network): OrderEntryResponse[] {
  return orders.map((o) => orderEntry(o, network)).filter((r): r is OrderEntryResponse => r !== null);
}

/**
 * Every open order of a pair: those buying `coin1` with `coin2` (best first), then those
 * buying `coin2` with `coin1` (best first), as the reference lists them.
 */
export async function pairOrders(state: IndexedStateReader, coin1: Uint8Array, coin2: Uint8Array, network: Network): Promise<OrderEntryResponse[]> {
  const [a, b] = await Promise.all([ordersForPair(state, coin1, coin2), ordersForPair(state, coin2, coin1)]);
  return entries([...a, ...b], network);
}

/** Most orders one page of a pair's book may ask for (`NumToFetch`). */
export const MAX_ORDERS_PER_PAGE = 1_000;

/**
 * One page of `pairOrders`' list: up to `numToFetch` orders in the same order (the book buying
 * coin1 with coin2, then the other), after `startAfter`, the cursor a previous page answered
 * as `next` (null: from the start; `next` null: this was the last page). A page reads its
 * orders and one book member more, whatever the size of the books.
 * @throws {OrderBookRequestError} for a cursor this function did not make
 */
export async function pairOrdersPage(
  state: IndexedStateReader,
  coin1: Uint8Array,
  coin2: Uint8Array,
  network: Network,
  page: { numToFetch: number; startAfter: string | null },
  fail: string,
): Promise<{ orders: OrderEntryResponse[]; next: string | null }> {
  const books: Array<[Uint8Array, Uint8Array]> = [
    [coin1, coin2],
    [coin2, coin1],
  ];
  let { side, after } = parseCursor(page.startAfter, fail);
  const orders: DAOCoinLimitOrder[] = [];
  let next: string | null = null;
  while (side < books.length) {
    const [buying, selling] = books[side]!;
    const want = page.numToFetch - orders.length;
    if (want === 0) {
      // Full at the end of a book: another page only if a later book has an order.
      const rest = await pairBookPage(state, buying, selling, after, 0);
      if (rest.more) next = `${side}:${after ?? ''}`;
      if (rest.more || side === books.length - 1) break;
      side++;
      after = undefined;
      continue;
    }
    const got = await pairBookPage(state, buying, selling, after, want);
    orders.push(...got.orders);
    if (got.more) {
      next = `${side}:${got.last}`;
      break;
    }
    side++;
    after = undefined;
  }
  return { orders: entries(orders, network), next };
}

/** A `pairOrdersPage` cursor: `<book 0|1>:<book member or empty for its start>`. */
function parseCursor(cursor: string | null, fail: string): { side: number; after: string | undefined } {
  if (cursor === null || cursor === '') return { side: 0, after: undefined };
  const side = cursor[0] === '0' ? 0 : cursor[0] === '1' ? 1 : -1;
  const member = cursor.slice(2);
  if (side === -1 || cursor[1] !== ':' || (member !== '' && !isBookMember(member))) {
    throw new OrderBookRequestError(`${fail}StartAfter is not a cursor this node answered as NextStartAfter`);
  }
  return { side, after: member === '' ? undefined : member };
}

/** A transactor's open orders, optionally only those buying and/or selling a given coin. */
export async function transactorOrders(
  state: IndexedStateReader,
  transactor: Uint8Array,
  network: Network,
  filter: { buying?: Uint8Array; selling?: Uint8Array } = {},
): Promise<OrderEntryResponse[]> {
  return entries(await ordersForTransactor(state, transactor, filter), network);
}
