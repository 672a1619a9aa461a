/**
 * The write path over HTTP against a real node process: an outside miner earns coins through
 * get-block-template / submit-block; send-deso → sign (identity `sign`, and the SDK's signTx) →
 * submit-transaction → mined by the node's own miner → state visible (get-app-state BlockHeight,
 * send-deso "max" spending exactly the balance). Rejections answer 400 with clear errors.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signTx } from 'deso-protocol';
import { decodeTxn, encodeTxn } from '../../server/chain/txn/envelope.js';
import { TxnType } from '../../server/chain/txn/metadata.js';
import { signTransaction } from '../../server/identity/signTxn.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { okApi, postApi } from '../helpers/http.js';
import { solveTemplate } from '../helpers/mining.js';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';

const crypto = new InlineCrypto();
let node: NodeProcess;

const keyPair = (): { seedHex: string; pk: string } => {
  const secret = new Uint8Array(randomBytes(32));
  return { seedHex: Buffer.from(secret).toString('hex'), pk: encodePublicKey(getPublicKey(secret, true), 'testnet') };
};
const alice = keyPair();
const bob = keyPair();
const minerKey = keyPair();

before(async () => {
  node = await startNodeProcess({ args: ['--miner', 'auto', '--miner-public-key', minerKey.pk] });
});
after(async () => {
  await node?.stop();
  await crypto.close();
});

type J = Record<string, unknown>;
const post = (path: string, body: unknown): Promise<{ status: number; json: J }> => postApi(node.url, path, body);
const ok = (path: string, body: unknown): Promise<J> => okApi(node.url, path, body);
async function height(): Promise<number> {
  return (await ok('get-app-state', {}))['BlockHeight'] as number;
}
/** Polls until the tip passes `h` (the node's miner runs within ~100 ms of a new txn). */
async function waitForHeightAbove(h: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const now = await height();
    if (now > h) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the tip stayed at ${h}`);
}

/** An outside miner: template → scan nonces → submit-block. */
async function mineTo(pk: string): Promise<J> {
  const t = await ok('get-block-template', { PublicKeyBase58Check: pk, NumHeaders: 1, HeaderVersion: 1 });
  return ok('submit-block', {
    PublicKeyBase58Check: pk,
    Header: await solveTemplate(crypto, t),
    ExtraNonce: (t['ExtraNonces'] as number[])[0],
    BlockID: t['BlockID'],
  });
}

async function identity(method: string, payload: J): Promise<J> {
  const r = await ok('identity', { id: `${method}-${Math.random()}`, service: 'identity', method, payload });
  return r['payload'] as J;
}

describe('mining routes', () => {
  it('get-block-template answers the spec shape; HeaderVersion 0 and a bad key are 400', async () => {
    const t = await ok('get-block-template', { PublicKeyBase58Check: alice.pk, NumHeaders: 2, HeaderVersion: 1 });
    assert.deepEqual(Object.keys(t).sort(), ['BlockID', 'DifficultyTargetHex', 'ExtraNonces', 'Headers', 'LatestBlockTemplateStats']);
    assert.equal((t['Headers'] as string[]).length, 2);
    assert.equal(Buffer.from((t['Headers'] as string[])[0]!, 'base64').length, 100);
    assert.match(t['DifficultyTargetHex'] as string, /^[0-9a-f]{64}$/);
    assert.equal((t['LatestBlockTemplateStats'] as J)['FailingTxnError'], 'You good');
    const v0 = await post('get-block-template', { PublicKeyBase58Check: alice.pk, NumHeaders: 1, HeaderVersion: 0 });
    assert.equal(v0.status, 400);
    assert.match(String(v0.json['error']), /Header version v0 not supported/);
    assert.equal((await post('get-block-template', { PublicKeyBase58Check: 'nope', NumHeaders: 1, HeaderVersion: 1 })).status, 400);
  });

  it('an outside miner\'s solved header joins the main chain and pays its key', async () => {
    const before = await height();
    const r = await mineTo(alice.pk);
    assert.deepEqual(r, { IsMainChain: true, IsOrphan: false });
    assert.equal(await height(), before + 1);
  });

  it('submit-block refuses an unknown BlockID and a malformed header', async () => {
    const t = await ok('get-block-template', { PublicKeyBase58Check: alice.pk, NumHeaders: 1, HeaderVersion: 1 });
    const base = { PublicKeyBase58Check: alice.pk, Header: (t['Headers'] as string[])[0], ExtraNonce: (t['ExtraNonces'] as number[])[0] };
    const unknown = await post('submit-block', { ...base, BlockID: 'ab'.repeat(32) });
    assert.equal(unknown.status, 400);
    assert.match(String(unknown.json['error']), /not found/);
    const bad = await post('submit-block', { ...base, Header: 'AAAA', BlockID: t['BlockID'] });
    assert.equal(bad.status, 400);
    const pow = await post('submit-block', { ...base, BlockID: t['BlockID'] });
    // Nonce 0 almost never solves the template (~1/455): either way the answer is well-formed.
    assert.ok(pow.status === 400 || pow.json['IsMainChain'] === true, `bad proof of work refused: ${JSON.stringify(pow.json)}`);
  });
});

describe('send-deso → sign → submit-transaction → mined', () => {
  it('signed by the identity service: mined by the node\'s own miner; the balance moves', async () => {
    const login = await identity('login', { seedHex: alice.seedHex, accessLevelRequest: 4 });
    const session = { encryptedSeedHex: login['encryptedSeedHex'], accessLevel: 4, accessLevelHmac: login['accessLevelHmac'] };
    const c = await ok('send-deso', { SenderPublicKeyBase58Check: alice.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 100_000_000, MinFeeRateNanosPerKB: 1000 });
    for (const f of ['TotalInputNanos', 'SpendAmountNanos', 'ChangeAmountNanos', 'FeeNanos', 'TransactionIDBase58Check', 'Transaction', 'TransactionHex', 'TxnHashHex']) {
      assert.ok(f in c, `send-deso answers ${f}`);
    }
    assert.equal(c['SpendAmountNanos'], 100_000_000);
    const signed = await identity('sign', { ...session, transactionHex: c['TransactionHex'] });
    const h = await height();
    const s = await ok('submit-transaction', { TransactionHex: signed['signedTransactionHex'] });
    assert.match(s['TxnHashHex'] as string, /^[0-9a-f]{64}$/);
    assert.equal(s['PostEntryResponse'], null);
    await waitForHeightAbove(h);
    // Bob spends "max": exactly his balance minus the fee, which proves the balance.
    const max = await ok('send-deso', { SenderPublicKeyBase58Check: bob.pk, RecipientPublicKeyOrUsername: alice.pk, AmountNanos: -1, MinFeeRateNanosPerKB: 1000 });
    assert.equal((max['SpendAmountNanos'] as number) + (max['FeeNanos'] as number), 100_000_000);
  });

  it('signed by the official SDK (signTx): accepted and mined', async () => {
    const c = await ok('send-deso', { SenderPublicKeyBase58Check: alice.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 5_000, MinFeeRateNanosPerKB: 1500 });
    const signed = await signTx(c['TransactionHex'] as string, alice.seedHex);
    const h = await height();
    await ok('submit-transaction', { TransactionHex: signed });
    await waitForHeightAbove(h);
  });

  it('UnsignedTransactionHex + TransactionSignatureHex is accepted too', async () => {
    const c = await ok('send-deso', { SenderPublicKeyBase58Check: alice.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 7_000, MinFeeRateNanosPerKB: 1000 });
    const signed = new Uint8Array(Buffer.from(await signTx(c['TransactionHex'] as string, alice.seedHex), 'hex'));
    const sig = Buffer.from(decodeTxn(signed).signature).toString('hex');
    await ok('submit-transaction', { UnsignedTransactionHex: c['TransactionHex'], TransactionSignatureHex: sig });
  });

  it('rejections: malformed hex, bad signature, duplicate, overspend, both hex forms', async () => {
    const bad = await post('submit-transaction', { TransactionHex: 'zz' });
    assert.equal(bad.status, 400);
    const junk = await post('submit-transaction', { TransactionHex: '0102' });
    assert.equal(junk.status, 400);
    assert.match(String(junk.json['error']), /Problem deserializing/);
    const c = await ok('send-deso', { SenderPublicKeyBase58Check: alice.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 1, MinFeeRateNanosPerKB: 1000 });
    const wrongKey = await signTx(c['TransactionHex'] as string, bob.seedHex);
    const r = await post('submit-transaction', { TransactionHex: wrongKey });
    assert.equal(r.status, 400);
    assert.match(String(r.json['error']), /RuleErrorInvalidTransactionSignature/);
    const good = await signTx(c['TransactionHex'] as string, alice.seedHex);
    await ok('submit-transaction', { TransactionHex: good });
    const dup = await post('submit-transaction', { TransactionHex: good });
    assert.equal(dup.status, 400);
    assert.match(String(dup.json['error']), /RuleErrorDuplicateTxn/);
    const poor = keyPair();
    const o = await ok('send-deso', { SenderPublicKeyBase58Check: poor.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 10, MinFeeRateNanosPerKB: 1000 });
    const over = await post('submit-transaction', { TransactionHex: await signTx(o['TransactionHex'] as string, poor.seedHex) });
    assert.equal(over.status, 400);
    assert.match(String(over.json['error']), /RuleErrorInsufficientBalance/);
    // Malformed metadata: a transfer re-typed as UPDATE_PROFILE carries no profile metadata.
    const m = await ok('send-deso', { SenderPublicKeyBase58Check: alice.pk, RecipientPublicKeyOrUsername: bob.pk, AmountNanos: 1, MinFeeRateNanosPerKB: 1000 });
    const retyped = encodeTxn({ ...decodeTxn(new Uint8Array(Buffer.from(m['TransactionHex'] as string, 'hex'))), txnType: TxnType.UPDATE_PROFILE, outputs: [], metadata: Uint8Array.of(1, 2, 3) });
    // (The SDK refuses to parse such bytes, so our own signer signs them.)
    const signedRetyped = await signTransaction(crypto, retyped, new Uint8Array(Buffer.from(alice.seedHex, 'hex')), { derived: false });
    const malformed = await post('submit-transaction', { TransactionHex: Buffer.from(signedRetyped).toString('hex') });
    assert.equal(malformed.status, 400);
    assert.match(String(malformed.json['error']), /RuleErrorTxnMetadataMalformed/);
    const both = await post('submit-transaction', { TransactionHex: good, UnsignedTransactionHex: good });
    assert.equal(both.status, 400);
    assert.match(String(both.json['error']), /Cannot submit both/);
  });
});
