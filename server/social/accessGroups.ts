/**
 * The access-group reads of spec §4.2 (reference node-api.md §2.1) as plain functions over a
 * state reader: response shaping (AccessGroupEntryResponse, AccessGroupMemberEntryResponse),
 * the base-group rules, party checks, member pages and bulk lookups. Routes validate the
 * request and call these; they read through the chain's pending view (tip + mempool), as the
 * reference reads its mempool-augmented view.
 *
 * Choices where spec and reference differ (the spec wins):
 * - The empty key name names the owner's base group everywhere (the reference rejects `""` in
 *   get-access-group-info); its access key is the owner key and it renders as `""`.
 * - Arrays are arrays, never null or omitted (`AccessGroupsMember: []`), except `PairsNotFound`,
 *   which the spec makes null when every pair was found.
 * - check-party-access-groups answers the party's base key (and name `""`) when the requested
 *   group does not exist, with `Is…AccessGroupKey: false`.
 * - `EncryptedKey` is the stored bytes as text: clients send it as a hex string, the node keeps
 *   that string's bytes, so the answer is the same hex string.
 * @module
 */
import {
  getAccessGroup,
  getAccessGroupMember,
  groupId,
  accessGroupMembersPage,
  memberAccessGroups,
  ownedAccessGroups,
  padGroupKeyName,
  trimGroupKeyName,
  type AccessGroupMemberRecord,
  type AccessGroupRecord,
  type GroupId,
} from '../chain/state/accessGroups.js';
import type { StateIndexReader, StateReader } from '../chain/state/reader.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { extraDataMap } from './profileEntry.js';

export interface AccessGroupMemberEntryResponse {
  AccessGroupMemberPublicKeyBase58Check: string;
  AccessGroupMemberKeyName: string;
  EncryptedKey: string;
  ExtraData: Record<string, string> | null;
}

export interface AccessGroupEntryResponse {
  AccessGroupOwnerPublicKeyBase58Check: string;
  AccessGroupKeyName: string;
  AccessGroupPublicKeyBase58Check: string;
  ExtraData: Record<string, string> | null;
  AccessGroupMemberEntryResponse: AccessGroupMemberEntryResponse | null;
}

/** Largest page of members one request gets (fewer than asked is allowed by spec §8). */
export const MAX_MEMBERS_PER_PAGE = 10_000;

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A stored (padded) key name as the reads render it: padding stripped, UTF-8 text. */
export function keyNameText(name: Uint8Array): string {
  return Buffer.from(trimGroupKeyName(name)).toString('utf8');
}

/** ExtraData as the backend's DecodeExtraDataMap renders it: null when empty. */
export function extraDataOrNull(kvs: ReadonlyArray<readonly [Uint8Array, Uint8Array]>, network: Network): Record<string, string> | null {
  return kvs.length === 0 ? null : extraDataMap(kvs, network);
}

export function memberEntryResponse(m: AccessGroupMemberRecord, network: Network): AccessGroupMemberEntryResponse {
  return {
    AccessGroupMemberPublicKeyBase58Check: encodePublicKey(m.memberPublicKey, network),
    AccessGroupMemberKeyName: keyNameText(m.memberKeyName),
    EncryptedKey: Buffer.from(m.encryptedKey).toString('utf8'),
    ExtraData: extraDataOrNull(m.extraData, network),
  };
}

export function groupEntryResponse(g: AccessGroupRecord, membership: AccessGroupMemberRecord | undefined, network: Network): AccessGroupEntryResponse {
  return {
    AccessGroupOwnerPublicKeyBase58Check: encodePublicKey(g.ownerPublicKey, network),
    AccessGroupKeyName: keyNameText(g.keyName),
    AccessGroupPublicKeyBase58Check: encodePublicKey(g.accessGroupPublicKey, network),
    ExtraData: extraDataOrNull(g.extraData, network),
    AccessGroupMemberEntryResponse: membership === undefined ? null : memberEntryResponse(membership, network),
  };
}

/**
 * Groups `pk` owns (base group first, then registered ones by name bytes), each with `pk`'s own
 * membership in it (an owner may join its own group under another of its groups; usually null).
 */
export async function ownedGroupResponses(state: StateIndexReader, pk: Uint8Array, network: Network): Promise<AccessGroupEntryResponse[]> {
  const groups = await ownedAccessGroups(state, pk);
  const memberships = await Promise.all(groups.map((g) => getAccessGroupMember(state, pk, { owner: g.ownerPublicKey, keyName: g.keyName })));
  return groups.map((g, i) => groupEntryResponse(g, memberships[i], network));
}

/** Groups `pk` is a member of, sorted by (owner, name) bytes, each with the membership filled. */
export async function memberGroupResponses(state: StateIndexReader, pk: Uint8Array, network: Network): Promise<AccessGroupEntryResponse[]> {
  const rows = await memberAccessGroups(state, pk);
  return rows.map((r) => groupEntryResponse(r.group, r.membership, network));
}

/** A party of check-party-access-groups: owner key and the requested name (any length; cut to 32 bytes). */
export interface PartyRequest {
  owner: Uint8Array;
  keyName: string;
}

export interface PartyResult {
  publicKey: string;
  accessGroupPublicKey: string;
  accessGroupKeyName: string;
  isAccessGroupKey: boolean;
}

/**
 * The access key a party's messages should use: the requested group's when it exists
 * (`isAccessGroupKey` true; the base group always exists), else the party's base key.
 */
export async function checkParty(state: StateReader, p: PartyRequest, network: Network): Promise<PartyResult> {
  const publicKey = encodePublicKey(p.owner, network);
  const g = await getAccessGroup(state, groupId(p.owner, utf8(p.keyName)));
  if (g === undefined) return { publicKey, accessGroupPublicKey: publicKey, accessGroupKeyName: '', isAccessGroupKey: false };
  return { publicKey, accessGroupPublicKey: encodePublicKey(g.accessGroupPublicKey, network), accessGroupKeyName: keyNameText(g.keyName), isAccessGroupKey: true };
}

export async function checkPartyAccessGroups(state: StateReader, sender: PartyRequest, recipient: PartyRequest, network: Network): Promise<Record<string, string | boolean>> {
  const [s, r] = await Promise.all([checkParty(state, sender, network), checkParty(state, recipient, network)]);
  return {
    SenderPublicKeyBase58Check: s.publicKey,
    SenderAccessGroupPublicKeyBase58Check: s.accessGroupPublicKey,
    SenderAccessGroupKeyName: s.accessGroupKeyName,
    IsSenderAccessGroupKey: s.isAccessGroupKey,
    RecipientPublicKeyBase58Check: r.publicKey,
    RecipientAccessGroupPublicKeyBase58Check: r.accessGroupPublicKey,
    RecipientAccessGroupKeyName: r.accessGroupKeyName,
    IsRecipientAccessGroupKey: r.isAccessGroupKey,
  };
}

/** One group (member field null); undefined when (owner, name) names no group. `""` is the base group. */
export async function accessGroupInfo(state: StateReader, owner: Uint8Array, rawKeyName: Uint8Array, network: Network): Promise<AccessGroupEntryResponse | undefined> {
  const g = await getAccessGroup(state, groupId(owner, rawKeyName));
  return g === undefined ? undefined : groupEntryResponse(g, undefined, network);
}

/** `member`'s membership of (owner, name); null when there is none (the base group has no members). */
export async function accessGroupMemberInfo(
  state: StateReader,
  owner: Uint8Array,
  rawKeyName: Uint8Array,
  member: Uint8Array,
  network: Network,
): Promise<AccessGroupMemberEntryResponse | null> {
  const m = await getAccessGroupMember(state, member, groupId(owner, rawKeyName));
  return m === undefined ? null : memberEntryResponse(m, network);
}

/**
 * One page of the members of `g`, ascending by public key bytes, starting after `after` (the
 * last key of the previous page); at most `limit` (capped at MAX_MEMBERS_PER_PAGE).
 */
export async function memberPage(state: StateIndexReader, g: GroupId, after: Uint8Array | undefined, limit: number): Promise<Uint8Array[]> {
  return accessGroupMembersPage(state, { owner: g.owner, keyName: padGroupKeyName(g.keyName) }, { ...(after ? { after } : {}), limit: Math.min(limit, MAX_MEMBERS_PER_PAGE) });
}

export interface BulkPair {
  /** The pair as the client sent it (echoed in PairsNotFound). */
  sent: { GroupOwnerPublicKeyBase58Check: string; GroupKeyName: string };
  owner: Uint8Array;
}

/** Each pair's group, in request order; pairs naming no group go to `PairsNotFound` (null when none). */
export async function bulkAccessGroupEntries(
  state: StateReader,
  pairs: BulkPair[],
  network: Network,
): Promise<{ AccessGroupEntries: AccessGroupEntryResponse[]; PairsNotFound: BulkPair['sent'][] | null }> {
  const groups = await Promise.all(pairs.map((p) => getAccessGroup(state, groupId(p.owner, utf8(p.sent.GroupKeyName)))));
  const found: AccessGroupEntryResponse[] = [];
  const missing: BulkPair['sent'][] = [];
  groups.forEach((g, i) => (g === undefined ? missing.push(pairs[i]!.sent) : found.push(groupEntryResponse(g, undefined, network))));
  return { AccessGroupEntries: found, PairsNotFound: missing.length === 0 ? null : missing };
}
