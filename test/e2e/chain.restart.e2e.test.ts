/**
 * Chain state survives a restart on the Redis store: tip, blocks, balances and the mempool are
 * where the stopped node left them, and the new node keeps extending the same chain. (The
 * memory store is volatile by design: README, "The dev chain".)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signTx } from 'deso-protocol';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { okApi } from '../helpers/http.js';
import { solveTemplate } from '../helpers/mining.js';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';

type J = Record<string, any>;
const crypto = new InlineCrypto();
let redis: RedisServer;

before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis?.stop();
  await crypto.close();
});

const key = (): { seedHex: string; pk: string } => {
  const s = new Uint8Array(randomBytes(32));
  return { seedHex: Buffer.from(s).toString('hex'), pk: encodePublicKey(getPublicKey(s, true), 'testnet') };
};

const ok = (node: NodeProcess, path: string, body: unknown): Promise<J> => okApi(node.url, path, body);

async function mine(node: NodeProcess, pk: string): Promise<void> {
  const t = await ok(node, 'get-block-template', { PublicKeyBase58Check: pk, NumHeaders: 1, HeaderVersion: 1 });
  const r = await ok(node, 'submit-block', { PublicKeyBase58Check: pk, Header: await solveTemplate(crypto, t), ExtraNonce: t['ExtraNonces'][0], BlockID: t['BlockID'] });
  assert.equal(r['IsMainChain'], true, 'block joined the main chain');
}

const start = (prefix: string): Promise<NodeProcess> =>
  startNodeProcess({ args: ['--redis', redis.url, '--redis-key-prefix', prefix, '--miner', 'off', '--identity-secret', 'ab'.repeat(32)] });

describe('restart on Redis', () => {
  it('keeps the tip, balances and mempool, and extends the same chain', async () => {
    const miner = key();
    const bob = key();
    const prefix = `restart-${randomBytes(4).toString('hex')}:`;
    let node = await start(prefix);
    await mine(node, miner.pk);
    await mine(node, miner.pk);
    const c = await ok(node, 'send-deso', { SenderPublicKeyBase58Check: miner.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 12_345, MinFeeRateNanosPerKB: 1000 });
    await ok(node, 'submit-transaction', { TransactionHex: await signTx(c['TransactionHex'], miner.seedHex) });
    const heightBefore = (await ok(node, 'get-app-state', {}))['BlockHeight'];
    const tBefore = await ok(node, 'get-block-template', { PublicKeyBase58Check: miner.pk, NumHeaders: 1, HeaderVersion: 1 });
    assert.equal(tBefore['LatestBlockTemplateStats']['TxnCount'], 1, 'the transfer waits in the mempool');
    assert.equal(await node.stop(), 0);

    node = await start(prefix);
    try {
      assert.equal((await ok(node, 'get-app-state', {}))['BlockHeight'], heightBefore, 'same tip height after restart');
      const t = await ok(node, 'get-block-template', { PublicKeyBase58Check: miner.pk, NumHeaders: 1, HeaderVersion: 1 });
      assert.equal(t['LatestBlockTemplateStats']['TxnCount'], 1, 'the mempool transaction survived');
      assert.equal(Buffer.from(t['Headers'][0], 'base64').subarray(4, 36).toString('hex'), Buffer.from(tBefore['Headers'][0], 'base64').subarray(4, 36).toString('hex'), 'the template builds on the same parent');
      await mine(node, miner.pk);
      assert.equal((await ok(node, 'get-app-state', {}))['BlockHeight'], heightBefore + 1, 'the new node extends the old chain');
      // Bob's "max" is exactly his balance minus the fee: the mined transfer is in state.
      const max = await ok(node, 'send-deso', { SenderPublicKeyBase58Check: bob.pk, RecipientPublicKeyOrUsername: miner.pk, AmountNanos: -1, MinFeeRateNanosPerKB: 1000 });
      assert.equal(max['SpendAmountNanos'] + max['FeeNanos'], 12_345);
    } finally {
      await node.stop();
    }
  });
});
