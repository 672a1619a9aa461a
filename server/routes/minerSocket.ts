/**
 * The miner WebSocket (`/api/v0/miner`): JSON text messages `{id, method, params}` answered
 * `{id, result}` or `{id, error}`, and pushes `{method: "template", params}`.
 *
 * - `subscribe {PublicKeyBase58Check, NumHeaders?}`: the reward key; answers the current
 *   template, then every change of tip or mempool pushes a new one.
 * - `submit {Header, ExtraNonce, BlockID, PublicKeyBase58Check?}`: a solved header (base64 or
 *   hex) for a template; the reward key defaults to the subscription's. Answers
 *   `{IsMainChain, IsOrphan}` as submit-block does.
 * - `unsubscribe`: stops the pushes.
 *
 * Field names and checks are the HTTP mining routes' (routes/miner.ts), so a miner can move
 * between polling and the feed without changing what it sends.
 * @module
 */
import type { Logger } from 'pino';
import type { AppDeps } from '../deps.js';
import type { MinerFeed, FeedSocket } from '../chain/minerFeed.js';
import { badRequest, toErrorReply } from '../http/errors.js';
import { parseJsonText } from '../jsonText.js';
import { JsonTooDeepError } from '../jsonDepth.js';
import { stringifyJson } from '../http/router.js';
import { out, v } from '../schema.js';
import type { WebSocketDoc } from '../http/openapi.js';
import { blockTemplateStats, headerBytes, submitBlockResponse } from './miner.js';

/** Largest NumHeaders on the feed: each header is built again on every push. */
const MAX_FEED_HEADERS = 64;

const subscribeParams = v.object({
  PublicKeyBase58Check: v.publicKey(),
  NumHeaders: v.optional(v.int(1, MAX_FEED_HEADERS), 1),
});

const submitParams = v.object({
  PublicKeyBase58Check: v.optional(v.publicKey()),
  Header: v.string({ maxLength: 400 }),
  ExtraNonce: v.uint64(),
  BlockID: v.string({ maxLength: 200 }),
});

type Id = string | number | null;

// --- the protocol as the OpenAPI document describes it (x-websockets) -------------------------

const messageId = out.nullable(out.anyOf([out.string(), out.number()], 'Echoed in the answer; null when the message had none (or it was unreadable)'));
const clientId = { json: { ...messageId.json, description: 'Any string or number; echoed in the answer' } };

/** chain/minerFeed.ts templateJson: what subscribe answers and every push carries. */
export const minerTemplate = out.named(
  'MinerTemplate',
  out.object({
    Headers: out.array(out.base64('An 80-byte block header to solve')),
    ExtraNonces: out.array(out.int(), 'The extra nonce of each header, in the same order'),
    BlockID: out.string(),
    DifficultyTargetHex: out.hex(),
    Height: out.int('Height of the block the template builds'),
    LatestBlockTemplateStats: blockTemplateStats,
  }),
);

const request = (method: string, params: { json: Record<string, unknown> } | null): { json: Record<string, unknown> } => ({
  json: {
    type: 'object',
    properties: { id: clientId.json, method: { const: method }, ...(params === null ? {} : { params: params.json }) },
    required: params === null ? ['method'] : ['method', 'params'],
  },
});
const result = (name: string, schema: { json: Record<string, unknown> }) => out.named(name, out.object({ id: messageId, result: schema }));

/** The miner WebSocket for the OpenAPI document (x-websockets); its message schemas are the parsers' own. */
export const minerSocketDoc: WebSocketDoc = {
  path: '/miner',
  summary: 'Miner feed: block templates pushed on every change of tip or mempool, solved headers back',
  description:
    'JSON text messages. A client sends {id, method, params} and gets {id, result} or {id, error, status} (status as the HTTP routes would answer); ' +
    'after subscribe, the node pushes {method: "template", params} whenever the tip or the mempool changes. Field names and checks are those of ' +
    'get-block-template and submit-block. Binary frames, more than 64 messages in flight, or a rate-limited message get an error answer; ' +
    'connections per client address are capped (--max-sockets-per-address, 429 on upgrade).',
  tags: ['Mining'],
  rateLimitClass: 'miner',
  maxMessageBytes: 64 * 1024,
  clientMessages: {
    subscribe: { summary: 'Subscribe with the reward key; answers the current template', schema: out.named('MinerSubscribeMessage', request('subscribe', subscribeParams)).json },
    submit: { summary: 'A solved header of a template (base64 or hex); the reward key defaults to the subscription’s', schema: out.named('MinerSubmitMessage', request('submit', submitParams)).json },
    unsubscribe: { summary: 'Stop the pushes', schema: out.named('MinerUnsubscribeMessage', request('unsubscribe', null)).json },
  },
  serverMessages: {
    subscribed: { summary: 'Answer to subscribe', schema: result('MinerSubscribeResult', minerTemplate).json },
    submitted: { summary: 'Answer to submit, as submit-block answers', schema: result('MinerSubmitResult', submitBlockResponse).json },
    unsubscribed: { summary: 'Answer to unsubscribe: whether a subscription was stopped', schema: result('MinerUnsubscribeResult', out.object({ Unsubscribed: out.boolean() })).json },
    error: {
      summary: 'A refused or failed message',
      schema: out.named('MinerSocketError', out.object({ id: messageId, error: out.string(), status: out.int('The HTTP status the routes would answer') })).json,
    },
    template: {
      summary: 'A new template for the subscription (pushed)',
      schema: out.named('MinerTemplatePush', out.object({ method: out.literal('template'), params: minerTemplate })).json,
    },
  },
};

function readId(id: unknown): Id {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Answers one message of a miner socket. */
export async function answerMinerMessage(deps: AppDeps, feed: MinerFeed, text: string, socket: FeedSocket, log: Logger): Promise<string> {
  let id: Id = null;
  try {
    let msg: unknown;
    try {
      msg = parseJsonText(text);
    } catch (err) {
      throw badRequest(err instanceof JsonTooDeepError ? `message refused: ${err.message}` : 'message is not valid JSON');
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) throw badRequest('message must be a JSON object {id, method, params}');
    const { id: rawId, method, params = {} } = msg as Record<string, unknown>;
    id = readId(rawId);
    if (typeof method !== 'string') throw badRequest('"method" must be a string: subscribe, submit or unsubscribe');
    const ctx = { network: deps.config.network };
    switch (method) {
      case 'subscribe': {
        const p = subscribeParams.parse(params, 'params', ctx);
        const template = await feed.subscribe(socket, { rewardPk33: p.PublicKeyBase58Check.bytes, numHeaders: p.NumHeaders });
        return stringifyJson({ id, result: template });
      }
      case 'submit': {
        const p = submitParams.parse(params, 'params', ctx);
        const reward = p.PublicKeyBase58Check?.bytes ?? feed.subscription(socket)?.rewardPk33;
        if (!reward) throw badRequest('submit: give PublicKeyBase58Check, or subscribe first');
        const r = await deps.chain.submitBlock(reward, headerBytes(p.Header), p.ExtraNonce, p.BlockID);
        return JSON.stringify({ id, result: { IsMainChain: r.isMainChain, IsOrphan: r.isOrphan } });
      }
      case 'unsubscribe':
        return JSON.stringify({ id, result: { Unsubscribed: feed.unsubscribe(socket) } });
      default:
        throw badRequest(`unknown method ${JSON.stringify(method.slice(0, 40))}: expected subscribe, submit or unsubscribe`);
    }
  } catch (err) {
    const e = toErrorReply(err, log);
    return JSON.stringify({ id, error: e.message, status: e.status });
  }
}

/** Answer to a message refused before it was read (too many in flight, binary frame, rate limited). */
export function refusedMinerMessage(text: string | null, reason: string, status = 503): string {
  let id: Id = null;
  try {
    id = text === null ? null : readId((parseJsonText(text) as Record<string, unknown> | null)?.['id']);
  } catch {
    // unreadable: answer without an id
  }
  return JSON.stringify({ id, error: reason, status });
}
