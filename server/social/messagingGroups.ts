/**
 * The legacy messaging keys of a user (backend GetAllMessagingGroupKeys over core
 * GetMessagingGroupEntriesForUser, shaped by ParseMessagingGroupEntries) as a plain function over
 * a state reader: the base key, the groups the user registered, then the groups the user was
 * added to. Registered through MESSAGING_GROUP only: access groups are another state, in core
 * as here.
 *
 * As the reference's stored entries show them: a group the user owns lists every member; a
 * group the user is a member of lists the user's own membership only (core keeps one such
 * entry per member and group), with the user's encrypted copy of the group key as
 * `EncryptedKey`. A group is listed once (an owner that joined its own group under another key
 * sees its owned entry). The reference's order comes from a Go map (random); here: base key,
 * owned by name bytes, member groups by (owner, name) bytes.
 * @module
 */
import { groupIdText, type GroupId } from '../chain/state/accessGroups.js';
import { baseMessagingGroup, getMessagingGroup, messagingGroupsWithMember, ownedMessagingGroups, type MessagingGroupMemberRecord, type MessagingGroupRecord } from '../chain/state/messagingGroups.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { toHex } from '../hex.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { extraDataOrNull, keyNameText } from './accessGroups.js';

export interface MessagingGroupMemberResponse {
  GroupMemberPublicKeyBase58Check: string;
  GroupMemberKeyName: string;
  EncryptedKey: string;
}

export interface MessagingGroupEntryResponse {
  GroupOwnerPublicKeyBase58Check: string;
  MessagingPublicKeyBase58Check: string;
  MessagingGroupKeyName: string;
  /** Null when there are none (Go's nil slice). */
  MessagingGroupMembers: MessagingGroupMemberResponse[] | null;
  /** Hex; the reader's own copy of the group key, "" when the reader is not a member. */
  EncryptedKey: string;
  ExtraData: Record<string, string> | null;
}

function memberResponse(m: MessagingGroupMemberRecord, network: Network): MessagingGroupMemberResponse {
  return { GroupMemberPublicKeyBase58Check: encodePublicKey(m.memberPublicKey, network), GroupMemberKeyName: keyNameText(m.memberKeyName), EncryptedKey: toHex(m.encryptedKey) };
}

/** Core's entry as backend ParseMessagingGroupEntries renders it for `reader`. */
export function messagingGroupEntryResponse(g: MessagingGroupRecord, reader: Uint8Array, network: Network): MessagingGroupEntryResponse {
  const own = g.members.find((m) => Buffer.compare(m.memberPublicKey, reader) === 0);
  return {
    GroupOwnerPublicKeyBase58Check: encodePublicKey(g.ownerPublicKey, network),
    MessagingPublicKeyBase58Check: encodePublicKey(g.messagingPublicKey, network),
    MessagingGroupKeyName: keyNameText(g.keyName),
    MessagingGroupMembers: g.members.length === 0 ? null : g.members.map((m) => memberResponse(m, network)),
    EncryptedKey: own === undefined ? '' : toHex(own.encryptedKey),
    ExtraData: extraDataOrNull(g.extraData, network),
  };
}

/** Every messaging key `user` has: base, owned, then member groups (with the user's row only), each once. */
export async function allMessagingGroupKeys(state: StateIndexReader, user: Uint8Array, network: Network): Promise<MessagingGroupEntryResponse[]> {
  const [owned, memberOf] = await Promise.all([ownedMessagingGroups(state, user), messagingGroupsWithMember(state, user)]);
  const seen = new Set<string>();
  const listed: MessagingGroupRecord[] = [];
  const list = (g: MessagingGroupRecord): void => {
    const id = groupIdText({ owner: g.ownerPublicKey, keyName: g.keyName });
    if (seen.has(id)) return;
    seen.add(id);
    listed.push(g);
  };
  [baseMessagingGroup(user), ...owned].forEach(list);
  const joined = await Promise.all(memberOf.map((id: GroupId) => getMessagingGroup(state, id)));
  for (const g of joined) {
    if (g === undefined) continue;
    list({ ...g, members: g.members.filter((m) => Buffer.compare(m.memberPublicKey, user) === 0), extraData: [] });
  }
  return listed.map((g) => messagingGroupEntryResponse(g, user, network));
}
