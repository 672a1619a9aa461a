/**
 * What a client generator makes of GET /api/v0/openapi.json: openapi-typescript (a
 * devDependency) generates types from the live document into a temporary directory; a small
 * client typed by them must type-check (TypeScript's `tsc --noEmit`, strict), no operation's
 * 200 JSON answer may come out `unknown`, deliberately wrong uses must fail to compile (the
 * types are precise, not `any`), and the client then runs against the node.
 *
 * openapi-typescript builds its output with the TypeScript 5 compiler API; this repository's
 * TypeScript is 7, so it runs in a child process with test/fixtures/openapiTypescriptHook.mjs,
 * which hands it the `typescript-5` devDependency.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { keyPair, startChainNode, type ChainNode } from '../helpers/chainNode.js';
import { REPO_ROOT } from '../helpers/nodeProcess.js';

const OPENAPI_TYPESCRIPT = join(REPO_ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
const HOOK = join(REPO_ROOT, 'test', 'fixtures', 'openapiTypescriptHook.mjs');
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The client: typed by the generated `paths` and `components`, nothing else. */
const CLIENT = `
import type { components, paths } from './api.js';

type Method = 'get' | 'post';
/** The 200 JSON answer of an operation. */
export type Json200<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer R } } } } ? R : never;
/** The JSON request body of a POST operation. */
export type JsonBody<P extends keyof paths> = paths[P]['post'] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** Operations whose 200 JSON answer a client would get as \`unknown\`: there must be none. */
type Unknown200 = { [P in keyof paths]: { [M in Method]: unknown extends Json200<P, M> ? \`\${M} \${P & string}\` : never }[Method] }[keyof paths];
export const noUnknownAnswers: [Unknown200] extends [never] ? true : { unknownAnswers: Unknown200 } = true;

async function post<P extends keyof paths>(base: string, path: P, body: JsonBody<P>): Promise<Json200<P, 'post'>> {
  const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (r.status !== 200) throw new Error(\`\${String(path)}: \${r.status} \${await r.text()}\`);
  return (await r.json()) as Json200<P, 'post'>;
}

async function get<P extends keyof paths>(base: string, path: P): Promise<Json200<P, 'get'>> {
  const r = await fetch(base + path);
  if (r.status !== 200) throw new Error(\`\${String(path)}: \${r.status} \${await r.text()}\`);
  return (await r.json()) as Json200<P, 'get'>;
}

export type Profile = components['schemas']['ProfileEntryResponse'];
export type Post = components['schemas']['PostEntryResponse'];

export async function tipAndDiamond(base: string): Promise<{ height: number; levelOneNanos: number | undefined }> {
  const s = await post(base, '/api/v0/get-app-state', {});
  return { height: s.BlockHeight, levelOneNanos: s.DiamondLevelMap['1'] };
}

export async function usernames(base: string, keys: string[]): Promise<Array<string | null>> {
  const r = await post(base, '/api/v0/get-users-stateless', { PublicKeysBase58Check: keys });
  return r.UserList.map((u) => u.ProfileEntryResponse?.Username ?? null);
}

export async function txnFound(base: string, hashHex: string): Promise<boolean> {
  return (await post(base, '/api/v0/get-txn', { TxnHashHex: hashHex })).TxnFound;
}

export async function processCount(base: string): Promise<number> {
  return (await get(base, '/api/v0/node-info')).Processes.length;
}

export async function unsignedTransfer(base: string, from: string, to: string): Promise<{ hex: string; feeNanos: number; outputs: number }> {
  const r = await post(base, '/api/v0/send-deso', { SenderPublicKeyBase58Check: from, RecipientPublicKeyOrUsername: to, AmountNanos: 1, MinFeeRateNanosPerKB: 1000 });
  return { hex: r.TransactionHex, feeNanos: r.FeeNanos, outputs: r.Transaction.TxOutputs.length };
}

export function posterName(post: Post): string | undefined {
  return post.ProfileEntryResponse?.Username;
}

// The types are precise: each line below must fail to compile (and never runs).
// @ts-expect-error Username is a string
export const wrongUsername = (p: Profile): number => p.Username;
// @ts-expect-error TxnFound is a boolean
export const wrongFound = (r: Json200<'/api/v0/get-txn', 'post'>): string => r.TxnFound;
// @ts-expect-error get-single-post needs PostHashHex
export const missingField = (base: string) => post(base, '/api/v0/get-single-post', {});
// @ts-expect-error OperationType is ASK or BID
export const wrongSide = (): components['schemas']['DAOCoinLimitOrderEntryResponse']['OperationType'] => 'BUY';
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
    types: ['node'],
  },
  files: ['api.d.ts', 'client.ts'],
};

describe('a typed client generated from GET /api/v0/openapi.json (openapi-typescript)', () => {
  let node: ChainNode;
  let dir: string;

  before(async () => {
    node = await startChainNode({ store: 'memory' });
    dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    const r = await fetch(`${node.url}/api/v0/openapi.json`);
    assert.equal(r.status, 200);
    writeFileSync(join(dir, 'openapi.json'), await r.text());
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  });
  after(async () => {
    await node?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('generates the types: one per named schema, every operation', () => {
    // --default-non-nullable false: a request field with a default stays optional.
    const gen = spawnSync(process.execPath, ['--import', pathToFileURL(HOOK).href, OPENAPI_TYPESCRIPT, 'openapi.json', '-o', 'api.d.ts', '--default-non-nullable', 'false'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(gen.status, 0, `openapi-typescript: ${gen.stderr}`);
    const types = readFileSync(join(dir, 'api.d.ts'), 'utf8');
    for (const name of ['ProfileEntryResponse', 'PostEntryResponse', 'Transaction', 'IdentityRequestFrame', 'MinerTemplatePush']) {
      assert.match(types, new RegExp(`\\b${name}: \\{`), `components.schemas.${name} is a type`);
    }
    assert.match(types, /"\/api\/v0\/get-single-profile": \{/, 'paths are typed');
  });

  it('type-checks a client against them: no answer unknown, wrong uses refused', () => {
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    const tsc = spawnSync(process.execPath, [TSC, '--noEmit', '-p', dir], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
    assert.equal(tsc.status, 0, `tsc --noEmit: ${tsc.stdout}${tsc.stderr}`);
  });

  it('and the client runs against the node', async () => {
    const client = (await import(pathToFileURL(join(dir, 'client.ts')).href)) as {
      tipAndDiamond(base: string): Promise<{ height: number; levelOneNanos: number | undefined }>;
      usernames(base: string, keys: string[]): Promise<Array<string | null>>;
      txnFound(base: string, hashHex: string): Promise<boolean>;
      processCount(base: string): Promise<number>;
      unsignedTransfer(base: string, from: string, to: string): Promise<{ hex: string; feeNanos: number; outputs: number }>;
    };
    const { height, levelOneNanos } = await client.tipAndDiamond(node.url);
    assert.ok(height >= 0, 'the tip height');
    assert.equal(levelOneNanos, 50_000, 'a level-1 diamond sends 50,000 nanos');
    assert.deepEqual(await client.usernames(node.url, [node.miner.pk]), [null], 'the miner has no profile');
    assert.equal(await client.txnFound(node.url, '00'.repeat(32)), false);
    assert.equal(await client.processCount(node.url), 1);
    await node.mineBlock();
    const t = await client.unsignedTransfer(node.url, node.miner.pk, keyPair().pk);
    assert.match(t.hex, /^[0-9a-f]+$/);
    assert.ok(t.feeNanos > 0, 'a fee');
    assert.equal(t.outputs, 1, 'one output');
  });
});
