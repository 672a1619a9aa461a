/**
 * SignatureCohorts (chain/mempool/signatureCohorts.ts): submitted transactions' signatures go
 * to the crypto pool in cohorts paced by admission batches, one check for everything that
 * arrived meanwhile, each caller answered with its own verdict.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { SignatureCohorts } from '../../server/chain/mempool/signatureCohorts.js';
import type { SignedTxn } from '../../server/chain/rules/signatures.js';
import { decodeTxn } from '../../server/chain/txn/envelope.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { MemoryStore } from '../../server/store/memory.js';
import { newKey, signedTransfer } from '../helpers/transfers.js';

const crypto = new InlineCrypto();
const store = new MemoryStore();
const chain = new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log: pino({ level: 'silent' }) });
const sender = newKey();
let good: SignedTxn[] = [];
let forged: SignedTxn;

before(async () => {
  await chain.init();
  const signed = await Promise.all([1n, 2n, 3n].map((n) => signedTransfer(chain, crypto, sender, newKey().pk, n)));
  good = signed.map((bytes) => ({ bytes, txn: decodeTxn(bytes) }));
  // The first transfer's bytes with another key's signature.
  const other = await signedTransfer(chain, crypto, newKey(), newKey().pk, 1n);
  forged = { bytes: good[0]!.bytes, txn: { ...good[0]!.txn, signature: decodeTxn(other).signature } };
});
after(async () => {
  await store.close();
  await crypto.close();
});

/** The crypto service, counting verifySignatures calls and the items of each. */
function counting(): { crypto: CryptoService; calls: number[] } {
  const calls: number[] = [];
  const c = Object.create(crypto) as CryptoService;
  c.verifySignatures = (items) => {
    calls.push(items.length);
    return crypto.verifySignatures(items);
  };
  return { crypto: c, calls };
}

describe('SignatureCohorts', () => {
  it('while no admission batch runs, checks what arrived in the same turn at the next one', async () => {
    const { crypto: c, calls } = counting();
    const cohorts = new SignatureCohorts(c, () => false);
    const verdicts = await Promise.all(good.map((t) => cohorts.check(t)));
    assert.deepEqual(calls, [3]);
    for (const v of verdicts) {
      assert.equal(v.error, null);
      assert.deepEqual(v.signer, sender.pk);
    }
  });

  it('while a batch runs, arrivals wait for dispatch and go as one check, each with its own verdict', async () => {
    const { crypto: c, calls } = counting();
    const cohorts = new SignatureCohorts(c, () => true);
    const checks = [cohorts.check(good[1]!), cohorts.check(forged), cohorts.check(good[2]!)];
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(calls, [], 'nothing is sent before the batch boundary');
    cohorts.dispatch();
    const [a, bad, b] = await Promise.all(checks);
    assert.deepEqual(calls, [3]);
    assert.equal(a!.error, null);
    assert.equal(b!.error, null);
    assert.equal(bad!.error?.code, 'RuleErrorInvalidTransactionSignature');
    cohorts.dispatch();
    assert.deepEqual(calls, [3], 'an empty dispatch sends nothing');
  });

  it('a pool failure answers every check of the cohort with it', async () => {
    const failing = Object.create(crypto) as CryptoService;
    failing.verifySignatures = () => Promise.reject(new Error('pool busy'));
    const cohorts = new SignatureCohorts(failing, () => false);
    const results = await Promise.allSettled(good.map((t) => cohorts.check(t)));
    assert.deepEqual(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok')), ['pool busy', 'pool busy', 'pool busy']);
  });
});
