/**
 * What a process started, stopped in reverse: each part registers how to stop it as it starts,
 * and one call stops them all, last started first. Used for a start that fails halfway and for
 * a graceful shutdown alike, so the two can never stop things in different orders or forget
 * one. A stop that fails is logged and the rest still run.
 * @module
 */
import type { Logger } from 'pino';

export class Teardown {
  private readonly steps: Array<{ name: string; stop: () => unknown }> = [];

  constructor(private readonly log: Logger) {}

  /** Registers a started part; returns it, so a start reads `const x = down.add('x', start(), (x) => x.stop())`. */
  add<T>(name: string, part: T, stop: (part: T) => unknown): T {
    this.steps.push({ name, stop: () => stop(part) });
    return part;
  }

  /** Stops every registered part, last first; registering again afterwards starts a new list. */
  async run(): Promise<void> {
    for (let step = this.steps.pop(); step !== undefined; step = this.steps.pop()) {
      try {
        await step.stop();
      } catch (err) {
        this.log.warn({ part: step.name, msg: (err as Error)?.message }, 'shutdown: a part failed to stop');
      }
    }
  }
}
