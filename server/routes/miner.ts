/**
 * Mining routes (spec §4.8; reference node-api.md §2.7, §5.6): block templates for outside
 * miners and their solved headers. Byte arrays travel as base64, as Go's encoding/json writes
 * them; `Header` is also accepted as hex.
 */
import type { AppDeps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';

/** Reference limit on NumHeaders. */
const MAX_NUM_HEADERS = 1_000_000;
/**
 * This node's own cap: each header is a fresh reward transaction and merkle root, built on the
 * event loop (the transactions' part is shared, chain.ts merklePathFor), so the count a request
 * may ask for bounds what one request costs. A miner wanting more asks again.
 */
export const MAX_HEADERS_PER_REQUEST = 100;

export const getBlockTemplateBody = v.object({
  PublicKeyBase58Check: v.publicKey(),
  NumHeaders: v.int(-(2 ** 53), 2 ** 53),
  HeaderVersion: v.optional(v.int(0, 0xffffffff), 0),
});

export const submitBlockBody = v.object({
  PublicKeyBase58Check: v.publicKey(),
  Header: v.string({ maxLength: 400 }),
  ExtraNonce: v.uint64(),
  BlockID: v.string({ maxLength: 200 }),
});

/** chain/templates.ts TemplateStats (the reference's field names and placeholder texts). */
export const blockTemplateStats = out.object({
  TxnCount: out.int('Transactions in the template'),
  FailingTxnError: out.string('Why the first mempool transaction left out failed; "You good" when none did'),
  FailingTxnHash: out.string('Its hash; "Nada" when none'),
  FailingTxnMinutesSinceAdded: out.number(),
  FailingTxnOriginalTimeAdded: out.string('ISO 8601 time'),
});

export const getBlockTemplateResponse = out.named(
  'GetBlockTemplateResponse',
  out.object({
    Headers: out.array(out.base64('An 80-byte block header to solve (nonce fields zero)')),
    ExtraNonces: out.array(out.uint64(), 'The extra nonce of each header, in the same order: send it back with the solved header'),
    BlockID: out.string('The template these headers belong to'),
    DifficultyTargetHex: out.hex('A header hash at or below this target solves the block'),
    LatestBlockTemplateStats: blockTemplateStats,
  }),
);

export const submitBlockResponse = out.named('SubmitBlockResponse', out.object({ IsMainChain: out.boolean(), IsOrphan: out.boolean() }));

export function headerBytes(s: string): Uint8Array {
  if (/^[0-9a-fA-F]{200}$/.test(s)) return new Uint8Array(Buffer.from(s, 'hex'));
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) throw badRequest('SubmitBlock: Problem parsing header: expected base64 (or hex) bytes');
  return new Uint8Array(Buffer.from(s, 'base64'));
}

export function minerRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/get-block-template',
      summary: 'Block template headers paying the given key, with their extra nonces (spec §4.8)',
      body: getBlockTemplateBody,
      response: getBlockTemplateResponse,
      async handle({ body }) {
        if (body.HeaderVersion !== 1) {
          throw badRequest(`GetBlockTemplate: Error: Header version v${body.HeaderVersion} not supported. Use HeaderVersion 1`);
        }
        if (body.NumHeaders >= MAX_NUM_HEADERS) throw badRequest(`GetBlockTemplate: Error: NumHeaders must be less than ${MAX_NUM_HEADERS}`);
        if (body.NumHeaders > MAX_HEADERS_PER_REQUEST) {
          throw badRequest(`GetBlockTemplate: Error: NumHeaders ${body.NumHeaders} is over this node's limit of ${MAX_HEADERS_PER_REQUEST} headers per request`);
        }
        const t = await deps.chain.blockTemplate(body.PublicKeyBase58Check.bytes, Math.max(0, body.NumHeaders));
        return json({
          Headers: t.headers.map((h) => Buffer.from(h).toString('base64')),
          ExtraNonces: t.extraNonces,
          BlockID: t.blockId,
          DifficultyTargetHex: Buffer.from(t.target).toString('hex'),
          LatestBlockTemplateStats: t.stats,
        });
      },
    }),
    route({
      method: 'POST',
      path: '/submit-block',
      summary: 'A solved header for a template; answers whether it joined the main chain (spec §4.8)',
      body: submitBlockBody,
      response: submitBlockResponse,
      async handle({ body }) {
        const r = await deps.chain.submitBlock(body.PublicKeyBase58Check.bytes, headerBytes(body.Header), body.ExtraNonce, body.BlockID);
        return json({ IsMainChain: r.isMainChain, IsOrphan: r.isOrphan });
      },
    }),
  ];
}
