/**
 * `--dev-open-admin` (DEV_OPEN_ADMIN): the explicit, dev-only replacement of the reference's
 * `"*"` admin wildcard. The config refuses it on mainnet; `authorizeAdmin` lets a request with
 * failing credentials in only under the flag, and names who the audit log should record.
 * End-to-end behaviour (routes, audit entries, startup warning, exit code) is in
 * test/e2e/adminFeed.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppDeps } from '../../server/app.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import { ApiError, isApiError } from '../../server/http/errors.js';
import { authorizeAdmin, DEV_OPEN_ADMIN } from '../../server/routes/adminAuth.js';
import { UNLIMITED_CALLER } from '../../server/http/authenticatedCaller.js';
import { keyPair } from '../helpers/chainNode.js';

describe('config --dev-open-admin', () => {
  it('is off by default', () => {
    assert.equal(loadConfig([], {}).devOpenAdmin, false);
  });
  it('is set by the flag or by DEV_OPEN_ADMIN', () => {
    assert.equal(loadConfig(['--dev-open-admin'], {}).devOpenAdmin, true);
    assert.equal(loadConfig([], { DEV_OPEN_ADMIN: 'true' }).devOpenAdmin, true);
    assert.equal(loadConfig(['--no-dev-open-admin'], { DEV_OPEN_ADMIN: '1' }).devOpenAdmin, false, 'the flag wins over the env');
  });
  it('is refused on mainnet, naming the flag and its env var', () => {
    for (const [argv, env] of [
      [['--network', 'mainnet', '--dev-open-admin'], {}],
      [[], { NETWORK: 'mainnet', DEV_OPEN_ADMIN: 'yes' }],
    ] as const) {
      assert.throws(() => loadConfig(argv, env), (e: unknown) => e instanceof ConfigError && /^--dev-open-admin \(DEV_OPEN_ADMIN\) .*refused with --network mainnet$/.test(e.message));
    }
  });
});

/** Just enough of AppDeps for the credential check: a JWT verifier that refuses every token. */
function deps(devOpenAdmin: boolean, verify: () => Promise<void> = () => Promise.reject(new ApiError(401, 'Problem verifying JWT token: token is malformed'))): AppDeps {
  const config = loadConfig(devOpenAdmin ? ['--dev-open-admin'] : [], {});
  return { config, jwt: { verify }, crypto: { recoverPublicKeys: async () => [] } } as unknown as AppDeps;
}

describe('authorizeAdmin', () => {
  it('without the flag refuses a request without credentials (401)', async () => {
    await assert.rejects(authorizeAdmin(deps(false), UNLIMITED_CALLER, {}, 'admin'), (e: unknown) => isApiError(e) && e.status === 401);
  });
  it('with the flag lets in a request without credentials, at both levels, as dev-open-admin, and warns', async () => {
    const warnings: object[] = [];
    const log = { warn: (obj: object) => void warnings.push(obj) };
    assert.equal(await authorizeAdmin(deps(true), UNLIMITED_CALLER, {}, 'admin', log), DEV_OPEN_ADMIN);
    assert.equal(await authorizeAdmin(deps(true), UNLIMITED_CALLER, null, 'superAdmin', log), DEV_OPEN_ADMIN);
    assert.equal(warnings.length, 2, 'each such request is logged');
  });
  it('with the flag names the claimed key (normalized) when it is one, else dev-open-admin', async () => {
    const k = keyPair();
    assert.equal(await authorizeAdmin(deps(true), UNLIMITED_CALLER, { AdminPublicKey: k.pk, JWT: 'x' }, 'superAdmin'), k.pk);
    assert.equal(await authorizeAdmin(deps(true), UNLIMITED_CALLER, { AdminPublicKey: 'tBCnotAKey' }, 'admin'), DEV_OPEN_ADMIN);
  });
  it('with the flag still fails on errors that are not about credentials', async () => {
    const broken = deps(true, () => Promise.reject(new Error('store unreachable')));
    await assert.rejects(authorizeAdmin(broken, UNLIMITED_CALLER, { AdminPublicKey: keyPair().pk, JWT: 'x' }, 'admin'), /store unreachable/);
  });
});
