/**
 * Every case of Wycheproof hmac_sha256_test.json against wasm/hash.ts hmacSha256. Groups with
 * tagSize 128 carry tags truncated to the leftmost 16 bytes (RFC 2104 §5): the computed tag is
 * truncated the same way. "valid" cases must match; "invalid" ones (modified tags) must not.
 */
import assert from 'node:assert/strict';
import { timingSafeEqual } from 'node:crypto';
import { describe, it } from 'node:test';
import { hmacSha256 } from '../../wasm/hash.js';
import { hexToBytes, readSharedVectors } from '../helpers/vectors.js';

/** tcIds skipped, with the reason. None: every case runs. */
const SKIP: ReadonlyMap<number, string> = new Map();

interface MacTest {
  tcId: number;
  comment: string;
  flags: string[];
  key: string;
  msg: string;
  tag: string;
  result: 'valid' | 'invalid' | 'acceptable';
}

interface MacTestGroup {
  type: 'MacTest';
  keySize: number;
  tagSize: number;
  tests: MacTest[];
}

interface MacTestFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: MacTestGroup[];
}

const file = readSharedVectors<MacTestFile>('wycheproof/hmac_sha256_test.json');

/** A verifier as an application would write it: recompute, truncate, compare in constant time. */
function verify(key: Uint8Array, msg: Uint8Array, tag: Uint8Array, tagBytes: number): boolean {
  const full = hmacSha256(key, msg);
  return tag.length === tagBytes && timingSafeEqual(full.subarray(0, tagBytes), tag);
}

describe('Wycheproof HMAC-SHA-256', () => {
  it('the file is the one this test was written for', () => {
    assert.equal(file.algorithm, 'HMACSHA256');
    assert.equal(
      file.testGroups.reduce((n, g) => n + g.tests.length, 0),
      file.numberOfTests,
    );
  });

  for (const group of file.testGroups) {
    const tagBytes = group.tagSize / 8;
    it(`keySize ${group.keySize}, tagSize ${group.tagSize}: ${group.tests.length} cases`, () => {
      let ran = 0;
      for (const t of group.tests) {
        if (SKIP.has(t.tcId)) continue;
        const key = hexToBytes(t.key);
        const msg = hexToBytes(t.msg);
        const tag = hexToBytes(t.tag);
        assert.equal(key.length * 8, group.keySize, `tcId ${t.tcId}: key size`);
        const ok = verify(key, msg, tag, tagBytes);
        assert.equal(ok, t.result === 'valid', `tcId ${t.tcId} (${t.comment}, ${t.flags.join(',')}): expected ${t.result}`);
        ran++;
      }
      assert.ok(ran > 0);
    });
  }
});
