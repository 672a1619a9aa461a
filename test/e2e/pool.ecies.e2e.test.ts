// Message ECIES through the crypto pool: decryptMessages and encryptMessages give the same
// answers inline and on worker threads, decrypt the official SDK's vectors, and fail per item.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { CryptoPool } from '../../server/crypto/pool.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { decodePublicKey } from '../../server/keys/index.js';
import { decrypt, decryptSharedBatch } from '../../wasm/ecies.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import type { WorkResult } from '../../workers/types.js';
import { hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface Pair {
  senderPublicKeyBase58Check: string;
  recipientSeedHex: string;
  messages: Array<{ plaintext: string; ciphertextHex: string }>;
}
const V = readSharedVectors<{ v2SharedSecret: Pair[]; v1Legacy: Array<{ recipientSeedHex: string; plaintext: string; ciphertextHex: string }> }>(
  'sdk-vectors.json',
);
const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const text = (r: WorkResult<Uint8Array>): string => (r.ok ? `ok:${Buffer.from(r.value).toString('utf8')}` : `error:${r.error}`);

const inline = new InlineCrypto();
let pool: CryptoPool;
before(() => {
  pool = new CryptoPool({ threads: 2 }, { metrics: null, log: null });
});
after(async () => {
  await pool.close();
});

for (const [name, service] of [
  ['inline', (): CryptoService => inline],
  ['pool', (): CryptoService => pool],
] as const) {
  describe(`decryptMessages (${name})`, () => {
    it('decrypts the SDK V1 vectors', async () => {
      for (const v of V.v1Legacy) {
        const [r] = await service().decryptMessages({ privateKey: hexToBytes(v.recipientSeedHex), ciphertexts: [hexToBytes(v.ciphertextHex)] });
        assert.equal(text(r!), `ok:${v.plaintext}`);
      }
    });

    it('decrypts the SDK V2 vectors as a batch, one result per message', async () => {
      for (const pair of V.v2SharedSecret) {
        const results = await service().decryptMessages({
          privateKey: hexToBytes(pair.recipientSeedHex),
          otherPublicKey: decodePublicKey(pair.senderPublicKeyBase58Check, 'mainnet', 'key'),
          ciphertexts: pair.messages.map((m) => hexToBytes(m.ciphertextHex)),
        });
        assert.deepEqual(results.map(text), pair.messages.map((m) => `ok:${m.plaintext}`));
      }
    });

    it('fails bad items alone', async () => {
      const priv = randomBytes(32);
      const pub = getPublicKey(priv, true);
      const [encrypted] = await service().encryptMessages([{ recipientPublicKey: pub, plaintext: utf8('hi') }]);
      const good = encrypted!;
      assert.ok(good.ok, 'encrypts');
      const tampered = good.value.slice();
      tampered[tampered.length - 1]! ^= 1;
      const results = await service().decryptMessages({ privateKey: priv, ciphertexts: [good.value, tampered, new Uint8Array(5), good.value] });
      assert.deepEqual(results.map(text), ['ok:hi', 'error:incorrect MAC', 'error:ciphertext shorter than 113 bytes', 'ok:hi']);
    });

    it('refuses a wrong-length private key before queueing', async () => {
      await assert.rejects(service().decryptMessages({ privateKey: new Uint8Array(31), ciphertexts: [new Uint8Array(120)] }), /"privateKey" expected 32 bytes, got 31/);
    });
  });

  describe(`encryptMessages (${name})`, () => {
    it('V1 and V2 ciphertexts decrypt with the WASM core directly', async () => {
      const alice = randomBytes(32);
      const bob = randomBytes(32);
      const [r1, r2, bad] = await service().encryptMessages([
        { recipientPublicKey: getPublicKey(bob, true), plaintext: utf8('to bob') },
        { recipientPublicKey: getPublicKey(bob, true), plaintext: utf8('shared'), senderPrivateKey: alice },
        { recipientPublicKey: new Uint8Array(32), plaintext: utf8('nope') },
      ]);
      const v1 = r1!;
      const v2 = r2!;
      assert.ok(v1.ok && v2.ok, 'both encrypt');
      assert.equal(Buffer.from(decrypt(bob, v1.value)).toString(), 'to bob');
      const [shared] = decryptSharedBatch(bob, getPublicKey(alice, true), [v2.value]);
      assert.equal(text(shared!), 'ok:shared');
      assert.equal(text(bad!), 'error:"recipientPublicKey" expected 33 bytes, got 32');
    });

    it('reports an off-curve recipient key on its item', async () => {
      const offCurve = new Uint8Array(33).fill(0xff);
      offCurve[0] = 2;
      const [r] = await service().encryptMessages([{ recipientPublicKey: offCurve, plaintext: utf8('x') }]);
      assert.equal(text(r!), 'error:invalid recipient public key or sender private key');
    });
  });
}

describe('inline and pool agree', () => {
  it('on 200 random V2 decryptions', async () => {
    const me = randomBytes(32);
    const other = randomBytes(32);
    const items = Array.from({ length: 200 }, (_, i) => ({ recipientPublicKey: getPublicKey(me, true), plaintext: utf8(`m${i}`), senderPrivateKey: other }));
    const cts = (await inline.encryptMessages(items)).map((r) => (r.ok ? r.value : new Uint8Array(0)));
    const req = { privateKey: me, otherPublicKey: getPublicKey(other, true), ciphertexts: cts };
    const [a, b] = await Promise.all([inline.decryptMessages(req), pool.decryptMessages(req)]);
    assert.deepEqual(b.map(text), a.map(text));
    assert.equal(a.filter((r) => r.ok).length, 200);
  });
});
