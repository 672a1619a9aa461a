/**
 * A node on LMDB killed with SIGKILL in the middle of a stream of writes (issue 19): senders
 * submit signed transfers without pause while the built-in miner mines them, and the node
 * process is killed mid-stream. Its data directory then holds every transaction the node
 * acknowledged (mined, or still in the mempool) and a tip no lower than any block height it
 * reported; the node restarts on that directory (taking over the dead process's pid file),
 * mines what was waiting, and every recipient holds what it was sent.
 *
 * Writes resolve after their commit is flushed (lmdb.ts), so acknowledged means durable;
 * a kill leaves LMDB at its last commit, never a torn one.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { signTx } from 'deso-protocol';
import { chainKeys } from '../../server/chain/state/keys.js';
import { openDataDir } from '../../server/store/dataDir.js';
import { keyPair, type KeyPair } from '../helpers/chainNode.js';
import { postApi } from '../helpers/http.js';
import { startNodeProcess, tempDataDir, type NodeProcess } from '../helpers/nodeProcess.js';
import { minedTxnLocation } from '../../server/chain/state/minedTxns.js';

type J = Record<string, any>;

const FEE = { MinFeeRateNanosPerKB: 1000 };
const SENDERS = 3;
const AMOUNT_NANOS = 1000;
/** How long the stream runs before the kill. */
const STREAM_MS = 2500;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const dir = tempDataDir();
const miner = keyPair();
const args = ['--data-dir', dir, '--miner', 'auto', '--miner-public-key', miner.pk, '--block-interval-seconds', '1', '--crypto-threads', '1'];
let node: NodeProcess | undefined;

after(async () => {
  await node?.stop();
});

async function ok(path: string, body: unknown): Promise<J> {
  const r = await postApi(node!.url, path, body);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.json)}`);
  return r.json as J;
}

async function balances(pks: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < pks.length; i += 100) {
    const users = (await ok('get-users-stateless', { PublicKeysBase58Check: pks.slice(i, i + 100) }))['UserList'] as J[];
    out.push(...users.map((u) => Number(u['BalanceNanos'])));
  }
  return out;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await sleep(100);
  }
}

/** construct, sign (SDK), submit: the submit answer. */
async function send(from: KeyPair, to: string, nanos: number): Promise<{ status: number; json: J }> {
  const c = await ok('send-deso', { ...FEE, SenderPublicKeyBase58Check: from.pk, RecipientPublicKeyOrUsername: to, AmountNanos: nanos });
  return postApi(node!.url, 'submit-transaction', { TransactionHex: await signTx(c['TransactionHex'] as string, from.seedHex) });
}

interface Acknowledged {
  hash: string;
  recipient: string;
}

describe('LMDB node killed mid-stream (SIGKILL)', () => {
  it('restarts with every acknowledged transaction and block', async (t) => {
    node = await startNodeProcess({ args });
    await until('the miner holds block rewards', async () => (await balances([miner.pk]))[0]! > 0);
    const senders = Array.from({ length: SENDERS }, () => keyPair());
    for (const s of senders) assert.equal((await send(miner, s.pk, 0.01 * 1e9)).status, 200, 'funding');
    await until('the senders are funded', async () => (await balances(senders.map((s) => s.pk))).every((b) => b > 0));

    const acknowledged: Acknowledged[] = [];
    let highestSeen = 0;
    let streaming = true;
    const loops = [
      ...senders.map(async (from) => {
        while (streaming) {
          const recipient = keyPair().pk;
          const r = await send(from, recipient, AMOUNT_NANOS).catch(() => null);
          if (r === null) return; // the node is gone
          if (r.status === 200) acknowledged.push({ hash: r.json['TxnHashHex'] as string, recipient });
        }
      }),
      (async () => {
        while (streaming) {
          const r = await postApi(node!.url, 'get-app-state', {}).catch(() => null);
          if (r === null) return;
          if (r.status === 200) highestSeen = Math.max(highestSeen, r.json['BlockHeight'] as number);
        }
      })(),
    ];
    await sleep(STREAM_MS);
    const heightAtKill = highestSeen;
    node.child.kill('SIGKILL');
    await node.exited;
    streaming = false;
    await Promise.all(loops);
    assert.ok(acknowledged.length >= 20, `a stream of writes was acknowledged before the kill (${acknowledged.length})`);
    assert.ok(heightAtKill > 1, `blocks were mined during the stream (height ${heightAtKill})`);
    t.diagnostic(`${acknowledged.length} transactions acknowledged, height ${highestSeen} reported, before the kill`);

    // The directory as the killed process left it.
    const store = await openDataDir({ dir, network: 'testnet' });
    try {
      const tip = await store.get<{ height: bigint }>(chainKeys.tip);
      assert.ok(tip !== undefined && Number(tip.height) >= highestSeen, `tip ${tip?.height} is not behind the last height reported (${highestSeen})`);
      const missing: string[] = [];
      for (const { hash } of acknowledged) {
        const [mined, pending] = await Promise.all([minedTxnLocation(store, hash), store.get(`mempool:txn:${hash}`)]);
        if (mined === undefined && pending === undefined) missing.push(hash);
      }
      assert.deepEqual(missing, [], `every one of ${acknowledged.length} acknowledged transactions is mined or in the mempool`);
    } finally {
      await store.close();
    }

    // The node restarts on it and mines what was waiting.
    node = await startNodeProcess({ args });
    assert.ok(((await ok('get-app-state', {}))['BlockHeight'] as number) >= highestSeen, 'the restarted tip is not behind');
    const recipients = acknowledged.map((a) => a.recipient);
    await until('every acknowledged transfer is mined', async () => (await balances(recipients)).every((b) => b === AMOUNT_NANOS), 30_000);
    assert.equal(await node.stop(), 0);
  });
});
