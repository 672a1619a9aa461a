/** bookOrders: the pair's book best first, read a page at a time as the matcher goes on. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BOOK_PAGE, bookOrders, daoCoinOrderKeys, ordersForPair, putOrder, type DAOCoinLimitOrder } from '../../server/chain/state/daoCoinLimitOrders.js';
import { StateView } from '../../server/chain/state/view.js';
import { MemoryStore } from '../../server/store/memory.js';
import { countingOrderReads, randomOrder } from '../helpers/daoOrders.js';

const BUYING = Uint8Array.of(2, ...new Array<number>(32).fill(1));
const SELLING = new Uint8Array(33);
const BOOK_SIZE = 1_000;

describe('bookOrders', () => {
  let mined: StateView;
  before(async () => {
    // Half the book mined, half pending on top of it, at random rates.
    const store = new MemoryStore({});
    const base = StateView.over(store);
    const order = (): DAOCoinLimitOrder => randomOrder(BUYING, SELLING, 2, 50);
    for (let i = 0; i < BOOK_SIZE / 2; i++) putOrder(base, order());
    await store.commit(base.ops());
    mined = StateView.over(store);
    for (let i = 0; i < BOOK_SIZE / 2; i++) putOrder(mined, order());
  });

  it('gives the whole book in the order ordersForPair does', async () => {
    const all: DAOCoinLimitOrder[] = [];
    for await (const o of bookOrders(mined, BUYING, SELLING)) all.push(o);
    assert.equal(all.length, BOOK_SIZE);
    assert.deepEqual(all, await ordersForPair(mined, BUYING, SELLING));
  });

  it(`a matcher that stops after 3 orders of ${BOOK_SIZE} reads one page of order records, not the book`, async () => {
    const c = countingOrderReads(mined);
    let seen = 0;
    for await (const _ of bookOrders(c.state, BUYING, SELLING)) if (++seen === 3) break;
    assert.equal(c.orderReads(), BOOK_PAGE);
  });

  it('orders the matcher changes between pages keep their place; the next page starts after them', async () => {
    const view = mined.child();
    const seen: string[] = [];
    for await (const o of bookOrders(view, BUYING, SELLING)) {
      seen.push(daoCoinOrderKeys.order(o.orderId));
      // Partly fill every order as it goes, as matching does.
      putOrder(view, { ...o, quantityToFillInBaseUnits: o.quantityToFillInBaseUnits - 1n });
    }
    assert.equal(seen.length, BOOK_SIZE);
    assert.equal(new Set(seen).size, BOOK_SIZE, 'each order once');
  });
});
