/**
 * Node configuration: one table of options, each settable by CLI flag or environment variable
 * (flag wins), each with a default that works on a bare machine. README's configuration table
 * is checked against this table by test/unit/config.test.ts.
 */

import { decodePublicKey, encodePublicKey, isKeyError, type Network } from './keys/index.js';
import { redactRedisUrl } from './store/redis.js';
import { redisUrlProblem } from './store/redisUrl.js';
import { DEFAULT_RATE_LIMITS, parseRateLimits } from './http/rateClasses.js';
import { CidrList } from './http/ipAddress.js';
import { helpText, unknownFlagMessage, type CommandSpec, type FlagSpec } from './cli.js';

export type { Network };
export type StoreKind = 'lmdb' | 'memory' | 'redis';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  network: Network;
  /** Resolved by loadConfig: redis with --redis, else lmdb unless --store memory. */
  store: StoreKind;
  dataDir: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  processes: number;
  adminPublicKeys: string[];
  superAdminPublicKeys: string[];
  paramUpdaterPublicKeys: string[];
  devOpenAdmin: boolean;
  satoshisPerNativeExchangeRate: number;
  usdCentsPerBitcoinExchangeRate: number;
  nanosSold: number;
  minSatoshisBurnedForProfileCreation: number;
  createProfileFeeNanos: number;
  minFeeRateNanosPerKb: number | undefined;
  mempoolMaxSizeBytes: number | undefined;
  compProfileCreation: boolean;
  supportEmail: string;
  analyticsKey: string;
  analyticsDomain: string;
  showProcessingSpinners: boolean;
  starterNativeSeed: string | undefined;
  smsProviderApiKey: string | undefined;
  hasPaymentProviderIntegration: boolean;
  maxBodyBytes: number;
  corsOrigins: string[];
  logLevel: LogLevel;
  allowUwsFallback: boolean;
  cryptoThreads: number;
  shutdownTimeoutMs: number;
  healthProbeIntervalMs: number;
  slowRequestMs: number;
  responseNames: 'spec' | 'reference';
  checkResponses: boolean;
  readCacheMb: number;
  identitySecret: string | undefined;
  identitySecretFile: string | undefined;
  identitySessionTtlSeconds: number;
  miner: 'auto' | 'off';
  minerPublicKey: string | undefined;
  blockIntervalSeconds: number;
  producerLeaseMs: number;
  metrics: boolean;
  rateLimits: string;
  rateLimitLoopback: boolean;
  trustProxy: string[];
  maxSocketsPerAddress: number;
  maxImageBytes: number;
  imageBaseUrl: string | undefined;
  tiktokUrl: string | undefined;
  wyreUrl: string | undefined;
  wyreAccountId: string | undefined;
  wyreApiKey: string | undefined;
  wyreSecretKey: string | undefined;
  buyNativeBtcAddress: string | undefined;
  externalTimeoutMs: number;
}

type Kind =
  | { type: 'int'; min: number; max: number; optional?: boolean }
  | { type: 'string'; optional?: boolean }
  | { type: 'bool' }
  | { type: 'enum'; values: readonly string[]; optional?: boolean }
  | { type: 'list' }
  | { type: 'url'; protocols: readonly string[] };

export interface OptionSpec {
  key: keyof Config;
  flag: string;
  env: string;
  kind: Kind;
  default: Config[keyof Config];
  doc: string;
  /** Never printed: logs and error messages show `<redacted>`. */
  secret?: boolean;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export const OPTIONS: readonly OptionSpec[] = [
  { key: 'port', flag: 'port', env: 'PORT', kind: { type: 'int', min: 1, max: 65535 }, default: 17001,
    doc: 'TCP port of the HTTP API.' },
  { key: 'host', flag: 'host', env: 'HOST', kind: { type: 'string' }, default: '127.0.0.1',
    doc: 'Address to listen on (0.0.0.0 for all interfaces).' },
  { key: 'network', flag: 'network', env: 'NETWORK', kind: { type: 'enum', values: ['testnet', 'mainnet'] },
    default: 'testnet', doc: 'Key prefixes and chain policy: testnet (tBC… keys) or mainnet (BC1… keys). Both run the dev chain; the network selects the fee floor and the mempool size limit.' },
  { key: 'store', flag: 'store', env: 'STORE', kind: { type: 'enum', values: ['lmdb', 'memory', 'redis'], optional: true },
    default: undefined, doc: 'Where node state lives: lmdb (embedded and durable, in --data-dir; the default), memory (volatile: lost when the process stops; for tests and demos) or redis (shared by processes and machines; the default when --redis is given).' },
  { key: 'dataDir', flag: 'data-dir', env: 'DATA_DIR', kind: { type: 'string' }, default: './data',
    doc: 'Directory of the LMDB store (created if missing); one node process per directory.' },
  { key: 'redisUrl', flag: 'redis', env: 'REDIS_URL', kind: { type: 'url', protocols: ['redis:', 'rediss:', 'redis-sentinel:'] },
    default: undefined, doc: 'Redis URL for shared state; without it the embedded store (--store) is used. redis://[user:password@]host:port[/db], rediss:// for TLS, or redis-sentinel://[user:password@]host1:26379[,host2:26379...]/<masterName>[?db=N] for a Sentinel-managed master (followed through failovers).' },
  { key: 'redisKeyPrefix', flag: 'redis-key-prefix', env: 'REDIS_KEY_PREFIX', kind: { type: 'string' },
    default: 'sn:', doc: 'Prefix of every Redis key and channel this node uses.' },
  { key: 'processes', flag: 'processes', env: 'PROCESSES', kind: { type: 'int', min: 1, max: 256 }, default: 1,
    doc: 'Server processes sharing the port; more than 1 requires --redis.' },
  { key: 'adminPublicKeys', flag: 'admin-public-keys', env: 'ADMIN_PUBLIC_KEYS', kind: { type: 'list' },
    default: [], doc: 'Comma-separated public keys allowed on admin routes.' },
  { key: 'superAdminPublicKeys', flag: 'super-admin-public-keys', env: 'SUPER_ADMIN_PUBLIC_KEYS',
    kind: { type: 'list' }, default: [], doc: 'Comma-separated public keys allowed on super-admin routes.' },
  { key: 'paramUpdaterPublicKeys', flag: 'param-updater-public-keys', env: 'PARAM_UPDATER_PUBLIC_KEYS',
    kind: { type: 'list' }, default: [],
    doc: 'Comma-separated public keys whose transactions may update global params and swap identities (consensus: every process of one chain must agree).' },
  { key: 'devOpenAdmin', flag: 'dev-open-admin', env: 'DEV_OPEN_ADMIN', kind: { type: 'bool' }, default: false,
    doc: 'Development only: admin and super-admin routes let in requests without valid admin credentials (audited as dev-open-admin, warned at startup); refused with --network mainnet.' },
  { key: 'satoshisPerNativeExchangeRate', flag: 'satoshis-per-native-exchange-rate',
    env: 'SATOSHIS_PER_NATIVE_EXCHANGE_RATE', kind: { type: 'int', min: 0, max: MAX_SAFE }, default: 10_000,
    doc: 'Satoshis per whole native coin, served by get-exchange-rate.' },
  { key: 'usdCentsPerBitcoinExchangeRate', flag: 'usd-cents-per-bitcoin-exchange-rate',
    env: 'USD_CENTS_PER_BITCOIN_EXCHANGE_RATE', kind: { type: 'int', min: 0, max: MAX_SAFE }, default: 6_000_000,
    doc: 'US cents per bitcoin, served by get-exchange-rate.' },
  { key: 'nanosSold', flag: 'nanos-sold', env: 'NANOS_SOLD', kind: { type: 'int', min: 0, max: MAX_SAFE },
    default: 0, doc: 'Native nanos sold so far, served by get-exchange-rate.' },
  { key: 'minSatoshisBurnedForProfileCreation', flag: 'min-satoshis-burned-for-profile-creation',
    env: 'MIN_SATOSHIS_BURNED_FOR_PROFILE_CREATION', kind: { type: 'int', min: 0, max: MAX_SAFE }, default: 50_000,
    doc: 'Served by get-app-state.' },
  { key: 'createProfileFeeNanos', flag: 'create-profile-fee-nanos', env: 'CREATE_PROFILE_FEE_NANOS',
    kind: { type: 'int', min: 0, max: MAX_SAFE }, default: 0, doc: 'Profile creation fee, served by get-app-state.' },
  { key: 'minFeeRateNanosPerKb', flag: 'min-fee-rate-nanos-per-kb', env: 'MIN_FEE_RATE_NANOS_PER_KB',
    kind: { type: 'int', min: 0, max: MAX_SAFE, optional: true }, default: undefined,
    doc: 'Fee floor of every transaction, nanos per KB: admission and block checks refuse less. Unset: the network\'s (mainnet 1000, testnet 0). Every process of one chain must agree.' },
  { key: 'mempoolMaxSizeBytes', flag: 'mempool-max-size-bytes', env: 'MEMPOOL_MAX_SIZE_BYTES',
    kind: { type: 'int', min: 1_000, max: MAX_SAFE, optional: true }, default: undefined,
    doc: 'Most bytes of transactions the mempool holds; past it submit-transaction answers 400 RuleErrorMempoolFull until a block makes room. Unset: the network\'s (10000000 on both).' },
  { key: 'compProfileCreation', flag: 'comp-profile-creation', env: 'COMP_PROFILE_CREATION', kind: { type: 'bool' },
    default: false, doc: 'Whether the node pays for profile creation (get-app-state).' },
  { key: 'supportEmail', flag: 'support-email', env: 'SUPPORT_EMAIL', kind: { type: 'string' }, default: '',
    doc: 'Support address shown by frontends (get-app-state).' },
  { key: 'analyticsKey', flag: 'analytics-key', env: 'ANALYTICS_KEY', kind: { type: 'string' }, default: '',
    doc: 'Frontend analytics key (get-app-state AnalyticsKey).' },
  { key: 'analyticsDomain', flag: 'analytics-domain', env: 'ANALYTICS_DOMAIN', kind: { type: 'string' },
    default: '', doc: 'Frontend analytics domain (get-app-state AnalyticsDomain).' },
  { key: 'showProcessingSpinners', flag: 'show-processing-spinners', env: 'SHOW_PROCESSING_SPINNERS',
    kind: { type: 'bool' }, default: false, doc: 'Frontend hint (get-app-state).' },
  { key: 'starterNativeSeed', flag: 'starter-native-seed', env: 'STARTER_NATIVE_SEED',
    kind: { type: 'string', optional: true }, default: undefined, secret: true,
    doc: 'Seed that funds new users; only its presence is served (HasStarterNativeSeed).' },
  { key: 'smsProviderApiKey', flag: 'sms-provider-api-key', env: 'SMS_PROVIDER_API_KEY',
    kind: { type: 'string', optional: true }, default: undefined, secret: true,
    doc: 'SMS verification provider key; only its presence is served (HasSmsProviderAPIKey).' },
  { key: 'hasPaymentProviderIntegration', flag: 'payment-provider-integration', env: 'PAYMENT_PROVIDER_INTEGRATION',
    kind: { type: 'bool' }, default: false, doc: 'Whether a fiat payment provider is set up (get-app-state).' },
  { key: 'maxBodyBytes', flag: 'max-body-bytes', env: 'MAX_BODY_BYTES', kind: { type: 'int', min: 1024, max: 1 << 30 },
    default: 1 << 20, doc: 'Largest accepted request body; larger ones get 413.' },
  { key: 'corsOrigins', flag: 'cors-origins', env: 'CORS_ORIGINS', kind: { type: 'list' }, default: ['*'],
    doc: 'Comma-separated origins allowed by CORS, echoed with credentials (`https://*.example.com` matches subdomains); `*` lets any other origin read without credentials.' },
  { key: 'logLevel', flag: 'log-level', env: 'LOG_LEVEL',
    kind: { type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    default: 'info', doc: 'pino log level.' },
  { key: 'allowUwsFallback', flag: 'allow-uws-fallback', env: 'ALLOW_UWS_FALLBACK', kind: { type: 'bool' },
    default: false, doc: 'Development only: run on the slow pure-JS server when no native uWS binary loads.' },
  { key: 'cryptoThreads', flag: 'crypto-threads', env: 'CRYPTO_THREADS', kind: { type: 'int', min: 0, max: 256 },
    default: 0, doc: 'Crypto worker threads per server process; 0 = the cores divided among --processes (at least 1).' },
  { key: 'shutdownTimeoutMs', flag: 'shutdown-timeout-ms', env: 'SHUTDOWN_TIMEOUT_MS',
    kind: { type: 'int', min: 0, max: 600_000 }, default: 10_000,
    doc: 'How long SIGTERM waits for in-flight requests before closing.' },
  { key: 'healthProbeIntervalMs', flag: 'health-probe-interval-ms', env: 'HEALTH_PROBE_INTERVAL_MS',
    kind: { type: 'int', min: 50, max: 60_000 }, default: 250,
    doc: 'How often the store is pinged for health-check (health-check itself never waits on the store; a ping unanswered within 1 s fails).' },
  { key: 'responseNames', flag: 'response-names', env: 'RESPONSE_NAMES', kind: { type: 'enum', values: ['spec', 'reference'] }, default: 'spec',
    doc: 'Response field names: the spec\'s (Native/Legacy), or the reference backend\'s (DeSo/DESO/BitClout: what the official SDK\'s types declare). Requests accept both either way.' },
  { key: 'checkResponses', flag: 'check-responses', env: 'CHECK_RESPONSES', kind: { type: 'bool' }, default: false,
    doc: 'Development and tests: check every 200 answer against its route\'s response schema (the OpenAPI document\'s) and answer 500 naming the field when it does not conform. Off in production (no cost).' },
  { key: 'slowRequestMs', flag: 'slow-request-ms', env: 'SLOW_REQUEST_MS', kind: { type: 'int', min: 0, max: 3_600_000 }, default: 1000,
    doc: 'A request slower than this is logged at info (every request is logged at debug: method, route pattern, status, ms); 0 logs every request at info.' },
  { key: 'readCacheMb', flag: 'read-cache-mb', env: 'READ_CACHE_MB', kind: { type: 'int', min: 0, max: 65_536 }, default: 64,
    doc: 'Memory per process for cached answers of the hot read routes (profiles, message pages, order books), dropped whenever chain state or profile flags change; 0 turns the cache off.' },
  { key: 'identitySecret', flag: 'identity-secret', env: 'IDENTITY_SECRET', kind: { type: 'string', optional: true },
    default: undefined, secret: true,
    doc: 'Node secret (64 hex characters) that seals identity `encryptedSeedHex` handles; every process and machine of one node must share it. Prefer --identity-secret-file.' },
  { key: 'identitySecretFile', flag: 'identity-secret-file', env: 'IDENTITY_SECRET_FILE',
    kind: { type: 'string', optional: true }, default: undefined,
    doc: 'File holding the identity node secret (64 hex characters). Without this or --identity-secret, the secret is created once in the Redis store (shared by its processes) or, on the memory store, at each start.' },
  { key: 'identitySessionTtlSeconds', flag: 'identity-session-ttl-seconds', env: 'IDENTITY_SESSION_TTL_SECONDS',
    kind: { type: 'int', min: 60, max: 10 * 365 * 86_400 }, default: 30 * 86_400,
    doc: 'Lifetime of an identity login session; renewed by approve.' },
  { key: 'miner', flag: 'miner', env: 'MINER', kind: { type: 'enum', values: ['auto', 'off'] }, default: 'auto',
    doc: 'auto: the node mines a block within ~100 ms whenever its mempool holds transactions (only the block producer of a cluster mines); off: only outside miners (get-block-template / submit-block).' },
  { key: 'minerPublicKey', flag: 'miner-public-key', env: 'MINER_PUBLIC_KEY', kind: { type: 'string', optional: true },
    default: undefined, doc: 'Public key that receives the block rewards of the built-in miner; without it, a key made at start (logged).' },
  { key: 'blockIntervalSeconds', flag: 'block-interval-seconds', env: 'BLOCK_INTERVAL_SECONDS',
    kind: { type: 'int', min: 0, max: 86_400 }, default: 0,
    doc: 'With --miner auto, also mine a (possibly empty) block this often; 0 = only when transactions wait.' },
  { key: 'producerLeaseMs', flag: 'producer-lease-ms', env: 'PRODUCER_LEASE_MS',
    kind: { type: 'int', min: 300, max: 60_000 }, default: 3000,
    doc: 'Lifetime of the block-producer lease in the store: one process of those sharing the store holds it (builds templates, runs the built-in miner) and renews it every third of this; when the holder dies another takes over within about this long. Every process must use the same value.' },
  { key: 'metrics', flag: 'metrics', env: 'METRICS', kind: { type: 'bool' }, default: true,
    doc: 'Serve Prometheus metrics at GET /metrics: every process\'s series, whichever process is scraped (--no-metrics removes the route).' },
  { key: 'rateLimits', flag: 'rate-limits', env: 'RATE_LIMITS', kind: { type: 'string' }, default: DEFAULT_RATE_LIMITS,
    doc: 'Token buckets per client address (and per authenticated public key on non-read routes), shared by all processes through the store: comma-separated class=capacity/refillPerSec or class=off, classes read, write, identity, miner, admin, login; unnamed classes keep their defaults; `off` turns all off. Over the limit: 429 with Retry-After.' },
  { key: 'rateLimitLoopback', flag: 'rate-limit-loopback', env: 'RATE_LIMIT_LOOPBACK', kind: { type: 'bool' }, default: false,
    doc: 'Also rate-limit loopback clients (127.0.0.0/8, ::1), and cap their WebSockets; by default they are exempt unless --trust-proxy is set.' },
  { key: 'trustProxy', flag: 'trust-proxy', env: 'TRUST_PROXY', kind: { type: 'list' }, default: [],
    doc: 'Comma-separated addresses or CIDR blocks (10.0.0.0/8, 127.0.0.1, fd00::/8) of reverse proxies in front of the node. A request whose TCP peer is one of them is taken to come from the rightmost address of X-Forwarded-For (else of Forwarded: for=) that is not one of them, for rate limits and socket caps; any other peer\'s headers are ignored. When set, loopback clients are limited too.' },
  { key: 'maxSocketsPerAddress', flag: 'max-sockets-per-address', env: 'MAX_SOCKETS_PER_ADDRESS', kind: { type: 'int', min: 0, max: 1_000_000 }, default: 32,
    doc: 'Open WebSockets (identity and miner together) one client address (IPv6: per /64) may hold in each server process; more are refused with 429. 0 = no cap.' },
  { key: 'maxImageBytes', flag: 'max-image-bytes', env: 'MAX_IMAGE_BYTES', kind: { type: 'int', min: 1024, max: 1 << 30 }, default: 10_000_000,
    doc: 'Largest image upload-image stores (the reference\'s limit, 10 MB); its request may be 64 KiB larger for the form\'s other fields. Larger ones get 413.' },
  { key: 'imageBaseUrl', flag: 'image-base-url', env: 'IMAGE_BASE_URL', kind: { type: 'url', protocols: ['https:', 'http:'] }, default: undefined,
    doc: 'Prefix of the ImageURL upload-image answers, `<prefix>/<sha256>.<ext>`: this node\'s public address plus /api/v0/images, or a CDN in front of it. Unset: http://<the request\'s Host>/api/v0/images.' },
  { key: 'tiktokUrl', flag: 'tiktok-url', env: 'TIKTOK_URL', kind: { type: 'url', protocols: ['https:', 'http:'] }, default: undefined,
    doc: 'TikTok\'s link shortener that get-full-tiktok-url asks (https://vm.tiktok.com). Unset: the route answers 400 and calls nobody.' },
  { key: 'wyreUrl', flag: 'wyre-url', env: 'WYRE_URL', kind: { type: 'url', protocols: ['https:', 'http:'] }, default: undefined,
    doc: 'Wyre\'s API (https://api.sendwyre.com) for the card-buy quotation and reservation routes; they need every --wyre-* option and --buy-native-btc-address, else answer 400 naming what is missing.' },
  { key: 'wyreAccountId', flag: 'wyre-account-id', env: 'WYRE_ACCOUNT_ID', kind: { type: 'string', optional: true }, default: undefined,
    doc: 'This node\'s Wyre account ID.' },
  { key: 'wyreApiKey', flag: 'wyre-api-key', env: 'WYRE_API_KEY', kind: { type: 'string', optional: true }, default: undefined, secret: true,
    doc: 'Wyre API key (X-Api-Key).' },
  { key: 'wyreSecretKey', flag: 'wyre-secret-key', env: 'WYRE_SECRET_KEY', kind: { type: 'string', optional: true }, default: undefined, secret: true,
    doc: 'Wyre secret key that signs each call (X-Api-Signature).' },
  { key: 'buyNativeBtcAddress', flag: 'buy-native-btc-address', env: 'BUY_NATIVE_BTC_ADDRESS', kind: { type: 'string', optional: true }, default: undefined,
    doc: 'Bitcoin address that card buys through Wyre pay into.' },
  { key: 'externalTimeoutMs', flag: 'external-timeout-ms', env: 'EXTERNAL_TIMEOUT_MS', kind: { type: 'int', min: 100, max: 120_000 }, default: 10_000,
    doc: 'How long a call to an outside service (TikTok, Wyre) may take, its answer included; past it the route answers 503.' },
];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const BY_FLAG = new Map(OPTIONS.map((o) => [o.flag, o]));

function describe(o: OptionSpec): string {
  return `--${o.flag} (${o.env})`;
}

function shown(o: OptionSpec, raw: string): string {
  return o.secret ? '<redacted>' : JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
}

function parseValue(o: OptionSpec, raw: string): Config[keyof Config] {
  const k = o.kind;
  switch (k.type) {
    case 'int': {
      if (k.optional && raw.trim().length === 0) return undefined;
      const n = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
      if (!Number.isSafeInteger(n) || n < k.min || n > k.max) {
        throw new ConfigError(`${describe(o)} must be an integer from ${k.min} to ${k.max}, got ${shown(o, raw)}`);
      }
      return n;
    }
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`${describe(o)} must be true or false, got ${shown(o, raw)}`);
    }
    case 'enum':
      if (k.optional && raw.trim().length === 0) return undefined;
      if (!k.values.includes(raw)) {
        throw new ConfigError(`${describe(o)} must be one of ${k.values.join(', ')}, got ${shown(o, raw)}`);
      }
      return raw;
    case 'list':
      return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    case 'url': {
      // A redis-sentinel:// URL lists several hosts, which WHATWG URL parsing rejects.
      if (k.protocols.includes('redis-sentinel:') && /^redis-sentinel:/i.test(raw)) {
        const problem = redisUrlProblem(raw);
        if (problem !== undefined) throw new ConfigError(`${describe(o)}: ${problem}`);
        return raw;
      }
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        const like = k.protocols.includes('redis:') ? 'redis://127.0.0.1:6379' : `${k.protocols[0]}//host.example`;
        throw new ConfigError(`${describe(o)} must be a URL like ${like}, got an unparseable value`);
      }
      if (!k.protocols.includes(url.protocol)) {
        throw new ConfigError(`${describe(o)} must use ${k.protocols.join(' or ')}, got ${url.protocol}`);
      }
      return raw;
    }
    case 'string':
      if (!k.optional && raw.length === 0 && o.default !== '') {
        throw new ConfigError(`${describe(o)} must not be empty`);
      }
      return k.optional && raw.length === 0 ? undefined : raw;
  }
}

/**
 * Builds the config from argv (without node and script) and env. Throws ConfigError naming the
 * setting on any invalid or unknown input.
 */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Config {
  const raw = new Map<OptionSpec, string>();
  for (const o of OPTIONS) {
    const v = env[o.env];
    if (v !== undefined) raw.set(o, v);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument ${JSON.stringify(arg)}; options look like --port 17001`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const negated = name.startsWith('no-') && BY_FLAG.get(name.slice(3))?.kind.type === 'bool';
    const o = BY_FLAG.get(negated ? name.slice(3) : name);
    if (!o) throw new ConfigError(unknownFlagMessage(name, [...OPTIONS.map((x) => x.flag), 'help', 'version']));
    if (eq !== -1) {
      raw.set(o, arg.slice(eq + 1));
    } else if (o.kind.type === 'bool') {
      raw.set(o, negated ? 'false' : 'true');
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new ConfigError(`${describe(o)} needs a value`);
      raw.set(o, next);
      i++;
    }
  }
  const out: Record<string, unknown> = {};
  for (const o of OPTIONS) {
    const r = raw.get(o);
    out[o.key] = r === undefined ? structuredClone(o.default) : parseValue(o, r);
  }
  const config = out as unknown as Config;
  config.store = resolveStore(config.store as StoreKind | undefined, config.redisUrl);
  if (config.processes > 1 && config.store !== 'redis') {
    const which = config.store === 'lmdb' ? 'the embedded LMDB store (--data-dir) serves one process' : 'the in-memory store cannot be shared between processes';
    throw new ConfigError(
      `--processes (PROCESSES) is ${config.processes}, but ${which}; several processes share one node through Redis: ` +
        'add --redis redis://host:port (REDIS_URL) or use --processes 1',
    );
  }
  if (config.identitySecret !== undefined && config.identitySecretFile !== undefined) {
    throw new ConfigError('--identity-secret (IDENTITY_SECRET) and --identity-secret-file (IDENTITY_SECRET_FILE) are both set; use one');
  }
  if (config.identitySecret !== undefined && !/^[0-9a-fA-F]{64}$/.test(config.identitySecret)) {
    throw new ConfigError('--identity-secret (IDENTITY_SECRET) must be 64 hex characters (32 bytes), e.g. from `openssl rand -hex 32`');
  }
  if (config.devOpenAdmin && config.network === 'mainnet') {
    throw new ConfigError('--dev-open-admin (DEV_OPEN_ADMIN) opens every admin route without credentials and is for development only; it is refused with --network mainnet');
  }
  try {
    parseRateLimits(config.rateLimits);
  } catch (err) {
    throw new ConfigError(`--rate-limits (RATE_LIMITS): ${(err as Error).message}`);
  }
  try {
    CidrList.parse(config.trustProxy);
  } catch (err) {
    throw new ConfigError(`--trust-proxy (TRUST_PROXY): ${(err as Error).message}`);
  }
  if (config.minerPublicKey !== undefined) {
    config.minerPublicKey = normalizeKey(OPTIONS.find((o) => o.key === 'minerPublicKey')!, config.minerPublicKey, config.network);
  }
  for (const key of ['adminPublicKeys', 'superAdminPublicKeys', 'paramUpdaterPublicKeys'] as const) {
    config[key] = config[key].map((k) => normalizeKey(OPTIONS.find((o) => o.key === key)!, k, config.network));
  }
  return config;
}

/** --store given, or implied: redis with a Redis URL, else lmdb. */
function resolveStore(store: StoreKind | undefined, redisUrl: string | undefined): StoreKind {
  if (store === undefined) return redisUrl ? 'redis' : 'lmdb';
  if (store === 'redis' && !redisUrl) throw new ConfigError('--store (STORE) is redis, but no --redis (REDIS_URL) URL is given');
  if (store !== 'redis' && redisUrl) {
    throw new ConfigError(`--store (STORE) is ${store}, but --redis (REDIS_URL) is given too; drop one (--redis alone runs on Redis)`);
  }
  return store;
}

function normalizeKey(o: OptionSpec, key: string, network: Network): string {
  if (key === '*') {
    // The reference opens every admin route for "*"; this node never disables auth silently.
    throw new ConfigError(`${describe(o)}: "*" is not accepted; list the admin public keys explicitly`);
  }
  try {
    return encodePublicKey(decodePublicKey(key, network, describe(o)), network);
  } catch (err) {
    if (isKeyError(err)) throw new ConfigError(err.message);
    throw err;
  }
}

/** The config as safe to log: secrets and Redis passwords replaced. */
export function redactConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const o of OPTIONS) {
    if (o.secret && out[o.key] !== undefined) out[o.key] = '<redacted>';
  }
  if (config.redisUrl) out.redisUrl = redactRedisUrl(config.redisUrl);
  return out;
}


/** How `--help` shows an option's value: its range, choices or shape. */
function valueShape(k: Kind): string | undefined {
  switch (k.type) {
    case 'int':
      return k.max === MAX_SAFE ? `integer ≥ ${k.min}` : `integer ${k.min}..${k.max}`;
    case 'enum':
      return k.values.join('|');
    case 'list':
      return 'a,b,…';
    case 'url':
      return 'url';
    case 'string':
      return 'text';
    case 'bool':
      return undefined;
  }
}

/** A default as `--help` and README show it. */
function defaultShown(o: OptionSpec): string {
  const d = o.default;
  if (d === undefined) return '(unset)';
  if (Array.isArray(d)) return d.length === 0 ? '(empty)' : d.join(',');
  if (d === '') return '(empty)';
  return String(d);
}

/** The node's command line for `--help`, generated from OPTIONS. */
export const NODE_COMMAND: CommandSpec = {
  name: 'social-node',
  usage: 'npm start -- [options]   (or: node --import tsx server/main.ts [options])',
  summary:
    'A social-blockchain node and identity service, wire-compatible with DeSo: the node HTTP API under /api/v0/. ' +
    'Every option is a flag (--name value or --name=value) and an environment variable; the flag wins. ' +
    'Booleans take --name, --no-name or --name=true|false (env: 1/0, true/false, yes/no, on/off). ' +
    'An invalid or unknown option stops the node with exit code 2.',
  flags: OPTIONS.map((o): FlagSpec => {
    const value = valueShape(o.kind);
    return {
      name: o.flag,
      ...(value === undefined ? {} : { value }),
      env: o.env,
      default: defaultShown(o),
      doc: o.doc,
    };
  }),
  notes: 'README "Configuration" has the same table; README "Security" says what a public node must set.',
};

/** The node's `--help` text. */
export function nodeHelpText(): string {
  return helpText(NODE_COMMAND);
}

/**
 * Whether `argv` asks for help (`--help`, `-h`) or the version (`--version`) instead of a run,
 * read with loadConfig's grammar (a value never starts with `--`, so neither is ever a value).
 */
export function requestedAction(argv: readonly string[]): 'help' | 'version' | null {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--version') return 'version';
    const o = arg.startsWith('--') && !arg.includes('=') ? BY_FLAG.get(arg.slice(2)) : undefined;
    // A non-boolean flag without `=` takes the next argument as its value.
    if (o !== undefined && o.kind.type !== 'bool' && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) i++;
  }
  return null;
}
