/**
 * The miner feed (`/api/v0/miner`) and the standalone CPU miner (`npm run miner`), against a
 * node whose own miner is off: subscribe answers a template; a new transaction or a new tip
 * pushes a fresh one; a solved header submitted on the socket joins the chain; bad messages get
 * `{id, error}` and the socket stays open. The CLI miner alone keeps the chain moving and
 * confirms transactions.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { keyPair, startChainNode, type ChainNode, type J } from '../helpers/chainNode.js';
import { solveTemplate } from '../helpers/mining.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';
import { WsClient, type WsMessage } from '../helpers/ws.js';

let n: ChainNode;
let wsUrl: string;
const reward = keyPair();

before(async () => {
  n = await startChainNode({ args: ['--miner', 'off'] });
  wsUrl = `${n.url.replace('http', 'ws')}/api/v0/miner`;
});
after(async () => {
  await n?.close();
});

const json = (m: WsMessage): J => m.json as J;
const isReply = (id: number) => (m: WsMessage): boolean => json(m)?.['id'] === id;
const isPush = (m: WsMessage): boolean => json(m)?.['method'] === 'template';

async function subscribed(): Promise<{ ws: WsClient; template: J }> {
  const ws = await WsClient.connect(wsUrl);
  ws.sendJson({ id: 1, method: 'subscribe', params: { PublicKeyBase58Check: reward.pk } });
  const r = json(await ws.next(isReply(1), 'subscribe reply'));
  assert.equal(r['error'], undefined, `subscribe: ${JSON.stringify(r)}`);
  return { ws, template: r['result'] as J };
}

const solve = (t: J): Promise<string> => solveTemplate(n.deps.crypto, t);

describe('miner feed: subscribe', () => {
  it('answers the current template with get-block-template\'s fields and its height', async () => {
    const { ws, template } = await subscribed();
    assert.deepEqual(Object.keys(template).sort(), ['BlockID', 'DifficultyTargetHex', 'ExtraNonces', 'Headers', 'Height', 'LatestBlockTemplateStats']);
    assert.equal(Buffer.from((template['Headers'] as string[])[0]!, 'base64').length, 100);
    assert.equal(template['Height'], Number((await n.deps.chain.tip()).height) + 1);
    ws.close();
  });

  it('refuses a bad key, an unknown method and non-JSON with {id, error}; the socket stays open', async () => {
    const ws = await WsClient.connect(wsUrl);
    ws.sendJson({ id: 7, method: 'subscribe', params: { PublicKeyBase58Check: 'nope' } });
    assert.match(json(await ws.next(isReply(7), 'bad key reply'))['error'] as string, /PublicKeyBase58Check/);
    ws.sendJson({ id: 8, method: 'dance' });
    assert.match(json(await ws.next(isReply(8), 'unknown method reply'))['error'] as string, /unknown method/);
    ws.send('{not json');
    const bad = await ws.next((m) => json(m)?.['id'] === null, 'non-JSON reply');
    assert.match(json(bad)['error'] as string, /not valid JSON/);
    ws.sendJson({ id: 9, method: 'submit', params: { Header: 'AAAA', ExtraNonce: 0, BlockID: 'ab'.repeat(32) } });
    assert.match(json(await ws.next(isReply(9), 'submit without subscription'))['error'] as string, /subscribe first/);
    assert.ok(ws.isOpen, 'the socket is still open after bad messages');
    ws.close();
  });
});

describe('miner feed: pushes', () => {
  it('a new mempool transaction pushes a template that includes it', async () => {
    await n.mineBlock();
    const { ws } = await subscribed();
    const from = ws.messages.length;
    const c = await n.ok('send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: reward.pk, AmountNanos: 1_000, MinFeeRateNanosPerKB: 1000 });
    await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, n.miner, 'sdk') });
    const push = await ws.next((m) => isPush(m) && ((json(m)['params'] as J)['LatestBlockTemplateStats'] as J)['TxnCount'] === 1, 'pushed template with the txn', from);
    assert.equal(((json(push)['params'] as J)['LatestBlockTemplateStats'] as J)['FailingTxnError'], 'You good');
    ws.close();
  });

  it('a solved header submitted on the socket joins the chain, and the next template is pushed', async () => {
    const { ws, template } = await subscribed();
    const height = template['Height'] as number;
    const from = ws.messages.length;
    ws.sendJson({ id: 2, method: 'submit', params: { Header: await solve(template), ExtraNonce: (template['ExtraNonces'] as number[])[0], BlockID: template['BlockID'] } });
    assert.deepEqual(json(await ws.next(isReply(2), 'submit reply'))['result'], { IsMainChain: true, IsOrphan: false });
    const push = await ws.next((m) => isPush(m) && (json(m)['params'] as J)['Height'] === height + 1, 'template for the next height', from);
    assert.ok(push, 'a template for the next block was pushed');
    assert.ok((await n.deps.chain.balance(reward.pk33)) > 0n, 'the block reward paid the subscribed key');
    ws.close();
  });

  it('a closed socket is dropped from the feed', async () => {
    const { ws } = await subscribed();
    const before = n.deps.minerFeed.subscribers;
    ws.close();
    await ws.closed;
    for (let i = 0; i < 100 && n.deps.minerFeed.subscribers >= before; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(n.deps.minerFeed.subscribers, before - 1);
  });
});

describe('npm run miner', () => {
  it('mines blocks to its key from the feed alone and confirms a transaction', async () => {
    const cliKey = keyPair();
    const child = spawn(process.execPath, ['--import', 'tsx', 'miner/main.ts', '--node', n.url.replace('http', 'ws'), '--public-key', cliKey.pk, '--threads', '1', '--log-level', 'warn'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    try {
      const start = (await n.deps.chain.tip()).height;
      for (let i = 0; i < 300 && (await n.deps.chain.tip()).height < start + 2n; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok((await n.deps.chain.tip()).height >= start + 2n, `the CLI miner mined two blocks; output: ${output}`);
      assert.ok((await n.deps.chain.balance(cliKey.pk33)) > 0n, 'its rewards paid --public-key');
      const c = await n.ok('send-deso', { SenderPublicKeyBase58Check: cliKey.pk, RecipientPublicKeyOrUsername: reward.pk, AmountNanos: 5_000, MinFeeRateNanosPerKB: 1000 });
      await n.submit(c['TransactionHex'] as string, cliKey, 'sdk');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('refuses to start without a valid --public-key', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'miner/main.ts', '--node', 'ws://127.0.0.1:1', '--public-key', 'nope'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 2);
    assert.match(err, /miner: --public-key: /);
  });
});
