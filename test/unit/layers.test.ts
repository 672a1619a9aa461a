/**
 * The layers of server/, held by a test (issue 20): every import between folders must be an
 * arrow the table allows. Lower layers know nothing of the ones above: the chain knows no
 * identity, social or transport code; identity and social know no HTTP; nothing below the
 * routes imports a route. A new forbidden arrow fails here, naming the file and the import.
 *
 * `KNOWN_EXCEPTIONS` lists the arrows still to remove (type-only imports of the app's wiring
 * types); the test fails when one is gone too, so the list only ever shrinks.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SERVER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'server');

type Layer = 'util' | 'schema' | 'store' | 'crypto' | 'keys' | 'cluster' | 'admin' | 'chain' | 'identity' | 'meta' | 'media' | 'external' | 'metrics' | 'social' | 'services' | 'http' | 'routes' | 'app' | 'deps';

/** Modules directly under server/: leaf utilities, or the app's wiring (entry points, config). */
const ROOT_LAYER: Readonly<Record<string, Layer>> = {
  'hex.ts': 'util',
  'errors.ts': 'util',
  'jsonDepth.ts': 'util',
  'jsonText.ts': 'util',
  'timeout.ts': 'util',
  'lru.ts': 'util',
  'schema.ts': 'schema',
  'log.ts': 'app',
  'app.ts': 'app',
  'node.ts': 'app',
  'main.ts': 'app',
  'config.ts': 'app',
  'health.ts': 'app',
  'cli.ts': 'app',
  'teardown.ts': 'app',
  'deps.ts': 'deps',
};

/** Which layers each layer may import (its own always). */
const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  util: [],
  // Request and response schemas: validation with typed results, and the OpenAPI document.
  schema: ['util', 'keys'],
  store: ['util'],
  crypto: ['util'],
  keys: ['util'],
  cluster: ['util', 'store'],
  admin: ['util', 'store'],
  chain: ['util', 'store', 'crypto', 'keys', 'cluster'],
  identity: ['util', 'store', 'crypto', 'keys', 'chain'],
  meta: ['util', 'store', 'keys', 'chain'],
  // The node's image store (upload-image): what a file is, and where it is kept.
  media: ['util', 'store'],
  // Clients of the outside services some routes stand in front of (TikTok, Wyre).
  external: ['util'],
  social: ['util', 'schema', 'store', 'crypto', 'keys', 'chain', 'identity', 'deps'],
  // Write-side services (construction, simulation, prechecks): no HTTP, no routes.
  services: ['util', 'schema', 'store', 'crypto', 'keys', 'chain', 'identity', 'meta', 'social', 'deps'],
  // The transport: parses, authorizes and answers; it may call down into any service.
  http: ['util', 'schema', 'store', 'crypto', 'keys', 'cluster', 'admin', 'chain', 'identity', 'meta', 'social', 'services', 'metrics', 'deps'],
  metrics: ['util', 'crypto', 'http'],
  routes: ['util', 'schema', 'store', 'crypto', 'keys', 'cluster', 'admin', 'chain', 'identity', 'meta', 'media', 'external', 'metrics', 'social', 'services', 'http', 'deps'],
  app: ['util', 'schema', 'store', 'crypto', 'keys', 'cluster', 'admin', 'chain', 'identity', 'meta', 'media', 'external', 'metrics', 'social', 'services', 'http', 'routes', 'deps'],
  // The dependency types of a process (deps.ts): types only (checked below), so naming any
  // layer's type costs nothing at run time and makes no cycle.
  deps: ['util', 'schema', 'store', 'crypto', 'keys', 'cluster', 'admin', 'chain', 'identity', 'meta', 'media', 'external', 'metrics', 'social', 'services', 'http', 'routes', 'app'],
};

/** Arrows still to remove, as `file -> imported file` (type-only imports of wiring types). */
const KNOWN_EXCEPTIONS: readonly string[] = [];

function layerOf(file: string): Layer {
  const [top, ...rest] = file.split('/');
  if (rest.length === 0) {
    const layer = ROOT_LAYER[top!];
    if (layer === undefined) throw new Error(`server/${file}: a module directly under server/ needs a layer in ROOT_LAYER`);
    return layer;
  }
  if (!(top! in ALLOWED)) throw new Error(`server/${top}/: a folder needs a layer in ALLOWED`);
  return top as Layer;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import of every server module, as paths relative to server/. */
function arrows(): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (const path of sources(SERVER)) {
    const from = relative(SERVER, path);
    for (const m of readFileSync(path, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const to = relative(SERVER, normalize(join(dirname(path), m[1]!))).replace(/\.js$/, '.ts');
      if (to.startsWith('..')) continue; // wasm/, workers/: outside server/
      out.push({ from, to });
    }
  }
  return out;
}

const exceptionOf = (from: string, to: string): string | undefined =>
  KNOWN_EXCEPTIONS.find((e) => {
    const [f, t] = e.split(' -> ');
    return (f!.endsWith('/') ? from.startsWith(f!) : from === f) && to === t;
  });

describe('layers of server/', () => {
  it('every import between folders is an arrow the table allows', () => {
    const forbidden: string[] = [];
    for (const { from, to } of arrows()) {
      const [a, b] = [layerOf(from), layerOf(to)];
      if (a === b || ALLOWED[a].includes(b) || exceptionOf(from, to) !== undefined) continue;
      forbidden.push(`${from} (${a}) imports ${to} (${b})`);
    }
    assert.deepEqual(forbidden, [], `forbidden arrows:\n${forbidden.join('\n')}`);
  });

  it('every known exception still exists (remove it from the list once it is gone)', () => {
    const used = new Set(arrows().map(({ from, to }) => exceptionOf(from, to)).filter((e) => e !== undefined));
    assert.deepEqual(KNOWN_EXCEPTIONS.filter((e) => !used.has(e)), []);
  });

  it('deps.ts declares types only: every import is `import type`, and it exports no value', () => {
    const text = readFileSync(join(SERVER, 'deps.ts'), 'utf8');
    const imports = [...text.matchAll(/^import\b.*$/gm)].map((m) => m[0]);
    assert.ok(imports.length > 0);
    assert.deepEqual(imports.filter((line) => !line.startsWith('import type ')), []);
    assert.deepEqual([...text.matchAll(/^export\s+(?!interface\b|type\b)\S+.*$/gm)].map((m) => m[0]), []);
  });

  it('the table fails on a forbidden arrow (chain importing http)', () => {
    assert.equal(ALLOWED[layerOf('chain/chain.ts')].includes(layerOf('http/errors.ts')), false);
    assert.equal(ALLOWED[layerOf('social/users.ts')].includes(layerOf('routes/posts.ts')), false);
    assert.equal(ALLOWED[layerOf('identity/jwt.ts')].includes(layerOf('http/errors.ts')), false);
    assert.equal(ALLOWED[layerOf('services/construct.ts')].includes(layerOf('http/errors.ts')), false);
    assert.equal(ALLOWED[layerOf('services/construct.ts')].includes(layerOf('routes/constructed.ts')), false);
    assert.equal(ALLOWED[layerOf('social/users.ts')].includes(layerOf('services/construct.ts')), false);
    assert.equal(ALLOWED[layerOf('social/users.ts')].includes(layerOf('app.ts')), false);
  });
});
