/**
 * Native-coin balances (nanos) by public key: read and written by every transaction type.
 * @module
 */
import { chainKeys } from './keys.js';
import type { StateReader } from './reader.js';
import type { StateView } from './view.js';

export async function getBalance(view: StateReader, pk33: Uint8Array): Promise<bigint> {
  return (await view.get<bigint>(chainKeys.balance(pk33))) ?? 0n;
}

export function setBalance(view: StateView, pk33: Uint8Array, nanos: bigint): void {
  if (nanos === 0n) view.delete(chainKeys.balance(pk33));
  else view.set(chainKeys.balance(pk33), nanos);
}
