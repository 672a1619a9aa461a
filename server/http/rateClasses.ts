/**
 * Rate limit classes and their `--rate-limits` setting, apart from the limiter itself so that
 * config.ts can validate the option without loading the HTTP layer.
 *
 * Setting syntax: comma-separated `class=capacity/refillPerSec` (a bucket of `capacity`
 * requests refilled at `refillPerSec` per second) or `class=off`; classes not named keep their
 * defaults; the single word `off` turns every class off. Example: `read=600/60,admin=off`.
 * @module
 */

/**
 * - read: GET routes, POST routes named get-* or check-* and the API v1 routes (reads of chain
 *   and node state);
 * - write: every other POST: construction routes, submit-transaction, node-local updates;
 * - identity: the identity frame API (POST /identity and every frame of its WebSocket);
 * - miner: get-block-template and submit-block, and every message of the miner WebSocket;
 * - admin: /admin/* routes;
 * - login: identity `login` frames (POST or socket), on top of `identity`: each one stores a
 *   session for --identity-session-ttl-seconds, so logins get a much tighter bucket.
 */
export const RATE_CLASSES = ['read', 'write', 'identity', 'miner', 'admin', 'login'] as const;
export type RateClass = (typeof RATE_CLASSES)[number];

export interface BucketSpec {
  /** Requests a caller may make at once (the burst). */
  capacity: number;
  /** Requests per second a caller may sustain. */
  refillPerSec: number;
}

/** Per class: its bucket, or null when the class is not limited. */
export type RateLimits = Readonly<Record<RateClass, BucketSpec | null>>;

/**
 * Defaults per client address (and per authenticated public key on non-read classes). Generous
 * enough for one person behind a busy frontend: a feed page load is a few dozen reads, so
 * `read` allows a 300-request burst and 30/s after it; writes are a person acting (60 at once,
 * one per 0.5 s sustained); identity frames come in bursts of signing and decrypting; miners
 * poll templates and submit often; admin routes are rare and privileged. A person logs in a
 * few times a day: `login` allows 10 at once and one per 10 s after it, so one address can
 * create at most ~8,640 sessions a day (a few MB of store), not millions.
 */
export const DEFAULT_RATE_LIMITS = 'read=300/30,write=60/2,identity=120/10,miner=600/60,admin=60/2,login=10/0.1';

/** Upper bound of capacity and refill rate: beyond it "off" says the same more plainly. */
const MAX_VALUE = 1e9;

/** Parses a `--rate-limits` value; throws RangeError naming the bad item. */
export function parseRateLimits(text: string): RateLimits {
  const out = parseItems(DEFAULT_RATE_LIMITS, RATE_CLASSES.reduce((o, c) => ({ ...o, [c]: null }), {} as Record<RateClass, BucketSpec | null>));
  if (text.trim().toLowerCase() === 'off') {
    for (const c of RATE_CLASSES) out[c] = null;
    return out;
  }
  return parseItems(text, out);
}

function parseItems(text: string, into: Record<RateClass, BucketSpec | null>): Record<RateClass, BucketSpec | null> {
  const seen = new Set<string>();
  for (const rawItem of text.split(',')) {
    const item = rawItem.trim();
    if (item === '') continue;
    const m = /^([a-z]+)\s*=\s*(.+)$/i.exec(item);
    if (!m) throw new RangeError(`expected class=capacity/refillPerSec or class=off, got ${JSON.stringify(item)}`);
    const cls = m[1]!.toLowerCase();
    if (!(RATE_CLASSES as readonly string[]).includes(cls)) {
      throw new RangeError(`unknown rate limit class ${JSON.stringify(m[1])}; classes are ${RATE_CLASSES.join(', ')}`);
    }
    if (seen.has(cls)) throw new RangeError(`rate limit class ${cls} is given twice`);
    seen.add(cls);
    const value = m[2]!.trim();
    if (value.toLowerCase() === 'off') {
      into[cls as RateClass] = null;
      continue;
    }
    const v = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(value);
    const capacity = v ? Number(v[1]) : NaN;
    const refillPerSec = v ? Number(v[2]) : NaN;
    if (!(capacity >= 1 && capacity <= MAX_VALUE && refillPerSec > 0 && refillPerSec <= MAX_VALUE)) {
      throw new RangeError(
        `${cls}: expected capacity/refillPerSec with an integer capacity from 1 to ${MAX_VALUE} and a refill rate above 0 (e.g. ${cls}=100/10), got ${JSON.stringify(value)}`,
      );
    }
    into[cls as RateClass] = { capacity, refillPerSec };
  }
  return into;
}
