/**
 * Username ⇄ public key lookups (reference social-graph.md §8, backend GetPublicKeyForUsername,
 * GetUsernameForPublicKey): one store read each, from the profile state the route passes. The
 * routes answer the bare JSON string the reference answers (frontends read it as such).
 * @module
 */
import { getProfile, publicKeyForUsername } from '../chain/state/profiles.js';
import type { StateReader } from '../chain/state/reader.js';
import { DomainError } from '../errors.js';
import { encodePublicKey, type Network } from '../keys/index.js';

/** The reference's username pattern for this lookup (its route's path pattern). */
export const LOOKUP_USERNAME = /^[a-zA-Z0-9_]{1,26}$/;

export class UsernameLookupError extends DomainError {
  override readonly name = 'UsernameLookupError';
  constructor(message: string) {
    super('USERNAME_LOOKUP_NOT_FOUND', 'notFound', message);
  }
}

/**
 * The Base58Check public key of the profile named `username` (any case). A string that cannot
 * be a username is not found either, as the reference's path pattern does not match it (it is
 * not echoed: it could be anything a client pasted).
 * @throws {UsernameLookupError}
 */
export async function publicKeyForUsernameText(state: StateReader, username: string, network: Network): Promise<string> {
  if (!LOOKUP_USERNAME.test(username)) throw new UsernameLookupError('GetPublicKeyForUsername: a username is 1 to 26 letters, digits or underscores');
  const pk = await publicKeyForUsername(state, username);
  if (pk === undefined) throw new UsernameLookupError(`GetPublicKeyForUsername: no profile found for username: ${username}`);
  return encodePublicKey(pk, network);
}

/**
 * The username of `pk33`'s profile, as stored (its case). `given` is the key as the request
 * spelled it, for the message.
 * @throws {UsernameLookupError}
 */
export async function usernameForPublicKey(state: StateReader, pk33: Uint8Array, given: string): Promise<string> {
  const profile = await getProfile(state, pk33);
  if (profile === undefined) throw new UsernameLookupError(`GetUsernameForPublicKey: no profile found for public key: ${given}`);
  return profile.username;
}
