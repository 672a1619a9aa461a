import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';

const KEY_PREFIX = 'node:process:';

/** How often a process renews its entry, and how long an entry outlives a silent process. */
export const HEARTBEAT_INTERVAL_MS = 2_000;
export const HEARTBEAT_TTL_MS = 3 * HEARTBEAT_INTERVAL_MS;

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
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beat().catch((err: Error) => this.log.warn({ msg: err.message }, 'heartbeat failed'));
    }, HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  private beat(): Promise<void> {
    const entry: ProcessEntry = {
      ProcessId: this.processId,
      Pid: process.pid,
      StartedAtUnixMs: this.startedAt,
      LastSeenUnixMs: Date.now(),
    };
    return this.store.set(KEY_PREFIX + this.processId, entry, { ttlMs: HEARTBEAT_TTL_MS });
  }

  /** Live processes, oldest first. */
  async list(): Promise<ProcessEntry[]> {
    const keys = await this.store.keys(KEY_PREFIX, 1_000);
    const entries = await this.store.getMany<ProcessEntry>(keys);
    return entries
      .filter((e): e is ProcessEntry => e !== undefined)
      .sort((a, b) => a.StartedAtUnixMs - b.StartedAtUnixMs || a.ProcessId.localeCompare(b.ProcessId));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.store.delete(KEY_PREFIX + this.processId).catch(() => undefined);
  }
}
