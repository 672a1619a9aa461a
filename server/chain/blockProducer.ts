/**
 * The block producer of a node: the one process (of all sharing the store) that holds the
 * producer lease builds the block template on every tip or mempool change and announces it
 * over pub/sub (every process's miner feed pushes it to its own miners), and runs the built-in
 * miner. When it dies or stalls, the lease passes to another process, which takes over both.
 *
 * Operators steer the built-in miner for the whole node, whichever process they reach
 * (admin/node-control `update_miner`): the setting lives in the store (MINER_CONTROL_KEY) and is
 * announced on its channel, so the producer of the moment applies it and a later one starts
 * with it. The producer records what it does in MINER_STATUS_KEY, under its fence.
 * @module
 */
import type { Logger } from 'pino';
import type { Store, Unsubscribe } from '../store/types.js';
import { LEASE_KEY, type LeaseRecord, type ProducerLease } from '../cluster/producerLease.js';
import { CHANNEL_MEMPOOL, CHANNEL_TIP, PUBLISHED_TEMPLATE_TTL_MS, type Chain } from './chain.js';
import type { AutoMiner } from './miner.js';
import { CoalescedRounds } from './coalescedRounds.js';
import { fromHex, toHex } from '../hex.js';
import { DomainError } from '../errors.js';

export const MINER_CONTROL_KEY = 'node:miner:control';
export const MINER_CONTROL_CHANNEL = 'node:miner:control';
export const MINER_STATUS_KEY = 'node:miner:status';

/**
 * Least time between two announced templates: a burst of admissions costs one template per
 * interval (each is a stored record), not one per transaction. The first change after a quiet
 * spell is announced at once.
 */
const MIN_TEMPLATE_INTERVAL_MS = 50;
/** While nothing changes, the producer re-announces this often, so held templates never expire. */
const TEMPLATE_REFRESH_MS = PUBLISHED_TEMPLATE_TTL_MS / 2;

/** The operator's setting for the built-in miner (absent: mining, to the default key). */
export interface MinerControl {
  Paused: boolean;
  /** Reward keys in turn, hex of 33 bytes; empty = each producer's own default key. */
  RewardPublicKeysHex: string[];
}

/** What the producer of a term does with its miner. */
interface MinerStatusRecord {
  ProcessId: string;
  Epoch: number;
  Mining: boolean;
  RewardPublicKeysHex: string[];
}

export interface ProducerStatus {
  /** The lease holder, if any process holds it. */
  producer: LeaseRecord | null;
  /** Whether the built-in miner runs on the producer. */
  mining: boolean;
  /** The keys the blocks are paid to while mining (empty otherwise). */
  rewardPublicKeys: Uint8Array[];
}

/** update_miner on a node started with `--miner off`. */
export class NoBuiltInMinerError extends DomainError {
  override readonly name = 'NoBuiltInMinerError';
  constructor() {
    super('MINER_NOT_BUILT_IN', 'invalid', 'this node runs no built-in miner (it was started with --miner off)');
  }
}

export interface BlockProducerOptions {
  chain: Chain;
  store: Store;
  lease: ProducerLease;
  /** The built-in miner (`--miner auto`), created paused; null with `--miner off`. */
  miner: AutoMiner | null;
  /** The miner's reward key when the operator set none. */
  defaultRewardKey: Uint8Array;
  log: Logger;
}

export class BlockProducer {
  private unsubscribes: Unsubscribe[] = [];
  private readonly publications = new CoalescedRounds(
    () => this.publishOne(),
    () => !this.stopped && this.leading,
  );
  private syncing: Promise<void> = Promise.resolve();
  private stopped = false;
  private lastPublishAt = -Infinity;
  private refresh: NodeJS.Timeout | null = null;
  /** Templates this process published (for tests and metrics). */
  templatesPublished = 0;

  /** Blocks the built-in miner of this process connected (0 without one). */
  get minerBlocks(): number {
    return this.opts.miner?.blocksMined ?? 0;
  }

  /** Failed block attempts of the built-in miner of this process (0 without one). */
  get minerFailedAttempts(): number {
    return this.opts.miner?.failedAttempts ?? 0;
  }

  constructor(private readonly opts: BlockProducerOptions) {}

  async start(): Promise<void> {
    const { store, lease } = this.opts;
    const onChange = (): void => this.changed();
    this.unsubscribes.push(await store.subscribe(CHANNEL_TIP, onChange));
    this.unsubscribes.push(await store.subscribe(CHANNEL_MEMPOOL, onChange));
    this.unsubscribes.push(await store.subscribe(MINER_CONTROL_CHANNEL, () => void this.sync()));
    lease.onChange((leading) => {
      void this.sync();
      // A new producer announces a template at once: miners must not wait for the next change.
      if (leading) this.changed();
    });
    await lease.start();
    await this.syncing;
    this.refresh = setInterval(() => {
      if (performance.now() - this.lastPublishAt >= TEMPLATE_REFRESH_MS) this.changed();
    }, TEMPLATE_REFRESH_MS / 4);
    this.refresh.unref();
  }

  /** Gives up production (the lease goes to another process at once) and stops the miner. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.refresh) clearInterval(this.refresh);
    await Promise.all(this.unsubscribes.map((u) => u().catch(() => undefined)));
    await this.opts.lease.stop();
    await this.syncing;
    await this.publications.idle();
    await this.opts.miner?.stop();
  }

  get leading(): boolean {
    return this.opts.lease.leading;
  }

  /**
   * Sets the built-in miner for the whole node: `pause`; `resume` (to each producer's default
   * key); or mining paid to these keys in turn.
   * Takes effect on the producer within a pub/sub round trip (at once when this process leads).
   * @throws {NoBuiltInMinerError} when the node runs with `--miner off`; {MinerShutDownError}
   *   when this process is shutting down
   */
  async setMiner(setting: 'pause' | 'resume' | readonly Uint8Array[]): Promise<void> {
    if (this.opts.miner === null) throw new NoBuiltInMinerError();
    const control: MinerControl =
      setting === 'pause' || setting === 'resume' ? { Paused: setting === 'pause', RewardPublicKeysHex: [] } : { Paused: false, RewardPublicKeysHex: setting.map(toHex) };
    await this.opts.store.set(MINER_CONTROL_KEY, control);
    await this.opts.store.publish(MINER_CONTROL_CHANNEL, {});
    if (this.leading) await this.sync();
  }

  /** Who produces blocks and what its miner does, as any process sees it. */
  async status(): Promise<ProducerStatus> {
    const [holder, status] = await this.opts.store.getMany<LeaseRecord | MinerStatusRecord>([LEASE_KEY, MINER_STATUS_KEY]);
    const producer = (holder as LeaseRecord | undefined) ?? null;
    const s = status as MinerStatusRecord | undefined;
    const mining = producer !== null && s !== undefined && s.Epoch === producer.Epoch && s.Mining;
    return { producer, mining, rewardPublicKeys: mining ? s.RewardPublicKeysHex.map(fromHex) : [] };
  }

  /** Brings the miner in line with the lease and the operator's setting, one step at a time. */
  private sync(): Promise<void> {
    const next = this.syncing.then(() => this.syncOnce());
    this.syncing = next.catch((err: Error) => this.opts.log.warn({ msg: err.message }, 'block producer: could not apply the miner setting; the next change retries'));
    return next;
  }

  private async syncOnce(): Promise<void> {
    const { miner, store, lease, log } = this.opts;
    if (miner === null) return;
    const term = this.stopped ? null : lease.term;
    if (term === null) {
      await miner.pause();
      return;
    }
    const control = await store.get<MinerControl>(MINER_CONTROL_KEY);
    const keys = control?.RewardPublicKeysHex.length ? control.RewardPublicKeysHex.map(fromHex) : [this.opts.defaultRewardKey];
    const mining = control?.Paused !== true;
    if (mining) {
      miner.setRewardKeys(keys);
      await miner.resume();
      await miner.poke();
    } else {
      await miner.pause();
    }
    const fence = lease.fence();
    const status: MinerStatusRecord = { ProcessId: term.ProcessId, Epoch: term.Epoch, Mining: mining, RewardPublicKeysHex: mining ? keys.map(toHex) : [] };
    // Under the fence: a producer whose term is over must not overwrite its successor's status.
    if (fence === null || !(await store.commit([{ op: 'set', key: MINER_STATUS_KEY, value: status }], [fence]))) {
      log.info('block producer: lease lost while applying the miner setting');
      await miner.pause();
    }
  }

  /** Tip or mempool changed: the producer publishes a new template (coalesced). */
  private changed(): void {
    this.publications.request();
  }

  private async publishOne(): Promise<void> {
    const wait = this.lastPublishAt + MIN_TEMPLATE_INTERVAL_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    try {
      this.lastPublishAt = performance.now();
      await this.opts.chain.publishTemplate();
      this.templatesPublished++;
    } catch (err) {
      this.opts.log.warn({ msg: (err as Error).message }, 'block producer: could not publish a template; the next change retries');
    }
  }
}
