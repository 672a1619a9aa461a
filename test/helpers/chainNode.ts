/**
 * A real node in this process (uWS, crypto pool, LMDB store in a temporary directory by default, built-in miner on)
 * for write-path tests: construct over HTTP → sign (our identity `sign`, or the SDK's `signTx`)
 * → submit-transaction → wait until the node's miner mined it → read state through `deps`.
 *
 * In-process so tests can read chain state through the same modules the read routes use,
 * before every read route exists.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { signTx } from 'deso-protocol';
import type { AppDeps } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { startNode, type RunningNode } from '../../server/node.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { okApi, postApi } from './http.js';
import { freePort } from './ports.js';
import { solveTemplate } from './mining.js';
import { startRedisServer } from './redisServer.js';
import { tempDataDir } from './nodeProcess.js';
import { minedTxnLocation } from '../../server/chain/state/minedTxns.js';

export type J = Record<string, any>;

export interface KeyPair {
  seedHex: string;
  /** Base58Check (testnet). */
  pk: string;
  /** 33-byte compressed public key. */
  pk33: Uint8Array;
}

export function keyPair(): KeyPair {
  const secret = new Uint8Array(randomBytes(32));
  const pk33 = getPublicKey(secret, true);
  return { seedHex: Buffer.from(secret).toString('hex'), pk: encodePublicKey(pk33, 'testnet'), pk33 };
}

/**
 * An update-profile body for `pk`'s own profile: this username and description, no picture,
 * 10% creator basis points, shown. Callers spread a fee or other fields over it.
 */
export function profileBody(pk: string, username: string, description = ''): J {
  return {
    UpdaterPublicKeyBase58Check: pk,
    ProfilePublicKeyBase58Check: '',
    NewUsername: username,
    NewDescription: description,
    NewProfilePic: '',
    NewCreatorBasisPoints: 1000,
    NewStakeMultipleBasisPoints: 12500,
    IsHidden: false,
  };
}

/** A send-dm-message body between the base access groups of two keys; `text` travels as hex. */
export function dmBody(fromPk: string, toPk: string, text: string): J {
  return {
    SenderAccessGroupOwnerPublicKeyBase58Check: fromPk,
    SenderAccessGroupPublicKeyBase58Check: fromPk,
    SenderAccessGroupKeyName: '',
    RecipientAccessGroupOwnerPublicKeyBase58Check: toPk,
    RecipientAccessGroupPublicKeyBase58Check: toPk,
    RecipientAccessGroupKeyName: '',
    EncryptedMessageText: Buffer.from(text, 'utf8').toString('hex'),
  };
}

export type Signer = 'identity' | 'sdk';

export interface ChainNode {
  url: string;
  deps: AppDeps;
  /** Holds the block rewards of blocks mined through `mineBlock`. */
  miner: KeyPair;
  post(path: string, body: unknown): Promise<{ status: number; json: J }>;
  /** POSTs and asserts 200. */
  ok(path: string, body: unknown): Promise<J>;
  /** POSTs and asserts a 4xx whose error matches `re`; returns the error text. */
  fails(path: string, body: unknown, re: RegExp, status?: number): Promise<string>;
  /** Mines one block through get-block-template / submit-block (reward to `miner`). */
  mineBlock(): Promise<void>;
  /** Sends `nanos` from the miner's rewards to `pk`, mined. */
  fund(pk: string, nanos: number): Promise<void>;
  /** Signs an unsigned transaction hex with `key` through our identity service or the SDK. */
  sign(txnHex: string, key: KeyPair, by?: Signer): Promise<string>;
  /** sign + submit-transaction + wait until mined; answers submit-transaction's body. */
  submit(txnHex: string, key: KeyPair, by?: Signer): Promise<J>;
  /** Waits until the transaction with this final hash is in a main-chain block. */
  waitMined(txnHashHex: string): Promise<void>;
  close(): Promise<void>;
}

export interface ChainNodeOptions {
  /** Extra node flags. */
  args?: string[];
  /**
   * `redis`: the node runs on a private redis-server (free port, own data dir) that `close()`
   * stops; `lmdb` (default, as `npm start`): a fresh temporary data directory that `close()`
   * removes; `memory`: the volatile in-process store.
   */
  store?: 'memory' | 'redis' | 'lmdb';
  /** Run on this Redis instead (kept running by `close()`; e.g. a bench populating a store). */
  redisUrl?: string;
  /** Run on LMDB in this data directory (kept by `close()`; e.g. a bench populating a store). */
  dataDir?: string;
}

/** Ports tried before a start fails for want of one. */
const PORT_ATTEMPTS = 3;

/** Stores every store-dependent suite runs on; `READS_STORES=memory` (or `redis`) narrows it. */
export const TEST_STORES = (process.env['READS_STORES'] ?? 'memory,redis').split(',') as Array<'memory' | 'redis'>;

export async function startChainNode(opts: ChainNodeOptions = {}): Promise<ChainNode> {
  const miner = keyPair();
  const redis = opts.store === 'redis' && opts.redisUrl === undefined ? await startRedisServer() : null;
  const redisUrl = opts.redisUrl ?? redis?.url;
  const argsChooseStore = (opts.args ?? []).some((a) => /^--(redis|store|data-dir)(=|$)/.test(a));
  // A temporary data directory unless the caller names one (or another store): removed by close().
  const tempDir = redisUrl === undefined && opts.dataDir === undefined && !argsChooseStore && (opts.store ?? 'lmdb') === 'lmdb' ? tempDataDir() : undefined;
  const dataDir = opts.dataDir ?? tempDir;
  const storeArgs =
    redisUrl !== undefined ? ['--redis', redisUrl] : dataDir !== undefined ? ['--data-dir', dataDir] : argsChooseStore ? [] : ['--store', 'memory'];
  let running: RunningNode;
  for (let attempt = 1; ; attempt++) {
    // A port free a moment ago can be taken meanwhile by another test file's node or Redis
    // (test files run side by side): then try another.
    const port = await freePort();
    // --check-responses: every 200 answer is checked against its route's response schema (the
    // OpenAPI document's), so each suite that runs on this node checks the document too.
    const config = loadConfig(
      ['--port', String(port), '--network', 'testnet', '--miner', 'auto', '--miner-public-key', miner.pk, '--crypto-threads', '1', '--check-responses', ...storeArgs, ...(opts.args ?? [])],
      {},
    );
    try {
      running = await startNode(config, pino({ level: 'silent' }));
      break;
    } catch (err) {
      if (attempt < PORT_ATTEMPTS && /could not listen on/.test((err as Error).message)) continue;
      await redis?.stop();
      if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
      throw err;
    }
  }
  const url = `http://127.0.0.1:${running.port}`;
  const sessions = new Map<string, J>();

  const post = (path: string, body: unknown): Promise<{ status: number; json: J }> => postApi(url, path, body);
  const ok = (path: string, body: unknown): Promise<J> => okApi(url, path, body);
  const fails = async (path: string, body: unknown, re: RegExp, status = 400): Promise<string> => {
    const r = await post(path, body);
    assert.equal(r.status, status, `${path} answers ${status}: ${JSON.stringify(r.json)}`);
    assert.equal(typeof r.json['error'], 'string', `${path}: {error} body`);
    assert.match(r.json['error'] as string, re);
    return r.json['error'] as string;
  };
  const identity = async (method: string, payload: J): Promise<J> => {
    const r = await ok('identity', { id: `${method}-${Math.random()}`, service: 'identity', method, payload });
    return r['payload'] as J;
  };
  const sign = async (txnHex: string, key: KeyPair, by: Signer = 'identity'): Promise<string> => {
    if (by === 'sdk') return signTx(txnHex, key.seedHex);
    let session = sessions.get(key.seedHex);
    if (!session) {
      const login = await identity('login', { seedHex: key.seedHex, accessLevelRequest: 4 });
      session = { encryptedSeedHex: login['encryptedSeedHex'], accessLevel: 4, accessLevelHmac: login['accessLevelHmac'] };
      sessions.set(key.seedHex, session);
    }
    const signed = await identity('sign', { ...session, transactionHex: txnHex });
    assert.equal(typeof signed['signedTransactionHex'], 'string', `identity sign: ${JSON.stringify(signed)}`);
    return signed['signedTransactionHex'] as string;
  };
  const waitMined = async (txnHashHex: string): Promise<void> => {
    for (let i = 0; i < 400; i++) {
      if ((await minedTxnLocation(running.deps.store, txnHashHex)) !== undefined) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail(`transaction ${txnHashHex} was not mined within 10 s`);
  };
  const submit = async (txnHex: string, key: KeyPair, by: Signer = 'identity'): Promise<J> => {
    const s = await ok('submit-transaction', { TransactionHex: await sign(txnHex, key, by) });
    await waitMined(s['TxnHashHex'] as string);
    return s;
  };
  const mineBlock = async (): Promise<void> => {
    const t = await ok('get-block-template', { PublicKeyBase58Check: miner.pk, NumHeaders: 1, HeaderVersion: 1 });
    const r = await ok('submit-block', { PublicKeyBase58Check: miner.pk, Header: await solveTemplate(running.deps.crypto, t), ExtraNonce: (t['ExtraNonces'] as number[])[0], BlockID: t['BlockID'] });
    assert.equal(r['IsMainChain'], true, `mined block joined the main chain: ${JSON.stringify(r)}`);
  };
  let mined = false;
  const fund = async (pk: string, nanos: number): Promise<void> => {
    if (!mined) {
      // Rewards of the first blocks pay for every fund() of a test file.
      for (let i = 0; i < 3; i++) await mineBlock();
      mined = true;
    }
    const c = await ok('send-deso', { SenderPublicKeyBase58Check: miner.pk, RecipientPublicKeyOrUsername: pk, AmountNanos: nanos, MinFeeRateNanosPerKB: 1000 });
    await submit(c['TransactionHex'] as string, miner, 'sdk');
  };
  return {
    url,
    deps: running.deps,
    miner,
    post,
    ok,
    fails,
    mineBlock,
    fund,
    sign,
    submit,
    waitMined,
    close: async () => {
      await running.close();
      await redis?.stop();
      if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/**
 * One node for the enclosing `describe` on `store`, started and set up (`setup`: users, data)
 * before its tests and closed after them; its tests read the context through the getter.
 */
export function suiteNode<C extends { n: ChainNode }>(store: 'memory' | 'redis', setup: (n: ChainNode) => Promise<C>): () => C {
  let c: C | undefined;
  before(async () => {
    c = await setup(await startChainNode({ store }));
  });
  after(async () => {
    await c?.n.close();
  });
  return () => {
    assert.ok(c, 'the setup ran');
    return c;
  };
}
