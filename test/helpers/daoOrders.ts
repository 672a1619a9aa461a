/** Order-book fixtures for state-level tests: random resting orders and a reader that counts order reads. */
import { randomBytes } from 'node:crypto';
import { daoCoinOrderKeys, type DAOCoinLimitOrder } from '../../server/chain/state/daoCoinLimitOrders.js';
import type { IndexedStateReader } from '../../server/chain/state/daoCoins.js';

/** An open order of a random transactor at a random rate of 1..`maxRate` selling-coin units per unit ×1e37. */
export function randomOrder(buying: Uint8Array, selling: Uint8Array, operationType: number, maxRate = 9): DAOCoinLimitOrder {
  return {
    orderId: new Uint8Array(randomBytes(32)),
    transactor: Uint8Array.of(3, ...randomBytes(32)),
    buyingCreator: buying,
    sellingCreator: selling,
    scaledExchangeRate: BigInt(1 + Math.floor(Math.random() * maxRate)) * 10n ** 37n,
    quantityToFillInBaseUnits: 1_000_000n,
    operationType,
    fillType: 1,
    blockHeight: 3n,
  };
}

/** `state`, counting the order records read through it. */
export function countingOrderReads(state: IndexedStateReader): { state: IndexedStateReader; orderReads: () => number } {
  let reads = 0;
  return {
    state: {
      get: <T>(key: string) => {
        if (key.startsWith(daoCoinOrderKeys.order(new Uint8Array(0)))) reads++;
        return state.get<T>(key);
      },
      indexRange: (key, range) => state.indexRange(key, range),
    },
    orderReads: () => reads,
  };
}
