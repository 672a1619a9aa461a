import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, OPTIONS, redactConfig } from '../../server/config.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';
import { readSharedVectors } from '../helpers/vectors.js';

const KEYS = (readSharedVectors('sdk-vectors.json') as { keys: Array<{ mainnetBase58Check: string; testnetBase58Check: string }> }).keys;
const MAIN = KEYS.map((k) => k.mainnetBase58Check);
const TEST = KEYS.map((k) => k.testnetBase58Check);

describe('loadConfig', () => {
  it('has defaults that work on a bare machine', () => {
    const c = loadConfig([], {});
    assert.equal(c.port, 17001);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.network, 'testnet');
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.processes, 1);
    assert.equal(c.maxBodyBytes, 1 << 20);
    assert.deepEqual(c.corsOrigins, ['*']);
    assert.equal(c.allowUwsFallback, false);
  });

  it('runs on LMDB in ./data by default, on Redis with --redis, and refuses a store choice that contradicts --redis', () => {
    assert.equal(loadConfig([], {}).store, 'lmdb');
    assert.equal(loadConfig([], {}).dataDir, './data');
    assert.equal(loadConfig(['--data-dir', '/var/lib/sn'], {}).dataDir, '/var/lib/sn');
    assert.equal(loadConfig([], { DATA_DIR: '/srv/sn' }).dataDir, '/srv/sn');
    assert.equal(loadConfig(['--store', 'memory'], {}).store, 'memory');
    assert.equal(loadConfig([], { STORE: 'memory' }).store, 'memory');
    assert.equal(loadConfig(['--redis', 'redis://127.0.0.1:7000'], {}).store, 'redis');
    assert.equal(loadConfig(['--store', 'redis', '--redis', 'redis://127.0.0.1:7000'], {}).store, 'redis');
    assert.throws(() => loadConfig(['--store', 'redis'], {}), /--store \(STORE\) is redis, but no --redis \(REDIS_URL\)/);
    assert.throws(() => loadConfig(['--store', 'memory', '--redis', 'redis://127.0.0.1:7000'], {}), /--store \(STORE\) is memory, but --redis \(REDIS_URL\) is given too/);
    assert.throws(() => loadConfig(['--store', 'disk'], {}), /--store \(STORE\) must be one of lmdb, memory, redis/);
    assert.throws(() => loadConfig(['--data-dir', ''], {}), /--data-dir \(DATA_DIR\) must not be empty/);
  });

  it('refuses several processes on an embedded store, naming it and --redis', () => {
    assert.throws(() => loadConfig(['--processes', '2'], {}), /--processes \(PROCESSES\) is 2, but the embedded LMDB store \(--data-dir\) serves one process.*--redis/);
    assert.throws(() => loadConfig(['--processes', '2', '--store', 'memory'], {}), /the in-memory store cannot be shared between processes.*--redis/);
  });

  it('reads flags in both --flag value and --flag=value forms', () => {
    const c = loadConfig(['--port', '18001', '--network=mainnet', '--admin-public-keys', `${MAIN[0]}, ${MAIN[1]},,`], {});
    assert.equal(c.port, 18001);
    assert.equal(c.network, 'mainnet');
    assert.deepEqual(c.adminPublicKeys, [MAIN[0], MAIN[1]]);
  });

  it('validates admin keys against the network and refuses the "*" wildcard', () => {
    assert.deepEqual(loadConfig(['--super-admin-public-keys', TEST[0]!], {}).superAdminPublicKeys, [TEST[0]]);
    assert.throws(() => loadConfig(['--admin-public-keys', MAIN[0]!], {}), /--admin-public-keys \(ADMIN_PUBLIC_KEYS\).*mainnet/);
    assert.throws(() => loadConfig(['--admin-public-keys', 'tBCnotakey'], {}), /--admin-public-keys \(ADMIN_PUBLIC_KEYS\)/);
    assert.throws(() => loadConfig([], { SUPER_ADMIN_PUBLIC_KEYS: '*' }), /"\*" is not accepted/);
  });

  it('reads env vars, and a flag wins over its env var', () => {
    const env = { PORT: '19000', REDIS_URL: 'redis://127.0.0.1:7000', PROCESSES: '3' };
    assert.equal(loadConfig([], env).port, 19000);
    assert.equal(loadConfig(['--port', '19001'], env).port, 19001);
    assert.equal(loadConfig([], env).processes, 3);
  });

  it('takes booleans as bare flags, --no- flags and env words', () => {
    assert.equal(loadConfig(['--allow-uws-fallback'], {}).allowUwsFallback, true);
    assert.equal(loadConfig(['--no-allow-uws-fallback'], { ALLOW_UWS_FALLBACK: '1' }).allowUwsFallback, false);
    assert.equal(loadConfig([], { COMP_PROFILE_CREATION: 'yes' }).compProfileCreation, true);
  });

  it('names the setting in every error', () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--port', '0'], {}, /--port \(PORT\) must be an integer from 1 to 65535, got "0"/],
      [['--port', '12x'], {}, /--port \(PORT\)/],
      [[], { PORT: '70000' }, /--port \(PORT\)/],
      [['--network', 'x'], {}, /--network \(NETWORK\) must be one of testnet, mainnet/],
      [['--redis', 'http://x'], {}, /--redis \(REDIS_URL\) must use redis: or rediss:/],
      [['--redis', 'not a url'], {}, /--redis \(REDIS_URL\) must be a URL/],
      [['--redis', 'redis-sentinel://:s3cret@h1:26379'], {}, /--redis \(REDIS_URL\): .*master/],
      [['--processes', '2'], {}, /--processes \(PROCESSES\).*--redis/],
      [['--log-level', 'loud'], {}, /--log-level \(LOG_LEVEL\)/],
      [['--comp-profile-creation=maybe'], {}, /--comp-profile-creation \(COMP_PROFILE_CREATION\) must be true or false/],
      [['--what'], {}, /unknown option --what/],
      [['--port'], {}, /--port \(PORT\) needs a value/],
      [['18001'], {}, /unexpected argument "18001"/],
    ];
    for (const [argv, env, re] of cases) {
      assert.throws(() => loadConfig(argv, env), (e: unknown) => e instanceof ConfigError && re.test(e.message), argv.join(' '));
    }
  });

  it('never shows secrets in errors or in the logged config', () => {
    // An empty optional secret is simply absent.
    assert.equal(loadConfig(['--starter-native-seed', ''], {}).starterNativeSeed, undefined);
    const c = loadConfig(['--starter-native-seed', 'seedseed', '--redis', 'redis://:pw123@127.0.0.1:6390/0'], {});
    const shown = JSON.stringify(redactConfig(c));
    assert.ok(!shown.includes('seedseed'), 'seed redacted');
    assert.ok(!shown.includes('pw123'), 'redis password redacted');
    assert.match(shown, /<redacted>/);
  });

  it('takes a Sentinel URL with several sentinels, and hides its passwords', () => {
    const url = 'redis-sentinel://:pw123@10.0.0.1:26379,10.0.0.2:26380/mymaster?db=2&sentinelPassword=spw456';
    const c = loadConfig(['--redis', url, '--processes', '2'], {});
    assert.equal(c.redisUrl, url);
    const shown = JSON.stringify(redactConfig(c));
    assert.ok(!shown.includes('pw123') && !shown.includes('spw456'), `passwords redacted: ${shown}`);
    assert.match(shown, /10\.0\.0\.2:26380\/mymaster/);
  });
});

describe('README configuration table', () => {
  it('documents every option with its flag, env var and default', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    for (const o of OPTIONS) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`--${o.flag}\` |`));
      assert.ok(row, `README documents --${o.flag}`);
      assert.ok(row.includes(`\`${o.env}\``), `README row for --${o.flag} names ${o.env}`);
    }
  });
});
