/**
 * Batched admission (issue 18): transactions submitted together are admitted in batches (one
 * duplicate read, one guarded commit, one publish per batch), with the same answers as one at
 * a time: arrival order, a rule breaker refused alone, duplicates inside a batch refused, and
 * two processes admitting batches at once never lose or double a transaction.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain, type ProcessResult } from '../../server/chain/chain.js';
import { decodeHeader, encodeHeader } from '../../server/chain/block/header.js';
import { merkleRoot } from '../../server/chain/block/merkle.js';
import { encodeTxn, txnHash } from '../../server/chain/txn/envelope.js';
import { encodeMetadata, TxnType } from '../../server/chain/txn/metadata.js';
import { chainKeys } from '../../server/chain/state/keys.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { MemoryStore } from '../../server/store/memory.js';
import type { Announcement, Guard, WriteOp } from '../../server/store/types.js';
import { solveHeader } from '../helpers/mining.js';
import { newKey, signedTransfer } from '../helpers/transfers.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
const store = new MemoryStore();
/** Guarded commits that added mempool members, and how many members each added. */
let admissionCommits: number[] = [];
/** Mempool announcements: commits that announced on the mempool channel, and plain publishes. */
let publishes = 0;
const commit = store.commit.bind(store);
store.commit = (ops: readonly WriteOp[], guards?: readonly Guard[], announce?: Announcement) => {
  const add = ops.find((o) => o.op === 'indexAdd' && o.key === 'mempool:order');
  if (add && add.op === 'indexAdd') admissionCommits.push(add.members.length);
  return commit(ops, guards, announce).then((ok) => {
    if (ok && announce?.channel === 'chain:mempool') publishes++;
    return ok;
  });
};
const publish = store.publish.bind(store);
store.publish = (channel: string, message: unknown) => {
  if (channel === 'chain:mempool') publishes++;
  return publish(channel, message);
};
const processA = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
const processB = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });

const alice = newKey();
const bob = newKey();

before(async () => {
  await processA.init();
  const t = await processA.blockTemplate(alice.pk, 1);
  await processA.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
});
after(async () => {
  await store.close();
  await crypto.close();
});
beforeEach(async () => {
  // Each test starts on an empty mempool: mine what the last one left.
  if ((await processA.mempoolSize()) > 0) {
    const t = await processA.blockTemplate(alice.pk, 1);
    await processA.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
  }
  admissionCommits = [];
  publishes = 0;
});

/** Mines the chain's current template, paid to alice. */
async function mine(chain: Chain): Promise<ProcessResult> {
  const t = await chain.blockTemplate(alice.pk, 1);
  return chain.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
}

/** A chain on its own store, past one block (alice holds its reward). */
async function chainOn(own: MemoryStore): Promise<Chain> {
  const chain = new Chain({ store: own, crypto, params: DEV_CHAIN_PARAMS, log });
  await chain.init();
  await mine(chain);
  return chain;
}

/** A transfer to bob, signed, for `on`'s next block. */
const transfer = (amount: bigint, from = alice, on: Chain = processA): Promise<Uint8Array> => signedTransfer(on, crypto, from, bob.pk, amount);

const txnHashHex = (bytes: Uint8Array): string => Buffer.from(txnHash(bytes)).toString('hex');

/** Records the mempool entries read from the store until restored. */
function countMempoolReads(): { keys: string[]; restore: () => void } {
  const getMany = store.getMany;
  const keys: string[] = [];
  store.getMany = <T,>(wanted: readonly string[]) => {
    keys.push(...wanted.filter((k) => k.startsWith('mempool:txn:')));
    return getMany.call(store, wanted) as Promise<(T | undefined)[]>;
  };
  return { keys, restore: () => void (store.getMany = getMany) };
}

const hashOf = (r: PromiseSettledResult<{ hashHex: string }>): string => (r.status === 'fulfilled' ? r.value.hashHex : 'refused');

/** Bob's balance in a chain's pending state, and in a fresh process's (a full replay). */
async function bobPending(chain: Chain): Promise<[bigint | undefined, bigint | undefined]> {
  const fresh = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
  const key = chainKeys.balance(bob.pk);
  return [await (await chain.pendingView()).get<bigint>(key), await (await fresh.pendingView()).get<bigint>(key)];
}

describe('batched admission', () => {
  it('admits transactions submitted together in one commit and one publish, in arrival order', async () => {
    const txns = await Promise.all(Array.from({ length: 20 }, (_, i) => transfer(BigInt(1000 + i))));
    const answers = await Promise.all(txns.map((t) => processA.submitTransaction(t)));
    assert.deepEqual(admissionCommits, [20], 'one guarded commit for the batch');
    assert.equal(publishes, 1, 'one announcement for the batch');
    const order = (await processA.mempool()).map((m) => m.hashHex);
    assert.deepEqual(order, answers.map((a) => a.hashHex), 'the mempool holds them in arrival order');
    const [seen, full] = await bobPending(processA);
    assert.equal(seen, full, 'the extended replay equals a full replay');
    const t = await processA.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.TxnCount, 20);
  });

  it('refuses a rule breaker, a bad signature and a duplicate alone; the rest of the batch is admitted', async () => {
    const good = await Promise.all([transfer(1n), transfer(2n), transfer(3n)]);
    const broke = await transfer(10n ** 16n); // more than alice holds
    const badSig = Uint8Array.from(await transfer(4n));
    badSig[badSig.length - 5]! ^= 1;
    const answers = await Promise.allSettled([good[0]!, broke, good[1]!, badSig, good[1]!, good[2]!].map((t) => processA.submitTransaction(t)));
    const reason = (i: number): string => String((answers[i] as PromiseRejectedResult).reason);
    assert.equal(answers[0]!.status, 'fulfilled');
    assert.match(reason(1), /RuleErrorInsufficientBalance/);
    assert.equal(answers[2]!.status, 'fulfilled');
    assert.match(reason(3), /RuleError/);
    assert.match(reason(4), /RuleErrorDuplicateTxn/, 'the same transaction twice in one batch: the second is a duplicate');
    assert.equal(answers[5]!.status, 'fulfilled');
    assert.deepEqual((await processA.mempool()).map((m) => m.hashHex), [0, 2, 5].map((i) => hashOf(answers[i]! as PromiseSettledResult<{ hashHex: string }>)));
    assert.deepEqual(admissionCommits, [3]);
  });

  it('a transaction spending what an earlier one in its batch spent is refused, as one at a time', async () => {
    const carol = newKey();
    // Fund carol with exactly one transfer's worth (plus fees), then send two at once.
    await processA.submitTransaction(await transfer(0n)); // keeps bob's balance key warm
    await processA.submitTransaction(await signedTransfer(processA, crypto, alice, carol.pk, 10_000n));
    const [a, b] = await Promise.all([transfer(9_000n, carol), transfer(9_000n, carol)]);
    const answers = await Promise.allSettled([processA.submitTransaction(a!), processA.submitTransaction(b!)]);
    assert.equal(answers[0].status, 'fulfilled');
    assert.equal(answers[1].status, 'rejected');
    assert.match(String((answers[1] as PromiseRejectedResult).reason), /RuleErrorInsufficientBalance/);
  });

  it('a transaction another process admitted is a duplicate here, found without a store read per transaction', async () => {
    const [x, y] = await Promise.all([transfer(2500n), transfer(2501n)]);
    await processB.submitTransaction(x!);
    await processA.submitTransaction(y!); // processA's pending state now holds both
    const reads: string[] = [];
    const getMany = store.getMany.bind(store);
    store.getMany = <T,>(keys: readonly string[]) => {
      reads.push(...keys);
      return getMany<T>(keys);
    };
    try {
      await assert.rejects(processA.submitTransaction(x!), (e: Error) => /RuleErrorDuplicateTxn/.test(String(e)) && /already in the mempool/.test(e.message));
    } finally {
      store.getMany = getMany;
    }
    await assert.rejects(processB.submitTransaction(y!), (e: Error) => /RuleErrorDuplicateTxn/.test(String(e)) && /already in the mempool/.test(e.message));
    assert.ok(!reads.some((k) => k.startsWith('mempool:txn:')), `mempool entries read: ${reads.filter((k) => k.startsWith('mempool:txn:')).join(', ')}`);
  });

  it('two processes admitting batches at once lose and double nothing', async () => {
    const txns = await Promise.all(Array.from({ length: 40 }, (_, i) => transfer(BigInt(2000 + i))));
    const answers = await Promise.all(txns.map((t, i) => (i % 2 === 0 ? processA : processB).submitTransaction(t)));
    const held = (await processA.mempool()).map((m) => m.hashHex);
    assert.equal(held.length, 40);
    assert.deepEqual(new Set(held), new Set(answers.map((a) => a.hashHex)));
    for (const chain of [processA, processB]) {
      const [seen, full] = await bobPending(chain);
      assert.equal(seen, full);
    }
    assert.ok(admissionCommits.length < 40, `batched: ${admissionCommits.length} commits for 40 transactions`);
  });
});

describe('templates and blocks from the pending state', () => {
  it('a template record names its transactions by mempool version, not by value: a few hundred bytes for 30 transactions', async () => {
    await Promise.all((await Promise.all(Array.from({ length: 30 }, (_, i) => transfer(BigInt(3000 + i))))).map((t) => processA.submitTransaction(t)));
    const t = await processA.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.TxnCount, 30);
    const stored = await store.getStored(`chain:template:${t.blockId}`);
    assert.ok(stored, 'the record is stored');
    const mempoolBytes = (await processA.mempool()).reduce((n, m) => n + m.bytes.length, 0);
    assert.ok(stored.bytes.length < mempoolBytes / 4, `record ${stored.bytes.length} B for ${mempoolBytes} B of transactions`);
    const r = await processA.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
    assert.equal(r.isMainChain, true);
    assert.equal(await processA.mempoolSize(), 0, 'the block mined every transaction of the template');
  });

  it('a block of mempool transactions verifies no signature again (each was checked at admission)', async () => {
    await Promise.all((await Promise.all(Array.from({ length: 5 }, (_, i) => transfer(BigInt(3500 + i))))).map((t) => processA.submitTransaction(t)));
    const t = await processA.blockTemplate(alice.pk, 1);
    const header = await solveHeader(crypto, t.headers[0]!, t.target);
    const verify = crypto.verifySignatures.bind(crypto);
    let verified = 0;
    crypto.verifySignatures = (items) => {
      verified += items.length;
      return verify(items);
    };
    try {
      assert.equal((await processA.submitBlock(alice.pk, header, t.extraNonces[0]!, t.blockId)).isMainChain, true);
    } finally {
      crypto.verifySignatures = verify;
    }
    assert.equal(verified, 0);
  });

  it('a block with a transaction the mempool never held still has its signature checked', async () => {
    const flipped = Uint8Array.from(await transfer(3600n));
    flipped[flipped.length - 5]! ^= 1;
    const tip = await processA.tip();
    const height = tip.height + 1n;
    const reward = encodeTxn({
      inputs: [],
      outputs: [{ publicKey: alice.pk, amountNanos: 1n }],
      txnType: TxnType.BLOCK_REWARD,
      metadata: encodeMetadata({ type: 'BLOCK_REWARD', extraData: new Uint8Array(0) }),
      publicKey: new Uint8Array(0),
      extraData: [],
      signature: new Uint8Array(0),
      v1: null,
    });
    const t = await processA.blockTemplate(alice.pk, 1); // for the target and a valid time
    const h = decodeHeader(t.headers[0]!);
    const header = encodeHeader({ ...h, height, transactionMerkleRoot: merkleRoot([txnHash(reward), txnHash(flipped)]) });
    await assert.rejects(processA.processBlock(await solveHeader(crypto, header, t.target), [reward, flipped]), /RuleErrorInvalidTransactionSignature/);
    assert.equal((await processA.tip()).hashHex, tip.hashHex);
  });

  it('a template whose transactions a block mined since answers "stale", and writes nothing', async () => {
    await processA.submitTransaction(await transfer(4000n));
    const old = await processA.blockTemplate(alice.pk, 1);
    const fresh = await processB.blockTemplate(alice.pk, 1);
    await processB.submitBlock(alice.pk, await solveHeader(crypto, fresh.headers[0]!, fresh.target), fresh.extraNonces[0]!, fresh.blockId);
    const tip = await processA.tip();
    await assert.rejects(processA.submitBlock(alice.pk, await solveHeader(crypto, old.headers[0]!, old.target), old.extraNonces[0]!, old.blockId), /stale/);
    assert.equal((await processA.tip()).hashHex, tip.hashHex);
  });

  it('a template takes the accepted transactions in arrival order while they fit in a block', async () => {
    const small = new Chain({ store, crypto, params: { ...DEV_CHAIN_PARAMS, minerMaxBlockSizeBytes: 1_000 }, log });
    const answers = await Promise.all((await Promise.all(Array.from({ length: 12 }, (_, i) => transfer(BigInt(5000 + i))))).map((t) => small.submitTransaction(t)));
    const sizes = (await small.mempool()).map((m) => m.bytes.length);
    let fit = 0;
    for (let bytes = 0; fit < sizes.length && bytes + sizes[fit]! <= 1_000; fit++) bytes += sizes[fit]!;
    assert.ok(fit > 0 && fit < 12, `${fit} of 12 fit`);
    const t = await small.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.TxnCount, fit);
    await small.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
    assert.deepEqual((await small.mempool()).map((m) => m.hashHex), answers.slice(fit).map((a) => a.hashHex), 'the rest waits, in order');
  });

  it('a block committing while admissions race moves the mempool version past every admission (none is validated on the old tip)', async () => {
    const before = (await processA.position()).mempoolVersion ?? 0;
    await processA.submitTransaction(await transfer(6000n));
    const t = await processA.blockTemplate(alice.pk, 1);
    const header = await solveHeader(crypto, t.headers[0]!, t.target);
    const racing = Promise.all((await Promise.all(Array.from({ length: 10 }, (_, i) => transfer(BigInt(6100 + i))))).map((x) => processB.submitTransaction(x)));
    const [block] = await Promise.all([processA.submitBlock(alice.pk, header, t.extraNonces[0]!, t.blockId), racing]);
    assert.equal(block.isMainChain, true);
    const versions = (await processA.mempool()).map((m) => m.version);
    assert.equal(new Set(versions).size, versions.length, 'every admission has its own version');
    const after = (await processA.position()).mempoolVersion!;
    assert.ok(after > before + 1 && after >= Math.max(...versions), 'the version moved past every admission');
    const [seen, full] = await bobPending(processB);
    assert.equal(seen, full, 'the pending state equals a full replay on the new tip');
  });

  it('a batch that arrives while this process commits a block waits for it, and commits once, on the new tip', async () => {
    await processA.submitTransaction(await transfer(6500n));
    const t = await processA.blockTemplate(alice.pk, 1);
    const header = await solveHeader(crypto, t.headers[0]!, t.target);
    const late = await transfer(6600n);
    // The store applies commits in the order they are sent, as Redis does: the block's is held
    // until released, and whatever is sent meanwhile waits behind it.
    const counted = store.commit;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let blockSent!: () => void;
    const sent = new Promise<void>((r) => (blockSent = r));
    let queue: Promise<unknown> = Promise.resolve();
    store.commit = (ops, guards, announce) => {
      const isBlock = ops.some((o) => o.key === chainKeys.tip);
      const run = queue.then(async () => {
        if (isBlock) {
          blockSent();
          await held;
        }
        return counted(ops, guards, announce);
      });
      queue = run.catch(() => undefined);
      return run;
    };
    try {
      const block = processA.submitBlock(alice.pk, header, t.extraNonces[0]!, t.blockId);
      await sent;
      admissionCommits = [];
      const admitted = processA.submitTransaction(late);
      // Time enough for an admission that did not wait to connect on the old tip and send its commit.
      await new Promise((r) => setTimeout(r, 30));
      assert.deepEqual(admissionCommits, [], 'nothing sent while the block commits');
      release();
      assert.equal((await block).isMainChain, true);
      assert.equal((await admitted).hashHex, txnHashHex(late));
    } finally {
      store.commit = counted;
    }
    assert.deepEqual(admissionCommits, [1], 'one commit, not one lost to the block and one again');
    assert.deepEqual((await processA.mempool()).map((m) => m.hashHex), [txnHashHex(late)]);
    const [seen, full] = await bobPending(processA);
    assert.equal(seen, full, 'the pending state equals a full replay on the new tip');
  });

  it('a block of this process\'s own template takes its transactions from the pending state, not the store', async () => {
    for (let i = 0; i < 4; i++) await processA.submitTransaction(await transfer(BigInt(6700 + i)));
    const reads = countMempoolReads();
    try {
      assert.equal((await mine(processA)).isMainChain, true);
    } finally {
      reads.restore();
    }
    assert.deepEqual(reads.keys, [], 'no mempool entry read back');
    assert.equal(await processA.mempoolSize(), 0);
  });

  it('another process mining that template reads its transactions from the store', async () => {
    const signed = await Promise.all(Array.from({ length: 3 }, (_, i) => transfer(BigInt(6800 + i))));
    for (const bytes of signed) await processA.submitTransaction(bytes);
    const t = await processA.blockTemplate(alice.pk, 1);
    const header = await solveHeader(crypto, t.headers[0]!, t.target);
    const fresh = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log }); // no pending state of its own
    const reads = countMempoolReads();
    try {
      assert.equal((await fresh.submitBlock(alice.pk, header, t.extraNonces[0]!, t.blockId)).isMainChain, true);
    } finally {
      reads.restore();
    }
    assert.deepEqual([...new Set(reads.keys)].sort(), signed.map((b) => `mempool:txn:${txnHashHex(b)}`).sort());
    assert.equal(await processA.mempoolSize(), 0);
  });
});

describe('admission racing a read that extends the same replay', () => {
  it('a batch whose commit a read already saw is connected once, not twice (no false ReusedNonce, nothing pruned)', async () => {
    const slowStore = new MemoryStore();
    const chain = await chainOn(slowStore);
    const sign = (amount: bigint): Promise<Uint8Array> => transfer(amount, alice, chain);
    await chain.submitTransaction(await sign(1n)); // the cached replay
    // The next admission's commit is applied at once but answers late: a read in that gap
    // sees the new mempool version and extends the cached replay from the store.
    // The read's own store reads are slower still, so it is still extending when the commit answers.
    const commit = slowStore.commit.bind(slowStore);
    const getMany = slowStore.getMany.bind(slowStore);
    let read: Promise<unknown> | null = null;
    slowStore.commit = async (ops, guards, announce) => {
      const ok = await commit(ops, guards, announce);
      if (ops.some((o) => o.key === 'mempool:order')) read ??= chain.pendingView();
      await new Promise((r) => setTimeout(r, 20));
      return ok;
    };
    slowStore.getMany = async <T,>(keys: readonly string[]) => {
      if (read !== null && keys.some((k) => k.startsWith('mempool:txn:'))) await new Promise((r) => setTimeout(r, 60));
      return getMany<T>(keys);
    };
    await Promise.all([sign(2n), sign(3n)].map(async (t) => chain.submitTransaction(await t)));
    await read;
    slowStore.commit = commit;
    slowStore.getMany = getMany;
    const t = await chain.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.FailingTxnError, 'You good', 'no transaction fails in the pending state');
    assert.equal(t.stats.TxnCount, 3);
    const r = await chain.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
    assert.equal(r.isMainChain, true, 'the template is not stale');
    assert.equal(await chain.mempoolSize(), 0);
    await slowStore.close();
  });
});

describe('a full replay racing an admission of another process', () => {
  it('replays only what was admitted up to the version it is of, so a later extension does not connect an admission twice', async () => {
    const raceStore = new MemoryStore();
    const a = await chainOn(raceStore);
    const b = new Chain({ store: raceStore, crypto, params: DEV_CHAIN_PARAMS, log });
    const sign = (amount: bigint): Promise<Uint8Array> => transfer(amount, alice, a);
    await b.submitTransaction(await sign(1n));
    const late = await sign(2n);
    // Process B admits between process A's read of the position and its read of the order.
    const indexRange = raceStore.indexRange.bind(raceStore);
    let raced = false;
    raceStore.indexRange = async (key, range) => {
      if (key === 'mempool:order' && range?.gte === undefined && !raced) {
        raced = true;
        await b.submitTransaction(late);
      }
      return indexRange(key, range);
    };
    const c = new Chain({ store: raceStore, crypto, params: DEV_CHAIN_PARAMS, log }); // no cached replay yet
    await c.pendingView(); // a full replay, of the version before B's admission
    raceStore.indexRange = indexRange;
    assert.ok(raced);
    const t = await c.blockTemplate(alice.pk, 1); // extends that replay to B's admission
    assert.equal(t.stats.FailingTxnError, 'You good', 'B\'s admission is connected once');
    assert.equal(t.stats.TxnCount, 2);
    assert.equal((await c.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId)).isMainChain, true);
    await raceStore.close();
  });
});
