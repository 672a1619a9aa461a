/** getProfiles by UsernamePrefix: the matches' reads go out together, not one round trip each. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppDeps } from '../../server/app.js';
import { profileKeys } from '../../server/chain/state/profiles.js';
import type { StateIndexReader } from '../../server/chain/state/reader.js';
import { toHex } from '../../server/hex.js';
import { getProfiles } from '../../server/social/users.js';

/** A state of `n` profiles named pg0..pg(n-1) whose reads resolve a tick later, counting how many wait at once. */
function slowState(n: number): { state: StateIndexReader; maxInFlight: () => number; reads: () => number } {
  const values = new Map<string, unknown>();
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const pk = Uint8Array.of(2, ...new Array<number>(31).fill(0), i);
    names.push(`pg${i}`);
    values.set(profileKeys.byUsername(`pg${i}`), toHex(pk));
    values.set(profileKeys.byPublicKey(pk), { publicKey: pk, username: `pg${i}`, isHidden: false, creatorCoin: { nanosLocked: BigInt(i) } });
  }
  let inFlight = 0;
  let max = 0;
  let reads = 0;
  const state: StateIndexReader = {
    async get<T>(key: string): Promise<T | undefined> {
      reads++;
      max = Math.max(max, ++inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return values.get(key) as T | undefined;
    },
    async indexRange(key: string) {
      assert.equal(key, profileKeys.usernameIndex);
      return names;
    },
    async indexSize() {
      return assert.fail('not read by a prefix search');
    },
  };
  return { state, maxInFlight: () => max, reads: () => reads };
}

describe('getProfiles UsernamePrefix', () => {
  it('reads the owners of all 200 matches at once, then their profiles at once (2 round trips, not 400)', async () => {
    const s = slowState(200);
    const deps = { config: { network: 'testnet' } } as unknown as AppDeps;
    const r = await getProfiles(deps, s.state, { start: null, usernamePrefix: 'PG', orderBy: 'influencer_coin_price', numToFetch: 0, reader: null, fetchUsersThatHodl: false, addGlobalFeedBool: false } as never);
    assert.deepEqual(r, { ProfilesFound: [], NextPublicKey: null });
    assert.equal(s.reads(), 400, 'one owner and one profile read per match');
    assert.equal(s.maxInFlight(), 200, 'each phase issued as one batch');
  });
});
