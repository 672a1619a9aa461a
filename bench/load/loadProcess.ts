/**
 * The load process of bench/load.bench.ts, its own process on 127.0.0.1: the mixed read
 * workload (bench/http/loadgen.ts `runLoad` with a request list rotating over routes and keys)
 * and the write stream (bench/load/writer.ts) at the same time, against one node.
 *
 *   node --import tsx bench/load/loadProcess.ts --config run.json
 *
 * `run.json` holds a LoadProcessConfig. Writes start with the reads' warm-up, so the measured
 * window sees steady state. stderr carries `load: measure-start` / `load: measure-end` when the
 * window opens and closes (the bench samples server CPU there); stdout's last line is one
 * LoadProcessResult as JSON. After the window the writes stop, and every accepted write is
 * checked to be what the node serves (`verifyProblems`).
 * @module
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { runLoad, type LoadRequest, type LoadResult } from '../http/loadgen.js';
import type { Writer } from './setup.js';
import { WriteStream, type WriteStats } from './writer.js';

export interface LoadProcessConfig {
  port: number;
  connections: number;
  durationMs: number;
  warmupMs: number;
  requests: LoadRequest[];
  writers: Writer[];
  writesPerSec: number;
}

export interface LoadProcessResult {
  reads: LoadResult;
  writes: WriteStats;
  /** Tip height at the window's start and end (get-app-state). */
  tipStart: number;
  tipEnd: number;
  /** Accepted writes the node does not serve afterwards; empty when consistent. */
  verifyProblems: string[];
}

async function tipHeight(port: number): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v0/get-app-state`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  const json = (await r.json()) as { BlockHeight?: number };
  if (r.status !== 200 || typeof json.BlockHeight !== 'number') throw new Error(`get-app-state: ${r.status} ${JSON.stringify(json)}`);
  return json.BlockHeight;
}

export async function runLoadProcess(c: LoadProcessConfig, log: (line: string) => void): Promise<LoadProcessResult> {
  const writes = new WriteStream(c.port, c.writers, c.writesPerSec);
  let tipStart: Promise<number> = Promise.resolve(NaN);
  let tipEnd: Promise<number> = Promise.resolve(NaN);
  writes.start();
  const reads = await runLoad({
    port: c.port,
    method: 'POST',
    requests: c.requests,
    connections: c.connections,
    durationMs: c.durationMs,
    warmupMs: c.warmupMs,
    onMeasureStart: () => {
      log('load: measure-start');
      writes.measureStart();
      tipStart = tipHeight(c.port);
    },
    onMeasureEnd: () => {
      writes.measureEnd();
      log('load: measure-end');
      tipEnd = tipHeight(c.port);
    },
  });
  const writeStats = await writes.stop();
  return { reads, writes: writeStats, tipStart: await tipStart, tipEnd: await tipEnd, verifyProblems: await writes.verify() };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--config');
  if (i === -1 || process.argv[i + 1] === undefined) {
    process.stderr.write('load: --config run.json is required\n');
    process.exit(2);
  }
  const config = JSON.parse(readFileSync(process.argv[i + 1]!, 'utf8')) as LoadProcessConfig;
  const result = await runLoadProcess(config, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
