/**
 * Request rate limits: token buckets per client address and, on non-read routes, per
 * authenticated public key, kept in the store (`Store.takeTokens`) so that every process of a
 * node shares them (one atomic Lua script per take on Redis).
 *
 * The router calls `checkAddress` after matching a route and before reading its body (a
 * refused client costs no body parsing), and `checkCaller` once the request proved who it is
 * (a JWT or admin check passed: authenticatedCaller.ts). Over the limit answers 429
 * `{"error": …}` with `Retry-After` in whole seconds (at least 1). The WebSockets and identity
 * logins take from a class by address with `checkClass` (socketLimits.ts, identity transport).
 *
 * - Classes and their limits: rateClasses.ts (`--rate-limits`). `GET /health-check`,
 *   `GET /health-live` and `GET /metrics` are never limited: probes and scrapes must not be refused.
 * - A public key's bucket is taken only after authentication as that key: a key a request
 *   merely names (the updater of an unsigned transaction to construct, an `AdminPublicKey`
 *   with a junk JWT) proves nothing, and taking its bucket would let anyone lock its owner
 *   out. Routes without authentication are limited by address only.
 * - Loopback clients (127.0.0.0/8, ::1) are exempt unless `--rate-limit-loopback` or
 *   `--trust-proxy` is set: behind a proxy on the same host, loopback is the proxy, or a
 *   client whose headers name no one else.
 * - IPv6 clients are counted per /64, the block one subscriber usually gets: per address,
 *   one host could rotate through 2^64 addresses.
 * - The address is the client's as clientAddress.ts resolves it: the TCP peer, or behind a
 *   proxy listed in `--trust-proxy` the address that proxy reports.
 * - When the store fails, requests are let through (fail open): a store outage already shows
 *   in health-check; refusing every request as well would turn it into a full outage. The
 *   first failure is logged, and each one counted in socialnode_rate_limit_store_errors_total.
 * @module
 */
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';
import { ApiError } from './errors.js';
import { ipv6Hextets } from './ipAddress.js';
import type { Route } from './route.js';
import type { BucketSpec, RateClass, RateLimits } from './rateClasses.js';

const EXEMPT_PATHS = new Set(['/health-check', '/health-live', '/metrics']);
const MINER_PATHS = new Set(['/get-block-template', '/submit-block']);

/** The class of a route, or null when it is never limited. */
export function rateClassOf(route: Pick<Route, 'method' | 'path'>): RateClass | null {
  const { method, path } = route;
  if (EXEMPT_PATHS.has(path)) return null;
  if (path.startsWith('/admin/')) return 'admin';
  if (path === '/identity') return 'identity';
  if (MINER_PATHS.has(path)) return 'miner';
  // API v1 (the exchange reads, /api/v1/block and /api/v1/transaction-info) only reads.
  if (method === 'GET' || path.startsWith('/get-') || path.startsWith('/check-') || path.startsWith('/api/v1/')) return 'read';
  return 'write';
}

/**
 * The bucket identity of a peer address: IPv4 dotted (also when IPv4-mapped IPv6), IPv6 as its
 * /64 prefix; null for an empty or unparseable address.
 */
export function clientKey(remoteAddress: string): string | null {
  const addr = remoteAddress.trim();
  if (/^\d+\.\d+\.\d+\.\d+$/.test(addr)) return addr;
  if (!addr.includes(':')) return null;
  const h = ipv6Hextets(addr.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (h === null) return null;
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) {
    return [h[6]! >> 8, h[6]! & 255, h[7]! >> 8, h[7]! & 255].join('.');
  }
  if (h.slice(0, 7).every((x) => x === 0) && h[7] === 1) return '::1';
  return `${h.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}

export function isLoopback(key: string): boolean {
  return key === '::1' || key.startsWith('127.');
}

export interface RateLimiterMetrics {
  /** A request was refused by the bucket of its address (`ip`) or public key (`key`). */
  rejected(cls: RateClass, scope: 'ip' | 'key'): void;
  /** A take failed in the store and the request was let through. */
  storeError(): void;
}

export interface RateLimiterOptions {
  limits: RateLimits;
  /** Limit loopback clients too (`--rate-limit-loopback`, or any `--trust-proxy`). @default false */
  limitLoopback?: boolean;
  store: Pick<Store, 'takeTokens'>;
  log: Pick<Logger, 'warn' | 'info'>;
  metrics?: RateLimiterMetrics | null;
  /** Clock of every take; unit tests inject one. @default the store's clock (Redis TIME on Redis) */
  nowMs?: () => number;
}

/** What the router calls; see the module comment. */
export interface RequestLimiter {
  checkAddress(route: Route, remoteAddress: string): Promise<void>;
  /** The request authenticated as `publicKey` (base58): takes that key's bucket on non-read classes. */
  checkCaller(route: Route, remoteAddress: string, publicKey: string): Promise<void>;
}

export class RateLimiter implements RequestLimiter {
  private readonly classes = new WeakMap<Route, RateClass | null>();
  /** Whether the last take failed in the store (so an outage is logged once, not per request). */
  private failing = false;

  constructor(private readonly opts: RateLimiterOptions) {}

  async checkAddress(route: Route, remoteAddress: string): Promise<void> {
    await this.checkClass(this.classOf(route), remoteAddress);
  }

  async checkCaller(route: Route, remoteAddress: string, publicKey: string): Promise<void> {
    const cls = this.classOf(route);
    // Reads keep one bucket per address: a public key there is usually the one looked up.
    if (cls === null || cls === 'read' || this.limitedClient(remoteAddress) === null) return;
    const spec = this.opts.limits[cls];
    if (spec !== null) await this.take(cls, spec, 'key', publicKey);
  }

  /** Takes a token from `cls`'s bucket of this address (sockets, logins: no route to class). */
  async checkClass(cls: RateClass | null, remoteAddress: string): Promise<void> {
    const spec = cls === null ? null : this.opts.limits[cls];
    if (cls === null || spec === null) return;
    const client = this.limitedClient(remoteAddress);
    if (client !== null) await this.take(cls, spec, 'ip', client);
  }

  /** Whether `remoteAddress` is limited at all: its bucket key, or null when exempt (see `clientKey`, loopback). */
  limitedClient(remoteAddress: string): string | null {
    // No address only on the pure-JS uWS fallback (development only): nothing to key a bucket on.
    const client = clientKey(remoteAddress);
    if (client === null) return null;
    if (!this.opts.limitLoopback && isLoopback(client)) return null;
    return client;
  }

  private classOf(route: Route): RateClass | null {
    let cls = this.classes.get(route);
    if (cls === undefined) {
      cls = rateClassOf(route);
      this.classes.set(route, cls);
    }
    return cls;
  }

  private async take(cls: RateClass, spec: BucketSpec, scope: 'ip' | 'key', id: string): Promise<void> {
    let take;
    try {
      take = await this.opts.store.takeTokens(`ratelimit:${cls}:${scope}:${id}`, {
        capacity: spec.capacity,
        refillPerSec: spec.refillPerSec,
        ...(this.opts.nowMs ? { nowMs: this.opts.nowMs() } : {}),
      });
    } catch (err) {
      this.opts.metrics?.storeError();
      if (!this.failing) {
        this.failing = true;
        this.opts.log.warn({ msg: (err as Error)?.message }, 'rate limits: state store failed; letting requests through until it answers');
      }
      return;
    }
    if (this.failing) {
      this.failing = false;
      this.opts.log.info('rate limits: state store answers again; limits apply');
    }
    if (take.allowed) return;
    this.opts.metrics?.rejected(cls, scope);
    const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000));
    const who = scope === 'ip' ? 'this address' : 'this public key';
    throw new ApiError(429, `too many ${cls} requests from ${who} (limit ${spec.capacity} at once, ${spec.refillPerSec} per second); retry in ${seconds} s`, {
      'Retry-After': String(seconds),
    });
  }
}
