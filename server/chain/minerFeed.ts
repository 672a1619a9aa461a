/**
 * The miner feed: miners subscribe with their reward key and get a fresh block template the
 * moment the tip or the mempool changes, on any server process. The block producer (the one
 * process holding the producer lease, see blockProducer.ts) builds each template once and
 * announces it on CHANNEL_TEMPLATE; every process's feed reads it once per announcement and
 * turns it into headers per (reward key, header count), however many sockets share them,
 * without replaying the mempool or hashing its transactions again.
 *
 * Pushes are coalesced: announcements arriving while headers are being built cause exactly one
 * more round afterwards, for the newest template, so a burst never queues a round per
 * transaction and the last push always reflects the latest state.
 * @module
 */
import type { Logger } from 'pino';
import type { Store, Unsubscribe } from '../store/types.js';
import { CHANNEL_TEMPLATE, type BlockTemplate, type Chain } from './chain.js';
import { toHex } from '../hex.js';
import { CoalescedRounds } from './coalescedRounds.js';

/** What the feed needs of a socket. */
export interface FeedSocket {
  readonly id: number;
  readonly open: boolean;
  send(text: string): boolean;
}

export interface FeedSubscription {
  rewardPk33: Uint8Array;
  numHeaders: number;
}

/** The template as get-block-template answers it, plus the height it is for. */
export function templateJson(t: BlockTemplate): Record<string, unknown> {
  return {
    Headers: t.headers.map((h) => Buffer.from(h).toString('base64')),
    // Below 2^53 by construction (chain.blockTemplate), so plain JSON numbers.
    ExtraNonces: t.extraNonces.map(Number),
    BlockID: t.blockId,
    DifficultyTargetHex: toHex(t.target),
    Height: Number(t.height),
    LatestBlockTemplateStats: t.stats,
  };
}

export interface MinerFeedOptions {
  chain: Chain;
  store: Store;
  log: Logger;
}

export class MinerFeed {
  private readonly subs = new Map<number, { socket: FeedSocket; sub: FeedSubscription }>();
  private unsubscribes: Unsubscribe[] = [];
  private readonly pushes = new CoalescedRounds(
    () => this.pushRound(),
    () => !this.stopped,
  );
  private stopped = false;
  /** The newest announced template. */
  private latestBlockId: string | null = null;
  /** Template rounds pushed (for tests and metrics). */
  rounds = 0;

  constructor(private readonly opts: MinerFeedOptions) {}

  async start(): Promise<void> {
    this.unsubscribes.push(
      await this.opts.store.subscribe(CHANNEL_TEMPLATE, (m) => {
        const blockId = (m as { BlockId?: unknown } | null)?.BlockId;
        if (typeof blockId === 'string') this.changed(blockId);
      }),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.unsubscribes.map((u) => u().catch(() => undefined)));
    await this.pushes.idle();
  }

  get subscribers(): number {
    return this.subs.size;
  }

  /** Subscribes (or re-subscribes) a socket and answers its first template. */
  async subscribe(socket: FeedSocket, sub: FeedSubscription): Promise<Record<string, unknown>> {
    this.subs.set(socket.id, { socket, sub });
    return templateJson(await this.opts.chain.blockTemplate(sub.rewardPk33, sub.numHeaders));
  }

  unsubscribe(socket: FeedSocket): boolean {
    return this.subs.delete(socket.id);
  }

  subscription(socket: FeedSocket): FeedSubscription | undefined {
    return this.subs.get(socket.id)?.sub;
  }

  private changed(blockId: string): void {
    this.latestBlockId = blockId;
    if (this.subs.size > 0) this.pushes.request();
  }

  private async pushRound(): Promise<void> {
    const blockId = this.latestBlockId;
    if (blockId === null) return;
    const groups = new Map<string, { sub: FeedSubscription; sockets: FeedSocket[] }>();
    for (const [id, { socket, sub }] of this.subs) {
      if (!socket.open) {
        this.subs.delete(id);
        continue;
      }
      const key = `${toHex(sub.rewardPk33)}:${sub.numHeaders}`;
      const g = groups.get(key) ?? { sub, sockets: [] };
      g.sockets.push(socket);
      groups.set(key, g);
    }
    // One read of the template for every group: the transactions' merkle path is in it, so
    // each group costs only its own headers (reward transaction and root per header).
    const list = [...groups.values()];
    try {
      // Undefined: expired meanwhile, a newer one is on its way.
      const templates = list.length === 0 ? [] : await this.opts.chain.publishedTemplates(blockId, list.map((g) => g.sub));
      templates?.forEach((t, i) => {
        const text = JSON.stringify({ method: 'template', params: templateJson(t) });
        for (const s of list[i]!.sockets) s.send(text);
      });
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'miner feed: could not build a template; next change retries');
    }
    this.rounds++;
  }
}
