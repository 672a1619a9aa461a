/**
 * The node's own CPU miner (`--miner auto`): mines a block shortly after the mempool gets a
 * transaction, and otherwise every `--block-interval-seconds` if set, so a fresh dev chain
 * confirms transactions by itself while an idle node's template stays stable for outside
 * miners. The proof-of-work scan runs in the crypto pool (DeSoHashV1 in WASM), in slices, so a
 * new tip from elsewhere aborts a stale attempt quickly.
 * @module
 */
import type { Logger } from 'pino';
import type { CryptoService } from '../crypto/service.js';
import type { Store, Unsubscribe } from '../store/types.js';
import { HEADER_OFFSETS } from './block/header.js';
import { CHANNEL_MEMPOOL, CHANNEL_TIP, type Chain } from './chain.js';
import { randomU64 } from './random.js';

/** Nonces per pool task: small enough that a stale attempt stops within milliseconds. */
const NONCES_PER_SLICE = 50_000;
/** Wait after a mempool event before mining, so a burst of transactions lands in one block. */
const BATCH_DELAY_MS = 20;

export interface AutoMinerOptions {
  chain: Chain;
  crypto: CryptoService;
  store: Store;
  rewardPublicKey: Uint8Array;
  /** Mine an empty block this often; 0 = only when the mempool holds transactions. */
  blockIntervalSeconds: number;
  log: Logger;
}

export class AutoMiner {
  private running = false;
  private wanted = false;
  private stopped = false;
  private tipChanged = false;
  private timer: NodeJS.Timeout | null = null;
  private interval: NodeJS.Timeout | null = null;
  private unsubscribes: Unsubscribe[] = [];
  private current: Promise<void> = Promise.resolve();
  /** Blocks this miner connected (for status and tests). */
  blocksMined = 0;

  constructor(private readonly opts: AutoMinerOptions) {}

  async start(): Promise<void> {
    const { store } = this.opts;
    this.unsubscribes.push(await store.subscribe(CHANNEL_MEMPOOL, () => this.schedule()));
    this.unsubscribes.push(
      await store.subscribe(CHANNEL_TIP, () => {
        this.tipChanged = true;
      }),
    );
    if (this.opts.blockIntervalSeconds > 0) {
      this.interval = setInterval(() => this.request(), this.opts.blockIntervalSeconds * 1000);
      this.interval.unref();
    }
    if ((await this.opts.chain.mempool()).length > 0) this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.interval) clearInterval(this.interval);
    await Promise.all(this.unsubscribes.map((u) => u().catch(() => undefined)));
    await this.current;
  }

  get isMining(): boolean {
    return this.running;
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.request();
    }, BATCH_DELAY_MS);
    this.timer.unref();
  }

  private request(): void {
    if (this.stopped) return;
    this.wanted = true;
    if (!this.running) this.current = this.loop();
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.wanted && !this.stopped) {
        this.wanted = false;
        try {
          await this.mineOne();
        } catch (err) {
          this.opts.log.warn({ err: (err as Error).message }, 'miner: attempt failed; retrying on the next event');
        }
        // Transactions that arrived while mining go into the next block.
        if (!this.stopped && (await this.opts.chain.mempool()).length > 0) this.wanted = true;
      }
    } finally {
      this.running = false;
    }
  }

  private async mineOne(): Promise<void> {
    const { chain, crypto, rewardPublicKey, log } = this.opts;
    const t = await chain.blockTemplate(rewardPublicKey, 1);
    const header = t.headers[0]!;
    this.tipChanged = false;
    let start = randomU64();
    for (;;) {
      if (this.stopped || this.tipChanged) return;
      const r = await crypto.mine({ header, startNonce: start, count: NONCES_PER_SLICE, target: t.target });
      if (r.found) {
        new DataView(header.buffer, header.byteOffset).setBigUint64(HEADER_OFFSETS.nonce, r.nonce);
        const result = await chain.submitBlock(rewardPublicKey, header, t.extraNonces[0]!, t.blockId);
        if (result.isMainChain) {
          this.blocksMined++;
          log.debug({ height: Number(t.height), txns: t.stats.TxnCount }, 'miner: block mined');
        }
        return;
      }
      start = (start + BigInt(NONCES_PER_SLICE)) & 0xffff_ffff_ffff_ffffn;
    }
  }
}
