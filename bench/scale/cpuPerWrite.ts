/**
 * CPU time the node and Redis spend per accepted write during the sustained run, from Linux's
 * /proc (user + system time of a process, and of the node's main thread alone). Throughput on
 * a shared 2-core machine moves ±15% between identical runs with the machine's load; CPU per
 * write moves far less, so it is what says whether a change made the write path cheaper.
 * Null where /proc is not there.
 * @module
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SEC = 100;

/** user + system seconds of a process (`/proc/<pid>/stat`) or one of its threads (`/proc/<pid>/task/<tid>/stat`). */
function cpuSeconds(statPath: string): number {
  // Fields after the command name (which may hold spaces, closed by the last ')'): utime and stime are the 12th and 13th.
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SEC;
}

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
  const paths = { node: `/proc/${nodePid}/stat`, main: `/proc/${nodePid}/task/${nodePid}/stat`, redis: `/proc/${redisPid}/stat` };
  const sample = (): { node: number; main: number; redis: number } | null => {
    try {
      return { node: cpuSeconds(paths.node), main: cpuSeconds(paths.main), redis: cpuSeconds(paths.redis) };
    } catch {
      return null;
    }
  };
  const start = sample();
  if (start === null) return null;
  return {
    per(accepted) {
      const end = sample();
      if (end === null || accepted === 0) return null;
      const us = (s: number): number => Math.round((s * 1e6) / accepted);
      return { nodeUs: us(end.node - start.node), nodeMainUs: us(end.main - start.main), redisUs: us(end.redis - start.redis) };
    },
  };
}
