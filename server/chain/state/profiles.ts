/**
 * Profiles in chain state (UPDATE_PROFILE): the record by public key, the username index, and
 * two ordered indexes for profile listings (by username, by native coin locked in the creator
 * coin). Usernames are unique case-insensitively; the index keys use the lower-cased name.
 * @module
 */
import { toHex } from '../../hex.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

export const profileKeys = {
  /** ProfileRecord by the owner's public key. */
  byPublicKey: (pk33: Uint8Array): string => `chain:profile:${toHex(pk33)}`,
  /** Owner public key (hex) by lower-cased username. */
  byUsername: (username: string): string => `chain:username:${username.toLowerCase()}`,
  /** Ordered index of lower-cased usernames (prefix search: gte `ab`, lt `ab\xff`). */
  usernameIndex: 'chain:profiles:usernames',
  /** Ordered index `<locked nanos, 20 digits>:<pk hex>` (profiles by creator-coin value). */
  lockedIndex: 'chain:profiles:locked',
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

export async function getProfile(state: StateReader, pk33: Uint8Array): Promise<ProfileRecord | undefined> {
  return state.get<ProfileRecord>(profileKeys.byPublicKey(pk33));
}

/** The public key owning `username` (any case), if a profile has it. */
export async function publicKeyForUsername(state: StateReader, username: string): Promise<Uint8Array | undefined> {
  const hex = await state.get<string>(profileKeys.byUsername(username));
  return hex === undefined ? undefined : new Uint8Array(Buffer.from(hex, 'hex'));
}

/** The profile that owns `username` (any case), if any. */
export async function getProfileByUsername(state: StateReader, username: string): Promise<ProfileRecord | undefined> {
  const pk = await publicKeyForUsername(state, username);
  return pk === undefined ? undefined : getProfile(state, pk);
}

const lockedMember = (p: ProfileRecord): string => `${p.creatorCoin.nanosLocked.toString().padStart(20, '0')}:${toHex(p.publicKey)}`;

/**
 * Writes a profile and keeps its indexes in step with `previous` (the record it replaces, if
 * any): a rename frees the old username, a creator-coin trade moves the profile in the
 * by-value index. Records are replaced, never mutated (views hand out shared objects).
 */
export function putProfile(view: StateView, next: ProfileRecord, previous: ProfileRecord | undefined): void {
  const pkHex = toHex(next.publicKey);
  view.set(profileKeys.byPublicKey(next.publicKey), next);
  const oldName = previous?.username.toLowerCase();
  const newName = next.username.toLowerCase();
  if (oldName !== newName) {
    if (oldName !== undefined) {
      view.delete(profileKeys.byUsername(oldName));
      view.indexRemove(profileKeys.usernameIndex, [oldName]);
    }
    view.indexAdd(profileKeys.usernameIndex, [newName]);
  }
  view.set(profileKeys.byUsername(newName), pkHex);
  const oldLocked = previous === undefined ? undefined : lockedMember(previous);
  const newLocked = lockedMember(next);
  if (oldLocked !== newLocked) {
    if (oldLocked !== undefined) view.indexRemove(profileKeys.lockedIndex, [oldLocked]);
    view.indexAdd(profileKeys.lockedIndex, [newLocked]);
  }
}
