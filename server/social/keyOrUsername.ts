/**
 * "A public key or a username": the one rule for every request field that takes either
 * (send-deso's recipient, the DAO coin routes, swap-identity, the order book reads).
 *
 * A string that can be a username (1..25 of `[A-Za-z0-9_]`, chain/rules/profiles.ts) is looked
 * up as one, in any case, on the state given; anything else is decoded as a public key. Public
 * keys are 54-55 Base58 characters, so neither is ever taken for the other, and a mistyped key
 * gets the key decoder's precise message instead of "no such username". (The reference guesses
 * by prefix instead, `BC1`/`tBC` in some routes and `BC`/`tBC` in others: node-api.md §6.)
 * @module
 */
import { PROFILE_LIMITS } from '../chain/rules/profiles.js';
import { publicKeyForUsername } from '../chain/state/profiles.js';
import type { StateReader } from '../chain/state/reader.js';
import { DomainError } from '../errors.js';
import { decodePublicKey, type Network } from '../keys/index.js';

const USERNAME = new RegExp(`^[A-Za-z0-9_]{1,${PROFILE_LIMITS.maxUsernameBytes}}$`);

/** No profile has the username a request names (USERNAME_NOT_FOUND, 400). */
export class UsernameNotFoundError extends DomainError {
  override readonly name = 'UsernameNotFoundError';
  constructor(message: string) {
    super('USERNAME_NOT_FOUND', 'invalid', message);
  }
}

/** Whether `s` has the form of a username (it may still belong to no one). */
export function isUsernameForm(s: string): boolean {
  return USERNAME.test(s);
}

/**
 * The 33-byte key `s` names, as a public key or as a username.
 * @param field - the request field, in key errors
 * @param context - before every message (the route's reference wording)
 * @throws {UsernameNotFoundError} `<context>Profile with username <s> does not exist`
 * @throws {KeyError} `<context>Problem decoding public key <field>: <what is wrong>` (the
 *   input itself is never echoed: it could be a pasted private key)
 */
export async function resolvePublicKeyOrUsername(state: StateReader, s: string, network: Network, field: string, context = ''): Promise<Uint8Array> {
  if (!USERNAME.test(s)) return decodePublicKey(s, network, field, `${context}Problem decoding public key `);
  const pk = await publicKeyForUsername(state, s);
  if (pk === undefined) throw new UsernameNotFoundError(`${context}Profile with username ${s} does not exist`);
  return pk;
}
