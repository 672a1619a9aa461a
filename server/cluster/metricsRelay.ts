/**
 * One scrape, every process's series (issue 22, item 3). With `--processes N` the kernel hands a
 * Prometheus scrape to any one server process; that process asks the supervisor, over the fork
 * IPC channel, for the other processes' renders, and answers them with its own, merged
 * (metrics/merge.ts). Each series keeps its `process="<id>"` label.
 *
 *     scraped child                supervisor                  every other ready child
 *       metrics-gather {id}   →
 *                                  metrics-render {id'}   →
 *                                                         ←    metrics-rendered {id', text}
 *       ←  metrics-gathered {id, texts}   (all answered, or GATHER_TIMEOUT_MS passed)
 *
 * A process that is not ready (starting, restarting), stopped or too slow is left out rather
 * than waited for: the supervisor answers after GATHER_TIMEOUT_MS with the renders it has, and
 * the scraped child stops waiting for the supervisor a little later still.
 * @module
 */

/**
 * How long the supervisor waits for the other processes' renders. A render takes milliseconds;
 * a process that cannot answer in 2 s has an event loop blocked that long, and is reported as
 * missing (socialnode_scrape_processes{state="missing"}) well inside Prometheus's default 10 s
 * scrape timeout.
 */
export const GATHER_TIMEOUT_MS = 2_000;
/** How much longer than the supervisor's wait the scraped child waits for its answer. */
const CHILD_WAIT_MARGIN_MS = 500;

/** Child → supervisor. */
export type RelayRequest = { type: 'metrics-gather'; id: number } | { type: 'metrics-rendered'; id: number; text: string | null };
/** Supervisor → child. */
export type RelayReply = { type: 'metrics-render'; id: number } | { type: 'metrics-gathered'; id: number; texts: string[] };

function isRelayReply(m: unknown): m is RelayReply {
  const t = (m as { type?: unknown } | null)?.type;
  return (t === 'metrics-render' || t === 'metrics-gathered') && typeof (m as { id?: unknown }).id === 'number';
}

export function isRelayRequest(m: unknown): m is RelayRequest {
  const t = (m as { type?: unknown } | null)?.type;
  return (t === 'metrics-gather' || t === 'metrics-rendered') && typeof (m as { id?: unknown }).id === 'number';
}

// --- supervisor side ----------------------------------------------------------------------

/** A server process as the supervisor sees it. */
export interface RelayPeer {
  slot: number;
  /** Said `ready` since it was (re)started, and still running. */
  ready: boolean;
  /** Sends a message; false when the channel is gone. */
  send(message: RelayReply): boolean;
}

interface Gathering {
  requester: number;
  requestId: number;
  waiting: Set<number>;
  texts: string[];
  timer: NodeJS.Timeout;
}

/** The supervisor's half: fans a gather out to the other ready processes and collects their renders. */
export class SupervisorMetricsRelay {
  private readonly pending = new Map<number, Gathering>();
  private nextId = 1;

  constructor(
    private readonly peers: () => readonly RelayPeer[],
    private readonly timeoutMs: number = GATHER_TIMEOUT_MS,
  ) {}

  /** Handles a relay message from the process in `slot`. */
  onMessage(slot: number, m: RelayRequest): void {
    if (m.type === 'metrics-gather') this.gather(slot, m.id);
    else this.rendered(slot, m.id, m.text);
  }

  private gather(requester: number, requestId: number): void {
    const id = this.nextId++;
    const waiting = new Set<number>();
    for (const p of this.peers()) {
      if (p.slot !== requester && p.ready && p.send({ type: 'metrics-render', id })) waiting.add(p.slot);
    }
    if (waiting.size === 0) return this.reply(requester, requestId, []);
    // Answers arrive as later IPC events, so the gathering is registered before any can.
    const timer = setTimeout(() => this.finish(id), this.timeoutMs);
    this.pending.set(id, { requester, requestId, waiting, texts: [], timer });
  }

  private rendered(slot: number, id: number, text: string | null): void {
    const g = this.pending.get(id);
    // A late answer (after the timeout) or one nobody asked for.
    if (g === undefined || !g.waiting.delete(slot)) return;
    if (text !== null) g.texts.push(text);
    if (g.waiting.size === 0) this.finish(id);
  }

  private finish(id: number): void {
    const g = this.pending.get(id);
    if (g === undefined) return;
    this.pending.delete(id);
    clearTimeout(g.timer);
    this.reply(g.requester, g.requestId, g.texts);
  }

  private reply(slot: number, requestId: number, texts: string[]): void {
    this.peers()
      .find((p) => p.slot === slot)
      ?.send({ type: 'metrics-gathered', id: requestId, texts });
  }

  /** Gatherings still waiting (for tests and shutdown). */
  get inProgress(): number {
    return this.pending.size;
  }

  /** Drops every gathering without answering (the supervisor is stopping). */
  stop(): void {
    for (const g of this.pending.values()) clearTimeout(g.timer);
    this.pending.clear();
  }
}

// --- child side -----------------------------------------------------------------------------

/** The IPC channel to the supervisor, as far as the relay uses it. */
export interface IpcChannel {
  send(message: RelayRequest): void;
  /** Subscribes to messages; returns the unsubscribe. */
  onMessage(listener: (message: unknown) => void): () => void;
}

/** This process's channel to its supervisor, or null when it runs alone. */
export function supervisorChannel(proc: NodeJS.Process = process): IpcChannel | null {
  if (typeof proc.send !== 'function') return null;
  return {
    send(message) {
      if (!proc.connected) return;
      // The callback swallows a channel closed meanwhile (the supervisor is going away).
      proc.send!(message, undefined, {}, () => undefined);
    },
    onMessage(listener) {
      proc.on('message', listener);
      return () => proc.off('message', listener);
    },
  };
}

/**
 * A server process's half: renders its metrics when the supervisor asks, and asks the
 * supervisor for the other processes' renders when it is scraped.
 */
export class ChildMetricsRelay {
  private readonly waiting = new Map<number, { resolve: (texts: string[]) => void; timer: NodeJS.Timeout }>();
  private nextId = 1;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly channel: IpcChannel,
    /** This process's own render (NodeMetrics.render). */
    private readonly render: () => Promise<string>,
    private readonly waitMs: number = GATHER_TIMEOUT_MS + CHILD_WAIT_MARGIN_MS,
  ) {
    this.unsubscribe = channel.onMessage((m) => {
      if (isRelayReply(m)) this.onReply(m);
    });
  }

  private onReply(m: RelayReply): void {
    if (m.type === 'metrics-render') {
      this.render().then(
        (text) => this.channel.send({ type: 'metrics-rendered', id: m.id, text }),
        () => this.channel.send({ type: 'metrics-rendered', id: m.id, text: null }),
      );
      return;
    }
    const w = this.waiting.get(m.id);
    if (w === undefined) return;
    this.waiting.delete(m.id);
    clearTimeout(w.timer);
    w.resolve(Array.isArray(m.texts) ? m.texts.filter((t): t is string => typeof t === 'string') : []);
  }

  /** The other processes' renders: those that answered in time (none if the supervisor does not). */
  gather(): Promise<string[]> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve([]);
      }, this.waitMs);
      this.waiting.set(id, { resolve, timer });
      this.channel.send({ type: 'metrics-gather', id });
    });
  }

  /** Stops answering the supervisor; scrapes waiting get what they have (nothing). */
  close(): void {
    this.unsubscribe();
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.resolve([]);
    }
    this.waiting.clear();
  }
}
