/**
 * Which shipped uWebSockets.js build to load for the running Node and platform (issue 22,
 * item 7). uWS is not on the npm registry; two unofficial packages carry its native binaries,
 * each for a set of Node versions and platforms:
 * - the Truffle build (`uWebSockets.js`, an alias to @trufflesuite/uws-js-unofficial 20.30):
 *   Node 16, 18 and 20; with no binary for the running Node it silently falls back to a slow
 *   pure-JS server;
 * - the btc-vision build (@btc-vision/uwebsockets.js 20.57, an optional dependency): Node 20,
 *   22, 24 and 25, its Linux binaries linked against glibc 2.38; with no binary it throws.
 *
 * `selectUws` tries the builds in order, skipping those without a binary for this Node,
 * platform or glibc, and takes the first that loads natively. The pure-JS fallback is used only
 * when the caller allows it. Pure: the loaders are injected (uws.ts passes the real ones).
 * @module
 */

/** What `selectUws` needs to know of the running process. */
export interface UwsRuntime {
  /** `process.versions.node`, e.g. `20.20.2`. */
  nodeVersion: string;
  /** `process.platform`. */
  platform: string;
  /** `process.arch`. */
  arch: string;
  /** The glibc version on Linux (e.g. `2.36`); null on musl or off Linux. */
  glibc: string | null;
}

export interface UwsBuildSpec {
  /** How messages and logs name it. */
  name: string;
  /** The package required. */
  packageName: string;
  /** Node major versions it ships binaries for (one ABI each). */
  nodeMajors: readonly number[];
  /** `platform-arch` pairs it ships binaries for. */
  platforms: readonly string[];
  /** On Linux, the least glibc its binaries load with (the newest GLIBC_ symbol version they need). */
  minGlibc: string;
  /** Whether the package carries a pure-JS server it falls back to when no binary loads. */
  hasFallback: boolean;
}

/** The builds this project ships, in order of preference. */
export const UWS_BUILDS: readonly UwsBuildSpec[] = [
  {
    // Preferred where it has a binary: the build every test and bench here ran on (Node 20).
    name: 'uWebSockets.js 20.30 (Truffle build)',
    packageName: 'uWebSockets.js',
    nodeMajors: [16, 18, 20],
    platforms: ['linux-x64', 'linux-arm64', 'linux-arm', 'darwin-x64', 'darwin-arm64', 'win32-x64'],
    // x64 and arm64 need 2.27, arm 2.28 (objdump -T of binaries/uws_linux_*_115.node).
    minGlibc: '2.28',
    hasFallback: true,
  },
  {
    name: 'uWebSockets.js 20.57 (btc-vision build)',
    packageName: '@btc-vision/uwebsockets.js',
    nodeMajors: [20, 22, 24, 25],
    platforms: ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'],
    // Every uws_linux_*.node of 20.57.0 needs GLIBC_2.38 (objdump -T); on 2.36 dlopen fails.
    minGlibc: '2.38',
    hasFallback: false,
  },
];

/**
 * Loads a build. Throws when the package or its binary cannot be loaded; answers
 * `native: false` when the package fell back to its pure-JS server instead.
 */
export type UwsLoader<M> = () => { uws: M; native: boolean };

export interface UwsCandidate<M> {
  spec: UwsBuildSpec;
  load: UwsLoader<M>;
}

export type UwsSelection<M> =
  /** A native build loaded. `skipped` says why the builds before it were not used. */
  | { kind: 'native'; build: string; uws: M; skipped: string[] }
  /** No native build; the pure-JS fallback, as the caller allowed. */
  | { kind: 'fallback'; build: string; uws: M; skipped: string[] }
  /** No native build and no fallback allowed (or none loadable): `message` says why and what to do. */
  | { kind: 'refused'; message: string; skipped: string[] };

function majorOf(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

/** Compares dotted versions numerically: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Why `spec` has no binary for `rt`, or null when it has one. */
export function coverageGap(spec: UwsBuildSpec, rt: UwsRuntime): string | null {
  const major = majorOf(rt.nodeVersion);
  if (!spec.nodeMajors.includes(major)) return `no binary for Node ${major} (it has Node ${spec.nodeMajors.join(', ')})`;
  const platform = `${rt.platform}-${rt.arch}`;
  if (!spec.platforms.includes(platform)) return `no binary for ${platform}`;
  if (rt.platform === 'linux') {
    if (rt.glibc === null) return `its Linux binaries need glibc ${spec.minGlibc} or newer; this system has no glibc (musl?)`;
    if (compareVersions(rt.glibc, spec.minGlibc) < 0) return `its Linux binaries need glibc ${spec.minGlibc} or newer; this system has ${rt.glibc}`;
  }
  return null;
}

/** Longest error text kept in a refusal: a require stack can run to many lines. */
const MAX_ERROR_TEXT = 400;

/**
 * An error's message on one line: its non-empty lines joined (the btc-vision wrapper puts the
 * dlopen error, e.g. "GLIBC_2.38 not found", after a blank line), cut at MAX_ERROR_TEXT.
 */
function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const joined = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('Require stack:') && !l.startsWith('- '))
    .join(' ');
  if (joined === '') return 'failed to load';
  return joined.length > MAX_ERROR_TEXT ? `${joined.slice(0, MAX_ERROR_TEXT)}…` : joined;
}

/** `Node 20 on linux-x64 (glibc 2.36)`. */
export function describeRuntime(rt: UwsRuntime): string {
  const libc = rt.platform !== 'linux' ? '' : rt.glibc === null ? ' (no glibc)' : ` (glibc ${rt.glibc})`;
  return `Node ${rt.nodeVersion} on ${rt.platform}-${rt.arch}${libc}`;
}

/** One line per build: what it covers. */
function coverageText(specs: readonly UwsBuildSpec[]): string {
  return specs.map((s) => `${s.name}: Node ${s.nodeMajors.join('/')} on ${s.platforms.join(', ')} (on Linux, glibc ${s.minGlibc}+)`).join('; ');
}

/**
 * Chooses the uWS build for `rt`: the first candidate that has a binary for this Node,
 * platform and glibc and loads natively; else, when `allowFallback`, the pure-JS server of the
 * first build that has one; else a refusal naming why each build was not used.
 */
export function selectUws<M>(rt: UwsRuntime, candidates: readonly UwsCandidate<M>[], allowFallback: boolean): UwsSelection<M> {
  const skipped: string[] = [];
  let fallback: { build: string; uws: M } | null = null;
  for (const { spec, load } of candidates) {
    const gap = coverageGap(spec, rt);
    if (gap !== null) {
      skipped.push(`${spec.name}: ${gap}`);
      continue;
    }
    let loaded: { uws: M; native: boolean };
    try {
      loaded = load();
    } catch (err) {
      skipped.push(`${spec.name}: ${oneLine(err)}`);
      continue;
    }
    if (loaded.native) return { kind: 'native', build: spec.name, uws: loaded.uws, skipped };
    skipped.push(`${spec.name}: no native binary loaded, it fell back to its pure-JS server (its binary failed, or UWS_USE_FALLBACK is set)`);
    fallback ??= { build: spec.name, uws: loaded.uws };
  }
  const why = `no native uWebSockets.js binary for ${describeRuntime(rt)}: ${skipped.join('; ')}`;
  if (allowFallback) {
    if (fallback !== null) return { kind: 'fallback', ...fallback, skipped };
    // Not tried above (no binary for this runtime): load it for its pure-JS server.
    for (const { spec, load } of candidates) {
      if (!spec.hasFallback) continue;
      try {
        const loaded = load();
        return { kind: loaded.native ? 'native' : 'fallback', build: spec.name, uws: loaded.uws, skipped };
      } catch (err) {
        return { kind: 'refused', message: `${why}; its pure-JS fallback did not load either: ${oneLine(err)}`, skipped };
      }
    }
    return { kind: 'refused', message: `${why}; no build carries a pure-JS fallback`, skipped };
  }
  return {
    kind: 'refused',
    message:
      `${why}. The shipped builds cover ${coverageText(candidates.map((c) => c.spec))}. ` +
      'Run a covered Node (Node 20 works with any glibc 2.28+), or pass --allow-uws-fallback (ALLOW_UWS_FALLBACK=1) ' +
      'to run on the slow pure-JS server, for development only',
    skipped,
  };
}
