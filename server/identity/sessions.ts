/**
 * Identity login sessions, kept in the store so every server process (and machine on one Redis)
 * serves any session.
 *
 * An app holds three values per login: `encryptedSeedHex`, `accessLevel`, `accessLevelHmac`.
 * `encryptedSeedHex` here is `hex(sessionId) ‖ sealedSeed`: the 16-byte session id names the
 * session record, and the sealed seed (sealedSeed.ts) is bound to `sessionId:signerKey`, so a
 * handle opens only while its session exists, only for the key it was issued to, and only under
 * this node's secret. The seed itself is never stored: without the handle the store holds
 * nothing secret.
 *
 * The record adds what the browser frame keeps in its local storage: the level the user granted
 * (an app may claim a lower one, never a higher one, whatever HMAC it holds) and logout (the
 * record is deleted, which kills every handle of the session; the frame rotates its key instead).
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/types.js';
import { isAccessLevel, type AccessLevel } from './accessLevel.js';
import { IdentityError } from './errors.js';
import { messagingRoot } from './keys.js';
import { openSeed, SEALED_BYTES, sealSeed, type SealPurpose } from './sealedSeed.js';

export const SESSION_ID_BYTES = 16;
/** Characters of an `encryptedSeedHex` this node issues. */
export const HANDLE_CHARS = (SESSION_ID_BYTES + SEALED_BYTES) * 2;

const HANDLE = new RegExp(`^[0-9a-f]{${HANDLE_CHARS}}$`);

export interface IdentitySession {
  id: string;
  /** The account: the key whose transactions this session signs. */
  ownerPublicKeyBase58Check: string;
  /** Set when the sealed seed is a derived key of the owner (it signs with DeSo-DER). */
  derivedPublicKeyBase58Check: string | null;
  /** The level the user granted at login or approve. */
  level: AccessLevel;
  /** Whether an `encryptedMessagingKeyRandomness` handle was issued with the session. */
  hasMessagingRandomness: boolean;
  createdAtMs: number;
}

export interface NewSession {
  seed: Uint8Array;
  ownerPublicKeyBase58Check: string;
  derivedPublicKeyBase58Check?: string;
  level: AccessLevel;
  /**
   * Secret from which a derived-key session derives its messaging keys. Only its messaging root
   * (`sha256d`, keys.ts) is sealed into the handle: the secret may be the owner seed.
   */
  messagingRandomness?: Uint8Array;
}

export interface IssuedSession {
  session: IdentitySession;
  encryptedSeedHex: string;
  encryptedMessagingKeyRandomness?: string;
}

export interface OpenedSession {
  session: IdentitySession;
  /** The signing key (owner or derived). The caller wipes it when done. */
  seed: Uint8Array;
}

const sessionKey = (id: string): string => `identity:session:${id}`;

/** The one refusal for every handle that does not open, whatever the reason. */
function badHandle(): IdentityError {
  return new IdentityError('IDENTITY_BAD_SEED_HANDLE', 'encryptedSeedHex is invalid, was not issued by this node, or its session has ended');
}

export class SessionStore {
  constructor(
    private readonly store: Store,
    private readonly nodeSecret: Uint8Array,
    private readonly ttlMs: number,
  ) {}

  async create(input: NewSession): Promise<IssuedSession> {
    if (!isAccessLevel(input.level)) throw new RangeError(`"level" expected an access level, got ${String(input.level)}`);
    const id = randomBytes(SESSION_ID_BYTES).toString('hex');
    const session: IdentitySession = {
      id,
      ownerPublicKeyBase58Check: input.ownerPublicKeyBase58Check,
      derivedPublicKeyBase58Check: input.derivedPublicKeyBase58Check ?? null,
      level: input.level,
      hasMessagingRandomness: input.messagingRandomness !== undefined,
      createdAtMs: Date.now(),
    };
    const encryptedSeedHex = id + sealSeed(this.nodeSecret, input.seed, binding(session), 'seed');
    const issued: IssuedSession = { session, encryptedSeedHex };
    if (input.messagingRandomness !== undefined) {
      const root = messagingRoot(input.messagingRandomness);
      issued.encryptedMessagingKeyRandomness = id + sealSeed(this.nodeSecret, root, binding(session), 'messaging-root');
      root.fill(0);
    }
    await this.store.set(sessionKey(id), session, { ttlMs: this.ttlMs });
    return issued;
  }

  /**
   * The session and seed behind an `encryptedSeedHex`.
   * @throws {IdentityError} IDENTITY_BAD_SEED_HANDLE
   */
  async open(encryptedSeedHex: unknown): Promise<OpenedSession> {
    const session = await this.sessionOf(encryptedSeedHex);
    return { session, seed: this.unseal(encryptedSeedHex as string, session, 'seed') };
  }

  /**
   * The messaging root of a derived-key session, from its `encryptedMessagingKeyRandomness`.
   * Handles issued before roots were sealed (purpose messaging-randomness) no longer open: they
   * sealed the owner seed itself; such a session logs in again.
   * @throws {IdentityError} IDENTITY_BAD_SEED_HANDLE when it was not issued with this session
   */
  openMessagingRoot(session: IdentitySession, handle: unknown): Uint8Array {
    if (typeof handle !== 'string' || !HANDLE.test(handle) || handle.slice(0, SESSION_ID_BYTES * 2) !== session.id) {
      throw new IdentityError('IDENTITY_BAD_SEED_HANDLE', 'encryptedMessagingKeyRandomness is invalid or was not issued with this session');
    }
    try {
      return this.unseal(handle, session, 'messaging-root');
    } catch {
      throw new IdentityError('IDENTITY_BAD_SEED_HANDLE', 'encryptedMessagingKeyRandomness is invalid or was not issued with this session');
    }
  }

  /** Sets the granted level and renews the session's lifetime. */
  async setLevel(session: IdentitySession, level: AccessLevel): Promise<IdentitySession> {
    const updated: IdentitySession = { ...session, level };
    // Guarded on the record we read, so a logout racing an approve is not undone by it.
    const ok = await this.store.commit(
      [{ op: 'set', key: sessionKey(session.id), value: updated, ttlMs: this.ttlMs }],
      [{ key: sessionKey(session.id), equals: session }],
    );
    if (!ok) throw badHandle();
    return updated;
  }

  /** Ends the session: every handle issued with it stops opening. Returns whether it existed. */
  end(session: IdentitySession): Promise<boolean> {
    return this.store.delete(sessionKey(session.id));
  }

  private async sessionOf(encryptedSeedHex: unknown): Promise<IdentitySession> {
    if (typeof encryptedSeedHex !== 'string' || !HANDLE.test(encryptedSeedHex)) throw badHandle();
    const session = await this.store.get<IdentitySession>(sessionKey(encryptedSeedHex.slice(0, SESSION_ID_BYTES * 2)));
    if (session === undefined) throw badHandle();
    return session;
  }

  private unseal(handle: string, session: IdentitySession, purpose: SealPurpose): Uint8Array {
    try {
      return openSeed(this.nodeSecret, handle.slice(SESSION_ID_BYTES * 2), binding(session), purpose);
    } catch {
      throw badHandle();
    }
  }
}

/** What a sealed secret is bound to: this session and the key that signs with it. */
function binding(session: IdentitySession): string {
  return `${session.id}:${session.derivedPublicKeyBase58Check ?? session.ownerPublicKeyBase58Check}`;
}

