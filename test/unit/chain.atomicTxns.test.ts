/**
 * ATOMIC_TXNS_WRAPPER (core lib/block_view_atomic_txns.go): the metadata codec (round trip, the
 * byte layout of core's AtomicTxnsWrapperMetadata.ToBytes, the SDK transcoder reading it), the
 * construction of a linked set (core CreateAtomicTxnsWrapper), every rule error of
 * `_verifyAtomicTxnsWrapper` / `_verifyAtomicTxnsChain`, all-or-nothing connects, and a wrapper
 * signed, admitted to the mempool and mined by a Chain.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { TransactionMetadataAtomicTxnWrapper } from 'deso-protocol';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { constructTxn, type Constructed } from '../../server/chain/construct.js';
import { constructAtomic, type AtomicConstructed } from '../../server/chain/constructAtomic.js';
import {
  ATOMIC_TXNS_CHAIN_LENGTH,
  atomicHash,
  extraValue,
  joinInnerSigners,
  NEXT_ATOMIC_TXN_PRE_HASH,
  PREVIOUS_ATOMIC_TXN_PRE_HASH,
} from '../../server/chain/rules/atomicTxns.js';
import { connectTransaction, type ConnectContext } from '../../server/chain/rules/connect.js';
import { RuleError } from '../../server/chain/rules/errors.js';
import { checkSignatures } from '../../server/chain/rules/signatures.js';
import { getBalance, setBalance } from '../../server/chain/state/balances.js';
import { isNonceUsed } from '../../server/chain/state/nonces.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn, encodeTxn, txnHash, type TxnFields } from '../../server/chain/txn/envelope.js';
import { isTxnDecodeError } from '../../server/chain/txn/errors.js';
import { decodeMetadata, encodeMetadata, TxnType, type TxnMetadata } from '../../server/chain/txn/metadata.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { signTransaction } from '../../server/identity/signTxn.js';
import { AtomicRequestError, completeAtomic } from '../../server/services/atomic.js';
import { MemoryStore } from '../../server/store/memory.js';
import { sha256d } from '../../wasm/hash.js';
import { solveHeader } from '../helpers/mining.js';
import { newKey, type TestKey } from '../helpers/transfers.js';

const crypto = new InlineCrypto();
after(() => crypto.close());

const RATE = 1000n;
const ctx: ConnectContext = { height: 10n, rules: { maxNonceExpirationBlockHeightOffset: 86_400n, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n }, crypto };
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** An unsigned version 1 transaction of `from`, as the construction routes build it. */
function unsigned(from: Uint8Array, metadata: TxnMetadata, outputs: Array<{ publicKey: Uint8Array; amountNanos: bigint }> = []): Constructed {
  return constructTxn({ publicKey: from, metadata, outputs, minFeeRateNanosPerKB: RATE, networkMinFeeRateNanosPerKB: 0n, tipHeight: 9n, maxNonceExpirationBlockHeightOffset: 86_400n });
}
const transfer = (from: Uint8Array, to: Uint8Array, amountNanos: bigint): Constructed => unsigned(from, { type: 'BASIC_TRANSFER' }, [{ publicKey: to, amountNanos }]);

/** Signs every inner transaction with its key and completes the wrapper as submit-atomic does. */
async function signAtomic(a: AtomicConstructed, keys: readonly TestKey[]): Promise<Uint8Array> {
  const signed = await Promise.all(a.inner.map((t, i) => signTransaction(crypto, t.bytes, keys[i]!.secret, { derived: false })));
  return completeAtomic(a.bytes, signed);
}

/** A wrapper's fields with its metadata's inner transactions replaced. */
function withInner(w: TxnFields, txns: Uint8Array[]): TxnFields {
  return { ...w, metadata: encodeMetadata({ type: 'ATOMIC_TXNS_WRAPPER', txns }) };
}
function innerOf(w: TxnFields): Uint8Array[] {
  const m = decodeMetadata(TxnType.ATOMIC_TXNS_WRAPPER, w.metadata);
  assert.equal(m.type, 'ATOMIC_TXNS_WRAPPER');
  return m.type === 'ATOMIC_TXNS_WRAPPER' ? m.txns : [];
}
/** `bytes` with ExtraData `key` set to `value` (or removed when null). */
function setExtra(bytes: Uint8Array, key: string, value: Uint8Array | null): Uint8Array {
  const { signatureField: _, ...t } = decodeTxn(bytes);
  const k = new TextEncoder().encode(key);
  const extraData = t.extraData.filter(([x]) => Buffer.compare(x, k) !== 0);
  if (value !== null) extraData.push([k, value]);
  return encodeTxn({ ...t, extraData });
}
const fieldsOf = (bytes: Uint8Array): TxnFields => {
  const { signatureField: _, ...t } = decodeTxn(bytes);
  return t;
};

async function rejects(p: Promise<unknown>, code: string, detail?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RuleError, `a RuleError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (detail) assert.match(e.message, detail);
    return true;
  });
}

describe('AtomicTxnsWrapperMetadata codec', () => {
  const alice = newKey().pk;
  const bob = newKey().pk;
  // Nonce ids within 2^53: the SDK's Uvarint64 goes through JS numbers.
  const small = (c: Constructed): Uint8Array => encodeTxn({ ...c.fields, v1: { ...c.fields.v1!, noncePartialId: 12_345n } });
  const a = small(transfer(alice, bob, 1n));
  const b = small(unsigned(bob, { type: 'SUBMIT_POST', postHashToModify: new Uint8Array(0), parentStakeId: new Uint8Array(0), body: new Uint8Array(200).fill(0x61), creatorBasisPoints: 0n, stakeMultipleBasisPoints: 0n, timestampNanos: 1n, isHidden: false }));

  it('is uvarint(count) ‖ (uvarint(len) ‖ transaction bytes)*, as core AtomicTxnsWrapperMetadata.ToBytes writes it', () => {
    const bytes = encodeMetadata({ type: 'ATOMIC_TXNS_WRAPPER', txns: [a, b] });
    const expected = Buffer.concat([Buffer.of(0x02), encodeUvarint(a.length), a, encodeUvarint(b.length), b]);
    assert.equal(hex(bytes), hex(expected));
    assert.ok(a.length < 128 && b.length > 127, 'one length takes one varint byte, the other two');
    assert.deepEqual(decodeMetadata(44, bytes), { type: 'ATOMIC_TXNS_WRAPPER', txns: [a, b] });
    assert.equal(hex(encodeMetadata({ type: 'ATOMIC_TXNS_WRAPPER', txns: [] })), '00');
  });

  it('the deso-protocol SDK transcoder reads the same inner transactions and writes the same bytes', () => {
    const bytes = encodeMetadata({ type: 'ATOMIC_TXNS_WRAPPER', txns: [a, b] });
    const [parsed, rest] = TransactionMetadataAtomicTxnWrapper.fromBytes(bytes) as [TransactionMetadataAtomicTxnWrapper, Uint8Array];
    assert.equal(rest.length, 0);
    assert.equal(parsed.metadata.length, 2);
    assert.equal(hex(parsed.metadata[0]!.publicKey), hex(alice));
    assert.equal(hex(parsed.metadata[1]!.publicKey), hex(bob));
    assert.equal(hex(parsed.toBytes()), hex(bytes));
  });

  it('refuses an inner transaction that does not decode, a count past the bytes, trailing bytes', () => {
    const fails = (bytes: Uint8Array, re: RegExp) => assert.throws(() => decodeMetadata(44, bytes), (e: unknown) => isTxnDecodeError(e) && re.test((e as Error).message));
    fails(Buffer.concat([Buffer.of(0x01, 0x03), Buffer.of(1, 2, 3)]), /ATOMIC_TXNS_WRAPPER\.txns\[0\]/);
    fails(Buffer.of(0x05, 0x00), /ATOMIC_TXNS_WRAPPER\.txns: count 5 exceeds/);
    fails(Buffer.concat([encodeMetadata({ type: 'ATOMIC_TXNS_WRAPPER', txns: [a] }), Buffer.of(0)]), /1 trailing bytes/);
  });
});

describe('constructAtomic (core CreateAtomicTxnsWrapper)', () => {
  it('links the set circularly by atomic hash, pins the start, pays for the links and the wrapper', () => {
    const [alice, bob, carol] = [newKey().pk, newKey().pk, newKey().pk];
    const parts = [transfer(alice, bob, 10n), transfer(bob, carol, 5n), transfer(carol, alice, 1n)];
    const a = constructAtomic(parts.map((p) => p.fields), RATE);
    const hashes = a.inner.map((t) => atomicHash(t.fields));
    a.inner.forEach((t, i) => {
      assert.equal(hex(extraValue(t.fields, NEXT_ATOMIC_TXN_PRE_HASH)!), hex(hashes[(i + 1) % 3]!));
      assert.equal(hex(extraValue(t.fields, PREVIOUS_ATOMIC_TXN_PRE_HASH)!), hex(hashes[(i + 2) % 3]!));
      assert.equal(extraValue(t.fields, ATOMIC_TXNS_CHAIN_LENGTH) === undefined, i > 0, 'only the first carries the chain length');
      // Each inner pays its own bytes once signed.
      assert.ok(t.fields.v1!.feeNanos * 1000n >= RATE * BigInt(t.bytes.length + 74));
    });
    assert.equal(hex(extraValue(a.inner[0]!.fields, ATOMIC_TXNS_CHAIN_LENGTH)!), '03');
    assert.equal(a.feeNanos, a.inner.reduce((s, t) => s + t.fields.v1!.feeNanos, 0n));
    assert.ok(a.feeNanos * 1000n >= RATE * BigInt(a.bytes.length + 3 * 75), 'the inner fees together pay for the signed wrapper');
    const w = decodeTxn(a.bytes);
    assert.deepEqual([w.txnType, w.inputs.length, w.outputs.length, hex(w.publicKey), w.signature.length], [44, 0, 0, '00'.repeat(33), 0]);
    assert.deepEqual(w.v1, { version: 1n, feeNanos: a.feeNanos, nonceExpirationBlockHeight: 0n, noncePartialId: 0n });
    // The atomic hash leaves out the links and the signature, so signing keeps the chain valid.
    assert.equal(hex(atomicHash(fieldsOf(setExtra(a.inner[1]!.bytes, NEXT_ATOMIC_TXN_PRE_HASH, new Uint8Array(32))))), hex(hashes[1]!));
  });

  it('keeps a DAO coin limit order\'s metadata FeeNanos equal to its raised fee', () => {
    const alice = newKey().pk;
    const order = unsigned(alice, {
      type: 'DAO_COIN_LIMIT_ORDER',
      buyingDAOCoinCreatorPublicKey: newKey().pk,
      sellingDAOCoinCreatorPublicKey: new Uint8Array(33),
      scaledExchangeRateCoinsToSellPerCoinToBuy: 10n ** 38n,
      quantityToFillInBaseUnits: 10n ** 18n,
      operationType: 2,
      fillType: 1,
      cancelOrderId: null,
      bidderInputs: [],
      feeNanos: 1n,
    });
    const a = constructAtomic([order.fields], RATE);
    const t = a.inner[0]!.fields;
    const m = decodeMetadata(t.txnType, t.metadata);
    assert.equal(m.type === 'DAO_COIN_LIMIT_ORDER' && m.feeNanos, t.v1!.feeNanos);
    assert.ok(t.v1!.feeNanos > order.feeNanos, 'raised for the links and the wrapper');
  });
});

describe('connect rules', () => {
  let view: StateView;
  let alice: TestKey;
  let bob: TestKey;
  let carol: TestKey;
  /** alice → bob 50,000 then bob (who starts with nothing) → carol 20,000: order matters. */
  let a: AtomicConstructed;

  beforeEach(() => {
    view = StateView.over(new MemoryStore());
    [alice, bob, carol] = [newKey(), newKey(), newKey()];
    setBalance(view, alice.pk, 1_000_000n);
    a = constructAtomic([transfer(alice.pk, bob.pk, 50_000n).fields, transfer(bob.pk, carol.pk, 20_000n).fields], RATE);
  });

  const signers = (n = 2): Uint8Array => joinInnerSigners([alice.pk, bob.pk, carol.pk].slice(0, n));
  /** Connects the wrapper (fields, possibly altered) with its inner signers, on `on`. */
  const connect = (w: TxnFields, on: StateView = view, signer = signers(innerOf(w).length)) => {
    const bytes = encodeTxn(w);
    return connectTransaction(on, decodeTxn(bytes), { hash: txnHash(bytes), size: bytes.length, signer, indexInBlock: 1 }, ctx);
  };

  it('connects every inner transaction in order and answers the wrapper fee', async () => {
    const r = await connect(a.fields);
    assert.equal(r.feeNanos, a.feeNanos);
    const [fee0, fee1] = a.inner.map((t) => t.fields.v1!.feeNanos);
    assert.equal(await getBalance(view, alice.pk), 1_000_000n - 50_000n - fee0!);
    assert.equal(await getBalance(view, bob.pk), 50_000n - 20_000n - fee1!);
    assert.equal(await getBalance(view, carol.pk), 20_000n);
    for (const [i, k] of [alice, bob].entries()) {
      const v1 = a.inner[i]!.fields.v1!;
      assert.equal(await isNonceUsed(view, k.pk, v1.nonceExpirationBlockHeight, v1.noncePartialId), true, 'each inner nonce is spent');
    }
    // A second connect of the same set reuses the inner nonces.
    await rejects(connect(a.fields), 'RuleErrorReusedNonce', /inner transaction 0 of 2/);
  });

  it('all or nothing: a failing inner transaction leaves no write, not even the ones before it', async () => {
    const tooMuch = constructAtomic([transfer(alice.pk, bob.pk, 50_000n).fields, transfer(bob.pk, carol.pk, 60_000n).fields], RATE);
    const child = view.child();
    await rejects(connect(tooMuch.fields, child), 'RuleErrorInsufficientBalance', /inner transaction 1 of 2/);
    assert.deepEqual(child.writtenKeys(), []);
    assert.equal(await getBalance(child, alice.pk), 1_000_000n);
    assert.equal(await getBalance(child, bob.pk), 0n);
    const v1 = tooMuch.inner[0]!.fields.v1!;
    assert.equal(await isNonceUsed(child, alice.pk, v1.nonceExpirationBlockHeight, v1.noncePartialId), false);
  });

  it('the wrapper\'s own fields (core _verifyAtomicTxnsWrapper)', async () => {
    const w = a.fields;
    await rejects(connect({ ...w, publicKey: alice.pk }), 'RuleErrorAtomicTxnsWrapperPublicKeyMustBeZero');
    await rejects(connect({ ...w, signature: new Uint8Array(70).fill(1) }), 'RuleErrorAtomicTxnsWrapperSignatureMustBeNil');
    await rejects(connect({ ...w, inputs: [{ txid: new Uint8Array(32), index: 0n }] }), 'RuleErrorAtomicTxnsWrapperMustHaveZeroInputs');
    await rejects(connect({ ...w, outputs: [{ publicKey: alice.pk, amountNanos: 1n }] }), 'RuleErrorAtomicTxnsWrapperMustHaveZeroOutputs');
    await rejects(connect({ ...w, v1: { ...w.v1!, feeNanos: a.feeNanos + 1n } }), 'RuleErrorAtomicTxnsWrapperMustHaveEqualFeeToInternalTxns');
    await rejects(connect({ ...w, v1: { ...w.v1!, noncePartialId: 1n } }), 'RuleErrorAtomicTxnsWrapperMustHaveZeroedNonce');
    await rejects(connect({ ...w, v1: { ...w.v1!, nonceExpirationBlockHeight: 20n } }), 'RuleErrorAtomicTxnsWrapperMustHaveZeroedNonce');
    // Inner fees that sum past 2^64-1 (checked before the links, which these break).
    const huge = (t: Uint8Array): Uint8Array => {
      const f = fieldsOf(t);
      return encodeTxn({ ...f, v1: { ...f.v1!, feeNanos: (1n << 63n) + 1n } });
    };
    await rejects(connect({ ...withInner(w, innerOf(w).map(huge)), v1: { ...w.v1!, feeNanos: 0n } }), 'RuleErrorAtomicTxnsWrapperHasInternalFeeOverflow');
    await rejects(connect({ ...w, metadata: Uint8Array.of(1, 2, 3) }, view, signers()), 'RuleErrorTxnMetadataMalformed');
  });

  it('the wrapper\'s fee pays for its bytes at the chain\'s rate', async () => {
    const strict: ConnectContext = { ...ctx, rules: { ...ctx.rules, minNetworkFeeNanosPerKB: 100_000n } };
    const bytes = encodeTxn(a.fields);
    await rejects(connectTransaction(view, decodeTxn(bytes), { hash: txnHash(bytes), size: bytes.length, signer: signers() }, strict), 'RuleErrorTxnFeeBelowNetworkMinimum', /wrapper/);
  });

  it('the chain of inner transactions (core _verifyAtomicTxnsChain)', async () => {
    const [t0, t1] = innerOf(a.fields) as [Uint8Array, Uint8Array];
    await rejects(connect({ ...withInner(a.fields, []), v1: { ...a.fields.v1!, feeNanos: 0n } }), 'RuleErrorAtomicTxnsHasNoTransactions');
    const nested = a.bytes;
    await rejects(connect({ ...withInner(a.fields, [nested, t1]), v1: { ...a.fields.v1!, feeNanos: a.feeNanos * 2n - a.inner[0]!.fields.v1!.feeNanos } }), 'RuleErrorAtomicTxnsHasAtomicTxnsInnerTxn');
    const plain = transfer(alice.pk, bob.pk, 1n);
    await rejects(connect({ ...withInner(a.fields, [t0, plain.bytes]), v1: { ...a.fields.v1!, feeNanos: a.inner[0]!.fields.v1!.feeNanos + plain.feeNanos } }), 'RuleErrorAtomicTxnsHasNonAtomicInnerTxn');
    await rejects(connect(withInner(a.fields, [setExtra(t0, ATOMIC_TXNS_CHAIN_LENGTH, null), t1])), 'RuleErrorAtomicTxnsMustStartWithChainLength');
    await rejects(connect(withInner(a.fields, [t0, setExtra(t1, ATOMIC_TXNS_CHAIN_LENGTH, Uint8Array.of(2))])), 'RuleErrorAtomicTxnsHasMoreThanOneStartPoint');
    await rejects(connect(withInner(a.fields, [t0, setExtra(t1, NEXT_ATOMIC_TXN_PRE_HASH, new Uint8Array(32))])), 'RuleErrorAtomicTxnsHasBrokenChain', /inner transaction 1: NxtAtmcHsh/);
    await rejects(connect(withInner(a.fields, [t0, setExtra(t1, PREVIOUS_ATOMIC_TXN_PRE_HASH, new Uint8Array(32))])), 'RuleErrorAtomicTxnsHasBrokenChain', /inner transaction 1: PrvAtmcHsh/);
    // Reordered: the chain length pins the start.
    await rejects(connect(withInner(a.fields, [t1, t0])), 'RuleErrorAtomicTxnsMustStartWithChainLength');
    // A changed amount changes an atomic hash: the neighbours' links no longer name it.
    const { signatureField: _, ...f1 } = decodeTxn(t1);
    await rejects(connect(withInner(a.fields, [t0, encodeTxn({ ...f1, outputs: [{ publicKey: alice.pk, amountNanos: 20_000n }] })])), 'RuleErrorAtomicTxnsHasBrokenChain');
  });

  it('a linked transaction does not connect outside its wrapper', async () => {
    const t0 = a.inner[0]!.bytes;
    await rejects(connectTransaction(view, decodeTxn(t0), { hash: sha256d(t0), size: t0.length, signer: alice.pk }, ctx), 'RuleErrorAtomicTxnsRequiresWrapper');
  });

  it('signatures: each inner transaction is verified; the verdict joins the inner signers', async () => {
    const signed = await signAtomic(a, [alice, bob]);
    const [ok] = await checkSignatures(crypto, [{ bytes: signed, txn: decodeTxn(signed) }]);
    assert.equal(ok!.error, null);
    assert.equal(hex(ok!.signer), hex(Buffer.concat([alice.pk, bob.pk])));
    // Bob's transaction signed by carol.
    const wrong = completeAtomic(a.bytes, [await signTransaction(crypto, a.inner[0]!.bytes, alice.secret, { derived: false }), await signTransaction(crypto, a.inner[1]!.bytes, carol.secret, { derived: false })]);
    const [bad] = await checkSignatures(crypto, [{ bytes: wrong, txn: decodeTxn(wrong) }]);
    assert.equal(bad!.error?.code, 'RuleErrorInvalidTransactionSignature');
    assert.match(bad!.error!.message, /inner transaction 1 of 2/);
    const [unsignedVerdict] = await checkSignatures(crypto, [{ bytes: a.bytes, txn: decodeTxn(a.bytes) }]);
    assert.equal(unsignedVerdict!.error?.code, 'RuleErrorInvalidTransactionSignature', 'an incomplete wrapper is refused');
  });
});

describe('completeAtomic (backend SubmitAtomicTransaction)', () => {
  const [alice, bob] = [newKey(), newKey()];
  const a = constructAtomic([transfer(alice.pk, bob.pk, 5n).fields, transfer(bob.pk, alice.pk, 1n).fields], RATE);

  it('splices each signature into the inner transaction of the same pre-signature hash, in any order', async () => {
    const s0 = await signTransaction(crypto, a.inner[0]!.bytes, alice.secret, { derived: false });
    const s1 = await signTransaction(crypto, a.inner[1]!.bytes, bob.secret, { derived: false });
    const done = completeAtomic(a.bytes, [s1, s0]);
    assert.deepEqual(innerOf(fieldsOf(done)).map(hex), [s0, s1].map(hex));
    // An already complete wrapper needs nothing more.
    assert.equal(hex(completeAtomic(done, [])), hex(done));
  });

  it('refuses a transaction that is not a wrapper, an unsigned "signed" one, a missing signature', async () => {
    const refuses = (f: () => unknown, re: RegExp) => assert.throws(f, (e: unknown) => e instanceof AtomicRequestError && re.test(e.message));
    refuses(() => completeAtomic(a.inner[0]!.bytes, []), /must be an atomic transaction/);
    refuses(() => completeAtomic(a.bytes, [a.inner[0]!.bytes]), /Signed transaction 0 hex missing signature/);
    const s0 = await signTransaction(crypto, a.inner[0]!.bytes, alice.secret, { derived: false });
    refuses(() => completeAtomic(a.bytes, [s0]), /Transaction 1 in atomic transaction still missing signature/);
    refuses(() => completeAtomic(a.bytes, [Uint8Array.of(1, 2)]), /Problem deserializing signed transaction 0/);
  });
});

describe('a Chain admits and mines an atomic wrapper', () => {
  const log = pino({ level: 'silent' });
  const store = new MemoryStore();
  const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log });
  const [miner, bob, carol] = [newKey(), newKey(), newKey()];

  async function mine(): Promise<void> {
    const t = await chain.blockTemplate(miner.pk, 1);
    await chain.submitBlock(miner.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
  }
  async function build(amounts: [bigint, bigint]): Promise<AtomicConstructed> {
    const tip = (await chain.tip()).height;
    const make = (from: Uint8Array, to: Uint8Array, amountNanos: bigint) =>
      constructTxn({ publicKey: from, metadata: { type: 'BASIC_TRANSFER' }, outputs: [{ publicKey: to, amountNanos }], minFeeRateNanosPerKB: RATE, networkMinFeeRateNanosPerKB: 0n, tipHeight: tip, maxNonceExpirationBlockHeightOffset: chain.params.maxNonceExpirationBlockHeightOffset }).fields;
    return constructAtomic([make(miner.pk, bob.pk, amounts[0]), make(bob.pk, carol.pk, amounts[1])], RATE);
  }

  before(async () => {
    await chain.init();
    await mine();
  });
  after(() => store.close());

  it('a valid set is admitted as one transaction, then mined: every effect lands', async () => {
    const signed = await signAtomic(await build([1_000_000n, 400_000n]), [miner, bob]);
    const before = await chain.mempoolSize();
    const r = await chain.submitTransaction(signed);
    assert.equal(r.hashHex, hex(txnHash(signed)));
    assert.equal(await chain.mempoolSize(), before + 1);
    await mine();
    assert.equal(await chain.mempoolSize(), 0);
    assert.equal(await chain.balance(carol.pk), 400_000n);
    assert.ok((await chain.balance(bob.pk)) < 600_000n && (await chain.balance(bob.pk)) > 590_000n, 'bob keeps the rest less his fee');
  });

  it('a set with a failing inner transaction is refused whole; the mempool is unchanged', async () => {
    const bobBefore = await chain.balance(bob.pk);
    const signed = await signAtomic(await build([1_000n, 10n ** 15n]), [miner, bob]);
    await rejects(chain.submitTransaction(signed), 'RuleErrorInsufficientBalance', /inner transaction 1 of 2/);
    assert.equal(await chain.mempoolSize(), 0);
    assert.equal(await chain.balance(bob.pk), bobBefore);
  });

  it('an inner transaction pulled out of its set is refused', async () => {
    const a = await build([1_000n, 10n]);
    const lone = await signTransaction(crypto, a.inner[0]!.bytes, miner.secret, { derived: false });
    await rejects(chain.submitTransaction(lone), 'RuleErrorAtomicTxnsRequiresWrapper');
  });

  it('an incomplete wrapper (inner transactions unsigned) is refused', async () => {
    await rejects(chain.submitTransaction((await build([1_000n, 10n])).bytes), 'RuleErrorInvalidTransactionSignature');
  });
});

