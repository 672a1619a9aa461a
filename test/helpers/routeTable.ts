/**
 * The e2e suites' case tables: one `describe` per route, one `it` per case. An error case must
 * answer its status (400 unless given) with an `{error}` matching its pattern; any other case
 * must answer 200 with a body the node's OpenAPI document describes (openApiCheck.ts), which
 * `check` then examines. `getRouteTable` does the same for GET routes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChainNode, J } from './chainNode.js';
import { assertDocumented } from './openApiCheck.js';

export interface RouteCase<C> {
  name: string;
  body: (c: C) => J | Promise<J>;
  /** Expected 4xx status and error pattern; absent ⇒ 200. */
  error?: { status?: number; re: RegExp };
  check?: (r: J, c: C) => void | Promise<void>;
}

/** A table runner over the suite's context; `onError` adds a check of every error message. */
export function routeTable<C extends { n: ChainNode }>(onError?: (message: string) => void): (ctx: () => C, path: string, cases: RouteCase<C>[]) => void {
  return (ctx, path, cases) => {
    describe(path, () => {
      for (const tc of cases) {
        it(tc.name, async () => {
          const c = ctx();
          const body = await tc.body(c);
          if (tc.error) {
            const message = await c.n.fails(path, body, tc.error.re, tc.error.status ?? 400);
            onError?.(message);
            return;
          }
          const answer = await c.n.ok(path, body);
          await assertDocumented(c.n.url, 'POST', path, answer);
          await tc.check?.(answer, c);
        });
      }
    });
  };
}

/** A case of a GET route: the path after /api/v0/ (parameters and query filled in). */
export interface GetRouteCase<C> {
  name: string;
  /** May set up state first (the request goes once it resolves). */
  path: (c: C) => string | Promise<string>;
  /** Expected 4xx status and error pattern; absent ⇒ 200. */
  error?: { status?: number; re: RegExp };
  check?: (r: J, c: C) => void | Promise<void>;
}

/** routeTable for GET routes: the same rows, the request being the path. */
export function getRouteTable<C extends { n: ChainNode }>(onError?: (message: string) => void): (ctx: () => C, route: string, cases: GetRouteCase<C>[]) => void {
  return (ctx, route, cases) => {
    describe(`GET ${route}`, () => {
      for (const tc of cases) {
        it(tc.name, async () => {
          const c = ctx();
          const path = await tc.path(c);
          const res = await fetch(`${c.n.url}/api/v0/${path}`);
          const body = (await res.json()) as J;
          if (tc.error) {
            assert.equal(res.status, tc.error.status ?? 400, `${route} answers ${tc.error.status ?? 400}: ${JSON.stringify(body)}`);
            assert.equal(typeof body['error'], 'string', `${route}: {error} body`);
            assert.match(body['error'] as string, tc.error.re);
            onError?.(body['error'] as string);
            return;
          }
          assert.equal(res.status, 200, `${route}: ${JSON.stringify(body)}`);
          await assertDocumented(c.n.url, 'GET', path, body);
          await tc.check?.(body, c);
        });
      }
    });
  };
}
