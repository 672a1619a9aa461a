/**
 * The chain behind the API, in process (memory store, inline crypto): genesis, templates,
 * proof of work, submit-block, the mempool and the balance model (reference node-api.md §4.3,
 * §5.1–5.7), with the rejections the issue lists.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { decodeHeader, encodeHeader } from '../../server/chain/block/header.js';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain, ChainRequestError } from '../../server/chain/chain.js';
import { constructTxn } from '../../server/chain/construct.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { decodeTxn, withSignature } from '../../server/chain/txn/envelope.js';
import { TxnDecodeError } from '../../server/chain/txn/errors.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { signTransaction } from '../../server/identity/signTxn.js';
import { openStore } from '../../server/store/index.js';
import type { Store } from '../../server/store/types.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { solvedBlock, solveHeader } from '../helpers/mining.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
let store: Store;
let chain: Chain;

interface Key {
  secret: Uint8Array;
  pk: Uint8Array;
}
const newKey = (): Key => {
  const secret = new Uint8Array(randomBytes(32));
  return { secret, pk: getPublicKey(secret, true) };
};
const alice = newKey();
const bob = newKey();
const NONCE_OFFSET = 84;

before(async () => {
  store = await openStore({});
  chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
  await chain.init();
});
after(async () => {
  await store.close();
  await crypto.close();
});

/** Solves a template's first header with the pool's miner and submits it. */
async function mine(reward: Key = alice): Promise<{ isMainChain: boolean; isOrphan: boolean; hashHex: string }> {
  const t = await chain.blockTemplate(reward.pk, 1);
  const header = solve(t.headers[0]!, t.target);
  return chain.submitBlock(reward.pk, await header, t.extraNonces[0]!, t.blockId);
}

const solve = (header: Uint8Array, target: Uint8Array): Promise<Uint8Array> => solveHeader(crypto, header, target);

async function transfer(from: Key, to: Uint8Array, amount: bigint, opts: { feeRate?: bigint; tamper?: (b: Uint8Array) => Uint8Array } = {}): Promise<Uint8Array> {
  const tip = await chain.tip();
  const c = constructTxn({
    publicKey: from.pk,
    metadata: { type: 'BASIC_TRANSFER' },
    outputs: [{ publicKey: to, amountNanos: amount }],
    minFeeRateNanosPerKB: opts.feeRate ?? 1000n,
    networkMinFeeRateNanosPerKB: DEV_CHAIN_PARAMS.minNetworkFeeNanosPerKB,
    tipHeight: tip.height,
    maxNonceExpirationBlockHeightOffset: DEV_CHAIN_PARAMS.maxNonceExpirationBlockHeightOffset,
  });
  const signed = await signTransaction(crypto, c.bytes, from.secret, { derived: false });
  return opts.tamper ? opts.tamper(signed) : signed;
}

async function rejects(p: Promise<unknown>, code: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: Error) => {
    const text = e instanceof RuleError ? e.code : e.message;
    return typeof code === 'string' ? text === code : code.test(text);
  });
}

describe('chain: genesis and mining', () => {
  it('a fresh chain has its genesis at height 0', async () => {
    const tip = await chain.tip();
    assert.equal(tip.height, 0n);
    assert.equal(tip.targetHex, DEV_CHAIN_PARAMS.minDifficultyTargetHex);
  });

  it('a solved template connects: height 1, the reward key is paid 1e9 nanos', async () => {
    const r = await mine(alice);
    assert.deepEqual([r.isMainChain, r.isOrphan], [true, false]);
    assert.equal((await chain.tip()).height, 1n);
    assert.equal(await chain.balance(alice.pk), 1_000_000_000n);
  });

  it('a template reports "You good" / "Nada" when nothing fails', async () => {
    const t = await chain.blockTemplate(alice.pk, 3);
    assert.equal(t.headers.length, 3);
    assert.equal(new Set(t.extraNonces.map(String)).size, 3, 'one extra nonce per header');
    assert.equal(t.stats.FailingTxnError, 'You good');
    assert.equal(t.stats.FailingTxnHash, 'Nada');
    const h = decodeHeader(t.headers[0]!);
    assert.equal(h.height, 2n);
    assert.equal(h.version, 1);
  });
});

describe('chain: transactions through the mempool', () => {
  it('a transfer enters the mempool and is mined: balances move, the miner earns the fee', async () => {
    const bytes = await transfer(alice, bob.pk, 250_000_000n);
    const fee = decodeTxn(bytes).v1!.feeNanos;
    assert.ok(fee > 0n, 'a fee is charged at 1000 nanos/KB');
    const r = await chain.submitTransaction(bytes);
    assert.match(r.hashHex, /^[0-9a-f]{64}$/);
    assert.equal((await chain.mempool()).length, 1);
    const t = await chain.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.TxnCount, 1);
    assert.ok((await mine(alice)).isMainChain, 'mined');
    assert.equal(await chain.balance(bob.pk), 250_000_000n);
    // Alice: 1e9 - 2.5e8 - fee + (1e9 reward + fee back as the miner)
    assert.equal(await chain.balance(alice.pk), 2_000_000_000n - 250_000_000n);
    assert.equal((await chain.mempool()).length, 0, 'mined transactions leave the mempool');
  });

  it('rejects a duplicate, a bad signature, a high-S signature, an unsigned txn and malformed bytes', async () => {
    const bytes = await transfer(alice, bob.pk, 1n);
    await chain.submitTransaction(bytes);
    await rejects(chain.submitTransaction(bytes), 'RuleErrorDuplicateTxn');
    const flipped = await transfer(alice, bob.pk, 2n, {
      tamper: (b) => {
        const t = decodeTxn(b);
        const sig = t.signature.slice();
        sig[sig.length - 1]! ^= 1;
        return withSignature(b, sig);
      },
    });
    await rejects(chain.submitTransaction(flipped), 'RuleErrorInvalidTransactionSignature');
    const unsigned = withSignature(await transfer(alice, bob.pk, 3n), new Uint8Array(0));
    await rejects(chain.submitTransaction(unsigned), 'RuleErrorInvalidTransactionSignature');
    const byBob = await transfer(bob, alice.pk, 1n);
    const stolen = withSignature(await transfer(alice, bob.pk, 4n), decodeTxn(byBob).signature);
    await rejects(chain.submitTransaction(stolen), 'RuleErrorInvalidTransactionSignature');
    await assert.rejects(chain.submitTransaction(Uint8Array.of(1, 2, 3)), TxnDecodeError);
    await mine(alice);
  });

  it('rejects a spent nonce after mining and an overspend', async () => {
    const bytes = await transfer(bob, alice.pk, 1_000n);
    await chain.submitTransaction(bytes);
    await mine(alice);
    // Same nonce, different content: the nonce is spent.
    const t = decodeTxn(bytes);
    const again = constructTxn({
      publicKey: bob.pk,
      metadata: { type: 'BASIC_TRANSFER' },
      outputs: [{ publicKey: alice.pk, amountNanos: 2_000n }],
      minFeeRateNanosPerKB: 1000n,
      networkMinFeeRateNanosPerKB: 0n,
      tipHeight: 0n,
      maxNonceExpirationBlockHeightOffset: DEV_CHAIN_PARAMS.maxNonceExpirationBlockHeightOffset,
    });
    const sameNonce = { ...again.fields, v1: { ...again.fields.v1!, nonceExpirationBlockHeight: t.v1!.nonceExpirationBlockHeight, noncePartialId: t.v1!.noncePartialId } };
    const { encodeTxn } = await import('../../server/chain/txn/envelope.js');
    const signed = await signTransaction(crypto, encodeTxn(sameNonce), bob.secret, { derived: false });
    await rejects(chain.submitTransaction(signed), 'RuleErrorReusedNonce');
    await rejects(chain.submitTransaction(await transfer(bob, alice.pk, 10_000_000_000n)), 'RuleErrorInsufficientBalance');
    const nobody = newKey();
    await rejects(chain.submitTransaction(await transfer(nobody, alice.pk, 1n)), 'RuleErrorInsufficientBalance');
  });

  it('mempool transactions chain on each other\'s balances (a receives then spends before mining)', async () => {
    const carol = newKey();
    await chain.submitTransaction(await transfer(alice, carol.pk, 5_000_000n));
    await chain.submitTransaction(await transfer(carol, bob.pk, 1_000_000n));
    await rejects(chain.submitTransaction(await transfer(carol, bob.pk, 5_000_000n)), 'RuleErrorInsufficientBalance');
    await mine(alice);
    assert.ok((await chain.balance(carol.pk)) > 3_000_000n, 'carol kept the rest');
  });

  it('concurrent admissions that spend the same coins: exactly one gets in', async () => {
    const dave = newKey();
    await chain.submitTransaction(await transfer(alice, dave.pk, 1_000_000n));
    await mine(alice);
    // Each spends 600,000 of dave's 1,000,000: any two together overspend.
    const signed = await Promise.all(Array.from({ length: 12 }, () => transfer(dave, bob.pk, 600_000n)));
    const results = await Promise.allSettled(signed.map((b) => chain.submitTransaction(b)));
    const admitted = results.filter((r) => r.status === 'fulfilled').length;
    assert.equal(admitted, 1, `one admitted, the rest refused: ${results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message.slice(0, 40) : 'ok')).join(' | ')}`);
    for (const r of results) if (r.status === 'rejected') assert.match((r.reason as Error).message, /RuleErrorInsufficientBalance|the mempool changed during each of/);
    const t = await chain.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.TxnCount, 1, 'the template holds the one admitted transfer');
    assert.equal(t.stats.FailingTxnError, 'You good');
    await mine(alice);
    assert.ok((await chain.balance(dave.pk)) < 400_000n, 'dave spent once');
  });

  it('a template after many admissions holds exactly the admitted transactions, in order', async () => {
    const before = (await chain.blockTemplate(alice.pk, 1)).stats.TxnCount;
    const hashes: string[] = [];
    for (let i = 0; i < 30; i++) hashes.push((await chain.submitTransaction(await transfer(alice, bob.pk, BigInt(1000 + i)))).hashHex);
    const t = await chain.blockTemplate(alice.pk, 1);
    assert.equal(t.stats.TxnCount, before + 30);
    assert.deepEqual((await chain.mempool()).slice(-30).map((m) => m.hashHex), hashes);
    await mine(alice);
    assert.equal((await chain.mempool()).length, 0, 'all mined');
  });
});

describe('chain: submit-block rejections', () => {
  it('bad proof of work is refused and nothing changes', async () => {
    const before = await chain.tip();
    const t = await chain.blockTemplate(alice.pk, 1);
    // Find a nonce whose hash misses the target.
    let header = t.headers[0]!;
    for (let n = 0n; ; n++) {
      const h = header.slice();
      new DataView(h.buffer).setBigUint64(NONCE_OFFSET, n);
      const [hash] = await crypto.hashHeaders([h]);
      if (Buffer.compare(Buffer.from(hash!), Buffer.from(t.target)) > 0) {
        header = h;
        break;
      }
    }
    await assert.rejects(chain.submitBlock(alice.pk, header, t.extraNonces[0]!, t.blockId), (e: Error) => e instanceof ChainRequestError && /proof of work/.test(e.message));
    assert.deepEqual(await chain.tip(), before);
  });

  it('a wrong merkle root (another extra nonce, or another reward key) is refused', async () => {
    const t = await chain.blockTemplate(alice.pk, 2);
    const solved = await solve(t.headers[0]!, t.target);
    await assert.rejects(chain.submitBlock(alice.pk, solved, t.extraNonces[1]!, t.blockId), /merkle root/);
    await assert.rejects(chain.submitBlock(bob.pk, solved, t.extraNonces[0]!, t.blockId), /merkle root/);
  });

  it('an unknown BlockID, a malformed header and version 0 are refused', async () => {
    const t = await chain.blockTemplate(alice.pk, 1);
    await assert.rejects(chain.submitBlock(alice.pk, t.headers[0]!, t.extraNonces[0]!, 'ab'.repeat(32)), /not found/);
    await assert.rejects(chain.submitBlock(alice.pk, t.headers[0]!.subarray(1), t.extraNonces[0]!, t.blockId), /header/);
    const v0 = t.headers[0]!.slice();
    v0[3] = 0;
    await assert.rejects(chain.submitBlock(alice.pk, v0, t.extraNonces[0]!, t.blockId), /header/);
  });

  it('a stale template (the tip moved) lands on a side branch: IsMainChain false', async () => {
    const stale = await chain.blockTemplate(alice.pk, 1);
    const staleSolved = await solve(stale.headers[0]!, stale.target);
    assert.ok((await mine(bob)).isMainChain, 'someone else extends the tip first');
    const tip = await chain.tip();
    const r = await chain.submitBlock(alice.pk, staleSolved, stale.extraNonces[0]!, stale.blockId);
    assert.deepEqual([r.isMainChain, r.isOrphan], [false, false]);
    assert.deepEqual(await chain.tip(), tip, 'the tip stays');
  });

  it('an orphan (unknown parent) answers IsOrphan', async () => {
    const t = await chain.blockTemplate(alice.pk, 1);
    const h = decodeHeader(t.headers[0]!);
    const orphan = encodeHeader({ ...h, prevBlockHash: new Uint8Array(randomBytes(32)) });
    const r = await chain.processBlock(orphan, []);
    assert.deepEqual([r.isMainChain, r.isOrphan], [false, true]);
  });
});

describe('chain: block timestamps', () => {
  /** A chain on a memory store whose clock stands still at `nowSecs`. */
  async function chainAt(nowSecs: bigint, params = DEV_CHAIN_PARAMS): Promise<{ chain: Chain; close: () => Promise<void> }> {
    const s = await openStore({});
    const c = new Chain({ store: s, crypto, params, log, now: () => Number(nowSecs) * 1000 });
    await c.init();
    return { chain: c, close: () => s.close() };
  }
  const tipStamp = async (c: Chain): Promise<bigint> => decodeHeader((await c.blockTemplate(alice.pk, 1)).headers[0]!).tstampSecs;
  const NOW = 1_900_000_000n;
  const CORE_STEP = { ...DEV_CHAIN_PARAMS, minSecsAfterParent: 1n };

  it('dev chain: blocks mined within one second share it, so the chain keeps to the clock', async () => {
    const { chain: c, close } = await chainAt(NOW);
    try {
      for (let i = 0; i < 5; i++) {
        const b = await solvedBlock(c, crypto, alice.pk, [], i + 1);
        assert.equal(decodeHeader(b.header).tstampSecs, NOW);
        assert.ok((await c.processBlock(b.header, b.txns)).isMainChain);
      }
      assert.equal((await c.tip()).height, 5n);
      assert.equal(await tipStamp(c), NOW, 'the next template is still on the clock');
    } finally {
      await close();
    }
  });

  it('core rule (a step of 1 s): each block is a second past its parent, so fast blocks run ahead of the clock', async () => {
    const { chain: c, close } = await chainAt(NOW, CORE_STEP);
    try {
      for (let i = 0n; i < 3n; i++) {
        const b = await solvedBlock(c, crypto, alice.pk, [], Number(i) + 1);
        assert.equal(decodeHeader(b.header).tstampSecs, NOW + i);
        assert.ok((await c.processBlock(b.header, b.txns)).isMainChain);
      }
      assert.equal(await tipStamp(c), NOW + 3n);
    } finally {
      await close();
    }
  });

  it('refuses a block before its parent (dev), or not after it (core rule), and one too far past the clock', async () => {
    for (const [params, equalOk] of [[DEV_CHAIN_PARAMS, true], [CORE_STEP, false]] as const) {
      const { chain: c, close } = await chainAt(NOW, params);
      try {
        const first = await solvedBlock(c, crypto, alice.pk, [], 1);
        assert.ok((await c.processBlock(first.header, first.txns)).isMainChain);
        const parent = decodeHeader(first.header).tstampSecs;
        const before = await solvedBlock(c, crypto, alice.pk, [], 2, parent - 1n);
        await assert.rejects(c.processBlock(before.header, before.txns), (e: Error) => e instanceof ChainRequestError && /timestamp is (before|not after) its parent/.test(e.message));
        const equal = await solvedBlock(c, crypto, alice.pk, [], 3, parent);
        if (equalOk) assert.ok((await c.processBlock(equal.header, equal.txns)).isMainChain);
        else await assert.rejects(c.processBlock(equal.header, equal.txns), /timestamp is not after its parent/);
        const future = await solvedBlock(c, crypto, alice.pk, [], 4, NOW + params.maxTimestampFutureSecs + 1n);
        await assert.rejects(c.processBlock(future.header, future.txns), /too far in the future/);
      } finally {
        await close();
      }
    }
  });
});
