/**
 * Runs N server processes on one port. uWS listens with SO_REUSEPORT on Linux, so each child
 * binds the port itself and the kernel spreads connections; the supervisor only starts,
 * restarts and stops children, and relays a scraped child's request for the others' metrics
 * (metricsRelay.ts). It holds no node state.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { isRelayRequest, SupervisorMetricsRelay, type RelayPeer, type RelayRequest } from './metricsRelay.js';

/** Env var that tells main.ts it runs as a supervised child. */
export const CHILD_ENV = 'SOCIAL_NODE_CHILD';

/** A child that dies sooner than this after its start counts as a crash loop. */
const MIN_HEALTHY_UPTIME_MS = 10_000;
/** Consecutive quick crashes of one slot before the supervisor gives up. */
const MAX_QUICK_CRASHES = 5;
const RESTART_DELAY_MS = 500;

export type ChildMessage = { type: 'ready'; port: number; processId: string } | { type: 'startup-failed'; message: string };

interface Slot {
  index: number;
  child: ChildProcess | undefined;
  startedAt: number;
  quickCrashes: number;
  everReady: boolean;
  /** The current child said `ready` (reset when it is restarted). */
  ready: boolean;
}

export interface SupervisorOptions {
  processes: number;
  shutdownTimeoutMs: number;
  log: Logger;
}

/** Resolves with the exit code the supervisor should exit with. */
export function supervise(opts: SupervisorOptions): Promise<number> {
  const { log } = opts;
  const slots: Slot[] = Array.from({ length: opts.processes }, (_, index) => ({
    index,
    child: undefined,
    startedAt: 0,
    quickCrashes: 0,
    everReady: false,
    ready: false,
  }));
  let stopping = false;
  let exitCode = 0;
  const peers = (): RelayPeer[] =>
    slots.map((s) => ({
      slot: s.index,
      ready: s.ready && s.child !== undefined,
      send: (message) => {
        const child = s.child;
        if (child === undefined || !child.connected) return false;
        // The callback takes a channel closed meanwhile (the child died): it simply does not answer.
        child.send(message, undefined, {}, () => undefined);
        return true;
      },
    }));
  const metricsRelay = new SupervisorMetricsRelay(peers);

  return new Promise((resolve) => {
    const maybeDone = (): void => {
      if (stopping && slots.every((s) => s.child === undefined)) {
        metricsRelay.stop();
        resolve(exitCode);
      }
    };

    const stopAll = (code: number, signal: NodeJS.Signals = 'SIGTERM'): void => {
      if (!stopping) exitCode = code;
      stopping = true;
      for (const s of slots) s.child?.kill(signal);
      // Children drain for up to shutdownTimeoutMs; do not wait forever for a stuck one.
      setTimeout(() => {
        for (const s of slots) s.child?.kill('SIGKILL');
      }, opts.shutdownTimeoutMs + 2_000).unref();
      maybeDone();
    };

    const start = (slot: Slot): void => {
      const child = fork(process.argv[1]!, process.argv.slice(2), {
        env: { ...process.env, [CHILD_ENV]: String(slot.index) },
        execArgv: process.execArgv,
        stdio: 'inherit',
      });
      slot.child = child;
      slot.startedAt = Date.now();
      slot.ready = false;
      child.on('message', (m: ChildMessage | RelayRequest) => {
        if (isRelayRequest(m)) {
          metricsRelay.onMessage(slot.index, m);
        } else if (m?.type === 'ready') {
          slot.everReady = true;
          slot.ready = true;
          log.info({ slot: slot.index, childPid: child.pid, processId: m.processId, port: m.port }, 'server process ready');
          if (slots.every((s) => s.everReady)) log.info({ processes: slots.length, port: m.port }, 'all server processes ready');
        } else if (m?.type === 'startup-failed') {
          log.error({ slot: slot.index, reason: m.message }, 'server process failed to start');
        }
      });
      child.on('exit', (code, signal) => {
        slot.child = undefined;
        slot.ready = false;
        if (stopping) return maybeDone();
        if (!slot.everReady) {
          // A child that never got ready (bad port, Redis unreachable, fallback refused) will
          // fail the same way again: stop the whole node with its exit code.
          log.error({ slot: slot.index, code, signal }, 'server process exited before it was ready; stopping');
          return stopAll(code || 1);
        }
        const quick = Date.now() - slot.startedAt < MIN_HEALTHY_UPTIME_MS;
        slot.quickCrashes = quick ? slot.quickCrashes + 1 : 0;
        if (slot.quickCrashes >= MAX_QUICK_CRASHES) {
          log.error({ slot: slot.index }, `server process crashed ${MAX_QUICK_CRASHES} times in a row; stopping`);
          return stopAll(1);
        }
        log.warn({ slot: slot.index, code, signal }, 'server process died; restarting');
        setTimeout(() => !stopping && start(slot), RESTART_DELAY_MS);
      });
    };

    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      process.on(sig, () => {
        log.info({ signal: sig }, 'stopping server processes');
        stopAll(0);
      });
    }
    for (const s of slots) start(s);
  });
}
