// Packing of pool batches: exact layouts, one ArrayBuffer per batch, wrong-length fields
// refused per item, replies merged back in input order, offset tables checked on read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  packEcdhItems,
  packHeaders,
  packMineRequest,
  packSignItems,
  packVariable,
  packVerifyItems,
  unpackEcdhReply,
  unpackHashes,
  unpackMineReply,
  unpackSignReply,
  unpackVariable,
  unpackVerifyReply,
  type VerifyItem,
} from '../../server/crypto/pack.js';
import {
  ECDH_REPLY_BYTES,
  HEADER_BYTES,
  ITEM_ERROR_MESSAGES,
  ItemStatus,
  MINE_REPLY_BYTES,
  SIGN_REPLY_BYTES,
  VERIFY_ITEM_BYTES,
  VerifyFlags,
} from '../../workers/types.js';

const filled = (n: number, v: number): Uint8Array => new Uint8Array(n).fill(v);

describe('verify batches', () => {
  const good = (v: number, lowS?: boolean): VerifyItem => ({ publicKey: filled(33, v), hash: filled(32, v + 1), signature: filled(64, v + 2), lowS });

  it('writes publicKey ‖ hash ‖ signature ‖ flags, 130 bytes per item, in one exact buffer', () => {
    const batch = packVerifyItems([good(1, false), good(5)]);
    assert.equal(batch.bytes.byteOffset, 0);
    assert.equal(batch.bytes.buffer.byteLength, 2 * VERIFY_ITEM_BYTES, 'the buffer holds exactly the batch');
    const second = batch.bytes.subarray(VERIFY_ITEM_BYTES);
    assert.deepEqual(second.subarray(0, 33), filled(33, 5));
    assert.deepEqual(second.subarray(33, 65), filled(32, 6));
    assert.deepEqual(second.subarray(65, 129), filled(64, 7));
    assert.equal(second[129], VerifyFlags.LowS, 'low-S is required unless lowS: false');
    assert.equal(batch.bytes[129], 0);
  });

  it('refuses a wrong-length field for that item only and merges results in input order', () => {
    const items = [good(1), { ...good(2), publicKey: filled(32, 2) }, good(3), { ...good(4), signature: filled(65, 0) }];
    const batch = packVerifyItems(items);
    assert.deepEqual(batch.indices, [0, 2]);
    assert.equal(batch.bytes.length, 2 * VERIFY_ITEM_BYTES);
    const results = unpackVerifyReply(batch, Uint8Array.of(ItemStatus.Ok, ItemStatus.BadPublicKey));
    assert.deepEqual(results, [
      { ok: true, value: true },
      { ok: false, error: '"publicKey" expected 33 bytes, got 32' },
      { ok: false, error: ITEM_ERROR_MESSAGES[ItemStatus.BadPublicKey] },
      { ok: false, error: '"signature" expected 64 bytes, got 65' },
    ]);
  });

  it('reads Invalid as a well-formed false and refuses a reply of the wrong size', () => {
    const batch = packVerifyItems([good(1)]);
    assert.deepEqual(unpackVerifyReply(batch, Uint8Array.of(ItemStatus.Invalid)), [{ ok: true, value: false }]);
    assert.throws(() => unpackVerifyReply(batch, new Uint8Array(2)), /verifySignatures reply expected 1 bytes, got 2/);
  });

  it('names a non-byte field without echoing it', () => {
    const batch = packVerifyItems([{ ...good(1), hash: 'deadbeef' as unknown as Uint8Array }]);
    assert.deepEqual([...batch.refused.values()], ['"hash" expected a Uint8Array of 32 bytes, got string']);
  });
});

describe('header, mining, sign and ecdh layouts', () => {
  it('packs headers back to back and throws on a wrong length, naming the index', () => {
    const bytes = packHeaders([filled(100, 1), filled(100, 2)]);
    assert.equal(bytes.length, 2 * HEADER_BYTES);
    assert.equal(bytes[100], 2);
    assert.throws(() => packHeaders([filled(100, 1), filled(99, 1)]), /"headers\[1\]" expected 100 bytes, got 99/);
    const hashes = unpackHashes(2, filled(64, 9));
    assert.equal(hashes.length, 2);
    assert.deepEqual(hashes[1], filled(32, 9));
  });

  it('packs a mining request with big-endian startNonce and count, and reads the reply', () => {
    const bytes = packMineRequest({ header: filled(100, 7), startNonce: 0x0102030405060708n, count: 0x0a0b0c0d, target: filled(32, 0xff) });
    assert.equal(bytes.length, 144);
    assert.deepEqual([...bytes.subarray(100, 112)], [1, 2, 3, 4, 5, 6, 7, 8, 0x0a, 0x0b, 0x0c, 0x0d]);
    assert.deepEqual(bytes.subarray(112), filled(32, 0xff));
    assert.throws(() => packMineRequest({ header: filled(100, 0), startNonce: -1n, count: 1, target: filled(32, 0) }), /"startNonce"/);
    assert.throws(() => packMineRequest({ header: filled(100, 0), startNonce: 0n, count: 1.5, target: filled(32, 0) }), /"count"/);
    assert.throws(() => packMineRequest({ header: filled(100, 0), startNonce: 0n, count: 1, target: filled(31, 0) }), /"target" expected 32 bytes, got 31/);

    assert.deepEqual(unpackMineReply(new Uint8Array(MINE_REPLY_BYTES)), { found: false });
    const reply = new Uint8Array(MINE_REPLY_BYTES);
    reply[0] = 1;
    reply[8] = 42;
    reply.fill(3, 9);
    assert.deepEqual(unpackMineReply(reply), { found: true, nonce: 42n, hash: filled(32, 3) });
  });

  it('reads sign replies: status ‖ signature ‖ recovery, per packed item', () => {
    const batch = packSignItems([
      { privateKey: filled(32, 1), hash: filled(32, 2) },
      { privateKey: filled(31, 1), hash: filled(32, 2) },
      { privateKey: filled(32, 0), hash: filled(32, 2) },
    ]);
    assert.deepEqual(batch.indices, [0, 2]);
    const reply = new Uint8Array(2 * SIGN_REPLY_BYTES);
    reply[0] = ItemStatus.Ok;
    reply.fill(4, 1, 65);
    reply[65] = 1;
    reply[SIGN_REPLY_BYTES] = ItemStatus.BadPrivateKey;
    assert.deepEqual(unpackSignReply(batch, reply), [
      { ok: true, value: { signature: filled(64, 4), recovery: 1 } },
      { ok: false, error: '"privateKey" expected 32 bytes, got 31' },
      { ok: false, error: ITEM_ERROR_MESSAGES[ItemStatus.BadPrivateKey] },
    ]);
  });

  it('reads ecdh replies: status ‖ 32-byte secret', () => {
    const batch = packEcdhItems([{ privateKey: filled(32, 1), publicKey: filled(33, 2) }]);
    assert.equal(batch.bytes.length, 65);
    const reply = new Uint8Array(ECDH_REPLY_BYTES);
    reply[0] = ItemStatus.Ok;
    reply.fill(8, 1);
    assert.deepEqual(unpackEcdhReply(batch, reply), [{ ok: true, value: filled(32, 8) }]);
  });
});

describe('offset tables for variable-length items', () => {
  it('round-trips items of any length, including empty ones and an empty batch', () => {
    const items = [Uint8Array.of(1, 2, 3), new Uint8Array(0), filled(1000, 7), Uint8Array.of(9)];
    const bytes = packVariable(items);
    assert.equal(bytes.length, 4 * (items.length + 2) + 1004);
    assert.deepEqual(unpackVariable(bytes), items);
    assert.deepEqual(unpackVariable(packVariable([])), []);
  });

  it('returns views into the one buffer, without copying', () => {
    const bytes = packVariable([Uint8Array.of(1, 2)]);
    assert.equal(unpackVariable(bytes)[0]!.buffer, bytes.buffer);
  });

  it('refuses truncated or corrupt tables instead of reading past them', () => {
    const bytes = packVariable([Uint8Array.of(1, 2), Uint8Array.of(3)]);
    assert.throws(() => unpackVariable(bytes.subarray(0, 6)), /at least 8 bytes/);
    assert.throws(() => unpackVariable(bytes.subarray(0, bytes.length - 1)), /item 1 expected an end offset in \[2, 2\], got 3/);
    const huge = bytes.slice();
    new DataView(huge.buffer).setUint32(0, 1_000_000);
    assert.throws(() => unpackVariable(huge), /offset table of 4000008 bytes/);
    const backwards = bytes.slice();
    new DataView(backwards.buffer).setUint32(8, 5);
    assert.throws(() => unpackVariable(backwards), /item 0 expected an end offset/);
    const trailing = new Uint8Array(bytes.length + 1);
    trailing.set(bytes);
    assert.throws(() => unpackVariable(trailing), /expected 3 data bytes, got 4/);
  });
});
