/**
 * The identity frame API as a node service (api-spec.md §4.1; identity-and-crypto.md §2):
 * login, approve and logout (the steps the spec assumes), then sign, encrypt, decrypt and jwt,
 * each gated by the session's access level. Transport-free: server/routes/identity.ts puts it
 * behind POST and a WebSocket.
 *
 * Every gated method runs the same checks, in this order:
 * 1. `encryptedSeedHex` opens (session exists, sealed by this node for this key) — else refused;
 * 2. `accessLevelHmac` is the HMAC of the claimed `accessLevel` under this key — else refused;
 * 3. the claimed level is not above what the user granted this session — else refused;
 * 4. the claimed level reaches the method's level — else `{approvalRequired: true}`.
 * Refusals are errors (HTTP 400 on POST, `{error}` payloads on the socket).
 *
 * All signing, ECDH and message crypto goes through the crypto pool (worker threads); the event
 * loop only runs hashes and HMACs. Login computes one public key in-process (it is rare next to
 * the gated methods); a mnemonic's PBKDF2 runs on libuv's thread pool.
 * @module
 */
import type { Logger } from 'pino';
import { sha256d } from '../../wasm/hash.js';
import { randomBytes } from 'node:crypto';
import type { CryptoService } from '../crypto/service.js';
import { toHex as hex } from '../hex.js';
import { decodeTxn } from '../chain/txn/envelope.js';
import { isTxnDecodeError } from '../chain/txn/errors.js';
import { decodePublicKey, encodePublicKey, isKeyError, type Network } from '../keys/index.js';
import { AccessLevel, accessLevelHmac, checkAccessLevel, isAccessLevel, METHOD_LEVELS } from './accessLevel.js';
import { bytesEqualConstantTime } from './constantTime.js';
import { IdentityError, IdentityRequestError } from './errors.js';
import { response, type IdentityRequest, type IdentityResponse } from './frames.js';
import { issueJwt } from './jwt.js';
import { DEFAULT_MESSAGING_KEY_NAME, isValidSeed, messagingKeyForSeed, messagingRoot, parseSeedHex, seedToKeys } from './keys.js';
import { decryptMessages, encryptMessage, MessageRequestError, type MessagingSecrets } from './messages.js';
import { generateMnemonic, mnemonicToPrivateKeyAsync } from './mnemonic.js';
import type { IdentitySession, SessionStore } from './sessions.js';
import { encodeDerSignature, signLevelForTxn, signTransaction } from './signTxn.js';

/** Lifetime of a token from the `jwt` method (spec §8: 10 minutes). */
export const JWT_LIFETIME_SECONDS = 600;
/** Derive defaults (reference §2.9): 30 days at one block per second. */
export const DEFAULT_DERIVED_KEY_EXPIRATION_BLOCKS = 30 * 86_400;
/** Longest accepted TransactionSpendingLimitHex (bytes). */
const MAX_SPENDING_LIMIT_BYTES = 64 * 1024;

export interface IdentityServiceDeps {
  crypto: CryptoService;
  sessions: SessionStore;
  network: Network;
  log: Logger;
  /** Current block height, for derived-key expiration defaults. */
  blockHeight?: () => Promise<number>;
}

type Payload = Record<string, unknown>;

const refuse = (message: string): IdentityRequestError => new IdentityRequestError(message);
const approvalRequired = (): Payload => ({ approvalRequired: true });

interface Gate {
  session: IdentitySession;
  seed: Uint8Array;
  level: AccessLevel;
}

export class IdentityService {
  constructor(private readonly deps: IdentityServiceDeps) {}

  /** Answers one request. Throws only what the transport maps to an error status. */
  async handle(req: IdentityRequest): Promise<IdentityResponse> {
    const p = req.payload;
    switch (req.method) {
      case 'login':
        return response(req.id, await this.login(p));
      case 'approve':
        return response(req.id, await this.approve(p));
      case 'logout':
        return response(req.id, await this.logout(p));
      case 'sign':
        return response(req.id, await this.withGate(p, (g) => this.sign(g, p)));
      case 'encrypt':
        return response(req.id, await this.withGate(p, (g) => this.encrypt(g, p)));
      case 'decrypt':
        return response(req.id, await this.withGate(p, (g) => this.decrypt(g, p)));
      case 'jwt':
        return response(req.id, await this.withGate(p, (g) => this.jwt(g, p)));
    }
  }

  // --- login / approve / logout -------------------------------------------------------------

  /**
   * Creates a session. Credentials, one of:
   * - none: a new key from a new 12-word mnemonic, returned once as `mnemonic`;
   * - `seedHex`; or `mnemonic` (+ `passphrase`, `accountNumber`): an existing owner key;
   * - `derivedSeedHex` + `ownerPublicKeyBase58Check`: an existing derived key of that owner;
   * - owner credentials + `derive: true`: a new derived key authorized by the owner key, with
   *   the access signature and messaging key signature authorize-derived-key needs.
   */
  private async login(p: Payload): Promise<Payload> {
    const level = requestedLevel(p['accessLevelRequest']);
    if (p['derive'] !== undefined && typeof p['derive'] !== 'boolean') throw refuse('"derive" expected a boolean');
    const derive = p['derive'] === true;
    const hasOwnerCredentials = p['seedHex'] !== undefined || p['mnemonic'] !== undefined;

    if (p['derivedSeedHex'] !== undefined && !derive) {
      if (hasOwnerCredentials) throw refuse('give either owner credentials (seedHex or mnemonic) or derivedSeedHex, not both');
      return this.loginDerivedImport(p, level);
    }
    if (derive && !hasOwnerCredentials) throw refuse('"derive" needs the owner key: seedHex or mnemonic');

    const creds = await this.ownerCredentials(p, true);
    try {
      const owner = seedToKeys(creds.seed, this.deps.network);
      if (derive) return await this.loginDerive(p, creds.seed, owner.publicKeyBase58Check, level);
      const issued = await this.deps.sessions.create({ seed: creds.seed, ownerPublicKeyBase58Check: owner.publicKeyBase58Check, level });
      return {
        ...this.userInfo(issued.session, creds.seed, issued.encryptedSeedHex),
        ...(creds.mnemonic !== undefined ? { mnemonic: creds.mnemonic } : {}),
      };
    } finally {
      creds.seed.fill(0);
    }
  }

  private async loginDerivedImport(p: Payload, level: AccessLevel): Promise<Payload> {
    const owner = this.publicKeyField(p, 'ownerPublicKeyBase58Check', true)!;
    const derivedSeed = seedField(p, 'derivedSeedHex');
    let randomness: Uint8Array | undefined;
    if (p['messagingKeyRandomnessHex'] !== undefined) {
      const r = p['messagingKeyRandomnessHex'];
      if (typeof r !== 'string' || !/^[0-9a-fA-F]{64}$/.test(r)) throw refuse('"messagingKeyRandomnessHex" expected 64 hex characters');
      randomness = new Uint8Array(Buffer.from(r, 'hex'));
    }
    try {
      const derived = seedToKeys(derivedSeed, this.deps.network);
      if (derived.publicKeyBase58Check === owner) throw refuse('"derivedSeedHex" is the owner key itself; log in with seedHex instead');
      const issued = await this.deps.sessions.create({
        seed: derivedSeed,
        ownerPublicKeyBase58Check: owner,
        derivedPublicKeyBase58Check: derived.publicKeyBase58Check,
        level,
        ...(randomness ? { messagingRandomness: randomness } : {}),
      });
      return {
        ...this.userInfo(issued.session, derivedSeed, issued.encryptedSeedHex),
        ...(issued.encryptedMessagingKeyRandomness ? { encryptedMessagingKeyRandomness: issued.encryptedMessagingKeyRandomness } : {}),
      };
    } finally {
      derivedSeed.fill(0);
      randomness?.fill(0);
    }
  }

  /**
   * The frame's derive flow, on the node: a derived key (new, or `derivedSeedHex`) with the
   * owner's access signature over `derivedPublicKey ‖ expirationBlock(u64 BE) ‖ spendingLimit`
   * and the default messaging key signed by the owner (reference §5.5, §1.4). The derived
   * session's messaging keys are the owner's own (what the SDK hands an app as
   * `messagingPrivateKey`), so its messaging randomness is the owner seed; the session seals only
   * its messaging root, `sha256d(ownerSeed)`, which derives every messaging key but, one way,
   * never gives the seed back: Redis read access plus the app's handles cannot sign for the owner.
   */
  private async loginDerive(p: Payload, ownerSeed: Uint8Array, ownerPk: string, level: AccessLevel): Promise<Payload> {
    const { crypto, network } = this.deps;
    const derivedSeed = p['derivedSeedHex'] !== undefined ? seedField(p, 'derivedSeedHex') : newSeed();
    try {
      const derived = seedToKeys(derivedSeed, network);
      if (derived.publicKeyBase58Check === ownerPk) throw refuse('"derivedSeedHex" is the owner key itself');
      const expirationBlock = await this.expirationBlock(p);
      const limit = hexField(p, 'transactionSpendingLimitHex', MAX_SPENDING_LIMIT_BYTES);
      const accessBytes = new Uint8Array(33 + 8 + limit.length);
      accessBytes.set(derived.publicKey33, 0);
      new DataView(accessBytes.buffer).setBigUint64(33, expirationBlock);
      accessBytes.set(limit, 41);

      const messaging = messagingKeyForSeed(ownerSeed, DEFAULT_MESSAGING_KEY_NAME);
      const messagingHashInput = new Uint8Array([...messaging.publicKey33, ...Buffer.from(DEFAULT_MESSAGING_KEY_NAME, 'utf8')]);
      const [accessSig, messagingSig] = await crypto.sign([
        { privateKey: ownerSeed, hash: sha256d(accessBytes) },
        { privateKey: ownerSeed, hash: sha256d(messagingHashInput) },
      ]);
      messaging.privateKey.fill(0);
      if (!accessSig?.ok || !messagingSig?.ok) throw refuse('could not sign the derived-key authorization');

      const issued = await this.deps.sessions.create({
        seed: derivedSeed,
        ownerPublicKeyBase58Check: ownerPk,
        derivedPublicKeyBase58Check: derived.publicKeyBase58Check,
        level,
        messagingRandomness: ownerSeed,
      });
      const [jwt, derivedJwt] = await Promise.all([
        issueJwt(crypto, ownerSeed, { lifetimeSeconds: JWT_LIFETIME_SECONDS }),
        issueJwt(crypto, derivedSeed, { lifetimeSeconds: JWT_LIFETIME_SECONDS, derivedPublicKeyBase58Check: derived.publicKeyBase58Check }),
      ]);
      return {
        ...this.userInfo(issued.session, derivedSeed, issued.encryptedSeedHex),
        encryptedMessagingKeyRandomness: issued.encryptedMessagingKeyRandomness,
        expirationBlock: Number(expirationBlock),
        transactionSpendingLimitHex: hex(limit),
        accessBytesHex: hex(accessBytes),
        accessSignature: hex(encodeDerSignature(accessSig.value.signature)),
        messagingPublicKeyBase58Check: encodePublicKey(messaging.publicKey33, network),
        messagingKeyName: DEFAULT_MESSAGING_KEY_NAME,
        messagingKeySignature: hex(encodeDerSignature(messagingSig.value.signature)),
        jwt,
        derivedJwt,
      };
    } finally {
      derivedSeed.fill(0);
    }
  }

  /**
   * Raises (or lowers) the session's granted level, or signs one transaction the session's
   * level does not cover. The user's consent is proven the only way a node can: by the key's
   * own credentials (`seedHex`, `mnemonic`, or `derivedSeedHex` for a derived session), which
   * must give the session's key. An app holding only the handle cannot raise its own level.
   */
  private async approve(p: Payload): Promise<Payload> {
    const opened = await this.deps.sessions.open(p['encryptedSeedHex']);
    try {
      const { session, seed } = opened;
      const proof =
        session.derivedPublicKeyBase58Check !== null
          ? seedField(p, 'derivedSeedHex')
          : (await this.ownerCredentials(p, false)).seed;
      const matches = bytesEqualConstantTime(proof, seed);
      proof.fill(0);
      if (!matches) throw refuse('the credentials given do not belong to this session\'s key');

      const out: Payload = {};
      if (p['accessLevelRequest'] !== undefined) {
        const level = requestedLevel(p['accessLevelRequest']);
        const updated = await this.deps.sessions.setLevel(session, level);
        Object.assign(out, { accessLevel: updated.level, accessLevelHmac: accessLevelHmac(hex(seed), updated.level) });
      }
      if (p['transactionHex'] !== undefined) {
        const txn = this.transaction(p, session);
        out['signedTransactionHex'] = hex(await signTransaction(this.deps.crypto, txn.bytes, seed, { derived: session.derivedPublicKeyBase58Check !== null }));
      }
      if (Object.keys(out).length === 0) throw refuse('approve needs accessLevelRequest or transactionHex');
      return out;
    } finally {
      opened.seed.fill(0);
    }
  }

  /** Ends the session; every handle issued with it stops working. */
  private async logout(p: Payload): Promise<Payload> {
    const opened = await this.deps.sessions.open(p['encryptedSeedHex']);
    opened.seed.fill(0);
    await this.deps.sessions.end(opened.session);
    return { loggedOut: true };
  }

  // --- gated methods ------------------------------------------------------------------------

  /** Checks 1–3 of the module comment, then runs `fn` with the opened seed (wiped afterwards). */
  private async withGate(p: Payload, fn: (g: Gate) => Promise<Payload>): Promise<Payload> {
    const { session, seed } = await this.deps.sessions.open(p['encryptedSeedHex']);
    try {
      const claimed = p['accessLevel'];
      if (!isAccessLevel(claimed)) throw refuse('"accessLevel" expected an integer 0..4');
      if (!checkAccessLevel(hex(seed), claimed, p['accessLevelHmac'], AccessLevel.None)) {
        throw refuse('accessLevelHmac does not match accessLevel for this key');
      }
      if (claimed > session.level) throw refuse(`accessLevel ${claimed} is above the level granted to this session (${session.level}); call approve`);
      this.checkDerivedClaims(p, session);
      return await fn({ session, seed, level: claimed });
    } finally {
      seed.fill(0);
    }
  }

  private async sign(g: Gate, p: Payload): Promise<Payload> {
    const txn = this.transaction(p, g.session);
    if (g.level < Math.max(METHOD_LEVELS.sign, txn.level)) return approvalRequired();
    const signed = await signTransaction(this.deps.crypto, txn.bytes, g.seed, { derived: g.session.derivedPublicKeyBase58Check !== null });
    return { signedTransactionHex: hex(signed) };
  }

  private async encrypt(g: Gate, p: Payload): Promise<Payload> {
    if (g.level < METHOD_LEVELS.encrypt) return approvalRequired();
    const secrets = this.messagingSecrets(g, p);
    if (secrets === null) return { encryptedMessage: '', requiresEncryptedMessagingKeyRandomness: true };
    try {
      if (p['legacy'] !== undefined && typeof p['legacy'] !== 'boolean') throw refuse('"legacy" expected a boolean');
      const encryptedMessage = await encryptMessage(this.deps.crypto, this.deps.network, secrets, {
        recipientPublicKey: p['recipientPublicKey'],
        message: p['message'],
        legacy: p['legacy'] === true,
        senderGroupKeyName: p['senderGroupKeyName'],
      });
      return { encryptedMessage };
    } finally {
      wipeSecrets(secrets, g.seed);
    }
  }

  private async decrypt(g: Gate, p: Payload): Promise<Payload> {
    if (g.level < METHOD_LEVELS.decrypt) return approvalRequired();
    const secrets = this.messagingSecrets(g, p);
    if (secrets === null) return { decryptedHexes: {}, requiresEncryptedMessagingKeyRandomness: true };
    try {
      const messages = p['encryptedMessages'] ?? p['encryptedMessage'] ?? legacyHexes(p['encryptedHexes']);
      if (messages === undefined) throw refuse('"encryptedMessages" (or "encryptedMessage") expected an array of encrypted message objects');
      const outcome = await decryptMessages(this.deps.crypto, this.deps.network, secrets, messages, {
        messagingGroups: p['messagingGroups'],
        accessGroups: p['accessGroups'],
      });
      return {
        decryptedHexes: outcome.decryptedHexes,
        ...(Object.keys(outcome.errors).length > 0 ? { errors: outcome.errors } : {}),
      };
    } finally {
      wipeSecrets(secrets, g.seed);
    }
  }

  private async jwt(g: Gate, _p: Payload): Promise<Payload> {
    if (g.level < METHOD_LEVELS.jwt) return approvalRequired();
    const derived = g.session.derivedPublicKeyBase58Check;
    const jwt = await issueJwt(this.deps.crypto, g.seed, {
      lifetimeSeconds: JWT_LIFETIME_SECONDS,
      ...(derived !== null ? { derivedPublicKeyBase58Check: derived } : {}),
    });
    return { jwt };
  }

  // --- helpers ------------------------------------------------------------------------------

  /** A derived-key claim in the payload must name this session's keys. */
  private checkDerivedClaims(p: Payload, session: IdentitySession): void {
    const claimedDerived = p['derivedPublicKeyBase58Check'];
    if (claimedDerived !== undefined && claimedDerived !== null && claimedDerived !== '') {
      if (session.derivedPublicKeyBase58Check === null) throw refuse('"derivedPublicKeyBase58Check" is set, but this session holds an owner key');
      if (claimedDerived !== session.derivedPublicKeyBase58Check) throw refuse('"derivedPublicKeyBase58Check" is not this session\'s derived key');
    }
    const claimedOwner = p['ownerPublicKeyBase58Check'];
    if (typeof claimedOwner === 'string' && claimedOwner !== '' && claimedOwner !== session.ownerPublicKeyBase58Check) {
      throw refuse('"ownerPublicKeyBase58Check" is not the owner of this session\'s key');
    }
  }

  /**
   * Keys for encrypt/decrypt; null means "requires messaging-key randomness": a derived-key
   * session must send both its owner key and its `encryptedMessagingKeyRandomness` (spec §4.1).
   */
  private messagingSecrets(g: Gate, p: Payload): MessagingSecrets | null {
    const { session, seed } = g;
    if (session.derivedPublicKeyBase58Check === null) {
      return { ownerSeed: seed, messagingRoot: messagingRoot(seed), ownerPublicKeyBase58Check: session.ownerPublicKeyBase58Check };
    }
    const owner = p['ownerPublicKeyBase58Check'];
    const randomness = p['encryptedMessagingKeyRandomness'];
    if (typeof owner !== 'string' || owner === '' || typeof randomness !== 'string' || randomness === '') return null;
    return {
      ownerSeed: null,
      messagingRoot: this.deps.sessions.openMessagingRoot(session, randomness),
      ownerPublicKeyBase58Check: session.ownerPublicKeyBase58Check,
    };
  }

  private transaction(p: Payload, session: IdentitySession): { bytes: Uint8Array; level: 3 | 4 } {
    const txHex = p['transactionHex'];
    if (typeof txHex !== 'string' || txHex.length === 0 || txHex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(txHex)) {
      throw refuse('"transactionHex" expected the unsigned transaction as hex');
    }
    const bytes = new Uint8Array(Buffer.from(txHex, 'hex'));
    let txn;
    try {
      txn = decodeTxn(bytes);
    } catch (e) {
      if (isTxnDecodeError(e)) throw refuse(`"transactionHex" is not a valid transaction: ${e.message}`);
      throw e;
    }
    const expected = decodePublicKey(session.ownerPublicKeyBase58Check, this.deps.network, 'owner');
    if (!bytesEqualConstantTime(txn.publicKey, expected)) {
      throw refuse(`the transaction's public key is not this session's account ${session.ownerPublicKeyBase58Check}`);
    }
    return { bytes, level: signLevelForTxn(txn) };
  }

  /** The owner key from `seedHex` or `mnemonic`; with `create`, a new mnemonic when neither is given. */
  private async ownerCredentials(p: Payload, create: boolean): Promise<{ seed: Uint8Array; mnemonic?: string }> {
    if (p['seedHex'] !== undefined && p['mnemonic'] !== undefined) throw refuse('give seedHex or mnemonic, not both');
    if (p['seedHex'] !== undefined) return { seed: seedField(p, 'seedHex') };
    const opts = { passphrase: p['passphrase'] ?? p['extraText'] ?? '', accountNumber: p['accountNumber'] ?? 0 } as {
      passphrase: string;
      accountNumber: number;
    };
    if (p['mnemonic'] !== undefined) return { seed: await mnemonicToPrivateKeyAsync(p['mnemonic'] as string, opts) };
    if (!create) throw refuse('approve needs the key\'s credentials: seedHex or mnemonic');
    const mnemonic = generateMnemonic(128);
    return { seed: await mnemonicToPrivateKeyAsync(mnemonic, opts), mnemonic };
  }

  private publicKeyField(p: Payload, field: string, required: boolean): string | undefined {
    const v = p[field];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string') throw refuse(`"${field}" expected a Base58Check public key string`);
    try {
      return encodePublicKey(decodePublicKey(v, this.deps.network, field), this.deps.network);
    } catch (e) {
      if (isKeyError(e)) throw refuse(e.message);
      throw e;
    }
  }

  private async expirationBlock(p: Payload): Promise<bigint> {
    const v = p['expirationBlock'];
    if (v === undefined) {
      const height = (await this.deps.blockHeight?.()) ?? 0;
      return BigInt(height + DEFAULT_DERIVED_KEY_EXPIRATION_BLOCKS);
    }
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
    if (typeof v === 'string' && /^\d{1,20}$/.test(v) && BigInt(v) < 1n << 64n) return BigInt(v);
    throw refuse('"expirationBlock" expected a non-negative integer (uint64)');
  }

  /** What the app keeps after login (the frame's PublicUserInfo, reference §2.9). */
  private userInfo(session: IdentitySession, seed: Uint8Array, encryptedSeedHex: string): Payload {
    return {
      publicKeyBase58Check: session.ownerPublicKeyBase58Check,
      ...(session.derivedPublicKeyBase58Check !== null ? { derivedPublicKeyBase58Check: session.derivedPublicKeyBase58Check } : {}),
      encryptedSeedHex,
      accessLevel: session.level,
      accessLevelHmac: accessLevelHmac(hex(seed), session.level),
      network: this.deps.network,
      loginMethod: 'DESO',
    };
  }
}

/** accessLevelRequest: 2, 3 or 4 (default 2, as the frame). */
function requestedLevel(v: unknown): AccessLevel {
  if (v === undefined) return AccessLevel.ApproveAll;
  if (v === AccessLevel.ApproveAll || v === AccessLevel.ApproveLarge || v === AccessLevel.Full) return v;
  throw refuse('"accessLevelRequest" expected 2, 3 or 4');
}

function seedField(p: Payload, field: string): Uint8Array {
  try {
    return parseSeedHex(p[field]);
  } catch (e) {
    // parseSeedHex names "seed"; say which field, never the value.
    if (e instanceof IdentityError) throw refuse(`"${field}" expected 64 hex characters encoding a secp256k1 private key`);
    throw e;
  }
}

function hexField(p: Payload, field: string, maxBytes: number): Uint8Array {
  const v = p[field];
  if (v === undefined || v === '') return new Uint8Array(0);
  if (typeof v !== 'string' || v.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(v)) throw refuse(`"${field}" expected hex`);
  if (v.length / 2 > maxBytes) throw refuse(`"${field}" expected at most ${maxBytes} bytes`);
  return new Uint8Array(Buffer.from(v, 'hex'));
}

/** The frame's oldest decrypt form: `encryptedHexes: string[]` of V1 messages. */
function legacyHexes(v: unknown): unknown {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new MessageRequestError('"encryptedHexes" expected an array of hex strings');
  return v.map((h) => ({ EncryptedHex: h, Legacy: true, IsSender: false }));
}

function newSeed(): Uint8Array {
  // A uniformly random 32-byte string is a valid key except with probability ~2^-128.
  for (;;) {
    const s: Uint8Array = new Uint8Array(randomBytes(32));
    if (isValidSeed(s)) return s;
    (s as Uint8Array).fill(0);
  }
}

function wipeSecrets(secrets: MessagingSecrets, _seed: Uint8Array): void {
  // The owner seed is the gate's and wiped there; the messaging root is always ours.
  secrets.messagingRoot?.fill(0);
}

