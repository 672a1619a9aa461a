/**
 * get-profiles by UsernamePrefix (social/usernamePrefix.ts): the page is the matches with the
 * highest coin value, whichever way it is found: ranking every match (few matches) or walking
 * the coin-value index from the top (many), and the walk's cost follows the page, not the
 * network's size.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EMPTY_CREATOR_COIN, profileKeys, type ProfileRecord } from '../../server/chain/state/profiles.js';
import type { StateIndexReader } from '../../server/chain/state/reader.js';
import { StateView } from '../../server/chain/state/view.js';
import { MemoryStore } from '../../server/store/memory.js';
import { MAX_PREFIX_MATCHES, profilesByUsernamePrefix } from '../../server/social/usernamePrefix.js';
import { addProfile } from '../helpers/profiles.js';

interface Made {
  name: string;
  locked: bigint;
  pk: Uint8Array;
}

/** A store of these profiles, and a state over it that counts value reads and index reads by index. */
async function stateOf(profiles: readonly Made[]): Promise<{ state: StateIndexReader; reads: () => number; walkSteps: () => number }> {
  const store = new MemoryStore();
  const view = StateView.over(store);
  for (const p of profiles) addProfile(view, p.pk, p.name, { creatorCoin: { ...EMPTY_CREATOR_COIN, nanosLocked: p.locked } });
  await store.commit(view.ops());
  let reads = 0;
  let walkSteps = 0;
  const state: StateIndexReader = {
    async get<T>(key: string): Promise<T | undefined> {
      reads++;
      return store.get<T>(key);
    },
    async indexRange(key, range) {
      if (key === profileKeys.lockedIndex) walkSteps++;
      return store.indexRange(key, range);
    },
    indexSize: (key) => store.indexSize(key),
  };
  return { state, reads: () => reads, walkSteps: () => walkSteps };
}

const pkOf = (i: number): Uint8Array => Uint8Array.of(2, ...new Array<number>(28).fill(7), (i >>> 24) & 255, (i >>> 16) & 255, (i >>> 8) & 255, i & 255);

/** What the page must be: every match, highest coin value first, then the higher key. */
function expected(profiles: readonly Made[], prefix: string, n: number, hidden: ReadonlySet<number> = new Set()): string[] {
  return profiles
    .map((p, i) => ({ p, i }))
    .filter(({ p, i }) => p.name.toLowerCase().startsWith(prefix) && !hidden.has(i))
    .sort((a, b) => (a.p.locked !== b.p.locked ? (a.p.locked > b.p.locked ? -1 : 1) : Buffer.compare(b.p.pk, a.p.pk)))
    .slice(0, n)
    .map(({ p }) => p.name);
}

const names = (r: ProfileRecord[]): string[] => r.map((p) => p.username);

describe('profilesByUsernamePrefix', () => {
  it('few matches among many profiles: ranks the matches (two reads each), no walk', async () => {
    const made: Made[] = [];
    for (let i = 0; i < 50; i++) made.push({ name: `pg${i}`, locked: BigInt((i * 37) % 11), pk: pkOf(i) });
    for (let i = 50; i < 2050; i++) made.push({ name: `zz${i}`, locked: BigInt(i), pk: pkOf(i) });
    const s = await stateOf(made);
    const page = await profilesByUsernamePrefix(s.state, 'pg', 20, () => false);
    assert.deepEqual(names(page), expected(made, 'pg', 20));
    assert.equal(s.walkSteps(), 0);
    assert.equal(s.reads(), 100, 'an owner and a profile per match');
  });

  it('a prefix matching a share of the network: walks from the top, reads about (page + 1) / share profiles', async () => {
    const made: Made[] = [];
    // Every 10th profile matches 'a': a page of 20 is found within the first ~210 by value.
    for (let i = 0; i < 5000; i++) made.push({ name: `${i % 10 === 0 ? 'a' : 'b'}${i}`, locked: BigInt(1 + ((i * 7919) % 4999)), pk: pkOf(i) });
    const s = await stateOf(made);
    const page = await profilesByUsernamePrefix(s.state, 'a', 20, () => false);
    assert.deepEqual(names(page), expected(made, 'a', 20));
    assert.ok(s.walkSteps() > 0, 'walked');
    assert.ok(s.reads() < 500, `read ${s.reads()} profiles, not the ${made.length / 10} matches twice`);
  });

  it('more matches than it lists (the cap), all at the bottom of the value order: the walk gives up within its budget and ranks', async () => {
    const made: Made[] = [];
    for (let i = 0; i < MAX_PREFIX_MATCHES + 10; i++) made.push({ name: `a${i}`, locked: 0n, pk: pkOf(i) });
    for (let i = 0; i < 6000; i++) made.push({ name: `b${i}`, locked: BigInt(1 + i), pk: pkOf(100_000 + i) });
    const s = await stateOf(made);
    const page = await profilesByUsernamePrefix(s.state, 'a', 5, () => false);
    // Ranked among the first MAX_PREFIX_MATCHES names (alphabetically), all of coin value 0: by key.
    const listed = made.filter((p) => p.name.startsWith('a')).sort((x, y) => (x.name < y.name ? -1 : 1)).slice(0, MAX_PREFIX_MATCHES);
    assert.deepEqual(names(page), expected(listed, 'a', 5));
    assert.ok(s.reads() <= 4 * MAX_PREFIX_MATCHES + WALK_SLACK + 2 * MAX_PREFIX_MATCHES, `read ${s.reads()}`);
  });

  it('leaves out what `hidden` names, and answers nothing for a page of 0 or no match', async () => {
    const made: Made[] = Array.from({ length: 300 }, (_, i) => ({ name: `${i % 3 === 0 ? 'Pg' : 'q'}${i}`, locked: BigInt(i % 17), pk: pkOf(i) }));
    const s = await stateOf(made);
    const hidden = new Set([0, 3, 99]);
    const page = await profilesByUsernamePrefix(s.state, 'pg', 10, (p) => [...hidden].some((i) => Buffer.compare(made[i]!.pk, p.publicKey) === 0));
    assert.deepEqual(names(page), expected(made, 'pg', 10, hidden));
    assert.deepEqual(await profilesByUsernamePrefix(s.state, 'pg', 0, () => false), []);
    assert.deepEqual(await profilesByUsernamePrefix(s.state, 'zzz', 10, () => false), []);
  });

  it('equals ranking every match, on random networks, prefixes and page sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: fc.stringMatching(/^[a-c][a-c0-9]{0,4}$/), locked: fc.bigInt({ min: 0n, max: 20n }) }), { minLength: 1, maxLength: 120 }),
        fc.stringMatching(/^[a-c]{1,2}$/),
        fc.integer({ min: 1, max: 30 }),
        async (raw, prefix, n) => {
          // Usernames are unique on chain.
          const seen = new Set<string>();
          const made = raw.flatMap((r, i) => (seen.has(r.name.toLowerCase()) ? [] : (seen.add(r.name.toLowerCase()), [{ ...r, pk: pkOf(i) }])));
          const s = await stateOf(made);
          assert.deepEqual(names(await profilesByUsernamePrefix(s.state, prefix, n, () => false)), expected(made, prefix, n));
        },
      ),
      { numRuns: 150 },
    );
  });
});

/** The walk may overshoot its budget by one step. */
const WALK_SLACK = 128;
