/**
 * The e2e suites' case tables: one `describe` per route, one `it` per case. An error case must
 * answer its status (400 unless given) with an `{error}` matching its pattern; any other case
 * must answer 200, which `check` then examines.
 */
import { describe, it } from 'node:test';
import type { ChainNode, J } from './chainNode.js';

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
          await tc.check?.(await c.n.ok(path, body), c);
        });
      }
    });
  };
}
