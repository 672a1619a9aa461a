/**
 * Access-group read routes (spec §4.2, reference node-api.md §2.1), all POST and public. They
 * read the chain's pending view (tip + mempool), as the reference reads its mempool-augmented
 * view, so a group is visible as soon as its transaction is accepted. Shaping and the base-group
 * rules live in social/accessGroups.ts.
 *
 * Errors keep the reference's handler prefixes (`GetAccessGroupInfo: …`); a key that fails to
 * decode is never echoed (it could be a private key pasted by mistake).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { groupId, type GroupId } from '../chain/state/accessGroups.js';
import { badRequest, notFound } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { accessGroupEntrySchema, accessGroupMemberEntrySchema, profileEntryMapSchema } from './responses.js';
import { encodePublicKey } from '../keys/index.js';
import {
  accessGroupInfo,
  accessGroupMemberInfo,
  bulkAccessGroupEntries,
  checkPartyAccessGroups,
  memberGroupResponses,
  memberPage,
  ownedGroupResponses,
} from '../social/accessGroups.js';
import { profileEntryMap } from '../social/profileEntry.js';
import { decodeKeyOr400 } from './requestKeys.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const pkField = v.optional(v.string({ maxLength: 200 }), '');
const nameField = v.optional(v.string({ maxLength: 1000 }), '');
const MAX_INT = Number.MAX_SAFE_INTEGER;

const userBody = v.object({ PublicKeyBase58Check: pkField });
const partyBody = v.object({
  SenderPublicKeyBase58Check: pkField,
  SenderAccessGroupKeyName: nameField,
  RecipientPublicKeyBase58Check: pkField,
  RecipientAccessGroupKeyName: nameField,
});
const groupBody = v.object({ AccessGroupOwnerPublicKeyBase58Check: pkField, AccessGroupKeyName: nameField });
const memberInfoBody = v.object({
  AccessGroupOwnerPublicKeyBase58Check: pkField,
  AccessGroupKeyName: nameField,
  AccessGroupMemberPublicKeyBase58Check: pkField,
});
const membersPageBody = v.object({
  AccessGroupOwnerPublicKeyBase58Check: pkField,
  AccessGroupKeyName: nameField,
  StartingAccessGroupMemberPublicKeyBase58Check: pkField,
  MaxMembersToFetch: v.optional(v.int(-MAX_INT, MAX_INT), 0),
});
const bulkBody = v.object({
  GroupOwnerAndGroupKeyNamePairs: v.optional(
    v.array(v.object({ GroupOwnerPublicKeyBase58Check: pkField, GroupKeyName: nameField }), 1000),
    [],
  ),
});

const groupList = out.array(accessGroupEntrySchema);
export const ownedAndMemberGroupsResponse = out.named(
  'UserAccessGroupsResponse',
  out.object({
    AccessGroupsOwned: out.optional(out.describe(groupList, 'Groups the key owns, base group first (not in …-member-only)')),
    AccessGroupsMember: out.optional(out.describe(groupList, 'Groups the key is a member of, membership filled (not in …-owned)')),
  }),
);

export const checkPartyAccessGroupsResponse = out.named(
  'CheckPartyAccessGroupsResponse',
  out.object({
    SenderPublicKeyBase58Check: out.publicKey(),
    SenderAccessGroupPublicKeyBase58Check: out.publicKey(),
    SenderAccessGroupKeyName: out.string(),
    IsSenderAccessGroupKey: out.boolean('false: the group is missing, the base key stands in'),
    RecipientPublicKeyBase58Check: out.publicKey(),
    RecipientAccessGroupPublicKeyBase58Check: out.publicKey(),
    RecipientAccessGroupKeyName: out.string(),
    IsRecipientAccessGroupKey: out.boolean(),
  }),
);

export const paginatedAccessGroupMembersResponse = out.object({
  AccessGroupMembersBase58Check: out.array(out.publicKey()),
  PublicKeyToProfileEntryResponse: profileEntryMapSchema,
});

export const bulkAccessGroupEntriesResponse = out.object({
  AccessGroupEntries: out.array(accessGroupEntrySchema),
  PairsNotFound: out.nullable(out.array(out.object({ GroupOwnerPublicKeyBase58Check: out.string(), GroupKeyName: out.string() }), 'The pairs as sent; null when all were found')),
});

/**
 * A group named by owner key and raw key name: `""` (or all zero bytes) is the base group; other
 * names must have 1..32 bytes (core ValidateAccessGroupPublicKeyAndName).
 */
function namedGroup(deps: AppDeps, prefix: string, ownerField: string, owner: string, name: string): GroupId {
  const ownerKey = decodeKeyOr400(owner, deps.config.network, ownerField, `${prefix}: Problem decoding owner base58 public key`);
  const raw = utf8(name);
  if (raw.length > 32) {
    throw badRequest(
      `${prefix}: Problem validating access group owner public key and access group key name ${name}: ValidateAccessGroupPublicKeyAndName: Too many characters in key name: max = 32; provided = ${raw.length}: RuleErrorAccessGroupKeyNameTooLong`,
    );
  }
  return groupId(ownerKey, raw);
}

export function accessGroupReadRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const view = () => deps.chain.pendingView();

  const userGroupsRoute = (path: string, prefix: string, owned: boolean, member: boolean, summary: string): Route =>
    route({
      method: 'POST',
      path,
      summary,
      body: userBody,
      response: ownedAndMemberGroupsResponse,
      async handle({ body }) {
        const pk = decodeKeyOr400(body.PublicKeyBase58Check, deps.config.network, 'PublicKeyBase58Check', `${prefix}: Problem decoding ownerbase58 public key`);
        const state = await view();
        const out: Record<string, unknown> = {};
        if (owned) out['AccessGroupsOwned'] = await ownedGroupResponses(state, pk, network);
        if (member) out['AccessGroupsMember'] = await memberGroupResponses(state, pk, network);
        return json(out);
      },
    });

  return [
    userGroupsRoute('/get-all-user-access-groups', 'GetAllUserAccessGroups', true, true, 'Access groups a key owns (base group included) and is a member of (spec §4.2)'),
    userGroupsRoute('/get-all-user-access-groups-owned', 'GetAllUserAccessGroupsOwned', true, false, 'Access groups a key owns, base group included (spec §4.2)'),
    userGroupsRoute('/get-all-user-access-groups-member-only', 'GetAllUserAccessGroupsMemberOnly', false, true, 'Access groups a key is a member of, membership filled (spec §4.2)'),

    route({
      method: 'POST',
      path: '/check-party-access-groups',
      summary: 'The access keys a DM between two parties should use; the base key when a requested group is missing (spec §4.2)',
      body: partyBody,
      response: checkPartyAccessGroupsResponse,
      async handle({ body }) {
        const p = 'CheckPartyAccessGroups';
        const sender = decodeKeyOr400(body.SenderPublicKeyBase58Check, deps.config.network, 'SenderPublicKeyBase58Check', `${p}: Problem decoding sender public key`);
        const recipient = decodeKeyOr400(body.RecipientPublicKeyBase58Check, deps.config.network, 'RecipientPublicKeyBase58Check', `${p}: Problem decoding recipient public key`);
        return json(
          await checkPartyAccessGroups(
            await view(),
            { owner: sender, keyName: body.SenderAccessGroupKeyName },
            { owner: recipient, keyName: body.RecipientAccessGroupKeyName },
            network,
          ),
        );
      },
    }),

    route({
      method: 'POST',
      path: '/get-access-group-info',
      summary: 'One access group; the empty name is the owner’s base group (spec §4.2)',
      body: groupBody,
      response: accessGroupEntrySchema,
      errors: { 404: 'No access group of that owner and name' },
      async handle({ body }) {
        const p = 'GetAccessGroupInfo';
        const g = namedGroup(deps, p, 'AccessGroupOwnerPublicKeyBase58Check', body.AccessGroupOwnerPublicKeyBase58Check, body.AccessGroupKeyName);
        const entry = await accessGroupInfo(await view(), g.owner, g.keyName, network);
        if (entry === undefined) {
          throw notFound(`${p}: Access group not found for public key ${encodePublicKey(g.owner, network)} and access group key name ${body.AccessGroupKeyName}`);
        }
        return json(entry);
      },
    }),

    route({
      method: 'POST',
      path: '/get-access-group-member-info',
      summary: 'One membership of an access group; null when the key is no member (spec §4.2)',
      body: memberInfoBody,
      response: out.nullable(accessGroupMemberEntrySchema),
      async handle({ body }) {
        const p = 'GetAccessGroupMemberInfo';
        const g = namedGroup(deps, p, 'AccessGroupOwnerPublicKeyBase58Check', body.AccessGroupOwnerPublicKeyBase58Check, body.AccessGroupKeyName);
        const member = decodeKeyOr400(body.AccessGroupMemberPublicKeyBase58Check, deps.config.network, 'AccessGroupMemberPublicKeyBase58Check', `${p}: Problem validating access group member public key`);
        return json(await accessGroupMemberInfo(await view(), g.owner, g.keyName, member, network));
      },
    }),

    route({
      method: 'POST',
      path: '/get-paginated-access-group-members',
      summary: 'Member keys of an access group by key order, paged, with their profiles (spec §4.2)',
      body: membersPageBody,
      response: paginatedAccessGroupMembersResponse,
      async handle({ body }) {
        const p = 'GetPaginatedAccessGroupMembers';
        if (body.MaxMembersToFetch < 1) throw badRequest(`${p}: MaxMembersToFetch cannot be less than 1: ${body.MaxMembersToFetch}`);
        const g = namedGroup(deps, p, 'AccessGroupOwnerPublicKeyBase58Check', body.AccessGroupOwnerPublicKeyBase58Check, body.AccessGroupKeyName);
        const start = body.StartingAccessGroupMemberPublicKeyBase58Check;
        const after =
          start === ''
            ? undefined
            : decodeKeyOr400(start, deps.config.network, 'StartingAccessGroupMemberPublicKeyBase58Check', `${p}: Problem decoding pagination starting point base58 public key`);
        const state = await view();
        const members = await memberPage(state, g, after, body.MaxMembersToFetch);
        return json({
          AccessGroupMembersBase58Check: members.map((m) => encodePublicKey(m, network)),
          PublicKeyToProfileEntryResponse: await profileEntryMap(deps, state, members),
        });
      },
    }),

    route({
      method: 'POST',
      path: '/get-bulk-access-group-entries',
      summary: 'Many access groups by (owner, name); the missing ones in PairsNotFound (spec §4.2)',
      body: bulkBody,
      response: bulkAccessGroupEntriesResponse,
      async handle({ body }) {
        const p = 'GetBulkAccessGroupEntries';
        const pairs = body.GroupOwnerAndGroupKeyNamePairs.map((sent, i) => ({
          sent,
          owner: decodeKeyOr400(sent.GroupOwnerPublicKeyBase58Check, deps.config.network, `GroupOwnerAndGroupKeyNamePairs[${i}].GroupOwnerPublicKeyBase58Check`, `${p}: Problem decoding group owner public key`),
        }));
        return json(await bulkAccessGroupEntries(await view(), pairs, network));
      },
    }),
  ];
}
