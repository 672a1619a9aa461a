/**
 * `npm run miner -- --node ws://127.0.0.1:17001 --public-key <Base58Check> [--threads N]`:
 * a standalone CPU miner for a node's miner feed. Mining runs in a crypto pool (WASM
 * DeSoHashV1), one worker per thread. `--help` lists the options.
 */
import { availableParallelism } from 'node:os';
import { exitWithUsageError, runCommandLine, type CommandSpec } from '../server/cli.js';
import { CryptoPool } from '../server/crypto/pool.js';
import { createLogger } from '../server/log.js';
import { decodePublicKey } from '../server/keys/index.js';
import { MinerClient } from './client.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const MINER_COMMAND: CommandSpec = {
  name: 'miner',
  usage: 'npm run miner -- --public-key <Base58Check reward key> [--node ws://HOST:PORT] [--threads N] [--network testnet|mainnet]',
  summary:
    "A standalone CPU miner: it subscribes to a node's miner feed (the WebSocket at /api/v0/miner), mines the templates " +
    'it is sent on every thread, and submits solved headers. Block rewards go to --public-key.',
  flags: [
    { name: 'node', value: 'ws-url', default: 'ws://127.0.0.1:17001', doc: "The node's address (ws:// or wss://)." },
    { name: 'public-key', value: 'Base58Check', required: true, doc: 'Public key that receives the block rewards.' },
    {
      name: 'threads',
      value: 'integer 1..256',
      default: String(Math.max(1, availableParallelism())),
      doc: 'Mining worker threads (default: the cores of this machine).',
    },
    { name: 'network', value: 'testnet|mainnet', default: 'testnet', doc: "The node's network (the reward key's prefix)." },
    { name: 'log-level', value: LOG_LEVELS.join('|'), default: 'info', doc: 'pino log level.' },
  ],
};

function fail(message: string): never {
  exitWithUsageError(MINER_COMMAND.name, message);
}

const { values } = runCommandLine(MINER_COMMAND);
const publicKey = values['public-key'] as string | undefined;
if (!publicKey) fail('--public-key is required');
const network = values['network'];
if (network !== 'testnet' && network !== 'mainnet') fail('--network must be testnet or mainnet');
try {
  decodePublicKey(publicKey, network, '--public-key');
} catch (e) {
  fail((e as Error).message);
}
const threads = Number(values['threads']);
if (!Number.isInteger(threads) || threads < 1 || threads > 256) fail('--threads must be an integer from 1 to 256');
const nodeUrl = values['node'] as string;
if (!/^wss?:\/\//.test(nodeUrl)) fail('--node must be a ws:// or wss:// URL');
const logLevel = values['log-level'] as (typeof LOG_LEVELS)[number];
if (!LOG_LEVELS.includes(logLevel)) fail(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);

const log = createLogger(logLevel);
const crypto = new CryptoPool({ threads }, { metrics: null, log });
const client = new MinerClient({ nodeUrl, publicKey, crypto, parallelSlices: threads, log });
client.start();
log.info({ node: nodeUrl, threads }, 'miner started');

const shutdown = async (): Promise<void> => {
  await client.stop();
  await crypto.close();
  log.info(client.stats, 'miner stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
