/**
 * `npm run miner -- --node ws://127.0.0.1:17001 --public-key <Base58Check> [--threads N]`:
 * a standalone CPU miner for a node's miner feed. Mining runs in a crypto pool (WASM
 * DeSoHashV1), one worker per thread.
 */
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import { CryptoPool } from '../server/crypto/pool.js';
import { createLogger } from '../server/log.js';
import { decodePublicKey } from '../server/keys/index.js';
import { MinerClient } from './client.js';

const USAGE = 'usage: npm run miner -- --node ws://HOST:PORT --public-key <Base58Check reward key> [--threads N] [--network testnet|mainnet]';

function fail(message: string): never {
  process.stderr.write(`miner: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      node: { type: 'string', default: 'ws://127.0.0.1:17001' },
      'public-key': { type: 'string' },
      threads: { type: 'string', default: String(Math.max(1, availableParallelism())) },
      network: { type: 'string', default: 'testnet' },
      'log-level': { type: 'string', default: 'info' },
    },
    strict: true,
  }));
} catch (e) {
  fail((e as Error).message);
}
const publicKey = values['public-key'];
if (!publicKey) fail('--public-key is required');
const network = values.network;
if (network !== 'testnet' && network !== 'mainnet') fail('--network must be testnet or mainnet');
try {
  decodePublicKey(publicKey, network, '--public-key');
} catch (e) {
  fail((e as Error).message);
}
const threads = Number(values.threads);
if (!Number.isInteger(threads) || threads < 1 || threads > 256) fail('--threads must be an integer from 1 to 256');
if (!/^wss?:\/\//.test(values.node)) fail('--node must be a ws:// or wss:// URL');
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const logLevel = values['log-level'] as (typeof LOG_LEVELS)[number];
if (!LOG_LEVELS.includes(logLevel)) fail(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);

const log = createLogger(logLevel);
const crypto = new CryptoPool({ threads }, { metrics: null, log });
const client = new MinerClient({ nodeUrl: values.node, publicKey, crypto, parallelSlices: threads, log });
client.start();
log.info({ node: values.node, threads }, 'miner started');

const shutdown = async (): Promise<void> => {
  await client.stop();
  await crypto.close();
  log.info(client.stats, 'miner stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
