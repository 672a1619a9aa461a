// Which uWebSockets.js build loads for a given Node, platform and glibc (issue 22, item 7):
// server/http/uwsBuild.ts's selection with injected loaders, the engines range it implies, and
// the real loader on this machine.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareVersions, coverageGap, selectUws, UWS_BUILDS, type UwsCandidate, type UwsRuntime, type UwsSelection } from '../../server/http/uwsBuild.js';
import { currentRuntime, loadUws } from '../../server/http/uws.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';

const [TRUFFLE, BTC] = UWS_BUILDS as [typeof UWS_BUILDS[0], typeof UWS_BUILDS[0]];

/** What an injected loader does: load natively, fall back to pure JS (Truffle only), or throw. */
type Outcome = 'native' | 'fallback' | Error;

interface Row {
  name: string;
  rt: UwsRuntime;
  truffle: Outcome;
  btc: Outcome;
  allowFallback?: boolean;
  /** `native:<build>`, `fallback:<build>` or `refused`. */
  expect: string;
  /** Loaders expected to have been called, in order. */
  calls: string[];
  /** For refusals: what the message must say. */
  message?: RegExp[];
}

const linux = (nodeVersion: string, glibc: string | null, arch = 'x64'): UwsRuntime => ({ nodeVersion, platform: 'linux', arch, glibc });
const dlopenError = new Error("This version of uWS.js (v20.57.0) supports only Node.js versions 20, 22, 24 and 25\n\nError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found");
const notInstalled = new Error('not installed (an optional dependency; npm ci installs it)');

const ROWS: Row[] = [
  { name: 'Node 20, glibc 2.36 (this machine): the Truffle build', rt: linux('20.20.2', '2.36'), truffle: 'native', btc: 'native', expect: `native:${TRUFFLE.name}`, calls: ['truffle'] },
  { name: 'Node 20, glibc 2.39: still the Truffle build (preferred where it has a binary)', rt: linux('20.20.2', '2.39'), truffle: 'native', btc: 'native', expect: `native:${TRUFFLE.name}`, calls: ['truffle'] },
  {
    name: 'Node 20, glibc 2.39, Truffle fell back to pure JS: the btc-vision build',
    rt: linux('20.11.0', '2.39'),
    truffle: 'fallback',
    btc: 'native',
    expect: `native:${BTC.name}`,
    calls: ['truffle', 'btc'],
  },
  { name: 'Node 22, glibc 2.39: the btc-vision build, Truffle not even loaded', rt: linux('22.11.0', '2.39'), truffle: 'native', btc: 'native', expect: `native:${BTC.name}`, calls: ['btc'] },
  { name: 'Node 24 on arm64, glibc 2.38 exactly: btc-vision', rt: linux('24.3.0', '2.38', 'arm64'), truffle: 'native', btc: 'native', expect: `native:${BTC.name}`, calls: ['btc'] },
  { name: 'Node 25 on macOS arm64 (no glibc to check): btc-vision', rt: { nodeVersion: '25.0.0', platform: 'darwin', arch: 'arm64', glibc: null }, truffle: 'native', btc: 'native', expect: `native:${BTC.name}`, calls: ['btc'] },
  { name: 'Node 20 on 32-bit arm: only Truffle has a binary', rt: linux('20.5.1', '2.31', 'arm'), truffle: 'native', btc: 'native', expect: `native:${TRUFFLE.name}`, calls: ['truffle'] },
  {
    name: 'Node 22, glibc 2.36: refused, nothing loaded, each build says why',
    rt: linux('22.11.0', '2.36'),
    truffle: 'native',
    btc: 'native',
    expect: 'refused',
    calls: [],
    message: [
      /^no native uWebSockets\.js binary for Node 22\.11\.0 on linux-x64 \(glibc 2\.36\)/,
      /20\.30 \(Truffle build\): no binary for Node 22 \(it has Node 16, 18, 20\)/,
      /20\.57 \(btc-vision build\): its Linux binaries need glibc 2\.38 or newer; this system has 2\.36/,
      /--allow-uws-fallback/,
    ],
  },
  {
    name: 'Node 24 on musl: refused (the btc-vision binaries need glibc)',
    rt: linux('24.1.0', null),
    truffle: 'native',
    btc: 'native',
    expect: 'refused',
    calls: [],
    message: [/on linux-x64 \(no glibc\)/, /btc-vision build\): its Linux binaries need glibc 2\.38 or newer; this system has no glibc/],
  },
  { name: 'Node 26: no build has a binary', rt: linux('26.0.0', '2.40'), truffle: 'native', btc: 'native', expect: 'refused', calls: [], message: [/no binary for Node 26 \(it has Node 16, 18, 20\).*no binary for Node 26 \(it has Node 20, 22, 24, 25\)/] },
  { name: 'Node 21', rt: linux('21.7.3', '2.40'), truffle: 'native', btc: 'native', expect: 'refused', calls: [], message: [/no binary for Node 21/] },
  {
    name: 'Node 24, glibc 2.39, the btc-vision binary fails to load: refused with its error on one line',
    rt: linux('24.3.0', '2.39'),
    truffle: 'native',
    btc: dlopenError,
    expect: 'refused',
    calls: ['btc'],
    message: [/btc-vision build\): This version of uWS\.js \(v20\.57\.0\) supports only Node\.js versions 20, 22, 24 and 25 Error: \S+libc\.so\.6: version `GLIBC_2\.38' not found\. /],
  },
  {
    name: 'Node 24, glibc 2.39, btc-vision not installed: refused, saying so',
    rt: linux('24.3.0', '2.39'),
    truffle: 'native',
    btc: notInstalled,
    expect: 'refused',
    calls: ['btc'],
    message: [/btc-vision build\): not installed/],
  },
  {
    name: 'Node 20, Truffle fell back (UWS_USE_FALLBACK), glibc 2.36: refused without the flag',
    rt: linux('20.20.2', '2.36'),
    truffle: 'fallback',
    btc: 'native',
    expect: 'refused',
    calls: ['truffle'],
    message: [/Truffle build\): no native binary loaded, it fell back to its pure-JS server/, /need glibc 2\.38/],
  },
  { name: 'the same with --allow-uws-fallback: Truffle\'s pure-JS server', rt: linux('20.20.2', '2.36'), truffle: 'fallback', btc: 'native', allowFallback: true, expect: `fallback:${TRUFFLE.name}`, calls: ['truffle'] },
  {
    name: 'Node 22, glibc 2.36, --allow-uws-fallback: Truffle loaded for its pure-JS server',
    rt: linux('22.11.0', '2.36'),
    truffle: 'fallback',
    btc: 'native',
    allowFallback: true,
    expect: `fallback:${TRUFFLE.name}`,
    calls: ['truffle'],
  },
  {
    name: 'Node 22, glibc 2.36, --allow-uws-fallback, Truffle missing too: refused',
    rt: linux('22.11.0', '2.36'),
    truffle: notInstalled,
    btc: 'native',
    allowFallback: true,
    expect: 'refused',
    calls: ['truffle'],
    message: [/its pure-JS fallback did not load either: not installed/],
  },
];

function candidates(row: Row, calls: string[]): UwsCandidate<string>[] {
  const loader = (label: string, outcome: Outcome) => () => {
    calls.push(label);
    if (outcome instanceof Error) throw outcome;
    return { uws: `${label}-module`, native: outcome === 'native' };
  };
  return [
    { spec: TRUFFLE, load: loader('truffle', row.truffle) },
    { spec: BTC, load: loader('btc', row.btc) },
  ];
}

function summary(s: UwsSelection<string>): string {
  return s.kind === 'refused' ? 'refused' : `${s.kind}:${s.build}`;
}

describe('selectUws', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const calls: string[] = [];
      const chosen = selectUws(row.rt, candidates(row, calls), row.allowFallback ?? false);
      assert.equal(summary(chosen), row.expect);
      assert.deepEqual(calls, row.calls, 'loaders called');
      if (chosen.kind !== 'refused') {
        assert.equal(chosen.uws, chosen.build === TRUFFLE.name ? 'truffle-module' : 'btc-module');
      } else {
        assert.ok(!chosen.message.includes('\n'), 'one line');
        for (const re of row.message ?? []) assert.match(chosen.message, re);
      }
    });
  }
});

describe('coverageGap and compareVersions', () => {
  it('compares glibc versions numerically', () => {
    assert.ok(compareVersions('2.38', '2.38') === 0);
    assert.ok(compareVersions('2.9', '2.38') < 0);
    assert.ok(compareVersions('2.40', '2.38') > 0);
    assert.ok(compareVersions('3', '2.38') > 0);
  });

  it('reads the major from the full Node version', () => {
    assert.equal(coverageGap(TRUFFLE, linux('v18.20.4', '2.31')), null);
    assert.match(coverageGap(TRUFFLE, linux('19.0.0', '2.31'))!, /no binary for Node 19/);
    assert.match(coverageGap(BTC, { nodeVersion: '22.0.0', platform: 'win32', arch: 'arm64', glibc: null })!, /no binary for win32-arm64/);
  });
});

describe('package.json engines', () => {
  /** The dependencies' floor: @noble/hashes needs Node 20.19+, piscina and ioredis 20+. */
  const PROJECT_FLOOR = { major: 20, range: '^20.19.0' };

  it('names exactly the Node majors a shipped build has a binary for, from the dependencies\' floor up', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const ranges = pkg.engines.node.split('||').map((r) => r.trim());
    const covered = [...new Set(UWS_BUILDS.flatMap((b) => b.nodeMajors))].filter((m) => m >= PROJECT_FLOOR.major).sort((a, b) => a - b);
    assert.deepEqual(ranges, covered.map((m) => (m === PROJECT_FLOOR.major ? PROJECT_FLOOR.range : `^${m}.0.0`)));
  });
});

describe('loadUws on this machine', () => {
  it('loads a native build (the Truffle build on Node 20)', () => {
    const loaded = loadUws();
    assert.equal(loaded.isFallback, false);
    assert.equal(typeof loaded.uws.App, 'function');
    const rt = currentRuntime();
    if (rt.nodeVersion.startsWith('20.')) assert.equal(loaded.build, TRUFFLE.name);
    if (rt.platform === 'linux') assert.match(rt.glibc ?? 'musl', /^\d+\.\d+$|^musl$/);
  });
});
