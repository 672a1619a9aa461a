/**
 * Used nonces are pruned once they expire: the block past a nonce's expiration height deletes
 * its key and index member (bounded per block, lowest expiration first), and the transaction
 * stays refused, now as expired.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { connectTransaction } from '../../server/chain/rules/connect.js';
import { chainKeys, nonceText } from '../../server/chain/state/keys.js';
import { expiredNonceOps, spendNonce } from '../../server/chain/state/nonces.js';
import { StateView } from '../../server/chain/state/view.js';
import { decodeTxn, txnHash } from '../../server/chain/txn/envelope.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { MemoryStore } from '../../server/store/memory.js';
import { solveHeader } from '../helpers/mining.js';
import { newKey, signedTransfer } from '../helpers/transfers.js';

const OFFSET = 3n;
const params = { ...DEV_CHAIN_PARAMS, maxNonceExpirationBlockHeightOffset: OFFSET };
const crypto = new InlineCrypto();
after(() => crypto.close());


describe('nonce pruning', () => {
  it('deletes a nonce in the block past its expiration; replaying the transaction is refused as expired', async () => {
    const store = new MemoryStore();
    const chain = new Chain({ store, crypto, params, log: pino({ level: 'silent' }) });
    await chain.init();
    const [alice, bob] = [newKey(), newKey()];
    const mine = async (): Promise<bigint> => {
      const t = await chain.blockTemplate(alice.pk, 1);
      const r = await chain.submitBlock(alice.pk, await solveHeader(crypto, t.headers[0]!, t.target), t.extraNonces[0]!, t.blockId);
      assert.ok(r.isMainChain);
      return (await chain.tip()).height;
    };
    await mine();
    const bytes = await signedTransfer(chain, crypto, alice, bob.pk, 1000n);
    const txn = decodeTxn(bytes);
    const { nonceExpirationBlockHeight: expiration, noncePartialId: partialId } = txn.v1!;
    const nonceKey = chainKeys.nonce(alice.pk, expiration, partialId);
    const member = nonceText(alice.pk, expiration, partialId);
    const stored = async () => ({
      key: (await store.get(nonceKey)) !== undefined,
      member: (await store.indexRange(chainKeys.noncesByExpiration, { gte: member, lte: member })).length === 1,
    });
    const replayAt = (height: bigint) =>
      connectTransaction(StateView.over(store), txn, { hash: txnHash(bytes), size: bytes.length, signer: alice.pk }, { height, rules: { maxNonceExpirationBlockHeightOffset: OFFSET, minNetworkFeeNanosPerKB: 0n, createProfileFeeNanos: 0n, paramUpdaterPublicKeys: new Set() }, crypto });

    await chain.submitTransaction(bytes);
    let height = await mine();
    assert.deepEqual(await stored(), { key: true, member: true }, 'spent: key and index member');
    while (height < expiration) height = await mine();
    assert.deepEqual(await stored(), { key: true, member: true }, 'kept through the block at its expiration height');
    await assert.rejects(replayAt(height), { code: 'RuleErrorReusedNonce' }, 'still replayable in time: refused as reused');

    height = await mine();
    assert.equal(height, expiration + 1n);
    assert.deepEqual(await stored(), { key: false, member: false }, 'gone with the block past its expiration');
    await assert.rejects(replayAt(height + 1n), { code: 'RuleErrorNonceExpired' }, 'replayed in a block: expired');
    await assert.rejects(chain.submitTransaction(bytes), { code: 'RuleErrorDuplicateTxn' }, 'resubmitted: already mined');
  });

  it('prunes at most `limit` a block, lowest expiration first, none that has not expired', async () => {
    const store = new MemoryStore();
    const view = StateView.over(store);
    const pk = newKey().pk;
    for (const [exp, id] of [[7n, 1n], [5n, 2n], [6n, 3n], [9n, 4n], [256n, 5n]] as const) assert.equal(await spendNonce(view, pk, exp, id), true);
    await store.commit(view.ops());
    const deleted = async (height: bigint, limit?: number) =>
      (await expiredNonceOps(store, height, limit)).filter((o) => o.op === 'del').map((o) => o.key);
    assert.deepEqual(await deleted(5n), [], 'nothing expired before height 5');
    assert.deepEqual(await deleted(9n, 2), [chainKeys.nonce(pk, 5n, 2n), chainKeys.nonce(pk, 6n, 3n)]);
    assert.deepEqual(await deleted(9n), [5n, 6n, 7n].map((e, i) => chainKeys.nonce(pk, e, BigInt([2, 3, 1][i]!))));
    assert.deepEqual(await deleted(300n), [5n, 6n, 7n, 9n, 256n].map((e, i) => chainKeys.nonce(pk, e, BigInt([2, 3, 1, 4, 5][i]!))), 'across byte lengths');
    await store.commit(await expiredNonceOps(store, 8n));
    assert.equal(await store.indexSize(chainKeys.noncesByExpiration), 2, 'the index keeps the live ones');
    assert.equal(await store.get(chainKeys.nonce(pk, 7n, 1n)), undefined);
    assert.equal(await store.get(chainKeys.nonce(pk, 9n, 4n)), true);
  });
});
