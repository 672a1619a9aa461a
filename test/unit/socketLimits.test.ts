import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRateLimits } from '../../server/http/rateClasses.js';
import { RateLimiter } from '../../server/http/rateLimit.js';
import { originAllowed } from '../../server/http/origins.js';
import { SocketLimits } from '../../server/http/socketLimits.js';
import { MemoryStore } from '../../server/store/memory.js';

const limiter = (limitLoopback = false) =>
  new RateLimiter({
    limits: parseRateLimits('identity=2/0.01,miner=1/0.01'),
    limitLoopback,
    store: new MemoryStore(),
    log: { warn: () => undefined, info: () => undefined } as never,
  });

describe('SocketLimits', () => {
  it('caps open sockets per address across endpoints, IPv6 per /64, and frees a slot on close', () => {
    const limits = new SocketLimits({ maxPerAddress: 2, corsOrigins: ['*'], limiter: limiter() });
    const identity = limits.gate('identity');
    const miner = limits.gate('miner');
    const a = '2001:0db8:0001:0002:0000:0000:0000:0001';
    const sameBlock = '2001:0db8:0001:0002:ffff:0000:0000:0009';
    assert.equal(identity.admit(a, ''), null);
    identity.opened(a);
    assert.equal(miner.admit(sameBlock, ''), null);
    miner.opened(sameBlock);
    const refused = identity.admit(a, '');
    assert.equal(refused?.status, 429);
    assert.match(refused!.message, /too many open WebSockets from this address \(limit 2\)/);
    assert.deepEqual(refused!.headers, [['Retry-After', '10']]);
    assert.equal(identity.admit('2001:0db8:0001:0003:0000:0000:0000:0001', ''), null, 'another /64 has its own count');
    miner.closed(sameBlock);
    assert.equal(identity.admit(a, ''), null);
  });

  it('exempts loopback unless loopback is limited; 0 means no cap', () => {
    const open = new SocketLimits({ maxPerAddress: 1, corsOrigins: ['*'], limiter: limiter() });
    const g = open.gate('identity');
    for (let i = 0; i < 5; i++) g.opened('127.0.0.1');
    assert.equal(g.admit('127.0.0.1', ''), null);
    const strict = new SocketLimits({ maxPerAddress: 1, corsOrigins: ['*'], limiter: limiter(true) }).gate('identity');
    strict.opened('127.0.0.1');
    assert.equal(strict.admit('127.0.0.1', '')?.status, 429);
    const uncapped = new SocketLimits({ maxPerAddress: 0, corsOrigins: ['*'], limiter: limiter(true) }).gate('identity');
    for (let i = 0; i < 5; i++) uncapped.opened('127.0.0.1');
    assert.equal(uncapped.admit('127.0.0.1', ''), null);
  });

  it('refuses a browser origin not in --cors-origins (403); no Origin is admitted', () => {
    const g = new SocketLimits({ maxPerAddress: 0, corsOrigins: ['https://app.example', 'https://*.example.org'], limiter: limiter() }).gate('identity');
    assert.equal(g.admit('203.0.113.1', ''), null);
    assert.equal(g.admit('203.0.113.1', 'https://app.example'), null);
    assert.equal(g.admit('203.0.113.1', 'https://a.example.org'), null);
    const r = g.admit('203.0.113.1', 'https://evil.example');
    assert.equal(r?.status, 403);
    assert.match(r!.message, /origin "https:\/\/evil.example" refused/);
    assert.equal(originAllowed(['*'], 'https://evil.example'), true);
    assert.equal(originAllowed(['https://*.example.org'], 'https://.example.org'), false);
  });

  it('rate limits messages by the endpoint class of the address: a 429 refusal with a retry hint', async () => {
    const limits = new SocketLimits({ maxPerAddress: 0, corsOrigins: ['*'], limiter: limiter() });
    const miner = limits.gate('miner');
    assert.equal(await miner.admitMessage('203.0.113.1'), null);
    const refused = await miner.admitMessage('203.0.113.1');
    assert.equal(refused?.status, 429);
    assert.match(refused!.reason, /^too many miner requests from this address .*retry in \d+ s$/);
    // The identity class is a separate bucket.
    assert.equal(await limits.gate('identity').admitMessage('203.0.113.1'), null);
    assert.equal(await miner.admitMessage('127.0.0.1'), null);
    assert.equal(await miner.admitMessage('127.0.0.1'), null, 'loopback exempt');
  });
});
