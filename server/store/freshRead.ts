/**
 * One store read shared by every caller that asks while it can still answer them freshly.
 *
 * Every read route first asks the store where the chain is (tip and mempool version). Under
 * load that is one Redis round trip per request for the same two keys. Sharing one read
 * between concurrent callers must not make anyone see the past, so a caller only joins a
 * read that *starts after* it asked: while a read is in flight, newcomers wait for the next
 * one, which starts as soon as the current one settles. Each caller therefore sees the store
 * as it was at some moment after its call (as if it had read alone), and a busy process makes
 * at most two such reads at a time, whatever the request rate.
 * @module
 */
export class FreshRead<T> {
  private inFlight: Promise<T> | null = null;
  private queued: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.inFlight === null) return this.start();
    // The running read began before this call: join the one after it.
    this.queued ??= this.inFlight.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    return this.queued;
  }

  private startQueued(): Promise<T> {
    this.queued = null;
    return this.start();
  }

  private start(): Promise<T> {
    const p: Promise<T> = this.read().finally(() => {
      if (this.inFlight === p) this.inFlight = null;
    });
    this.inFlight = p;
    return p;
  }
}
