/**
 * Profiles in chain state (UPDATE_PROFILE): the record by public key and the username index.
 * Usernames are unique case-insensitively; the index key is the lower-cased name.
 * @module
 */
import { toHex } from '../../hex.js';
import type { StateReader } from './reader.js';

export const profileKeys = {
  /** ProfileRecord by the owner's public key. */
  byPublicKey: (pk33: Uint8Array): string => `chain:profile:${toHex(pk33)}`,
  /** Owner public key (hex) by lower-cased username. */
  byUsername: (username: string): string => `chain:username:${username.toLowerCase()}`,
};

/** Creator coin state of a profile (bonding curve). */
export interface CreatorCoinRecord {
  nanosLocked: bigint;
  coinsInCirculationNanos: bigint;
  coinWatermarkNanos: bigint;
  numberOfHolders: bigint;
}

export interface ProfileRecord {
  publicKey: Uint8Array;
  username: string;
  description: string;
  profilePic: string;
  creatorBasisPoints: bigint;
  stakeMultipleBasisPoints: bigint;
  isHidden: boolean;
  /** ExtraData of the profile's transactions, merged, key/value bytes. */
  extraData: Array<[Uint8Array, Uint8Array]>;
  creatorCoin: CreatorCoinRecord;
}

export async function getProfile(state: StateReader, pk33: Uint8Array): Promise<ProfileRecord | undefined> {
  return state.get<ProfileRecord>(profileKeys.byPublicKey(pk33));
}

/** The public key owning `username` (any case), if a profile has it. */
export async function publicKeyForUsername(state: StateReader, username: string): Promise<Uint8Array | undefined> {
  const hex = await state.get<string>(profileKeys.byUsername(username));
  return hex === undefined ? undefined : new Uint8Array(Buffer.from(hex, 'hex'));
}
