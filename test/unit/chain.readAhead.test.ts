/**
 * Reading ahead for admission (issue 18): the first state keys of transactions arriving in one
 * event-loop turn are fetched in one store read into the pending state's cache, while their
 * signatures are checked. It only warms a cache: a transaction with many keys costs no read
 * ahead, and a failed read is dropped without a trace.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MAX_KEYS_PER_TXN, ReadAhead } from '../../server/chain/mempool/readAhead.js';
import type { PendingState } from '../../server/chain/mempool/pending.js';
import { StateView } from '../../server/chain/state/view.js';
import { MemoryStore } from '../../server/store/memory.js';

const store = new MemoryStore();
after(() => store.close());

/** A pending state whose replay view is `view`, and the store reads made through it. */
function pendingOver(view: StateView, reads: string[][]): PendingState {
  const getMany = store.getMany.bind(store);
  store.getMany = <T,>(keys: readonly string[]) => {
    reads.push([...keys]);
    return getMany<T>(keys);
  };
  return { current: async () => ({ view }) } as unknown as PendingState;
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
const settled = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await nextTurn();
};

describe('ReadAhead', () => {
  it('reads the keys of one turn\'s transactions in one store read, into the view\'s cache', async () => {
    await store.set('balance:a', 5n);
    await store.set('balance:b', 7n);
    const view = StateView.over(store);
    const reads: string[][] = [];
    const ahead = new ReadAhead(pendingOver(view, reads));
    ahead.add(['balance:a', 'nonce:a']);
    ahead.add(['balance:b']);
    assert.deepEqual(reads, [], 'nothing read in the turn the keys arrive');
    await settled();
    assert.deepEqual(reads, [['balance:a', 'nonce:a', 'balance:b']]);
    reads.length = 0;
    assert.equal(await view.get('balance:a'), 5n);
    assert.equal(await view.get('nonce:a'), undefined);
    assert.equal(await view.get('balance:b'), 7n);
    assert.deepEqual(reads, [], 'later reads find them cached');
  });

  it('reads nothing ahead for a transaction with more than MAX_KEYS_PER_TXN keys', async () => {
    const reads: string[][] = [];
    const ahead = new ReadAhead(pendingOver(StateView.over(store), reads));
    ahead.add(Array.from({ length: MAX_KEYS_PER_TXN + 1 }, (_, i) => `balance:many${i}`));
    ahead.add([]);
    await settled();
    assert.deepEqual(reads, []);
  });

  it('drops a failed read: no unhandled rejection, and the keys are read again when asked', async () => {
    const failing = new MemoryStore();
    failing.getMany = () => Promise.reject(new Error('store unavailable (test)'));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const view = StateView.over(failing);
      new ReadAhead({ current: async () => ({ view }) } as unknown as PendingState).add(['balance:x']);
      const broken = new ReadAhead({ current: () => Promise.reject(new Error('no pending state (test)')) } as unknown as PendingState);
      broken.add(['balance:y']);
      await settled();
      assert.deepEqual(unhandled, []);
      await failing.set('balance:x', 3n);
      assert.equal(await view.get('balance:x'), 3n, 'nothing was cached by the failed read');
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await failing.close();
    }
  });
});
