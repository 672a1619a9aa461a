/**
 * Which endpoints of the official SDK this node leaves unrouted (issue 21, "the closing note
 * lists every route the SDK calls that still answers 404").
 *
 * Every endpoint the installed deso-protocol package calls on the node (read from its built
 * files by test/helpers/sdkEndpoints.ts; the media and AMM servers' endpoints are not this
 * node's) is asked of the node's router with the SDK's method. The unrouted ones must be exactly
 * those the issue keeps out (NFTs, associations, stake/lockup/validators, the ETH/MetaMask
 * helpers) plus the gaps listed below by name, each with why; each answers 404 over HTTP. A new
 * SDK endpoint this node does not route, or a listed gap that the node now routes, fails the
 * test (so the list stays the truth). The list is printed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRouter } from '../../server/app.js';
import type { Router } from '../../server/http/router.js';
import { startChainNode, type ChainNode } from '../helpers/chainNode.js';
import { sdkEndpoints, sdkVersion, type SdkEndpoint } from '../helpers/sdkEndpoints.js';

/** What issue 21 keeps out of this node: these answer 404, as today. */
const OUT_OF_SCOPE: ReadonlyArray<{ area: string; re: RegExp }> = [
  { area: 'NFTs', re: /nft/ },
  { area: 'associations', re: /^\/api\/v0\/(user|post)-associations\// },
  { area: 'stake, lockups, validators', re: /^\/api\/v0\/(stake|unstake|unlock-stake|validators\/|coin-lockup|coin-unlock|update-coin-lockup-params)/ },
  { area: 'ETH / MetaMask helpers', re: /eth/ },
];

/**
 * SDK endpoints outside issue 21's exclusions that this node does not route yet, by name, with
 * why. None now: a new SDK endpoint the node does not route fails the test until it is built
 * or listed here.
 */
const KNOWN_GAPS: ReadonlyArray<{ why: string; paths: readonly string[] }> = [];

const gapOf = new Map(KNOWN_GAPS.flatMap((g) => g.paths.map((p) => [p, g.why] as const)));
const areaOf = (path: string): string | undefined => OUT_OF_SCOPE.find((a) => a.re.test(path))?.area;

describe(`the endpoints deso-protocol ${sdkVersion()} calls, against this node's router`, () => {
  let n: ChainNode;
  let router: Router;
  const endpoints = sdkEndpoints();
  const onNode = endpoints.filter((e) => e.server === 'node');
  const unrouted: SdkEndpoint[] = [];

  before(async () => {
    n = await startChainNode({ store: 'memory', args: ['--miner', 'off'] });
    router = createRouter(n.deps);
    for (const e of onNode) {
      const m = router.match(e.method, e.path);
      assert.notEqual(m.kind, 'wrongMethod', `${e.method} ${e.path} (${e.at}) is routed for another method: the SDK's method is not served`);
      if (m.kind === 'notFound') unrouted.push(e);
    }
  });
  after(() => n?.close());

  it('the reader finds the SDK’s calls: the login and transaction routes among them, the media and AMM servers told apart', () => {
    const paths = new Set(onNode.map((e) => `${e.method} ${e.path}`));
    for (const p of ['POST /api/v0/submit-transaction', 'POST /api/v0/get-access-bytes', 'POST /api/v0/get-notifications', 'GET /api/v0/get-single-derived-key/:param/:param', 'POST /api/v0/get-txn', 'GET /api/v0/get-public-key-for-user-name/:param', 'POST /api/v0/create-follow-txn-stateless']) {
      assert.ok(paths.has(p), `${p} is among the SDK's node calls`);
    }
    assert.ok(onNode.length > 120, `${onNode.length} node endpoints`);
    assert.deepEqual(endpoints.filter((e) => e.server === 'media').map((e) => e.path).sort(), ['/api/v0/get-video-status/:param', '/api/v0/link-preview', '/api/v0/proxy-image', '/api/v0/upload-video']);
    assert.ok(endpoints.some((e) => e.server === 'amm' && e.path === '/api/v0/twaps/create'));
  });

  it('unrouted: only what issue 21 keeps out and the listed gaps (printed)', () => {
    const unexpected = unrouted.filter((e) => areaOf(e.path) === undefined && !gapOf.has(e.path));
    // Groups in order: issue 21's exclusions, then the gaps.
    const byGroup = new Map<string, string[]>([...OUT_OF_SCOPE.map((a) => a.area), ...KNOWN_GAPS.map((g) => g.why)].map((g) => [g, []]));
    for (const e of unrouted) {
      const group = areaOf(e.path) ?? gapOf.get(e.path) ?? 'NOT EXPECTED';
      byGroup.set(group, [...(byGroup.get(group) ?? []), `${e.method} ${e.path}`]);
    }
    const routedCount = onNode.length - unrouted.length;
    const lines = [`deso-protocol ${sdkVersion()}: ${onNode.length} node endpoints, ${routedCount} routed, ${unrouted.length} unrouted (404):`];
    for (const [group, paths] of byGroup) if (paths.length > 0) lines.push(`  ${group} (${paths.length}):`, ...paths.map((p) => `    ${p}`));
    const notOnNode = endpoints.filter((e) => e.server !== 'node');
    lines.push(`  not this node's (the SDK sends them to its media or AMM server): ${notOnNode.map((e) => `${e.server} ${e.method} ${e.path}`).join(', ')}`);
    console.log(lines.join('\n'));
    assert.deepEqual(
      unexpected.map((e) => `${e.method} ${e.path} (${e.at})`),
      [],
      'SDK endpoints this node does not route, outside issue 21’s exclusions and the listed gaps',
    );
  });

  it('every listed gap is still unrouted (a gap the node now routes leaves the list)', () => {
    const unroutedPaths = new Set(unrouted.map((e) => e.path));
    const sdkPaths = new Set(onNode.map((e) => e.path));
    for (const p of gapOf.keys()) {
      assert.ok(sdkPaths.has(p), `${p} is still called by the SDK`);
      assert.ok(unroutedPaths.has(p), `${p} is routed now: remove it from KNOWN_GAPS`);
    }
  });

  it('each unrouted endpoint answers 404 over HTTP with the SDK’s method', async () => {
    for (const e of unrouted) {
      const path = e.path.replaceAll(':param', 'x');
      const r = await fetch(`${n.url}${path}`, e.method === 'POST' ? { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' } : {});
      assert.equal(r.status, 404, `${e.method} ${path}`);
      await r.body?.cancel();
    }
  });
});
