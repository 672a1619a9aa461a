/** getProfiles by UsernamePrefix: the matches' reads go out together, not one round trip each. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppDeps } from '../../server/app.js';
import { EMPTY_CREATOR_COIN, profileKeys } from '../../server/chain/state/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { MemoryStore } from '../../server/store/memory.js';
import { addProfile } from '../helpers/profiles.js';
import type { StateIndexReader } from '../../server/chain/state/reader.js';
import { getProfiles } from '../../server/social/users.js';

/** A state of `n` profiles named pg0..pg(n-1) whose reads resolve a tick later, counting how many wait at once. */
async function slowState(n: number): Promise<{ state: StateIndexReader; maxInFlight: () => number; reads: () => number }> {
  const store = new MemoryStore();
  const view = StateView.over(store);
  for (let i = 0; i < n; i++) {
    const pk = Uint8Array.of(2, ...new Array<number>(31).fill(0), i);
    addProfile(view, pk, `pg${i}`, { creatorCoin: { ...EMPTY_CREATOR_COIN, nanosLocked: BigInt(i) } });
  }
  await store.commit(view.ops());
  let inFlight = 0;
  let max = 0;
  let reads = 0;
  const state: StateIndexReader = {
    async get<T>(key: string): Promise<T | undefined> {
      reads++;
      max = Math.max(max, ++inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return store.get<T>(key);
    },
    async indexRange(key: string, range) {
      assert.equal(key, profileKeys.usernameIndex);
      return store.indexRange(key, range);
    },
    async indexSize() {
      return assert.fail('not read by a prefix search');
    },
  };
  return { state, maxInFlight: () => max, reads: () => reads };
}

describe('getProfiles UsernamePrefix', () => {
  it('reads the owners of all 200 matches at once, then their profiles at once (2 round trips, not 400)', async () => {
    const s = await slowState(200);
    const deps = { config: { network: 'testnet' } } as unknown as AppDeps;
    const r = await getProfiles(deps, s.state, { start: null, usernamePrefix: 'PG', orderBy: 'influencer_coin_price', numToFetch: 0, reader: null, fetchUsersThatHodl: false, addGlobalFeedBool: false } as never);
    assert.deepEqual(r, { ProfilesFound: [], NextPublicKey: null });
    assert.equal(s.reads(), 400, 'one owner and one profile read per match');
    assert.equal(s.maxInFlight(), 200, 'each phase issued as one batch');
  });
});
