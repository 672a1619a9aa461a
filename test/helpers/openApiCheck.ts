/**
 * Checks an answer a test received against the node's published OpenAPI document: the 200
 * schema of the operation the request reached, with every object closed (a field the document
 * does not list fails), `$ref`s resolved in the document. The e2e case tables run every 200
 * answer through it (routeTable.ts); the nodes the suites start also check their own answers
 * (`--check-responses`), so a route whose handler and document disagree fails either way.
 */
import assert from 'node:assert/strict';
import { schemaViolation } from '../../server/http/responseCheck.js';

type J = Record<string, any>;

/** The last document read from each base URL, with its ETag. */
const documents = new Map<string, { etag: string; doc: J }>();

/**
 * The OpenAPI document of the node at `baseUrl`: read again each time with If-None-Match, so a
 * later node on the same port (another configuration, other response names) is never checked
 * against an earlier node's document, while an unchanged one costs a 304.
 */
export async function documentOf(baseUrl: string): Promise<J> {
  const doc = await documentIfAllowed(baseUrl);
  assert.ok(doc !== null, `${baseUrl}/api/v0/openapi.json: rate limited`);
  return doc;
}

/** documentOf, or null when the node rate-limits this client (a suite testing tight limits). */
export async function documentIfAllowed(baseUrl: string): Promise<J | null> {
  const kept = documents.get(baseUrl);
  const r = await fetch(`${baseUrl}/api/v0/openapi.json`, { headers: kept ? { 'if-none-match': kept.etag } : {} });
  if (r.status === 304 && kept) return kept.doc;
  if (r.status === 429) return null;
  assert.equal(r.status, 200, `${baseUrl}/api/v0/openapi.json answers 200`);
  const doc = (await r.json()) as J;
  const etag = r.headers.get('etag');
  if (etag !== null) documents.set(baseUrl, { etag, doc });
  return doc;
}

/** The document's path template that `path` (after /api/v0/, query allowed) matches. */
function templateOf(doc: J, path: string): string | undefined {
  // A path under its own /api/ version (API v1) as is; any other under /api/v0.
  const bare = (path.startsWith('/api/') ? path.split('?')[0]! : `/api/v0/${path.split('?')[0]!.replace(/^\/+/, '')}`).replace(/(.)\/$/, '$1');
  if (doc['paths'][bare] !== undefined) return bare;
  return Object.keys(doc['paths']).find((t) => new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
}

/**
 * Asserts that `body`, answered 200 to `method path` by the node at `baseUrl`, conforms to the
 * operation's published 200 schema.
 */
export async function assertDocumented(baseUrl: string, method: 'GET' | 'POST', path: string, body: unknown): Promise<void> {
  const doc = await documentOf(baseUrl);
  const template = templateOf(doc, path);
  assert.ok(template !== undefined, `${method} ${path}: the OpenAPI document has the path`);
  const op = doc['paths'][template][method.toLowerCase()] as J | undefined;
  assert.ok(op !== undefined, `${method} ${template}: the OpenAPI document has the operation`);
  const ok = op['responses']?.['200'] as J | undefined;
  assert.ok(ok !== undefined, `${method} ${template}: the document describes its 200 answer`);
  if (body === undefined) {
    // An empty body: the document must say the route answers one.
    assert.ok(ok['content'] === undefined || ok['x-or-empty-body'] === true, `${method} ${template}: the document allows an empty 200 body`);
    return;
  }
  const schema = ok['content']?.['application/json']?.['schema'];
  assert.ok(schema !== undefined, `${method} ${template}: the document describes its 200 JSON answer`);
  const problem = schemaViolation(schema, body, { root: doc, closed: true });
  assert.equal(problem, null, `${method} ${template}: the answer conforms to the published 200 schema`);
}

/**
 * Why `message`, sent by the node on the WebSocket at `socketPath` (`/api/v0/identity`,
 * `/api/v0/miner`), is none of the server messages `x-websockets` documents; null when it is one.
 */
export function socketMessageViolation(doc: J, socketPath: string, message: unknown): string | null {
  const socket = doc['x-websockets']?.[socketPath] as J | undefined;
  if (socket === undefined) return `${socketPath}: not a WebSocket the document describes`;
  const problems = Object.entries(socket['serverMessages'] as J).map(([name, m]) => `${name}: ${schemaViolation((m as J)['schema'], message, { root: doc, closed: true }) ?? 'ok'}`);
  return problems.some((p) => p.endsWith(': ok')) ? null : `${socketPath}: the message is none of the documented server messages (${problems.join('; ')})`;
}
