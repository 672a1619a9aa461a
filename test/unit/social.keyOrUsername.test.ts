/**
 * "A public key or a username" (social/keyOrUsername.ts): the one rule every request field that
 * takes either goes through.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { profileKeys } from '../../server/chain/state/profiles.js';
import { encodePublicKey, isKeyError } from '../../server/keys/index.js';
import { isUsernameForm, resolvePublicKeyOrUsername, UsernameNotFoundError } from '../../server/social/keyOrUsername.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const key = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const alice = key();
const state = new Map<string, unknown>([[profileKeys.byUsername('alice_1'), alice]]);
const reader = { get: async <T>(k: string): Promise<T | undefined> => state.get(k) as T | undefined };

describe('resolvePublicKeyOrUsername', () => {
  it('a public key of this network is decoded; a username is looked up in any case', async () => {
    const bob = key();
    assert.deepEqual(await resolvePublicKeyOrUsername(reader, encodePublicKey(bob, 'testnet'), 'testnet', 'F'), bob);
    assert.deepEqual(await resolvePublicKeyOrUsername(reader, 'ALICE_1', 'testnet', 'F'), alice);
    assert.deepEqual(await resolvePublicKeyOrUsername(reader, 'alice_1', 'testnet', 'F'), alice);
  });

  it('a username nobody has: USERNAME_NOT_FOUND (400) after the context', async () => {
    await assert.rejects(resolvePublicKeyOrUsername(reader, 'nobody_here', 'testnet', 'F', 'SendDeSo: '), (e: unknown) => {
      assert.ok(e instanceof UsernameNotFoundError);
      assert.equal(e.code, 'USERNAME_NOT_FOUND');
      assert.equal(e.kind, 'invalid');
      assert.equal(e.message, 'SendDeSo: Profile with username nobody_here does not exist');
      return true;
    });
  });

  it('anything that cannot be a username is a key: its decoder says what is wrong, never echoing it', async () => {
    const mainnet = encodePublicKey(key(), 'mainnet');
    const cases: Array<[string, string, RegExp]> = [
      ['a key of the other network', mainnet, /^P: Problem decoding public key F: expected a testnet public key/],
      ['a key with a bad checksum', `${mainnet.slice(0, -1)}${mainnet.endsWith('a') ? 'b' : 'a'}`, /^P: Problem decoding public key F: invalid Base58Check checksum$/],
      ['the empty string', '', /^P: Problem decoding public key F: expected a Base58Check string, got an empty string$/],
      ['26 username characters', 'a'.repeat(26), /^P: Problem decoding public key F: /],
      ['a key-like prefix with a dash', 'tBC-not-a-key', /^P: Problem decoding public key F: invalid Base58 character "-"/],
    ];
    for (const [name, s, re] of cases) {
      await assert.rejects(resolvePublicKeyOrUsername(reader, s, 'testnet', 'F', 'P: '), (e: unknown) => isKeyError(e) && e.field === 'F' && re.test(e.message) && (s === '' || !e.message.includes(s)), name);
    }
  });

  it('username form: 1..25 of [A-Za-z0-9_], which no public key string has', () => {
    for (const s of ['a', 'Alice_1', '_', 'x'.repeat(25)]) assert.equal(isUsernameForm(s), true, s);
    for (const s of ['', 'x'.repeat(26), 'with space', 'dash-name', 'ünï', encodePublicKey(key(), 'testnet'), encodePublicKey(key(), 'mainnet')]) assert.equal(isUsernameForm(s), false, s);
  });
});
