/**
 * The identity frame API service (api-spec.md §4.1; identity-and-crypto.md §2–4), without HTTP:
 * login / approve / logout, the access-level gate, sign, encrypt, decrypt and jwt, checked
 * against the official SDK (deso-protocol) both ways and against shared/vectors/sdk-vectors.json.
 */
import { toErrorReply } from '../../server/http/errors.js';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decrypt as sdkDecrypt, decryptChatMessage, encrypt as sdkEncrypt, encryptChatMessage, getSignedJWT, keygen, publicKeyToBase58Check } from 'deso-protocol';
import { pino } from 'pino';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { accessLevelHmac } from '../../server/identity/accessLevel.js';
import { response, type IdentityMethod, type IdentityResponse } from '../../server/identity/frames.js';
import { JwtVerifier, NO_DERIVED_KEYS } from '../../server/identity/jwt.js';
import { IdentityService } from '../../server/identity/service.js';
import { MAX_DECRYPT_GROUP_MEMBERS, MAX_DECRYPT_MESSAGES } from '../../server/identity/messages.js';
import { SessionStore } from '../../server/identity/sessions.js';
import { decodeDerSignature, LEVEL3_MAX_FEE_NANOS } from '../../server/identity/signTxn.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import { answerFrame } from '../../server/http/identityFrames.js';
import { openStore } from '../../server/store/index.js';
import type { Store } from '../../server/store/types.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

// --- vectors -------------------------------------------------------------------------------

interface Txn {
  description: string;
  unsignedTxHex: string;
  hashToSignHex: string;
  signerSeedHex: string;
  signerPublicKeyBase58Check: string;
  isDerivedKey: boolean;
  ownerPublicKeyBase58Check?: string;
  deterministicRfc6979Reference: { signedHex: string };
}
interface V2Case {
  senderSeedHex: string;
  senderPublicKeyBase58Check: string;
  recipientSeedHex: string;
  recipientPublicKeyBase58Check: string;
  messages: Array<{ plaintext: string; ciphertextHex: string }>;
}
interface Vectors {
  keys: Array<{ seedHex: string; mainnetBase58Check: string; testnetBase58Check: string }>;
  transactions: Txn[];
  v1Legacy: Array<{ recipientSeedHex: string; recipientPublicKeyBase58Check: string; plaintext: string; ciphertextHex: string }>;
  v2SharedSecret: V2Case[];
  v2DoubleEncoded: { recipientSeedHex: string; senderPublicKeyBase58Check: string; doubleEncodedHex: string; expectedPlaintext: string };
  edgeLeadingZeroSharedSecret: { recipientSeedHex: string; senderPublicKeyBase58Check: string; plaintext: string; sdkCiphertextHex: string };
  derivedKeyAuthorization: {
    ownerSeedHex: string;
    ownerPublicKeyBase58Check: string;
    derivedSeedHex: string;
    derivedPublicKeyBase58Check: string;
    expirationBlock: number;
    transactionSpendingLimitHex: string;
    accessBytesHex: string;
    accessBytesHashHex: string;
    messagingPublicKeyBase58Check: string;
    messagingKeyHashHex: string;
  };
  accessGroupsV3: {
    owner: { seedHex: string; publicKeyBase58Check: string; defaultKeyPublicBase58Check: string };
    member: { seedHex: string; publicKeyBase58Check: string; defaultKeyPublicBase58Check: string };
    dm: { plaintext: string; newMessageEntryResponse: NewMessage };
    unencryptedDm: { message: NewMessage; plaintext?: string };
    group: {
      groupKeyName: string;
      groupKeys: { AccessGroupPublicKeyBase58Check: string };
      memberEncryptedKeyHex: string;
      plaintext: string;
      newMessageEntryResponse: NewMessage;
    };
  };
}
interface NewMessage {
  ChatType: string;
  SenderInfo: { OwnerPublicKeyBase58Check: string; AccessGroupPublicKeyBase58Check: string; AccessGroupKeyName: string };
  RecipientInfo: { OwnerPublicKeyBase58Check: string; AccessGroupPublicKeyBase58Check: string; AccessGroupKeyName: string };
  MessageInfo: { EncryptedText: string; ExtraData: Record<string, string> };
}

const V = readSharedVectors<Vectors>('sdk-vectors.json');
const OWNER = V.transactions[0]!;

// --- harness -------------------------------------------------------------------------------

const log = pino({ level: 'silent' });
let store: Store;
let service: IdentityService;
let sessions: SessionStore;
const crypto = new InlineCrypto();
const nodeSecret = new Uint8Array(randomBytes(32));

before(async () => {
  store = await openStore({});
  sessions = new SessionStore(store, nodeSecret, 3_600_000);
  service = new IdentityService({ crypto, sessions, network: 'mainnet', log });
});
after(async () => {
  await store.close();
  await crypto.close();
});

let nextId = 0;
type P = Record<string, unknown>;

async function call(method: IdentityMethod, payload: P): Promise<IdentityResponse & { status: number }> {
  const id = `req-${++nextId}`;
  const { status, response: r } = await answerFrame(service, { value: { id, service: 'identity', method, payload } }, log);
  assert.equal(r.id, id, 'the response carries the request id');
  assert.equal(r.service, 'identity');
  return { ...r, status };
}

/** Payload of a successful call; fails the test with the error otherwise. */
async function ok(method: IdentityMethod, payload: P): Promise<P> {
  const r = await call(method, payload);
  assert.equal(r.status, 200, `${method} answered ${r.status}: ${String(r.payload['error'])}`);
  return r.payload;
}

async function refused(method: IdentityMethod, payload: P, re: RegExp): Promise<void> {
  const r = await call(method, payload);
  assert.equal(r.status, 400, `${method} should be refused, got ${r.status} ${JSON.stringify(r.payload)}`);
  assert.match(String(r.payload['error']), re);
}

interface Login {
  publicKeyBase58Check: string;
  derivedPublicKeyBase58Check?: string;
  encryptedSeedHex: string;
  accessLevel: number;
  accessLevelHmac: string;
  encryptedMessagingKeyRandomness?: string;
  mnemonic?: string;
}

async function login(payload: P): Promise<Login> {
  return (await ok('login', payload)) as unknown as Login;
}

const session = (l: Login): P => ({ encryptedSeedHex: l.encryptedSeedHex, accessLevel: l.accessLevel, accessLevelHmac: l.accessLevelHmac });
/** Session values claiming `level`, with the HMAC a holder of the seed would compute. */
const claim = (l: Login, seedHex: string, level: 0 | 1 | 2 | 3 | 4): P => ({ ...session(l), accessLevel: level, accessLevelHmac: accessLevelHmac(seedHex, level) });

const sha256 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest());
const sha256d = (b: Uint8Array): Uint8Array => sha256(sha256(b));
const pubHex = (seedHex: string): string => bytesToHex(secp256k1.getPublicKey(hexToBytes(seedHex), true));

/** A v1 unsigned txn of `type` by `pubKey33` with no outputs (enough for the level rules). */
function unsignedTxn(type: number, pubKey33: Uint8Array, outputs: Array<Uint8Array> = [], feeNanos = 0n): string {
  const bytes = [0x00, outputs.length];
  for (const o of outputs) bytes.push(...o, 0x01);
  bytes.push(type, 0x00, 33, ...pubKey33, 0x00, 0x00, 0x01, ...encodeUvarint(feeNanos), 0x00, 0x00);
  return bytesToHex(Uint8Array.from(bytes));
}

// --- login / approve / logout --------------------------------------------------------------

describe('identity login', () => {
  it('creates a new key from a new mnemonic, returned once; importing it gives the same key', async () => {
    const created = await login({});
    assert.equal(typeof created.mnemonic, 'string', 'a created key comes with its mnemonic');
    assert.equal(created.mnemonic!.split(' ').length, 12);
    assert.equal(created.accessLevel, 2, 'default level is 2');
    assert.match(created.publicKeyBase58Check, /^BC1YL/);
    const again = await login({ mnemonic: created.mnemonic, accessLevelRequest: 3 });
    assert.equal(again.publicKeyBase58Check, created.publicKeyBase58Check);
    assert.equal(again.mnemonic, undefined, 'an imported key is never echoed');
    assert.notEqual(again.encryptedSeedHex, created.encryptedSeedHex, 'each login is its own session');
  });

  it('imports a seed hex: public key and accessLevelHmac as the frame computes them', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex, accessLevelRequest: 4 });
    assert.equal(l.publicKeyBase58Check, OWNER.signerPublicKeyBase58Check);
    assert.equal(l.accessLevel, 4);
    assert.equal(l.accessLevelHmac, accessLevelHmac(OWNER.signerSeedHex, 4));
    assert.equal(l.encryptedSeedHex.length, 194, 'session id (16 bytes) ‖ sealed seed (81 bytes), hex');
    assert.ok(!l.encryptedSeedHex.includes(OWNER.signerSeedHex), 'the seed is not visible in the handle');
  });

  it('imports a mnemonic account (BIP39 passphrase and account number)', async () => {
    const m = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    const a0 = await login({ mnemonic: m });
    const a1 = await login({ mnemonic: m, accountNumber: 1 });
    const p = await login({ mnemonic: m, passphrase: 'TREZOR' });
    assert.equal(new Set([a0.publicKeyBase58Check, a1.publicKeyBase58Check, p.publicKeyBase58Check]).size, 3, 'three different accounts');
  });

  it('refuses bad credentials with clear errors that never echo them', async () => {
    await refused('login', { seedHex: 'zz' }, /"seedHex" expected 64 hex characters/);
    await refused('login', { seedHex: '00'.repeat(32) }, /secp256k1 private key/);
    await refused('login', { mnemonic: 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo' }, /not a valid BIP39/);
    await refused('login', { seedHex: OWNER.signerSeedHex, mnemonic: 'x' }, /not both/);
    await refused('login', { seedHex: OWNER.signerSeedHex, accessLevelRequest: 1 }, /2, 3 or 4/);
    await refused('login', { seedHex: OWNER.signerSeedHex, accessLevelRequest: '4' }, /2, 3 or 4/);
    await refused('login', { derive: true }, /needs the owner key/);
    await refused('login', { derivedSeedHex: V.derivedKeyAuthorization.derivedSeedHex }, /ownerPublicKeyBase58Check/);
    const r = await call('login', { seedHex: `${OWNER.signerSeedHex.slice(0, 62)}zz` });
    assert.ok(!JSON.stringify(r).includes(OWNER.signerSeedHex.slice(0, 62)), 'error does not echo the seed');
  });

  it('derive: the access signature and messaging key signature of the SDK derive payload', async () => {
    const d = V.derivedKeyAuthorization;
    const l = (await ok('login', {
      seedHex: d.ownerSeedHex,
      derive: true,
      derivedSeedHex: d.derivedSeedHex,
      expirationBlock: d.expirationBlock,
      transactionSpendingLimitHex: d.transactionSpendingLimitHex,
      accessLevelRequest: 3,
    })) as P;
    assert.equal(l['publicKeyBase58Check'], d.ownerPublicKeyBase58Check);
    assert.equal(l['derivedPublicKeyBase58Check'], d.derivedPublicKeyBase58Check);
    assert.equal(l['accessBytesHex'], d.accessBytesHex, 'access bytes byte-equal to the SDK payload');
    assert.equal(l['messagingPublicKeyBase58Check'], d.messagingPublicKeyBase58Check);
    assert.equal(l['messagingKeyName'], 'default-key');
    assert.equal(l['accessLevelHmac'], accessLevelHmac(d.derivedSeedHex, 3), 'HMAC keyed by the derived seed');
    const owner = hexToBytes(pubHex(d.ownerSeedHex));
    const access = decodeDerSignature(hexToBytes(l['accessSignature'] as string));
    assert.equal(bytesToHex(sha256d(hexToBytes(d.accessBytesHex))), d.accessBytesHashHex);
    assert.ok(secp256k1.verify(access.compact, hexToBytes(d.accessBytesHashHex), owner, { prehash: false }), 'access signature by the owner');
    const msg = decodeDerSignature(hexToBytes(l['messagingKeySignature'] as string));
    assert.ok(secp256k1.verify(msg.compact, hexToBytes(d.messagingKeyHashHex), owner, { prehash: false }), 'messaging key signature by the owner');
    assert.equal(typeof l['encryptedMessagingKeyRandomness'], 'string', 'randomness handle issued');
    assert.ok(!JSON.stringify(l).includes(d.derivedSeedHex.slice(-20)) || d.derivedSeedHex.slice(-20) === '0'.repeat(19) + '1', 'no seed in the payload');
  });

  it('derive without derivedSeedHex makes a fresh derived key each time', async () => {
    const a = await login({ seedHex: OWNER.signerSeedHex, derive: true });
    const b = await login({ seedHex: OWNER.signerSeedHex, derive: true });
    assert.notEqual(a.derivedPublicKeyBase58Check, b.derivedPublicKeyBase58Check);
    assert.equal(a.publicKeyBase58Check, OWNER.signerPublicKeyBase58Check);
  });
});

describe('identity approve and logout', () => {
  it('approve raises the granted level when given the key\'s credentials; the new HMAC works', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex, accessLevelRequest: 2 });
    const tx = { transactionHex: OWNER.unsignedTxHex };
    assert.deepEqual((await ok('sign', { ...session(l), ...tx })), { approvalRequired: true });
    const up = await ok('approve', { encryptedSeedHex: l.encryptedSeedHex, accessLevelRequest: 4, seedHex: OWNER.signerSeedHex });
    assert.equal(up['accessLevel'], 4);
    const signed = await ok('sign', { ...session(l), accessLevel: 4, accessLevelHmac: up['accessLevelHmac'], ...tx });
    assert.equal(signed['signedTransactionHex'], OWNER.deterministicRfc6979Reference.signedHex);
  });

  it('approve refuses credentials of another key and needs something to approve', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex });
    await refused('approve', { encryptedSeedHex: l.encryptedSeedHex, accessLevelRequest: 4, seedHex: V.keys[1]!.seedHex }, /do not belong/);
    await refused('approve', { encryptedSeedHex: l.encryptedSeedHex, accessLevelRequest: 4 }, /credentials/);
    await refused('approve', { encryptedSeedHex: l.encryptedSeedHex, seedHex: OWNER.signerSeedHex }, /accessLevelRequest or transactionHex/);
  });

  it('approve signs one transaction the session level does not cover', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex });
    const r = await ok('approve', { encryptedSeedHex: l.encryptedSeedHex, seedHex: OWNER.signerSeedHex, transactionHex: OWNER.unsignedTxHex });
    assert.equal(r['signedTransactionHex'], OWNER.deterministicRfc6979Reference.signedHex);
  });

  it('logout ends the session: its handle is refused afterwards, other sessions go on', async () => {
    const a = await login({ seedHex: OWNER.signerSeedHex });
    const b = await login({ seedHex: OWNER.signerSeedHex });
    assert.deepEqual(await ok('logout', { encryptedSeedHex: a.encryptedSeedHex }), { loggedOut: true });
    await refused('jwt', session(a), /session has ended/);
    await refused('logout', { encryptedSeedHex: a.encryptedSeedHex }, /invalid/);
    assert.equal(typeof (await ok('jwt', session(b)))['jwt'], 'string', 'other session unaffected');
  });
});

// --- the gate ------------------------------------------------------------------------------

describe('identity access levels', () => {
  const seedHex = OWNER.signerSeedHex;
  const follow = unsignedTxn(9, hexToBytes(pubHex(seedHex)));
  const cases: Array<[IdentityMethod, P, 0 | 1 | 2 | 3]> = [
    ['jwt', {}, 1],
    ['encrypt', { recipientPublicKey: V.keys[1]!.mainnetBase58Check, message: 'hi' }, 1],
    ['decrypt', { encryptedMessages: [] }, 1],
    ['sign', { transactionHex: follow }, 2],
    ['sign', { transactionHex: OWNER.unsignedTxHex }, 3],
  ];
  for (const [method, extra, below] of cases) {
    it(`${method} at level ${below} (below its minimum) answers {approvalRequired: true}`, async () => {
      const l = await login({ seedHex, accessLevelRequest: 4 });
      assert.deepEqual(await ok(method, { ...claim(l, seedHex, below), ...extra }), { approvalRequired: true });
      const at = (await ok(method, { ...claim(l, seedHex, (below + 1) as 2 | 3 | 4), ...extra })) as P;
      assert.equal(at['approvalRequired'], undefined, `${method} runs one level up`);
    });
  }

  it('sign at level 3: a level-3 type paying another key needs level 4', async () => {
    const me = hexToBytes(pubHex(seedHex));
    const other = hexToBytes(pubHex(V.keys[1]!.seedHex));
    const l = await login({ seedHex, accessLevelRequest: 3 });
    const paysMe = (await ok('sign', { ...session(l), transactionHex: unsignedTxn(5, me, [me]) })) as P;
    assert.equal(typeof paysMe['signedTransactionHex'], 'string', 'SUBMIT_POST paying only the sender signs at 3');
    assert.deepEqual(await ok('sign', { ...session(l), transactionHex: unsignedTxn(5, me, [other]) }), { approvalRequired: true });
    assert.deepEqual(await ok('sign', { ...session(l), transactionHex: unsignedTxn(6, me) }), { approvalRequired: true }, 'UPDATE_PROFILE needs 4');
  });

  it('sign at level 3: a level-3 type whose fee is above LEVEL3_MAX_FEE_NANOS needs approval (no burning the balance as fee)', async () => {
    const me = hexToBytes(pubHex(seedHex));
    const l = await login({ seedHex, accessLevelRequest: 3 });
    const atCap = (await ok('sign', { ...session(l), transactionHex: unsignedTxn(5, me, [], LEVEL3_MAX_FEE_NANOS) })) as P;
    assert.equal(typeof atCap['signedTransactionHex'], 'string', 'a post with a fee at the cap signs at 3');
    const huge = unsignedTxn(5, me, [], 10n ** 15n);
    assert.deepEqual(await ok('sign', { ...session(l), transactionHex: huge }), { approvalRequired: true });
    const l4 = await login({ seedHex, accessLevelRequest: 4 });
    assert.equal(typeof ((await ok('sign', { ...session(l4), transactionHex: huge })) as P)['signedTransactionHex'], 'string', 'level 4 signs it');
  });

  it('a tampered accessLevelHmac is refused', async () => {
    const l = await login({ seedHex, accessLevelRequest: 2 });
    for (const bad of [l.accessLevelHmac.replace(/.$/, (c) => (c === '0' ? '1' : '0')), '', 'ab', 42, null, l.accessLevelHmac.toUpperCase()]) {
      await refused('jwt', { ...session(l), accessLevelHmac: bad }, /accessLevelHmac does not match/);
    }
    // The HMAC of another level, or of another key, does not pass either.
    await refused('jwt', { ...session(l), accessLevel: 2, accessLevelHmac: accessLevelHmac(seedHex, 3) }, /does not match/);
    await refused('jwt', { ...session(l), accessLevelHmac: accessLevelHmac(V.keys[1]!.seedHex, 2) }, /does not match/);
    await refused('jwt', { ...session(l), accessLevel: '2' }, /accessLevel/);
  });

  it('a level above the granted one is refused even with its true HMAC (the seed holder cannot skip approve)', async () => {
    const l = await login({ seedHex, accessLevelRequest: 2 });
    await refused('sign', { ...claim(l, seedHex, 4), transactionHex: OWNER.unsignedTxHex }, /above the level granted/);
  });

  it('every single-character change to encryptedSeedHex is refused', async () => {
    const l = await login({ seedHex, accessLevelRequest: 2 });
    const h = l.encryptedSeedHex;
    for (let pos = 0; pos < h.length; pos += 7) {
      const bad = h.slice(0, pos) + (h[pos] === 'a' ? 'b' : 'a') + h.slice(pos + 1);
      await refused('jwt', { ...session(l), encryptedSeedHex: bad }, /encryptedSeedHex is invalid/);
    }
    for (const bad of [h.slice(2), `${h}00`, h.toUpperCase(), '', 7, null, undefined]) {
      await refused('jwt', { ...session(l), encryptedSeedHex: bad }, /encryptedSeedHex is invalid/);
    }
  });

  it('a handle sealed under another node secret is refused', async () => {
    const other = new IdentityService({ crypto, sessions: new SessionStore(store, new Uint8Array(randomBytes(32)), 60_000), network: 'mainnet', log });
    const { response: r } = await answerFrame(other, { value: { id: 'o', service: 'identity', method: 'login', payload: { seedHex } } }, log);
    const l = r.payload as unknown as Login;
    await refused('jwt', session(l), /encryptedSeedHex is invalid/);
  });
});

// --- sign ----------------------------------------------------------------------------------

describe('identity sign', () => {
  for (const t of V.transactions) {
    it(`${t.description}: signature as the node's submit-transaction will check it`, async () => {
      // The AUTHORIZE_DERIVED_KEY vector names no owner: it is the txn's own public key.
      const owner = t.ownerPublicKeyBase58Check ?? (t.isDerivedKey ? V.derivedKeyAuthorization.ownerPublicKeyBase58Check : t.signerPublicKeyBase58Check);
      const l = t.isDerivedKey
        ? await login({ derivedSeedHex: t.signerSeedHex, ownerPublicKeyBase58Check: owner, accessLevelRequest: 4 })
        : await login({ seedHex: t.signerSeedHex, accessLevelRequest: 4 });
      const r = await ok('sign', { ...session(l), transactionHex: t.unsignedTxHex, ...(t.isDerivedKey ? { derivedPublicKeyBase58Check: l.derivedPublicKeyBase58Check } : {}) });
      // Deterministic RFC 6979: byte-equal to the reference (DeSo-DER 0x31+recid for derived keys).
      assert.equal(r['signedTransactionHex'], t.deterministicRfc6979Reference.signedHex);
    });
  }

  it('refuses a transaction of another account, a signed one and malformed hex', async () => {
    const l = await login({ seedHex: V.keys[1]!.seedHex, accessLevelRequest: 4 });
    await refused('sign', { ...session(l), transactionHex: OWNER.unsignedTxHex }, /not this session's account/);
    const mine = await login({ seedHex: OWNER.signerSeedHex, accessLevelRequest: 4 });
    await refused('sign', { ...session(mine), transactionHex: OWNER.deterministicRfc6979Reference.signedHex }, /already|unsigned/i);
    for (const bad of ['', 'zz', '0', 7, '00']) await refused('sign', { ...session(mine), transactionHex: bad }, /transaction/i);
  });

  it('a derived-key claim must match the session', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex, accessLevelRequest: 4 });
    await refused('sign', { ...session(l), transactionHex: OWNER.unsignedTxHex, derivedPublicKeyBase58Check: V.keys[1]!.mainnetBase58Check }, /holds an owner key/);
  });
});

// --- encrypt / decrypt ---------------------------------------------------------------------

describe('identity decrypt: SDK-encrypted messages', () => {
  it('V1 (Legacy) vectors, and V1 messages the sender itself sent read as ""', async () => {
    for (const c of V.v1Legacy) {
      const l = await login({ seedHex: c.recipientSeedHex });
      const r = await ok('decrypt', { ...session(l), encryptedMessages: [{ EncryptedHex: c.ciphertextHex, PublicKey: c.recipientPublicKeyBase58Check, IsSender: false, Legacy: true }] });
      assert.deepEqual(r['decryptedHexes'], { [c.ciphertextHex]: c.plaintext });
      const s = await ok('decrypt', { ...session(l), encryptedMessages: [{ EncryptedHex: c.ciphertextHex, PublicKey: c.recipientPublicKeyBase58Check, IsSender: true, Legacy: true }] });
      assert.deepEqual(s['decryptedHexes'], { [c.ciphertextHex]: '' });
    }
  });

  it('V2 vectors, by both parties, in one batch each; the spelling encryptedMessage is accepted', async () => {
    for (const c of V.v2SharedSecret) {
      for (const [seed, other, isSender] of [
        [c.recipientSeedHex, c.senderPublicKeyBase58Check, false],
        [c.senderSeedHex, c.recipientPublicKeyBase58Check, true],
      ] as const) {
        const l = await login({ seedHex: seed });
        const msgs = c.messages.map((m) => ({ EncryptedHex: m.ciphertextHex, PublicKey: other, IsSender: isSender, Legacy: false }));
        const field = isSender ? 'encryptedMessage' : 'encryptedMessages';
        const r = await ok('decrypt', { ...session(l), [field]: msgs });
        assert.deepEqual(r['decryptedHexes'], Object.fromEntries(c.messages.map((m) => [m.ciphertextHex, m.plaintext])));
      }
    }
  });

  it('double-hex V2 and the leading-zero shared secret case (SDK behaviour)', async () => {
    const d = V.v2DoubleEncoded;
    const l = await login({ seedHex: d.recipientSeedHex });
    const r = await ok('decrypt', { ...session(l), encryptedMessages: [{ EncryptedHex: d.doubleEncodedHex, PublicKey: d.senderPublicKeyBase58Check, IsSender: false, Legacy: false }] });
    assert.deepEqual(r['decryptedHexes'], { [d.doubleEncodedHex]: d.expectedPlaintext });
    const z = V.edgeLeadingZeroSharedSecret;
    const lz = await login({ seedHex: z.recipientSeedHex });
    const rz = await ok('decrypt', { ...session(lz), encryptedMessages: [{ EncryptedHex: z.sdkCiphertextHex, PublicKey: z.senderPublicKeyBase58Check, Legacy: false }] });
    assert.deepEqual(rz['decryptedHexes'], { [z.sdkCiphertextHex]: z.plaintext });
  });

  it('access-group DM and group chat (NewMessageEntryResponse and Version 3 forms)', async () => {
    const g = V.accessGroupsV3;
    const member = await login({ seedHex: g.member.seedHex });
    const owner = await login({ seedHex: g.owner.seedHex });
    const dm = g.dm.newMessageEntryResponse;
    for (const l of [member, owner]) {
      const r = await ok('decrypt', { ...session(l), encryptedMessages: [dm] });
      assert.deepEqual(r['decryptedHexes'], { [dm.MessageInfo.EncryptedText]: g.dm.plaintext }, 'DM readable by both parties');
    }
    const v3 = {
      EncryptedHex: dm.MessageInfo.EncryptedText,
      IsSender: false,
      Version: 3,
      SenderMessagingPublicKey: dm.SenderInfo.AccessGroupPublicKeyBase58Check,
      SenderMessagingGroupKeyName: 'default-key',
      RecipientMessagingPublicKey: dm.RecipientInfo.AccessGroupPublicKeyBase58Check,
      RecipientMessagingGroupKeyName: 'default-key',
    };
    assert.deepEqual((await ok('decrypt', { ...session(member), encryptedMessages: [v3] }))['decryptedHexes'], { [v3.EncryptedHex]: g.dm.plaintext });

    const gm = g.group.newMessageEntryResponse;
    const accessGroups = [
      {
        AccessGroupOwnerPublicKeyBase58Check: g.owner.publicKeyBase58Check,
        AccessGroupKeyName: g.group.groupKeyName,
        AccessGroupPublicKeyBase58Check: g.group.groupKeys.AccessGroupPublicKeyBase58Check,
        AccessGroupMemberEntryResponse: {
          AccessGroupMemberPublicKeyBase58Check: g.member.publicKeyBase58Check,
          AccessGroupMemberKeyName: 'default-key',
          EncryptedKey: g.group.memberEncryptedKeyHex,
        },
      },
    ];
    const withoutKey = await ok('decrypt', { ...session(member), encryptedMessages: [gm] });
    assert.deepEqual(withoutKey['decryptedHexes'], {}, 'the member needs its member entry to read the group');
    assert.equal(typeof (withoutKey['errors'] as P)[gm.MessageInfo.EncryptedText], 'string', 'and is told why');
    const r = await ok('decrypt', { ...session(member), encryptedMessages: [gm], accessGroups });
    assert.deepEqual(r['decryptedHexes'], { [gm.MessageInfo.EncryptedText]: g.group.plaintext }, 'member reads the group chat');
    const s = await ok('decrypt', { ...session(owner), encryptedMessages: [gm] });
    assert.deepEqual(s['decryptedHexes'], { [gm.MessageInfo.EncryptedText]: g.group.plaintext }, 'sender reads its own group message');
  });

  it('unencrypted access-group messages are plain hex', async () => {
    const u = V.accessGroupsV3.unencryptedDm.message;
    const l = await login({ seedHex: V.accessGroupsV3.member.seedHex });
    const r = await ok('decrypt', { ...session(l), encryptedMessages: [u] });
    const text = Buffer.from(u.MessageInfo.EncryptedText, 'hex').toString('utf8');
    assert.deepEqual(r['decryptedHexes'], { [u.MessageInfo.EncryptedText]: text });
  });

  it('500 random SDK messages (V1 and V2, random keys) decrypt in one request', async () => {
    const me = keygen();
    const l = await login({ seedHex: me.seedHex });
    const myPk = publicKeyToBase58Check(me.public, { network: 'mainnet' });
    const others = Array.from({ length: 8 }, () => keygen());
    const messages: P[] = [];
    const expected: Record<string, string> = {};
    for (let i = 0; i < 500; i++) {
      const text = `${i} ${randomBytes(i % 40).toString('base64')} ✓`;
      const other = others[i % others.length]!;
      const otherPk = publicKeyToBase58Check(other.public, { network: 'mainnet' });
      const legacy = i % 5 === 0;
      const hex = legacy ? await sdkEncrypt(myPk, text) : await encryptChatMessage(other.seedHex, myPk, text);
      messages.push({ EncryptedHex: hex, PublicKey: otherPk, IsSender: false, Legacy: legacy });
      expected[hex] = text;
    }
    const r = await ok('decrypt', { ...session(l), encryptedMessages: messages });
    assert.deepEqual(r['decryptedHexes'], expected);
  });

  it('bad messages are left out with a reason; a bad request as a whole is refused', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex });
    const good = V.v1Legacy[0]!;
    const r = await ok('decrypt', {
      ...session(l),
      encryptedMessages: [{ EncryptedHex: 'zz' }, { EncryptedHex: `04${'00'.repeat(120)}`, Legacy: false, PublicKey: 'nope' }, 7, { EncryptedHex: good.ciphertextHex, Legacy: true }],
    });
    assert.deepEqual(r['decryptedHexes'], {}, 'nothing decrypts (the V1 vector is not for this key)');
    assert.equal(Object.keys(r['errors'] as P).length, 4, 'four reasons');
    await refused('decrypt', { ...session(l), encryptedMessages: 'x' }, /array/);
    await refused('decrypt', { ...session(l) }, /encryptedMessages/);
  });

  it('a request costs at most MAX_DECRYPT_MESSAGES decryptions: 3,700 legacy messages in 1 MiB are refused before any is tried', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex });
    const good = V.v1Legacy[0]!;
    const hexes = Array.from({ length: 3_700 }, () => good.ciphertextHex.slice(0, 260));
    await refused('decrypt', { ...session(l), encryptedHexes: hexes }, new RegExp(`at most ${MAX_DECRYPT_MESSAGES} messages, got 3700`));
    const atCap = await ok('decrypt', { ...session(l), encryptedHexes: hexes.slice(0, MAX_DECRYPT_MESSAGES) });
    assert.equal(Object.keys(atCap['errors'] as P).length, 1, 'the cap itself is served (one distinct ciphertext, not this key\'s)');
  });

  it('access-group entries and candidate keys count toward the per-request budget', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex });
    const me = OWNER.signerPublicKeyBase58Check;
    const entry = { AccessGroupOwnerPublicKeyBase58Check: me, AccessGroupKeyName: 'g', AccessGroupMemberEntryResponse: { AccessGroupMemberPublicKeyBase58Check: me, AccessGroupMemberKeyName: 'k', EncryptedKey: `04${'00'.repeat(120)}` } };
    await refused('decrypt', { ...session(l), encryptedMessages: [], accessGroups: Array.from({ length: MAX_DECRYPT_GROUP_MEMBERS + 1 }, () => entry) }, /access-group member entries/);
  });
});

describe('identity encrypt: SDK decrypts our output', () => {
  it('V2 (default): the recipient reads it with decryptChatMessage; so does the sender', async () => {
    const sender = keygen();
    const recipient = keygen();
    const senderPk = publicKeyToBase58Check(sender.public, { network: 'mainnet' });
    const recipientPk = publicKeyToBase58Check(recipient.public, { network: 'mainnet' });
    const l = await login({ seedHex: sender.seedHex });
    for (const text of ['', 'hello', 'Grüße ✓ 🚀', 'x'.repeat(5000)]) {
      const r = await ok('encrypt', { ...session(l), recipientPublicKey: recipientPk, message: text });
      const hex = r['encryptedMessage'] as string;
      assert.equal(await decryptChatMessage(recipient.seedHex, senderPk, hex), text);
      assert.equal(await decryptChatMessage(sender.seedHex, recipientPk, hex), text);
    }
  });

  it('legacy: true gives V1, readable by the recipient with decrypt()', async () => {
    const recipient = keygen();
    const l = await login({ seedHex: OWNER.signerSeedHex });
    const r = await ok('encrypt', { ...session(l), recipientPublicKey: publicKeyToBase58Check(recipient.public, { network: 'mainnet' }), message: 'v1 text', legacy: true });
    assert.equal(await sdkDecrypt(recipient.seedHex, r['encryptedMessage'] as string), 'v1 text');
  });

  it('senderGroupKeyName default-key: the SDK reads it with the sender\'s messaging key', async () => {
    const g = V.accessGroupsV3;
    const l = await login({ seedHex: g.owner.seedHex });
    const r = await ok('encrypt', { ...session(l), recipientPublicKey: g.member.defaultKeyPublicBase58Check, message: 'to your messaging key', senderGroupKeyName: 'default-key' });
    const memberDefault = (await import('../../server/identity/keys.js')).messagingPrivateKey(hexToBytes(g.member.seedHex));
    assert.equal(await decryptChatMessage(bytesToHex(memberDefault), g.owner.defaultKeyPublicBase58Check, r['encryptedMessage'] as string), 'to your messaging key');
  });

  it('refuses bad recipients and messages', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex });
    await refused('encrypt', { ...session(l), recipientPublicKey: 'nope', message: 'x' }, /recipientPublicKey/);
    await refused('encrypt', { ...session(l), recipientPublicKey: V.keys[1]!.testnetBase58Check, message: 'x' }, /recipientPublicKey|network|prefix/i);
    await refused('encrypt', { ...session(l), recipientPublicKey: V.keys[1]!.mainnetBase58Check, message: 5 }, /"message"/);
  });
});

describe('identity derived-key sessions', () => {
  it('without owner key and randomness: requiresEncryptedMessagingKeyRandomness with the empty result', async () => {
    const d = V.derivedKeyAuthorization;
    const l = await login({ derivedSeedHex: d.derivedSeedHex, ownerPublicKeyBase58Check: d.ownerPublicKeyBase58Check });
    assert.equal(l.derivedPublicKeyBase58Check, d.derivedPublicKeyBase58Check);
    const base = { ...session(l), derivedPublicKeyBase58Check: d.derivedPublicKeyBase58Check };
    assert.deepEqual(await ok('encrypt', { ...base, recipientPublicKey: V.keys[1]!.mainnetBase58Check, message: 'x' }), { encryptedMessage: '', requiresEncryptedMessagingKeyRandomness: true });
    assert.deepEqual(await ok('decrypt', { ...base, encryptedMessages: [] }), { decryptedHexes: {}, requiresEncryptedMessagingKeyRandomness: true });
    assert.deepEqual(await ok('decrypt', { ...base, ownerPublicKeyBase58Check: d.ownerPublicKeyBase58Check, encryptedMessages: [] }), { decryptedHexes: {}, requiresEncryptedMessagingKeyRandomness: true });
  });

  it('with randomness (derive login): reads access-group DMs with the owner\'s messaging key; foreign randomness refused', async () => {
    const g = V.accessGroupsV3;
    const l = await login({ seedHex: g.member.seedHex, derive: true });
    const base = { ...session(l), derivedPublicKeyBase58Check: l.derivedPublicKeyBase58Check, ownerPublicKeyBase58Check: g.member.publicKeyBase58Check };
    const dm = g.dm.newMessageEntryResponse;
    const r = await ok('decrypt', { ...base, encryptedMessagingKeyRandomness: l.encryptedMessagingKeyRandomness, encryptedMessages: [dm] });
    assert.deepEqual(r['decryptedHexes'], { [dm.MessageInfo.EncryptedText]: g.dm.plaintext });
    const other = await login({ seedHex: g.owner.seedHex, derive: true });
    await refused('decrypt', { ...base, encryptedMessagingKeyRandomness: other.encryptedMessagingKeyRandomness, encryptedMessages: [dm] }, /encryptedMessagingKeyRandomness is invalid/);
    await refused('decrypt', { ...base, ownerPublicKeyBase58Check: g.owner.publicKeyBase58Check, encryptedMessagingKeyRandomness: l.encryptedMessagingKeyRandomness, encryptedMessages: [] }, /not the owner/);
  });

  it('the randomness handle seals the messaging root, never the owner seed (node secret + handle give no signing key)', async () => {
    const g = V.accessGroupsV3;
    const l = await login({ seedHex: g.member.seedHex, derive: true });
    // An attacker holding the node secret (kept in the store) and the app's handles.
    const { session: s } = await sessions.open(l.encryptedSeedHex);
    const unsealed = sessions.openMessagingRoot(s, l.encryptedMessagingKeyRandomness);
    const ownerSeed = hexToBytes(g.member.seedHex);
    assert.notDeepEqual(unsealed, ownerSeed, 'the owner seed is not in the handle');
    assert.deepEqual(unsealed, sha256d(ownerSeed), 'the handle holds the one-way messaging root');
    assert.notEqual(bytesToHex(secp256k1.getPublicKey(unsealed, true)), pubHex(g.member.seedHex), 'what it holds is not the owner key');
  });

  it('jwt carries the derived-key claim and is signed by the derived key', async () => {
    const d = V.derivedKeyAuthorization;
    const l = await login({ derivedSeedHex: d.derivedSeedHex, ownerPublicKeyBase58Check: d.ownerPublicKeyBase58Check });
    const { jwt } = (await ok('jwt', session(l))) as { jwt: string };
    const [h, p, s] = jwt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as P;
    assert.equal(claims['derivedPublicKeyBase58Check'], d.derivedPublicKeyBase58Check);
    const hash = sha256(Buffer.from(`${h}.${p}`, 'latin1'));
    assert.ok(secp256k1.verify(Buffer.from(s, 'base64url'), hash, hexToBytes(pubHex(d.derivedSeedHex)), { prehash: false }), 'signed by the derived key');
    // Until derived keys are authorized on chain, the node's verifier refuses it (403).
    const verifier = new JwtVerifier(crypto, { network: 'mainnet', derivedKeyAuthorizer: NO_DERIVED_KEYS });
    await assert.rejects(verifier.verify(d.ownerPublicKeyBase58Check, jwt), (e: unknown) => toErrorReply(e).status === 403);
  });
});

describe('identity jwt', () => {
  const verifier = (): JwtVerifier => new JwtVerifier(crypto, { network: 'mainnet', derivedKeyAuthorizer: NO_DERIVED_KEYS });

  it('owner token: 10 minutes, ES256 header, verifies with our verifier and any ES256K-on-secp256k1 verifier', async () => {
    const l = await login({ seedHex: OWNER.signerSeedHex });
    const { jwt } = (await ok('jwt', session(l))) as { jwt: string };
    const [h, p, s] = jwt.split('.') as [string, string, string];
    assert.equal(Buffer.from(h, 'base64url').toString(), '{"alg":"ES256","typ":"JWT"}');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { iat: number; exp: number };
    assert.equal(claims.exp - claims.iat, 600);
    await verifier().verify(OWNER.signerPublicKeyBase58Check, jwt);
    const ok256k = secp256k1.verify(Buffer.from(s, 'base64url'), sha256(Buffer.from(`${h}.${p}`)), hexToBytes(pubHex(OWNER.signerSeedHex)), { prehash: false });
    assert.ok(ok256k, 'raw r‖s over SHA-256 of the signing input verifies on secp256k1');
    await assert.rejects(verifier().verify(V.keys[1]!.mainnetBase58Check, jwt), (e: unknown) => toErrorReply(e).status === 401);
  });

  it('tokens the SDK signs (getSignedJWT) pass our verifier', async () => {
    // The SDK base64-encodes with the browser's window.btoa; Node has the same function.
    (globalThis as { window?: unknown }).window ??= globalThis;
    for (let i = 0; i < 20; i++) {
      const k = keygen();
      const token = await getSignedJWT(k.seedHex, 'ES256', {});
      await verifier().verify(publicKeyToBase58Check(k.public, { network: 'mainnet' }), token);
    }
  });
});

describe('identity envelopes', () => {
  it('malformed envelopes get an error payload with the id when readable', async () => {
    const cases: Array<[unknown, string | null, RegExp]> = [
      ['not json', null, /malformed JSON/],
      [[], null, /object/],
      [{ service: 'identity', method: 'jwt' }, null, /"id"/],
      [{ id: 'a1', service: 'other', method: 'jwt' }, 'a1', /"service"/],
      [{ id: 'a2', service: 'identity', method: 'burn' }, 'a2', /"method"/],
      [{ id: 'a3', service: 'identity', method: 'jwt', payload: [1] }, 'a3', /"payload"/],
    ];
    for (const [input, id, re] of cases) {
      const { status, response: r } = await answerFrame(service, typeof input === 'string' ? { text: input } : { value: input }, log);
      assert.equal(status, 400);
      assert.equal(r.id, id);
      assert.match(String(r.payload['error']), re);
    }
  });

  it('responses have no method key (how the frame tells them from requests)', async () => {
    const r = await call('login', { seedHex: OWNER.signerSeedHex });
    assert.deepEqual(Object.keys(r).sort(), ['id', 'payload', 'service', 'status']);
    assert.deepEqual(Object.keys(response('x', {})).sort(), ['id', 'payload', 'service']);
  });
});
