/**
 * Block templates cost what differs per header, not the mempool per header (issue 17, item 3):
 * the transactions' merkle path is computed once per template in the crypto pool, each header
 * adds only its reward transaction and one hash per tree level, and every subscriber of the
 * miner feed shares one read of a published template.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { decodeHeader, HEADER_OFFSETS } from '../../server/chain/block/header.js';
import { merkleRoot, rootFromFirstLeafPath } from '../../server/chain/block/merkle.js';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain, ChainRequestError } from '../../server/chain/chain.js';
import { constructTxn } from '../../server/chain/construct.js';
import { MinerFeed, type FeedSocket } from '../../server/chain/minerFeed.js';
import { decodeTxn, encodeTxn, txnHash } from '../../server/chain/txn/envelope.js';
import { encodeMetadata, TxnType } from '../../server/chain/txn/metadata.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import { blockRewardNanos } from '../../server/chain/block/reward.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { signTransaction } from '../../server/identity/signTxn.js';
import { openStore } from '../../server/store/index.js';
import type { Store } from '../../server/store/types.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { solveHeader } from '../helpers/mining.js';
import { until } from '../helpers/until.js';

const log = pino({ level: 'silent' });

/** Inline crypto that counts the merkle paths it computes (one per template's transactions). */
class CountingCrypto extends InlineCrypto {
  merklePaths = 0;
  leavesHashed = 0;
  override merklePath(otherLeaves: readonly Uint8Array[]): Promise<Uint8Array[]> {
    this.merklePaths++;
    this.leavesHashed += otherLeaves.length;
    return super.merklePath(otherLeaves);
  }
}

/** A store whose reads of template records are counted. */
function countingStore(store: Store): { store: Store; templateReads: () => number; templateWrites: () => number } {
  let reads = 0;
  let writes = 0;
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'get' || prop === 'set') {
        return (key: string, ...rest: unknown[]) => {
          if (key.startsWith('chain:template:')) prop === 'get' ? reads++ : writes++;
          return (target[prop] as (...a: unknown[]) => unknown)(key, ...rest);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: proxy, templateReads: () => reads, templateWrites: () => writes };
}

describe('merkle path of the first leaf', () => {
  const leaf = (i: number): Uint8Array => sha256d(Uint8Array.of(i, i >> 8));
  // The pool's merklePath task, run on this thread as InlineCrypto runs every task.
  const inline = new InlineCrypto();
  after(() => inline.close());
  for (let n = 0; n <= 40; n++) {
    it(`${n} other leaves: the root from the path equals the full tree's`, async () => {
      const rest = Array.from({ length: n }, (_, i) => leaf(i + 1));
      const path = await inline.merklePath(rest);
      for (const first of [leaf(1000), leaf(1001)]) {
        assert.deepEqual(rootFromFirstLeafPath(first, path), merkleRoot([first, ...rest]));
      }
    });
  }
});

describe('block templates', () => {
  const crypto = new CountingCrypto();
  let base: Store;
  let counted: ReturnType<typeof countingStore>;
  let chain: Chain;
  const key = (): { secret: Uint8Array; pk: Uint8Array } => {
    const secret = new Uint8Array(randomBytes(32));
    return { secret, pk: getPublicKey(secret, true) };
  };
  const alice = key();
  /** The mempool's transactions, in order. */
  const txns: Uint8Array[] = [];

  before(async () => {
    base = await openStore({});
    counted = countingStore(base);
    chain = new Chain({ store: counted.store, crypto, params: DEV_CHAIN_PARAMS, log });
    await chain.init();
    const t = await chain.blockTemplate(alice.pk, 1);
    await chain.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
    // Seven transfers in the mempool: an odd count, so the tree doubles a last node.
    for (let i = 0; i < 7; i++) txns.push(await transfer());
  });

  /** A signed transfer from alice, admitted to the mempool. */
  async function transfer(): Promise<Uint8Array> {
    const c = constructTxn({
      publicKey: alice.pk,
      metadata: { type: 'BASIC_TRANSFER' },
      outputs: [{ publicKey: key().pk, amountNanos: 1000n }],
      minFeeRateNanosPerKB: 1000n,
      networkMinFeeRateNanosPerKB: 0n,
      tipHeight: (await chain.tip()).height,
      maxNonceExpirationBlockHeightOffset: DEV_CHAIN_PARAMS.maxNonceExpirationBlockHeightOffset,
    });
    const signed = await signTransaction(crypto, c.bytes, alice.secret, { derived: false });
    await chain.submitTransaction(signed);
    return signed;
  }
  after(async () => {
    await base.close();
    await crypto.close();
  });

  /** The merkle root every header had before: the full tree over the reward and every transaction. */
  function fullTreeRoot(rewardPk: Uint8Array, extraNonce: bigint, height: bigint, feesNanos: bigint): Uint8Array {
    const reward = encodeTxn({
      inputs: [],
      outputs: [{ publicKey: rewardPk, amountNanos: blockRewardNanos(height, DEV_CHAIN_PARAMS) + feesNanos }],
      txnType: TxnType.BLOCK_REWARD,
      metadata: encodeMetadata({ type: 'BLOCK_REWARD', extraData: encodeUvarint(extraNonce) }),
      publicKey: new Uint8Array(0),
      extraData: [],
      signature: new Uint8Array(0),
      v1: null,
    });
    return merkleRoot([txnHash(reward), ...txns.map((t) => txnHash(t))]);
  }

  it('many headers: the transactions are hashed into one merkle path, and every root equals the full tree\'s', async () => {
    const before = crypto.merklePaths;
    const t = await chain.blockTemplate(alice.pk, 64);
    const again = await chain.blockTemplate(key().pk, 64);
    assert.equal(t.stats.TxnCount, txns.length);
    assert.equal(crypto.merklePaths - before, 1, 'one path for both templates (same mempool), not one per header');
    assert.equal(again.headers.length, 64);
    const fees = txns.reduce((sum, b) => sum + decodeTxn(b).v1!.feeNanos, 0n);
    t.headers.forEach((h, i) => {
      assert.deepEqual(decodeHeader(h).transactionMerkleRoot, fullTreeRoot(alice.pk, t.extraNonces[i]!, t.height, fees), `header ${i}`);
    });
    // And a header from the path is a block the chain accepts (its merkle check is the full tree).
    const solved = await solveHeader(crypto, t.headers[5]!, t.target);
    const r = await chain.submitBlock(alice.pk, solved, t.extraNonces[5]!, t.blockId);
    assert.equal(r.isMainChain, true);
    assert.equal((await chain.mempool()).length, 0);
  });

  it('submit-block checks a header\'s merkle root against the template\'s path first', async () => {
    const t = await chain.blockTemplate(alice.pk, 2);
    const forged = t.headers[0]!.slice();
    forged[HEADER_OFFSETS.transactionMerkleRoot]! ^= 1;
    const tip = await chain.tip();
    for (const [header, extraNonce] of [
      [await solveHeader(crypto, forged, t.target), t.extraNonces[0]!],
      [await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[1]!],
    ] as const) {
      await assert.rejects(chain.submitBlock(alice.pk, header, extraNonce, t.blockId), (e: Error) => e instanceof ChainRequestError && /merkle root does not match/.test(e.message));
    }
    assert.deepEqual(await chain.tip(), tip, 'nothing connected');
  });

  it('a flood of template requests stores the template record once, not once per request', async () => {
    const before = counted.templateWrites();
    const started = Date.now();
    const ids = new Set((await Promise.all(Array.from({ length: 50 }, () => chain.blockTemplate(key().pk, 1)))).map((t) => t.blockId));
    // The id (and so the record) changes with the header's time, once a second.
    const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
    assert.ok(counted.templateWrites() - before <= seconds, `${counted.templateWrites() - before} writes for ${ids.size} template ids in ${seconds} s`);
    for (const id of ids) assert.ok(await base.get(`chain:template:${id}`), 'every id a request was given is stored');
  });

  it('a new mempool state computes a new path once', async () => {
    await transfer();
    const before = crypto.merklePaths;
    await chain.blockTemplate(alice.pk, 10);
    await chain.blockTemplate(alice.pk, 10);
    assert.equal(crypto.merklePaths - before, 1);
  });

  it('the miner feed reads a published template once per round, whatever keys its sockets mine to', async () => {
    const feed = new MinerFeed({ chain, store: counted.store, log });
    await feed.start();
    const sent = new Map<number, string[]>();
    const sockets: FeedSocket[] = Array.from({ length: 10 }, (_, id) => {
      sent.set(id, []);
      return { id, open: true, send: (text: string) => (sent.get(id)!.push(text), true) };
    });
    for (const s of sockets) await feed.subscribe(s, { rewardPk33: key().pk, numHeaders: 16 });
    const reads = counted.templateReads();
    const rounds = feed.rounds;
    await chain.publishTemplate();
    await until(() => feed.rounds > rounds, 'the feed pushes a round');
    assert.equal(counted.templateReads() - reads, 1, 'one read of the record for ten subscribers');
    for (const s of sockets) {
      const pushed = JSON.parse(sent.get(s.id)!.at(-1)!) as { params: { Headers: string[] } };
      assert.equal(pushed.params.Headers.length, 16);
    }
    await feed.stop();
  });
});
