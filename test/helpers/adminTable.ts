/**
 * Table-driven e2e suites for admin routes (adminChain, adminUsers, adminFeed): one describe per
 * route with its cases in order, each success checked against the audit log right away, then
 * the credential refusals every admin route has (no JWT, a non-admin, and for super-admin
 * routes an ordinary admin).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listAdminActions } from '../../server/admin/audit.js';
import type { ChainNode, J, KeyPair } from './chainNode.js';
import { postJson } from './http.js';

export interface AdminCase<C> {
  name: string;
  body: (c: C) => J | Promise<J>;
  /** Expected 4xx status and error pattern; absent ⇒ 200. */
  error?: { status?: number; re: RegExp };
  /** `r` is the parsed answer; undefined for an empty body. */
  check?: (r: J, c: C) => void | Promise<void>;
}

export interface AdminTableOptions<C> {
  superAdmin: KeyPair;
  admin: KeyPair;
  /** A key with no admin rights. */
  outsider: KeyPair;
  /** The body signed in as `k` (AdminPublicKey and JWT added). */
  as: (c: C, k: KeyPair, body: J) => Promise<J>;
  /** What every success must answer exactly (e.g. `{}`); unchecked when absent. */
  answers?: J;
}

export type AdminTable<C> = (ctx: () => C, path: string, level: 'admin' | 'superAdmin', cases: AdminCase<C>[], validBody: (c: C) => J) => void;

export function adminTable<C extends { n: ChainNode }>(opts: AdminTableOptions<C>): AdminTable<C> {
  const { superAdmin, admin, outsider, as } = opts;
  return (ctx, path, level, cases, validBody) => {
    const route = `/${path}`;
    const audited = async (c: C): Promise<number> => (await listAdminActions(c.n.deps.store, { route, limit: 1000 })).length;
    describe(path, () => {
      for (const tc of cases) {
        it(tc.name, async () => {
          const c = ctx();
          const body = await tc.body(c);
          if (tc.error) {
            await c.n.fails(path, body, tc.error.re, tc.error.status ?? 400);
            return;
          }
          const r = await postJson(c.n.url, `/api/v0/${path}`, body);
          assert.equal(r.status, 200, `${path}: ${r.text}`);
          if (opts.answers) assert.deepEqual(r.json, opts.answers, `${path} answers ${JSON.stringify(opts.answers)}`);
          const [audit] = await listAdminActions(c.n.deps.store, { route, limit: 1 });
          assert.ok(audit, `an audit entry for ${route}`);
          assert.equal(audit.admin, body['AdminPublicKey'], 'the audit entry names the admin');
          assert.equal(audit.status, 200, 'the audit entry records the success');
          assert.ok(!audit.fields.some((f) => /jwt|adminpublickey/i.test(f)), 'credentials are never audited');
          await tc.check?.(r.json as J, c);
        });
      }
      it('no JWT is refused (401)', async () => {
        const c = ctx();
        await c.n.fails(path, { AdminPublicKey: superAdmin.pk, ...validBody(c) }, /^CheckAdminPublicKey: Invalid token: Problem verifying JWT token: token is missing$/, 401);
      });
      it('a user who is not an admin is refused (403), without an audit entry', async () => {
        const c = ctx();
        const before = await audited(c);
        await c.n.fails(path, await as(c, outsider, validBody(c)), level === 'admin' ? /^CheckAdminPublicKey: Not an admin$/ : /^CheckAdminPublicKey: Not a superadmin$/, 403);
        assert.equal(await audited(c), before, 'a refused caller leaves no audit entry');
      });
      if (level === 'superAdmin') {
        it('an admin who is not super admin is refused (403)', async () => {
          const c = ctx();
          await c.n.fails(path, await as(c, admin, validBody(c)), /^CheckAdminPublicKey: Not a superadmin$/, 403);
        });
      }
    });
  };
}
