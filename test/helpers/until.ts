/** Polling for e2e and unit tests that wait on something asynchronous (never a speed check). */
import assert from 'node:assert/strict';

export interface UntilOptions {
  /** @default 10_000 */
  timeoutMs?: number;
  /** @default 20 */
  intervalMs?: number;
  /** Treat a probe that throws as "not yet" (e.g. a request to a process being killed). @default false */
  ignoreErrors?: boolean;
}

/**
 * Polls `probe` until it answers something other than undefined or false, and resolves with
 * that; fails naming `what` once `timeoutMs` passed.
 */
export async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, opts: UntilOptions = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    let v: T | undefined | false;
    try {
      v = await probe();
    } catch (err) {
      if (!opts.ignoreErrors) throw err;
      v = undefined;
    }
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 20));
  }
}
