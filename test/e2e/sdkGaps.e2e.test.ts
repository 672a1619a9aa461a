/**
 * SDK routes that closed issue 21's gaps (test/e2e/sdkRoutes.e2e.test.ts keeps the list): the
 * node's fiat-buy settings (admin/{get,set}-buy-deso-fee-basis-points,
 * admin/{get,set}-usd-cents-to-deso-reserve-exchange-rate) on a real node, memory store. Each
 * route: success rows with real values, refusals (bad input; for the admin writes, the
 * credential refusals of every super-admin route).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminTable } from '../helpers/adminTable.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { request } from '../helpers/http.js';
import { adminBody } from '../helpers/adminBody.js';

// The SDK signs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;


const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();

interface Ctx {
  n: ChainNode;
}

const table = adminTable<Ctx>({ superAdmin, admin, outsider, as: (_c, k, body) => adminBody(k, body) });

const getJson = async (c: Ctx, path: string): Promise<J> => {
  const r = await request(c.n.url, `/api/v0/${path}`);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.json as J;
};

describe('SDK gap routes (memory store)', () => {
  let c: Ctx | undefined;
  const ctx = (): Ctx => {
    assert.ok(c, 'the setup ran');
    return c;
  };

  before(async () => {
    const args = ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk, '--satoshis-per-native-exchange-rate', '10000', '--usd-cents-per-bitcoin-exchange-rate', '6000000'];
    c = { n: await startChainNode({ args, store: 'memory' }) };
  });
  after(async () => {
    await c?.n.close();
  });

  describe('admin/get-buy-deso-fee-basis-points (GET, public)', () => {
    it('answers 0 before any setting, for anyone; get-exchange-rate shows the same', async () => {
      assert.deepEqual(await getJson(ctx(), 'admin/get-buy-deso-fee-basis-points'), { BuyDeSoFeeBasisPoints: 0 });
      assert.equal((await getJson(ctx(), 'get-exchange-rate'))['BuyNativeFeeBasisPoints'], 0);
    });
    it('POST is the wrong method (405)', async () => {
      assert.equal((await ctx().n.post('admin/get-buy-deso-fee-basis-points', {})).status, 405);
    });
  });

  table(ctx, 'admin/set-buy-deso-fee-basis-points', 'superAdmin', [
    {
      name: 'the super admin sets 250 basis points: the answer, the public read and get-exchange-rate show it',
      body: () => adminBody(superAdmin, { BuyDeSoFeeBasisPoints: 250 }),
      check: async (r, c) => {
        assert.deepEqual(r, { BuyDeSoFeeBasisPoints: 250 });
        assert.deepEqual(await getJson(c, 'admin/get-buy-deso-fee-basis-points'), { BuyDeSoFeeBasisPoints: 250 });
        assert.equal((await getJson(c, 'get-exchange-rate'))['BuyNativeFeeBasisPoints'], 250);
      },
    },
    {
      name: '10000 (100%) is the most',
      body: () => adminBody(superAdmin, { BuyDeSoFeeBasisPoints: 10_001 }),
      error: { re: /^BuyDeSoFeeBasisPoints: .*0 to 10000/ },
    },
    {
      name: 'an omitted value is refused (it would reset the fee)',
      body: () => adminBody(superAdmin, {}),
      error: { re: /BuyDeSoFeeBasisPoints/ },
    },
    {
      name: 'a negative or fractional value is refused',
      body: () => adminBody(superAdmin, { BuyDeSoFeeBasisPoints: 1.5 }),
      error: { re: /^BuyDeSoFeeBasisPoints: / },
    },
  ], () => ({ BuyDeSoFeeBasisPoints: 1 }));

  describe('admin/get-usd-cents-to-deso-reserve-exchange-rate (GET, public)', () => {
    it('answers 0 before any setting; get-exchange-rate shows 0 and the bitcoin-derived price', async () => {
      assert.deepEqual(await getJson(ctx(), 'admin/get-usd-cents-to-deso-reserve-exchange-rate'), { USDCentsPerDeSo: 0 });
      const rate = await getJson(ctx(), 'get-exchange-rate');
      assert.equal(rate['USDCentsPerNativeReserveExchangeRate'], 0);
      // 10000 sat × 6,000,000 cents/BTC ÷ 1e8 = 600 cents
      assert.equal(rate['USDCentsPerNativeExchangeRate'], 600);
    });
  });

  table(ctx, 'admin/set-usd-cents-to-deso-reserve-exchange-rate', 'superAdmin', [
    {
      name: 'a reserve rate below the market price is shown but does not change the price',
      body: () => adminBody(superAdmin, { USDCentsPerDeSo: 500 }),
      check: async (r, c) => {
        assert.deepEqual(r, { USDCentsPerDeSo: 500 });
        assert.deepEqual(await getJson(c, 'admin/get-usd-cents-to-deso-reserve-exchange-rate'), { USDCentsPerDeSo: 500 });
        const rate = await getJson(c, 'get-exchange-rate');
        assert.deepEqual([rate['USDCentsPerNativeReserveExchangeRate'], rate['USDCentsPerLegacyReserveExchangeRate'], rate['USDCentsPerNativeExchangeRate']], [500, 500, 600]);
      },
    },
    {
      name: 'a reserve rate above the market price floors the USD price of get-exchange-rate',
      body: () => adminBody(superAdmin, { USDCentsPerDeSo: 1234 }),
      check: async (_r, c) => {
        const rate = await getJson(c, 'get-exchange-rate');
        assert.deepEqual([rate['USDCentsPerNativeExchangeRate'], rate['USDCentsPerLegacyExchangeRate'], rate['USDCentsPerNativeReserveExchangeRate']], [1234, 1234, 1234]);
        assert.equal(rate['BuyNativeFeeBasisPoints'], 250, 'the fee set earlier is untouched');
      },
    },
    {
      name: 'a value that is not a non-negative integer is refused',
      body: () => adminBody(superAdmin, { USDCentsPerDeSo: -1 }),
      error: { re: /^USDCentsPerDeSo: / },
    },
    {
      name: 'a value beyond 2^53 is refused (clients could not read it back)',
      body: () => adminBody(superAdmin, { USDCentsPerDeSo: 2 ** 60 }),
      error: { re: /^USDCentsPerDeSo: / },
    },
  ], () => ({ USDCentsPerDeSo: 1 }));
});
