/**
 * A DM page through the pending view (tip plus mempool, chain/state/view.ts) on a private
 * Redis: the view's range read (the page, plus the pending changes merged in) against the
 * former one (the whole range read from the store, the pending changes applied, then cut to
 * the page), in the same run, for threads of 10 and 20,000 messages, with and without one
 * unmined message. Messages are written to the store directly (no transactions): only the read
 * is measured. Each sample is `dmMessagesPage` (10 newest messages: the index read and the
 * records) on a fresh view, as a request gets one. SAMPLES per reader and case are shared among
 * the rounds (BENCH_ROUNDS, bench/_shared.ts): each round reads a block of former then a block
 * of now, each after 10 warm-up reads; a round gives p50 former ÷ p50 now, the figure.
 *
 * The last line is one JSON object: p50 ms per case, former and now (medians of the rounds).
 *
 * Last results, 2026-11-25, 2-core sandbox under load (load average ~7), p50 ms former → now:
 * thread 10: 1.61 → 1.49, with one unmined message 0.60 → 0.47; thread 20,000: 20.31 → 0.41,
 * with one unmined message 33.05 → 0.37 (two earlier runs: 41.34 → 0.48, 40.43 → 3.04 with the
 * readers interleaved, the former one's garbage landing in the other's samples).
 * @module
 */
import { pathToFileURL } from 'node:url';
import { groupId } from '../server/chain/state/accessGroups.js';
import { dmMessagesPage, putDmMessage, type NewMessageRecord } from '../server/chain/state/messages.js';
import type { StateIndexReader } from '../server/chain/state/accessGroups.js';
import { StateView } from '../server/chain/state/view.js';
import { RedisStore } from '../server/store/index.js';
import { startRedisServer } from '../test/helpers/redisServer.js';
import { indexOpsOf, wholeRangeModel } from '../test/helpers/wholeRangeModel.js';
import { benchSettings, printFigure } from './_shared.js';
import { absoluteFigure, median, ratioFigure, type Figure } from './figures.js';

const PAGE = 10;
/** Reads per reader and case in all, over every round (fewer in quick mode). */
const SAMPLES = 150;
const WARMUP_READS = 10;

function message(sender: Uint8Array, recipient: Uint8Array, ts: bigint): NewMessageRecord {
  const name = new Uint8Array(Buffer.from('default-key'));
  return {
    senderAccessGroupOwnerPublicKey: sender,
    senderAccessGroupKeyName: name,
    senderAccessGroupPublicKey: sender,
    recipientAccessGroupOwnerPublicKey: recipient,
    recipientAccessGroupKeyName: name,
    recipientAccessGroupPublicKey: recipient,
    encryptedText: new Uint8Array(120).fill(Number(ts % 251n)),
    timestampNanos: ts,
    extraData: [],
  };
}

const pk = (b: number): Uint8Array => new Uint8Array(33).fill(b).fill(2, 0, 1);
const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<Figure[]> {
  const redis = await startRedisServer();
  const store = await RedisStore.connect({ url: redis.url, keyPrefix: 'vb:' });
  const results: Record<string, { formerMs: number; nowMs: number }> = {};
  const figures: Figure[] = [];
  // Quick mode keeps every sample: the reads take ~3 s of the bench's ~6 (the rest is writing
  // the 20,000 messages), and fewer samples leave p50 of the short thread at the mercy of noise.
  const { rounds } = benchSettings();
  const perRound = Math.max(5, Math.round(SAMPLES / rounds));
  try {
    for (const size of [10, 20_000]) {
      const [a, b] = [pk(size === 10 ? 3 : 4), pk(size === 10 ? 5 : 6)];
      for (let from = 0; from < size; from += 1000) {
        const v = StateView.over(store);
        for (let i = from; i < Math.min(size, from + 1000); i++) putDmMessage(v, message(i % 2 ? a : b, i % 2 ? b : a, 1_000_000n + BigInt(i)));
        await store.commit(v.ops());
      }
      const ga = groupId(a, new Uint8Array(Buffer.from('default-key')));
      const gb = groupId(b, new Uint8Array(Buffer.from('default-key')));
      for (const unmined of [0, 1]) {
        const p50s: Record<'former' | 'now', number[]> = { former: [], now: [] };
        for (let round = 0; round < rounds; round++) {
          // One block per reader (the former one's garbage would land in the other's samples), warm-up reads first.
          for (const which of ['former', 'now'] as const) {
            const times: number[] = [];
            for (let s = -WARMUP_READS; s < perRound; s++) {
              const root = StateView.over(store);
              if (unmined) putDmMessage(root, message(a, b, 1_000_000n + BigInt(size)));
              const view = root.child();
              const ops = indexOpsOf(root.ops());
              const reader: StateIndexReader = which === 'now' ? view : { get: (k) => view.get(k), indexRange: (k, r) => wholeRangeModel(store, ops, k, r), indexSize: (k) => view.indexSize(k) };
              const t0 = performance.now();
              const page = await dmMessagesPage(reader, ga, gb, { before: 1n << 62n, limit: PAGE });
              if (s >= 0) times.push(performance.now() - t0);
              if (page.length !== PAGE || page[0]!.timestampNanos !== 1_000_000n + BigInt(size - 1 + unmined)) throw new Error('wrong page');
            }
            p50s[which].push(p50(times));
          }
        }
        const [former, now] = [median(p50s.former), median(p50s.now)];
        const name = `thread ${size}, unmined ${unmined}`;
        results[name] = { formerMs: +former.toFixed(2), nowMs: +now.toFixed(2) };
        console.log(`${name.padEnd(28)} former ${former.toFixed(2).padStart(7)} ms   now ${now.toFixed(2).padStart(6)} ms   (p50 of ${perRound}, median of ${rounds} rounds)`);
        const key = `Thread${size}${unmined ? 'Unmined' : ''}`;
        const speedup = ratioFigure(`dmPageVsFormer${key}`, p50s.former, p50s.now);
        printFigure(`${name}, former p50 / now p50`, speedup);
        figures.push(speedup, absoluteFigure(`dmPageP50Ms${key}`, p50s.now, 'ms', 'lower'));
      }
    }
    console.log(JSON.stringify(results));
    return figures;
  } finally {
    await store.close();
    await redis.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
