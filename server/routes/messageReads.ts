/**
 * Message read routes (spec §4.3, reference node-api.md §2.2), all POST and public: thread
 * lists (`MessageThreads`), a DM thread page (`ThreadMessages`) and a group-chat page
 * (`GroupChatMessages`), each with `PublicKeyToProfileEntryResponse`. They read the chain's
 * pending view (tip + mempool), as the reference reads its mempool-augmented view, so a sent
 * message shows as soon as its transaction is accepted. Paging and shaping: social/messages.ts.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { groupId, type GroupId } from '../chain/state/accessGroups.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { newMessageEntrySchema, profileEntryMapSchema } from './responses.js';
import { encodePublicKey } from '../keys/index.js';
import { dmThreadPage, groupChatPage, newMessageEntryResponse, parseStartTimestamp, partyOwners, threadHeads } from '../social/messages.js';
import { profileEntryMap } from '../social/profileEntry.js';
import { cachedRoute } from '../http/readCache.js';
import { keyNameProblem } from './accessGroups.js';
import { decodeKeyOr400 } from './requestKeys.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const pkField = v.optional(v.string({ maxLength: 200 }), '');
const nameField = v.optional(v.string({ maxLength: 1000 }), '');
const MAX_INT = Number.MAX_SAFE_INTEGER;
const pageFields = {
  StartTimestampString: v.optional(v.string({ maxLength: 100 }), ''),
  StartTimestamp: v.optional(v.uint64(), 0n),
  MaxMessagesToFetch: v.optional(v.int(-MAX_INT, MAX_INT), 0),
};

const userBody = v.object({ UserPublicKeyBase58Check: pkField });
const dmPageBody = v.object({
  UserGroupOwnerPublicKeyBase58Check: pkField,
  UserGroupKeyName: nameField,
  PartyGroupOwnerPublicKeyBase58Check: pkField,
  PartyGroupKeyName: nameField,
  ...pageFields,
});
const groupChatPageBody = v.object({ UserPublicKeyBase58Check: pkField, AccessGroupKeyName: nameField, ...pageFields });

const messages = out.array(newMessageEntrySchema);
export const messageThreadsResponse = out.object({ MessageThreads: messages, PublicKeyToProfileEntryResponse: profileEntryMapSchema });
export const dmThreadPageResponse = out.object({ ThreadMessages: messages, PublicKeyToProfileEntryResponse: profileEntryMapSchema });
export const groupChatPageResponse = out.object({ GroupChatMessages: messages, PublicKeyToProfileEntryResponse: profileEntryMapSchema });

export function messageReadRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;

  /** The reference helper's rule: `""` is the base group; other names have 1..32 bytes. */
  const group = (prefix: string, side: string, field: string, pk: string, name: string): GroupId => {
    const owner = decodeKeyOr400(pk, deps.config.network, field, `${prefix}: ${`Problem validating ${side} group owner public key and access group name`}`);
    const raw = utf8(name);
    const problem = raw.length === 0 ? null : keyNameProblem(raw);
    if (problem !== null) throw badRequest(`${prefix}: Problem validating ${side} group owner public key and access group name ${name}: ${problem}`);
    return groupId(owner, raw);
  };

  const start = (prefix: string, s: string, n: bigint): bigint => {
    const t = parseStartTimestamp(s, n);
    if (typeof t === 'string') throw badRequest(`${prefix}: Error parsing StartTimestampString: ${t}`);
    return t;
  };

  const threadsRoute = (path: string, prefix: string, kinds: { dms: boolean; groupChats: boolean }, summary: string): Route =>
    route({
      method: 'POST',
      path,
      summary,
      body: userBody,
      response: messageThreadsResponse,
      async handle({ body }) {
        const user = decodeKeyOr400(body.UserPublicKeyBase58Check, deps.config.network, 'UserPublicKeyBase58Check', `${prefix}: Problem decoding owner base58 public key`);
        const state = await deps.chain.pendingView();
        const heads = await threadHeads(state, user, kinds);
        return json({
          MessageThreads: heads.map((h) => newMessageEntryResponse(h.message, h.chatType, network)),
          PublicKeyToProfileEntryResponse: await profileEntryMap(deps, state, partyOwners(heads.map((h) => h.message))),
        });
      },
    });

  return [
    threadsRoute('/get-user-dm-threads-ordered-by-timestamp', 'GetUserDmThreadsOrderedByTimestamp', { dms: true, groupChats: false }, 'The latest message of each DM thread of a user, newest first (spec §4.3)'),
    threadsRoute('/get-user-group-chat-threads-ordered-by-timestamp', 'GetUserGroupChatThreadsOrderedByTimestamp', { dms: false, groupChats: true }, 'The latest message of each group chat of a user, newest first (spec §4.3)'),
    threadsRoute('/get-all-user-message-threads', 'GetAllUserMessageThreads', { dms: true, groupChats: true }, 'The latest message of every DM thread and group chat of a user, newest first (spec §4.3)'),

    cachedRoute(deps, {
      method: 'POST',
      path: '/get-paginated-messages-for-dm-thread',
      summary: 'A page of one DM thread: messages older than the start point, newest first (spec §4.3)',
      body: dmPageBody,
      response: dmThreadPageResponse,
      async handle({ body }, chainState) {
        const p = 'GetPaginatedMessagesForDmThread';
        if (body.MaxMessagesToFetch < 1) throw badRequest(`${p}: MaxMessagesToFetch cannot be less than 1: ${body.MaxMessagesToFetch}`);
        const user = group(p, 'user', 'UserGroupOwnerPublicKeyBase58Check', body.UserGroupOwnerPublicKeyBase58Check, body.UserGroupKeyName);
        const party = group(p, 'party', 'PartyGroupOwnerPublicKeyBase58Check', body.PartyGroupOwnerPublicKeyBase58Check, body.PartyGroupKeyName);
        if (Buffer.compare(user.owner, party.owner) === 0) {
          const pk = encodePublicKey(user.owner, network);
          throw badRequest(`${p}: Dm sender and recipient cannot be the same ${pk}: ${pk}`);
        }
        const before = start(p, body.StartTimestampString, body.StartTimestamp);
        const state = await chainState.pending();
        const messages = await dmThreadPage(state, user, party, { before, limit: body.MaxMessagesToFetch });
        return json({
          ThreadMessages: messages.map((m) => newMessageEntryResponse(m, 'DM', network)),
          PublicKeyToProfileEntryResponse: await profileEntryMap(deps, state, [user.owner, party.owner]),
        });
      },
    }),

    cachedRoute(deps, {
      method: 'POST',
      path: '/get-paginated-messages-for-group-chat-thread',
      summary: 'A page of one group chat (owner key + group name): messages older than the start point, newest first (spec §4.3)',
      body: groupChatPageBody,
      response: groupChatPageResponse,
      async handle({ body }, chainState) {
        const p = 'GetPaginatedMessagesForGroupChatThread';
        if (body.MaxMessagesToFetch < 1) throw badRequest(`${p}: MaxMessagesToFetch cannot be less than 1: ${body.MaxMessagesToFetch}`);
        const g = group(p, 'user', 'UserPublicKeyBase58Check', body.UserPublicKeyBase58Check, body.AccessGroupKeyName);
        const before = start(p, body.StartTimestampString, body.StartTimestamp);
        const state = await chainState.pending();
        const messages = await groupChatPage(state, g, { before, limit: body.MaxMessagesToFetch });
        return json({
          GroupChatMessages: messages.map((m) => newMessageEntryResponse(m, 'GroupChat', network)),
          PublicKeyToProfileEntryResponse: await profileEntryMap(deps, state, partyOwners(messages)),
        });
      },
    }),
  ];
}
