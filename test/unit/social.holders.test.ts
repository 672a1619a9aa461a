/**
 * Coin holders (social/holders.ts over chain/state/coinHolders.ts): the by-balance indexes
 * follow every balance change, get-hodlers-for-public-key lists what a brute-force sort of all
 * holdings gives (the creator's own holding first, then balance descending, ties by key), its
 * pages walk that list exactly and read only their own members, on mined state and on a
 * pending view over it, for creator coins and DAO coins, both ways (holders and holdings).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import type { AppDeps } from '../../server/app.js';
import { setBalance } from '../../server/chain/state/balances.js';
import { coinHolderKeys, holdingMember, parseHoldingMember, type CoinKind } from '../../server/chain/state/coinHolders.js';
import { deleteHolding, getHolding, putHolding } from '../../server/chain/state/creatorCoins.js';
import { getDAOCoinBalance, setDAOCoinBalance } from '../../server/chain/state/daoCoins.js';
import type { StateIndexReader } from '../../server/chain/state/reader.js';
import { StateView } from '../../server/chain/state/view.js';
import { toErrorReply } from '../../server/http/errors.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { hodlersForPublicKey, isHodling, MAX_WEALTH_SORT_HOLDERS, type HodlersRequest } from '../../server/social/holders.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { addProfile } from '../helpers/profiles.js';

const newKey = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const b58 = (pk: Uint8Array): string => encodePublicKey(pk, 'testnet');
const cmp = (a: Uint8Array, b: Uint8Array): number => Buffer.compare(a, b);

/** Sets the holding of (holder, creator) in `kind` to `amount`, through the state setters. */
async function hold(view: StateView, kind: CoinKind, holder: Uint8Array, creator: Uint8Array, amount: bigint): Promise<void> {
  if (kind === 'dao') return setDAOCoinBalance(view, holder, creator, amount);
  const before = await getHolding(view, holder, creator);
  if (amount === 0n) deleteHolding(view, holder, creator, before);
  else putHolding(view, holder, creator, { balanceNanos: amount, hasPurchased: true }, before);
}

async function balance(state: StateIndexReader, kind: CoinKind, holder: Uint8Array, creator: Uint8Array): Promise<bigint> {
  return kind === 'dao' ? getDAOCoinBalance(state, holder, creator) : ((await getHolding(state, holder, creator))?.balanceNanos ?? 0n);
}

/** The reference's order, by brute force over the known keys: K first, balance desc, key asc. */
async function expected(state: StateIndexReader, kind: CoinKind, k: Uint8Array, others: Uint8Array[], hodlings: boolean): Promise<string[]> {
  const rows: Array<{ pk: Uint8Array; bal: bigint }> = [];
  for (const o of others) {
    const bal = hodlings ? await balance(state, kind, k, o) : await balance(state, kind, o, k);
    if (bal > 0n) rows.push({ pk: o, bal });
  }
  rows.sort((a, b) => {
    const [sa, sb] = [cmp(a.pk, k) === 0, cmp(b.pk, k) === 0];
    if (sa !== sb) return sa ? -1 : 1;
    if (a.bal !== b.bal) return a.bal > b.bal ? -1 : 1;
    return cmp(a.pk, b.pk);
  });
  return rows.map((r) => b58(r.pk));
}

const request = (k: Uint8Array, fields: Partial<HodlersRequest> = {}): HodlersRequest => ({
  publicKey: k,
  username: '',
  isDAOCoin: false,
  fetchHodlings: false,
  sortType: '',
  lastPublicKeyBase58Check: '',
  numToFetch: 0n,
  fetchAll: false,
  ...fields,
});

/** The listed parties of a response. */
function listed(r: { Hodlers: Record<string, unknown>[] }, hodlings: boolean): string[] {
  return r.Hodlers.map((h) => h[hodlings ? 'CreatorPublicKeyBase58Check' : 'HODLerPublicKeyBase58Check'] as string);
}

/** Walks the pages of `n` from the first, as a client would. */
async function walk(deps: AppDeps, state: StateIndexReader, req: HodlersRequest, n: number): Promise<{ keys: string[]; pages: number }> {
  const keys: string[] = [];
  let last = '';
  let pages = 0;
  for (;;) {
    const r = await hodlersForPublicKey(deps, state, { ...req, numToFetch: BigInt(n), lastPublicKeyBase58Check: last });
    pages++;
    assert.ok(r.Hodlers.length <= n, 'a page holds at most NumToFetch');
    if (r.Hodlers.length === 0) break;
    keys.push(...listed(r, req.fetchHodlings));
    last = r.LastPublicKeyBase58Check;
    assert.equal(last, keys.at(-1), 'the cursor is the last listed party');
    if (pages > 500) assert.fail('paging does not end');
  }
  return { keys, pages };
}

describe('by-balance holder indexes', () => {
  it('move with every balance change, on both sides, and list only non-zero balances', async () => {
    const view = StateView.over(new MemoryStore());
    const [creator, a, b] = [newKey(), newKey(), newKey()];
    for (const kind of ['creator', 'dao'] as const) {
      await hold(view, kind, a, creator, 500n);
      await hold(view, kind, b, creator, 700n);
      await hold(view, kind, a, creator, 900n);
      assert.deepEqual(await view.indexRange(coinHolderKeys.holders(kind, creator)), [holdingMember(900n, a), holdingMember(700n, b)], `${kind}: by balance, the old member gone`);
      assert.deepEqual(await view.indexRange(coinHolderKeys.holdings(kind, a)), [holdingMember(900n, creator)]);
      await hold(view, kind, a, creator, 0n);
      assert.deepEqual(await view.indexRange(coinHolderKeys.holders(kind, creator)), [holdingMember(700n, b)], `${kind}: a zero balance leaves`);
      assert.deepEqual(await view.indexRange(coinHolderKeys.holdings(kind, a)), []);
    }
  });

  it('a member reads back as its balance and key; uint256 balances order too', () => {
    const pk = newKey();
    for (const bal of [1n, 255n, 256n, (1n << 64n) + 7n, (1n << 256n) - 1n]) assert.deepEqual(parseHoldingMember(holdingMember(bal, pk)), { balance: bal, pk33: pk });
    const members = [3n, (1n << 200n), 1n, 1n << 64n].map((bal) => holdingMember(bal, pk)).sort();
    assert.deepEqual(members.map((m) => parseHoldingMember(m).balance), [1n << 200n, 1n << 64n, 3n, 1n], 'byte order is balance descending');
  });
});

for (const kind of ['creator', 'dao'] as const) {
  describe(`get-hodlers-for-public-key, ${kind} coins`, () => {
    const N = 41;
    const k = newKey();
    const others: Uint8Array[] = [];
    let deps: AppDeps;
    let mined: StateView;
    let pending: StateView;

    before(async () => {
      const store = new MemoryStore();
      deps = { config: { network: 'testnet' }, store } as unknown as AppDeps;
      mined = StateView.over(store);
      addProfile(mined, k, 'kcoin');
      const amounts = [5n, 5n, 5n, 10n ** 20n, 1n, 77n];
      for (let i = 0; i < N; i++) {
        const o = newKey();
        others.push(o);
        // Ties on purpose (key order decides), and both roles: o holds K, K holds o.
        await hold(mined, kind, o, k, amounts[i % amounts.length]! + BigInt(i % 3));
        if (i % 2 === 0) await hold(mined, kind, k, o, BigInt(1 + (i % 5)));
        if (i % 4 === 0) addProfile(mined, o, `holder${i}`);
      }
      await hold(mined, kind, k, k, 50n);
      others.push(k);
      await store.commit(mined.ops());
      mined = StateView.over(store);
      // Pending on top: a new holder, a holder emptied, a holder moved up, K's own balance moved.
      pending = StateView.over(store);
      const fresh = newKey();
      others.push(fresh);
      await hold(pending, kind, fresh, k, 6n);
      await hold(pending, kind, others[3]!, k, 0n);
      await hold(pending, kind, others[4]!, k, 10n ** 21n);
      await hold(pending, kind, k, k, 51n);
    });

    for (const hodlings of [false, true]) {
      const what = hodlings ? 'FetchHodlings (what K holds)' : "K's holders";
      for (const [name, state] of [['mined', () => mined], ['pending', () => pending]] as const) {
        it(`${what}, ${name}: FetchAll is K's own first, then balance descending, ties by key`, async () => {
          const r = await hodlersForPublicKey(deps, state(), request(k, { isDAOCoin: kind === 'dao', fetchHodlings: hodlings, fetchAll: true, numToFetch: 0n }));
          assert.deepEqual(listed(r, hodlings), await expected(state(), kind, k, others, hodlings));
        });

        for (const n of [1, 2, 7, 40, 43, 1000]) {
          it(`${what}, ${name}: pages of ${n} walk that list exactly`, async () => {
            const want = await expected(state(), kind, k, others, hodlings);
            const { keys, pages } = await walk(deps, state(), request(k, { isDAOCoin: kind === 'dao', fetchHodlings: hodlings }), n);
            assert.deepEqual(keys, want);
            assert.equal(pages, Math.ceil(want.length / n) + 1, 'the full pages, then an empty one');
          });
        }
      }
    }

    it('a page reads at most NumToFetch + 1 index members', async () => {
      let read = 0;
      const counting: StateIndexReader = {
        get: (key) => pending.get(key),
        indexSize: (key) => pending.indexSize(key),
        indexRange: async (key, range) => {
          const out = await pending.indexRange(key, range);
          read += out.length;
          return out;
        },
      };
      const first = await hodlersForPublicKey(deps, counting, request(k, { isDAOCoin: kind === 'dao', numToFetch: 5n }));
      await hodlersForPublicKey(deps, counting, request(k, { isDAOCoin: kind === 'dao', numToFetch: 5n, lastPublicKeyBase58Check: first.LastPublicKeyBase58Check }));
      // The first page's index read skips K's own member, which it lists from its balance.
      assert.ok(read <= 12, `read ${read} members for two pages of 5`);
    });

    it('NumToFetch 0 answers an empty page; an unknown or unheld cursor starts over', async () => {
      const dao = kind === 'dao';
      const empty = await hodlersForPublicKey(deps, pending, request(k, { isDAOCoin: dao }));
      assert.deepEqual(empty, { Hodlers: [], LastPublicKeyBase58Check: '' });
      const first = listed(await hodlersForPublicKey(deps, pending, request(k, { isDAOCoin: dao, numToFetch: 3n })), false);
      for (const cursor of ['nonsense', b58(newKey()), encodePublicKey(others[0]!, 'mainnet')]) {
        assert.deepEqual(listed(await hodlersForPublicKey(deps, pending, request(k, { isDAOCoin: dao, numToFetch: 3n, lastPublicKeyBase58Check: cursor })), false), first, cursor);
      }
      const afterSelf = listed(await hodlersForPublicKey(deps, pending, request(k, { isDAOCoin: dao, numToFetch: 2n, lastPublicKeyBase58Check: b58(k) })), false);
      assert.deepEqual(afterSelf, first.slice(1, 3), 'after K\'s own entry comes the rest');
    });

    it('answers the reference BalanceEntryResponse, with the listed party\'s profile when it has one', async () => {
      const big = others[4]!;
      const r = await hodlersForPublicKey(deps, pending, request(k, { isDAOCoin: kind === 'dao', numToFetch: 2n }));
      const [self, top] = r.Hodlers as Array<Record<string, any>>;
      assert.equal(self!['HODLerPublicKeyBase58Check'], b58(k));
      assert.equal(self!['ProfileEntryResponse']['Username'], 'kcoin');
      assert.equal(top!['HODLerPublicKeyBase58Check'], b58(big));
      assert.equal(top!['CreatorPublicKeyBase58Check'], b58(k));
      assert.equal(top!['BalanceNanosUint256'], `0x${(10n ** 21n).toString(16)}`);
      assert.equal(top!['BalanceNanos'], (10n ** 21n) & ((1n << 64n) - 1n), 'the low 64 bits, as the reference writes a uint256');
      assert.equal(top!['HasPurchased'], kind === 'creator');
      const minedBalance = await balance(mined, kind, big, k);
      assert.equal(top!['NetBalanceInMempool'], BigInt.asIntN(64, (10n ** 21n & ((1n << 64n) - 1n)) - (minedBalance & ((1n << 64n) - 1n))));
      assert.equal(top!['ProfileEntryResponse']['Username'], 'holder4');
      assert.equal(typeof top!['HodlerNativeBalanceNanos'], 'bigint');
      const all = await hodlersForPublicKey(deps, pending, request(k, { isDAOCoin: kind === 'dao', fetchAll: true }));
      const plain = all.Hodlers.find((h) => h['HODLerPublicKeyBase58Check'] === b58(others[5]!));
      assert.ok(plain !== undefined && !('ProfileEntryResponse' in plain), 'a holder without a profile: the field is omitted');
    });

    it('is-hodling-public-key: true with the entry when the balance is positive, else false and null', async () => {
      const dao = kind === 'dao';
      const yes = await isHodling(deps, pending, others[4]!, k, dao);
      assert.equal(yes.IsHodling, true);
      assert.equal((yes.BalanceEntry as Record<string, unknown>)['BalanceNanosUint256'], `0x${(10n ** 21n).toString(16)}`);
      assert.equal((yes.BalanceEntry as Record<string, unknown>)['ProfileEntryResponse'], undefined);
      assert.deepEqual(await isHodling(deps, pending, others[3]!, k, dao), { IsHodling: false, BalanceEntry: null }, 'emptied in the mempool');
      assert.deepEqual(await isHodling(deps, pending, newKey(), k, dao), { IsHodling: false, BalanceEntry: null });
    });
  });
}

describe('get-hodlers-for-public-key sorting and refusals', () => {
  let deps: AppDeps;
  let view: StateView;
  const k = newKey();
  const [poor, rich, creatorRich] = [newKey(), newKey(), newKey()];

  before(async () => {
    const store = new MemoryStore();
    deps = { config: { network: 'testnet' }, store } as unknown as AppDeps;
    view = StateView.over(store);
    addProfile(view, k, 'kname');
    addProfile(view, creatorRich, 'locked', { creatorCoin: { nanosLocked: 900n, coinsInCirculationNanos: 1n, coinWatermarkNanos: 1n, numberOfHolders: 0n } });
    await hold(view, 'creator', poor, k, 1000n);
    await hold(view, 'creator', rich, k, 10n);
    await hold(view, 'creator', creatorRich, k, 20n);
    setBalance(view, poor, 5n);
    setBalance(view, rich, 1000n);
    setBalance(view, creatorRich, 200n);
  });

  it('wealth: native balance plus the native locked in the listed party\'s own coin, descending', async () => {
    const r = await hodlersForPublicKey(deps, view, request(k, { sortType: 'wealth', fetchAll: true }));
    assert.deepEqual(listed(r, false), [b58(creatorRich), b58(rich), b58(poor)], '1100, 1000, 5');
    const coin = await hodlersForPublicKey(deps, view, request(k, { sortType: 'coin_balance', fetchAll: true }));
    assert.deepEqual(listed(coin, false), [b58(poor), b58(creatorRich), b58(rich)]);
    const page = await hodlersForPublicKey(deps, view, request(k, { sortType: 'wealth', numToFetch: 1n, lastPublicKeyBase58Check: b58(creatorRich) }));
    assert.deepEqual(listed(page, false), [b58(rich)], 'paged after the cursor in wealth order');
  });

  it(`wealth refuses a list longer than ${MAX_WEALTH_SORT_HOLDERS} (400); coin_balance pages it`, async () => {
    const big = StateView.over(new MemoryStore());
    const creator = newKey();
    for (let i = 0; i <= MAX_WEALTH_SORT_HOLDERS; i++) await hold(big, 'creator', newKey(), creator, BigInt(i + 1));
    await assert.rejects(hodlersForPublicKey(deps, big, request(creator, { sortType: 'wealth', numToFetch: 10n })), (e: unknown) => toErrorReply(e).status === 400 && /SortType wealth lists at most/.test((e as Error).message));
    const r = await hodlersForPublicKey(deps, big, request(creator, { numToFetch: 3n }));
    assert.deepEqual(r.Hodlers.map((h) => h['BalanceNanos']), [2001n, 2000n, 1999n]);
  });

  it('an unknown sort type is a 400; a username names K, an unknown one is a 404', async () => {
    await assert.rejects(hodlersForPublicKey(deps, view, request(k, { sortType: 'richest' })), (e: unknown) => toErrorReply(e).status === 400 && (e as Error).message === 'GetHodlersForPublicKey: Unrecognized sort type: richest');
    const byName = await hodlersForPublicKey(deps, view, request(k, { publicKey: null, username: 'KNAME', fetchAll: true }));
    assert.equal(byName.Hodlers.length, 3);
    await assert.rejects(hodlersForPublicKey(deps, view, request(k, { publicKey: null, username: 'nobody' })), (e: unknown) => toErrorReply(e).status === 404 && (e as Error).message === 'GetHodlersForPublicKey: could not find profile for username: nobody');
    await assert.rejects(hodlersForPublicKey(deps, view, request(k, { publicKey: null, username: 'not a name!' })), (e: unknown) => toErrorReply(e).status === 404 && !(e as Error).message.includes('not a name'));
  });
});
