/**
 * A store that stops answering never turns into a partial answer (issue 17): where the
 * reference swallows per-item failures (get-users-stateless's per-user fill, the mempool
 * replay's per-transaction failures), an unavailable store still fails the whole call, which
 * the one error table answers 503 with Retry-After.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { AppDeps } from '../../server/app.js';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { toErrorReply } from '../../server/http/errors.js';
import { decodePublicKey, encodePublicKey } from '../../server/keys/index.js';
import { usersStateless } from '../../server/social/users.js';
import { MemoryStore } from '../../server/store/memory.js';
import { isStoreUnavailable, StoreError, type Store } from '../../server/store/types.js';
import { solveHeader } from '../helpers/mining.js';
import { newKey, signedTransfer } from '../helpers/transfers.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
const READS = new Set(['get', 'getMany', 'getCounter', 'indexRange', 'indexSize', 'keys']);

/**
 * A memory store whose reads can be made to fail: from the `failFrom`-th read counted since
 * `arm()` on (a cut), with what `error()` makes.
 */
class FlakyReads {
  readonly inner = new MemoryStore();
  reads = 0;
  failFrom = Infinity;
  /** Only reads of this key fail, when set. */
  onlyKey: string | null = null;
  error: () => Error = () => new StoreError('STORE_UNAVAILABLE', 'Redis at redis://127.0.0.1:1 unavailable (GET): no reply within 1000 ms');
  readonly store: Store = new Proxy(this.inner, {
    get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (!READS.has(String(prop))) return value.bind(target);
      return (...args: unknown[]) => {
        const keys = prop === 'getMany' ? (args[0] as string[]) : [args[0] as string];
        if (this.onlyKey !== null && !keys.includes(this.onlyKey)) return value.apply(target, args);
        if (++this.reads >= this.failFrom) return Promise.reject(this.error());
        return value.apply(target, args);
      };
    },
  });

  arm(failFrom: number, onlyKey: string | null = null): void {
    this.reads = 0;
    this.failFrom = failFrom;
    this.onlyKey = onlyKey;
  }
}


async function mineTo(chain: Chain, pk: Uint8Array): Promise<void> {
  const t = await chain.blockTemplate(pk, 1);
  await chain.submitBlock(pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
}

after(async () => {
  await crypto.close();
});

describe('get-users-stateless with a store that stops answering', () => {
  const flaky = new FlakyReads();
  const chain = new Chain({ store: flaky.store, crypto, params: DEV_CHAIN_PARAMS, log });
  const alice = newKey();
  const alicePk = encodePublicKey(alice.pk, 'testnet');
  const deps = {
    config: { network: 'testnet', adminPublicKeys: [], superAdminPublicKeys: [] },
    store: flaky.store,
    chain,
    log,
  } as unknown as AppDeps;
  const request = { publicKeys: [alicePk], skipForLeaderboard: false, includeBalance: false, reader: null };
  const decode = (s: string): Uint8Array | null => decodePublicKey(s, 'testnet', 'key');

  before(async () => {
    await chain.init();
    await mineTo(chain, alice.pk);
  });

  it('a full answer while the store answers', async () => {
    flaky.arm(Infinity);
    const state = await chain.pendingView();
    const r = await usersStateless(deps, state, request, decode);
    const user = (r['UserList'] as Record<string, unknown>[])[0]!;
    assert.ok((user['BalanceNanos'] as bigint) > 0n, 'the block reward');
    assert.deepEqual(user['UsersYouHODL'], []);
    assert.deepEqual(user['BlockedPubKeys'], {});
    assert.equal(user['CanCreateProfile'], true);
  });

  it('fails with the store (503, Retry-After) whichever read the cut hits, never a half-filled user', async () => {
    flaky.arm(Infinity);
    const state = await chain.pendingView();
    await usersStateless(deps, state, request, decode);
    const total = flaky.reads;
    assert.ok(total >= 5, `a user's fill makes several reads (${total})`);
    for (let n = 1; n <= total; n++) {
      const view = await chain.pendingView();
      flaky.arm(n);
      await assert.rejects(usersStateless(deps, view, request, decode), (err: unknown) => {
        assert.ok(isStoreUnavailable(err), `read ${n} of ${total} failing: ${String(err)}`);
        const reply = toErrorReply(err, log);
        assert.equal(reply.status, 503);
        assert.equal(reply.headers['Retry-After'], '1');
        return true;
      }, `read ${n} of ${total} failing answered anyway`);
    }
    flaky.arm(Infinity);
  });

  it('keeps the reference\'s partial user for a failure that is not the store\'s', async () => {
    const state = await chain.pendingView();
    flaky.arm(3);
    flaky.error = () => new TypeError('a record that does not decode');
    try {
      const r = await usersStateless(deps, state, request, decode);
      const user = (r['UserList'] as Record<string, unknown>[])[0]!;
      assert.equal(user['PublicKeyBase58Check'], alicePk);
    } finally {
      flaky.arm(Infinity);
      flaky.error = new FlakyReads().error;
    }
  });
});

describe('the mempool replay with a store that stops answering', () => {
  it('fails instead of leaving the transaction out, and a later replay includes it', async () => {
    const flaky = new FlakyReads();
    const writer = new Chain({ store: flaky.store, crypto, params: DEV_CHAIN_PARAMS, log });
    await writer.init();
    const alice = newKey();
    const bob = newKey();
    await mineTo(writer, alice.pk);
    await writer.submitTransaction(await signedTransfer(writer, crypto, alice, bob.pk, 5000n));

    // Another process (no cached replay) replays the mempool while the store is cut: the read
    // of bob's balance, inside the transfer's connect, fails.
    const reader = new Chain({ store: flaky.store, crypto, params: DEV_CHAIN_PARAMS, log });
    await reader.init();
    flaky.arm(1, chainKeys.balance(bob.pk));
    await assert.rejects(reader.pendingView(), (err: unknown) => isStoreUnavailable(err));
    flaky.arm(Infinity);
    const view = await reader.pendingView();
    assert.equal(await view.get<bigint>(chainKeys.balance(bob.pk)), 5000n, 'the transfer is in the pending state once the store answers');
  });
});
