/** get-dao-coin-limit-orders paging: pages of pairOrdersPage walk exactly pairOrders' list. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DESO_COIN, putOrder } from '../../server/chain/state/daoCoinLimitOrders.js';
import type { IndexedStateReader } from '../../server/chain/state/daoCoins.js';
import { StateView } from '../../server/chain/state/view.js';
import { toErrorReply } from '../../server/http/errors.js';
import { pairOrders, pairOrdersPage } from '../../server/social/orderBook.js';
import { MemoryStore } from '../../server/store/memory.js';
import { countingOrderReads, randomOrder } from '../helpers/daoOrders.js';

const COIN = Uint8Array.of(2, ...new Array<number>(32).fill(7));
const [BIDS, ASKS] = [37, 23];

async function allPages(state: IndexedStateReader, numToFetch: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let startAfter: string | null = null;
  let pages = 0;
  do {
    const page = await pairOrdersPage(state, COIN, DESO_COIN, 'testnet', { numToFetch, startAfter }, 'GetDAOCoinLimitOrders: ');
    assert.ok(page.orders.length <= numToFetch);
    ids.push(...page.orders.map((o) => o.OrderID));
    startAfter = page.next;
    pages++;
  } while (startAfter !== null && pages < 1000);
  return { ids, pages };
}

describe('pairOrdersPage', () => {
  let state: StateView;
  let unpaged: string[];
  before(async () => {
    const store = new MemoryStore({});
    const mined = StateView.over(store);
    for (let i = 0; i < BIDS; i++) putOrder(mined, randomOrder(COIN, DESO_COIN, 2));
    await store.commit(mined.ops());
    state = StateView.over(store);
    // Asks pending on top of the mined bids, as in the tip-plus-mempool view.
    for (let i = 0; i < ASKS; i++) putOrder(state, randomOrder(DESO_COIN, COIN, 1));
    unpaged = (await pairOrders(state, COIN, DESO_COIN, 'testnet')).map((o) => o.OrderID);
    assert.equal(unpaged.length, BIDS + ASKS);
  });

  for (const n of [1, 5, BIDS - 1, BIDS, BIDS + 1, BIDS + ASKS - 1, BIDS + ASKS, BIDS + ASKS + 1, 1000]) {
    it(`pages of ${n} walk the unpaged list exactly, the last page saying so`, async () => {
      const { ids, pages } = await allPages(state, n);
      assert.deepEqual(ids, unpaged);
      assert.equal(pages, Math.max(1, Math.ceil((BIDS + ASKS) / n)));
    });
  }

  it('a page reads its own orders, not the books', async () => {
    const { state: counting, orderReads } = countingOrderReads(state);
    const first = await pairOrdersPage(counting, COIN, DESO_COIN, 'testnet', { numToFetch: 5, startAfter: null }, '');
    await pairOrdersPage(counting, COIN, DESO_COIN, 'testnet', { numToFetch: 5, startAfter: first.next }, '');
    assert.equal(orderReads(), 10);
  });

  it('refuses a cursor it did not make (400)', async () => {
    for (const bad of ['x', '2:', '0', `0:${'zz'.repeat(10)}`, '1:abc']) {
      await assert.rejects(
        pairOrdersPage(state, COIN, DESO_COIN, 'testnet', { numToFetch: 5, startAfter: bad }, 'P: '),
        (e: unknown) => toErrorReply(e).status === 400 && /StartAfter/.test((e as Error).message),
        bad,
      );
    }
  });
});
