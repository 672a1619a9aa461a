/**
 * Derived keys end to end on a real node: the owner logs in through our identity service with
 * `derive: true` (a derived key, the owner's access signature over its limit) →
 * authorize-derived-key → signed by the owner (identity, and the SDK) → mined → the derived key
 * signs send-deso (identity derived session, and the SDK's signTx isDerivedKey) → mined, and the
 * key's remaining limit goes down. Rejections answer submit-transaction with core's rule names;
 * the route's own errors answer 400 `AuthorizeDerivedKey: …`; a JWT the derived key signed
 * passes the chain-backed authorizer once the authorization is mined.
 */
import { toErrorReply } from '../../server/http/errors.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signTx } from 'deso-protocol';
import { getDerivedKey, derivedKeysOfOwner } from '../../server/chain/state/derivedKeys.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { TxnType } from '../../server/chain/txn/metadata.js';
import { decodeSpendingLimit, emptySpendingLimit, encodeSpendingLimit, type TransactionSpendingLimit } from '../../server/chain/txn/spendingLimit.js';
import { chainDerivedKeyAuthorizer, JwtVerifier } from '../../server/identity/jwt.js';
import { decodePublicKey, encodePublicKey } from '../../server/keys/index.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';

let n: ChainNode;
const owner = keyPair();
const bob = keyPair();
const FEE_RATE = 1000;

before(async () => {
  n = await startChainNode();
  await n.fund(owner.pk, 50_000_000);
});
after(() => n?.close());

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const pk33 = (pk: string): Uint8Array => decodePublicKey(pk, 'testnet', 'pk');

function limitHex(global: bigint, counts: Record<number, bigint>): string {
  const l = emptySpendingLimit();
  l.globalDESOLimit = global;
  for (const [t, c] of Object.entries(counts)) l.transactionCounts.set(Number(t), c);
  return hex(encodeSpendingLimit(l));
}

async function identity(method: string, payload: J): Promise<J> {
  const r = await n.ok('identity', { id: `${method}-${Math.random()}`, service: 'identity', method, payload });
  return r['payload'] as J;
}

interface DerivedLogin {
  /** The identity session of the derived key (signs with DeSo-DER). */
  session: J;
  derived: KeyPair;
  expirationBlock: number;
  limitHex: string;
  accessSignature: string;
  derivedJwt: string;
}

/** Identity `login` with `derive: true` for `owner`: a derived key and the owner's access signature over its limit. */
async function deriveLogin(o: { limitHex: string; expirationBlock?: number }): Promise<DerivedLogin> {
  const secret = new Uint8Array(randomBytes(32));
  const derivedSeedHex = hex(secret);
  const p = await identity('login', {
    seedHex: owner.seedHex,
    derive: true,
    derivedSeedHex,
    transactionSpendingLimitHex: o.limitHex,
    accessLevelRequest: 4,
    ...(o.expirationBlock !== undefined ? { expirationBlock: o.expirationBlock } : {}),
  });
  const derived: KeyPair = { seedHex: derivedSeedHex, pk: encodePublicKey(getPublicKey(secret, true), 'testnet'), pk33: getPublicKey(secret, true) };
  assert.equal(p['derivedPublicKeyBase58Check'], derived.pk, 'login answers the derived key');
  assert.equal(p['publicKeyBase58Check'], owner.pk, 'for the owner');
  assert.equal(p['transactionSpendingLimitHex'], o.limitHex);
  return {
    session: { encryptedSeedHex: p['encryptedSeedHex'], accessLevel: p['accessLevel'], accessLevelHmac: p['accessLevelHmac'] },
    derived,
    expirationBlock: p['expirationBlock'] as number,
    limitHex: o.limitHex,
    accessSignature: p['accessSignature'] as string,
    derivedJwt: p['derivedJwt'] as string,
  };
}

function authorizeBody(d: DerivedLogin, extra: J = {}): J {
  return {
    OwnerPublicKeyBase58Check: owner.pk,
    DerivedPublicKeyBase58Check: d.derived.pk,
    ExpirationBlock: d.expirationBlock,
    AccessSignature: d.accessSignature,
    TransactionSpendingLimitHex: d.limitHex,
    MinFeeRateNanosPerKB: FEE_RATE,
    ...extra,
  };
}

/** authorize-derived-key, signed by the owner (identity or SDK), mined. */
async function authorizeByOwner(d: DerivedLogin, by: 'identity' | 'sdk', extra: J = {}): Promise<J> {
  const c = await n.ok('authorize-derived-key', authorizeBody(d, extra));
  await n.submit(c['TransactionHex'] as string, owner, by);
  return c;
}

async function sendDesoHex(amount: number): Promise<string> {
  const c = await n.ok('send-deso', { SenderPublicKeyBase58Check: owner.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: amount, MinFeeRateNanosPerKB: FEE_RATE });
  return c['TransactionHex'] as string;
}

/** Signs as the derived key: through its identity session, or the SDK's signTx with isDerivedKey. */
async function signAsDerived(txnHex: string, d: DerivedLogin, by: 'identity' | 'sdk'): Promise<string> {
  if (by === 'sdk') return signTx(txnHex, d.derived.seedHex, { isDerivedKey: true });
  const signed = await identity('sign', { ...d.session, transactionHex: txnHex });
  assert.equal(typeof signed['signedTransactionHex'], 'string', `identity sign: ${JSON.stringify(signed)}`);
  return signed['signedTransactionHex'] as string;
}

async function submitSigned(signedHex: string): Promise<J> {
  const s = await n.ok('submit-transaction', { TransactionHex: signedHex });
  await n.waitMined(s['TxnHashHex'] as string);
  return s;
}

async function limitLeft(d: DerivedLogin): Promise<TransactionSpendingLimit> {
  const record = await getDerivedKey(n.deps.store, pk33(owner.pk), d.derived.pk33);
  assert.ok(record, 'the derived key has a record in chain state');
  return decodeSpendingLimit(record.spendingLimit);
}

const balance = (pk: string): Promise<bigint> => n.deps.chain.balance(pk33(pk));

describe('authorize-derived-key → derived key signs send-deso', () => {
  let d: DerivedLogin;

  it('login with derive: true, authorize-derived-key signed by the owner through identity, mined: the key is recorded', async () => {
    d = await deriveLogin({ limitHex: limitHex(100_000n, { [TxnType.BASIC_TRANSFER]: 3n, [TxnType.AUTHORIZE_DERIVED_KEY]: 1n }) });
    const c = await authorizeByOwner(d, 'identity', { Memo: 'e2e app' });
    assert.equal(c['SpendAmountNanos'], 0, 'SpendAmountNanos is always 0');
    assert.equal(c['TotalInputNanos'], c['FeeNanos'], 'the owner pays the fee only');
    const record = await getDerivedKey(n.deps.store, pk33(owner.pk), d.derived.pk33);
    assert.ok(record, 'recorded');
    assert.equal(record.operationType, 1, 'VALID');
    assert.equal(record.expirationBlock, BigInt(d.expirationBlock));
    assert.equal(hex(record.spendingLimit), d.limitHex);
    assert.equal(Buffer.from(record.memo).toString(), Buffer.from('e2e app').toString('hex'), 'memo: hex of Memo, as the reference');
    const listed = await derivedKeysOfOwner(n.deps.store, pk33(owner.pk));
    assert.ok(listed.some((r) => hex(r.derivedPublicKey) === hex(d.derived.pk33)), 'listed under the owner');
  });

  for (const by of ['identity', 'sdk'] as const) {
    it(`send-deso signed by the derived key (${by}) is mined and reduces the key's limit`, async () => {
      const before = await limitLeft(d);
      const bobBefore = await balance(bob.pk);
      const txnHex = await sendDesoHex(10_000);
      const signed = await signAsDerived(txnHex, d, by);
      assert.ok([0x31, 0x32, 0x33, 0x34].includes(decodeTxn(Buffer.from(signed, 'hex')).signature[0]!), 'a DeSo-DER signature');
      await submitSigned(signed);
      assert.equal(await balance(bob.pk), bobBefore + 10_000n, 'bob got the coins');
      const fee = decodeTxn(Buffer.from(txnHex, 'hex')).v1!.feeNanos;
      const after = await limitLeft(d);
      assert.equal(after.globalDESOLimit, before.globalDESOLimit - 10_000n - fee, 'amount and fee off the DESO limit');
      assert.equal(after.transactionCounts.get(TxnType.BASIC_TRANSFER), before.transactionCounts.get(TxnType.BASIC_TRANSFER)! - 1n, 'one BASIC_TRANSFER use spent');
    });
  }

  it('spending more than the DESO limit left is refused: RuleErrorDerivedKeyTxnSpendsMoreThanGlobalDESOLimit', async () => {
    const signed = await signAsDerived(await sendDesoHex(100_000), d, 'sdk');
    await n.fails('submit-transaction', { TransactionHex: signed }, /RuleErrorDerivedKeyTxnSpendsMoreThanGlobalDESOLimit/);
  });

  it('a JWT the derived key signed passes the chain-backed authorizer', async () => {
    const verifier = new JwtVerifier(n.deps.crypto, { network: 'testnet', derivedKeyAuthorizer: chainDerivedKeyAuthorizer(n.deps.store, n.deps.chain) });
    await verifier.verify(owner.pk, d.derivedJwt);
  });

  it('DeleteKey: the owner de-authorizes the key; it can no longer sign, nor be authorized again', async () => {
    await authorizeByOwner(d, 'sdk', { DeleteKey: true });
    const signed = await signAsDerived(await sendDesoHex(1), d, 'identity');
    await n.fails('submit-transaction', { TransactionHex: signed }, /RuleErrorDerivedKeyNotAuthorized/);
    const c = await n.ok('authorize-derived-key', authorizeBody(d));
    await n.fails('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, owner, 'sdk') }, /RuleErrorAuthorizeDerivedKeyDeletedDerivedPublicKey/);
    const verifier = new JwtVerifier(n.deps.crypto, { network: 'testnet', derivedKeyAuthorizer: chainDerivedKeyAuthorizer(n.deps.store, n.deps.chain) });
    await assert.rejects(verifier.verify(owner.pk, d.derivedJwt), (e: unknown) => toErrorReply(e).status === 403, 'the JWT of a de-authorized key is refused');
  });
});

describe('derived keys: other authorizations and rejections', () => {
  it('authorize-derived-key signed by the owner through the SDK; the key then signs through the SDK', async () => {
    const d = await deriveLogin({ limitHex: limitHex(50_000n, { [TxnType.BASIC_TRANSFER]: 1n }) });
    await authorizeByOwner(d, 'sdk');
    await submitSigned(await signAsDerived(await sendDesoHex(1000), d, 'sdk'));
    assert.equal((await limitLeft(d)).transactionCounts.has(TxnType.BASIC_TRANSFER), false, 'its only BASIC_TRANSFER use is spent');
  });

  it('DerivedKeySignature: the derived key signs its own authorization (DER + ExtraData DerivedPublicKey)', async () => {
    const d = await deriveLogin({ limitHex: limitHex(50_000n, { [TxnType.AUTHORIZE_DERIVED_KEY]: 1n, [TxnType.BASIC_TRANSFER]: 1n }) });
    const c = await n.ok('authorize-derived-key', authorizeBody(d, { DerivedKeySignature: true }));
    const txn = decodeTxn(Buffer.from(c['TransactionHex'] as string, 'hex'));
    const named = txn.extraData.find(([k]) => Buffer.from(k).toString() === 'DerivedPublicKey')?.[1];
    assert.equal(hex(named!), hex(d.derived.pk33), 'ExtraData DerivedPublicKey names the derived key');
    await submitSigned(await signTx(c['TransactionHex'] as string, d.derived.seedHex));
    const left = await limitLeft(d);
    assert.equal(left.transactionCounts.has(TxnType.AUTHORIZE_DERIVED_KEY), false, 'the authorization used the key\'s own AUTHORIZE_DERIVED_KEY allowance');
    assert.equal(left.globalDESOLimit, 50_000n - txn.v1!.feeNanos);
  });

  it('a key the owner never authorized is refused: RuleErrorDerivedKeyNotAuthorized', async () => {
    const stranger = keyPair();
    const signed = await signTx(await sendDesoHex(1), stranger.seedHex, { isDerivedKey: true });
    await n.fails('submit-transaction', { TransactionHex: signed }, /RuleErrorDerivedKeyNotAuthorized/);
  });

  it('a transaction type the limit does not allow is refused: RuleErrorDerivedKeyTxnTypeNotAuthorized', async () => {
    const d = await deriveLogin({ limitHex: limitHex(50_000n, { [TxnType.SUBMIT_POST]: 10n }) });
    await authorizeByOwner(d, 'identity');
    const signed = await signAsDerived(await sendDesoHex(1), d, 'identity');
    await n.fails('submit-transaction', { TransactionHex: signed }, /RuleErrorDerivedKeyTxnTypeNotAuthorized/);
  });

  it('an expired key is refused: RuleErrorDerivedKeyNotAuthorized', async () => {
    const tip = await n.deps.chain.tip();
    // Authorized in block tip+1, expired from block tip+2: the next transaction it signs is too late.
    const d = await deriveLogin({ limitHex: limitHex(50_000n, { [TxnType.BASIC_TRANSFER]: 5n }), expirationBlock: Number(tip.height) + 2 });
    await authorizeByOwner(d, 'identity');
    assert.ok((await n.deps.chain.tip()).height + 1n >= BigInt(d.expirationBlock), 'the next block is at or past the expiration');
    const signed = await signAsDerived(await sendDesoHex(1), d, 'sdk');
    await n.fails('submit-transaction', { TransactionHex: signed }, /RuleErrorDerivedKeyNotAuthorized: .*expired/);
  });
});

describe('authorize-derived-key: request validation', () => {
  let d: DerivedLogin;
  before(async () => {
    d = await deriveLogin({ limitHex: limitHex(1000n, { [TxnType.BASIC_TRANSFER]: 1n }) });
  });

  it('answers the reference fields, with the metadata and ExtraData the reference writes', async () => {
    const c = await n.ok('authorize-derived-key', authorizeBody(d, { AppName: 'my app' }));
    for (const f of ['SpendAmountNanos', 'TotalInputNanos', 'ChangeAmountNanos', 'FeeNanos', 'Transaction', 'TransactionHex', 'TxnHashHex']) assert.ok(f in c, `answers ${f}`);
    const t = c['Transaction'] as J;
    assert.equal(t['TxnTypeJSON'], TxnType.AUTHORIZE_DERIVED_KEY);
    assert.deepEqual(t['TxnMeta'], {
      DerivedPublicKey: Buffer.from(d.derived.pk33).toString('base64'),
      ExpirationBlock: d.expirationBlock,
      OperationType: 1,
      AccessSignature: Buffer.from(d.accessSignature, 'hex').toString('base64'),
    });
    const extra = t['ExtraData'] as Record<string, string>;
    assert.equal(Buffer.from(extra['DerivedKeyMemo']!, 'base64').toString(), Buffer.from('my app').toString('hex'), 'AppName stands in for Memo, hex-encoded');
    assert.equal(Buffer.from(extra['TransactionSpendingLimit']!, 'base64').toString('hex'), d.limitHex);
    assert.equal(extra['DerivedPublicKey'], undefined, 'no DerivedPublicKey unless DerivedKeySignature');
  });

  it('refuses what the reference refuses', async () => {
    await n.fails('authorize-derived-key', authorizeBody(d, { DerivedPublicKeyBase58Check: '' }), /^AuthorizeDerivedKey: Must provide an owner and a derived key\.$/);
    await n.fails('authorize-derived-key', authorizeBody(d, { DerivedPublicKeyBase58Check: owner.pk }), /^AuthorizeDerivedKey: Owner and derived public keys cannot be the same\.$/);
    await n.fails('authorize-derived-key', authorizeBody(d, { OwnerPublicKeyBase58Check: 'tBCnotakey' }), /^AuthorizeDerivedKey: Problem decoding owner public key: /);
    await n.fails('authorize-derived-key', authorizeBody(d, { AccessSignature: 'zz' }), /^AuthorizeDerivedKey: Couldn't decode access signature\.$/);
    await n.fails('authorize-derived-key', authorizeBody(d, { TransactionSpendingLimitHex: 'abc' }), /^AuthorizeDerivedKey: Couldn't decode transaction spending limit hex\.$/);
    await n.fails('authorize-derived-key', authorizeBody(d, { TransactionSpendingLimitHex: '80' }), /^AuthorizeDerivedKey: Problem creating transaction: Problem decoding transaction spending limit: /);
    const tip = await n.deps.chain.tip();
    await n.fails('authorize-derived-key', authorizeBody(d, { ExpirationBlock: Number(tip.height) + 1 }), /^AuthorizeDerivedKey: Problem creating transaction: Expired access signature$/);
  });

  it('with DerivedKeySignature, checks the access signature at construction', async () => {
    const other = await deriveLogin({ limitHex: limitHex(1000n, {}) });
    await n.fails('authorize-derived-key', authorizeBody(d, { DerivedKeySignature: true, AccessSignature: other.accessSignature }), /^AuthorizeDerivedKey: Problem creating transaction: Problem verifying access signature: /);
    await n.fails('authorize-derived-key', authorizeBody(d, { DerivedKeySignature: true, TransactionSpendingLimitHex: '' }), /^AuthorizeDerivedKey: Problem creating transaction: a transaction the derived key signs needs TransactionSpendingLimitHex/);
    await n.ok('authorize-derived-key', authorizeBody(d, { DerivedKeySignature: true }));
  });
});
