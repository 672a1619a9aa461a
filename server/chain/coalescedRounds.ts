/**
 * Rounds of work run on request, one at a time: requests that arrive while a round runs cause
 * exactly one more round afterwards, never one per request, so a burst costs two rounds and the
 * last round always starts after the last request. The miner feed's pushes and the block
 * producer's template announcements both run this way.
 * @module
 */
export class CoalescedRounds {
  private running: Promise<void> | null = null;
  private again = false;

  /**
   * @param round one round; must not reject (it reports its own failures)
   * @param active whether a request (or the pending extra round) should run at all now
   */
  constructor(
    private readonly round: () => Promise<void>,
    private readonly active: () => boolean,
  ) {}

  request(): void {
    if (!this.active()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Resolves once no round runs (for shutdown). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.round();
    } while (this.again && this.active());
  }
}
