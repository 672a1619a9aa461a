/**
 * The data directory (`--data-dir`) of the LMDB store: checked before a node starts on it, so a
 * directory it cannot use stops the node with one clear message (exit 2) instead of a
 * half-started node. Refused: a path that cannot be created or written, a full disk, a Redis
 * server's directory, a directory another live node process holds, and LMDB data in another
 * store format or of another network.
 *
 * The directory holds LMDB's data.mdb and lock.mdb, and node.pid: the process using it (one
 * process per directory: the per-process parts of the store, publish/subscribe among them,
 * would not reach a second one).
 * @module
 */
import { constants } from 'node:fs';
import { access, mkdir, readFile, readdir, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LmdbStore } from './lmdb.js';

/**
 * The layout of the store itself (lmdb.ts: kind bytes, record and index encodings). A data
 * directory in another format is refused, never converted. Chain state inside has its own
 * version (chain/state/layout.ts).
 */
export const STORE_FORMAT = 1;

export const DATA_DIR_DEFAULTS = {
  /** Below this much free space the node does not start: LMDB grows its file as the chain grows. */
  minFreeBytes: 32 * 1024 * 1024,
} as const;

/** Files a Redis server writes into its `dir`: such a directory is not a node data directory. */
const REDIS_FILES = ['dump.rdb', 'appendonly.aof', 'appendonlydir'];
const PID_FILE = 'node.pid';
const FLAG = '--data-dir (DATA_DIR)';

/** A data directory the node refuses to start on; main.ts exits 2 with the message. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

export function isDataDirError(e: unknown): e is DataDirError {
  return e instanceof DataDirError;
}

export interface OpenDataDirOptions {
  /** The directory; created (with its parents) if missing. */
  dir: string;
  /** The node's network: recorded in a new directory, and required of an existing one. */
  network: string;
  /** Background store errors (see LmdbStoreOptions). */
  onError?: (err: unknown) => void;
  /** @default DATA_DIR_DEFAULTS.minFreeBytes */
  minFreeBytes?: number;
  /** For tests: free bytes of the file system holding `dir`. @default statfs */
  freeBytes?: (dir: string) => Promise<number>;
}

/** Directories this process holds (node.pid names this process for all of them). */
const heldHere = new Set<string>();

/** Checks `opts.dir`, locks it for this process and opens its LMDB store; throws DataDirError. */
export async function openDataDir(opts: OpenDataDirOptions): Promise<LmdbStore> {
  const dir = resolve(opts.dir);
  await usableDirectory(dir);
  const free = await (opts.freeBytes ?? freeBytes)(dir);
  const minFree = opts.minFreeBytes ?? DATA_DIR_DEFAULTS.minFreeBytes;
  if (free < minFree) {
    throw new DataDirError(`${FLAG} ${dir}: the disk is full (${mib(free)} free, at least ${mib(minFree)} needed); free some space or choose a directory on another disk`);
  }
  const release = await lock(dir);
  let store: LmdbStore;
  try {
    store = LmdbStore.open({ path: dir, onError: opts.onError, afterClose: release });
  } catch (err) {
    await release();
    throw new DataDirError(`${FLAG} ${dir}: cannot open the LMDB store there: ${errorText(err)}`);
  }
  try {
    await checkContents(store, dir, opts.network);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** Creates `dir` if needed; refuses a file, a Redis directory, or one it cannot write. */
async function usableDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await access(dir, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new DataDirError(`${FLAG} ${dir}: not a writable directory (${errorText(err)}); choose a directory this user can write, or create it with the right owner`);
  }
  const redis = (await readdir(dir)).filter((name) => REDIS_FILES.includes(name));
  if (redis.length > 0) {
    throw new DataDirError(
      `${FLAG} ${dir} holds Redis persistence files (${redis.join(', ')}): it is a Redis server's directory, which this node's embedded LMDB store does not read. ` +
        'To keep the chain kept there, start redis-server on that directory and run the node with --redis redis://host:port; ' +
        'to start a new chain on LMDB, give --data-dir an empty or new directory',
    );
  }
}

/** Records a new directory's format and network; refuses an existing one in another. Then proves a durable write works. */
async function checkContents(store: LmdbStore, dir: string, network: string): Promise<void> {
  const format = store.meta('format');
  if (format === undefined) {
    if (!store.isEmpty()) {
      throw new DataDirError(`${FLAG} ${dir} holds LMDB data without this node's format marker (not written by this node); give --data-dir an empty or new directory`);
    }
    await durably(store, dir, { format: String(STORE_FORMAT), network });
    return;
  }
  if (format !== String(STORE_FORMAT)) {
    const by = Number(format) < STORE_FORMAT ? 'an older' : 'a newer';
    throw new DataDirError(
      `${FLAG} ${dir} is in store format ${format}, written by ${by} version of this node; this version reads format ${STORE_FORMAT} only and does not convert it. ` +
        'Start on a new --data-dir and re-sync or re-mine the chain there, or run the node version that wrote it',
    );
  }
  const stored = store.meta('network');
  if (stored !== network) {
    throw new DataDirError(
      `${FLAG} ${dir} holds a ${stored ?? 'unknown'} chain, but this node runs --network ${network}: keys, fees and state differ between networks. ` +
        `Run with --network ${stored ?? '…'}, or give another --data-dir for ${network}`,
    );
  }
  // A read-only remount or a full disk shows here, at startup, rather than on the first request.
  await durably(store, dir, { openedAt: new Date().toISOString() });
}

async function durably(store: LmdbStore, dir: string, entries: Record<string, string>): Promise<void> {
  try {
    await store.setMeta(entries);
  } catch (err) {
    throw new DataDirError(`${FLAG} ${dir}: cannot write there (${errorText(err)}); check free space and that the file system is writable`);
  }
}

/**
 * Takes node.pid for this process. A pid file of a process that is gone (killed, or before a
 * reboot: the boot id differs) is taken over; one of a live process is refused.
 */
async function lock(dir: string): Promise<() => Promise<void>> {
  const file = join(dir, PID_FILE);
  const mine = `${process.pid} ${await bootId()}\n`;
  const release = async (): Promise<void> => {
    heldHere.delete(dir);
    await rm(file, { force: true });
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (heldHere.has(dir)) throw inUse(dir, process.pid);
    try {
      await writeFile(file, mine, { flag: 'wx' });
      heldHere.add(dir);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new DataDirError(`${FLAG} ${dir}: cannot write ${PID_FILE} (${errorText(err)})`);
    }
    const [pidText, boot] = (await readFile(file, 'utf8').catch(() => '')).trim().split(' ');
    const pid = Number(pidText);
    // This process's own pid, not held here: a dead process's file whose pid came round again.
    const live = Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && boot === (await bootId()) && alive(pid);
    if (live) throw inUse(dir, pid);
    await rm(file, { force: true }); // left by a process that died
  }
  throw new DataDirError(`${FLAG} ${dir}: another process keeps taking ${PID_FILE}; is a second node starting on it?`);
}

function inUse(dir: string, pid: number): DataDirError {
  return new DataDirError(
    `${FLAG} ${dir} is in use by another node process (pid ${pid}): one process per data directory. ` +
      'Several processes serve one node through Redis (--redis, --processes); see README "Storage"',
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let bootIdText: Promise<string> | undefined;
/** Linux's boot id (changes on every boot), so a pid file from before a reboot is never live. */
function bootId(): Promise<string> {
  bootIdText ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (text) => text.trim(),
    () => 'unknown',
  );
  return bootIdText;
}

async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function errorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
