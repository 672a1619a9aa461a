/**
 * Parsing, validation and redaction of the `--redis` URL (REDIS_URL). Two families:
 *
 *   redis://[[user]:password@]host[:port][/db]     one server (ioredis parses it)
 *   rediss://...                                    the same over TLS
 *   redis-sentinel://[[user]:password@]host1[:port1][,host2[:port2]...]/<masterName>[?db=N]
 *                                                   a Sentinel-managed master: the hosts are
 *                                                   sentinels (port 26379 when omitted)
 *
 * In the Sentinel form, user and password authenticate at the master (and its replicas after a
 * failover); sentinels that need their own credentials take them from the query parameters
 * `sentinelUsername` and `sentinelPassword`. User, password and master name are
 * percent-decoded, so a password containing `@ / ? # , %` must be percent-encoded.
 *
 * Nothing here ever echoes the URL or a part of it in an error: a mistyped URL may have its
 * password in an unexpected place.
 */

export const SENTINEL_DEFAULT_PORT = 26379;

export const REDIS_URL_HINT =
  'expected redis://[user:password@]host:port[/db], rediss://... (TLS) or ' +
  'redis-sentinel://[user:password@]host1:26379[,host2:26379...]/<masterName>[?db=N] from --redis or REDIS_URL';

export interface SentinelAddress {
  host: string;
  port: number;
}

export type ParsedRedisUrl =
  | { kind: 'direct'; url: string }
  | {
      kind: 'sentinel';
      sentinels: SentinelAddress[];
      /** The master's name as the sentinels know it (`sentinel monitor <name> ...`). */
      name: string;
      username?: string;
      password?: string;
      db: number;
      sentinelUsername?: string;
      sentinelPassword?: string;
    };

/** A credential-free problem description; `message` never contains the URL. */
export class RedisUrlError extends Error {
  override name = 'RedisUrlError';
}

/** Query parameter names whose values are treated as secrets (redacted, scrubbed). */
const SECRET_PARAM = /pass|secret|token|auth/i;
const SENTINEL_PARAMS = new Set(['db', 'sentinelUsername', 'sentinelPassword']);
const MAX_DB = 2 ** 31 - 1;

/** Parses and validates a `--redis` URL; throws RedisUrlError (never echoing the URL). */
export function parseRedisUrl(url: unknown): ParsedRedisUrl {
  if (typeof url !== 'string' || url.length === 0) throw new RedisUrlError(`Redis URL missing (${REDIS_URL_HINT})`);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'redis-sentinel') return parseSentinelUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RedisUrlError(`Redis URL is not a valid URL (${REDIS_URL_HINT})`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new RedisUrlError(`Redis URL has protocol ${parsed.protocol} (${REDIS_URL_HINT})`);
  }
  return { kind: 'direct', url };
}

/** The problem with a `--redis` URL (credential-free), or undefined when it is usable. */
export function redisUrlProblem(url: string): string | undefined {
  try {
    parseRedisUrl(url);
    return undefined;
  } catch (err) {
    if (err instanceof RedisUrlError) return err.message;
    throw err;
  }
}

/**
 * The URL with its passwords (and password-like query parameters) replaced by `***`;
 * `(unparseable URL)` for anything that does not parse, since its password could be anywhere.
 */
export function redactRedisUrl(url: string): string {
  if (/^redis-sentinel:/i.test(url)) {
    try {
      const parts = splitSentinelUrl(url);
      parseSentinelParts(parts);
      const user = parts.userinfo === undefined ? '' : redactUserinfo(parts.userinfo) + '@';
      const query = parts.query === undefined ? '' : '?' + redactQuery(parts.query);
      return `redis-sentinel://${user}${parts.hosts}/${parts.path}${query}`;
    } catch {
      return '(unparseable URL)';
    }
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(unparseable URL)';
  }
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.toString();
}

/**
 * Every credential in the URL, raw and percent-decoded, for scrubbing messages that come back
 * from the client library or the server.
 */
export function redisUrlSecrets(url: string): string[] {
  const secrets = new Set<string>();
  const add = (s: string | undefined) => {
    if (s === undefined || s.length === 0) return;
    secrets.add(s);
    try {
      secrets.add(decodeURIComponent(s));
    } catch {
      // Not percent-encoded; the raw form is already covered.
    }
  };
  if (/^redis-sentinel:/i.test(url)) {
    const parts = splitSentinelUrl(url);
    if (parts.userinfo !== undefined) {
      const colon = parts.userinfo.indexOf(':');
      if (colon >= 0) add(parts.userinfo.slice(colon + 1));
    }
    if (parts.query !== undefined) {
      for (const [name, value] of rawQueryPairs(parts.query)) if (SECRET_PARAM.test(name)) add(value);
    }
    return [...secrets];
  }
  const parsed = new URL(url);
  add(parsed.password);
  for (const [name, value] of parsed.searchParams) if (SECRET_PARAM.test(name)) add(value);
  return [...secrets];
}

interface SentinelParts {
  /** Raw `user:password` (still percent-encoded), when the URL has an `@`. */
  userinfo: string | undefined;
  /** Raw comma-separated host list. */
  hosts: string;
  /** Raw path after the first `/` (the master name). */
  path: string;
  /** Raw query after `?`, when present. */
  query: string | undefined;
}

function splitSentinelUrl(url: string): SentinelParts {
  const rest = url.replace(/^redis-sentinel:/i, '');
  if (!rest.startsWith('//')) {
    throw new RedisUrlError(`Redis Sentinel URL must start with redis-sentinel:// (${REDIS_URL_HINT})`);
  }
  if (rest.includes('#')) {
    throw new RedisUrlError(
      'Redis Sentinel URL must not contain "#" (percent-encode it as %23 in a password)',
    );
  }
  if (/[\s\\]/.test(rest)) throw new RedisUrlError('Redis Sentinel URL must not contain spaces or backslashes');
  const afterSlashes = rest.slice(2);
  // As in WHATWG URLs, the authority ends at the first `/` or `?`; the userinfo ends at its last `@`.
  const end = afterSlashes.search(/[/?]/);
  const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
  const tail = end < 0 ? '' : afterSlashes.slice(end);
  const at = authority.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : authority.slice(0, at);
  const hosts = at < 0 ? authority : authority.slice(at + 1);
  const q = tail.indexOf('?');
  const pathPart = q < 0 ? tail : tail.slice(0, q);
  const query = q < 0 ? undefined : tail.slice(q + 1);
  if (!pathPart.startsWith('/')) {
    throw new RedisUrlError(`Redis Sentinel URL needs the master name as its path (${REDIS_URL_HINT})`);
  }
  return { userinfo, hosts, path: pathPart.slice(1), query };
}

function parseSentinelUrl(url: string): ParsedRedisUrl {
  return parseSentinelParts(splitSentinelUrl(url));
}

function parseSentinelParts(parts: SentinelParts): ParsedRedisUrl {
  const sentinels = parseHosts(parts.hosts);

  if (parts.path.length === 0 || parts.path.includes('/')) {
    throw new RedisUrlError(
      `Redis Sentinel URL needs exactly one path segment, the master name (${REDIS_URL_HINT})`,
    );
  }
  const name = decode(parts.path, 'master name');
  if (name.length === 0 || /[\s\x00-\x1f]/.test(name)) {
    throw new RedisUrlError('Redis Sentinel master name must be non-empty without spaces or control characters');
  }

  let username: string | undefined;
  let password: string | undefined;
  if (parts.userinfo !== undefined) {
    const colon = parts.userinfo.indexOf(':');
    const rawUser = colon < 0 ? parts.userinfo : parts.userinfo.slice(0, colon);
    username = rawUser.length > 0 ? decode(rawUser, 'user name') : undefined;
    if (colon >= 0) {
      const rawPassword = parts.userinfo.slice(colon + 1);
      password = rawPassword.length > 0 ? decode(rawPassword, 'password') : undefined;
    }
  }

  let db = 0;
  let sentinelUsername: string | undefined;
  let sentinelPassword: string | undefined;
  const seen = new Set<string>();
  for (const [rawName, rawValue] of parts.query === undefined ? [] : rawQueryPairs(parts.query)) {
    const paramName = decode(rawName, 'query parameter name');
    if (!SENTINEL_PARAMS.has(paramName)) {
      // Only a harmless-looking name is echoed: a misplaced password could land here too.
      const shown = /^[A-Za-z][A-Za-z0-9_]{0,30}$/.test(paramName) && !SECRET_PARAM.test(paramName)
        ? ` ${JSON.stringify(paramName)}`
        : '';
      throw new RedisUrlError(
        `Redis Sentinel URL has an unknown query parameter${shown} (allowed: db, sentinelUsername, sentinelPassword)`,
      );
    }
    if (seen.has(paramName)) throw new RedisUrlError(`Redis Sentinel URL repeats query parameter ${paramName}`);
    seen.add(paramName);
    const value = decode(rawValue, `${paramName} value`);
    if (paramName === 'db') {
      if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_DB) {
        throw new RedisUrlError('Redis Sentinel URL query parameter db must be a non-negative integer');
      }
      db = Number(value);
    } else if (paramName === 'sentinelUsername') {
      sentinelUsername = value.length > 0 ? value : undefined;
    } else {
      sentinelPassword = value.length > 0 ? value : undefined;
    }
  }

  return {
    kind: 'sentinel',
    sentinels,
    name,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    db,
    ...(sentinelUsername !== undefined && { sentinelUsername }),
    ...(sentinelPassword !== undefined && { sentinelPassword }),
  };
}

function parseHosts(raw: string): SentinelAddress[] {
  if (raw.length === 0) throw new RedisUrlError(`Redis Sentinel URL lists no sentinel (${REDIS_URL_HINT})`);
  const list = raw.split(',');
  return list.map((entry, i) => {
    // Positions, not the text: a password typed in the wrong place would land here.
    const which = list.length === 1 ? 'its sentinel address' : `sentinel address ${i + 1} of ${list.length}`;
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(entry);
    if (match === null) {
      throw new RedisUrlError(`Redis Sentinel URL: ${which} is not host[:port] (IPv6 in brackets)`);
    }
    const port = match[3] === undefined ? SENTINEL_DEFAULT_PORT : Number(match[3]);
    if (port < 1 || port > 65535) throw new RedisUrlError(`Redis Sentinel URL: ${which} has a port outside 1-65535`);
    return { host: match[1] ?? match[2]!, port };
  });
}

function decode(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RedisUrlError(`Redis Sentinel URL: the ${what} has a broken percent-encoding`);
  }
}

/** `a=b&c=d` split without decoding (`+` stays literal: it is not a space in this URL). */
function rawQueryPairs(query: string): [string, string][] {
  return query
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    });
}

function redactUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':');
  return colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:***`;
}

function redactQuery(query: string): string {
  return rawQueryPairs(query)
    .map(([name, value]) => `${name}=${SECRET_PARAM.test(decodeURIComponentSafe(name)) ? '***' : value}`)
    .join('&');
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
