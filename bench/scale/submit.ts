/**
 * submit-transaction with a fixed number of requests in flight, one keep-alive connection each
 * (raw sockets: bench/http/keepAliveClient.ts, so the client takes little of the cores the node
 * shares with it).
 * A full mempool (400 RuleErrorMempoolFull) or a busy one (503) is waited out and the same
 * transaction sent again, as a wallet would; any other refusal counts as an error.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { KeepAliveConnection } from '../http/keepAliveClient.js';

/** Wait before resending a transaction the mempool had no room or time for. */
const RETRY_AFTER_MS = 200;
const MAX_ERROR_SAMPLES = 5;

/** Makes one signed transaction (built when its turn comes, so signing overlaps the requests). */
export type TxnSource = () => Uint8Array | Promise<Uint8Array>;

export interface SubmitStats {
  submitted: number;
  accepted: number;
  errors: number;
  /** Resends after a full or busy mempool. */
  retries: number;
  /** From the first request to the last answer. */
  elapsedMs: number;
  errorSamples: string[];
  /** TxnHashHex of the last accepted transaction, '' when none. */
  lastHashHex: string;
  /**
   * Milliseconds from sending an accepted transaction to its answer (its last send, when
   * resent): once answered it is in the pending state every read sees (submit-to-visible).
   */
  latencyMs: { p50: number; p99: number };
  /** Accepted transactions in each WINDOW_MS of the run, in order (the last window may be short). */
  acceptedPerWindow: number[];
}

/** The window of SubmitStats.acceptedPerWindow: short enough to show a stall of the node. */
export const WINDOW_MS = 250;

/** Options of a submission run. */
export interface SubmitOptions {
  /** Stop taking new transactions after this many ms (those in flight finish). @default none */
  forMs?: number;
}

export async function submitAll(port: number, txns: readonly TxnSource[], inFlight: number, opts: SubmitOptions = {}): Promise<SubmitStats> {
  const stats: SubmitStats = { submitted: 0, accepted: 0, errors: 0, retries: 0, elapsedMs: 0, errorSamples: [], lastHashHex: '', latencyMs: { p50: 0, p99: 0 }, acceptedPerWindow: [] };
  const latencies: number[] = [];
  const stopAt = opts.forMs === undefined ? Infinity : performance.now() + opts.forMs;
  let next = 0;
  // Set as the workers start: accepted transactions are counted in windows from then.
  let t0 = 0;
  const connections: KeepAliveConnection[] = [];
  const worker = async (): Promise<void> => {
    const connection = new KeepAliveConnection(port);
    connections.push(connection);
    while (next < txns.length && performance.now() < stopAt) {
      stats.submitted++;
      const bytes = await txns[next++]!();
      const body = JSON.stringify({ TransactionHex: Buffer.from(bytes).toString('hex') });
      for (;;) {
        let r: { status: number; text: string };
        const sentAt = performance.now();
        try {
          r = await connection.post('/api/v0/submit-transaction', body);
        } catch (err) {
          r = { status: 0, text: (err as Error).message };
        }
        if (r.status === 200) {
          stats.accepted++;
          const answeredAt = performance.now();
          latencies.push(answeredAt - sentAt);
          const w = Math.floor((answeredAt - t0) / WINDOW_MS);
          while (stats.acceptedPerWindow.length <= w) stats.acceptedPerWindow.push(0);
          stats.acceptedPerWindow[w]!++;
          stats.lastHashHex = (JSON.parse(r.text) as { TxnHashHex: string }).TxnHashHex;
        } else if (r.status === 503 || (r.status === 400 && r.text.includes('RuleErrorMempoolFull'))) {
          stats.retries++;
          await sleep(RETRY_AFTER_MS);
          continue;
        } else {
          stats.errors++;
          if (stats.errorSamples.length < MAX_ERROR_SAMPLES) stats.errorSamples.push(`${r.status} ${r.text.slice(0, 300)}`);
        }
        break;
      }
    }
  };
  t0 = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.min(inFlight, txns.length) }, worker));
  } finally {
    for (const c of connections) c.close();
  }
  stats.elapsedMs = performance.now() - t0;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  stats.latencyMs = { p50: at(0.5), p99: at(0.99) };
  return stats;
}

/** Throws with the first refusals when any transaction of `what` was refused. */
export function assertAllAccepted(what: string, s: SubmitStats): void {
  if (s.errors > 0) throw new Error(`${what}: ${s.errors} of ${s.submitted} transactions refused: ${s.errorSamples.join(' | ')}`);
}
