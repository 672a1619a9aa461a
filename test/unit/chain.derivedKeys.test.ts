/**
 * Derived-key rules (server/chain/rules/derivedKeys.ts, signatures.ts) on a state view in
 * process: AUTHORIZE_DERIVED_KEY as core's `_connectAuthorizeDerivedKey`, the signer check and
 * spending limit as `_checkAndUpdateDerivedKeySpendingLimit`, signatures as §5.4, and the
 * chain-backed JWT authorizer. Transactions are built, signed, signature-checked and connected
 * the way the chain does it, at chosen block heights.
 */
import { toErrorReply } from '../../server/http/errors.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { accessBytes, takeOperationAllowance } from '../../server/chain/rules/derivedKeys.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { checkSignatures } from '../../server/chain/rules/signatures.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { deleteOrder, putOrder, type DAOCoinLimitOrder } from '../../server/chain/state/daoCoinLimitOrders.js';
import { derivedKeysOfOwner, getDerivedKey } from '../../server/chain/state/derivedKeys.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn, txnHash, type TxnEnvelope } from '../../server/chain/txn/envelope.js';
import { AuthorizeDerivedKeyOperation, encodeMetadata, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import {
  decodeSpendingLimit,
  emptySpendingLimit,
  encodeSpendingLimit,
  getLimit,
  LIMIT_KEYS,
  setLimit,
  type TransactionSpendingLimit,
} from '../../server/chain/txn/spendingLimit.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { chainDerivedKeyAuthorizer, issueJwt, JwtVerifier } from '../../server/identity/jwt.js';
import { encodeDerSignature, signTransaction } from '../../server/identity/signTxn.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { openStore } from '../../server/store/index.js';
import type { Store } from '../../server/store/types.js';
import { sha256d } from '../../wasm/hash.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const crypto = new InlineCrypto();
const RULES: ConnectContext['rules'] = { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n };
const ctx = (height: bigint): ConnectContext => ({ height, rules: RULES, crypto });
const H = 10n;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

interface Key {
  secret: Uint8Array;
  pk: Uint8Array;
}
const newKey = (): Key => {
  const secret = new Uint8Array(randomBytes(32));
  return { secret, pk: getPublicKey(secret, true) };
};

let store: Store;
before(async () => {
  store = await openStore({});
});
after(async () => {
  await store.close();
  await crypto.close();
});

/** A funded owner in a fresh view. */
function world(balance = 10_000_000n): { view: StateView; owner: Key } {
  const view = StateView.over(store);
  const owner = newKey();
  setBalance(view, owner.pk, balance);
  return { view, owner };
}

function limitOf(o: { global?: bigint; counts?: Record<number, bigint>; unlimited?: boolean; edit?: (l: TransactionSpendingLimit) => void } = {}): TransactionSpendingLimit {
  const l = emptySpendingLimit();
  l.globalDESOLimit = o.global ?? 0n;
  l.isUnlimited = o.unlimited ?? false;
  for (const [t, c] of Object.entries(o.counts ?? {})) l.transactionCounts.set(Number(t), c);
  o.edit?.(l);
  return l;
}

type SignAs = 'owner' | 'deso-der' | 'extra-data';

interface BuildOpts {
  outputs?: Array<{ publicKey: Uint8Array; amountNanos: bigint }>;
  extraData?: Array<[Uint8Array, Uint8Array]>;
  feeRate?: bigint;
}

function build(owner: Key, metadata: TxnMetadata, o: BuildOpts = {}): Uint8Array {
  return constructTxn({
    publicKey: owner.pk,
    metadata,
    outputs: o.outputs ?? [],
    extraData: (o.extraData ?? []).sort(([a], [b]) => Buffer.compare(a, b)),
    minFeeRateNanosPerKB: o.feeRate ?? 1000n,
    networkMinFeeRateNanosPerKB: 0n,
    tipHeight: H - 1n,
    maxNonceExpirationBlockHeightOffset: RULES.maxNonceExpirationBlockHeightOffset,
  }).bytes;
}

/** Signs as the chain sees it: the owner (DER), or a derived key (DeSo-DER, or DER + ExtraData DerivedPublicKey). */
async function signAs(owner: Key, metadata: TxnMetadata, key: Key, as: SignAs, o: BuildOpts = {}): Promise<Uint8Array> {
  const extraData = [...(o.extraData ?? [])];
  if (as === 'extra-data') extraData.push([utf8('DerivedPublicKey'), key.pk]);
  const bytes = build(owner, metadata, { ...o, extraData });
  return signTransaction(crypto, bytes, key.secret, { derived: as === 'deso-der' });
}

/** Signature check, then connect, as Chain.submitTransaction does. */
async function connect(view: StateView, bytes: Uint8Array, height = H): Promise<TxnEnvelope> {
  const txn = decodeTxn(bytes);
  const [verdict] = await checkSignatures(crypto, [{ bytes, txn }]);
  if (verdict!.error) throw verdict!.error;
  await connectTransaction(view, txn, { hash: txnHash(bytes), size: bytes.length, signer: verdict!.signer }, ctx(height));
  return txn;
}

async function accessSignature(owner: Key, derived: Uint8Array, expirationBlock: bigint, limit: Uint8Array): Promise<Uint8Array> {
  const [r] = await crypto.sign([{ privateKey: owner.secret, hash: sha256d(accessBytes(derived, expirationBlock, limit)) }]);
  assert.ok(r?.ok, 'owner signs the access bytes');
  return encodeDerSignature(r.value.signature);
}

interface AuthorizeOpts {
  expirationBlock?: bigint;
  limit?: TransactionSpendingLimit | Uint8Array | null;
  op?: number;
  memo?: string;
  /** Who signs: the owner, or this derived key in the given encoding. */
  signer?: { key: Key; as: SignAs };
  accessSig?: Uint8Array;
  feeRate?: bigint;
}

async function authorize(view: StateView, owner: Key, derived: Key, o: AuthorizeOpts = {}): Promise<TxnEnvelope> {
  const expirationBlock = o.expirationBlock ?? H + 100n;
  const limit = o.limit === null ? null : o.limit instanceof Uint8Array ? o.limit : encodeSpendingLimit(o.limit ?? limitOf({ global: 1_000_000n, counts: { [TxnType.BASIC_TRANSFER]: 2n, [TxnType.AUTHORIZE_DERIVED_KEY]: 1n } }));
  const extraData: Array<[Uint8Array, Uint8Array]> = [];
  if (limit !== null) extraData.push([utf8('TransactionSpendingLimit'), limit]);
  if (o.memo !== undefined) extraData.push([utf8('DerivedKeyMemo'), utf8(hex(utf8(o.memo)))]);
  const metadata: TxnMetadata = {
    type: 'AUTHORIZE_DERIVED_KEY',
    derivedPublicKey: derived.pk,
    expirationBlock,
    operationType: o.op ?? AuthorizeDerivedKeyOperation.VALID,
    accessSignature: o.accessSig ?? (await accessSignature(owner, derived.pk, expirationBlock, limit ?? new Uint8Array(0))),
  };
  const signer = o.signer ?? { key: owner, as: 'owner' as const };
  const bytes = await signAs(owner, metadata, signer.key, signer.as, { extraData, feeRate: o.feeRate });
  return connect(view, bytes);
}

async function send(view: StateView, owner: Key, signer: Key, to: Uint8Array, amount: bigint, as: SignAs = 'deso-der', height = H): Promise<TxnEnvelope> {
  const bytes = await signAs(owner, { type: 'BASIC_TRANSFER' }, signer, as, { outputs: [{ publicKey: to, amountNanos: amount }] });
  return connect(view, bytes, height);
}

async function refused(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RuleError && e.code === code, `refused with ${code}`);
}

async function limitLeft(view: StateView, owner: Key, derived: Key): Promise<TransactionSpendingLimit> {
  const record = await getDerivedKey(view, owner.pk, derived.pk);
  assert.ok(record, 'the key has a record');
  return decodeSpendingLimit(record.spendingLimit);
}

describe('AUTHORIZE_DERIVED_KEY', () => {
  it('signed by the owner: records the key, its expiration, VALID, its limit, memo and ExtraData, and lists it under the owner', async () => {
    const { view, owner } = world();
    const derived = newKey();
    const limit = limitOf({ global: 500n, counts: { [TxnType.BASIC_TRANSFER]: 3n } });
    await authorize(view, owner, derived, { expirationBlock: 77n, limit, memo: 'my app' });
    const record = await getDerivedKey(view, owner.pk, derived.pk);
    assert.ok(record, 'recorded');
    assert.equal(record.expirationBlock, 77n);
    assert.equal(record.operationType, AuthorizeDerivedKeyOperation.VALID);
    assert.equal(hex(record.spendingLimit), hex(encodeSpendingLimit(limit)));
    assert.equal(Buffer.from(record.memo).toString(), hex(utf8('my app')), 'memo as the hex text the transaction carries');
    assert.deepEqual(record.extraData.map(([k]) => Buffer.from(k).toString()), ['DerivedKeyMemo', 'TransactionSpendingLimit']);
    const listed = await derivedKeysOfOwner(view, owner.pk);
    assert.deepEqual(listed.map((r) => hex(r.derivedPublicKey)), [hex(derived.pk)]);
  });

  it('the expiration block must be after the block the authorization is mined in', async () => {
    const { view, owner } = world();
    await refused(authorize(view, owner, newKey(), { expirationBlock: H }), 'RuleErrorAuthorizeDerivedKeyExpiredDerivedPublicKey');
  });

  it('a de-authorized (NOT_VALID) key can never be authorized again', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived);
    await authorize(view, owner, derived, { op: AuthorizeDerivedKeyOperation.NOT_VALID });
    assert.equal((await getDerivedKey(view, owner.pk, derived.pk))?.operationType, AuthorizeDerivedKeyOperation.NOT_VALID);
    await refused(authorize(view, owner, derived), 'RuleErrorAuthorizeDerivedKeyDeletedDerivedPublicKey');
  });

  for (const as of ['deso-der', 'extra-data'] as const) {
    it(`the derived key may sign its own authorization (${as}) when the owner's access signature covers its limit`, async () => {
      const { view, owner } = world();
      const derived = newKey();
      const txn = await authorize(view, owner, derived, { signer: { key: derived, as } });
      const left = await limitLeft(view, owner, derived);
      assert.equal(left.transactionCounts.get(TxnType.AUTHORIZE_DERIVED_KEY), undefined, 'its one AUTHORIZE_DERIVED_KEY use is spent');
      assert.equal(left.globalDESOLimit, 1_000_000n - txn.v1!.feeNanos, 'the fee comes off its DESO limit');
    });
  }

  it('signed by the derived key: a wrong access signature is refused', async () => {
    const { view, owner } = world();
    const derived = newKey();
    const stranger = newKey();
    const limit = encodeSpendingLimit(limitOf({ global: 1000n, counts: { [TxnType.AUTHORIZE_DERIVED_KEY]: 1n } }));
    const forged = await accessSignature(stranger, derived.pk, H + 100n, limit);
    await refused(authorize(view, owner, derived, { limit, accessSig: forged, signer: { key: derived, as: 'deso-der' } }), 'RuleErrorAuthorizeDerivedKeyAccessSignatureNotValid');
    await refused(authorize(view, owner, derived, { limit, accessSig: Uint8Array.of(1, 2, 3), signer: { key: derived, as: 'deso-der' } }), 'RuleErrorAuthorizeDerivedKeyAccessSignatureNotValid');
  });

  it('signed by the derived key: the spending limit is required (the access signature covers it)', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await refused(authorize(view, owner, derived, { limit: null, signer: { key: derived, as: 'deso-der' } }), 'RuleErrorAuthorizeDerivedKeyAccessSignatureNotValid');
  });

  it('signed by the owner, the access signature is not needed (core checks it only for derived signers)', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived, { accessSig: Uint8Array.of(0x30) });
    assert.ok(await getDerivedKey(view, owner.pk, derived.pk), 'recorded');
  });

  it('a later authorization merges into what the key has left: the DESO limit is replaced, given counts replace, a zero count removes, others stay', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived, { limit: limitOf({ global: 100n, counts: { [TxnType.BASIC_TRANSFER]: 3n, [TxnType.SUBMIT_POST]: 5n, [TxnType.FOLLOW]: 1n } }) });
    await authorize(view, owner, derived, { limit: limitOf({ global: 40n, counts: { [TxnType.BASIC_TRANSFER]: 7n, [TxnType.FOLLOW]: 0n } }) });
    const left = await limitLeft(view, owner, derived);
    assert.equal(left.globalDESOLimit, 40n);
    assert.deepEqual(
      [...left.transactionCounts].sort(([a], [b]) => a - b),
      [
        [TxnType.BASIC_TRANSFER, 7n],
        [TxnType.SUBMIT_POST, 5n],
      ],
    );
  });

  it('an unlimited limit must set nothing else', async () => {
    const { view, owner } = world();
    await refused(authorize(view, owner, newKey(), { limit: limitOf({ unlimited: true, global: 1n }) }), 'RuleErrorUnlimitedDerivedKeyNonEmptySpendingLimits');
  });

  it('a malformed spending limit is refused', async () => {
    const { view, owner } = world();
    await refused(authorize(view, owner, newKey(), { limit: Uint8Array.of(0x80) }), 'RuleErrorAuthorizeDerivedKeyInvalidTransactionSpendingLimit');
  });

  it('an authorization that pays nothing (no fee, no output) is refused', async () => {
    const { view, owner } = world();
    await refused(authorize(view, owner, newKey(), { feeRate: 0n }), 'RuleErrorAuthorizeDerivedKeyRequiresNonZeroInput');
  });

  it('a derived key authorizes another only with AUTHORIZE_DERIVED_KEY uses left in its own limit', async () => {
    const { view, owner } = world();
    const a = newKey();
    const b = newKey();
    await authorize(view, owner, a, { limit: limitOf({ global: 1_000_000n, counts: { [TxnType.BASIC_TRANSFER]: 1n } }) });
    await refused(authorize(view, owner, b, { signer: { key: a, as: 'deso-der' } }), 'RuleErrorDerivedKeyTxnTypeNotAuthorized');
    await authorize(view, owner, a, { limit: limitOf({ global: 1_000_000n, counts: { [TxnType.AUTHORIZE_DERIVED_KEY]: 2n } }) });
    await authorize(view, owner, b, { signer: { key: a, as: 'deso-der' } });
    assert.ok(await getDerivedKey(view, owner.pk, b.pk), 'b is authorized');
    assert.equal((await limitLeft(view, owner, a)).transactionCounts.get(TxnType.AUTHORIZE_DERIVED_KEY), 1n, 'a used one of its two');
  });
});

describe('a transaction signed by a derived key', () => {
  it('DeSo-DER: the pool recovers the derived key from the signature; ExtraData names it for DER', async () => {
    const owner = newKey();
    const derived = newKey();
    for (const as of ['deso-der', 'extra-data'] as const) {
      const bytes = await signAs(owner, { type: 'BASIC_TRANSFER' }, derived, as, { outputs: [{ publicKey: newKey().pk, amountNanos: 1n }] });
      const [verdict] = await checkSignatures(crypto, [{ bytes, txn: decodeTxn(bytes) }]);
      assert.equal(verdict!.error, null, as);
      assert.equal(hex(verdict!.signer), hex(derived.pk), `${as}: the signer is the derived key`);
    }
  });

  it('a signature naming the owner as its own derived key is refused', async () => {
    const owner = newKey();
    const bytes = await signAs(owner, { type: 'BASIC_TRANSFER' }, owner, 'deso-der', { outputs: [{ publicKey: newKey().pk, amountNanos: 1n }] });
    const [verdict] = await checkSignatures(crypto, [{ bytes, txn: decodeTxn(bytes) }]);
    assert.equal(verdict!.error?.code, 'RuleErrorDerivedKeyNotAuthorized');
  });

  it('is accepted within the limit: fee and amount come off the DESO limit, the type count goes down and is removed at its last use', async () => {
    const { view, owner } = world();
    const derived = newKey();
    const to = newKey();
    await authorize(view, owner, derived);
    const t1 = await send(view, owner, derived, to.pk, 1000n);
    let left = await limitLeft(view, owner, derived);
    assert.equal(left.globalDESOLimit, 1_000_000n - 1000n - t1.v1!.feeNanos);
    assert.equal(left.transactionCounts.get(TxnType.BASIC_TRANSFER), 1n);
    assert.equal(await getBalance(view, to.pk), 1000n, 'the transfer happened');
    await send(view, owner, derived, to.pk, 1n, 'extra-data');
    left = await limitLeft(view, owner, derived);
    assert.equal(left.transactionCounts.has(TxnType.BASIC_TRANSFER), false, 'no BASIC_TRANSFER use left: the entry is gone');
    await refused(send(view, owner, derived, to.pk, 1n), 'RuleErrorDerivedKeyTxnTypeNotAuthorized');
  });

  it('outputs back to the owner are not spending', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived);
    const t = await send(view, owner, derived, owner.pk, 900_000n);
    assert.equal((await limitLeft(view, owner, derived)).globalDESOLimit, 1_000_000n - t.v1!.feeNanos);
  });

  it('a key the owner never authorized is refused', async () => {
    const { view, owner } = world();
    await refused(send(view, owner, newKey(), newKey().pk, 1n), 'RuleErrorDerivedKeyNotAuthorized');
  });

  it('an expired key is refused from its expiration block on', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived, { expirationBlock: H + 2n });
    await send(view, owner, derived, newKey().pk, 1n, 'deso-der', H + 1n);
    await refused(send(view, owner, derived, newKey().pk, 1n, 'deso-der', H + 2n), 'RuleErrorDerivedKeyNotAuthorized');
  });

  it('a de-authorized key is refused', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived);
    await authorize(view, owner, derived, { op: AuthorizeDerivedKeyOperation.NOT_VALID });
    await refused(send(view, owner, derived, newKey().pk, 1n), 'RuleErrorDerivedKeyNotAuthorized');
  });

  it('spending more than the DESO limit left is refused', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived, { limit: limitOf({ global: 5000n, counts: { [TxnType.BASIC_TRANSFER]: 5n } }) });
    await refused(send(view, owner, derived, newKey().pk, 5000n), 'RuleErrorDerivedKeyTxnSpendsMoreThanGlobalDESOLimit');
  });

  it('a type with no count in the limit is refused', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived, { limit: limitOf({ global: 1_000_000n, counts: { [TxnType.SUBMIT_POST]: 5n } }) });
    await refused(send(view, owner, derived, newKey().pk, 1n), 'RuleErrorDerivedKeyTxnTypeNotAuthorized');
  });

  it('an unlimited key spends without limit and its record does not change', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived, { limit: limitOf({ unlimited: true }) });
    const before = (await getDerivedKey(view, owner.pk, derived.pk))!.spendingLimit;
    await send(view, owner, derived, newKey().pk, 5_000_000n);
    assert.equal(hex((await getDerivedKey(view, owner.pk, derived.pk))!.spendingLimit), hex(before));
  });
});

describe('operation limits (core lookup order: specific before "any")', () => {
  const creator = newKey().pk;
  const envelope = (metadata: TxnMetadata): TxnEnvelope => decodeTxn(build(newKey(), metadata));
  const ANY = new Uint8Array(33);
  let view: StateView;
  before(() => {
    view = StateView.over(store);
  });

  it('CREATOR_COIN buy/sell use (creator, op), then (creator, any), then (any creator, op), then (any, any)', async () => {
    const l = limitOf();
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 1 }, 1n);
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: ANY, operation: 0 }, 1n);
    const buy = envelope({ type: 'CREATOR_COIN', profilePublicKey: creator, operationType: 0, desoToSellNanos: 1n, creatorCoinToSellNanos: 0n, desoToAddNanos: 0n, minDesoExpectedNanos: 0n, minCreatorCoinExpectedNanos: 0n });
    await takeOperationAllowance(view, l, buy);
    assert.equal(getLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 1 }), undefined, 'the specific entry went first');
    await takeOperationAllowance(view, l, buy);
    assert.equal(l.creatorCoinOperations.size, 0, 'then the "any" entry');
    await assert.rejects(takeOperationAllowance(view, l, buy), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDerivedKeyCreatorCoinOperationNotAuthorized');
    const addDeso = envelope({ type: 'CREATOR_COIN', profilePublicKey: creator, operationType: 2, desoToSellNanos: 0n, creatorCoinToSellNanos: 0n, desoToAddNanos: 1n, minDesoExpectedNanos: 0n, minCreatorCoinExpectedNanos: 0n });
    await assert.rejects(takeOperationAllowance(view, l, addDeso), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDerivedKeyInvalidCreatorCoinLimitOperation');
  });

  it('CREATOR_COIN_TRANSFER uses the creator coin map\'s transfer operation (3), then "any"', async () => {
    const l = limitOf();
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 3 }, 1n);
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: ANY, operation: 3 }, 1n);
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 1 }, 1n);
    const transfer = envelope({ type: 'CREATOR_COIN_TRANSFER', profilePublicKey: creator, creatorCoinToTransferNanos: 10n, receiverPublicKey: newKey().pk });
    await takeOperationAllowance(view, l, transfer);
    assert.equal(getLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 3 }), undefined, '(creator, transfer) first');
    await takeOperationAllowance(view, l, transfer);
    assert.equal(getLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: ANY, operation: 3 }), undefined, 'then (any creator, transfer)');
    await assert.rejects(takeOperationAllowance(view, l, transfer), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDerivedKeyCreatorCoinOperationNotAuthorized', 'a buy allowance does not cover a transfer');
    assert.equal(getLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 1 }), 1n);
  });

  it('DAO_COIN operations and DAO_COIN_TRANSFER use the DAO coin map', async () => {
    const l = limitOf();
    setLimit(l.daoCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 1 }, 2n);
    setLimit(l.daoCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 5 }, 1n);
    await takeOperationAllowance(view, l, envelope({ type: 'DAO_COIN', profilePublicKey: creator, operationType: 0, coinsToMintNanos: 5n, coinsToBurnNanos: 0n, transferRestrictionStatus: 0 }));
    assert.equal(getLimit(l.daoCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: creator, operation: 1 }), 1n, 'a mint used one of two');
    await takeOperationAllowance(view, l, envelope({ type: 'DAO_COIN_TRANSFER', profilePublicKey: creator, daoCoinToTransferNanos: 1n, receiverPublicKey: newKey().pk }));
    const burn = envelope({ type: 'DAO_COIN', profilePublicKey: creator, operationType: 1, coinsToMintNanos: 0n, coinsToBurnNanos: 1n, transferRestrictionStatus: 0 });
    await assert.rejects(takeOperationAllowance(view, l, burn), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDerivedKeyDAOCoinOperationNotAuthorized');
  });

  it('DAO_COIN_LIMIT_ORDER uses (buying, selling) exactly', async () => {
    const l = limitOf();
    setLimit(l.daoCoinLimitOrders, LIMIT_KEYS.limitOrder, { buyingCreatorPKID: creator, sellingCreatorPKID: ANY }, 1n);
    const order = (buying: Uint8Array, selling: Uint8Array): TxnEnvelope =>
      envelope({
        type: 'DAO_COIN_LIMIT_ORDER',
        buyingDAOCoinCreatorPublicKey: buying,
        sellingDAOCoinCreatorPublicKey: selling,
        scaledExchangeRateCoinsToSellPerCoinToBuy: 1n,
        quantityToFillInBaseUnits: 1n,
        operationType: 2,
        fillType: 1,
        cancelOrderId: null,
        bidderInputs: [],
        feeNanos: 1n,
      });
    await assert.rejects(takeOperationAllowance(view, l, order(ANY, creator)), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDerivedKeyDAOCoinLimitOrderNotAuthorized');
    await takeOperationAllowance(view, l, order(creator, ANY));
    assert.equal(l.daoCoinLimitOrders.size, 0);
  });

  it('a DAO_COIN_LIMIT_ORDER cancel uses the pair of the order it cancels, as that order stood before the transaction', async () => {
    const orderId = new Uint8Array(randomBytes(32));
    const placed: DAOCoinLimitOrder = {
      orderId,
      transactor: newKey().pk,
      buyingCreator: creator,
      sellingCreator: ANY,
      scaledExchangeRate: 1n,
      quantityToFillInBaseUnits: 1n,
      operationType: 2,
      fillType: 1,
      blockHeight: 1n,
    };
    const before = StateView.over(store);
    putOrder(before, placed);
    const txnView = before.child();
    deleteOrder(txnView, placed); // what the cancel itself does before the signer check
    const cancel = envelope({
      type: 'DAO_COIN_LIMIT_ORDER',
      buyingDAOCoinCreatorPublicKey: null,
      sellingDAOCoinCreatorPublicKey: null,
      scaledExchangeRateCoinsToSellPerCoinToBuy: null,
      quantityToFillInBaseUnits: null,
      operationType: 0,
      fillType: 0,
      cancelOrderId: orderId,
      bidderInputs: [],
      feeNanos: 1n,
    });
    const l = limitOf();
    setLimit(l.daoCoinLimitOrders, LIMIT_KEYS.limitOrder, { buyingCreatorPKID: creator, sellingCreatorPKID: ANY }, 1n);
    await takeOperationAllowance(txnView, l, cancel);
    assert.equal(l.daoCoinLimitOrders.size, 0, 'the pair\'s allowance is used');
    await assert.rejects(takeOperationAllowance(StateView.over(store), limitOf(), cancel), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDerivedKeyInvalidDAOCoinLimitOrderOrderID');
  });

  it('ACCESS_GROUP and ACCESS_GROUP_MEMBERS use (scoped name, op) then (scoped, any) then (any name, op) then (any, any)', async () => {
    const owner = newKey().pk;
    const name = new Uint8Array(32);
    name.set(utf8('friends'));
    const l = limitOf();
    setLimit(l.accessGroups, LIMIT_KEYS.accessGroup, { ownerPublicKey: owner, scopeType: 1, groupKeyName: name, operation: 2 }, 1n);
    setLimit(l.accessGroups, LIMIT_KEYS.accessGroup, { ownerPublicKey: owner, scopeType: 0, groupKeyName: new Uint8Array(32), operation: 1 }, 1n);
    setLimit(l.accessGroupMembers, LIMIT_KEYS.accessGroup, { ownerPublicKey: owner, scopeType: 0, groupKeyName: new Uint8Array(32), operation: 2 }, 1n);
    const group = (operationType: number, keyName: string): TxnEnvelope => envelope({ type: 'ACCESS_GROUP', ownerPublicKey: owner, accessGroupPublicKey: newKey().pk, keyName: utf8(keyName), operationType });
    await takeOperationAllowance(view, l, group(2, 'friends'));
    await takeOperationAllowance(view, l, group(3, 'other'));
    assert.equal(l.accessGroups.size, 0, 'both entries used');
    await assert.rejects(takeOperationAllowance(view, l, group(2, 'friends')), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorAccessGroupTransactionSpendingLimitInvalid');
    const members = (operationType: number): TxnEnvelope => envelope({ type: 'ACCESS_GROUP_MEMBERS', ownerPublicKey: owner, keyName: utf8('friends'), members: [], operationType });
    await assert.rejects(takeOperationAllowance(view, l, members(3)), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorAccessGroupMemberSpendingLimitInvalid');
    await takeOperationAllowance(view, l, members(2));
    assert.equal(l.accessGroupMembers.size, 0);
  });

  it('any other type uses its transaction count', async () => {
    const l = limitOf({ counts: { [TxnType.FOLLOW]: 1n } });
    const follow = envelope({ type: 'FOLLOW', followedPublicKey: creator, isUnfollow: false });
    await takeOperationAllowance(view, l, follow);
    await assert.rejects(takeOperationAllowance(view, l, follow), (e: unknown) => e instanceof RuleError && e.code === 'RuleErrorDerivedKeyTxnTypeNotAuthorized');
  });
});

describe('chainDerivedKeyAuthorizer (JWTs signed by a derived key)', () => {
  it('accepts a token of an authorized, unexpired derived key; refuses it once the key is de-authorized or expired at the tip', async () => {
    const { view, owner } = world();
    const derived = newKey();
    await authorize(view, owner, derived, { expirationBlock: H + 5n });
    let tipHeight = H;
    const verifier = new JwtVerifier(crypto, { network: 'testnet', derivedKeyAuthorizer: chainDerivedKeyAuthorizer(view, { tip: async () => ({ height: tipHeight }) }) });
    const ownerPk = encodePublicKey(owner.pk, 'testnet');
    const token = await issueJwt(crypto, derived.secret, { derivedPublicKeyBase58Check: encodePublicKey(derived.pk, 'testnet') });
    await verifier.verify(ownerPk, token);

    tipHeight = H + 5n;
    await assert.rejects(verifier.verify(ownerPk, token), (e: unknown) => toErrorReply(e).status === 403, 'expired at the tip: 403');
    tipHeight = H;
    await authorize(view, owner, derived, { op: AuthorizeDerivedKeyOperation.NOT_VALID, expirationBlock: H + 5n });
    await assert.rejects(verifier.verify(ownerPk, token), (e: unknown) => toErrorReply(e).status === 403, 'de-authorized: 403');
  });

  it('given a function, reads the state it answers at each check (the node: the pending view, so an authorization still in the mempool counts)', async () => {
    const { view, owner } = world();
    const derived = newKey();
    const mined = StateView.over(store);
    const pending = view.child();
    await authorize(pending, owner, derived, { expirationBlock: H + 5n });
    let current: StateView = mined;
    const verifier = new JwtVerifier(crypto, { network: 'testnet', derivedKeyAuthorizer: chainDerivedKeyAuthorizer(async () => current, { tip: async () => ({ height: H }) }) });
    const ownerPk = encodePublicKey(owner.pk, 'testnet');
    const token = await issueJwt(crypto, derived.secret, { derivedPublicKeyBase58Check: encodePublicKey(derived.pk, 'testnet') });
    await assert.rejects(verifier.verify(ownerPk, token), (e: unknown) => toErrorReply(e).status === 403, 'not in the state read: 403');
    current = pending;
    await verifier.verify(ownerPk, token);
  });

  it('refuses a key the owner never authorized', async () => {
    const owner = newKey();
    const stranger = newKey();
    const verifier = new JwtVerifier(crypto, { network: 'testnet', derivedKeyAuthorizer: chainDerivedKeyAuthorizer(StateView.over(store), { tip: async () => ({ height: H }) }) });
    const token = await issueJwt(crypto, stranger.secret, { derivedPublicKeyBase58Check: encodePublicKey(stranger.pk, 'testnet') });
    await assert.rejects(verifier.verify(encodePublicKey(owner.pk, 'testnet'), token), (e: unknown) => toErrorReply(e).status === 403);
  });
});
