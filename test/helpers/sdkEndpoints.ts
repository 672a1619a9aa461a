/**
 * Every endpoint the installed deso-protocol SDK calls, read from its built files
 * (node_modules/deso-protocol/src/**\/*.js): the path, the method and the server it goes to.
 *
 * The SDK talks to three servers: the node (`api`, `configure({nodeURI})`, and the identity
 * module's own client on the same URI), the media server (`media`, `mediaURI`) and the AMM
 * server (`amm`, fixed at amm.deso.com: `configure` never points it elsewhere). Only the first
 * is this node's business.
 *
 * Each `api/vN/...` string literal in code (comments and source maps are dropped) is classified
 * by the call that sends it: directly as the first argument of `api.post(`, `handleSignAndSubmit(`,
 * `jwtPost(`, `cleanURL(...)` and so on, or through a `const endpoint = ...` that a call in
 * the same function sends. A literal nothing classifies throws: a new SDK version that calls
 * a path in a new way fails the test that uses this, instead of dropping the path unseen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

export type SdkServer = 'node' | 'media' | 'amm';

export interface SdkEndpoint {
  method: 'GET' | 'POST';
  /** From `/api/vN/`, query string dropped, each `${...}` as `:param` (e.g. `/api/v0/get-txn`). */
  path: string;
  server: SdkServer;
  /** Where it was read: file (relative to the package's src) and line. */
  at: string;
}

/** The installed package's `src` directory (the package exports only its entry point). */
export function sdkSourceDir(): string {
  const require = createRequire(import.meta.url);
  // The package's main is ./src/index.js.
  return dirname(require.resolve('deso-protocol'));
}

export function sdkVersion(): string {
  const pkg = JSON.parse(readFileSync(join(sdkSourceDir(), '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function jsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...jsFiles(p));
    else if (e.name.endsWith('.js')) out.push(p);
  }
  return out.sort();
}

/**
 * Blanks comments and the source-map line, keeping every other character where it was (so
 * offsets still give line numbers). Strings are skipped over so `//` inside a URL stays.
 */
function blankComments(src: string): string {
  const out = src.split('');
  let i = 0;
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      // Skip the string (template nesting is shallow in this package: `${...}` never holds a backtick string with `//`).
      let k = i + 1;
      while (k < src.length && src[k] !== c) k += src[k] === '\\' ? 2 : 1;
      i = k + 1;
    } else i++;
  }
  return out.join('');
}

/**
 * `api/v0/x/${a}/${b}?q=${c}` → `/api/v0/x/:param/:param`. A `${` left open (the literal
 * regex stops at a nested template's backtick) starts a suffix that is dropped, as a query is:
 * in this package it only ever holds one (`${fallback ? `?fallback=...` : ''}`).
 */
function normalizePath(literal: string): string {
  let p = literal.slice(literal.search(/api\/v\d\//));
  let out = '';
  for (let i = 0; i < p.length; ) {
    if (p.startsWith('${', i)) {
      let depth = 0;
      let k = i + 1;
      for (; k < p.length; k++) {
        if (p[k] === '{') depth++;
        else if (p[k] === '}' && --depth === 0) break;
      }
      if (k >= p.length) break;
      out += ':param';
      i = k + 1;
    } else out += p[i++];
  }
  p = out;
  const q = p.indexOf('?');
  if (q >= 0) p = p.slice(0, q);
  // A parameter glued to a literal part (`/x/:param:param` from `${a}${b}`) is one segment.
  p = p.replace(/(:param)+/g, ':param');
  return `/${p}`;
}

/** The call a literal is the first argument of, from the text just before it. */
const DIRECT: ReadonlyArray<{ re: RegExp; method: 'GET' | 'POST'; server: SdkServer }> = [
  { re: /\b(api)\.(post)\(\s*$/, method: 'POST', server: 'node' },
  { re: /\b(api)\.(get)\(\s*$/, method: 'GET', server: 'node' },
  { re: /\bmedia\.get\(\s*$/, method: 'GET', server: 'media' },
  { re: /\bmedia\.post\(\s*$/, method: 'POST', server: 'media' },
  { re: /\bamm\.post\(\s*$/, method: 'POST', server: 'amm' },
  { re: /\bamm\.get\(\s*$/, method: 'GET', server: 'amm' },
  // The identity module's client on the node URI: `__classPrivateFieldGet(this, _Identity_api, "f").post(`
  { re: /_Identity_api, "f"\)\.post\(\s*$/, method: 'POST', server: 'node' },
  { re: /_Identity_api, "f"\)\.get\(\s*$/, method: 'GET', server: 'node' },
  // Construct (POST), then sign and submit-transaction: the node.
  { re: /\bhandleSignAndSubmit(Atomic)?(<\w+>)?\(\s*$/, method: 'POST', server: 'node' },
  { re: /\bjwtPost\(\s*$/, method: 'POST', server: 'node' },
  // A URL handed out for a browser to GET (profile pictures in <img>, proxied images).
  { re: /\bcleanURL\(\s*nodeURI,\s*$/, method: 'GET', server: 'node' },
  { re: /\bcleanURL\(\s*media\.mediaURI,\s*$/, method: 'GET', server: 'media' },
];

/** A literal that is no request: jwtPost's test of whether an endpoint is an admin one. */
const NOT_A_CALL = /\.includes\(\s*$/;

/** Calls sending an `endpoint` variable, searched after `const endpoint = <literal>` in the same function. */
const VIA_VARIABLE: ReadonlyArray<{ re: RegExp; method: 'GET' | 'POST'; server: SdkServer }> = [
  { re: /\bapi\.post\(/, method: 'POST', server: 'node' },
  { re: /\bapi\.get\(/, method: 'GET', server: 'node' },
  { re: /\bmedia\.post\(/, method: 'POST', server: 'media' },
  { re: /\bmedia\.get\(/, method: 'GET', server: 'media' },
  { re: /\bamm\.post\(/, method: 'POST', server: 'amm' },
  { re: /\bamm\.get\(/, method: 'GET', server: 'amm' },
  { re: /\bhandleSignAndSubmit\(\s*endpoint\b/, method: 'POST', server: 'node' },
  { re: /\bjwtPost\(\s*endpoint\b/, method: 'POST', server: 'node' },
];

function classify(code: string, start: number, end: number): { method: 'GET' | 'POST'; server: SdkServer; suffix?: string } | 'skip' | null {
  const before = code.slice(Math.max(0, start - 200), start);
  if (NOT_A_CALL.test(before)) return 'skip';
  for (const d of DIRECT) if (d.re.test(before)) return { method: d.method, server: d.server };
  // `const endpoint = '...'` or `const endpoint = cleanURL(x, '...')`: the first sending call
  // after it, before the function ends.
  if (/\bconst endpoint = (cleanURL\([^,]*,\s*)?$/.test(before)) {
    const rest = code.slice(end);
    const fnEnd = rest.search(/\n(\};|\})\n/);
    const body = fnEnd < 0 ? rest : rest.slice(0, fnEnd);
    let best: { at: number; method: 'GET' | 'POST'; server: SdkServer } | null = null;
    for (const v of VIA_VARIABLE) {
      const m = v.re.exec(body);
      if (m && (best === null || m.index < best.at)) best = { at: m.index, method: v.method, server: v.server };
    }
    // `api.get(endpoint + `/${username}`)`: the path goes on after the variable.
    const suffix = /\bendpoint\)?\s*\+\s*`([^`]*)`/.exec(body);
    if (best) return { method: best.method, server: best.server, suffix: suffix?.[1] ?? '' };
  }
  return null;
}

/** Every endpoint of the installed SDK, deduplicated by server, method and path, sorted. */
export function sdkEndpoints(dir = sdkSourceDir()): SdkEndpoint[] {
  const seen = new Map<string, SdkEndpoint>();
  const unclassified: string[] = [];
  for (const file of jsFiles(dir)) {
    const code = blankComments(readFileSync(file, 'utf8'));
    const literal = /(['"`])((?:(?!\1)[^\\\n]|\\.)*?api\/v\d\/(?:(?!\1)[^\\\n]|\\.)*)\1/g;
    for (let m = literal.exec(code); m !== null; m = literal.exec(code)) {
      const line = code.slice(0, m.index).split('\n').length;
      const at = `${relative(dir, file)}:${line}`;
      const kind = classify(code, m.index, m.index + m[0].length);
      if (kind === 'skip') continue;
      if (kind === null) {
        unclassified.push(`${at}: ${m[0]}`);
        continue;
      }
      const path = normalizePath(m[2]! + (kind.suffix ?? ''));
      const key = `${kind.server} ${kind.method} ${path}`;
      if (!seen.has(key)) seen.set(key, { method: kind.method, server: kind.server, path, at });
    }
  }
  if (unclassified.length > 0) throw new Error(`SDK endpoint literals sent by no call this reader knows:\n  ${unclassified.join('\n  ')}`);
  return [...seen.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
