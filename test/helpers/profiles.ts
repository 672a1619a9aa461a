/**
 * A profile written straight into a state view, for unit tests of rules that only need a
 * creator to exist (DAO coins, orders). End-to-end tests create profiles with update-profile.
 */
import { EMPTY_CREATOR_COIN, putProfile, type ProfileRecord } from '../../server/chain/state/profiles.js';
import type { StateView } from '../../server/chain/state/view.js';

/** `fields` replaces the defaults (a coin with value locked, say). */
export function addProfile(state: StateView, pk: Uint8Array, username: string, fields: Partial<ProfileRecord> = {}): void {
  const record: ProfileRecord = {
    publicKey: pk,
    username,
    description: '',
    profilePic: '',
    creatorBasisPoints: 1000n,
    stakeMultipleBasisPoints: 12500n,
    isHidden: false,
    extraData: [],
    creatorCoin: { ...EMPTY_CREATOR_COIN },
    ...fields,
  };
  putProfile(state, record, undefined);
}
