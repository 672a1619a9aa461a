/**
 * Legacy messaging groups in chain state (MESSAGING_GROUP, core MessagingGroupEntry: the
 * messaging keys of DeSo V3 messages, before access groups). Core keeps them apart from access
 * groups (its own prefixes, PrefixMessagingGroupEntriesByOwnerPubKeyAndGroupKeyName and
 * PrefixMessagingGroupMetadataByMemberPubKeyAndGroupMessagingPubKey; no access-group rule or
 * read consults them, nor the other way round), and so does this node:
 *
 * | key                          | holds                                                   |
 * |------------------------------|---------------------------------------------------------|
 * | `mg:<group>`                 | StoredMessagingGroup of a registered group              |
 * | index `mg-owned:<owner>`     | `<name>` of every group registered under the owner      |
 * | index `mg-of:<member>`       | `<group>` of every group the key is a member of         |
 *
 * `<group>` = `<owner><name>` in the text of access-group ids (accessGroups.ts groupIdText):
 * group ids sort as core sorts `bytes(owner)‖bytes(padded name)`. A group's record holds its
 * whole member list, as core's entry does (members are only ever added).
 *
 * The base group (all-zero name) is never stored: it exists for every key, with the owner key
 * as its messaging key (core GetMessagingGroupKeyToMessagingGroupEntryMapping).
 * @module
 */
import { bytesText, textBytes } from './keyText.js';
import { groupIdText, groupNameText, isBaseGroupKeyName, padGroupKeyName, parseGroupIdText, trimGroupKeyName, type GroupId } from './accessGroups.js';
import type { StateIndexReader, StateReader } from './reader.js';
import type { StateView } from './view.js';
import { GROUP_KEY_NAME_BYTES } from '../txn/sizes.js';

export interface MessagingGroupMemberRecord {
  memberPublicKey: Uint8Array;
  /** 32 bytes, zero-padded. */
  memberKeyName: Uint8Array;
  encryptedKey: Uint8Array;
}

export interface MessagingGroupRecord {
  ownerPublicKey: Uint8Array;
  /** 32 bytes, zero-padded. */
  keyName: Uint8Array;
  messagingPublicKey: Uint8Array;
  /** In the order they were added. */
  members: MessagingGroupMemberRecord[];
  extraData: Array<[Uint8Array, Uint8Array]>;
}

export const messagingGroupKeys = {
  group: (g: GroupId): string => `mg:${groupIdText(g)}`,
  ownedIndex: (owner: Uint8Array): string => `mg-owned:${bytesText(owner)}`,
  memberOfIndex: (member: Uint8Array): string => `mg-of:${bytesText(member)}`,
};

/** What a group's key does not say; member names without their padding. */
type StoredMessagingGroup = [messagingPublicKey: Uint8Array, members: Array<[Uint8Array, Uint8Array, Uint8Array]>, extraData: Array<[Uint8Array, Uint8Array]>];

const trim = (name: Uint8Array): Uint8Array => trimGroupKeyName(padGroupKeyName(name));

/** The base messaging group of `owner`: implicit, its messaging key is the owner key. */
export function baseMessagingGroup(owner: Uint8Array): MessagingGroupRecord {
  return { ownerPublicKey: owner, keyName: new Uint8Array(GROUP_KEY_NAME_BYTES), messagingPublicKey: owner, members: [], extraData: [] };
}

/** The group (owner, name); the base group for an all-zero name; undefined when not registered. */
export async function getMessagingGroup(state: StateReader, g: GroupId): Promise<MessagingGroupRecord | undefined> {
  const keyName = padGroupKeyName(g.keyName);
  if (isBaseGroupKeyName(keyName)) return baseMessagingGroup(g.owner);
  const stored = await state.get<StoredMessagingGroup>(messagingGroupKeys.group({ owner: g.owner, keyName }));
  if (stored === undefined) return undefined;
  const [messagingPublicKey, members, extraData] = stored;
  return {
    ownerPublicKey: g.owner,
    keyName,
    messagingPublicKey,
    members: members.map(([memberPublicKey, memberKeyName, encryptedKey]) => ({ memberPublicKey, memberKeyName: padGroupKeyName(memberKeyName), encryptedKey })),
    extraData,
  };
}

/**
 * Creates or replaces a registered group. `newMembers` are the members `record` adds (the rest
 * were indexed when they were added).
 */
export function putMessagingGroup(view: StateView, record: MessagingGroupRecord, newMembers: readonly MessagingGroupMemberRecord[]): void {
  const g: GroupId = { owner: record.ownerPublicKey, keyName: padGroupKeyName(record.keyName) };
  const stored: StoredMessagingGroup = [record.messagingPublicKey, record.members.map((m) => [m.memberPublicKey, trim(m.memberKeyName), m.encryptedKey]), record.extraData];
  view.set(messagingGroupKeys.group(g), stored);
  view.indexAdd(messagingGroupKeys.ownedIndex(g.owner), [groupNameText(g.keyName)]);
  for (const m of newMembers) view.indexAdd(messagingGroupKeys.memberOfIndex(m.memberPublicKey), [groupIdText(g)]);
}

/** Registered groups of `owner`, by name in byte order (the base group is not listed). */
export async function ownedMessagingGroups(state: StateIndexReader, owner: Uint8Array): Promise<MessagingGroupRecord[]> {
  const names = await state.indexRange(messagingGroupKeys.ownedIndex(owner));
  const records = await Promise.all(names.map((n) => getMessagingGroup(state, { owner, keyName: padGroupKeyName(textBytes(n)) })));
  return records.filter((r): r is MessagingGroupRecord => r !== undefined);
}

/** Ids of the groups `member` was added to, sorted by (owner, name) bytes. */
export async function messagingGroupsWithMember(state: StateIndexReader, member: Uint8Array): Promise<GroupId[]> {
  return (await state.indexRange(messagingGroupKeys.memberOfIndex(member))).map(parseGroupIdText);
}
