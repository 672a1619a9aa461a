/**
 * Profiles in chain state (UPDATE_PROFILE): the record by public key, the username index, and
 * two ordered indexes for profile listings (by username, by native coin locked in the creator
 * coin). Usernames are unique case-insensitively; the index keys use the lower-cased name.
 * @module
 */
import { packBig, unpackBig } from './compactValues.js';
import { bytesText, joinBytes, orderedUint, textBytes } from './keyText.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

export const profileKeys = {
  /** The profile (StoredProfile) by the owner's public key. */
  byPublicKey: (pk33: Uint8Array): string => `p:${bytesText(pk33)}`,
  /** Owner public key (bytes) by lower-cased username. */
  byUsername: (username: string): string => `u:${username.toLowerCase()}`,
  /** Ordered index of lower-cased usernames (prefix search: gte `ab`, lt `ab\xff`). */
  usernameIndex: 'p-names',
  /** Ordered index `lockedMember` (profiles by creator-coin value, then key). */
  lockedIndex: 'p-locked',
};

/** Creator coin state of a profile (bonding curve). */
export interface CreatorCoinRecord {
  /** Native nanos locked in the curve (core DeSoLockedNanos). */
  nanosLocked: bigint;
  coinsInCirculationNanos: bigint;
  coinWatermarkNanos: bigint;
  numberOfHolders: bigint;
}

export interface ProfileRecord {
  publicKey: Uint8Array;
  username: string;
  description: string;
  /** As sent in the transaction (a `data:image/…;base64,…` URL from update-profile). */
  profilePic: string;
  creatorBasisPoints: bigint;
  stakeMultipleBasisPoints: bigint;
  isHidden: boolean;
  /** ExtraData of the profile's transactions, merged, key/value bytes. */
  extraData: Array<[Uint8Array, Uint8Array]>;
  creatorCoin: CreatorCoinRecord;
}

export const EMPTY_CREATOR_COIN: Readonly<CreatorCoinRecord> = Object.freeze({
  nanosLocked: 0n,
  coinsInCirculationNanos: 0n,
  coinWatermarkNanos: 0n,
  numberOfHolders: 0n,
});

/**
 * A profile as stored: a tuple without the public key (the key names it), amounts as
 * `packBig`. Field names of an object would cost more than most profiles' own fields.
 */
type StoredProfile = [
  username: string,
  description: string,
  profilePic: string,
  creatorBasisPoints: number | bigint,
  stakeMultipleBasisPoints: number | bigint,
  isHidden: boolean,
  extraData: Array<[Uint8Array, Uint8Array]>,
  nanosLocked: number | bigint,
  coinsInCirculationNanos: number | bigint,
  coinWatermarkNanos: number | bigint,
  numberOfHolders: number | bigint,
];

function storedProfile(p: ProfileRecord): StoredProfile {
  const c = p.creatorCoin;
  return [
    p.username,
    p.description,
    p.profilePic,
    packBig(p.creatorBasisPoints),
    packBig(p.stakeMultipleBasisPoints),
    p.isHidden,
    p.extraData,
    packBig(c.nanosLocked),
    packBig(c.coinsInCirculationNanos),
    packBig(c.coinWatermarkNanos),
    packBig(c.numberOfHolders),
  ];
}

function profileRecord(publicKey: Uint8Array, s: StoredProfile): ProfileRecord {
  const [username, description, profilePic, cbp, smbp, isHidden, extraData, locked, circulation, watermark, holders] = s;
  return {
    publicKey,
    username,
    description,
    profilePic,
    creatorBasisPoints: unpackBig(cbp),
    stakeMultipleBasisPoints: unpackBig(smbp),
    isHidden,
    extraData,
    creatorCoin: { nanosLocked: unpackBig(locked), coinsInCirculationNanos: unpackBig(circulation), coinWatermarkNanos: unpackBig(watermark), numberOfHolders: unpackBig(holders) },
  };
}

export async function getProfile(state: StateReader, pk33: Uint8Array): Promise<ProfileRecord | undefined> {
  const stored = await state.get<StoredProfile>(profileKeys.byPublicKey(pk33));
  return stored === undefined ? undefined : profileRecord(pk33, stored);
}

/** The public key owning `username` (any case), if a profile has it. */
export async function publicKeyForUsername(state: StateReader, username: string): Promise<Uint8Array | undefined> {
  const pk = await state.get<Uint8Array>(profileKeys.byUsername(username));
  // A plain Uint8Array, not the decoder's Buffer: callers compare it with other keys.
  return pk === undefined ? undefined : new Uint8Array(pk);
}

/** The profile that owns `username` (any case), if any. */
export async function getProfileByUsername(state: StateReader, username: string): Promise<ProfileRecord | undefined> {
  const pk = await publicKeyForUsername(state, username);
  return pk === undefined ? undefined : getProfile(state, pk);
}

/** Member of the by-value index: locked nanos (ordered), then the public key. */
export const lockedMember = (p: ProfileRecord): string => bytesText(joinBytes(orderedUint(p.creatorCoin.nanosLocked), p.publicKey));

/** The public key of a by-value index member (its last 33 bytes). */
export const pkOfLockedMember = (member: string): Uint8Array => textBytes(member).slice(-33);

/**
 * Writes a profile and keeps its indexes in step with `previous` (the record it replaces, if
 * any): a rename frees the old username, a creator-coin trade moves the profile in the
 * by-value index. Records are replaced, never mutated (views hand out shared objects).
 */
export function putProfile(view: StateView, next: ProfileRecord, previous: ProfileRecord | undefined): void {
  view.set(profileKeys.byPublicKey(next.publicKey), storedProfile(next));
  const oldName = previous?.username.toLowerCase();
  const newName = next.username.toLowerCase();
  if (oldName !== newName) {
    if (oldName !== undefined) {
      view.delete(profileKeys.byUsername(oldName));
      view.indexRemove(profileKeys.usernameIndex, [oldName]);
    }
    view.indexAdd(profileKeys.usernameIndex, [newName]);
  }
  view.set(profileKeys.byUsername(newName), next.publicKey);
  const oldLocked = previous === undefined ? undefined : lockedMember(previous);
  const newLocked = lockedMember(next);
  if (oldLocked !== newLocked) {
    if (oldLocked !== undefined) view.indexRemove(profileKeys.lockedIndex, [oldLocked]);
    view.indexAdd(profileKeys.lockedIndex, [newLocked]);
  }
}
