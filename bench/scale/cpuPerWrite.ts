/**
 * CPU time the node and Redis spend per accepted write during the sustained run, from Linux's
 * /proc (user + system time of a process, and of the node's main thread alone). Throughput on
 * a shared 2-core machine moves ±15% between identical runs with the machine's load; CPU per
 * write moves far less, so it is what says whether a change made the write path cheaper.
 * Null where /proc is not there.
 * @module
 */
import { Redis } from 'ioredis';
import { processCpuMs } from '../http/harness.js';
import { mainThreadCpuMs } from '../load/node.js';

export interface CpuPerWrite {
  /** µs of CPU per accepted write: the node (all threads: HTTP, admission, blocks, crypto workers, the built-in miner's hashing). */
  nodeUs: number;
  /** µs of the node's main thread (its event loop) per accepted write. */
  nodeMainUs: number;
  /** µs of redis-server per accepted write. */
  redisUs: number;
}

/** Starts counting; `per(accepted)` answers the CPU per write since. */
export async function countCpu(nodePid: number, redisUrl: string): Promise<{ per(accepted: number): CpuPerWrite | null } | null> {
  const client = new Redis(redisUrl, { lazyConnect: true });
  let redisPid: number;
  try {
    await client.connect();
    redisPid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
  } finally {
    client.disconnect();
  }
  /** CPU ms so far; null where /proc cannot say (the readers answer NaN). */
  const sample = (): { node: number; main: number; redis: number } | null => {
    const s = { node: processCpuMs(nodePid), main: mainThreadCpuMs(nodePid), redis: processCpuMs(redisPid) };
    return Number.isNaN(s.node + s.main + s.redis) ? null : s;
  };
  const start = sample();
  if (start === null) return null;
  return {
    per(accepted) {
      const end = sample();
      if (end === null || accepted === 0) return null;
      const us = (ms: number): number => Math.round((ms * 1e3) / accepted);
      return { nodeUs: us(end.node - start.node), nodeMainUs: us(end.main - start.main), redisUs: us(end.redis - start.redis) };
    },
  };
}
