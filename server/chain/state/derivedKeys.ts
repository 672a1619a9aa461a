/**
 * Derived keys in chain state (AUTHORIZE_DERIVED_KEY; core's DerivedKeyEntry):
 *
 * | key                              | holds                                             |
 * |----------------------------------|---------------------------------------------------|
 * | `chain:dkey:<owner>:<derived>`   | DerivedKeyRecord                                  |
 * | index `chain:dkeys-of:<owner>`   | `<derived>` of every key the owner ever authorized |
 *
 * Keys are 33-byte public keys as lower-case hex. A record is never deleted: de-authorizing
 * sets its operation to NOT_VALID, which also keeps the key from being authorized again.
 * @module
 */
import { toHex } from '../../hex.js';
import { AuthorizeDerivedKeyOperation } from '../txn/metadata.js';
import type { StateIndexReader, StateReader } from './reader.js';
import type { StateView } from './view.js';

export const derivedKeyKeys = {
  /** DerivedKeyRecord by (owner, derived). */
  entry: (owner: Uint8Array, derived: Uint8Array): string => `chain:dkey:${toHex(owner)}:${toHex(derived)}`,
  /** Index of the owner's derived keys (hex), in byte order. */
  ofOwner: (owner: Uint8Array): string => `chain:dkeys-of:${toHex(owner)}`,
};

export interface DerivedKeyRecord {
  ownerPublicKey: Uint8Array;
  derivedPublicKey: Uint8Array;
  /** The key signs in blocks below this height. */
  expirationBlock: bigint;
  /** {@link AuthorizeDerivedKeyOperation}: VALID, or NOT_VALID once de-authorized. */
  operationType: number;
  /**
   * What the key may still do: core's TransactionSpendingLimitTracker, kept in its binary form
   * at the current version (txn/spendingLimit.ts), decremented as the key signs.
   */
  spendingLimit: Uint8Array;
  /** ExtraData `DerivedKeyMemo` of the latest authorization that had one (hex text, as the reference writes it). */
  memo: Uint8Array;
  /** ExtraData of the authorizations, merged (later keys win), sorted by key bytes. */
  extraData: Array<[Uint8Array, Uint8Array]>;
}


export async function getDerivedKey(state: StateReader, owner: Uint8Array, derived: Uint8Array): Promise<DerivedKeyRecord | undefined> {
  return state.get<DerivedKeyRecord>(derivedKeyKeys.entry(owner, derived));
}

/** Writes the record and lists the key under its owner (a set: listing twice is harmless). */
export function putDerivedKey(view: StateView, record: DerivedKeyRecord): void {
  view.set(derivedKeyKeys.entry(record.ownerPublicKey, record.derivedPublicKey), record);
  view.indexAdd(derivedKeyKeys.ofOwner(record.ownerPublicKey), [toHex(record.derivedPublicKey)]);
}

/** Every derived key the owner ever authorized, valid or not, in key byte order. */
export async function derivedKeysOfOwner(state: StateIndexReader, owner: Uint8Array): Promise<DerivedKeyRecord[]> {
  const members = await state.indexRange(derivedKeyKeys.ofOwner(owner));
  const records = await Promise.all(members.map((hex) => getDerivedKey(state, owner, new Uint8Array(Buffer.from(hex, 'hex')))));
  return records.filter((r): r is DerivedKeyRecord => r !== undefined);
}

/** Core's ValidateDerivedKey: authorized (VALID) and not expired in a block at `height`. */
export function isDerivedKeyValid(record: DerivedKeyRecord | undefined, height: bigint): boolean {
  return record !== undefined && record.operationType === AuthorizeDerivedKeyOperation.VALID && record.expirationBlock > height;
}
