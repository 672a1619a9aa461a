/**
 * API v1, the exchange-style reads (backend routes/exchange.go APIBlock, APITransactionInfo), end
 * to end at their own paths (/api/v1/block, /api/v1/transaction-info), once on a memory-store
 * node and once on a Redis-backed node, the built-in miner off so that the test decides what is
 * mined and what stays in the mempool: three blocks of rewards, a funding transfer each for
 * alice and bob, two transfers from alice in one block, one in the next, and one left in the
 * mempool. One table of cases per route, plus a walk over alice's transactions a page at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chainKeys } from '../../server/chain/state/keys.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { postJson } from '../helpers/http.js';
import { assertDocumented } from '../helpers/openApiCheck.js';

const alice = keyPair();
const bob = keyPair();
const stranger = keyPair();

interface Sent {
  hashHex: string;
  id: string;
}

interface Ctx {
  n: ChainNode;
  /** The miner's transfer to alice. */
  funded: Sent;
  /** alice → bob: two in block `pairHeight`, one in the next, one in the mempool (oldest first). */
  sends: Sent[];
  pairHeight: number;
}

async function transfer(n: ChainNode, from: KeyPair, to: KeyPair | string, nanos: number): Promise<Sent> {
  const c = await n.ok('send-deso', { SenderPublicKeyBase58Check: from.pk, RecipientPublicKeyOrUsername: typeof to === 'string' ? to : to.pk, AmountNanos: nanos, MinFeeRateNanosPerKB: 1000 });
  const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, from, 'sdk') });
  return { hashHex: s['TxnHashHex'] as string, id: s['TransactionIDBase58Check'] as string };
}

async function tipHeight(n: ChainNode): Promise<number> {
  const tip = await n.deps.store.get<{ height: bigint }>(chainKeys.tip);
  return Number(tip!.height);
}

interface Case {
  name: string;
  body: (c: Ctx) => J;
  error?: RegExp;
  check?: (r: J, c: Ctx) => void;
}

function table(ctx: () => Ctx, path: string, cases: Case[]): void {
  describe(path, () => {
    for (const tc of cases) {
      it(tc.name, async () => {
        const c = ctx();
        const r = await postJson(c.n.url, path, tc.body(c));
        const body = r.json as J;
        if (tc.error) {
          assert.equal(r.status, 400, `${path}: ${r.text}`);
          assert.deepEqual(Object.keys(body), ['error']);
          assert.match(body['error'] as string, tc.error);
          return;
        }
        assert.equal(r.status, 200, `${path}: ${r.text}`);
        await assertDocumented(c.n.url, 'POST', path, body);
        tc.check?.(body, c);
      });
    }
  });
}

const ids = (r: J): string[] => (r['Transactions'] as J[]).map((t) => t['TransactionIDBase58Check'] as string);

function suite(store: 'memory' | 'redis'): void {
  describe(`API v1 (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };

    before(async () => {
      const n = await startChainNode({ store, args: ['--miner', 'off'] });
      for (let i = 0; i < 3; i++) await n.mineBlock();
      const funded = await transfer(n, n.miner, alice, 50_000_000);
      await transfer(n, n.miner, bob, 50_000_000);
      await n.mineBlock();
      const sends = [await transfer(n, alice, bob, 1000), await transfer(n, alice, bob, 2000)];
      await n.mineBlock();
      const pairHeight = await tipHeight(n);
      sends.push(await transfer(n, alice, bob, 3000));
      await n.mineBlock();
      sends.push(await transfer(n, alice, bob, 4000));
      c = { n, funded, sends, pairHeight };
    });
    after(async () => {
      await c?.n.close();
    });

    table(ctx, '/api/v1/block', [
      {
        name: 'by height, header only: Transactions null, the header’s fields',
        body: (c) => ({ Height: c.pairHeight }),
        check: (r, c) => {
          assert.equal(r['Transactions'], null);
          const h = r['Header'] as J;
          assert.equal(h['Height'], c.pairHeight);
          assert.equal(h['TstampNanoSecs'], (h['TstampSecs'] as number) * 1e9);
          assert.match(h['BlockHashHex'] as string, /^[0-9a-f]{64}$/);
        },
      },
      {
        name: 'by height with FullBlock: the block reward, then the two transfers, each with its block',
        body: (c) => ({ Height: c.pairHeight, FullBlock: true }),
        check: (r, c) => {
          const txns = r['Transactions'] as J[];
          assert.deepEqual(txns.map((t) => t['TransactionType']), ['BLOCK_REWARD', 'BASIC_TRANSFER', 'BASIC_TRANSFER']);
          assert.deepEqual(txns.slice(1).map((t) => t['TransactionHashHex']), [c.sends[0]!.hashHex, c.sends[1]!.hashHex]);
          const hash = (r['Header'] as J)['BlockHashHex'];
          for (const [i, t] of txns.entries()) {
            assert.equal(t['BlockHashHex'], hash);
            assert.deepEqual(t['BlockInfo'], { Height: c.pairHeight, TimestampSecs: (r['Header'] as J)['TstampSecs'] });
            assert.equal((t['TransactionMetadata'] as J)['TxnIndexInBlock'], i);
          }
          const send = txns[1]!;
          assert.equal(send['TransactionIDBase58Check'], c.sends[0]!.id);
          assert.deepEqual((send['Outputs'] as J[])[0], { PublicKeyBase58Check: bob.pk, AmountNanos: 1000 });
          assert.equal((send['TransactionMetadata'] as J)['TransactorPublicKeyBase58Check'], alice.pk);
          assert.match(send['SignatureHex'] as string, /^30[0-9a-f]+$/);
          assert.equal(send['TxnVersion'], 1);
          assert.equal(txns[0]!['SignatureHex'], undefined, 'a block reward is unsigned (omitted, as omitempty)');
        },
      },
      { name: 'height 0: the genesis block', body: () => ({ Height: 0 }), check: (r) => assert.equal((r['Header'] as J)['Height'], 0) },
      {
        name: 'HashHex wins over Height',
        body: (c) => ({ Height: 0, HashHex: c.sends[0]!.hashHex.replace(/./g, '0') }),
        error: /^APIBlockRequest: Block node with hash 0{64} does not exist$/,
      },
      { name: 'a height above the tip is refused', body: () => ({ Height: 1_000_000 }), error: /^APIBlockRequest: Height requested 1000000 must be >= 0 and <= height of best block chain tip \d+$/ },
      { name: 'a negative height is refused', body: () => ({ Height: -1 }), error: /^APIBlockRequest: Height requested -1 must be >= 0/ },
      { name: 'a hash that is not hex is refused', body: () => ({ HashHex: 'xyz' }), error: /^APIBlockRequest: Problem parsing block hash/ },
      { name: 'a FullBlock that is not a boolean is refused', body: () => ({ FullBlock: 'yes' }), error: /FullBlock/ },
    ]);

    describe('/api/v1/block by hash', () => {
      it('answers the block the height names, and its PrevBlockHashHex is the block below', async () => {
        const c = ctx();
        const byHeight = (await postJson(c.n.url, '/api/v1/block', { Height: c.pairHeight, FullBlock: true })).json as J;
        const hash = (byHeight['Header'] as J)['BlockHashHex'] as string;
        const byHash = (await postJson(c.n.url, '/api/v1/block', { HashHex: hash.toUpperCase(), FullBlock: true })).json as J;
        assert.deepEqual(byHash, byHeight);
        const below = (await postJson(c.n.url, '/api/v1/block', { Height: c.pairHeight - 1 })).json as J;
        assert.equal((byHeight['Header'] as J)['PrevBlockHashHex'], (below['Header'] as J)['BlockHashHex']);
      });
    });

    table(ctx, '/api/v1/transaction-info', [
      {
        name: 'by id (Base58Check), mined: the transaction with its block hash, no BlockInfo (as the reference)',
        body: (c) => ({ TransactionIDBase58Check: c.sends[2]!.id }),
        check: (r, c) => {
          const [t] = r['Transactions'] as J[];
          assert.equal(t!['TransactionHashHex'], c.sends[2]!.hashHex);
          assert.match(t!['BlockHashHex'] as string, /^[0-9a-f]{64}$/);
          assert.equal(t!['BlockInfo'], undefined);
          assert.equal(r['LastPublicKeyTransactionIndex'], 0);
        },
      },
      {
        name: 'by id (hex), in the mempool: found, without a block',
        body: (c) => ({ TransactionIDBase58Check: c.sends[3]!.hashHex }),
        check: (r, c) => {
          const [t] = r['Transactions'] as J[];
          assert.equal(t!['TransactionIDBase58Check'], c.sends[3]!.id);
          assert.equal(t!['BlockHashHex'], undefined);
          assert.equal((t!['TransactionMetadata'] as J)['BlockHashHex'], '');
        },
      },
      { name: 'an unknown id is refused', body: () => ({ TransactionIDBase58Check: 'ab'.repeat(32) }), error: /^APITransactionInfo: Could not find transaction/ },
      { name: 'an id of 31 bytes is refused', body: () => ({ TransactionIDBase58Check: 'ab'.repeat(31) }), error: /^APITransactionInfo: TransactionID byte length is 31 but should be 32$/ },
      { name: 'an id that is neither Base58Check nor hex is refused', body: () => ({ TransactionIDBase58Check: 'not an id!' }), error: /^APITransactionInfo: Problem parsing TransactionID/ },
      {
        name: 'by public key: newest first, the mempool one first, with the balance and the place of the oldest listed',
        body: () => ({ PublicKeyBase58Check: alice.pk, Limit: 2 }),
        check: (r, c) => {
          assert.deepEqual(ids(r), [c.sends[3]!.id, c.sends[2]!.id]);
          const [pending, mined] = r['Transactions'] as J[];
          assert.equal(pending!['BlockInfo'], undefined);
          assert.equal((mined!['BlockInfo'] as J)['Height'], c.pairHeight + 1);
          assert.equal(r['LastPublicKeyTransactionIndex'], (c.pairHeight + 1) * 2 ** 24 + 1);
          assert.ok((r['BalanceNanos'] as number) < 50_000_000 - 10_000);
        },
      },
      {
        name: 'IDsOnly: ids alone',
        body: () => ({ PublicKeyBase58Check: alice.pk, IDsOnly: true }),
        check: (r, c) => {
          assert.deepEqual(ids(r), [...c.sends].reverse().map((s) => s.id).concat(c.funded.id));
          for (const t of r['Transactions'] as J[]) assert.deepEqual(Object.keys(t), ['TransactionIDBase58Check']);
        },
      },
      {
        name: 'bob: as recipient of every transfer, then his funding',
        body: () => ({ PublicKeyBase58Check: bob.pk, IDsOnly: true }),
        check: (r, c) => {
          assert.deepEqual(ids(r).slice(0, 4), [...c.sends].reverse().map((s) => s.id));
          assert.equal(ids(r).length, 5);
        },
      },
      {
        name: "the miner: its block rewards (each block's transaction 0) and its transfers",
        body: (c) => ({ PublicKeyBase58Check: c.n.miner.pk, Limit: 1000 }),
        check: (r, c) => {
          const types = (r['Transactions'] as J[]).map((t) => t['TransactionType']);
          assert.equal(types.filter((t) => t === 'BLOCK_REWARD').length, c.pairHeight + 1, 'one reward per mined block');
          assert.equal(types.filter((t) => t === 'BASIC_TRANSFER').length, 2);
        },
      },
      {
        name: 'a key with no transactions: none, index 0',
        body: () => ({ PublicKeyBase58Check: stranger.pk }),
        check: (r) => assert.deepEqual(r, { Transactions: [], LastTransactionIDBase58Check: '', LastPublicKeyTransactionIndex: 0, BalanceNanos: 0 }),
      },
      {
        name: 'IsMempool: the mempool in order, the last one named for the next page',
        body: () => ({ IsMempool: true }),
        check: (r, c) => {
          assert.deepEqual(ids(r), [c.sends[3]!.id]);
          assert.equal(r['LastTransactionIDBase58Check'], c.sends[3]!.id);
        },
      },
      { name: 'IsMempool after the last one: an empty page', body: (c) => ({ IsMempool: true, LastTransactionIDBase58Check: c.sends[3]!.id }), check: (r) => assert.deepEqual(r['Transactions'], []) },
      { name: 'a bad public key is refused', body: () => ({ PublicKeyBase58Check: stranger.pk.slice(0, -3) }), error: /^APITransactionInfo: Problem parsing PublicKeyBase58Check/ },
      { name: 'a negative Limit is refused', body: () => ({ PublicKeyBase58Check: alice.pk, Limit: -1 }), error: /Limit/ },
      { name: 'a bad LastTransactionIDBase58Check is refused', body: () => ({ IsMempool: true, LastTransactionIDBase58Check: 'zz' }), error: /^APITransactionInfo: Problem parsing LastTransactionIDBase58Check/ },
    ]);

    describe('/api/v1/transaction-info paging', () => {
      it("walks alice's transactions two at a time: each once, newest first, ending on an empty page", async () => {
        const c = ctx();
        const seen: string[] = [];
        let last = 0;
        for (let pages = 0; ; pages++) {
          assert.ok(pages < 10, 'the walk ends');
          const r = (await postJson(c.n.url, '/api/v1/transaction-info', { PublicKeyBase58Check: alice.pk, Limit: 2, LastPublicKeyTransactionIndex: last })).json as J;
          if ((r['Transactions'] as J[]).length === 0) {
            assert.equal(r['LastPublicKeyTransactionIndex'], 0);
            break;
          }
          seen.push(...ids(r));
          last = r['LastPublicKeyTransactionIndex'] as number;
        }
        assert.deepEqual(seen, [...c.sends].reverse().map((s) => s.id).concat(c.funded.id));
      });
    });
  });
}

for (const store of TEST_STORES) suite(store);
