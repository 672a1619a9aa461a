/**
 * Bytes per entity in Redis (issue 18 item 2): populates a private redis-server through a real
 * node (construct → sign → submit-transaction → mined by the built-in miner) with N profiles,
 * N DMs and N limit orders, and after each kind sums `MEMORY USAGE` over every key, split into
 * state (what the entity keeps), history (blocks, transaction locations: kept forever) and
 * nonces (replay protection, kept until the nonce's expiration height). Per entity = the
 * growth of a class over the phase / N.
 *
 *   npx tsx bench/entityBytes.ts [N=200]
 *
 * Last results (N=200, redis-server 7.0.15, this 2-core dev machine; bytes per entity, history
 * and nonces per transaction), state / history / nonces:
 *
 * |                          | layout 1 (hex keys, objects)  | layout 2 (key text, tuples)  |
 * |--------------------------|-------------------------------|------------------------------|
 * | basic transfer           | 154 / 457 / 184               | 121 / 292 / 310              |
 * | profile (40-char descr.) | 983 / 471 / 184               | 568 / 312 / 304              |
 * | DM (129-byte text)       | 1301 / 784 / 183              | 396 / 641 / 336              |
 * | limit order (resting)    | 1985 / 570 / 183              | 556 / 400 / 272              |
 *
 * Nonces were kept forever in layout 1; in layout 2 they cost more (key plus an index member)
 * but only until their expiration height, then block connect deletes them. History is mostly
 * the signed transaction itself in its block (a DM transaction carries four keys and its text).
 * @module
 */
import { Redis } from 'ioredis';
import { dmBody, keyPair, profileBody, startChainNode, type ChainNode, type J, type KeyPair } from '../test/helpers/chainNode.js';
import { startRedisServer } from '../test/helpers/redisServer.js';

const N = Number(process.argv[2] ?? 200);
const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;

type Class = 'state' | 'history' | 'nonces' | 'transient';

/** What a store key (without the RedisStore's `sn:<kind>:` namespace) is. */
function classify(storeKey: string): Class {
  if (/^(chain:blockwrites:|mempool:|chain:template:|leases)/.test(storeKey)) return 'transient';
  // Layout 2 (chain/state/keys.ts).
  if (/^[bht]:/.test(storeKey)) return 'history';
  if (/^n[:-]/.test(storeKey)) return 'nonces';
  return 'state';
}

async function usage(redis: Redis): Promise<Record<Class, number>> {
  const out: Record<Class, number> = { state: 0, history: 0, nonces: 0, transient: 0 };
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const bytes = (await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) as number | null;
      const storeKey = key.replace(/^sn:[a-z]+:/, '');
      out[key.startsWith('sn:') && !/^sn:[vx]:/.test(key) ? 'transient' : classify(storeKey)] += bytes ?? 0;
    }
  } while (cursor !== '0');
  return out;
}

/** Signs and submits every constructed transaction, then waits until the last one is mined. */
async function submitAll(n: ChainNode, txns: Array<{ path: string; body: J; signer: KeyPair }>): Promise<void> {
  let last = '';
  for (const t of txns) {
    const c = await n.ok(t.path, { ...FEE, ...t.body });
    const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, t.signer, 'sdk') });
    last = s['TxnHashHex'] as string;
  }
  await n.waitMined(last);
}

async function main(): Promise<void> {
  const redisServer = await startRedisServer();
  const n = await startChainNode({ redisUrl: redisServer.url });
  const redis = new Redis(redisServer.url);
  const rows: Array<{ phase: string; perEntity: Record<Class, number> }> = [];
  let before = await usage(redis);
  const phase = async (name: string, txns: Array<{ path: string; body: J; signer: KeyPair }>): Promise<void> => {
    await submitAll(n, txns);
    const now = await usage(redis);
    const per = {} as Record<Class, number>;
    for (const c of Object.keys(now) as Class[]) per[c] = Math.round((now[c] - before[c]) / txns.length);
    rows.push({ phase: name, perEntity: per });
    before = now;
  };
  try {
    const keys = Array.from({ length: N }, () => keyPair());
    const creator = keyPair();
    await n.fund(creator.pk, 1e9);
    await phase(
      `basic transfer (send-deso) ×${N}`,
      keys.map((k) => ({ path: 'send-deso', body: { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: 1e7 }, signer: n.miner })),
    );
    const tag = Date.now().toString(36);
    await phase(
      `profile (update-profile, 40-char description) ×${N}`,
      keys.map((k, i) => ({ path: 'update-profile', body: profileBody(k.pk, `u${tag}${i}`, 'a forty character profile description ok'), signer: k })),
    );
    // The size of a short message encrypted to a key (ECIES: 65 + 16 + 32 + one block): 129 bytes.
    const dm = (from: KeyPair, to: KeyPair): J => dmBody(from.pk, to.pk, 'x'.repeat(129));
    // N/10 threads of ten messages each, both ways: thread rows are shared, messages are not.
    const threads = Math.max(1, Math.floor(N / 10));
    const dms = keys.map((_, i) => {
      const [a, b] = [keys[i % threads]!, keys[threads + (i % threads)]!];
      return Math.floor(i / threads) % 2 === 0 ? { path: 'send-dm-message', body: dm(a, b), signer: a } : { path: 'send-dm-message', body: dm(b, a), signer: b };
    });
    await phase(`DM (send-dm-message, 129-byte text, threads of 10) ×${N}`, dms);
    await submitAll(n, [
      { path: 'update-profile', body: profileBody(creator.pk, `c${tag}`), signer: creator },
      { path: 'dao-coin', body: { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: `0x${(1000n * COIN).toString(16)}` }, signer: creator },
    ]);
    before = await usage(redis);
    // Resting bids at distinct prices (none crosses: there is no ask).
    await phase(
      `limit order (resting BID) ×${N}`,
      keys.map((k, i) => ({
        path: 'create-dao-coin-limit-order',
        body: {
          TransactorPublicKeyBase58Check: k.pk,
          BuyingDAOCoinCreatorPublicKeyBase58Check: creator.pk,
          SellingDAOCoinCreatorPublicKeyBase58Check: 'DESO',
          Price: `0.${String(1000 + i).padStart(6, '0')}`,
          Quantity: '1',
          OperationType: 'BID',
          FillType: 'GOOD_TILL_CANCELLED',
        },
        signer: k,
      })),
    );
    console.log(`bytes per entity in Redis (MEMORY USAGE, N=${N}); history and nonces are per transaction`);
    console.table(Object.fromEntries(rows.map((r) => [r.phase, r.perEntity])));
  } finally {
    redis.disconnect();
    await n.close();
    await redisServer.stop();
  }
}

await main();
