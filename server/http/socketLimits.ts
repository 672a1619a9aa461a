/**
 * Admission of WebSocket clients (the identity and miner sockets), the socket side of what the
 * HTTP router enforces per request:
 * - open sockets per client address are capped (`--max-sockets-per-address`; addresses keyed
 *   as the rate limiter keys them: the client behind a `--trust-proxy` proxy, IPv6 per /64,
 *   loopback exempt unless `--rate-limit-loopback` or `--trust-proxy`). Counted per process: a count in the store would outlive a process
 *   that died holding sockets. Over the cap the upgrade answers 429 with Retry-After.
 * - a browser's upgrade (one with an `Origin` header) from an origin `--cors-origins` does not
 *   allow answers 403: a page elsewhere must not use a visitor's connection to this node. No
 *   Origin (a non-browser client) or `*` in the list admits any.
 * - every message takes a token from its endpoint's rate class by address (identity frames:
 *   `identity`; miner messages: `miner`), as a request to the same API over HTTP would; over
 *   the limit it is answered with its endpoint's error envelope (status 429, "retry in N s")
 *   and not handled (uws.ts closes a socket that keeps sending after many such refusals).
 * @module
 */
import { isApiError } from './errors.js';
import type { RateClass } from './rateClasses.js';
import type { RateLimiter } from './rateLimit.js';
import type { MessageRefusal, SocketGate, UpgradeRefusal } from './uws.js';
import { originAllowed } from './origins.js';

export interface SocketLimitsOptions {
  /** Open sockets one client address may hold in this process; 0 = no cap. */
  maxPerAddress: number;
  /** `--cors-origins`: `*`, exact origins, or `https://*.example.com` patterns. */
  corsOrigins: readonly string[];
  limiter: Pick<RateLimiter, 'checkClass' | 'limitedClient'>;
}

/** How long a refused client is told to wait before opening another socket. */
const SOCKET_CAP_RETRY_SECONDS = 10;

export class SocketLimits {
  /** Open sockets per limited client key, both endpoints together. */
  private readonly open = new Map<string, number>();

  constructor(private readonly opts: SocketLimitsOptions) {}

  /** Open sockets of the client at `remoteAddress` (0 for an exempt client). */
  openSockets(remoteAddress: string): number {
    const key = this.opts.limiter.limitedClient(remoteAddress);
    return key === null ? 0 : (this.open.get(key) ?? 0);
  }

  /** The gate of one endpoint, whose messages take from `cls`; every gate shares the socket count. */
  gate(cls: RateClass): SocketGate {
    return {
      admit: (remoteAddress, origin) => this.admit(remoteAddress, origin),
      opened: (remoteAddress) => this.count(remoteAddress, 1),
      closed: (remoteAddress) => this.count(remoteAddress, -1),
      admitMessage: (remoteAddress) => this.admitMessage(cls, remoteAddress),
    };
  }

  private admit(remoteAddress: string, origin: string): UpgradeRefusal | null {
    if (origin !== '' && !originAllowed(this.opts.corsOrigins, origin)) {
      return { status: 403, message: `WebSocket upgrade from origin ${JSON.stringify(origin.slice(0, 200))} refused: not in this node's --cors-origins` };
    }
    const max = this.opts.maxPerAddress;
    if (max > 0 && this.openSockets(remoteAddress) >= max) {
      return {
        status: 429,
        message: `too many open WebSockets from this address (limit ${max}); close one, or retry in ${SOCKET_CAP_RETRY_SECONDS} s`,
        headers: [['Retry-After', String(SOCKET_CAP_RETRY_SECONDS)]],
      };
    }
    return null;
  }

  private count(remoteAddress: string, delta: 1 | -1): void {
    const key = this.opts.limiter.limitedClient(remoteAddress);
    if (key === null) return;
    const n = (this.open.get(key) ?? 0) + delta;
    if (n > 0) this.open.set(key, n);
    else this.open.delete(key);
  }

  private async admitMessage(cls: RateClass, remoteAddress: string): Promise<MessageRefusal | null> {
    try {
      await this.opts.limiter.checkClass(cls, remoteAddress);
      return null;
    } catch (err) {
      // The limiter refuses with an ApiError (429) and fails open on store errors itself.
      if (isApiError(err)) return { status: err.status, reason: err.message };
      return null;
    }
  }
}

