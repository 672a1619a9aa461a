/**
 * What the data set costs in Redis, per entity. One SCAN over the whole keyspace counts keys by
 * kind (key prefix, after the store's `sn:` and its namespace: `v:` values, `x:` indexes, …;
 * server/store/redis.ts), keeping a bounded random sample of each kind; MEMORY USAGE (every
 * nested element counted) and PTTL of the sampled keys give each kind's mean size and the
 * share that expires, scaled to its key count. A bench may SCAN; the node never does.
 *
 * An entity's bytes are those of its records plus its share of the indexes that list it:
 *   profile  chain:profile:<pk>, chain:username:<name>, the profile indexes (chain:profiles:*)
 *   dm       chain:dm:<pair>:<ts>, each thread's message index, each user's thread index
 *   order    chain:dao:order:<id>, the pair books, the per-transactor indexes
 *   history  per mined transaction: the blocks holding it (b:), its location (a member of a
 *            t: bucket) and the height index (h:)
 * divided by the records of that entity (profiles, DMs, open orders, located transactions: the
 * members of every t: bucket, counted exactly).
 * Expiring data is every sampled key with a TTL, scaled the same way (block write lists, block
 * templates, mempool entries, leases, rate buckets).
 * @module
 */
import { Redis } from 'ioredis';
import { REDIS_STORE_DEFAULTS } from '../../server/store/redis.js';

/** Index kinds whose members are an entity's records (summed over every key of the kind). */
const MEMBER_RECORD_KIND: Partial<Record<Entity, string>> = { history: 'x:t:' };

/** Keys sampled per kind: enough for a mean within a few percent on uniform kinds. */
const SAMPLE_PER_KIND = 400;
const SCAN_COUNT = 1000;
const PIPELINE_BATCH = 500;

export type Entity = 'profile' | 'balance' | 'dm' | 'order' | 'daoCoin' | 'history' | 'keyTxns' | 'nonce' | 'blockWrites' | 'other';

/** Key kinds by prefix (after `sn:`), and the entity whose bytes they are. */
const KINDS: ReadonlyArray<{ entity: Entity; prefixes: readonly string[] }> = [
  // Layout 2 (server/chain/state/keys.ts).
  { entity: 'profile', prefixes: ['v:p:', 'v:u:', 'x:p-names', 'x:p-locked'] },
  { entity: 'balance', prefixes: ['v:$:'] },
  { entity: 'dm', prefixes: ['v:d:', 'x:d-ts:', 'x:d-rows:'] },
  { entity: 'order', prefixes: ['v:o:', 'x:o-book:', 'x:o-by:'] },
  { entity: 'daoCoin', prefixes: ['v:chain:dao:coin:', 'v:chain:dao:bal:', 'x:chain:dao:holders:', 'x:chain:dao:holdings:'] },
  { entity: 'history', prefixes: ['v:b:', 'x:t:', 'v:h:'] },
  // The per-key transaction index of /api/v1/transaction-info (layout 5): kept for good too,
  // reported on its own (issue 18's history target predates it).
  { entity: 'keyTxns', prefixes: ['x:K:'] },
  // Used nonces: kept until their expiration height, then pruned (a window, not history).
  { entity: 'nonce', prefixes: ['v:n:', 'x:n-exp'] },
  { entity: 'blockWrites', prefixes: ['v:chain:blockwrites:'] },
];

/** The kind whose key count is each entity's record count. */
const RECORD_KIND: Partial<Record<Entity, string>> = {
  profile: 'v:p:',
  balance: 'v:$:',
  dm: 'v:d:',
  order: 'v:o:',
  nonce: 'v:n:',
};

export interface KindFigures {
  kind: string;
  entity: Entity;
  keys: number;
  sampled: number;
  meanBytes: number;
  /** meanBytes × keys. */
  bytes: number;
  /** The part of `bytes` in keys with a TTL. */
  expiringBytes: number;
}

export interface RedisBytes {
  /** INFO memory used_memory / used_memory_dataset. */
  usedMemory: number;
  usedMemoryDataset: number;
  keys: number;
  /** Keys with a TTL (INFO keyspace). */
  keysWithTtl: number;
  kinds: KindFigures[];
  /** Records per entity (profiles, DMs, open orders, located transactions, balances). */
  records: Record<'profile' | 'balance' | 'dm' | 'order' | 'history', number>;
  /** Estimated bytes per entity (all its kinds). */
  entityBytes: Record<Entity, number>;
  /** entityBytes ÷ records. */
  bytesPer: { profile: number; dm: number; order: number; txnHistory: number; keyTxnsPerTxn: number; balance: number; liveNonce: number };
  expiringBytes: number;
  measureMs: number;
}

function kindOf(key: string, prefix: string): { kind: string; entity: Entity } {
  if (!key.startsWith(prefix)) return { kind: '(outside the store prefix)', entity: 'other' };
  const rest = key.slice(prefix.length);
  for (const k of KINDS) for (const p of k.prefixes) if (rest.startsWith(p)) return { kind: p, entity: k.entity };
  // Anything else: its first three segments ("v:chain:tip", "b:rl:…").
  const parts = rest.split(':');
  return { kind: parts.length > 3 ? `${parts.slice(0, 3).join(':')}:` : rest, entity: 'other' };
}

function infoField(info: string, name: string): number {
  const m = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  return m === null ? NaN : Number(m[1]);
}

export async function measureRedisBytes(url: string, prefix: string = REDIS_STORE_DEFAULTS.keyPrefix): Promise<RedisBytes> {
  const t0 = performance.now();
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  try {
    const kinds = new Map<string, { entity: Entity; keys: number; sample: string[] }>();
    const memberKinds = new Set(Object.values(MEMBER_RECORD_KIND));
    const memberKeys = new Map([...memberKinds].map((k) => [k, [] as string[]]));
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', SCAN_COUNT);
      cursor = next;
      for (const key of keys) {
        const { kind, entity } = kindOf(key, prefix);
        let k = kinds.get(kind);
        if (k === undefined) kinds.set(kind, (k = { entity, keys: 0, sample: [] }));
        k.keys++;
        if (memberKinds.has(kind)) memberKeys.get(kind)!.push(key);
        // Reservoir sampling: every key of the kind equally likely to be kept.
        if (k.sample.length < SAMPLE_PER_KIND) k.sample.push(key);
        else {
          const j = Math.floor(Math.random() * k.keys);
          if (j < SAMPLE_PER_KIND) k.sample[j] = key;
        }
      }
    } while (cursor !== '0');

    const figures: KindFigures[] = [];
    for (const [kind, k] of kinds) {
      let bytes = 0;
      let ttlBytes = 0;
      for (let i = 0; i < k.sample.length; i += PIPELINE_BATCH) {
        const batch = k.sample.slice(i, i + PIPELINE_BATCH);
        const p = redis.pipeline();
        for (const key of batch) p.call('MEMORY', 'USAGE', key, 'SAMPLES', '0').pttl(key);
        const replies = (await p.exec()) ?? [];
        for (let j = 0; j < batch.length; j++) {
          const usage = Number(replies[2 * j]?.[1] ?? 0);
          const pttl = Number(replies[2 * j + 1]?.[1] ?? -2);
          bytes += usage;
          if (pttl >= 0) ttlBytes += usage;
        }
      }
      const n = k.sample.length;
      figures.push({ kind, entity: k.entity, keys: k.keys, sampled: n, meanBytes: bytes / n, bytes: (bytes / n) * k.keys, expiringBytes: (ttlBytes / n) * k.keys });
    }
    figures.sort((a, b) => b.bytes - a.bytes);

    const memory = await redis.info('memory');
    const keyspace = await redis.info('keyspace');
    const db = /keys=(\d+),expires=(\d+)/.exec(keyspace);
    const entityBytes = { profile: 0, balance: 0, dm: 0, order: 0, daoCoin: 0, history: 0, keyTxns: 0, nonce: 0, blockWrites: 0, other: 0 } satisfies Record<Entity, number>;
    for (const f of figures) entityBytes[f.entity] += f.bytes;
    const count = (kind: string | undefined): number => figures.find((f) => f.kind === kind)?.keys ?? 0;
    const members = async (kind: string | undefined): Promise<number> => {
      let n = 0;
      const keys = memberKeys.get(kind ?? '') ?? [];
      for (let i = 0; i < keys.length; i += PIPELINE_BATCH) {
        const p = redis.pipeline();
        for (const key of keys.slice(i, i + PIPELINE_BATCH)) p.zcard(key);
        for (const [, c] of (await p.exec()) ?? []) n += Number(c ?? 0);
      }
      return n;
    };
    const records = {
      profile: count(RECORD_KIND.profile),
      balance: count(RECORD_KIND.balance),
      dm: count(RECORD_KIND.dm),
      order: count(RECORD_KIND.order),
      history: await members(MEMBER_RECORD_KIND.history),
      nonce: count(RECORD_KIND.nonce),
    };
    return {
      usedMemory: infoField(memory, 'used_memory'),
      usedMemoryDataset: infoField(memory, 'used_memory_dataset'),
      keys: db === null ? 0 : Number(db[1]),
      keysWithTtl: db === null ? 0 : Number(db[2]),
      kinds: figures,
      records,
      entityBytes,
      bytesPer: {
        profile: entityBytes.profile / records.profile,
        dm: entityBytes.dm / records.dm,
        order: entityBytes.order / records.order,
        txnHistory: entityBytes.history / records.history,
        keyTxnsPerTxn: entityBytes.keyTxns / records.history,
        balance: entityBytes.balance / records.balance,
        liveNonce: entityBytes.nonce / records.nonce,
      },
      expiringBytes: figures.reduce((a, f) => a + f.expiringBytes, 0),
      measureMs: performance.now() - t0,
    };
  } finally {
    redis.disconnect();
  }
}
