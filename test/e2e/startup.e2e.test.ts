// Startup of the real node process: config errors fail fast naming the setting, the pure-JS
// uWS fallback is refused unless explicitly allowed, env vars work like flags, a store whose
// chain is in another state layout is refused, and so is a data directory the node cannot use.
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { request } from '../helpers/http.js';
import { REPO_ROOT, startNodeProcess, tempDataDir } from '../helpers/nodeProcess.js';
import { freePort } from '../helpers/ports.js';
import { startRedisServer } from '../helpers/redisServer.js';
import { openDataDir, RedisStore } from '../../server/store/index.js';
import { chainKeys } from '../../server/chain/state/keys.js';

async function failsWith(args: string[], env: Record<string, string>, code: number, re: RegExp): Promise<void> {
  const node = await startNodeProcess({ args, env, noWait: true });
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([node.exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 30_000)))]);
  clearTimeout(timer);
  if (exit === 'timeout') await node.stop('SIGKILL');
  assert.equal(exit, code, `exit code; output:\n${node.output.join('\n')}`);
  assert.match(node.output.join('\n'), re);
}

describe('startup configuration', () => {
  it('fails fast on an invalid value, naming the flag and env var', async () => {
    await failsWith(['--network', 'moonnet'], {}, 2, /--network \(NETWORK\) must be one of testnet, mainnet/);
  });

  it('fails fast on an invalid env value', async () => {
    await failsWith([], { MAX_BODY_BYTES: 'lots' }, 2, /--max-body-bytes \(MAX_BODY_BYTES\) must be an integer/);
  });

  it('fails fast on an unknown option', async () => {
    await failsWith(['--prot', '1'], {}, 2, /unknown option --prot/);
  });

  it('refuses several processes on an embedded store', async () => {
    await failsWith(['--processes', '2'], {}, 2, /embedded LMDB store \(--data-dir\) serves one process.*--redis/);
    await failsWith(['--processes', '2', '--store', 'memory'], {}, 2, /in-memory store cannot be shared.*--redis/);
  });

  it('fails with a clear message when Redis is unreachable, without showing its password', async () => {
    const port = await freePort();
    const node = await startNodeProcess({ args: ['--redis', `redis://:hunter2pw@127.0.0.1:${port}`], noWait: true });
    assert.equal(await node.exited, 1);
    const out = node.output.join('\n');
    assert.match(out, /--redis/);
    assert.ok(!out.includes('hunter2pw'), 'password not printed');
  });

  it('takes the port from PORT when no flag is given', async () => {
    const node = await startNodeProcess({ portFromEnv: true });
    try {
      assert.equal((await request(node.url, '/api/v0/health-check')).status, 200);
    } finally {
      await node.stop();
    }
  });
});

describe('chain state layout check', () => {
  it('refuses (exit 2) a Redis holding a chain in the old layout, saying what to do; starts on an empty one', async () => {
    const redis = await startRedisServer();
    try {
      const store = await RedisStore.connect({ url: redis.url, keyPrefix: 'sn:' });
      // Layout 1 had no version key: a tip alone is an old node's chain.
      await store.set(chainKeys.tip, { hashHex: '00'.repeat(32), height: 5n, tstampSecs: 1n, targetHex: 'ff'.repeat(32) });
      await failsWith(['--redis', redis.url], {}, 2, /state layout 1, written by an older version.*reads layout 5.*empty store.*--redis-key-prefix/s);
      await store.close();
      const node = await startNodeProcess({ args: ['--redis', redis.url, '--redis-key-prefix', 'fresh:'] });
      await node.stop();
    } finally {
      await redis.stop();
    }
  });
});

describe('data directory check (LMDB store)', () => {
  it('refuses (exit 2) a directory another node holds, and one of another network; starts again once free', async () => {
    const dir = tempDataDir();
    const first = await startNodeProcess({ args: ['--data-dir', dir] });
    try {
      await failsWith(['--data-dir', dir], {}, 2, new RegExp(`--data-dir \\(DATA_DIR\\) ${dir} is in use by another node process \\(pid ${first.child.pid}\\)`));
    } finally {
      assert.equal(await first.stop(), 0);
    }
    await failsWith(['--data-dir', dir, '--network', 'mainnet'], {}, 2, /holds a testnet chain, but this node runs --network mainnet/);
    const again = await startNodeProcess({ args: ['--data-dir', dir] });
    assert.equal(await again.stop(), 0);
  });

  it('refuses (exit 2) a path it cannot write, before listening', async () => {
    const file = join(tempDataDir(), 'a-file');
    writeFileSync(file, '');
    await failsWith(['--data-dir', file], {}, 2, /--data-dir \(DATA_DIR\) .*a-file: not a writable directory/);
  });

  it('refuses (exit 2) a data directory holding a chain in the old layout, naming the way out', async () => {
    const dir = tempDataDir();
    const store = await openDataDir({ dir, network: 'testnet' });
    await store.set(chainKeys.tip, { hashHex: '00'.repeat(32), height: 5n, tstampSecs: 1n, targetHex: 'ff'.repeat(32) });
    await store.close();
    await failsWith(['--data-dir', dir], {}, 2, /state layout 1, written by an older version.*reads layout 5.*empty store \(a new --data-dir\)/s);
  });
});

describe('native uWS check', () => {
  it('refuses to run on the pure-JS fallback', async () => {
    await failsWith([], { UWS_USE_FALLBACK: '1' }, 1, /no native uWebSockets\.js binary.*--allow-uws-fallback/);
  });

  it('runs on the fallback only with --allow-uws-fallback, and says so', async () => {
    const node = await startNodeProcess({ args: ['--allow-uws-fallback'], env: { UWS_USE_FALLBACK: '1' } });
    try {
      assert.match(node.output.join('\n'), /running anyway because --allow-uws-fallback is set/);
      assert.equal((await request(node.url, '/api/v0/get-exchange-rate')).status, 200);
    } finally {
      await node.stop();
    }
  });
});

describe('graceful shutdown', () => {
  it('a SIGTERM to `npm start` (what a process manager sends) stops the node, not only npm', async () => {
    const port = await freePort();
    // npm runs the script in a shell; without `exec` the shell died and left the node running.
    // In a process group of its own, so a node left behind by a failure is still cleaned up.
    const npm = spawn('npm', ['start', '--', '--port', String(port), '--store', 'memory', '--miner', 'off'], { cwd: REPO_ROOT, stdio: 'ignore', detached: true });
    const npmExited = new Promise<number | null>((r) => npm.once('exit', (code) => r(code)));
    const up = async (): Promise<boolean> => {
      try {
        return (await request(`http://127.0.0.1:${port}`, '/api/v0/health-live')).status === 200;
      } catch {
        return false;
      }
    };
    try {
      for (let i = 0; !(await up()); i++) {
        assert.ok(i < 600, 'npm start answered within 60 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      npm.kill('SIGTERM');
      await npmExited;
      for (let i = 0; await up(); i++) {
        assert.ok(i < 100, 'the node stopped within 10 s of the SIGTERM to npm');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // Every process of the group is gone already.
      }
    }
  });

  it('a SIGTERM the moment it says "listening" is a clean shutdown (exit 0), every time', async () => {
    // The handlers go in before the node starts: a signal in the gap between the "listening"
    // line and a handler installed after it took the default action (killed, no exit code).
    for (let i = 0; i < 5; i++) {
      const node = await startNodeProcess({ args: ['--store', 'memory'] });
      assert.equal(await node.stop(), 0, `round ${i}: exit code`);
    }
  });

  it('on SIGTERM stops listening but finishes a request still in flight, then exits 0', async () => {
    const node = await startNodeProcess();
    const sock = connect(node.port, '127.0.0.1');
    await new Promise<void>((r) => sock.once('connect', () => r()));
    let response = '';
    sock.on('data', (d) => (response += d.toString()));
    // Half a body: the request is in flight until the rest arrives.
    sock.write('POST /api/v0/get-app-state HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 200));
    node.child.kill('SIGTERM');
    await node.waitForLine(/draining in-flight requests/);
    // New connections are refused once the listener is closed.
    await assert.rejects(request(node.url, '/api/v0/health-check'));
    const closed = new Promise<void>((r) => sock.once('close', () => r()));
    sock.write('}');
    assert.equal(await node.exited, 0);
    await closed;
    assert.match(response, /^HTTP\/1\.1 200 OK/);
    assert.match(response, /"DiamondLevelMap"/);
    sock.destroy();
  });
});
