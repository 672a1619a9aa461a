import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isDataDirError, openDataDir, STORE_FORMAT } from '../../server/store/dataDir.js';
import { LmdbStore } from '../../server/store/lmdb.js';

const withDir = (body: (dir: string) => Promise<void>) => async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sn-datadir-'));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

async function refused(promise: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isDataDirError(err), `a DataDirError, got ${String(err)}`);
    assert.match(err.message, re);
    return true;
  });
}

describe('openDataDir', () => {
  it('creates a missing directory, records format and network, and reopens it', withDir(async (root) => {
    const dir = join(root, 'a', 'b');
    const store = await openDataDir({ dir, network: 'testnet' });
    assert.equal(store.meta('format'), String(STORE_FORMAT));
    assert.equal(store.meta('network'), 'testnet');
    assert.match(readFileSync(join(dir, 'node.pid'), 'utf8'), new RegExp(`^${process.pid} `));
    await store.set('k', 1);
    await store.close();
    assert.equal(existsSync(join(dir, 'node.pid')), false, 'close releases the directory');
    const again = await openDataDir({ dir, network: 'testnet' });
    assert.equal(await again.get('k'), 1);
    await again.close();
  }));

  it('refuses a directory of another network, naming both and what to do', withDir(async (dir) => {
    await (await openDataDir({ dir, network: 'testnet' })).close();
    await refused(openDataDir({ dir, network: 'mainnet' }), /holds a testnet chain, but this node runs --network mainnet.*--network testnet.*another --data-dir/);
    assert.equal(existsSync(join(dir, 'node.pid')), false, 'a refusal leaves the directory unlocked');
  }));

  it('refuses another store format, saying there is no conversion', withDir(async (dir) => {
    const raw = LmdbStore.open({ path: dir });
    await raw.setMeta({ format: String(STORE_FORMAT + 1), network: 'testnet' });
    await raw.close();
    await refused(openDataDir({ dir, network: 'testnet' }), new RegExp(`store format ${STORE_FORMAT + 1}, written by a newer version.*does not convert.*new --data-dir`));
  }));

  it('refuses LMDB data it did not write', withDir(async (dir) => {
    const raw = LmdbStore.open({ path: dir });
    await raw.set('something', 1);
    await raw.close();
    await refused(openDataDir({ dir, network: 'testnet' }), /without this node's format marker/);
  }));

  it("refuses a Redis server's directory, giving the way to keep that chain", withDir(async (dir) => {
    writeFileSync(join(dir, 'appendonly.aof'), '');
    await refused(openDataDir({ dir, network: 'testnet' }), /Redis persistence files \(appendonly\.aof\).*--redis redis:\/\/host:port.*empty or new directory/);
  }));

  it('refuses a path that is a file or lies under one', withDir(async (root) => {
    const file = join(root, 'f');
    writeFileSync(file, 'x');
    await refused(openDataDir({ dir: file, network: 'testnet' }), /--data-dir \(DATA_DIR\) .*f: not a writable directory/);
    await refused(openDataDir({ dir: join(file, 'below'), network: 'testnet' }), /not a writable directory \(ENOTDIR/);
  }));

  it('refuses a full disk before opening anything', withDir(async (dir) => {
    await refused(openDataDir({ dir, network: 'testnet', freeBytes: async () => 1024 * 1024 }), /the disk is full \(1\.0 MiB free, at least 32\.0 MiB needed\)/);
    assert.equal(existsSync(join(dir, 'data.mdb')), false);
  }));

  it('refuses a directory a live process holds, and takes over one a dead process left', withDir(async (dir) => {
    const store = await openDataDir({ dir, network: 'testnet' });
    try {
      await refused(openDataDir({ dir, network: 'testnet' }), new RegExp(`in use by another node process \\(pid ${process.pid}\\)`));
    } finally {
      await store.close();
    }
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    // pid 1 is alive (init): a live holder on this boot.
    writeFileSync(join(dir, 'node.pid'), `1 ${boot}\n`);
    await refused(openDataDir({ dir, network: 'testnet' }), /in use by another node process \(pid 1\)/);
    // The same pid before a reboot, and a pid no process has: both left by the dead.
    for (const stale of [`1 another-boot\n`, `${2 ** 22 + 7} ${boot}\n`]) {
      writeFileSync(join(dir, 'node.pid'), stale);
      await (await openDataDir({ dir, network: 'testnet' })).close();
    }
  }));
});
