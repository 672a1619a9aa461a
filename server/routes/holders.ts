/**
 * Routes of this area (reference social-graph.md §7–8; backend routes/user.go): coin holders
 * (get-hodlers-for-public-key, is-hodling-public-key) and the username ⇄ public key lookups,
 * which answer a bare JSON string as the reference does. All read the pending state (tip +
 * mempool), as the reference reads its mempool view.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { balanceEntrySchema } from './responses.js';
import { hodlersForPublicKey, isHodling } from '../social/holders.js';
import { publicKeyForUsernameText, usernameForPublicKey } from '../social/usernames.js';
import { decodeKeyOr400 } from './requestKeys.js';

const KEY = { maxLength: 200 } as const;

export const getHodlersBody = v.object({
  PublicKeyBase58Check: v.optional(v.string(KEY), ''),
  /** Used when PublicKeyBase58Check is empty. */
  Username: v.optional(v.string({ maxLength: 100 }), ''),
  /** The listed party of the previous page's last entry. */
  LastPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  /** Page size; 0 answers an empty page (reference). */
  NumToFetch: v.optional(v.uint64(), 0n),
  IsDAOCoin: v.optional(v.boolean(), false),
  /** False: who holds K's coin; true: whose coins K holds. */
  FetchHodlings: v.optional(v.boolean(), false),
  /** "" or "coin_balance" (balance descending) or "wealth". */
  SortType: v.optional(v.string({ maxLength: 100 }), ''),
  /** Everything, ignoring NumToFetch and the cursor. */
  FetchAll: v.optional(v.boolean(), false),
});

export const isHodlingBody = v.object({
  /** The holder. */
  PublicKeyBase58Check: v.optional(v.string(KEY), ''),
  /** The creator whose coin. */
  IsHodlingPublicKeyBase58Check: v.optional(v.string(KEY), ''),
  IsDAOCoin: v.optional(v.boolean(), false),
});

export const getHodlersResponse = out.object({
  Hodlers: out.array(balanceEntrySchema, 'The holdings listed, each with the other side’s profile when it has one'),
  LastPublicKeyBase58Check: out.string('The last listed party: send it back for the next page; "" when the page is empty'),
});
export const isHodlingResponse = out.object({ IsHodling: out.boolean(), BalanceEntry: out.nullable(balanceEntrySchema) });

/** A bare JSON string, as the lookups answer (documented for the OpenAPI document). */
const BARE_STRING = { description: 'The value as a bare JSON string', schema: { type: 'string' } } as const;

export function holderRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/get-hodlers-for-public-key',
      summary: 'Holders of a creator coin or DAO coin (or, FetchHodlings, what a key holds): its own holding first, then by balance; paged by the last key',
      body: getHodlersBody,
      response: getHodlersResponse,
      errors: { 404: 'No profile has that username' },
      async handle({ body }) {
        const publicKey =
          body.PublicKeyBase58Check === '' ? null : decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'GetHodlersForPublicKey: Problem decoding user public key');
        const state = await deps.chain.pendingView();
        return json(
          await hodlersForPublicKey(deps, state, {
            publicKey,
            username: body.Username,
            isDAOCoin: body.IsDAOCoin,
            fetchHodlings: body.FetchHodlings,
            sortType: body.SortType,
            lastPublicKeyBase58Check: body.LastPublicKeyBase58Check,
            numToFetch: body.NumToFetch,
            fetchAll: body.FetchAll,
          }),
        );
      },
    }),
    route({
      method: 'POST',
      path: '/is-hodling-public-key',
      summary: "Whether a key holds any of a creator's creator coin (or DAO coin), with its balance entry",
      body: isHodlingBody,
      response: isHodlingResponse,
      async handle({ body }) {
        const holder = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'IsHodlingPublicKey: Problem decoding user public key');
        const creator = decodeKeyOr400(body.IsHodlingPublicKeyBase58Check, network, 'IsHodlingPublicKeyBase58Check', 'IsHodlingPublicKey: Problem decoding public key to check');
        return json(await isHodling(deps, await deps.chain.pendingView(), holder, creator, body.IsDAOCoin));
      },
    }),
    route({
      method: 'GET',
      path: '/get-public-key-for-user-name/:Username',
      summary: 'The public key of the profile with this username (any case), as a bare JSON string',
      responses: { 200: BARE_STRING },
      async handle({ params }) {
        return json(await publicKeyForUsernameText(await deps.chain.pendingView(), params['Username'] ?? '', network));
      },
    }),
    route({
      method: 'GET',
      path: '/get-user-name-for-public-key/:PublicKeyBase58Check',
      summary: "The username of this public key's profile, as a bare JSON string",
      responses: { 200: BARE_STRING },
      async handle({ params }) {
        const given = params['PublicKeyBase58Check'] ?? '';
        const pk = decodeKeyOr400(given, network, 'PublicKeyBase58Check', 'GetUsernameForPublicKey: Problem decoding public key');
        return json(await usernameForPublicKey(await deps.chain.pendingView(), pk, given));
      },
    }),
  ];
}
