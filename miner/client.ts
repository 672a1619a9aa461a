/**
 * A CPU miner for the node's miner feed (`/api/v0/miner`): subscribes with a reward key, scans
 * nonces of the newest pushed template with DeSoHashV1 in the crypto pool (WASM, one slice per
 * thread at a time), submits a solved header on the same socket, and starts over on every new
 * template. Reconnects with backoff when the node goes away.
 * @module
 */
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { CryptoService } from '../server/crypto/service.js';
import { HEADER_OFFSETS } from '../server/chain/block/header.js';
import { randomU64 } from '../server/chain/random.js';

export interface MinerClientOptions {
  /** ws://host:port (the path /api/v0/miner is added when missing). */
  nodeUrl: string;
  /** Reward key, Base58Check. */
  publicKey: string;
  crypto: CryptoService;
  /** Slices scanned at once (one per pool thread). */
  parallelSlices: number;
  log: Logger;
  /** Nonces per slice: small enough that a stale template is dropped within milliseconds. @default 50_000 */
  noncesPerSlice?: number;
}

interface Template {
  header: Uint8Array;
  extraNonce: number;
  blockId: string;
  target: Uint8Array;
  height: number;
}

export interface MinerStats {
  templates: number;
  submitted: number;
  accepted: number;
  rejected: number;
}

const MAX_BACKOFF_MS = 5_000;

export class MinerClient {
  private socket: WebSocket | null = null;
  private template: Template | null = null;
  /** Bumped on every new template: a scan of an older one stops. */
  private generation = 0;
  private stopped = false;
  private mining: Promise<void> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: Record<string, unknown>) => void>();
  private backoffMs = 250;
  readonly stats: MinerStats = { templates: 0, submitted: 0, accepted: 0, rejected: 0 };

  constructor(private readonly opts: MinerClientOptions) {}

  start(): void {
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    this.socket?.close();
    await this.mining;
  }

  private get url(): string {
    const u = new URL(this.opts.nodeUrl);
    if (u.pathname === '/' || u.pathname === '') u.pathname = '/api/v0/miner';
    return u.toString();
  }

  private connect(): void {
    if (this.stopped) return;
    const { log } = this.opts;
    const ws = new WebSocket(this.url);
    this.socket = ws;
    ws.on('open', () => {
      this.backoffMs = 250;
      log.info({ node: this.url }, 'connected; subscribing');
      void this.request('subscribe', { PublicKeyBase58Check: this.opts.publicKey, NumHeaders: 1 }).then((r) => {
        if (r['error']) {
          log.error({ error: r['error'] }, 'subscribe refused');
          void this.stop();
          return;
        }
        this.onTemplate(r['result'] as Record<string, unknown>);
      });
    });
    ws.on('message', (data) => {
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(data.toString()) as Record<string, unknown>;
      } catch {
        log.warn('node sent a message that is not JSON; ignored');
        return;
      }
      if (msg['method'] === 'template') this.onTemplate(msg['params'] as Record<string, unknown>);
      else if (typeof msg['id'] === 'number') this.pending.get(msg['id'])?.(msg);
    });
    ws.on('error', (err) => log.warn({ err: err.message }, 'socket error'));
    ws.on('close', () => {
      this.template = null;
      this.generation++;
      for (const resolve of this.pending.values()) resolve({ error: 'socket closed' });
      this.pending.clear();
      if (this.stopped) return;
      log.warn({ retryInMs: this.backoffMs }, 'disconnected from the node; reconnecting');
      setTimeout(() => this.connect(), this.backoffMs).unref();
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    });
  }

  private request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, (reply) => {
        this.pending.delete(id);
        resolve(reply);
      });
      this.socket?.send(JSON.stringify({ id, method, params }));
    });
  }

  private onTemplate(t: Record<string, unknown>): void {
    this.template = {
      header: new Uint8Array(Buffer.from((t['Headers'] as string[])[0]!, 'base64')),
      extraNonce: (t['ExtraNonces'] as number[])[0]!,
      blockId: t['BlockID'] as string,
      target: new Uint8Array(Buffer.from(t['DifficultyTargetHex'] as string, 'hex')),
      height: t['Height'] as number,
    };
    this.stats.templates++;
    this.generation++;
    this.mining ??= this.mineLoop().finally(() => {
      this.mining = null;
    });
  }

  /** Mines the current template until solved or replaced; then waits for the next one. */
  private async mineLoop(): Promise<void> {
    const { crypto, log } = this.opts;
    const perSlice = this.opts.noncesPerSlice ?? 50_000;
    while (!this.stopped && this.template) {
      const t = this.template;
      const generation = this.generation;
      let start = randomU64();
      let solved: bigint | null = null;
      while (solved === null && generation === this.generation && !this.stopped) {
        const slices = Array.from({ length: this.opts.parallelSlices }, (_, k) =>
          crypto.mine({ header: t.header, startNonce: (start + BigInt(k * perSlice)) & 0xffff_ffff_ffff_ffffn, count: perSlice, target: t.target }),
        );
        for (const r of await Promise.all(slices)) if (r.found && solved === null) solved = r.nonce;
        start = (start + BigInt(this.opts.parallelSlices * perSlice)) & 0xffff_ffff_ffff_ffffn;
      }
      if (solved === null) continue; // a newer template arrived (or stop): mine that one
      const header = t.header.slice();
      new DataView(header.buffer).setBigUint64(HEADER_OFFSETS.nonce, solved);
      this.stats.submitted++;
      const r = await this.request('submit', { Header: Buffer.from(header).toString('base64'), ExtraNonce: t.extraNonce, BlockID: t.blockId });
      const result = r['result'] as { IsMainChain?: boolean } | undefined;
      if (result?.IsMainChain) {
        this.stats.accepted++;
        log.info({ height: t.height, accepted: this.stats.accepted }, 'block accepted');
      } else {
        this.stats.rejected++;
        log.warn({ height: t.height, reply: r['error'] ?? result }, 'block not accepted');
      }
      // The accepted block moves the tip; the node pushes the next template. Until it does,
      // this template is spent.
      if (this.template === t) this.template = null;
    }
  }
}
