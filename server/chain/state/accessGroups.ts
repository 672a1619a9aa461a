/**
 * Access groups and their members in chain state (ACCESS_GROUP, ACCESS_GROUP_MEMBERS; reference
 * node-api.md §8), stored for the reads of §2.1 without scans:
 *
 * | key                                  | holds                                              |
 * |--------------------------------------|----------------------------------------------------|
 * | `ag:<group>`                         | StoredGroup of a registered group                  |
 * | index `ag-owned:<owner>`             | `<name>` of every registered group of the owner    |
 * | `agm:<member><group>`                | StoredMember (membership)                          |
 * | index `agm-m:<group>`                | `<member>` of every member of the group            |
 * | index `agm-of:<member>`              | `<group>` of every group the key belongs to        |
 *
 * `<owner>`/`<member>` are 33-byte keys as key text (keyText.ts, fixed width), `<name>` the key
 * text of the group key name without its zero padding, `<group>` = `<owner><name>`. Text order
 * is byte order, and a name's order without its padding is its order with it, so members page
 * by public key and group ids sort as core sorts `bytes(owner)‖bytes(padded name)`. Records
 * leave out what their key says (owner, name, member key).
 *
 * The base group (all-zero name) is never stored: it exists implicitly for every key, with the
 * owner key as its access key (`getAccessGroup` synthesizes it).
 * @module
 */
import { bytesText, textBytes, textLength } from './keyText.js';
import type { IndexRange } from '../../store/types.js';
import type { StateIndexReader, StateReader } from './reader.js';
import type { StateView } from './view.js';
import { GROUP_KEY_NAME_BYTES } from '../txn/sizes.js';

/** Group key names are 32 bytes on chain: shorter names are right-padded with zeros. */
export { GROUP_KEY_NAME_BYTES };
/** Raw key names must have 1..32 bytes (core Min/MaxAccessGroupKeyNameCharacters). */
export const MIN_GROUP_KEY_NAME_BYTES = 1;

/** A reader that can also walk ordered indexes: the store itself, or a StateView. */
export type { StateIndexReader };

/** An access group id: (owner public key, 32-byte padded key name). */
export interface GroupId {
  owner: Uint8Array;
  /** Always 32 bytes (padded). */
  keyName: Uint8Array;
}

export interface AccessGroupRecord {
  ownerPublicKey: Uint8Array;
  /** 32 bytes, zero-padded. */
  keyName: Uint8Array;
  accessGroupPublicKey: Uint8Array;
  /** The ExtraData of the transaction that created or last updated the group. */
  extraData: Array<[Uint8Array, Uint8Array]>;
}

export interface AccessGroupMemberRecord {
  memberPublicKey: Uint8Array;
  /** The member's own group the membership goes through; 32 bytes, zero-padded. */
  memberKeyName: Uint8Array;
  /** Opaque: the group's secret encrypted to the member group's access key. */
  encryptedKey: Uint8Array;
  extraData: Array<[Uint8Array, Uint8Array]>;
}

/** A raw key name as core's NewGroupKeyName makes it: zero-padded (or cut) to 32 bytes. */
export function padGroupKeyName(raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(GROUP_KEY_NAME_BYTES);
  out.set(raw.subarray(0, GROUP_KEY_NAME_BYTES));
  return out;
}

/** The name without its zero padding, as the reads render it (`""` for the base group). */
export function trimGroupKeyName(name: Uint8Array): Uint8Array {
  let end = name.length;
  while (end > 0 && name[end - 1] === 0) end--;
  return name.subarray(0, end);
}

/** Whether a (raw or padded) key name is the base group's: all zero bytes (or empty). */
export function isBaseGroupKeyName(name: Uint8Array): boolean {
  return name.every((b) => b === 0);
}

export function groupId(owner: Uint8Array, rawKeyName: Uint8Array): GroupId {
  return { owner, keyName: padGroupKeyName(rawKeyName) };
}

/** Characters of a public key's text: where a group id's name starts. */
const KEY_TEXT_LENGTH = textLength(33);

/** `<owner><name>`: the text form of a group id used in keys and indexes (see the table above). */
export function groupIdText(g: GroupId): string {
  return bytesText(g.owner) + groupNameText(g.keyName);
}

export function parseGroupIdText(s: string): GroupId {
  return { owner: textBytes(s.slice(0, KEY_TEXT_LENGTH)), keyName: padGroupKeyName(textBytes(s.slice(KEY_TEXT_LENGTH))) };
}

/** The text of a (raw or padded) group key name, without its zero padding. */
export function groupNameText(name: Uint8Array): string {
  return bytesText(trimGroupKeyName(padGroupKeyName(name)));
}

export const accessGroupKeys = {
  group: (g: GroupId): string => `ag:${groupIdText(g)}`,
  ownedIndex: (owner: Uint8Array): string => `ag-owned:${bytesText(owner)}`,
  member: (member: Uint8Array, g: GroupId): string => `agm:${bytesText(member)}${groupIdText(g)}`,
  membersIndex: (g: GroupId): string => `agm-m:${groupIdText(g)}`,
  memberOfIndex: (member: Uint8Array): string => `agm-of:${bytesText(member)}`,
};

/** A registered group as stored: what its key (owner, name) does not say. */
type StoredGroup = [accessGroupPublicKey: Uint8Array, extraData: Array<[Uint8Array, Uint8Array]>];

/** A membership as stored: what its key (member, group) does not say; the name without padding. */
type StoredMember = [memberKeyName: Uint8Array, encryptedKey: Uint8Array, extraData: Array<[Uint8Array, Uint8Array]>];

function groupRecord(g: GroupId, s: StoredGroup): AccessGroupRecord {
  return { ownerPublicKey: g.owner, keyName: padGroupKeyName(g.keyName), accessGroupPublicKey: s[0], extraData: s[1] };
}

async function readGroup(state: StateReader, g: GroupId): Promise<AccessGroupRecord | undefined> {
  const stored = await state.get<StoredGroup>(accessGroupKeys.group(g));
  return stored === undefined ? undefined : groupRecord(g, stored);
}

/** The base group of `owner`: implicit, its access key is the owner key. */
export function baseAccessGroup(owner: Uint8Array): AccessGroupRecord {
  return { ownerPublicKey: owner, keyName: new Uint8Array(GROUP_KEY_NAME_BYTES), accessGroupPublicKey: owner, extraData: [] };
}

/** The group (owner, name); the base group for an all-zero name; undefined when not registered. */
export async function getAccessGroup(state: StateReader, g: GroupId): Promise<AccessGroupRecord | undefined> {
  if (isBaseGroupKeyName(g.keyName)) return baseAccessGroup(g.owner);
  return readGroup(state, g);
}

export async function accessGroupExists(state: StateReader, g: GroupId): Promise<boolean> {
  return (await getAccessGroup(state, g)) !== undefined;
}

/** Creates or replaces a registered group (never the base group). */
export function putAccessGroup(view: StateView, record: AccessGroupRecord): void {
  const g: GroupId = { owner: record.ownerPublicKey, keyName: record.keyName };
  view.set(accessGroupKeys.group(g), [record.accessGroupPublicKey, record.extraData] satisfies StoredGroup);
  view.indexAdd(accessGroupKeys.ownedIndex(record.ownerPublicKey), [groupNameText(record.keyName)]);
}

/** Padded names of the groups `owner` registered, in byte order (the base group is not listed). */
export async function registeredGroupKeyNames(state: StateIndexReader, owner: Uint8Array): Promise<Uint8Array[]> {
  const names = await state.indexRange(accessGroupKeys.ownedIndex(owner));
  return names.map((n) => padGroupKeyName(textBytes(n)));
}

export async function getAccessGroupMember(state: StateReader, member: Uint8Array, g: GroupId): Promise<AccessGroupMemberRecord | undefined> {
  const stored = await state.get<StoredMember>(accessGroupKeys.member(member, g));
  if (stored === undefined) return undefined;
  const [memberKeyName, encryptedKey, extraData] = stored;
  return { memberPublicKey: member, memberKeyName: padGroupKeyName(memberKeyName), encryptedKey, extraData };
}

/** Adds or replaces the membership of `record.memberPublicKey` in `g`. */
export function putAccessGroupMember(view: StateView, g: GroupId, record: AccessGroupMemberRecord): void {
  const stored: StoredMember = [trimGroupKeyName(padGroupKeyName(record.memberKeyName)), record.encryptedKey, record.extraData];
  view.set(accessGroupKeys.member(record.memberPublicKey, g), stored);
  view.indexAdd(accessGroupKeys.membersIndex(g), [bytesText(record.memberPublicKey)]);
  view.indexAdd(accessGroupKeys.memberOfIndex(record.memberPublicKey), [groupIdText(g)]);
}

export function deleteAccessGroupMember(view: StateView, g: GroupId, member: Uint8Array): void {
  view.delete(accessGroupKeys.member(member, g));
  view.indexRemove(accessGroupKeys.membersIndex(g), [bytesText(member)]);
  view.indexRemove(accessGroupKeys.memberOfIndex(member), [groupIdText(g)]);
}

export interface MemberPage {
  /** Return members whose key sorts strictly after this one (the last key of the previous page). */
  after?: Uint8Array;
  /** At most this many. */
  limit: number;
}

/** Member public keys of `g`, ascending by key bytes, paged (get-paginated-access-group-members). */
export async function accessGroupMembersPage(state: StateIndexReader, g: GroupId, page: MemberPage): Promise<Uint8Array[]> {
  if (page.limit < 1) return [];
  const range: IndexRange = { limit: page.limit };
  if (page.after !== undefined && page.after.length > 0) range.gt = bytesText(page.after);
  return (await state.indexRange(accessGroupKeys.membersIndex(g), range)).map(textBytes);
}

/** Groups `member` belongs to (not counting groups it only owns), sorted by (owner, name) bytes. */
export async function groupsWithMember(state: StateIndexReader, member: Uint8Array): Promise<GroupId[]> {
  return (await state.indexRange(accessGroupKeys.memberOfIndex(member))).map(parseGroupIdText);
}

/**
 * Every group `owner` owns as the owned-groups reads list them: the base group first (its
 * all-zero name sorts lowest), then the registered ones in name byte order.
 */
export async function ownedAccessGroups(state: StateIndexReader, owner: Uint8Array): Promise<AccessGroupRecord[]> {
  const names = await registeredGroupKeyNames(state, owner);
  const records = await Promise.all(names.map((keyName) => readGroup(state, { owner, keyName })));
  return [baseAccessGroup(owner), ...records.filter((r): r is AccessGroupRecord => r !== undefined)];
}

/** The groups `member` belongs to, each with its membership record, sorted by (owner, name) bytes. */
export async function memberAccessGroups(state: StateIndexReader, member: Uint8Array): Promise<Array<{ group: AccessGroupRecord; membership: AccessGroupMemberRecord }>> {
  const ids = await groupsWithMember(state, member);
  const rows = await Promise.all(ids.map(async (g) => ({ group: await getAccessGroup(state, g), membership: await getAccessGroupMember(state, member, g) })));
  return rows.filter((r): r is { group: AccessGroupRecord; membership: AccessGroupMemberRecord } => r.group !== undefined && r.membership !== undefined);
}
