// `--trust-proxy`: the CIDR matcher (server/http/ipAddress.ts) and the client address behind
// trusted proxies (server/http/clientAddress.ts). Addresses of the TCP peer are written as uWS
// reports them: dotted on an IPv4 socket, eight padded hextets on a dual-stack one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientAddresses, forwardedHops, hopAddress, xForwardedForHops } from '../../server/http/clientAddress.js';
import { CidrList, ipBytes, parseCidr } from '../../server/http/ipAddress.js';
import { ConfigError, loadConfig } from '../../server/config.js';

/** 127.0.0.1 as uWS reports it on a socket listening on `::`. */
const MAPPED_LOOPBACK = '0000:0000:0000:0000:0000:ffff:7f00:0001';

describe('ipBytes', () => {
  it('reads IPv4 as IPv4-mapped IPv6, and IPv6 in any form', () => {
    const v4 = ipBytes('192.0.2.1')!;
    assert.deepEqual([...v4], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1]);
    assert.deepEqual(ipBytes('::ffff:192.0.2.1'), v4);
    assert.deepEqual(ipBytes('0000:0000:0000:0000:0000:ffff:c000:0201'), v4);
    assert.deepEqual(ipBytes('[2001:db8::1]'), ipBytes('2001:0db8:0000:0000:0000:0000:0000:0001'));
    assert.deepEqual(ipBytes('fe80::1%eth0'), ipBytes('fe80::1'));
  });

  it('refuses what is not an address', () => {
    for (const bad of ['', 'unknown', '_hidden', '256.0.0.1', '1.2.3', '1.2.3.4.5', '1.2.3.4:80', '2001:db8::1::2', 'g::1', '1:2:3:4:5:6:7:8:9']) {
      assert.equal(ipBytes(bad), null, bad);
    }
  });
});

describe('parseCidr and CidrList', () => {
  it('matches IPv4 blocks against dotted and mapped peers alike', () => {
    const list = CidrList.parse(['10.0.0.0/8', '192.168.1.7']);
    assert.ok(list.contains('10.200.3.4'));
    assert.ok(list.contains('::ffff:10.1.1.1'));
    assert.ok(list.contains('0000:0000:0000:0000:0000:ffff:0a01:0101'), 'as uWS writes a mapped 10.1.1.1');
    assert.ok(list.contains('192.168.1.7'));
    assert.ok(!list.contains('192.168.1.8'), 'a bare address is a /32');
    assert.ok(!list.contains('11.0.0.1'));
    assert.ok(!list.contains('0a00::1'), 'an IPv6 address sharing the bits is not in an IPv4 block');
    assert.ok(!list.contains('junk'));
  });

  it('matches IPv6 blocks, prefixes off byte boundaries, and mapped blocks written as IPv6', () => {
    const list = CidrList.parse(['fd00::/8', '2001:db8:abcd:12::/62', '::1']);
    assert.ok(list.contains('fd12:3456::1'));
    assert.ok(!list.contains('fe00::1'));
    assert.ok(list.contains('2001:db8:abcd:13::ffff'), '/62 covers …:12 to …:15');
    assert.ok(!list.contains('2001:db8:abcd:16::1'));
    assert.ok(list.contains('0000:0000:0000:0000:0000:0000:0000:0001'));
    const mapped = CidrList.parse(['::ffff:127.0.0.0/104']);
    assert.ok(mapped.contains('127.0.0.1') && mapped.contains(MAPPED_LOOPBACK), '/104 of the mapped range is 127.0.0.0/8');
    assert.ok(!mapped.contains('128.0.0.1'));
  });

  it('ignores host bits, takes /0, and names a bad item', () => {
    assert.ok(CidrList.parse(['10.1.2.3/8']).contains('10.9.9.9'));
    assert.ok(CidrList.parse(['0.0.0.0/0']).contains('203.0.113.9'));
    assert.ok(!CidrList.parse(['0.0.0.0/0']).contains('2001:db8::1'), 'all of IPv4 is not all of IPv6');
    assert.ok(CidrList.parse(['::/0']).contains('2001:db8::1'));
    assert.equal(CidrList.parse([' 10.0.0.0/8 ', '', ' ']).size, 1);
    assert.throws(() => parseCidr('10.0.0.0/33'), /"10\.0\.0\.0\/33": the prefix length must be 0 to 32/);
    assert.throws(() => parseCidr('fd00::/129'), /0 to 128/);
    assert.throws(() => parseCidr('10.0.0.0/'), /prefix length/);
    assert.throws(() => parseCidr('10.0.0.0/8x'), /prefix length/);
    assert.throws(() => parseCidr('proxy.local'), /"proxy\.local" is not an IP address or CIDR block/);
  });

  it('is checked by loadConfig, which names the option', () => {
    assert.deepEqual(loadConfig(['--trust-proxy', '10.0.0.0/8, ::1'], {}).trustProxy, ['10.0.0.0/8', '::1']);
    assert.deepEqual(loadConfig([], {}).trustProxy, []);
    assert.throws(() => loadConfig([], { TRUST_PROXY: '10.0.0.0/8,nope' }), (e: unknown) => e instanceof ConfigError && /^--trust-proxy \(TRUST_PROXY\): "nope"/.test(e.message));
  });
});

describe('forwarding headers', () => {
  it('hopAddress strips ports, brackets and quotes; refuses names', () => {
    assert.equal(hopAddress(' 203.0.113.9 '), '203.0.113.9');
    assert.equal(hopAddress('203.0.113.9:4711'), '203.0.113.9');
    assert.equal(hopAddress('[2001:db8::17]:4711'), '2001:db8::17');
    assert.equal(hopAddress('[2001:db8::17]'), '2001:db8::17');
    assert.equal(hopAddress('2001:db8::17'), '2001:db8::17');
    assert.equal(hopAddress('unknown'), null);
    assert.equal(hopAddress('_gazonk'), null);
    assert.equal(hopAddress(''), null);
  });

  it('reads X-Forwarded-For entries, leftmost first, skipping empty ones', () => {
    assert.deepEqual(xForwardedForHops('203.0.113.9, 10.0.0.2,,10.0.0.1 '), ['203.0.113.9', '10.0.0.2', '10.0.0.1']);
  });

  it('reads Forwarded (RFC 7239): for= of each element, quoted values, any case, other parameters ignored', () => {
    assert.deepEqual(forwardedHops('for=192.0.2.60;proto=http;by=203.0.113.43'), ['192.0.2.60']);
    assert.deepEqual(forwardedHops('For="[2001:db8:cafe::17]:4711", for=192.0.2.43'), ['[2001:db8:cafe::17]:4711', '192.0.2.43']);
    assert.deepEqual(forwardedHops('proto=https;for=198.51.100.17, for=unknown'), ['198.51.100.17', 'unknown']);
    assert.deepEqual(forwardedHops('by=10.0.0.1, for="_hidden"'), ['', '_hidden'], 'an element without for= is a hop of unknown address');
    assert.deepEqual(forwardedHops('for="a,b;c", for=192.0.2.1'), ['a,b;c', '192.0.2.1'], 'commas and semicolons inside quotes do not split');
    assert.deepEqual(forwardedHops('for="x\\"y"'), ['x"y'], 'quoted-pair escapes');
    assert.deepEqual(forwardedHops(' , for=192.0.2.1 ,'), ['192.0.2.1'], 'empty elements name no hop');
  });
});

describe('ClientAddresses', () => {
  const proxies = ClientAddresses.fromConfig(['127.0.0.1/32', '10.0.0.0/8'])!;

  it('is absent when --trust-proxy lists nothing', () => {
    assert.equal(ClientAddresses.fromConfig([]), null);
  });

  it('ignores the headers of an untrusted peer', () => {
    assert.equal(proxies.resolve('198.51.100.7', { xForwardedFor: '203.0.113.9' }), '198.51.100.7');
    assert.equal(proxies.resolve('198.51.100.7', { forwarded: 'for=203.0.113.9' }), '198.51.100.7');
    assert.equal(proxies.resolve('', { xForwardedFor: '203.0.113.9' }), '', 'no peer address (uWS fallback): nothing trusted');
  });

  it('takes a trusted peer\'s header, also when the peer is reported mapped', () => {
    assert.equal(proxies.resolve('127.0.0.1', { xForwardedFor: '203.0.113.9' }), '203.0.113.9');
    assert.equal(proxies.resolve(MAPPED_LOOPBACK, { xForwardedFor: '203.0.113.9' }), '203.0.113.9');
    assert.equal(proxies.resolve('127.0.0.1', { forwarded: 'for="[2001:db8::5]:1234";proto=https' }), '2001:db8::5');
  });

  it('walks a chain from the right: the first untrusted hop is the client, a client\'s own entries left of it are never read', () => {
    // client 203.0.113.9 wrote a forged entry; proxy 10.0.0.2 appended the client, 10.0.0.1 appended 10.0.0.2.
    assert.equal(proxies.resolve('127.0.0.1', { xForwardedFor: '1.1.1.1, 203.0.113.9, 10.0.0.2, 10.0.0.1' }), '203.0.113.9');
    assert.equal(proxies.resolve('127.0.0.1', { forwarded: 'for=1.1.1.1, for=203.0.113.9, for=10.0.0.2' }), '203.0.113.9');
  });

  it('answers the leftmost hop when every hop is trusted, and the peer when there is no header', () => {
    assert.equal(proxies.resolve('127.0.0.1', { xForwardedFor: '10.0.0.3, 10.0.0.2' }), '10.0.0.3');
    assert.equal(proxies.resolve('127.0.0.1', {}), '127.0.0.1');
    assert.equal(proxies.resolve('127.0.0.1', { xForwardedFor: ' ' }), '127.0.0.1');
  });

  it('stops at the trusted hop that reported a hop that is not an address', () => {
    assert.equal(proxies.resolve('127.0.0.1', { xForwardedFor: '203.0.113.9, unknown' }), '127.0.0.1');
    assert.equal(proxies.resolve('127.0.0.1', { xForwardedFor: 'garbage, 10.0.0.2' }), '10.0.0.2');
    assert.equal(proxies.resolve('127.0.0.1', { forwarded: 'for=_hidden' }), '127.0.0.1');
    assert.equal(proxies.resolve('127.0.0.1', { forwarded: 'proto=https' }), '127.0.0.1');
  });

  it('prefers X-Forwarded-For over Forwarded when both are present', () => {
    assert.equal(proxies.resolve('127.0.0.1', { xForwardedFor: '203.0.113.9', forwarded: 'for=198.51.100.1' }), '203.0.113.9');
  });
});
