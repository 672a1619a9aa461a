/** Stored blocks by hash (server/chain/state/blockTxns.ts): decompressed once, then kept. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { packBlockBody } from '../../server/chain/block/body.js';
import { decodedBlock, MainChainBlocks, readBlock } from '../../server/chain/state/blockTxns.js';
import { chainKeys } from '../../server/chain/state/keys.js';

async function recordOf(txns: Uint8Array[]): Promise<{ header: Uint8Array; body: Uint8Array; height: bigint; targetHex: string; mainChain: boolean }> {
  return { header: new Uint8Array(randomBytes(100)), body: await packBlockBody(txns), height: 7n, targetHex: '', mainChain: true };
}

describe('stored blocks by hash', () => {
  it('reads and decompresses a block once; later asks are answered without a store read', async () => {
    const txns = [randomBytes(60), randomBytes(200)];
    const hashHex = randomBytes(32).toString('hex');
    const record = await recordOf(txns);
    const reads: string[] = [];
    const state = { get: async <T>(key: string): Promise<T | undefined> => (reads.push(key), key === chainKeys.block(hashHex) ? (record as T) : undefined) };
    const first = await readBlock(state, hashHex);
    const second = await readBlock(state, hashHex);
    assert.deepEqual(first?.txns.map((t) => Buffer.from(t).toString('hex')), txns.map((t) => t.toString('hex')));
    assert.deepEqual(first?.header, record.header);
    assert.equal(second, first, 'the same decoded block');
    assert.deepEqual(reads, [chainKeys.block(hashHex)], 'one store read');
    assert.equal(await decodedBlock(hashHex, { header: new Uint8Array(0), body: new Uint8Array(0) }), first, 'a cached block is not decompressed again');
  });

  it('answers undefined for a hash no stored block has', async () => {
    assert.equal(await readBlock({ get: async () => undefined }, randomBytes(32).toString('hex')), undefined);
  });

  it('reads a main-chain block once per height for one request, with its hash and height', async () => {
    const hashHex = randomBytes(32).toString('hex');
    const record = await recordOf([randomBytes(80)]);
    const reads: string[] = [];
    const state = {
      get: async <T>(key: string): Promise<T | undefined> => {
        reads.push(key);
        if (key === chainKeys.hashAtHeight(7n)) return hashHex as T;
        return key === chainKeys.block(hashHex) ? (record as T) : undefined;
      },
    };
    const blocks = new MainChainBlocks(state);
    const [a, b] = await Promise.all([blocks.at(7), blocks.at(7)]);
    assert.equal(a, b);
    assert.equal(a?.hashHex, hashHex);
    assert.equal(a?.height, 7n);
    assert.equal(reads.length, 2, 'the height, then the block');
    assert.equal(await blocks.at(8), undefined, 'no block at that height');
  });
});
