/**
 * Chain.pendingChanges: which state keys may differ between two points of the pending state
 * (what the read cache drops). Two Chain instances over one store stand for two processes, so
 * admissions and blocks of "another process" are covered as well as a process's own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain, type PendingPoint } from '../../server/chain/chain.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { MemoryStore } from '../../server/store/memory.js';
import { solveHeader } from '../helpers/mining.js';
import { newKey, signedTransfer, type TestKey } from '../helpers/transfers.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
const store = new MemoryStore();
const own = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
const other = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });

const alice = newKey();
const bob = newKey();
const carol = newKey();
const minerKey = newKey();

async function mine(chain: Chain): Promise<void> {
  const t = await chain.blockTemplate(minerKey.pk, 1);
  const r = await chain.submitBlock(minerKey.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
  assert.ok(r.isMainChain, 'the block connected');
}

const transfer = (from: TestKey, to: TestKey, amount: bigint): Promise<Uint8Array> => signedTransfer(own, crypto, from, to.pk, amount);

/** Keys of a transfer: both balances and the sender's nonce. */
const touches = (changed: ReadonlySet<string>, pk: Uint8Array): boolean => changed.has(chainKeys.balance(pk));
const nonceKeys = (changed: ReadonlySet<string>): string[] => [...changed].filter((k) => k.startsWith(chainKeys.nonceOfText('')));

let point: PendingPoint;

before(async () => {
  await own.init();
  // Alice holds block rewards to send from.
  const t = await own.blockTemplate(alice.pk, 1);
  await own.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
});
after(async () => {
  await store.close();
  await crypto.close();
});

describe('Chain.pendingChanges', () => {
  it('has no bound on a first call, and an empty one when nothing happened', async () => {
    const first = await own.pendingChanges(null);
    assert.equal(first.changed, null, 'no earlier point: unbounded');
    const again = await own.pendingChanges(first.point);
    assert.deepEqual([...again.changed!], [], 'nothing changed');
    point = again.point;
  });

  it('names exactly what this process\'s own admission wrote', async () => {
    await own.submitTransaction(await transfer(alice, bob, 1000n));
    const { point: next, changed } = await own.pendingChanges(point);
    assert.ok(changed !== null, 'admissions are bounded');
    assert.ok(touches(changed, alice.pk) && touches(changed, bob.pk), `both balances: ${[...changed].join(', ')}`);
    assert.equal(nonceKeys(changed).length, 1, 'and the sender\'s nonce');
    assert.ok(!touches(changed, carol.pk), 'an untouched account is not named');
    assert.equal(next.version, (point.version ?? 0) + 1);
    point = next;
  });

  it('names what another process admitted (its replay extended, not rebuilt)', async () => {
    await other.submitTransaction(await transfer(alice, carol, 2000n));
    await other.submitTransaction(await transfer(alice, carol, 3000n));
    const { point: next, changed } = await own.pendingChanges(point);
    assert.ok(changed !== null, 'bounded');
    assert.ok(touches(changed, carol.pk), 'the receiver of the other process\'s transfers');
    assert.ok(!touches(changed, bob.pk), 'bob was not written since the last point');
    assert.equal(nonceKeys(changed).length, 2, 'two admissions, two nonces');
    point = next;
  });

  it('bounds a block mined by another process: its writes and both mempools', async () => {
    await other.submitTransaction(await transfer(alice, bob, 4000n));
    await mine(other);
    const { point: next, changed } = await own.pendingChanges(point);
    assert.ok(changed !== null, 'a block with its written-key list is bounded');
    assert.ok(touches(changed, minerKey.pk), 'the block reward\'s receiver');
    assert.ok(changed.has(chainKeys.tip), 'the tip');
    assert.ok(touches(changed, bob.pk), 'the mined transfer');
    assert.equal(next.height, point.height + 1n);
    assert.equal(await own.mempoolSize(), 0, 'the block took the whole mempool');
    point = next;
  });

  it('has no bound when a block\'s written-key list is gone', async () => {
    await mine(other);
    const tip = await own.tip();
    await store.commit([{ op: 'del', key: chainKeys.blockWrites(tip.height) }]);
    const { point: next, changed } = await own.pendingChanges(point);
    assert.equal(changed, null, 'unknown writes: everything may have changed');
    point = next;
  });

  it('bounds the same tip across a rebuilt replay by both replays\' writes', async () => {
    await own.submitTransaction(await transfer(alice, bob, 5000n));
    const mid = (await own.pendingChanges(point)).point;
    // A third process's view of the same chain: its first point is a full replay.
    const third = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
    const start = (await third.pendingChanges(null)).point;
    await own.submitTransaction(await transfer(alice, carol, 6000n));
    const { changed } = await third.pendingChanges(start);
    assert.ok(changed !== null && touches(changed, carol.pk), 'the new admission is named');
    assert.ok(mid.writes !== start.writes, 'two replay lineages');
  });

  it('keeps the written-key lists of the last 33 blocks only: bounded by count, whatever the write rate', async () => {
    for (let i = 0; i < 36; i++) await mine(own);
    const tip = await own.tip();
    const lists = await store.keys('chain:blockwrites:');
    assert.equal(lists.length, 33, `${lists.length} lists kept`);
    assert.ok(await store.get(chainKeys.blockWrites(tip.height - 32n)), 'the oldest a bound can use is kept');
    assert.equal(await store.get(chainKeys.blockWrites(tip.height - 33n)), undefined, 'the one before it is gone');
    const { changed } = await own.pendingChanges({ ...point, tipHashHex: (await store.get<string>(chainKeys.hashAtHeight(tip.height - 32n)))!, height: tip.height - 32n });
    assert.ok(changed !== null, '32 blocks back is still bounded');
  });
});
