/** BatchCrypto.decryptMessages: a big batch runs as DECRYPT_CHUNK-sized tasks, results in order. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { DECRYPT_CHUNK } from '../../server/crypto/service.js';
import type { TaskName } from '../../workers/types.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

/** InlineCrypto that records the size of every task it runs. */
class TaskCounting extends InlineCrypto {
  tasks: Array<{ task: TaskName; bytes: number }> = [];
  protected override submit(task: TaskName, encode: () => Uint8Array, signal?: AbortSignal): Promise<Uint8Array> {
    return super.submit(task, () => {
      const bytes = encode();
      this.tasks.push({ task, bytes: bytes.length });
      return bytes;
    }, signal);
  }
}

describe('decryptMessages chunking', () => {
  it(`${2 * DECRYPT_CHUNK + 5} ciphertexts run as 3 tasks and every result lands at its own index`, async () => {
    const crypto = new TaskCounting();
    const privateKey = new Uint8Array(randomBytes(32));
    const recipientPublicKey = getPublicKey(privateKey, true);
    const plaintexts = Array.from({ length: 2 * DECRYPT_CHUNK + 5 }, (_, i) => new Uint8Array(Buffer.from(`message ${i}`)));
    const encrypted = await crypto.encryptMessages(plaintexts.map((plaintext) => ({ recipientPublicKey, plaintext })));
    const ciphertexts = encrypted.map((r) => (r.ok ? r.value : assert.fail(r.error)));
    ciphertexts[7] = new Uint8Array(ciphertexts[7]!.length); // one bad item fails alone
    crypto.tasks = [];
    const results = await crypto.decryptMessages({ privateKey, ciphertexts });
    assert.deepEqual(crypto.tasks.map((t) => t.task), ['decryptMessages', 'decryptMessages', 'decryptMessages']);
    assert.equal(results.length, plaintexts.length);
    results.forEach((r, i) => {
      if (i === 7) assert.equal(r.ok, false, 'the zeroed ciphertext fails');
      else assert.deepEqual(r.ok ? r.value : r.error, plaintexts[i], `result ${i}`);
    });
  });

  it('a batch of at most DECRYPT_CHUNK is one task', async () => {
    const crypto = new TaskCounting();
    const privateKey = new Uint8Array(randomBytes(32));
    const results = await crypto.decryptMessages({ privateKey, ciphertexts: Array.from({ length: DECRYPT_CHUNK }, () => new Uint8Array(100)) });
    assert.equal(crypto.tasks.length, 1);
    assert.equal(results.length, DECRYPT_CHUNK);
  });
});
