/**
 * Where a request (or WebSocket upgrade) comes from, for rate limits and socket caps: the TCP
 * peer, unless the peer is a reverse proxy listed in `--trust-proxy`. Then the client is what
 * the proxies report, read from the right: each proxy appends the address it saw to the end of
 * the header, so the entries from the right are reported by ever less trusted hops. Trusted
 * entries are skipped; the first untrusted one is the client (a client can write any
 * entries it likes to the left of it, and they are never read). When every entry is trusted,
 * the leftmost is. An entry that is not an address (`unknown`, an obfuscated `_name`, junk)
 * ends the walk at the trusted hop that reported it, so no header makes a client exempt or
 * gives it someone else's address.
 *
 * The header: X-Forwarded-For when present, else Forwarded (RFC 7239, its `for=` parameters).
 * Not both: a proxy that sets one passes the other on as the client wrote it. Nearly every
 * proxy sets X-Forwarded-For (nginx, HAProxy, Envoy, cloud load balancers); one that sets only
 * Forwarded must drop a client's X-Forwarded-For.
 * @module
 */
import { CidrList, ipBytes } from './ipAddress.js';

/** The forwarding headers of a request, each of its lines joined with `,` in order. */
export interface ForwardingHeaders {
  xForwardedFor?: string;
  forwarded?: string;
}

/**
 * The address of one hop as a header writes it, without port, brackets or quotes, or null
 * when it is not an address: `1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`, `[2001:db8::1]:80`.
 */
export function hopAddress(hop: string): string | null {
  let text = hop.trim();
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.indexOf(':'));
  return ipBytes(text) === null ? null : text;
}

/** The entries of X-Forwarded-For, leftmost (the farthest from this node) first. */
export function xForwardedForHops(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * The `for=` value of each element of a Forwarded header (RFC 7239 §4), leftmost first; `''`
 * for an element without one. Values are tokens or quoted strings (`for="[2001:db8::1]:80"`);
 * a comma or semicolon inside quotes does not split.
 */
export function forwardedHops(value: string): string[] {
  const hops: string[] = [];
  let hop: string | undefined;
  /** Whether the element so far holds anything: `a, , b` has an empty element the grammar allows, naming no hop. */
  let written = false;
  let pair = '';
  let quoted = false;
  const endPair = (): void => {
    const eq = pair.indexOf('=');
    if (eq !== -1 && pair.slice(0, eq).trim().toLowerCase() === 'for') {
      const v = pair.slice(eq + 1).trim();
      hop = /^".*"$/s.test(v) ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v;
    }
    if (pair.trim() !== '') written = true;
    pair = '';
  };
  const endElement = (): void => {
    endPair();
    if (written) hops.push(hop ?? '');
    hop = undefined;
    written = false;
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted) {
      pair += c;
      if (c === '\\' && i + 1 < value.length) pair += value[++i];
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
      pair += c;
    } else if (c === ';') {
      endPair();
    } else if (c === ',') {
      endElement();
    } else {
      pair += c;
    }
  }
  endElement();
  return hops;
}

/** Resolves client addresses behind the proxies of `--trust-proxy`. */
export class ClientAddresses {
  constructor(private readonly trusted: CidrList) {}

  /** The resolver of `--trust-proxy`, or null when it lists nothing (the peer is the client). */
  static fromConfig(trustProxy: readonly string[]): ClientAddresses | null {
    const list = CidrList.parse(trustProxy);
    return list.size === 0 ? null : new ClientAddresses(list);
  }

  /** Whether `peer`'s forwarding headers are read at all. */
  trusts(peer: string): boolean {
    return this.trusted.contains(peer);
  }

  /** The client of a request from `peer` carrying `headers` (see the module comment). */
  resolve(peer: string, headers: ForwardingHeaders): string {
    if (!this.trusts(peer)) return peer;
    const hops =
      headers.xForwardedFor !== undefined && headers.xForwardedFor.trim() !== ''
        ? xForwardedForHops(headers.xForwardedFor)
        : headers.forwarded !== undefined
          ? forwardedHops(headers.forwarded)
          : [];
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const address = hopAddress(hops[i]!);
      if (address === null) return client;
      if (!this.trusts(address)) return address;
      client = address;
    }
    return client;
  }
}
