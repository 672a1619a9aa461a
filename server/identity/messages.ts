/**
 * The identity `decrypt` and `encrypt` methods' message logic (api-spec.md §4.1; reference
 * identity-and-crypto.md §2.7, §3): which key opens which message, batched through the crypto
 * pool. Plain functions over a CryptoService, testable without HTTP or sessions.
 *
 * Message kinds accepted by `decrypt`:
 * - V1 (`Legacy: true`): ECIES to the owner key. The sender cannot read its own (value "").
 * - V2 (`Version` absent or 2): shared secret of the owner key and `PublicKey`.
 * - V3 (`Version: 3`, access-group / "new message" scheme): shared secret of one of my
 *   access-group (messaging) keys and the other side's messaging key; for group chats my key is
 *   the group key, recovered from my member entry in `messagingGroups` / `accessGroups`.
 * - A `NewMessageEntryResponse` as the node's message routes return it (`ChatType`,
 *   `SenderInfo`, `RecipientInfo`, `MessageInfo`), read as V3; `ExtraData.unencrypted`
 *   messages are plain hex.
 *
 * Which private key is "my messaging key for name N" differs between the browser frame
 * (derive(seed, N)) and the SDK (derive(default messaging key, N) for N other than
 * `default-key`); both are tried, and the MAC check in the pool tells which one was used, so
 * no curve arithmetic runs on the event loop to decide.
 * @module
 */
import type { CryptoService } from '../crypto/service.js';
import { toHex as hex } from '../hex.js';
import type { DecryptRequest } from '../crypto/pack.js';
import { decodePublicKey, isKeyError, type Network } from '../keys/index.js';
import { DEFAULT_MESSAGING_KEY_NAME, messagingPrivateKey, messagingPrivateKeyFromRoot } from './keys.js';
import { DomainError } from '../errors.js';

/**
 * Most messages one `decrypt` request may carry: a frontend decrypts a page of a thread or the
 * latest message of each thread, far below this. Each message is one ECDH plus a hash and AES
 * (~0.1 ms of a worker), so the cap bounds a request to ~0.1 s of worker time, split in
 * DECRYPT_CHUNK tasks across the pool (crypto/service.ts).
 */
export const MAX_DECRYPT_MESSAGES = 1_000;
/**
 * Most decryption attempts (message × candidate key) one request may cost: an access-group
 * message may be tried with several of my keys, and group member entries add their own.
 */
export const MAX_DECRYPT_ATTEMPTS = 2 * MAX_DECRYPT_MESSAGES;
/** Most of my access-group member entries (each an encrypted group key to open) per request. */
export const MAX_DECRYPT_GROUP_MEMBERS = 1_000;
/** Most bytes of one message plaintext for `encrypt`. */
export const MAX_ENCRYPT_BYTES = 64 * 1024;

/** The keys a session can decrypt with. */
export interface MessagingSecrets {
  /** The owner's seed; null for derived-key sessions, which never hold it. */
  ownerSeed: Uint8Array | null;
  /**
   * `messagingRoot` of the secret the messaging keys derive from (the owner seed, or imported
   * messaging-key randomness): every messaging key, never the owner key.
   */
  messagingRoot: Uint8Array | null;
  /** The account's owner public key, Base58Check (to find my member entries and tell if I sent a message). */
  ownerPublicKeyBase58Check: string;
}

export class MessageRequestError extends DomainError {
  override readonly name = 'MessageRequestError';
  constructor(message: string) {
    super('MESSAGE_REQUEST_INVALID', 'invalid', message);
  }
}

export interface DecryptOutcome {
  decryptedHexes: Record<string, string>;
  /** Why an input was left out, keyed like decryptedHexes; only inputs that failed. */
  errors: Record<string, string>;
}

/** One message reduced to what decryption needs. */
interface Plan {
  key: string;
  /** Result without crypto (V1 sent by me, unencrypted message), or an error. */
  fixed?: { ok: true; text: string } | { ok: false; error: string };
  ciphertextHex?: string;
  /** Pairs to try in order: own private key, other party (undefined = V1 direct). */
  attempts?: Array<{ privateKey: Uint8Array; other?: Uint8Array }>;
}

interface GroupMember {
  ownerPublicKeyBase58Check: string;
  keyName: string;
  memberKeyName: string;
  encryptedKeyHex: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (o: Obj, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined);

/**
 * Decrypts a batch of messages. Inputs that cannot be read are absent from `decryptedHexes`
 * and named in `errors`; a malformed request as a whole throws MessageRequestError.
 */
export async function decryptMessages(
  crypto: CryptoService,
  network: Network,
  secrets: MessagingSecrets,
  messages: unknown,
  groups: { messagingGroups?: unknown; accessGroups?: unknown },
): Promise<DecryptOutcome> {
  if (!Array.isArray(messages)) throw new MessageRequestError('"encryptedMessages" expected an array of encrypted message objects');
  if (messages.length > MAX_DECRYPT_MESSAGES) {
    throw new MessageRequestError(`"encryptedMessages" expected at most ${MAX_DECRYPT_MESSAGES} messages, got ${messages.length}`);
  }
  const out: DecryptOutcome = { decryptedHexes: {}, errors: {} };
  const members = collectMembers(secrets, groups);
  if (members.length > MAX_DECRYPT_GROUP_MEMBERS) {
    throw new MessageRequestError(`at most ${MAX_DECRYPT_GROUP_MEMBERS} access-group member entries of this account per request, got ${members.length}`);
  }
  const groupKeys = await recoverGroupKeys(crypto, secrets, members);
  const plans = messages.map((m, i) => planMessage(m, i, network, secrets, groupKeys));
  const attempts = plans.reduce((n, p) => n + (p.attempts?.length ?? 0), 0);
  if (attempts > MAX_DECRYPT_ATTEMPTS) {
    throw new MessageRequestError(`these messages need ${attempts} decryption attempts; at most ${MAX_DECRYPT_ATTEMPTS} per request: send fewer messages or fewer access groups`);
  }

  let pending: Plan[] = [];
  for (const p of plans) {
    if (p.fixed !== undefined) {
      if (p.fixed.ok) out.decryptedHexes[p.key] = p.fixed.text;
      else out.errors[p.key] = p.fixed.error;
    } else if (p.attempts!.length === 0) {
      out.errors[p.key] = 'no key of this session can read this message';
    } else {
      pending.push(p);
    }
  }
  // Round r tries every pending message's r-th candidate key, batched by key pair.
  for (let round = 0; pending.length > 0; round++) {
    const results = await runDecryptRound(crypto, pending, round);
    const next: Plan[] = [];
    pending.forEach((p, i) => {
      const r = results[i]!;
      if (r.ok) out.decryptedHexes[p.key] = utf8(r.value);
      else if (round + 1 < p.attempts!.length) next.push(p);
      else out.errors[p.key] = r.error;
    });
    pending = next;
  }
  return out;
}

/** One pool request per distinct (private key, other key) pair of this round. */
async function runDecryptRound(
  crypto: CryptoService,
  plans: readonly Plan[],
  round: number,
): Promise<Array<{ ok: true; value: Uint8Array } | { ok: false; error: string }>> {
  const batches = new Map<string, { req: DecryptRequest & { ciphertexts: Uint8Array[] }; slots: number[] }>();
  const results: Array<{ ok: true; value: Uint8Array } | { ok: false; error: string }> = [];
  plans.forEach((p, i) => {
    const a = p.attempts![round]!;
    const id = hex(a.privateKey) + (a.other ? hex(a.other) : '');
    let b = batches.get(id);
    if (!b) {
      b = { req: { privateKey: a.privateKey, ...(a.other ? { otherPublicKey: a.other } : {}), ciphertexts: [] }, slots: [] };
      batches.set(id, b);
    }
    b.req.ciphertexts.push(new Uint8Array(Buffer.from(p.ciphertextHex!, 'hex')));
    b.slots.push(i);
  });
  await Promise.all(
    [...batches.values()].map(async (b) => {
      const rs = await crypto.decryptMessages(b.req);
      rs.forEach((r, k) => (results[b.slots[k]!] = r));
    }),
  );
  return results;
}

function planMessage(
  m: unknown,
  index: number,
  network: Network,
  secrets: MessagingSecrets,
  groupKeys: Map<string, Uint8Array>,
): Plan {
  if (!isObj(m)) return { key: `#${index}`, fixed: { ok: false, error: `message ${index} is not an object` } };
  if (isObj(m['MessageInfo'])) return planNewMessageEntry(m, index, network, secrets, groupKeys);

  const key = str(m, 'EncryptedHex');
  if (key === undefined || key.length === 0) return { key: `#${index}`, fixed: { ok: false, error: `message ${index} has no EncryptedHex` } };
  const fail = (error: string): Plan => ({ key, fixed: { ok: false, error } });
  if (!isCiphertextHex(key)) return fail('EncryptedHex is not hex');
  const isSender = m['IsSender'] === true;

  if (m['Legacy'] === true) {
    // V1 is encrypted to the recipient's owner key only: the sender has nothing to open it with.
    if (isSender) return { key, fixed: { ok: true, text: '' } };
    if (!secrets.ownerSeed) return fail('V1 messages need the owner key, which a derived-key session does not hold');
    return { key, ciphertextHex: key, attempts: [{ privateKey: secrets.ownerSeed }] };
  }
  const version = m['Version'];
  if (version === undefined || version === null || version === 2) {
    if (!secrets.ownerSeed) return fail('V2 messages need the owner key, which a derived-key session does not hold');
    const other = pubKey(str(m, 'PublicKey'), network);
    if (!other) return fail('PublicKey is not a valid public key');
    return { key, ciphertextHex: key, attempts: [{ privateKey: secrets.ownerSeed, other }] };
  }
  if (version !== 3) return fail(`Version ${JSON.stringify(version)} is not supported (2 or 3)`);

  const mine = isSender ? 'Sender' : 'Recipient';
  const theirs = isSender ? 'Recipient' : 'Sender';
  const other = pubKey(str(m, `${theirs}MessagingPublicKey`), network);
  if (!other) return fail(`${theirs}MessagingPublicKey is not a valid public key`);
  const myKeyName = str(m, `${mine}MessagingGroupKeyName`) ?? DEFAULT_MESSAGING_KEY_NAME;
  // For a received group message the group is the recipient's: owner unknown in this shape, so
  // any of my groups with that name may hold the key.
  const candidates = ownKeyCandidates(secrets, myKeyName, isSender ? [] : groupKeysNamed(groupKeys, myKeyName));
  return { key, ciphertextHex: key, attempts: candidates.map((privateKey) => ({ privateKey, other })) };
}

function planNewMessageEntry(
  m: Obj,
  index: number,
  network: Network,
  secrets: MessagingSecrets,
  groupKeys: Map<string, Uint8Array>,
): Plan {
  const info = m['MessageInfo'] as Obj;
  const key = str(info, 'EncryptedText');
  if (key === undefined || key.length === 0) return { key: `#${index}`, fixed: { ok: false, error: `message ${index} has no MessageInfo.EncryptedText` } };
  const fail = (error: string): Plan => ({ key, fixed: { ok: false, error } });
  if (!isCiphertextHex(key)) return fail('MessageInfo.EncryptedText is not hex');
  const extra = info['ExtraData'];
  if (isObj(extra) && extra['unencrypted'] !== undefined && extra['unencrypted'] !== '' && extra['unencrypted'] !== 'false' && extra['unencrypted'] !== false) {
    return { key, fixed: { ok: true, text: utf8(Buffer.from(key, 'hex')) } };
  }
  const sender = isObj(m['SenderInfo']) ? (m['SenderInfo'] as Obj) : {};
  const recipient = isObj(m['RecipientInfo']) ? (m['RecipientInfo'] as Obj) : {};
  const isSender = str(sender, 'OwnerPublicKeyBase58Check') === secrets.ownerPublicKeyBase58Check;
  const mineInfo = isSender ? sender : recipient;
  const theirInfo = isSender ? recipient : sender;
  const other = pubKey(str(theirInfo, 'AccessGroupPublicKeyBase58Check'), network);
  if (!other) return fail(`${isSender ? 'RecipientInfo' : 'SenderInfo'}.AccessGroupPublicKeyBase58Check is not a valid public key`);
  const myKeyName = str(mineInfo, 'AccessGroupKeyName') ?? DEFAULT_MESSAGING_KEY_NAME;
  const groupOwner = str(recipient, 'OwnerPublicKeyBase58Check');
  const fromGroups = isSender || groupOwner === undefined ? [] : [groupKeys.get(groupId(groupOwner, myKeyName))].filter((k): k is Uint8Array => k !== undefined);
  const candidates = ownKeyCandidates(secrets, myKeyName, fromGroups);
  return { key, ciphertextHex: key, attempts: candidates.map((privateKey) => ({ privateKey, other })) };
}

/**
 * My private keys that may be the access-group key named `keyName`, most likely first:
 * a recovered group key, the base key (name "" is the owner key itself), the frame's and the
 * SDK's derivations. Duplicates are dropped.
 */
function ownKeyCandidates(secrets: MessagingSecrets, keyName: string, groupKeys: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [...groupKeys];
  if (keyName === '') {
    if (secrets.ownerSeed) out.push(secrets.ownerSeed);
  } else if (secrets.messagingRoot) {
    out.push(safeDerive(() => messagingPrivateKeyFromRoot(secrets.messagingRoot!, keyName)));
    if (keyName !== DEFAULT_MESSAGING_KEY_NAME) {
      // The SDK derives named keys from the default-key messaging private key.
      const defaultKey = safeDerive(() => messagingPrivateKeyFromRoot(secrets.messagingRoot!, DEFAULT_MESSAGING_KEY_NAME));
      if (defaultKey.length === 32) out.push(safeDerive(() => messagingPrivateKey(defaultKey, keyName)));
    }
  }
  const seen = new Set<string>();
  return out.filter((k) => k.length === 32 && !seen.has(hex(k)) && (seen.add(hex(k)), true));
}

/** A derivation that (with probability ~2^-128) gives no key yields an empty array, dropped later. */
function safeDerive(derive: () => Uint8Array): Uint8Array {
  try {
    return derive();
  } catch {
    return new Uint8Array(0);
  }
}

const groupId = (owner: string, keyName: string): string => `${owner}\u0000${keyName}`;

function groupKeysNamed(groupKeys: Map<string, Uint8Array>, keyName: string): Uint8Array[] {
  return [...groupKeys].filter(([id]) => id.endsWith(`\u0000${keyName}`)).map(([, k]) => k);
}

/** My member entries in the groups the request carries, in either the legacy or the access-group shape. */
function collectMembers(secrets: MessagingSecrets, groups: { messagingGroups?: unknown; accessGroups?: unknown }): GroupMember[] {
  const me = secrets.ownerPublicKeyBase58Check;
  const out: GroupMember[] = [];
  if (Array.isArray(groups.messagingGroups)) {
    for (const g of groups.messagingGroups) {
      if (!isObj(g) || !Array.isArray(g['MessagingGroupMembers'])) continue;
      const owner = str(g, 'GroupOwnerPublicKeyBase58Check') ?? '';
      const keyName = str(g, 'MessagingGroupKeyName') ?? '';
      for (const mem of g['MessagingGroupMembers']) {
        if (!isObj(mem) || str(mem, 'GroupMemberPublicKeyBase58Check') !== me) continue;
        const encryptedKeyHex = str(mem, 'EncryptedKey');
        if (encryptedKeyHex) out.push({ ownerPublicKeyBase58Check: owner, keyName, memberKeyName: str(mem, 'GroupMemberKeyName') ?? DEFAULT_MESSAGING_KEY_NAME, encryptedKeyHex });
      }
    }
  }
  if (Array.isArray(groups.accessGroups)) {
    for (const g of groups.accessGroups) {
      if (!isObj(g) || !isObj(g['AccessGroupMemberEntryResponse'])) continue;
      const mem = g['AccessGroupMemberEntryResponse'] as Obj;
      if (str(mem, 'AccessGroupMemberPublicKeyBase58Check') !== me) continue;
      const encryptedKeyHex = str(mem, 'EncryptedKey');
      if (!encryptedKeyHex) continue;
      out.push({
        ownerPublicKeyBase58Check: str(g, 'AccessGroupOwnerPublicKeyBase58Check') ?? '',
        keyName: str(g, 'AccessGroupKeyName') ?? '',
        memberKeyName: str(mem, 'AccessGroupMemberKeyName') ?? DEFAULT_MESSAGING_KEY_NAME,
        encryptedKeyHex,
      });
    }
  }
  return out;
}

/**
 * Group private keys from my member entries: each `EncryptedKey` is V1 ECIES to my member key
 * of the ASCII hex of the group key (§3.4). Entries that do not open are skipped.
 */
async function recoverGroupKeys(crypto: CryptoService, secrets: MessagingSecrets, members: GroupMember[]): Promise<Map<string, Uint8Array>> {
  const groupKeys = new Map<string, Uint8Array>();
  let pending = members
    .filter((m) => isCiphertextHex(m.encryptedKeyHex))
    .map((m) => ({ m, candidates: ownKeyCandidates(secrets, m.memberKeyName, []) }))
    .filter((p) => p.candidates.length > 0);
  for (let round = 0; pending.length > 0; round++) {
    const plans: Plan[] = pending.map((p) => ({ key: '', ciphertextHex: p.m.encryptedKeyHex, attempts: p.candidates.map((privateKey) => ({ privateKey })) }));
    const results = await runDecryptRound(crypto, plans, round);
    const next: typeof pending = [];
    pending.forEach((p, i) => {
      const r = results[i]!;
      const text = r.ok ? Buffer.from(r.value).toString('latin1') : '';
      if (r.ok && /^[0-9a-fA-F]{64}$/.test(text)) {
        groupKeys.set(groupId(p.m.ownerPublicKeyBase58Check, p.m.keyName), new Uint8Array(Buffer.from(text, 'hex')));
      } else if (round + 1 < p.candidates.length) {
        next.push(p);
      }
    });
    pending = next;
  }
  return groupKeys;
}

export interface EncryptInput {
  recipientPublicKey: unknown;
  message: unknown;
  /** V1: ECIES to the recipient's key alone (the sender cannot read it back). */
  legacy: boolean;
  /** Sender access-group key name; absent = owner key (V2) or default-key for derived sessions. */
  senderGroupKeyName: unknown;
}

/** Encrypts one message (V2 shared secret unless `legacy`); returns the ciphertext hex. */
export async function encryptMessage(crypto: CryptoService, network: Network, secrets: MessagingSecrets, input: EncryptInput): Promise<string> {
  if (typeof input.recipientPublicKey !== 'string') throw new MessageRequestError('"recipientPublicKey" expected a Base58Check public key string');
  let recipient: Uint8Array;
  try {
    recipient = decodePublicKey(input.recipientPublicKey, network, 'recipientPublicKey');
  } catch (e) {
    if (isKeyError(e)) throw new MessageRequestError(e.message);
    throw e;
  }
  if (typeof input.message !== 'string') throw new MessageRequestError('"message" expected a string');
  const plaintext = new Uint8Array(Buffer.from(input.message, 'utf8'));
  if (plaintext.length > MAX_ENCRYPT_BYTES) throw new MessageRequestError(`"message" expected at most ${MAX_ENCRYPT_BYTES} bytes of UTF-8`);

  let senderPrivateKey: Uint8Array | undefined;
  if (!input.legacy) {
    const name = input.senderGroupKeyName;
    if (name !== undefined && typeof name !== 'string') throw new MessageRequestError('"senderGroupKeyName" expected a string');
    if (name === undefined && secrets.ownerSeed) senderPrivateKey = secrets.ownerSeed;
    else if (name === '') {
      if (!secrets.ownerSeed) throw new MessageRequestError('the base key ("" key name) is the owner key, which a derived-key session does not hold');
      senderPrivateKey = secrets.ownerSeed;
    } else {
      if (!secrets.messagingRoot) throw new MessageRequestError('this session has no messaging key');
      senderPrivateKey = messagingPrivateKeyFromRoot(secrets.messagingRoot, name ?? DEFAULT_MESSAGING_KEY_NAME);
    }
  }
  const [r] = await crypto.encryptMessages([{ recipientPublicKey: recipient, plaintext, ...(senderPrivateKey ? { senderPrivateKey } : {}) }]);
  if (!r || !r.ok) throw new MessageRequestError(r?.error ?? 'encryption failed');
  return hex(r.value);
}

function pubKey(value: string | undefined, network: Network): Uint8Array | undefined {
  if (value === undefined) return undefined;
  try {
    return decodePublicKey(value, network, 'public key');
  } catch {
    return undefined;
  }
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
/** Hex of at most 1 MiB of ciphertext (the request body limit bounds it anyway). */
function isCiphertextHex(s: string): boolean {
  return s.length <= 2 * 1024 * 1024 && HEX.test(s);
}

const decoder = new TextDecoder();
function utf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
