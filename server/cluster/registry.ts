import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';

/**
 * One expiring map holding every process's entry: node-info reads it in one store operation,
 * whatever else the store holds (a SCAN for per-process keys walked every key of the chain).
 */
const MAP_KEY = 'node:processes';

/** How often a process renews its entry, and how long an entry outlives a silent process. */
export const HEARTBEAT_INTERVAL_MS = 2_000;
const TTL_BEATS = 3;
export const HEARTBEAT_TTL_MS = TTL_BEATS * HEARTBEAT_INTERVAL_MS;

export interface ProcessEntry {
  ProcessId: string;
  /** The OS process id (operators and fault tests signal a process by it). */
  Pid: number;
  StartedAtUnixMs: number;
  LastSeenUnixMs: number;
}

export function newProcessId(): string {
  return randomBytes(6).toString('hex');
}

/**
 * Every server process announces itself in the shared store with an expiring heartbeat, so any
 * process can tell which processes are serving (node-info) and, later, elect a block producer.
 */
export class ProcessRegistry {
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();

  constructor(
    private readonly store: Store,
    readonly processId: string,
    private readonly log: Logger,
    /** How often to renew the entry (tests shorten it); it outlives a silent process by three. */
    private readonly intervalMs: number = HEARTBEAT_INTERVAL_MS,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beat().catch((err: Error) => this.log.warn({ msg: err.message }, 'heartbeat failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  private beat(): Promise<void> {
    const entry: ProcessEntry = {
      ProcessId: this.processId,
      Pid: process.pid,
      StartedAtUnixMs: this.startedAt,
      LastSeenUnixMs: Date.now(),
    };
    return this.store.mapSet(MAP_KEY, this.processId, entry, TTL_BEATS * this.intervalMs);
  }

  /** Live processes, oldest first. */
  async list(): Promise<ProcessEntry[]> {
    const entries = await this.store.mapEntries<ProcessEntry>(MAP_KEY);
    return [...entries.values()].sort((a, b) => a.StartedAtUnixMs - b.StartedAtUnixMs || a.ProcessId.localeCompare(b.ProcessId));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.store.mapDelete(MAP_KEY, this.processId).catch(() => undefined);
  }
}
