/** Block bodies as stored (server/chain/block/body.ts): compressed, length-prefixed transactions. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { BlockBodyError, packBlockBody, unpackBlockBody } from '../../server/chain/block/body.js';

describe('block body', () => {
  it('gives back the same transactions in the same order, empty ones and long ones included', async () => {
    const txns = [randomBytes(54), new Uint8Array(0), randomBytes(127), randomBytes(128), randomBytes(300_000), randomBytes(1)];
    const back = await unpackBlockBody(await packBlockBody(txns));
    assert.deepEqual(
      back.map((t) => Buffer.from(t).toString('hex')),
      txns.map((t) => Buffer.from(t).toString('hex')),
    );
  });

  it('stores bytes repeated across transactions once (keys named by many of a block)', async () => {
    const key = randomBytes(33);
    const txns = Array.from({ length: 100 }, () => Buffer.concat([key, randomBytes(71), key]));
    const raw = txns.reduce((a, t) => a + t.length, 0);
    const body = await packBlockBody(txns);
    assert.ok(body.length < raw * 0.75, `${body.length} stored bytes for ${raw} raw`);
  });

  it('refuses bytes that do not decompress, or decompress to a length beyond the bytes left', async () => {
    // 0xff starts a deflate block of the reserved type 3.
    await assert.rejects(unpackBlockBody(new Uint8Array(40).fill(0xff)), BlockBodyError);
    // A length prefix of 200 followed by 3 bytes.
    await assert.rejects(unpackBlockBody(deflateRawSync(Buffer.from([0xc8, 0x01, 1, 2, 3]))), /block body: .*200 exceeds the 3 bytes left/);
  });

  it('decompresses bodies larger than the inline limit on the thread pool, with the same result', async () => {
    const txns = Array.from({ length: 50 }, () => randomBytes(4000));
    const body = await packBlockBody(txns);
    assert.ok(body.length > 32 * 1024);
    assert.equal((await unpackBlockBody(body)).length, 50);
  });
});
