/**
 * Chain costs and limits (issue 17, items 3 and 8), against running nodes:
 * - block templates over a ~1 MB mempool (20 free 49 KB posts) cost what differs per header:
 *   get-block-template with the largest NumHeaders, and ten miner sockets with 64 headers each,
 *   answer while health-check stays responsive (a loose bound, not a speed target); NumHeaders
 *   over the cap is a 400 naming it. Before: every header re-hashed the whole mempool on the
 *   event loop (one template change stalled ten miner sockets' node for seconds).
 * - `--network mainnet` has a fee floor: an unfunded key's fee-0 post is refused (it was
 *   accepted), and the mempool byte limit refuses, naming itself, until a block makes room.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { signTx } from 'deso-protocol';
import { loadConfig } from '../../server/config.js';
import { startNode, type RunningNode } from '../../server/node.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { MAX_HEADERS_PER_REQUEST } from '../../server/routes/miner.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { keyPair, startChainNode, type ChainNode, type J } from '../helpers/chainNode.js';
import { tempDataDir } from '../helpers/nodeProcess.js';
import { okApi, postApi } from '../helpers/http.js';
import { solveTemplate } from '../helpers/mining.js';
import { freePort } from '../helpers/ports.js';
import { WsClient, type WsMessage } from '../helpers/ws.js';

/** Health-check latency that means the event loop stalled (loose: the machine is shared). */
const STALL_MS = 1_000;
const POST_BYTES = 49_000;

/** Polls health-check back to back until stopped; answers the slowest round trip seen. */
function watchHealth(url: string): { stop: () => Promise<number> } {
  let running = true;
  let worst = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const r = await fetch(`${url}/api/v0/health-check`);
      await r.arrayBuffer();
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((res) => setTimeout(res, 10));
    }
  })();
  return {
    // Idempotent: a finally may stop it first.
    stop: async () => {
      running = false;
      await loop.catch(() => undefined);
      return worst;
    },
  };
}

describe('block templates over a ~1 MB mempool', () => {
  let n: ChainNode;

  /** A free (fee 0, unfunded key) post of POST_BYTES characters, signed and submitted. */
  async function bigPost(i: number): Promise<void> {
    const k = keyPair();
    const c = await n.ok('submit-post', { UpdaterPublicKeyBase58Check: k.pk, BodyObj: { Body: `${i} `.padEnd(POST_BYTES, 'x'), ImageURLs: [], VideoURLs: [] }, MinFeeRateNanosPerKB: 0 });
    await n.ok('submit-transaction', { TransactionHex: await signTx(c['TransactionHex'] as string, k.seedHex) });
  }

  before(async () => {
    n = await startChainNode({ args: ['--miner', 'off'] });
    for (let i = 0; i < 20; i++) await bigPost(i);
    assert.equal(await n.deps.chain.mempoolSize(), 20);
  });
  after(async () => {
    await n?.close();
  });

  it(`get-block-template with NumHeaders ${MAX_HEADERS_PER_REQUEST} answers while health-check stays responsive; one more is a 400 naming the cap`, async (t) => {
    const rewards = Array.from({ length: 4 }, () => keyPair());
    const health = watchHealth(n.url);
    const templates = await Promise.all(rewards.map((k) => n.ok('get-block-template', { PublicKeyBase58Check: k.pk, NumHeaders: MAX_HEADERS_PER_REQUEST, HeaderVersion: 1 }))).finally(() => health.stop());
    const worst = await health.stop();
    t.diagnostic(`worst health-check round trip: ${worst.toFixed(0)} ms`);
    for (const tpl of templates) {
      assert.equal((tpl['Headers'] as string[]).length, MAX_HEADERS_PER_REQUEST);
      assert.equal((tpl['LatestBlockTemplateStats'] as J)['TxnCount'], 20);
    }
    assert.ok(worst < STALL_MS, `health-check answered within ${STALL_MS} ms while templates were built (worst ${worst.toFixed(0)} ms)`);
    for (const num of [MAX_HEADERS_PER_REQUEST + 1, 2_000, 10_000]) {
      await n.fails('get-block-template', { PublicKeyBase58Check: n.miner.pk, NumHeaders: num, HeaderVersion: 1 }, new RegExp(`NumHeaders ${num} is over this node's limit of ${MAX_HEADERS_PER_REQUEST}`));
    }
    // A header of a capped template is a block the chain takes, with the whole mempool.
    const first = templates[0]!;
    const r = await n.ok('submit-block', { PublicKeyBase58Check: rewards[0]!.pk, Header: await solveTemplate(n.deps.crypto, first), ExtraNonce: (first['ExtraNonces'] as number[])[0], BlockID: first['BlockID'] });
    assert.equal(r['IsMainChain'], true);
    assert.equal(await n.deps.chain.mempoolSize(), 0, 'the block took every post');
    // 19 again: the next test's post makes 20, all within one block's template.
    for (let i = 0; i < 19; i++) await bigPost(100 + i);
  });

  it('ten miner sockets with 64 headers each get every template change while health-check stays responsive', async (t) => {
    const url = `${n.url.replace('http', 'ws')}/api/v0/miner`;
    const sockets = await Promise.all(Array.from({ length: 10 }, () => WsClient.connect(url)));
    const isPush = (m: WsMessage): boolean => (m.json as J | undefined)?.['method'] === 'template';
    await Promise.all(
      sockets.map(async (ws, i) => {
        ws.sendJson({ id: i, method: 'subscribe', params: { PublicKeyBase58Check: keyPair().pk, NumHeaders: 64 } });
        const reply = await ws.next((m) => (m.json as J | undefined)?.['id'] === i, 'subscribe reply');
        assert.equal((reply.json as J)['error'], undefined, reply.text);
      }),
    );
    const from = sockets.map((ws) => ws.messages.length);
    const health = watchHealth(n.url);
    let pushes: WsMessage[];
    try {
      await bigPost(999);
      pushes = await Promise.all(
        sockets.map((ws, i) => ws.next((m) => isPush(m) && ((m.json as J)['params'] as J)['LatestBlockTemplateStats']['TxnCount'] === 20, 'a push with the new post', from[i], 20_000)),
      );
    } finally {
      await health.stop();
    }
    const worst = await health.stop();
    t.diagnostic(`worst health-check round trip: ${worst.toFixed(0)} ms`);
    for (const p of pushes) assert.equal((((p.json as J)['params'] as J)['Headers'] as string[]).length, 64);
    assert.ok(worst < STALL_MS, `health-check answered within ${STALL_MS} ms while ten sockets got their templates (worst ${worst.toFixed(0)} ms)`);
    for (const ws of sockets) ws.close();
  });
});

describe('--network mainnet: fee floor and mempool limit', () => {
  let node: RunningNode;
  let url: string;
  const mainnetKey = (): { seedHex: string; pk: string } => {
    const secret = new Uint8Array(randomBytes(32));
    return { seedHex: Buffer.from(secret).toString('hex'), pk: encodePublicKey(getPublicKey(secret, true), 'mainnet') };
  };
  const miner = mainnetKey();

  before(async () => {
    // A mempool limit of three small transactions, to reach it quickly.
    const args = ['--port', String(await freePort()), '--data-dir', tempDataDir(), '--network', 'mainnet', '--miner', 'off', '--crypto-threads', '1', '--mempool-max-size-bytes', '1200'];
    node = await startNode(loadConfig(args, {}), pino({ level: 'silent' }));
    url = `http://127.0.0.1:${node.port}`;
  });
  after(async () => {
    await node?.close();
  });

  const mine = async (): Promise<void> => {
    const t = await okApi(url, 'get-block-template', { PublicKeyBase58Check: miner.pk, NumHeaders: 1, HeaderVersion: 1 });
    const r = await okApi(url, 'submit-block', { PublicKeyBase58Check: miner.pk, Header: await solveTemplate(node.deps.crypto, t), ExtraNonce: (t['ExtraNonces'] as number[])[0], BlockID: t['BlockID'] });
    assert.equal(r['IsMainChain'], true);
  };

  it('an unfunded key\'s fee-0 post is refused, naming the network\'s fee floor', async () => {
    const k = mainnetKey();
    // The node builds the post at the floor even when asked for 0: a fee an unfunded key cannot pay.
    const c = await okApi(url, 'submit-post', { UpdaterPublicKeyBase58Check: k.pk, BodyObj: { Body: 'free?', ImageURLs: [], VideoURLs: [] }, MinFeeRateNanosPerKB: 0 });
    assert.ok(Number(c['FeeNanos']) > 0, `a fee at the floor: ${JSON.stringify(c['FeeNanos'])}`);
    const paid = await postApi(url, 'submit-transaction', { TransactionHex: await signTx(c['TransactionHex'] as string, k.seedHex) });
    assert.equal(paid.status, 400, JSON.stringify(paid.json));
    // The same post with its fee field zeroed and signed by the key itself: refused for the fee.
    const free = await zeroFee(c['TransactionHex'] as string);
    const r = await postApi(url, 'submit-transaction', { TransactionHex: await signTx(free, k.seedHex) });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.match(r.json['error'] as string, /RuleErrorTxnFeeBelowNetworkMinimum: fee 0 nanos for \d+ bytes is below 1000 nanos\/KB/);
    assert.equal(await node.deps.chain.mempoolSize(), 0);
  });

  it('the mempool byte limit refuses with a 400 naming it, and admits again once a block makes room', async () => {
    await mine();
    const sends = async (): Promise<{ status: number; json: J }> => {
      const c = await okApi(url, 'send-deso', { SenderPublicKeyBase58Check: miner.pk, RecipientPublicKeyOrUsername: mainnetKey().pk, AmountNanos: 1000, MinFeeRateNanosPerKB: 1000 });
      return postApi(url, 'submit-transaction', { TransactionHex: await signTx(c['TransactionHex'] as string, miner.seedHex) });
    };
    const answers: Array<{ status: number; json: J }> = [];
    for (let i = 0; i < 12; i++) answers.push(await sends());
    const refused = answers.filter((a) => a.status !== 200);
    assert.ok(answers.filter((a) => a.status === 200).length >= 1, 'some fit');
    assert.ok(refused.length >= 1, 'the limit is reached');
    for (const a of refused) {
      assert.equal(a.status, 400, JSON.stringify(a.json));
      assert.match(a.json['error'] as string, /RuleErrorMempoolFull: the mempool holds \d+ bytes and this \d+-byte transaction would pass its limit of 1200 bytes/);
    }
    await mine();
    assert.equal(await node.deps.chain.mempoolSize(), 0);
    assert.equal((await sends()).status, 200, 'admitted again after the block');
  });
});

/** The same transaction hex with its v1 fee set to 0 (unsigned: signTx signs it afresh). */
async function zeroFee(txnHex: string): Promise<string> {
  const { decodeTxn, encodeTxn } = await import('../../server/chain/txn/envelope.js');
  const t = decodeTxn(new Uint8Array(Buffer.from(txnHex, 'hex')));
  const { signatureField: _s, ...fields } = t as typeof t & { signatureField?: unknown };
  return Buffer.from(encodeTxn({ ...fields, v1: { ...t.v1!, feeNanos: 0n } })).toString('hex');
}
