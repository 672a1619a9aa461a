/** Block transactions by hash (server/chain/state/blockTxns.ts): decompressed once, then kept. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { packBlockBody } from '../../server/chain/block/body.js';
import { blockTxns, txnsOfBlock } from '../../server/chain/state/blockTxns.js';
import { chainKeys } from '../../server/chain/state/keys.js';

describe('block transactions by hash', () => {
  it('reads and decompresses a block once; later asks are answered without a store read', async () => {
    const txns = [randomBytes(60), randomBytes(200)];
    const hashHex = randomBytes(32).toString('hex');
    const record = { header: new Uint8Array(100), body: await packBlockBody(txns), height: 1n, targetHex: '', mainChain: true };
    const reads: string[] = [];
    const state = { get: async <T>(key: string): Promise<T | undefined> => (reads.push(key), key === chainKeys.block(hashHex) ? (record as T) : undefined) };
    const first = await blockTxns(state, hashHex);
    const second = await blockTxns(state, hashHex);
    assert.deepEqual(first?.map((t) => Buffer.from(t).toString('hex')), txns.map((t) => t.toString('hex')));
    assert.equal(second, first, 'the same decoded transactions');
    assert.deepEqual(reads, [chainKeys.block(hashHex)], 'one store read');
    assert.equal(await txnsOfBlock(hashHex, { body: new Uint8Array(0) }), first, 'a cached block is not decompressed again');
  });

  it('answers undefined for a hash no stored block has', async () => {
    assert.equal(await blockTxns({ get: async () => undefined }, randomBytes(32).toString('hex')), undefined);
  });
});
