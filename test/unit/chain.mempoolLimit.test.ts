/**
 * The network's chain policy (issue 17, item 8): mainnet parameters refuse fee-0 transactions
 * (an unfunded key's free post included), and every network bounds the mempool in bytes, also
 * when several processes (Chain instances over one store) admit at once: the bound is checked
 * against the mempool the admission's guarded commit pins.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS, devChainParams, NETWORK_POLICY } from '../../server/chain/block/params.js';
import { Chain, MempoolBusyError } from '../../server/chain/chain.js';
import { constructTxn, type ConstructOptions } from '../../server/chain/construct.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { signTransaction } from '../../server/identity/signTxn.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { solveHeader } from '../helpers/mining.js';

const log = pino({ level: 'silent' });
const crypto = new InlineCrypto();
after(() => crypto.close());

const newKey = (): { secret: Uint8Array; pk: Uint8Array } => {
  const secret = new Uint8Array(randomBytes(32));
  return { secret, pk: getPublicKey(secret, true) };
};

async function signed(chain: Chain, key: { secret: Uint8Array; pk: Uint8Array }, metadata: ConstructOptions['metadata'], opts: { feeRate: bigint; outputs?: ConstructOptions['outputs'] }): Promise<Uint8Array> {
  const c = constructTxn({
    publicKey: key.pk,
    metadata,
    outputs: opts.outputs ?? [],
    minFeeRateNanosPerKB: opts.feeRate,
    networkMinFeeRateNanosPerKB: 0n,
    tipHeight: (await chain.tip()).height,
    maxNonceExpirationBlockHeightOffset: DEV_CHAIN_PARAMS.maxNonceExpirationBlockHeightOffset,
  });
  return signTransaction(crypto, c.bytes, key.secret, { derived: false });
}

const post = (body: string): ConstructOptions['metadata'] => ({
  type: 'SUBMIT_POST',
  postHashToModify: new Uint8Array(0),
  parentStakeId: new Uint8Array(0),
  body: new TextEncoder().encode(JSON.stringify({ Body: body })),
  creatorBasisPoints: 0n,
  stakeMultipleBasisPoints: 12_500n,
  timestampNanos: BigInt(Date.now()) * 1_000_000n,
  isHidden: false,
});

async function mine(chain: Chain, reward: Uint8Array): Promise<void> {
  const t = await chain.blockTemplate(reward, 1);
  const r = await chain.submitBlock(reward, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
  assert.equal(r.isMainChain, true);
}

const ruleCode = (e: unknown): string => (e instanceof RuleError ? e.code : (e as Error).name);

describe('network policy', () => {
  it('mainnet has a fee floor, testnet keeps 0; both bound the mempool; flags override', () => {
    assert.equal(devChainParams('mainnet').minNetworkFeeNanosPerKB, 1000n);
    assert.equal(devChainParams('testnet').minNetworkFeeNanosPerKB, 0n);
    for (const network of ['testnet', 'mainnet'] as const) {
      const p = devChainParams(network);
      assert.ok(Number.isSafeInteger(p.mempoolMaxSizeBytes) && p.mempoolMaxSizeBytes > 0, `${network}: a finite mempool limit`);
      assert.equal(p.mempoolMaxSizeBytes, NETWORK_POLICY[network].mempoolMaxSizeBytes);
      // Everything else is the dev chain's.
      assert.equal(p.minDifficultyTargetHex, DEV_CHAIN_PARAMS.minDifficultyTargetHex);
    }
    const o = devChainParams('mainnet', { minNetworkFeeNanosPerKB: 5n, mempoolMaxSizeBytes: 2_000 });
    assert.deepEqual([o.minNetworkFeeNanosPerKB, o.mempoolMaxSizeBytes], [5n, 2_000]);
  });
});

describe('mainnet parameters: the fee floor', () => {
  const store = new MemoryStore();
  const chain = new Chain({ store, crypto, params: devChainParams('mainnet'), log });
  before(() => chain.init());
  after(() => store.close());

  it('an unfunded key\'s fee-0 post is refused for its fee', async () => {
    const bytes = await signed(chain, newKey(), post('free?'), { feeRate: 0n });
    await assert.rejects(chain.submitTransaction(bytes), (e: Error) => {
      assert.equal(ruleCode(e), 'RuleErrorTxnFeeBelowNetworkMinimum');
      assert.match(e.message, /fee 0 nanos for \d+ bytes is below 1000 nanos\/KB/);
      return true;
    });
    assert.equal(await chain.mempoolSize(), 0);
  });

  it('a funded key\'s fee-0 transfer is refused too; at the floor it is admitted', async () => {
    const miner = newKey();
    await mine(chain, miner.pk);
    const outputs = [{ publicKey: newKey().pk, amountNanos: 1000n }];
    await assert.rejects(chain.submitTransaction(await signed(chain, miner, { type: 'BASIC_TRANSFER' }, { feeRate: 0n, outputs })), (e) => ruleCode(e) === 'RuleErrorTxnFeeBelowNetworkMinimum');
    await chain.submitTransaction(await signed(chain, miner, { type: 'BASIC_TRANSFER' }, { feeRate: 1000n, outputs }));
    assert.equal(await chain.mempoolSize(), 1);
  });
});

describe('the mempool byte limit, with two processes admitting at once', () => {
  const store = new MemoryStore();
  const miner = newKey();
  let limit = 0;
  let a: Chain;
  let b: Chain;
  const transfer = (c: Chain): Promise<Uint8Array> => signed(c, miner, { type: 'BASIC_TRANSFER' }, { feeRate: 1000n, outputs: [{ publicKey: newKey().pk, amountNanos: 1000n }] });

  before(async () => {
    const setup = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
    await setup.init();
    await mine(setup, miner.pk);
    // Room for three transfers (their sizes differ by a few bytes), not four.
    limit = Math.floor((await transfer(setup)).length * 3.5);
    const params = devChainParams('testnet', { mempoolMaxSizeBytes: limit });
    a = new Chain({ store, crypto, params, log });
    b = new Chain({ store, crypto, params, log });
  });
  after(() => store.close());

  it('refuses what would pass the limit, naming it, and never holds more than it', async () => {
    const txns = await Promise.all(Array.from({ length: 10 }, (_, i) => transfer(i % 2 ? a : b)));
    const results = await Promise.allSettled(txns.map((t, i) => (i % 2 ? a : b).submitTransaction(t)));
    const held = await a.mempool();
    const bytes = held.reduce((sum, m) => sum + m.bytes.length, 0);
    assert.ok(bytes <= limit, `the mempool holds ${bytes} bytes, at most the ${limit}-byte limit`);
    assert.equal(held.length, 3, 'three transfers fit');
    const refusals = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);
    assert.equal(refusals.length, 7);
    for (const e of refusals) assert.ok(ruleCode(e) === 'RuleErrorMempoolFull' || e instanceof MempoolBusyError, `refused as full (or busy: retry): ${e.message}`);
    const full = refusals.find((e) => ruleCode(e) === 'RuleErrorMempoolFull');
    assert.ok(full, 'at least one refusal says the mempool is full');
    assert.match(full.message, new RegExp(`would pass its limit of ${limit} bytes \\(--mempool-max-size-bytes\\); retry after the next block`));
  });

  it('admits again once a block took the mempool', async () => {
    await assert.rejects(b.submitTransaction(await transfer(b)), (e) => ruleCode(e) === 'RuleErrorMempoolFull');
    await mine(a, miner.pk);
    assert.equal(await a.mempoolSize(), 0);
    await b.submitTransaction(await transfer(b));
    await a.submitTransaction(await transfer(a));
    assert.equal(await b.mempoolSize(), 2);
  });
});
