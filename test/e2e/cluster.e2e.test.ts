// Several server processes on one port sharing one Redis, and a node surviving a Redis outage.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rawRequest, request } from '../helpers/http.js';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';
import { parsePrometheusText, type Family } from '../helpers/promText.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis.stop();
});

interface NodeInfo {
  ProcessId: string;
  StoreKind: string;
  Processes: Array<{ ProcessId: string; StartedAtUnixMs: number; LastSeenUnixMs: number }>;
}

/** One request per fresh connection, so the kernel picks a process each time. */
async function nodeInfoOnFreshConnection(port: number): Promise<{ servedBy: string; info: NodeInfo }> {
  const r = await rawRequest(port, [`GET /api/v0/node-info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
  assert.equal(r.status, 200);
  const servedBy = /x-node-process: ([0-9a-f]+)/i.exec(r.head)?.[1];
  assert.ok(servedBy, 'X-Node-Process header present');
  return { servedBy, info: JSON.parse(r.body) as NodeInfo };
}

describe('two server processes on one port with Redis', () => {
  let node: NodeProcess;
  before(async () => {
    node = await startNodeProcess({
      args: ['--processes', '2', '--redis', redis.url, '--redis-key-prefix', 'cluster-test:'],
      readyLine: /all server processes ready/,
    });
  });
  after(async () => {
    if (node) assert.equal(await node.stop(), 0, 'supervisor and children stop cleanly on SIGTERM');
  });

  it('spreads connections over both processes, and each sees what the other wrote', async () => {
    const seen = new Map<string, NodeInfo>();
    for (let i = 0; i < 200 && seen.size < 2; i++) {
      const { servedBy, info } = await nodeInfoOnFreshConnection(node.port);
      assert.equal(info.ProcessId, servedBy);
      assert.equal(info.StoreKind, 'redis');
      seen.set(servedBy, info);
    }
    assert.equal(seen.size, 2, 'both processes answered on the one port');
    const [a, b] = [...seen.keys()];
    // Each process's registration is written by that process and read back through the other.
    const pairs: Array<[string, string]> = [[a!, b!], [b!, a!]];
    for (const [self, other] of pairs) {
      const listed = seen.get(self)!.Processes.map((p) => p.ProcessId);
      assert.ok(listed.includes(other), `${self} sees ${other}'s registration through Redis`);
    }
  });

  it('answers every request the same whichever process serves it', async () => {
    const bodies = new Set<string>();
    const servers = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const r = await rawRequest(node.port, [`GET /api/v0/get-exchange-rate HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
      assert.equal(r.status, 200);
      bodies.add(r.body);
      servers.add(/x-node-process: ([0-9a-f]+)/i.exec(r.head)![1]!);
    }
    assert.equal(bodies.size, 1, 'identical answers');
    assert.ok(servers.size >= 1, 'answered by the cluster');
  });

  /** The children as the supervisor logged them ready: process id → pid. */
  function children(): Map<string, number> {
    const out = new Map<string, number>();
    for (const line of node.output) {
      if (!line.includes('"server process ready"')) continue;
      const j = JSON.parse(line) as { processId: string; childPid: number };
      out.set(j.processId, j.childPid);
    }
    return out;
  }

  /** GET /metrics on a fresh connection: the process that answered and the parsed exposition. */
  async function scrape(timeoutMs = 5_000): Promise<{ servedBy: string; families: Map<string, Family>; ms: number }> {
    const started = performance.now();
    const r = await rawRequest(node.port, ['GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], 0, timeoutMs);
    assert.equal(r.status, 200);
    return { servedBy: /x-node-process: ([0-9a-f]+)/i.exec(r.head)![1]!, families: parsePrometheusText(r.body), ms: performance.now() - started };
  }

  const processesOf = (families: Map<string, Family>, name: string): Set<string> => new Set(families.get(name)!.samples.map((s) => s.labels['process']!));
  const scrapeCount = (families: Map<string, Family>, state: string): number | undefined =>
    families.get('socialnode_scrape_processes')!.samples.find((s) => s.labels['state'] === state)?.value;

  it('one scrape of /metrics, whichever process answers it, lists both processes\' series', async () => {
    const ids = new Set(children().keys());
    assert.equal(ids.size, 2);
    const servedBy = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const { servedBy: by, families } = await scrape();
      servedBy.add(by);
      assert.deepEqual(processesOf(families, 'process_resident_memory_bytes'), ids);
      assert.deepEqual(processesOf(families, 'socialnode_chain_tip_height'), ids, 'each process\'s node series');
      assert.equal(scrapeCount(families, 'included'), 2);
      assert.equal(scrapeCount(families, 'missing'), 0);
      assert.deepEqual(processesOf(families, 'socialnode_scrape_processes'), new Set([by]), 'the scrape\'s own series: the scraped process');
    }
  });

  it('a stopped process does not hang the scrape: the other answers within the gather timeout, counting it missing', async () => {
    const [[stoppedId, pid], [liveId]] = [...children()] as [[string, number], [string, number]];
    process.kill(pid, 'SIGSTOP');
    try {
      let answered: Awaited<ReturnType<typeof scrape>> | undefined;
      // A connection the kernel hands to the stopped process gets no answer: try fresh ones.
      for (let i = 0; i < 10 && answered === undefined; i++) answered = await scrape(4_000).catch(() => undefined);
      assert.ok(answered, 'the live process answered a scrape');
      assert.equal(answered.servedBy, liveId);
      assert.ok(answered.ms >= 1_900 && answered.ms < 4_000, `answered after the 2 s gather timeout, ${answered.ms.toFixed(0)} ms`);
      assert.deepEqual(processesOf(answered.families, 'process_resident_memory_bytes'), new Set([liveId]));
      assert.equal(scrapeCount(answered.families, 'included'), 1);
      assert.equal(scrapeCount(answered.families, 'missing'), 1);
      assert.ok(!processesOf(answered.families, 'process_resident_memory_bytes').has(stoppedId));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });
});

describe('a node whose Redis goes away', () => {
  it('answers 503 on health-check while Redis is down and recovers by itself', async () => {
    const own = await startRedisServer();
    const node = await startNodeProcess({ args: ['--redis', own.url, '--health-probe-interval-ms', '100'] });
    try {
      assert.equal((await request(node.url, '/api/v0/health-check')).status, 200);
      const port = own.port;
      await own.stop();
      let down;
      for (let i = 0; i < 50; i++) {
        down = await request(node.url, '/api/v0/health-check');
        if (down.status === 503) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(down!.status, 503);
      assert.match((down!.json as { error: string }).error, /state store unreachable/);
      // Routes that need the store say so instead of failing opaquely; others keep working.
      const info = await request(node.url, '/api/v0/node-info');
      assert.equal(info.status, 503);
      assert.equal((await request(node.url, '/api/v0/get-exchange-rate')).status, 200);

      const again = await startRedisServer({ port });
      try {
        let up;
        for (let i = 0; i < 100; i++) {
          up = await request(node.url, '/api/v0/health-check');
          if (up.status === 200) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(up!.status, 200, 'recovered without a restart');
        assert.equal(node.child.exitCode, null, 'the process never died');
      } finally {
        await node.stop();
        await again.stop();
      }
    } finally {
      await node.stop();
      await own.stop();
    }
  });
});
