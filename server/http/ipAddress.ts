/**
 * IP addresses and CIDR blocks as the node meets them: TCP peers as uWS reports them (IPv4
 * dotted, or IPv6 as eight zero-padded hextets, IPv4-mapped `…:ffff:7f00:0001` on dual-stack
 * sockets), hops of X-Forwarded-For and Forwarded, and the blocks of `--trust-proxy`.
 *
 * Addresses are compared as 16 bytes, an IPv4 address as its IPv4-mapped IPv6 form
 * (::ffff:a.b.c.d) and an IPv4 block /n as the mapped block /96+n: a block written either way
 * matches a peer reported either way.
 * @module
 */

/** The eight hextets of an IPv6 address in any textual form (uWS writes all 8, padded). */
export function ipv6Hextets(addr: string): number[] | null {
  let text = addr;
  const tail: number[] = [];
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const b = v4.slice(1).map(Number);
    if (b.some((x) => x > 255)) return null;
    tail.push((b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!);
    // '::ffff:1.2.3.4' → '::ffff', '::1.2.3.4' → '::'.
    text = text.slice(0, v4.index);
    if (!text.endsWith(':')) return null;
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string): number[] | null => {
    if (s === '') return [];
    const parts = s.split(':').map((h) => (/^[0-9a-f]{1,4}$/i.test(h) ? parseInt(h, 16) : NaN));
    return parts.some(Number.isNaN) ? null : parts;
  };
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The 16 bytes of an IP address (IPv4 as IPv4-mapped IPv6), or null when `text` is not one.
 * Takes IPv6 in brackets and with a zone (`[fe80::1%eth0]`); no port.
 */
export function ipBytes(text: string): Uint8Array | null {
  const out = new Uint8Array(16);
  const v4 = IPV4.exec(text);
  if (v4) {
    const b = v4.slice(1).map(Number);
    if (b.some((x) => x > 255)) return null;
    out[10] = 0xff;
    out[11] = 0xff;
    out.set(b, 12);
    return out;
  }
  if (!text.includes(':')) return null;
  const h = ipv6Hextets(text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, ''));
  if (h === null) return null;
  h.forEach((x, i) => {
    out[2 * i] = x >> 8;
    out[2 * i + 1] = x & 255;
  });
  return out;
}

/** An address block: its first address and how many leading bits of the 128 are fixed. */
export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

/**
 * `10.0.0.0/8`, `fd00::/8`, or a bare address (/32, /128). Bits below the prefix are ignored
 * (`10.1.2.3/8` is `10.0.0.0/8`). Throws RangeError naming the bad text.
 */
export function parseCidr(text: string): Cidr {
  const slash = text.indexOf('/');
  const addr = slash === -1 ? text : text.slice(0, slash);
  const bytes = ipBytes(addr);
  if (bytes === null) throw new RangeError(`${JSON.stringify(text)} is not an IP address or CIDR block (like 10.0.0.0/8 or fd00::/8)`);
  const isV4 = IPV4.test(addr);
  const max = isV4 ? 32 : 128;
  let bits = max;
  if (slash !== -1) {
    const raw = text.slice(slash + 1);
    bits = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
    if (!(bits >= 0 && bits <= max)) throw new RangeError(`${JSON.stringify(text)}: the prefix length must be 0 to ${max}`);
  }
  return { bytes, bits: isV4 ? 96 + bits : bits };
}

function inBlock(addr: Uint8Array, block: Cidr): boolean {
  const whole = block.bits >> 3;
  for (let i = 0; i < whole; i++) if (addr[i] !== block.bytes[i]) return false;
  const rest = block.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (addr[whole]! & mask) === (block.bytes[whole]! & mask);
}

/** A set of address blocks (`--trust-proxy`). */
export class CidrList {
  private constructor(private readonly blocks: readonly Cidr[]) {}

  /** Throws RangeError naming the first item that is not an address or block. */
  static parse(items: readonly string[]): CidrList {
    return new CidrList(items.map((s) => s.trim()).filter((s) => s.length > 0).map(parseCidr));
  }

  get size(): number {
    return this.blocks.length;
  }

  /** Whether `address` (text) lies in a block; false for text that is not an address. */
  contains(address: string): boolean {
    const bytes = ipBytes(address);
    return bytes !== null && this.containsBytes(bytes);
  }

  containsBytes(bytes: Uint8Array): boolean {
    return this.blocks.some((b) => inBlock(bytes, b));
  }
}
