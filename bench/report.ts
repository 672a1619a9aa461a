/**
 * What `npm run bench -- --json FILE` writes and `--compare FILE` reads: the machine the run
 * measured on, how it measured (rounds, quick), and every bench's figures. The machine class
 * names the committed baselines (bench/baselines/check-<class>.json): ratios carry across
 * machines of one class, absolutes only roughly.
 * @module
 */
import { cpus, loadavg } from 'node:os';
import { checkFigures, type Figure } from './figures.js';
import type { BenchSettings } from './_shared.js';

/** How a run measured: the benches' settings, and how many processes ran them (merged). */
export interface RunSettings extends BenchSettings {
  processes: number;
}

/** `3 processes × 3 rounds, quick`. */
export function describeSettings(s: Partial<RunSettings>): string {
  return `${s.processes ?? 1} process${(s.processes ?? 1) === 1 ? '' : 'es'} × ${s.rounds ?? '?'} rounds${s.quick === true ? ', quick' : ''}`;
}

export interface BenchReport {
  /** The machine class: `2core-amd-epyc-node20`. */
  machine: string;
  /** process.version: `v20.20.2`. */
  node: string;
  /** The first CPU's model string. */
  cpu: string;
  cores: number;
  /** ISO 8601, when the run ended. */
  date: string;
  settings: RunSettings;
  /** 1-minute load average at the start and the end: how busy the machine was besides the run. */
  loadavg: { start: number; end: number };
  /** Wall time per bench, seconds. */
  seconds?: Record<string, number>;
  /** Figures per bench file name (`hash.bench.ts`), in the order they ran. */
  benches: Record<string, Figure[]>;
}

/**
 * `2core-amd-epyc-node20`: cores, the CPU's maker and family (the first two words of its model,
 * trademarks dropped) and Node's major version, the three things that move same-run ratios most.
 */
export function machineClass(cpuModel: string, cores: number, nodeVersion: string): string {
  const words = cpuModel
    .replace(/\((R|TM|C)\)/gi, ' ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && w !== 'cpu');
  const family = words.slice(0, 2).join('-') || 'unknown-cpu';
  const major = /^v?(\d+)/.exec(nodeVersion)?.[1] ?? 'unknown';
  return `${cores}core-${family}-node${major}`;
}

/** This machine, as a report names it. */
export function thisMachine(): Pick<BenchReport, 'machine' | 'node' | 'cpu' | 'cores'> {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown';
  const cores = cpus().length;
  return { machine: machineClass(cpu, cores, process.version), node: process.version, cpu, cores };
}

/** The 1-minute load average now. */
export function loadNow(): number {
  return Number(loadavg()[0]!.toFixed(2));
}

/** Parses a report's JSON text; throws naming `source` when it is not one. */
export function parseReport(text: string, source: string): BenchReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON (${(err as Error).message})`);
  }
  const r = raw as Partial<BenchReport>;
  if (typeof r !== 'object' || r === null || typeof r.machine !== 'string' || typeof r.benches !== 'object' || r.benches === null) {
    throw new Error(`${source}: not a bench report (expected { machine, node, cpu, cores, date, settings, benches })`);
  }
  for (const [bench, figures] of Object.entries(r.benches)) checkFigures(`${source}: ${bench}`, figures);
  return r as BenchReport;
}
